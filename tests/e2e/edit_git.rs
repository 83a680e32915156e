//! The git-based and structural `edit` actions (impact, pr, classify, ast_diff,
//! guard, constraints) end to end: repositories are created with git2 inside the
//! test, every answer is asked over the CLI and over one MCP session and must be
//! the same, and each action's truncation and error/NOT_FOUND paths are exercised.

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::support::{Project, assert_envelope, bin, empty_project, json as cli_json, project};

pub(crate) type Client = RunningService<rmcp::RoleClient, ()>;

pub(crate) async fn mcp(root: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    ().serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

fn cli_args(tool: &str, args: &Value) -> Vec<String> {
    let mut out = vec![tool.to_owned()];
    for (k, v) in args.as_object().unwrap() {
        if k == "action" {
            out.push(v.as_str().unwrap().to_owned());
            continue;
        }
        out.push(format!("--{}", k.replace('_', "-")));
        out.push(match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    }
    out.push("--output-format".into());
    out.push("json".into());
    out
}

fn strip(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("warnings");
    o.remove("elapsed_ms");
    // Violations carry their detection time.
    strip_key(&mut v, "detected_at");
    v
}

fn strip_key(v: &mut Value, key: &str) {
    match v {
        Value::Object(m) => {
            m.remove(key);
            m.values_mut().for_each(|x| strip_key(x, key));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| strip_key(x, key)),
        _ => {}
    }
}

/// Asks `edit <args>` over MCP and the CLI; both answers must be equal envelopes.
pub(crate) async fn both(client: &Client, root: &Path, args: Value) -> Value {
    let mut with_format = args.as_object().unwrap().clone();
    with_format.insert("output_format".into(), json!("json"));
    let r = client
        .call_tool(CallToolRequestParams::new("edit").with_arguments(with_format))
        .await
        .unwrap();
    let block = serde_json::to_value(&r.content[0]).unwrap();
    let over_mcp: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
    assert_envelope(&over_mcp);
    assert_eq!(
        r.is_error.unwrap_or(false),
        !over_mcp["success"].as_bool().unwrap()
    );
    let words = cli_args("edit", &args);
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, over_cli) = cli_json(root, &refs);
    assert_envelope(&over_cli);
    assert_eq!(code == 0, over_cli["success"].as_bool().unwrap());
    assert_eq!(
        strip(over_mcp.clone()),
        strip(over_cli),
        "edit {args}: CLI and MCP differ"
    );
    over_mcp
}

pub(crate) fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

pub(crate) fn init(root: &Path) -> git2::Repository {
    let mut o = git2::RepositoryInitOptions::new();
    o.initial_head("main");
    let repo = git2::Repository::init_opts(root, &o).unwrap();
    stage_all(&repo);
    commit(&repo, "initial");
    repo
}

fn stage_all(repo: &git2::Repository) {
    let mut idx = repo.index().unwrap();
    idx.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    idx.update_all(["*"].iter(), None).unwrap();
    // The index folder is never part of the project's history.
    let _ = idx.remove_dir(Path::new(".tsa"), 0);
    idx.write().unwrap();
}

fn stage(repo: &git2::Repository, rel: &str) {
    let mut idx = repo.index().unwrap();
    idx.add_path(Path::new(rel)).unwrap();
    idx.write().unwrap();
}

fn commit(repo: &git2::Repository, msg: &str) {
    commit_as(
        repo,
        msg,
        &git2::Signature::now("t", "t@example.com").unwrap(),
    );
}

/// Commits what is staged on HEAD, signed (and dated) by `sig`.
pub(crate) fn commit_as(repo: &git2::Repository, msg: &str, sig: &git2::Signature<'_>) {
    let mut idx = repo.index().unwrap();
    let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
    let parents: Vec<git2::Commit<'_>> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    repo.commit(Some("HEAD"), sig, sig, msg, &tree, &refs)
        .unwrap();
}

fn git_project() -> (Project, git2::Repository) {
    let p = project("edit_git");
    let repo = init(&p.root);
    (p, repo)
}

fn names(v: &Value, list: &str, key: &str) -> Vec<String> {
    v[list]
        .as_array()
        .unwrap_or_else(|| panic!("{list} missing: {v}"))
        .iter()
        .map(|r| match r {
            Value::String(s) => s.clone(),
            o => o[key].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

fn change_of(v: &Value, list: &str, symbol: &str) -> String {
    v[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == symbol)
        .unwrap_or_else(|| panic!("{symbol} not in {list}: {v}"))["change"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impact_reads_diff_staged_and_branch() {
    let (p, repo) = git_project();
    let root = &p.root;
    let client = mcp(root).await;
    // Clean tree: SAFE, no changes.
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["verdict"], "SAFE", "{v}");
    assert_eq!(v["summary"], "No changes detected");
    assert_eq!(v["changed_count"], 0);

    // Unstaged: compute's body changes.
    let core = std::fs::read_to_string(root.join("app/core.py")).unwrap();
    write(
        root,
        "app/core.py",
        &core.replace("return x * 2", "return x * 3"),
    );
    let v = both(&client, root, json!({"action": "impact", "mode": "diff"})).await;
    assert_eq!(names(&v, "changed_files", "file"), ["app/core.py"], "{v}");
    assert_eq!(change_of(&v, "changed_symbols", "compute"), "body_changed");
    assert_eq!(v["changed_symbol_count"], 1, "only compute changed: {v}");
    let affected = names(&v, "affected_files", "");
    for f in ["app/service.py", "app/cli.py", "tests/test_core.py"] {
        assert!(affected.contains(&f.to_owned()), "{f} in {affected:?}");
    }
    let callers = names(&v, "affected_symbols", "symbol");
    for c in ["serve", "test_compute", "Engine.run"] {
        assert!(callers.contains(&c.to_owned()), "{c} in {callers:?}");
    }
    assert_eq!(names(&v, "tests_to_run", ""), ["tests/test_core.py"]);
    assert_eq!(v["verification_command"], "pytest tests/test_core.py");
    assert_eq!(v["risk_level"], "medium", "3 affected files: {v}");
    assert_eq!(v["verdict"], "REVIEW");
    assert_eq!(
        v["test_mapping"]["app/core.py"],
        json!(["tests/test_core.py"])
    );
    // Compact surface only.
    let c = both(
        &client,
        root,
        json!({"action": "impact", "agent_summary_only": true}),
    )
    .await;
    assert!(c.get("changed_files").is_none(), "{c}");
    assert_eq!(c["agent_summary"]["changed_count"], 1);
    // Scoped to a folder without changes.
    let s = both(
        &client,
        root,
        json!({"action": "impact", "scope_paths": ["rs"]}),
    )
    .await;
    assert_eq!(s["changed_count"], 0, "{s}");
    assert_eq!(s["out_of_scope_count"], 1);
    // A scope path that does not exist is reported, never silently dropped.
    let s = both(
        &client,
        root,
        json!({"action": "impact", "scope_paths": ["nope"]}),
    )
    .await;
    assert_eq!(s["scope_paths_invalid"], json!(["nope"]), "{s}");
    assert_eq!(s["verdict"], "WARN");

    // Staged: the Rust `add` changes; compute stays unstaged.
    let lib = std::fs::read_to_string(root.join("rs/src/lib.rs")).unwrap();
    write(
        root,
        "rs/src/lib.rs",
        &lib.replace("    a + b\n", "    b + a\n"),
    );
    stage(&repo, "rs/src/lib.rs");
    let v = both(&client, root, json!({"action": "impact", "mode": "staged"})).await;
    assert_eq!(names(&v, "changed_files", "file"), ["rs/src/lib.rs"], "{v}");
    assert_eq!(change_of(&v, "changed_symbols", "add"), "body_changed");
    let callers = names(&v, "affected_symbols", "symbol");
    assert!(callers.contains(&"twice".to_owned()), "{callers:?}");
    assert!(callers.contains(&"tests::adds".to_owned()), "{callers:?}");
    assert_eq!(
        v["verification_command"], "cargo test -- tests::adds",
        "{v}"
    );
    assert_eq!(v["mode"], "staged");

    // Branch: commit on a feature branch that removes `unused` and renames `report`.
    stage_all(&repo);
    commit(&repo, "compute and add");
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    repo.branch("feature", &head, false).unwrap();
    repo.set_head("refs/heads/feature").unwrap();
    let core = std::fs::read_to_string(root.join("app/core.py")).unwrap();
    write(
        root,
        "app/core.py",
        &core.replace("def unused():\n    return 0\n\n\n", ""),
    );
    let svc = std::fs::read_to_string(root.join("app/service.py")).unwrap();
    write(
        root,
        "app/service.py",
        &svc.replace("def report():", "def summary():"),
    );
    stage_all(&repo);
    commit(&repo, "feature");
    let v = both(&client, root, json!({"action": "impact", "mode": "branch"})).await;
    assert_eq!(v["base"]["branch"], "main", "{v}");
    assert_eq!(
        names(&v, "changed_files", "file"),
        ["app/core.py", "app/service.py"]
    );
    assert_eq!(change_of(&v, "changed_symbols", "unused"), "removed");
    assert_eq!(change_of(&v, "changed_symbols", "summary"), "renamed");

    // pr review of the same branch.
    let r = both(
        &client,
        root,
        json!({"action": "pr", "include_call_graph": true}),
    )
    .await;
    assert_eq!(r["mode"], "branch");
    assert_eq!(r["breaking_change_count"], 2, "{r}");
    assert!(r["call_graph"].is_array());
    let r2 = both(
        &client,
        root,
        json!({"action": "pr", "include_call_graph": false}),
    )
    .await;
    assert!(r2.get("call_graph").is_none());

    // classify / ast_diff on the file between two commits.
    let c = both(
        &client,
        root,
        json!({"action": "classify", "file_path": "app/core.py", "old_ref": "HEAD~1", "new_ref": "HEAD"}),
    )
    .await;
    assert_eq!(c["mode"], "classify_file");
    assert_eq!(change_of(&c, "changes", "unused"), "removed");
    let d = both(
        &client,
        root,
        json!({"action": "ast_diff", "file_path": "app/service.py", "include_node_bodies": true}),
    )
    .await;
    assert_eq!(d["mode"], "diff_git");
    assert_eq!(change_of(&d, "changed", "summary"), "renamed");
    assert!(
        d["changed"][0]["new_body"]
            .as_str()
            .unwrap()
            .contains("def summary")
    );

    // Errors: pr_url offline, bad mode, a file at neither revision.
    for args in [
        json!({"action": "impact", "pr_url": "https://github.com/o/r/pull/1"}),
        json!({"action": "pr", "mode": "pr"}),
        json!({"action": "impact", "mode": "sideways"}),
        json!({"action": "classify", "file_path": "app/none.py"}),
        json!({"action": "ast_diff", "file_path": "app/core.py", "old_ref": "no-such-ref"}),
    ] {
        let e = both(&client, root, args.clone()).await;
        assert_eq!(e["success"], false, "{args}: {e}");
    }
    let e = both(
        &client,
        root,
        json!({"action": "impact", "pr_url": "https://github.com/o/r/pull/1"}),
    )
    .await;
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("not supported offline"),
        "{e}"
    );

    // Truncation: 60 new files overflow changed_files (cap 50), totals stay exact.
    for i in 0..60 {
        write(
            root,
            &format!("gen/m{i:02}.py"),
            &format!("def f{i}():\n    return {i}\n"),
        );
    }
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["truncated"], true, "{v}");
    assert_eq!(v["changed_files_total"], 60);
    assert_eq!(v["changed_files_listed"], 50);
    assert!(v["next_step"].as_str().unwrap().starts_with("showing "));
    client.cancel().await.unwrap();
}

/// Records a decision in the project journal over the CLI.
fn record(root: &Path, args: Value) -> Value {
    let mut a = json!({"action": "journal", "mode": "record", "rationale": "agreed in review"});
    a.as_object_mut()
        .unwrap()
        .extend(args.as_object().unwrap().clone());
    let words = cli_args("project", &a);
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &refs);
    assert_eq!(code, 0, "{v}");
    v
}

fn ids(v: &Value) -> Vec<String> {
    names(v, "related_decisions", "id")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impact_is_lifted_by_related_journal_decisions() {
    let (p, _repo) = git_project();
    let root = &p.root;
    let client = mcp(root).await;
    let core = std::fs::read_to_string(root.join("app/core.py")).unwrap();
    write(
        root,
        "app/core.py",
        &core.replace("return x * 2", "return x * 3"),
    );
    // No journal: the change's own verdict (3 affected files).
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["verdict"], "REVIEW", "{v}");
    assert_eq!(v["related_decision_count"], 0);
    assert_eq!(v["related_decisions"], json!([]));

    // A weaker decision about an affected file is listed and never lowers the verdict.
    record(
        root,
        json!({"id": "D-0001", "title": "service stays thin", "verdict": "CAUTION", "scope_paths": ["app/service.py"]}),
    );
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["verdict"], "REVIEW", "{v}");
    let d = &v["related_decisions"][0];
    assert_eq!(d["id"], "D-0001");
    assert_eq!(d["verdict"], "CAUTION");
    assert_eq!(d["matched_by"], "affected_file");
    assert_eq!(d["matched_path"], "app/service.py");
    assert!(
        !v["risk_factors"].to_string().contains("journal_decision"),
        "{v}"
    );

    // A stronger decision covering the changed file lifts it (change-impact order).
    record(
        root,
        json!({"id": "D-0002", "title": "core arithmetic is frozen", "verdict": "UNSAFE", "scope_paths": ["app"]}),
    );
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["verdict"], "UNSAFE", "{v}");
    assert_eq!(v["agent_summary"]["verdict"], "UNSAFE");
    assert_eq!(ids(&v), ["D-0002", "D-0001"], "most severe first");
    assert_eq!(v["related_decisions"][0]["matched_by"], "changed_file");
    assert_eq!(v["related_decisions"][0]["matched_path"], "app/core.py");
    assert_eq!(v["risk_level"], "medium", "risk is the change's own");
    let basis = v["verdict_basis"].to_string();
    assert!(
        basis.contains("lifted from REVIEW to UNSAFE by decision D-0002"),
        "{v}"
    );
    assert!(v["risk_factors"].to_string().contains("journal_decision"));
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("project action=journal mode=get id=D-0002"),
        "{v}"
    );

    // Superseded decisions no longer count; a decision naming a changed symbol does.
    record(
        root,
        json!({"id": "D-0003", "title": "compute may change with a warning", "verdict": "WARN", "related_symbols": ["compute"]}),
    );
    let words = cli_args(
        "project",
        &json!({"action": "journal", "mode": "supersede", "id": "D-0002", "new_id": "D-0003"}),
    );
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    assert_eq!(cli_json(root, &refs).0, 0);
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["verdict"], "WARN", "{v}");
    assert_eq!(ids(&v), ["D-0003", "D-0001"], "D-0002 is superseded");
    assert_eq!(v["related_decisions"][0]["matched_by"], "symbol");
    assert_eq!(v["related_decisions"][0]["matched_symbol"], "compute");
    let c = both(
        &client,
        root,
        json!({"action": "impact", "agent_summary_only": true}),
    )
    .await;
    assert_eq!(c["verdict"], "WARN", "{c}");
    assert_eq!(c["related_decision_count"], 2);

    // The list is capped with its exact total.
    for i in 0..20 {
        record(
            root,
            json!({"id": format!("N-{i:02}"), "title": "note", "verdict": "INFO", "scope_paths": ["app/core.py"]}),
        );
    }
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["related_decision_count"], 22, "{v}");
    assert_eq!(v["related_decisions_listed"], 20);
    assert_eq!(v["related_decisions_cap"], 20);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["verdict"], "WARN");

    // In a git repository project workflow ends with edit impact scoped to the target,
    // and that step runs as written.
    let words = cli_args(
        "project",
        &json!({"action": "workflow", "target_path": "app/core.py"}),
    );
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, w) = cli_json(root, &refs);
    assert_eq!(code, 0, "{w}");
    assert_eq!(w["git_repository"], true);
    let trace = w["phases"][4]["steps"].as_array().unwrap();
    let step = trace.last().unwrap();
    assert_eq!(step["arguments"]["action"], "impact", "{w}");
    assert_eq!(step["arguments"]["scope_paths"], json!(["app/core.py"]));
    let v = both(&client, root, step["arguments"].clone()).await;
    assert_eq!(v["changed_count"], 1, "{v}");
    assert_eq!(v["verdict"], "WARN");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn impact_outside_git_is_an_error() {
    let p = empty_project();
    write(&p.root, "a.py", "def f():\n    return 1\n");
    let client = mcp(&p.root).await;
    let e = both(&client, &p.root, json!({"action": "impact"})).await;
    assert_eq!(e["success"], false);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("not a git repository"),
        "{e}"
    );
    let e = both(&client, &p.root, json!({"action": "pr"})).await;
    assert_eq!(e["success"], false);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guard_counts_callers_and_occurrences() {
    let (p, _repo) = git_project();
    let root = &p.root;
    let client = mcp(root).await;
    let v = both(
        &client,
        root,
        json!({"action": "guard", "symbol": "compute", "modification_type": "signature_change", "file_path": "app/core.py"}),
    )
    .await;
    assert_eq!(
        v["total_callers"], 3,
        "serve, Engine.run, test_compute: {v}"
    );
    assert_eq!(
        v["ripgrep_occurrences"], 3,
        "imports and the docstring do not count: {v}"
    );
    assert_eq!(v["impact_level"], "low");
    assert_eq!(v["verdict"], "CAUTION");
    assert_eq!(v["ast_caller_count"], 3);
    assert_eq!(v["callers_by_file"]["tests/test_core.py"], 1);
    assert!(
        v["required_actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().contains("Update every call site"))
    );
    let none = both(
        &client,
        root,
        json!({"action": "guard", "symbol": "unused", "modification_type": "delete"}),
    )
    .await;
    assert_eq!(none["verdict"], "SAFE", "{none}");
    assert_eq!(
        none["required_actions"],
        json!(["No callers found — safe to proceed."])
    );
    let miss = both(
        &client,
        root,
        json!({"action": "guard", "symbol": "computee", "modification_type": "rename"}),
    )
    .await;
    assert_eq!(miss["verdict"], "NOT_FOUND", "{miss}");
    assert!(
        miss["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "compute"),
        "{miss}"
    );
    let bad = both(
        &client,
        root,
        json!({"action": "guard", "symbol": "compute", "modification_type": "paint"}),
    )
    .await;
    assert_eq!(bad["success"], false);
    // Many uses: high impact, UNSAFE, and the occurrence list is capped honestly.
    let calls: String = (0..60).map(|i| format!("    compute({i})\n")).collect();
    write(
        root,
        "app/many.py",
        &format!("from app.core import compute\n\n\ndef many():\n{calls}"),
    );
    let _ = std::fs::remove_dir_all(root.join(".tsa"));
    let v = both(
        &client,
        root,
        json!({"action": "guard", "symbol": "compute", "modification_type": "behavior_change"}),
    )
    .await;
    assert_eq!(v["impact_level"], "high", "{v}");
    assert_eq!(v["verdict"], "UNSAFE");
    assert_eq!(v["truncated"], true);
    assert_eq!(v["count"], 63);
    assert!(v["impact_badge"].as_str().unwrap().contains("HIGH IMPACT"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn constraints_find_violations_and_escalate_impact() {
    let p = project("constraints");
    let root = &p.root;
    let repo = init(root);
    let client = mcp(root).await;
    let v = both(&client, root, json!({"action": "constraints"})).await;
    assert_eq!(v["verdict"], "UNSAFE", "{v}");
    assert_eq!(v["rule_count"], 2, "the bad rule is skipped: {v}");
    let rows = v["violations"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["rule_id"] == "api-not-db"
        && r["caller_file"] == "app/api/routes.py"
        && r["via"] == "call"
        && r["callee_name"] == "save"));
    assert!(
        rows.iter()
            .any(|r| r["rule_id"] == "api-not-db" && r["via"] == "import")
    );
    assert!(
        rows.iter()
            .any(|r| r["rule_id"] == "db-not-util" && r["caller_file"] == "app/db/audit.py")
    );
    assert!(
        rows.iter()
            .all(|r| r["caller_file"] != "app/api/legacy/old.py"),
        "exceptions hold: {v}"
    );
    assert!(root.join(".tsa/constraint_violations.json").is_file());
    let e = both(
        &client,
        root,
        json!({"action": "constraints", "severity_min": "error"}),
    )
    .await;
    assert!(
        e["violations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["severity"] == "error")
    );
    let f = both(
        &client,
        root,
        json!({"action": "constraints", "path_filter": "app/db/audit.py"}),
    )
    .await;
    assert_eq!(f["violation_count"], 2, "{f}");
    let t = both(&client, root, json!({"action": "constraints", "limit": 1})).await;
    assert_eq!(t["truncated"], true);
    assert_eq!(t["violations_listed"], 1);
    let bad = both(
        &client,
        root,
        json!({"action": "constraints", "severity_min": "loud"}),
    )
    .await;
    assert_eq!(bad["success"], false);

    // A change touching routes.py is UNSAFE through the error-severity rule.
    let routes = std::fs::read_to_string(root.join("app/api/routes.py")).unwrap();
    write(
        root,
        "app/api/routes.py",
        &format!("{routes}\n\ndef extra():\n    return 1\n"),
    );
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert_eq!(v["verdict"], "UNSAFE", "{v}");
    assert!(v["constraint_violation_count"].as_u64().unwrap() >= 1);
    drop(repo);

    // A malformed file: a validation error naming the line.
    write(
        root,
        "architectural-constraints.yml",
        "version: 1\nconstraints:\n  - id: [\n",
    );
    let e = both(&client, root, json!({"action": "constraints"})).await;
    assert_eq!(e["success"], false);
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .starts_with("constraint parse error: line "),
        "{e}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classify_and_ast_diff_on_strings_and_files() {
    let (p, _repo) = git_project();
    let root = &p.root;
    let client = mcp(root).await;
    let old = "def a(x):\n    return x\n\n\ndef b():\n    \"\"\"Doc.\"\"\"\n    return 1\n";
    let new = "def a(x, y):\n    return x\n\n\ndef b():\n    \"\"\"Other doc.\"\"\"\n    return 1\n\n\ndef c():\n    return 2\n";
    let v = both(
        &client,
        root,
        json!({"action": "classify", "old_source": old, "new_source": new, "language": "python"}),
    )
    .await;
    assert_eq!(v["mode"], "classify_string");
    assert_eq!(change_of(&v, "changes", "a"), "signature_changed");
    assert_eq!(change_of(&v, "changes", "b"), "docs_only");
    assert_eq!(change_of(&v, "changes", "c"), "added");
    assert_eq!(v["classification"], "api_change");
    let t = both(
        &client,
        root,
        json!({"action": "classify", "old_source": old, "new_source": new, "language": "python", "hunk_cap": 1}),
    )
    .await;
    assert_eq!(t["truncated"], true);
    assert_eq!(t["change_count"], 3);
    let e = both(
        &client,
        root,
        json!({"action": "classify", "old_source": "x"}),
    )
    .await;
    assert_eq!(e["success"], false, "{e}");
    let e = both(
        &client,
        root,
        json!({"action": "classify", "old_source": "x", "new_source": "y", "language": "klingon"}),
    )
    .await;
    assert_eq!(e["success"], false);

    // ast_diff over two files, and over strings with many definitions (capped).
    write(root, "old_v.py", old);
    write(root, "new_v.py", new);
    let d = both(
        &client,
        root,
        json!({"action": "ast_diff", "old_file": "old_v.py", "new_file": "new_v.py"}),
    )
    .await;
    assert_eq!(d["mode"], "diff_files");
    assert_eq!(names(&d, "added", "symbol"), ["c"]);
    assert_eq!(d["changed_count"], 2);
    let many: String = (0..120)
        .map(|i| format!("def f{i}():\n    return {i}\n\n\n"))
        .collect();
    let d = both(
        &client,
        root,
        json!({"action": "ast_diff", "old_source": "", "new_source": many, "language": "python"}),
    )
    .await;
    assert_eq!(d["truncated"], true, "{d}");
    assert_eq!(d["added_count"], 120);
    assert_eq!(d["added_listed"], 100);
    let same = both(
        &client,
        root,
        json!({"action": "ast_diff", "old_source": old, "new_source": old, "language": "python"}),
    )
    .await;
    assert_eq!(same["identical"], true);
    assert_eq!(same["verdict"], "INFO");
    let e = both(
        &client,
        root,
        json!({"action": "ast_diff", "old_file": "../x.py", "new_file": "new_v.py"}),
    )
    .await;
    assert_eq!(e["success"], false);
    let e = both(
        &client,
        root,
        json!({"action": "ast_diff", "old_file": "missing.py", "new_file": "new_v.py"}),
    )
    .await;
    assert_eq!(e["error_type"], "file_not_found", "{e}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pr_truncates_and_needs_a_base() {
    let (p, repo) = git_project();
    let root = &p.root;
    let client = mcp(root).await;
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    repo.branch("work", &head, false).unwrap();
    repo.set_head("refs/heads/work").unwrap();
    let many: String = (0..120)
        .map(|i| format!("def g{i}():\n    return {i}\n\n\n"))
        .collect();
    write(root, "app/more.py", &many);
    stage_all(&repo);
    commit(&repo, "more");
    let v = both(&client, root, json!({"action": "pr"})).await;
    assert_eq!(v["truncated"], true, "{v}");
    assert_eq!(v["change_count"], 120);
    assert_eq!(v["counts"]["added"], 120);
    // No main/master to compare against: a clear error.
    let q = empty_project();
    write(&q.root, "a.py", "def f():\n    return 1\n");
    let mut o = git2::RepositoryInitOptions::new();
    o.initial_head("trunk");
    let r2 = git2::Repository::init_opts(&q.root, &o).unwrap();
    stage_all(&r2);
    commit(&r2, "one");
    let (code, e) = cli_json(&q.root, &["edit", "pr", "--output-format", "json"]);
    assert_eq!(code, 1);
    assert!(e["error"].as_str().unwrap().contains("main"), "{e}");
    client.cancel().await.unwrap();
}
