//! TQL pseudo-classes that read data beyond the call graph, end to end: `:branch`
//! (the branch kind stored per call site), `:violates` (architectural constraints
//! evaluated now), `.module` (one per file), `:in` on whole segments, and the
//! temporal ones over git activation (`index full include_activation=true`):
//! refused without it, per symbol with it, refreshed for a file edited since.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{mcp, mcp_call, project, tool_cli};

fn tql(root: &Path, selector: &str) -> Value {
    tool_cli(
        root,
        "search",
        &json!({"action": "tql_execute", "selector": selector}),
    )
}

fn names(v: &Value) -> Vec<String> {
    let mut n: Vec<String> = v["symbols"]
        .as_array()
        .unwrap_or_else(|| panic!("no symbols: {v}"))
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect();
    n.sort();
    n
}

#[test]
fn branch_kinds_pick_the_callees_of_call_sites_in_that_branch() {
    let p = project("tql_data");
    for (kind, want) in [
        ("loop", vec!["c", "d", "each"]),
        ("except", vec!["b", "handle"]),
        ("catch", vec!["b", "handle"]),
        ("finally", vec!["cleanup"]),
        ("if_false", vec!["c", "check", "other"]),
        ("match", vec!["d"]),
    ] {
        let v = tql(&p.root, &format!(".function:branch({kind})"));
        assert_eq!(names(&v), want, "{kind}: {v}");
        assert_eq!(v["verdict"], "INFO");
    }
    // Combined with a walk: called inside a loop and called by run.
    let v = tql(&p.root, ".function:branch(loop):called-by(#run)");
    assert_eq!(names(&v), ["each"], "{v}");
    let v = tql(&p.root, ".function:branch(with)");
    assert_eq!(
        v["verdict"], "NOT_FOUND",
        "f.read() binds no project function: {v}"
    );
    let v = tql(&p.root, "*:branch(sometimes)");
    assert_eq!(v["error_code"], "TQL_SYNTAX_ERROR", "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("if_true"),
        "lists the kinds: {v}"
    );
}

#[test]
fn violates_evaluates_the_rules_now_and_module_holds_imports() {
    let p = project("constraints");
    // A method and top-level code break the rule too.
    std::fs::write(
        p.root.join("app/api/views.py"),
        "from app.db.models import load\n\n\nclass View:\n    def show(self, key):\n        return load(key)\n\n\nload(\"boot\")\n",
    )
    .unwrap();
    let v = tql(&p.root, ".function:violates(api-not-db)");
    assert_eq!(names(&v), ["create", "show"], "{v}");
    let v = tql(&p.root, ".method:violates(api-not-db)");
    assert_eq!(names(&v), ["show"], "{v}");
    let v = tql(&p.root, ".module:violates(api-not-db)");
    let files: Vec<&str> = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["app/api/routes.py", "app/api/views.py"], "{v}");
    // A file's definitions are the children of its module.
    let v = tql(&p.root, ".module[file=app/api/views.py] > *");
    assert_eq!(names(&v), ["View"], "{v}");
    let v = tql(&p.root, ".module[file=app/api/views.py] .method");
    assert_eq!(names(&v), ["show"], "{v}");
    let v = tql(&p.root, "*:violates(no-such-rule)");
    assert_eq!(v["error_code"], "UNKNOWN_RULE", "{v}");
    assert!(v["error"].as_str().unwrap().contains("api-not-db"), "{v}");
    // `.module` is one row per file; `:in` takes whole segments.
    let v = tql(&p.root, ".module:in(app/db)");
    assert_eq!(names(&v), ["audit", "db", "models"], "{v}");
    let v = tql(&p.root, ".function:in(app/d)");
    assert_eq!(v["verdict"], "NOT_FOUND", "app/d is not app/db: {v}");
    let q = project("python");
    let v = tql(&q.root, "*:violates(x)");
    assert_eq!(v["error_code"], "VIOLATION_INDEX_UNAVAILABLE", "{v}");
}

const DAY: i64 = 86_400;

fn commit_at(repo: &git2::Repository, files: &[&str], msg: &str, days_ago: i64) {
    let mut idx = repo.index().unwrap();
    for f in files {
        idx.add_path(Path::new(f)).unwrap();
    }
    idx.write().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let when = git2::Time::new(now - days_ago * DAY, 0);
    let sig = git2::Signature::new("t", "t@example.com", &when).unwrap();
    crate::edit_git::commit_as(repo, msg, &sig);
}

