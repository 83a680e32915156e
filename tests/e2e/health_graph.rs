//! `health dead|imports|deps|matrix|routes|overview|test_gap` end to end: known
//! answers on hand-written fixtures (deadcode, cycles, routes), and every action
//! through one MCP session and the CLI with the same truncation, NOT_FOUND and
//! error answers.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::support::{assert_envelope, bin, json as cli_json, project};

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

fn health(root: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["health"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--output-format", "json"]);
    let (_, v) = cli_json(root, &all);
    assert_envelope(&v);
    v
}

fn strs<'a>(v: &'a Value, key: &str, field: &str) -> Vec<&'a str> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("no list '{key}' in {v}"))
        .iter()
        .map(|r| r[field].as_str().unwrap())
        .collect()
}

#[test]
fn dead_code_known_answers() {
    let p = project("deadcode");
    let v = health(&p.root, &["dead"]);
    assert_eq!(v["verdict"], "CAUTION", "{v}");
    // The chain a -> b -> c is dead as a whole; the decorator-registered hook, the
    // re-exported function, the callback, the dunder, the trait impl method and
    // the library's pub fn are alive.
    assert_eq!(
        strs(&v, "dead_functions", "qualified_name"),
        vec![
            "chain_a",
            "chain_b",
            "chain_c",
            "Widget._unused_method",
            "private_dead"
        ]
    );
    let rows = v["dead_functions"].as_array().unwrap();
    assert_eq!(rows[0]["reason"], "no_callers_has_dead_callees");
    assert_eq!(rows[0]["dead_callees"], "chain_b");
    assert_eq!(rows[1]["reason"], "unreachable_from_entry");
    assert_eq!(rows[1]["dead_callers"], "chain_a");
    assert_eq!(rows[3]["reason"], "orphan_no_callers_no_callees");
    assert!(rows.iter().all(|r| !r["why"].as_str().unwrap().is_empty()));
    assert_eq!(v["stats"]["total_dead_functions_transitive"], 5);
    assert_eq!(v["stats"]["total_unused_imports"], 1);
    assert_eq!(v["stats"]["total_unreferenced_variables"], 1);
    assert_eq!(v["unused_imports"][0]["file"], "app/impl.py");
    assert_eq!(v["unused_imports"][0]["unused_names"], "json");
    assert_eq!(v["unused_imports"][0]["import_text"], "import json");
    assert_eq!(v["unreferenced_variables"][0]["name"], "UNUSED_CONSTANT");
    let alive = &v["stats"]["alive_by"];
    for rule in [
        "registered_by_decorator",
        "imported_by_other_file",
        "referenced_by_name",
        "dunder",
        "trait_impl_or_override",
        "exported_api",
        "entry_point_name",
    ] {
        assert!(alive[rule].as_u64().unwrap_or(0) >= 1, "{rule}: {alive}");
    }

    // path narrows what is reported, on whole segments; modes show their lists only.
    let v = health(
        &p.root,
        &["dead", "--path", "rustlib", "--mode", "dead_functions"],
    );
    assert_eq!(strs(&v, "dead_functions", "name"), vec!["private_dead"]);
    assert!(v.get("unused_imports").is_none());
    assert_eq!(v["stats"]["total_dead_functions_transitive"], 5);
    let v = health(&p.root, &["dead", "--mode", "unused_imports"]);
    assert!(v.get("dead_functions").is_none());
    assert_eq!(v["unused_imports"].as_array().unwrap().len(), 1);
    // Test helpers are analysed only on request.
    let v = health(
        &p.root,
        &[
            "dead",
            "--include-test-files",
            "true",
            "--mode",
            "dead_functions",
        ],
    );
    assert_eq!(
        v["stats"]["total_dead_functions_transitive"], 5,
        "test_* functions stay entry points"
    );
}

