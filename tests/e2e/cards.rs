//! `index schema` and `project card` end to end, through the CLI and over MCP: the
//! schema never creates an index (WARN without one), counts what the index holds;
//! the card is stored, served while the index is unchanged, rebuilt on
//! `force_refresh` or when the index changed, and names no absolute path.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{assert_envelope, empty_project, mcp, mcp_call, project, tool_cli};

fn cli(root: &Path, tool: &str, args: &Value) -> Value {
    tool_cli(root, tool, args)
}

#[test]
fn the_schema_reads_and_never_builds() {
    let p = project("python");
    let v = cli(&p.root, "index", &json!({"action": "schema"}));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "WARN", "no index yet: {v}");
    assert_eq!(v["result"]["indexed"], false);
    assert!(
        !p.root.join(".tsa/index.db").exists(),
        "the schema call built nothing"
    );
    let built = cli(&p.root, "index", &json!({"action": "full"}));
    assert_eq!(built["success"], true, "{built}");
    let v = cli(&p.root, "index", &json!({"action": "schema"}));
    assert_eq!(v["verdict"], "INFO", "{v}");
    let r = &v["result"];
    assert_eq!(r["indexed"], true);
    let status = cli(&p.root, "index", &json!({"action": "status"}));
    assert_eq!(r["total_symbols"], status["symbols"], "{status}");
    assert_eq!(r["indexed_files"], status["files"]);
    assert!(
        r["languages"]
            .as_array()
            .unwrap()
            .contains(&json!("python"))
    );
    assert!(
        r["hyphae_pseudo_classes"]
            .as_array()
            .unwrap()
            .contains(&json!(":calls"))
    );
    assert_eq!(r["activation_available"], false);
    assert!(
        v["summary_line"]
            .as_str()
            .unwrap()
            .starts_with("index schema indexed=true symbols=")
    );
}

#[test]
fn the_card_is_stored_and_rebuilt_when_the_index_changes() {
    let p = project("python");
    let v = cli(&p.root, "project", &json!({"action": "card"}));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["rebuilt"], true);
    assert_eq!(v["project_root"], ".");
    assert!(
        !v.to_string().contains(p.root.to_str().unwrap()),
        "no absolute path: {v}"
    );
    assert_eq!(v["language_distribution"]["python"], 7, "{v}");
    let critical = v["critical_nodes"].as_array().unwrap();
    assert_eq!(
        critical[0]["file"], "app/core.py",
        "the most imported file: {v}"
    );
    assert_eq!(critical[0]["rank"], 1);
    assert!(
        v["quick_start"]
            .as_str()
            .unwrap()
            .starts_with("Python project. Entry: app/cli.py."),
        "{v}"
    );
    assert!(v["quick_start"].as_str().unwrap().chars().count() <= 100);
    assert!(
        v["summary_line"].as_str().unwrap().contains("python"),
        "{v}"
    );
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("file_path=app/core.py"),
        "{v}"
    );
    assert!(p.root.join(".tsa/card.json").is_file());
    let again = cli(&p.root, "project", &json!({"action": "card"}));
    assert_eq!(again["rebuilt"], false, "{again}");
    let forced = cli(
        &p.root,
        "project",
        &json!({"action": "card", "force_refresh": true}),
    );
    assert_eq!(forced["rebuilt"], true);
    // A new file and a sync: the stored card is of an older index.
    std::fs::write(p.root.join("app/extra.py"), "def extra():\n    return 1\n").unwrap();
    let synced = cli(&p.root, "index", &json!({"action": "sync"}));
    assert_eq!(synced["success"], true, "{synced}");
    let v = cli(&p.root, "project", &json!({"action": "card"}));
    assert_eq!(v["rebuilt"], true, "{v}");
    assert_eq!(v["language_distribution"]["python"], 8);
}

#[test]
fn a_card_of_a_project_without_source_is_an_error_envelope() {
    let p = empty_project();
    let v = cli(&p.root, "project", &json!({"action": "card"}));
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_type"], "empty_project", "{v}");
    let v = cli(
        &p.root,
        "project",
        &json!({"action": "card", "force_refresh": "yes"}),
    );
    assert_eq!(v["error_type"], "validation", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_and_card_over_mcp() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "project",
        json!({"action": "card", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    assert_eq!(v["critical_nodes"][0]["file"], "app/core.py");
    let (is_error, v) = mcp_call(
        &client,
        "index",
        json!({"action": "schema", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_eq!(
        v["result"]["indexed"], true,
        "the card built the index first: {v}"
    );
    let (is_error, v) = mcp_call(&client, "index", json!({"action": "schema", "extra": 1})).await;
    assert!(is_error);
    assert_eq!(v["error_type"], "validation");
    client.cancel().await.unwrap();
}