const OLD: &str = "def settled():\n    return 1\n\n\ndef touched():\n    return 2\n";

#[test]
fn temporal_selectors_read_git_activation_per_symbol() {
    let p = project("tql_data");
    let root = &p.root;
    std::fs::write(root.join("app/old.py"), OLD).unwrap();
    std::fs::write(root.join("app/fresh.py"), "def recent():\n    return 3\n").unwrap();
    // Without git history: refused, never an empty answer.
    let v = tql(root, ".function:hot");
    assert_eq!(v["error_code"], "TEMPORAL_INDEX_UNAVAILABLE", "{v}");
    let mut o = git2::RepositoryInitOptions::new();
    o.initial_head("main");
    let repo = git2::Repository::init_opts(root, &o).unwrap();
    commit_at(
        &repo,
        &["app/flow.py", "app/shapes.js", "app/old.py"],
        "old",
        400,
    );
    std::fs::write(
        root.join("app/old.py"),
        OLD.replace("return 2", "return 20"),
    )
    .unwrap();
    // An empty file touched in the window: nothing to blame, not a failure.
    std::fs::write(root.join("app/__init__.py"), "").unwrap();
    commit_at(
        &repo,
        &["app/old.py", "app/fresh.py", "app/__init__.py"],
        "recent",
        2,
    );
    let v = tql(root, ".function:hot");
    assert_eq!(
        v["error_code"], "TEMPORAL_INDEX_UNAVAILABLE",
        "not computed yet: {v}"
    );
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("include_activation=true"),
        "{v}"
    );
    let v = tool_cli(
        root,
        "index",
        &json!({"action": "full", "include_activation": true}),
    );
    assert_eq!(v["activation"]["pending"], 0, "{v}");
    assert!(v["activation"]["blamed"].as_u64().unwrap() >= 2, "{v}");
    let v = tool_cli(root, "index", &json!({"action": "schema"}));
    assert_eq!(v["result"]["activation_available"], true, "{v}");
    assert_eq!(v["result"]["temporal_ready"], true, "{v}");

    assert_eq!(names(&tql(root, ".function:hot")), ["recent", "touched"]);
    assert_eq!(
        names(&tql(root, ".function:recently_modified")),
        ["recent", "touched"]
    );
    let stale = names(&tql(root, ".function:stale"));
    assert!(
        stale.contains(&"settled".to_owned()) && stale.contains(&"run".to_owned()),
        "{stale:?}"
    );
    assert!(!stale.contains(&"touched".to_owned()), "{stale:?}");
    let v = tql(root, ".function[file=app/old.py]:hotspot");
    assert_eq!(names(&v), ["touched"], "zero churn is never a hotspot: {v}");
    let v = tql(root, ".function:hot(400)");
    assert_eq!(v["error_code"], "TEMPORAL_WINDOW_EXCEEDED", "{v}");
    // The empty file touched two days ago is hot, not older than the window.
    let v = tql(root, ".module[file=app/__init__.py]:hot");
    assert_eq!(v["count"], 1, "{v}");
    // Semantic search's combined score takes the heat from the same activation.
    let v = tool_cli(
        root,
        "search",
        &json!({"action": "semantic", "query": "touched", "use_combined_score": true}),
    );
    assert_eq!(v["neighbors"][0]["name"], "touched", "{v}");
    assert_eq!(v["neighbors"][0]["git_heat"], 1, "{v}");
    assert!(!v.to_string().contains("heat left out"), "{v}");

    // An uncommitted edit: refused until the index has the file again, then the
    // file's activation is computed again and the edited symbol is hot.
    std::fs::write(
        root.join("app/old.py"),
        OLD.replace("return 1", "return 10")
            .replace("return 2", "return 20"),
    )
    .unwrap();
    let v = tql(root, ".function[file=app/old.py]:hot");
    assert_eq!(v["error_code"], "TEMPORAL_ACTIVATION_UNAVAILABLE", "{v}");
    tool_cli(root, "index", &json!({"action": "full"}));
    let v = tql(root, ".function[file=app/old.py]:hot");
    assert_eq!(names(&v), ["settled", "touched"], "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branch_over_mcp() {
    let p = project("tql_data");
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "search",
        json!({"action": "tql_execute", "selector": ".function:branch(try)", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_eq!(names(&v), ["a", "retry"], "{v}");
    client.cancel().await.unwrap();
}