#[test]
fn import_cycles_and_blast_radius() {
    let p = project("cycles");
    let v = health(&p.root, &["imports", "--mode", "cycles"]);
    assert_eq!(v["verdict"], "REVIEW");
    assert_eq!(
        v["cycles"][0]["files"],
        json!(["pkg/a.py", "pkg/b.py", "pkg/c.py"])
    );
    assert_eq!(v["cycle_count"], 1);
    let v = health(
        &p.root,
        &["deps", "--mode", "blast_radius", "--file-path", "pkg/c.py"],
    );
    assert_eq!(
        strs(&v, "blast_radius", "file"),
        vec!["pkg/b.py", "pkg/a.py", "pkg/leaf.py", "tests_main.py"]
    );
    let v = health(
        &p.root,
        &[
            "deps",
            "--mode",
            "blast_radius",
            "--file-path",
            "pkg/c.py",
            "--max-depth",
            "1",
        ],
    );
    assert_eq!(strs(&v, "blast_radius", "file"), vec!["pkg/b.py"]);
    let v = health(
        &p.root,
        &["imports", "--mode", "dependents", "--file-path", "pkg/a.py"],
    );
    assert_eq!(
        strs(&v, "dependents", "file"),
        vec!["pkg/c.py", "pkg/leaf.py"]
    );
    let v = health(
        &p.root,
        &["imports", "--mode", "deps", "--file-path", "pkg/leaf.py"],
    );
    assert_eq!(
        strs(&v, "dependencies", "file"),
        vec!["pkg/a.py", "pkg/b.py"]
    );
    let v = health(
        &p.root,
        &["deps", "--mode", "file_deps", "--file-path", "pkg/leaf.py"],
    );
    assert_eq!(
        strs(&v, "call_dependencies", "file"),
        vec!["pkg/a.py", "pkg/b.py"]
    );
    let v = health(&p.root, &["deps"]);
    assert_eq!(v["summary"]["cycle_count"], 1);
    let v = health(&p.root, &["matrix", "--mode", "unstable"]);
    assert_eq!(v["unstable_modules"][0]["module"], ".");
    assert_eq!(v["unstable_modules"][0]["instability"], 1);
}

