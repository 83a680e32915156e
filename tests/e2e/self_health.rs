//! `health self` and `edit release_snapshot` end to end: a running MCP server
//! reports each route it answered (the first call of a route cold, the next warm,
//! p50/p95 from the samples), a one-shot CLI reports no observations as WARN;
//! a snapshot release with a malformed id or an unsigned lease is refused.

use serde_json::{Value, json};

use crate::support::{assert_envelope, mcp, mcp_call, project, tool_cli};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_reports_the_routes_it_answered() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    for _ in 0..3 {
        let (is_error, _) = mcp_call(
            &client,
            "nav",
            json!({"action": "callers", "function_name": "build", "output_format": "json"}),
        )
        .await;
        assert!(!is_error);
    }
    let (is_error, v) = mcp_call(
        &client,
        "health",
        json!({"action": "self", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["scope"], "current_process");
    let routes = v["routes"].as_array().unwrap();
    let callers: Vec<&Value> = routes
        .iter()
        .filter(|r| r["tool"] == "nav" && r["action"] == "callers")
        .collect();
    assert_eq!(callers.len(), 2, "cold and warm: {routes:?}");
    assert_eq!(callers[0]["tier"], "cold");
    assert_eq!(callers[0]["count"], 1);
    assert_eq!(callers[1]["tier"], "warm");
    assert_eq!(callers[1]["count"], 2);
    assert!(callers[1]["p95_ms"].as_f64().unwrap() >= callers[1]["p50_ms"].as_f64().unwrap());
    assert_eq!(v["ast_index"]["status"], "OK");
    assert_eq!(v["ast_index"]["path"], ".tsa/index.db");
    assert!(v["total_invocations"].as_u64().unwrap() >= 3);
    // A snapshot release over MCP: a lease this server did not sign is refused.
    let id = format!("ds_{}", "c".repeat(32));
    let lease = format!("dl_{}", "d".repeat(43));
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "release_snapshot", "diff_snapshot_id": id, "route_lease_id": lease, "output_format": "json"}),
    )
    .await;
    assert!(is_error);
    assert_eq!(v["error_code"], "DIFF_SNAPSHOT_LEASE_MISMATCH", "{v}");
    client.cancel().await.unwrap();
}

fn cli(root: &std::path::Path, tool: &str, args: &Value) -> Value {
    tool_cli(root, tool, args)
}

#[test]
fn a_one_shot_cli_has_no_observations_and_releases_are_checked() {
    let p = project("python");
    let v = cli(&p.root, "health", &json!({"action": "self"}));
    assert_eq!(v["verdict"], "WARN", "{v}");
    assert_eq!(v["observations_status"], "NO_OBSERVATIONS");
    assert_eq!(v["ast_index"]["status"], "ABSENT");
    let v = cli(
        &p.root,
        "edit",
        &json!({"action": "release_snapshot", "diff_snapshot_id": "ds_x", "route_lease_id": "dl_y"}),
    );
    assert_eq!(v["error_code"], "DIFF_SNAPSHOT_ID_INVALID", "{v}");
    assert_eq!(v["error_type"], "validation");
    let id = format!("ds_{}", "a".repeat(32));
    let lease = format!("dl_{}", "b".repeat(43));
    let v = cli(
        &p.root,
        "edit",
        &json!({"action": "release_snapshot", "diff_snapshot_id": id, "route_lease_id": lease}),
    );
    assert_eq!(v["error_code"], "DIFF_SNAPSHOT_LEASE_MISMATCH", "{v}");
    let v = cli(
        &p.root,
        "edit",
        &json!({"action": "release_snapshot", "diff_snapshot_id": id}),
    );
    assert_eq!(v["error_type"], "validation", "{v}");
}

#[test]
fn every_failure_of_a_3_0_action_names_its_error_code() {
    let p = project("python");
    for (tool, args) in [
        (
            "nav",
            json!({"action": "pulse", "file": "app/core.py", "symbol": "build", "max_callers": 5000}),
        ),
        (
            "nav",
            json!({"action": "pulse_batch", "targets": [], "max_symbols": 0}),
        ),
        ("health", json!({"action": "unreachable"})),
        ("health", json!({"action": "middleware", "mode": "lookup"})),
        ("health", json!({"action": "refactor_queue", "top_n": 0})),
        ("project", json!({"action": "card", "force_refresh": "no"})),
        ("search", json!({"action": "semantic", "query": "a"})),
        (
            "edit",
            json!({"action": "rename", "symbol": "build", "new_name": "1x"}),
        ),
        ("edit", json!({"action": "verify", "request": "nope"})),
    ] {
        let v = cli(&p.root, tool, &args);
        assert_eq!(v["success"], false, "{tool} {args}: {v}");
        assert!(
            v["error_code"].as_str().is_some_and(|c| !c.is_empty()),
            "{tool} {args}: {v}"
        );
    }
}
