//! `project metrics` and `project workflow` over the CLI and MCP: real figures on
//! fixtures, checked against the actions that own them, truncation and errors.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{assert_envelope, cli_words, json as cli_json, mcp, mcp_call, project};

fn ask(root: &Path, tool: &str, args: Value) -> Value {
    let words = cli_words(tool, &args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_envelope(&v);
    assert_eq!(code != 0, v["success"] == false, "{v}");
    v
}

fn cli(root: &Path, args: Value) -> Value {
    ask(root, "project", args)
}

/// Drops what legitimately differs between two calls a moment apart.
fn stable(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["age_seconds", "elapsed_ms", "warnings"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn names(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .unwrap_or_else(|| panic!("{list} missing: {v}"))
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_reports_the_graph_with_the_figures_of_the_owning_actions() {
    let p = project("navgraph");
    let root = &p.root;
    let v = cli(root, json!({"action": "metrics"}));
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(
        v["sections"],
        json!(["cache", "call_graph", "complexity", "routes", "health"])
    );

    // cache: the numbers of index status, plus the schema.
    let st = ask(root, "index", json!({"action": "status"}));
    for k in ["files", "symbols", "call_edges", "index_bytes", "built_at"] {
        assert_eq!(v["cache"][k], st[k], "cache.{k}: {v}");
    }
    assert_eq!(v["cache"]["files"], 6);
    assert_eq!(v["cache"]["up_to_date"], true);
    assert!(v["cache"]["schema_version"].as_u64().unwrap() >= 1);

    // call_graph: resolution classes of index status; fans and recursion of the fixture.
    let cg = &v["call_graph"];
    assert_eq!(cg["calls_classified_share"], st["calls_classified_share"]);
    assert_eq!(cg["calls_by_resolution"], st["calls_by_resolution"]);
    assert_eq!(cg["self_recursive"], 1, "compute calls itself: {cg}");
    assert_eq!(cg["cycle_count"], 1, "ping <-> pong: {cg}");
    assert_eq!(cg["functions_in_cycles"], 2);
    assert_eq!(
        v["call_cycles"][0]["functions"],
        json!(["ping", "pong"]),
        "{v}"
    );
    let top = &v["fan_in_top"][0];
    assert_eq!(top["name"], "check", "{v}");
    assert_eq!(top["file"], "shop/pricing.py");
    // validate, quick, slow, Order.audit, Invoice.total, Invoice.audit, make_value.
    assert_eq!(top["fan_in"], 7, "{top}");
    assert_eq!(
        top["cross_file_callers"], 3,
        "api.py, models.py, the test file: {top}"
    );
    let callers = ask(
        root,
        "nav",
        json!({"action": "callers", "function_name": "check", "file_path": "shop/pricing.py"}),
    );
    let distinct: std::collections::BTreeSet<&str> = callers["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["qualified_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        distinct.len() as u64,
        top["fan_in"].as_u64().unwrap(),
        "nav callers agrees: {callers}"
    );
    assert_eq!(
        v["fan_out_top"][0]["name"], "process",
        "quote, discount, Order: {v}"
    );

    // complexity: the heatmap's figures.
    let heat = ask(
        root,
        "health",
        json!({"action": "heatmap", "mode": "project"}),
    );
    assert_eq!(v["complexity"]["function_count"], heat["function_count"]);
    assert_eq!(v["complexity"]["band_counts"], heat["band_counts"]);
    let worst_file_max = heat["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["max_complexity"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(v["complexity"]["max_complexity"], worst_file_max);
    assert_eq!(
        v["complex_functions"][0]["complexity"],
        v["complexity"]["max_complexity"]
    );

    // routes and health: health routes' and health project's answers.
    assert_eq!(v["routes"]["route_count"], 0);
    let hp = ask(root, "health", json!({"action": "project"}));
    assert_eq!(v["health"]["grade_distribution"], hp["grade_distribution"]);
    assert_eq!(v["health"]["average_score"], hp["average_score"]);
    assert_eq!(v["worst_file_count"], hp["matching_file_count"]);

    // One section only; truncation keeps the four parts.
    let only = cli(
        root,
        json!({"action": "metrics", "sections": ["call_graph"], "limit": 1}),
    );
    assert!(
        only.get("cache").is_none() && only.get("health").is_none(),
        "{only}"
    );
    assert_eq!(only["fan_in_top_listed"], 1);
    assert_eq!(only["fan_in_top_cap"], 1);
    assert!(only["fan_in_node_count"].as_u64().unwrap() > 1);
    assert_eq!(only["truncated"], true);
    assert!(
        only["next_step"].as_str().unwrap().contains("showing 1 of"),
        "{only}"
    );
    assert_eq!(only["fan_in_top"][0]["name"], "check");

    // Unknown section: a validation error naming the allowed ones.
    let bad = cli(
        root,
        json!({"action": "metrics", "sections": ["cache", "graph"]}),
    );
    assert_eq!(bad["error_type"], "validation");
    let msg = bad["error"].as_str().unwrap();
    assert!(
        msg.contains("'graph'") && msg.contains("cache, call_graph, complexity, routes, health"),
        "{bad}"
    );
    let zero = cli(root, json!({"action": "metrics", "limit": 0}));
    assert_eq!(zero["error_type"], "validation");

    // A stale index is said so.
    std::fs::write(root.join("shop/extra.py"), "def extra():\n    return 1\n").unwrap();
    let stale = cli(root, json!({"action": "metrics", "sections": ["cache"]}));
    assert_eq!(stale["verdict"], "WARN", "{stale}");
    assert_eq!(stale["cache"]["pending_changes"]["new"], 1);
    std::fs::remove_file(root.join("shop/extra.py")).unwrap();

    // MCP gives the same answer.
    let again = cli(root, json!({"action": "metrics", "limit": 3}));
    let client = mcp((), root).await;
    let (err, m) = mcp_call(
        &client,
        "project",
        json!({"action": "metrics", "limit": 3, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(stable(m), stable(again), "CLI and MCP differ");
    let (err, e) = mcp_call(
        &client,
        "project",
        json!({"action": "metrics", "sections": ["nope"], "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(e["error_type"], "validation");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_counts_routes_per_framework_like_health_routes() {
    let p = project("routes");
    let v = cli(
        &p.root,
        json!({"action": "metrics", "sections": ["routes"]}),
    );
    let r = ask(&p.root, "health", json!({"action": "routes"}));
    assert!(v["routes"]["route_count"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["routes"]["route_count"], r["route_count"]);
    assert_eq!(v["routes"]["by_framework"], r["by_framework"]);
    assert_eq!(v["routes"]["files_with_routes"], r["files_with_routes"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workflow_fills_the_smart_steps_with_real_calls_that_run() {
    let p = project("navgraph");
    let root = &p.root;
    let v = cli(
        root,
        json!({"action": "workflow", "target_path": "shop/pricing.py"}),
    );
    assert_eq!(v["target_kind"], "file", "{v}");
    assert_eq!(v["workflow"], "SMART");
    let phases: Vec<&str> = v["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["set", "map", "analyze", "retrieve", "trace"]);
    // The file's risk and test command are edit safe's.
    let safe = ask(
        root,
        "edit",
        json!({"action": "safe", "file_path": "shop/pricing.py"}),
    );
    assert_eq!(v["verdict"], safe["verdict"]);
    assert_eq!(v["risk"]["downstream_count"], safe["downstream_count"]);
    assert_eq!(v["risk"]["health_grade"], safe["health_grade"]);
    assert_eq!(
        v["test_command"],
        safe["agent_summary"]["verification_command"]
    );
    assert!(!v["test_command"].as_str().unwrap().is_empty());
    // The most called function leads.
    assert_eq!(names(&v, "focus_functions")[0], "check", "{v}");
    assert_eq!(v["focus_functions"][0]["fan_in"], 7);
    let steps: Vec<&Value> = v["phases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["steps"].as_array().unwrap())
        .collect();
    assert_eq!(steps.len() as u64, v["step_count"].as_u64().unwrap());
    let numbers: Vec<u64> = steps.iter().map(|s| s["step"].as_u64().unwrap()).collect();
    assert_eq!(numbers, (1..=steps.len() as u64).collect::<Vec<_>>());
    let callers = steps
        .iter()
        .find(|s| s["tool"] == "nav" && s["arguments"]["action"] == "callers")
        .expect("a nav callers step");
    assert_eq!(callers["arguments"]["function_name"], "check");
    assert_eq!(callers["arguments"]["file_path"], "shop/pricing.py");
    assert_eq!(
        callers["cli"],
        "tsa nav callers --function-name check --file-path shop/pricing.py"
    );
    let shell = steps
        .iter()
        .find(|s| s["shell"].is_string())
        .expect("a test command step");
    assert_eq!(shell["shell"], v["test_command"]);

    // Every tool step runs as written over MCP and finds what it names.
    let client = mcp((), root).await;
    for s in steps.iter().filter(|s| s["tool"].is_string()) {
        let mut args = s["arguments"].clone();
        args["output_format"] = json!("json");
        let (err, r) = mcp_call(&client, s["tool"].as_str().unwrap(), args.clone()).await;
        assert!(!err, "step {args} failed: {r}");
        assert_ne!(r["verdict"], "NOT_FOUND", "step {args}: {r}");
    }

    // MCP answers the same pack.
    let (err, m) = mcp_call(
        &client,
        "project",
        json!({"action": "workflow", "target_path": "shop/pricing.py", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(stable(m), stable(v.clone()), "CLI and MCP differ");

    // A folder: grades of its files, the files outside that depend on it.
    let f = cli(
        root,
        json!({"action": "workflow", "target_path": "shop", "limit": 2}),
    );
    assert_eq!(f["target_kind"], "folder", "{f}");
    assert_eq!(f["file_count"], 4);
    let grades: u64 = f["risk"]["grade_distribution"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(grades, f["risk"]["files_scored"].as_u64().unwrap());
    assert_eq!(
        f["risk"]["external_dependents"],
        json!(["tests/test_pricing.py"]),
        "{f}"
    );
    assert_eq!(f["focus_functions_listed"], 2);
    assert_eq!(f["truncated"], true);
    assert!(f["focus_function_count"].as_u64().unwrap() > 2);
    assert_eq!(f["test_command"], "pytest -q");
    let sitemap = f["phases"][1]["steps"][0].clone();
    assert_eq!(sitemap["arguments"]["action"], "sitemap");
    assert_eq!(sitemap["arguments"]["directory"], "shop");

    // The whole project when no target is given.
    let all = cli(root, json!({"action": "workflow"}));
    assert_eq!(all["target_kind"], "project");
    assert_eq!(all["file_count"], 6);

    // Errors: outside the root, missing, and a folder with nothing indexed.
    let out = cli(
        root,
        json!({"action": "workflow", "target_path": "../x.py"}),
    );
    assert_eq!(out["error_type"], "security_violation", "{out}");
    let missing = cli(
        root,
        json!({"action": "workflow", "target_path": "shop/nope.py"}),
    );
    assert_eq!(missing["error_type"], "file_not_found");
    std::fs::create_dir_all(root.join("empty_dir")).unwrap();
    let none = cli(
        root,
        json!({"action": "workflow", "target_path": "empty_dir"}),
    );
    assert_eq!(none["verdict"], "NOT_FOUND", "{none}");
    let (err, o) = mcp_call(
        &client,
        "project",
        json!({"action": "workflow", "target_path": "/etc/passwd", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(o["error_type"], "security_violation");
    client.cancel().await.unwrap();
}
