//! `health refactor_queue` end to end: files git changed in the last 30 days,
//! ranked by low health, churn and dead-function density; no queue (WARN) without
//! git history; bad top_n refused; the same over MCP.

use std::path::Path;

use serde_json::{Value, json};

use crate::edit_git::{init, write};
use crate::support::{assert_envelope, empty_project, mcp, mcp_call, tool_cli};

fn cli(root: &Path, args: &Value) -> Value {
    tool_cli(root, "health", args)
}

fn commit_all(root: &Path, msg: &str) {
    let repo = git2::Repository::open(root).unwrap();
    let mut idx = repo.index().unwrap();
    idx.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    let _ = idx.remove_dir(Path::new(".tsa"), 0);
    idx.write().unwrap();
    let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &[&head])
        .unwrap();
}

/// A file with a tangled function (low health) and two dead ones.
fn busy(i: usize) -> String {
    let mut body = String::from("def used(x):\n");
    for d in 0..12 {
        body.push_str(&format!("{}if x > {d}:\n", "    ".repeat(d + 1)));
    }
    body.push_str(&format!("{}return {i}\n    return 0\n", "    ".repeat(13)));
    body.push_str("\n\ndef gone_a():\n    return 2\n\n\ndef gone_b():\n    return 3\n");
    body
}

fn churny_project() -> crate::support::Project {
    let p = empty_project();
    write(&p.root, "app/busy.py", &busy(9));
    write(
        &p.root,
        "app/calm.py",
        "from app.busy import used\n\n\ndef main():\n    return used(1)\n\n\nmain()\n",
    );
    init(&p.root);
    for i in 0..4 {
        write(&p.root, "app/busy.py", &busy(i));
        commit_all(&p.root, &format!("busy {i}"));
    }
    p
}

#[test]
fn top_n_truncates_honestly() {
    let p = churny_project();
    write(&p.root, "app/busy2.py", &busy(7));
    commit_all(&p.root, "busy2");
    let v = cli(&p.root, &json!({"action": "refactor_queue", "top_n": 1}));
    assert_eq!(v["status"], "OK", "{v}");
    assert!(v["ranked_count"].as_u64().unwrap() >= 2, "{v}");
    assert_eq!(v["queue_count"], 1, "{v}");
    assert_eq!(v["queue"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["truncated"], true, "{v}");
}

#[test]
fn churny_files_with_dead_code_come_first() {
    let p = churny_project();
    let v = cli(&p.root, &json!({"action": "refactor_queue"}));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["status"], "OK", "{v}");
    assert_eq!(v["verdict"], "INFO");
    let q = v["queue"].as_array().unwrap();
    assert!(!q.is_empty(), "{v}");
    let head = &q[0];
    assert_eq!(head["file_path"], "app/busy.py", "{v}");
    assert_eq!(head["rank"], 1);
    assert_eq!(head["churn_30d"], 5, "{head}");
    assert_eq!(head["dead_symbols"], 2, "{head}");
    let p0 = head["priority"].as_f64().unwrap();
    let health = head["health_score"].as_f64().unwrap();
    let ratio = 2.0 / head["total_symbols"].as_f64().unwrap();
    let want = (1.0 - health / 100.0) * 6f64.ln() * (ratio + 0.1);
    assert!((p0 - want).abs() < 1e-3, "{p0} vs {want}");
    assert!(v["formula"].as_str().unwrap().starts_with("priority = "));
    assert!(
        v["summary_line"]
            .as_str()
            .unwrap()
            .contains("head=app/busy.py")
    );
    let v = cli(&p.root, &json!({"action": "refactor_queue", "top_n": 51}));
    assert_eq!(v["error_type"], "validation", "{v}");
}

#[test]
fn without_history_there_is_no_queue() {
    let p = empty_project();
    write(&p.root, "a.py", "def f():\n    return 1\n");
    let v = cli(&p.root, &json!({"action": "refactor_queue"}));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "WARN");
    assert_eq!(v["status"], "CHURN_UNAVAILABLE");
    assert_eq!(v["queue"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refactor_queue_over_mcp() {
    let p = churny_project();
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "health",
        json!({"action": "refactor_queue", "top_n": 1, "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    assert_eq!(v["queue"].as_array().unwrap().len(), 1);
    assert_eq!(v["queue"][0]["file_path"], "app/busy.py");
    client.cancel().await.unwrap();
}