#[test]
fn routes_per_framework() {
    let p = project("routes");
    let v = health(&p.root, &["routes", "--mode", "all"]);
    let got: Vec<(String, String, String, String)> = v["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["framework"].as_str().unwrap().to_owned(),
                r["method"].as_str().unwrap().to_owned(),
                r["path"].as_str().unwrap().to_owned(),
                r["handler"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = [
        ("axum", "GET", "/items", "list_items"),
        ("axum", "POST", "/items", "create_item"),
        ("fastapi", "POST", "/orders", "create_order"),
        ("fastapi", "DELETE", "/orders/{order_id}", "delete_order"),
        ("flask", "GET", "/users", "users"),
        ("flask", "POST", "/users", "users"),
        ("flask", "GET", "/users/<int:user_id>", "get_user"),
        ("gin", "GET", "/ping", "ping"),
        ("spring", "GET", "/api/accounts/{id}", "getAccount"),
        ("spring", "POST", "/api/accounts", "createAccount"),
        ("express", "GET", "/health", "healthCheck"),
        ("express", "POST", "/login", "<anonymous>"),
    ];
    let want: Vec<(String, String, String, String)> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(got, want);
    let v = health(
        &p.root,
        &["routes", "--mode", "lookup", "--url-pattern", "/users/42"],
    );
    assert_eq!(strs(&v, "routes", "handler"), vec!["get_user"]);
    let v = health(
        &p.root,
        &["routes", "--mode", "prefix", "--url-pattern", "/api"],
    );
    assert_eq!(v["route_count"], 2);
    let v = health(&p.root, &["routes", "--framework", "gin"]);
    assert_eq!(v["route_count"], 1);
    let v = health(
        &p.root,
        &[
            "routes",
            "--mode",
            "file",
            "--file-path",
            "flask_app/app.py",
        ],
    );
    assert_eq!(v["route_count"], 3);
    // Route handlers are entry points for dead code.
    let v = health(&p.root, &["dead", "--mode", "dead_functions"]);
    assert_eq!(v["dead_functions_total"], 0, "{v}");
}

#[test]
fn test_gaps_and_overview() {
    let p = project("deadcode");
    let v = health(
        &p.root,
        &["test_gap", "--include-covered", "true", "--max-gaps", "100"],
    );
    let covered = strs(&v, "covered", "qualified_name");
    assert_eq!(covered, vec!["uses_callback"]);
    assert_eq!(v["covered"][0]["hops"], 1);
    assert_eq!(
        v["covered"][0]["covered_by"],
        "tests/test_impl.py::test_uses_callback"
    );
    let gaps = strs(&v, "gaps", "qualified_name");
    assert!(
        gaps.contains(&"callback_target") && gaps.contains(&"main"),
        "{gaps:?}"
    );
    assert!(
        !gaps.contains(&"Shape::area"),
        "a bodiless trait signature is no gap"
    );
    assert!(v["gaps"][0]["complexity"].as_u64().is_some());
    // A coverage report closes gaps it saw executed.
    std::fs::write(
        p.root.join("coverage.json"),
        r#"{"files": {"app/impl.py": {"executed_lines": [25]}}}"#,
    )
    .unwrap();
    let v = health(
        &p.root,
        &[
            "test_gap",
            "--coverage-json",
            "coverage.json",
            "--max-gaps",
            "100",
        ],
    );
    let gaps = strs(&v, "gaps", "qualified_name");
    assert!(!gaps.contains(&"callback_target"), "{gaps:?}");
    let v = health(&p.root, &["overview"]);
    assert_eq!(v["summary"]["dead_functions"], 5);
    let entries = strs(&v, "entry_points", "name");
    assert!(
        entries.contains(&"main") && entries.contains(&"plugin_hook"),
        "{entries:?}"
    );
    assert_eq!(v["hub_files"][0]["file"], "app/impl.py");
}

async fn parity(fixture: &str, cases: &[(Value, &str)]) {
    let p = project(fixture);
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(&p.root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    for (args, expect) in cases {
        let mut with_format = args.as_object().unwrap().clone();
        with_format.insert("output_format".into(), json!("json"));
        let r = client
            .call_tool(CallToolRequestParams::new("health").with_arguments(with_format))
            .await
            .unwrap();
        let block = serde_json::to_value(&r.content[0]).unwrap();
        let mcp: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
        let words = cli_args("health", args);
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let (code, cli) = cli_json(&p.root, &refs);
        let strip = |mut v: Value| {
            v.as_object_mut().unwrap().remove("warnings");
            v.as_object_mut().unwrap().remove("elapsed_ms");
            v
        };
        assert_eq!(strip(mcp.clone()), strip(cli), "{args}: CLI and MCP differ");
        match *expect {
            "truncated" => {
                assert_envelope(&mcp);
                assert_eq!(mcp["truncated"], true, "{args}: {mcp}");
                assert!(
                    mcp["next_step"].as_str().unwrap().starts_with("showing "),
                    "{}",
                    mcp["next_step"]
                );
            }
            "NOT_FOUND" => {
                assert_envelope(&mcp);
                assert_eq!(mcp["verdict"], "NOT_FOUND", "{args}: {mcp}");
                assert!(mcp.get("suggestions").is_some(), "{mcp}");
            }
            error_type => {
                assert_eq!(mcp["success"], false, "{args}: {mcp}");
                assert_eq!(mcp["error_type"], *error_type, "{args}: {mcp}");
                assert_eq!(r.is_error, Some(true));
                assert_eq!(code, 1);
            }
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_health_graph_action_answers_alike_over_mcp_and_cli() {
    let deadcode = [
        (json!({"action": "dead", "max_dead": 2}), "truncated"),
        (
            json!({"action": "dead", "mode": "everything"}),
            "validation",
        ),
        (
            json!({"action": "dead", "path": "no/such/dir"}),
            "file_not_found",
        ),
        (json!({"action": "dead", "max_dead": 0}), "validation"),
        (
            json!({"action": "imports", "mode": "coupling", "limit": 1}),
            "truncated",
        ),
        (
            json!({"action": "imports", "mode": "deps", "file_path": "app/imp.py"}),
            "NOT_FOUND",
        ),
        (
            json!({"action": "imports", "mode": "blast_radius"}),
            "validation",
        ),
        (
            json!({"action": "deps", "mode": "blast_radius", "file_path": "app/impl.py", "limit": 1}),
            "truncated",
        ),
        (
            json!({"action": "deps", "mode": "file_deps", "file_path": "app/nope.py"}),
            "NOT_FOUND",
        ),
        (json!({"action": "deps", "mode": "file_deps"}), "validation"),
        (
            json!({"action": "matrix", "mode": "hotspots", "top_k": 1}),
            "truncated",
        ),
        (
            json!({"action": "matrix", "mode": "file", "file_path": "app/mian.py"}),
            "NOT_FOUND",
        ),
        (json!({"action": "matrix", "threshold": 2.0}), "validation"),
        (json!({"action": "overview", "max_dead": 1}), "truncated"),
        (json!({"action": "overview", "max_hubs": 0}), "validation"),
        (json!({"action": "test_gap", "max_gaps": 1}), "truncated"),
        (json!({"action": "test_gap", "mode": "file"}), "validation"),
        (
            json!({"action": "test_gap", "mode": "file", "file_path": "app/nope.py"}),
            "file_not_found",
        ),
        (
            json!({"action": "test_gap", "language": "klingon"}),
            "validation",
        ),
    ];
    parity("deadcode", &deadcode).await;
    let routes = [
        (
            json!({"action": "routes", "mode": "all", "limit": 2}),
            "truncated",
        ),
        (
            json!({"action": "routes", "mode": "lookup", "url_pattern": "/nope/zz"}),
            "NOT_FOUND",
        ),
        (
            json!({"action": "routes", "framework": "rails"}),
            "validation",
        ),
        (json!({"action": "routes", "mode": "lookup"}), "validation"),
    ];
    parity("routes", &routes).await;
}
