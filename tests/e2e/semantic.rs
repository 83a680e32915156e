//! `search semantic` end to end: offline lexical retrieval on the python fixture,
//! its filters, NOT_FOUND below the threshold, bad arguments refused, combined
//! score over MCP.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{mcp, mcp_call, project, tool_cli};

fn cli(root: &Path, args: &Value) -> Value {
    tool_cli(root, "search", args)
}

#[test]
fn a_description_finds_the_symbols_that_say_it() {
    let p = project("python");
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "run the engine"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["model"], "tsa-lexical-v1");
    assert_eq!(v["similarity_method"], "idf_coverage");
    let first = &v["neighbors"][0];
    assert_eq!(first["name"], "run", "{v}");
    assert_eq!(first["class_name"], "Engine");
    assert_eq!(first["similarity"], 1.0);
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "engine", "kind": "class"}),
    );
    let kinds: Vec<&str> = v["neighbors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kind"].as_str().unwrap())
        .collect();
    assert!(
        !kinds.is_empty() && kinds.iter().all(|k| *k == "class"),
        "{v}"
    );
    // A class found through its docstring ("Runs builds."), a doc match weighing 0.7.
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "runs builds", "kind": "class", "min_similarity": 0.6}),
    );
    let engine = v["neighbors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "Engine")
        .unwrap_or_else(|| panic!("Engine through its docstring: {v}"));
    assert!(engine["similarity"].as_f64().unwrap() < 1.0, "{v}");
    // top_k caps the list, the total is counted, the cut is said.
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "build", "top_k": 1, "min_similarity": 0.3}),
    );
    assert_eq!(v["count"], 1, "{v}");
    assert!(v["total_matches"].as_u64().unwrap() > 1, "{v}");
    assert_eq!(v["truncated"], true, "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "quantum blockchain telemetry"}),
    );
    assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
    assert_eq!(v["count"], 0);
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "engine", "top_k": 51}),
    );
    assert_eq!(v["error_code"], "INVALID_ARGUMENT", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "semantic", "query": "engine", "min_similarity": 1.5}),
    );
    assert_eq!(v["error_type"], "validation", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn combined_score_over_mcp() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "search",
        json!({"action": "semantic", "query": "build target", "use_combined_score": true, "min_similarity": 0.4, "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    let first = &v["neighbors"][0];
    assert_eq!(first["name"], "build", "{v}");
    assert!(first["caller_count"].as_u64().unwrap() >= 5, "{first}");
    assert!(first["combined_score"].as_f64().is_some());
    assert!(v["warnings"].to_string().contains("heat"), "{v}");
    client.cancel().await.unwrap();
}
