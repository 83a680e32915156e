//! The `nav` graph actions end to end (CLI and MCP) on the `navgraph` fixture:
//! known trees, paths, risk and tests; honest truncation (listed < total, the four
//! keys, "showing X of Y") and NOT_FOUND with suggestions for every action.

use std::path::Path;

use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

use crate::support::{assert_envelope, json as cli_json, project};

/// `tsa nav <action> <flags...> --output-format json`, envelope checked.
fn nav(root: &Path, action: &str, flags: &[&str]) -> Value {
    let mut args = vec!["nav", action];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--output-format", "json"]);
    let (code, v) = cli_json(root, &args);
    assert_envelope(&v);
    assert_eq!(code, if v["success"] == true { 0 } else { 1 }, "{v}");
    v
}

/// The four truncation keys agree, fewer are listed than exist, and next_step says so.
fn assert_truncated(v: &Value, list: &str, total: &str, listed: &str, cap: &str, noun: &str) {
    let items = v[list]
        .as_array()
        .unwrap_or_else(|| panic!("{list} in {v}"));
    let t = v[total].as_u64().unwrap();
    let l = v[listed].as_u64().unwrap();
    assert_eq!(items.len() as u64, l, "{list} length");
    assert!(l < t, "{list}: listed {l} < total {t}");
    assert_eq!(v[cap].as_u64().unwrap(), l, "cap reached");
    assert_eq!(v["truncated"], true);
    let step = v["next_step"].as_str().unwrap();
    assert!(
        step.contains(&format!("showing {l} of {t} {noun}")),
        "next_step: {step}"
    );
    assert_eq!(v["agent_summary"]["next_step"], v["next_step"]);
}

fn names(v: &Value, key: &str) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|n| n[key].as_str().unwrap().to_owned())
        .collect()
}

fn assert_not_found(v: &Value) {
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
    assert!(!v["next_step"].as_str().unwrap().is_empty());
}

#[test]
fn callers_and_callees_scope_graph_walk_levels() {
    let p = project("navgraph");
    let v = nav(
        &p.root,
        "callees",
        &["--symbol", "handle", "--scope", "graph"],
    );
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["node_total"], 9);
    let got: Vec<(String, u64)> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["qualified_name"].as_str().unwrap().to_owned(),
                n["depth"].as_u64().unwrap(),
            )
        })
        .collect();
    for want in [
        ("dispatch", 1),
        ("route", 1),
        ("process", 2),
        ("quote", 3),
        ("compute", 4),
        ("check", 5),
    ] {
        assert!(
            got.contains(&(want.0.to_owned(), want.1)),
            "{want:?} in {got:?}"
        );
    }
    for e in v["edges"].as_array().unwrap() {
        assert!(e["resolution"].is_string() && e["confidence"].is_number());
    }
    // Depth bounds the walk.
    let v = nav(
        &p.root,
        "callees",
        &["--symbol", "handle", "--scope", "graph", "--depth", "2"],
    );
    assert_eq!(v["node_total"], 3);
    assert_eq!(v["max_depth_reached"], 2);
    // Truncation of both lists.
    let v = nav(
        &p.root,
        "callers",
        &[
            "--symbol", "check", "--scope", "graph", "--depth", "2", "--limit", "3",
        ],
    );
    assert_eq!(v["node_total"], 10);
    assert_truncated(
        &v,
        "nodes",
        "node_total",
        "nodes_listed",
        "listed_cap",
        "nodes",
    );
    assert_truncated(
        &v,
        "edges",
        "edge_total",
        "edges_listed",
        "edges_cap",
        "edges",
    );
    // depth belongs to scope=graph only.
    let v = nav(&p.root, "callers", &["--symbol", "check", "--depth", "2"]);
    assert_eq!(v["error_type"], "validation");
    // Unknown name.
    let v = nav(
        &p.root,
        "callees",
        &["--symbol", "chek", "--scope", "graph"],
    );
    assert_not_found(&v);
    assert!(
        v["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "check")
    );
}

#[test]
fn caller_and_callee_trees_mark_cycles_and_count_honestly() {
    let p = project("navgraph");
    let v = nav(
        &p.root,
        "caller_tree",
        &["--symbol", "check", "--max-depth", "2"],
    );
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["total_nodes"], 11);
    assert_eq!(v["node_count"], 11);
    assert_eq!(v["max_depth"], 2);
    let root = &v["root"];
    assert_eq!(root["name"], "check");
    assert_eq!(root["file"], "shop/pricing.py");
    let kids = names(&root["children"], "qualified_name");
    assert_eq!(kids.len(), 7);
    for k in [
        "quick",
        "slow",
        "validate",
        "Order.audit",
        "Invoice.total",
        "Invoice.audit",
        "make_value",
    ] {
        assert!(kids.contains(&k.to_owned()), "{k}");
    }
    for c in root["children"].as_array().unwrap() {
        assert!(c["resolution"].is_string() && c["confidence"].is_number());
    }
    // Invoice.total is reached again below Invoice.audit: a repeat leaf, not expanded.
    let repeat = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["repeat"] == true)
        .unwrap();
    assert_eq!(repeat["qualified_name"], "Invoice.total");
    // Recursion: compute calls itself -> a cycle leaf.
    let v = nav(&p.root, "caller_tree", &["--function-name", "compute"]);
    let me = v["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["qualified_name"] == "compute")
        .unwrap();
    assert_eq!(me["cycle"], true);
    assert!(me["children"].as_array().unwrap().is_empty());
    // ping <-> pong: the cycle closes at depth 2.
    let v = nav(&p.root, "callee_tree", &["--symbol", "ping"]);
    assert_eq!(v["total_nodes"], 2);
    assert_eq!(v["cycle_count"], 1);
    let pong = &v["root"]["children"][0];
    assert_eq!(pong["name"], "pong");
    assert_eq!(pong["children"][0]["name"], "ping");
    assert_eq!(pong["children"][0]["cycle"], true);
    // Cap: the exact count stays, the tree holds the listed prefix.
    let v = nav(
        &p.root,
        "caller_tree",
        &["--symbol", "check", "--max-depth", "2", "--max-nodes", "3"],
    );
    assert_truncated(
        &v,
        "nodes",
        "total_nodes",
        "node_count",
        "max_nodes",
        "nodes",
    );
    assert_eq!(v["total_nodes"], 11);
    assert_eq!(v["root"]["children"].as_array().unwrap().len(), 3);
    // max_depth over 10 is clamped with a warning; 0 is refused.
    let v = nav(
        &p.root,
        "callee_tree",
        &["--symbol", "handle", "--max-depth", "50"],
    );
    assert_eq!(v["max_depth"], 10);
    assert!(v["warnings"].to_string().contains("clamped"));
    let v = nav(
        &p.root,
        "callee_tree",
        &["--symbol", "handle", "--max-depth", "0"],
    );
    assert_eq!(v["error_type"], "validation");
    // Ambiguous: the candidates, not a guess.
    let v = nav(&p.root, "callee_tree", &["--symbol", "total"]);
    assert_eq!(v["verdict"], "CAUTION");
    assert_eq!(v["candidate_count"], 3);
    let v = nav(&p.root, "callee_tree", &["--symbol", "Order.total"]);
    assert_eq!(v["root"]["qualified_name"], "Order.total");
    // A top-level function beside a same-named method: the exact qualified name
    // picks the function, and a warning names the method.
    let v = nav(&p.root, "caller_tree", &["--symbol", "describe"]);
    assert_eq!(v["root"]["file"], "shop/api.py");
    assert!(v["warnings"].to_string().contains("Base.describe"));
    // Unknown.
    assert_not_found(&nav(&p.root, "caller_tree", &["--symbol", "nowhere"]));
    assert_not_found(&nav(&p.root, "callee_tree", &["--symbol", "nowhere"]));
}

#[test]
fn call_path_finds_every_shortest_path_and_inlines_bodies() {
    let p = project("navgraph");
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "handle",
            "--target-function",
            "compute",
        ],
    );
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["path_count"], 2);
    assert_eq!(v["shortest_length"]["forward"], 4);
    let paths: Vec<Vec<String>> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| names(&p["nodes"], "qualified_name"))
        .collect();
    assert!(
        paths.contains(
            &["handle", "dispatch", "process", "quote", "compute"]
                .map(String::from)
                .to_vec()
        )
    );
    assert!(
        paths.contains(
            &["handle", "route", "process", "quote", "compute"]
                .map(String::from)
                .to_vec()
        )
    );
    let first = &v["paths"][0];
    assert!(
        first["nodes"][0]["body"]["content"]
            .as_str()
            .unwrap()
            .contains("def handle")
    );
    for c in first["calls"].as_array().unwrap() {
        assert!(c["resolution"].is_string() && c["confidence"].is_number());
    }
    // Backward from compute reaches handle; the path still reads caller first.
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "compute",
            "--target-function",
            "handle",
            "--direction",
            "backward",
        ],
    );
    assert_eq!(v["path_count"], 2);
    assert_eq!(
        names(&v["paths"][0]["nodes"], "qualified_name")[0],
        "handle"
    );
    // Forward only: none.
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "compute",
            "--target-function",
            "handle",
            "--direction",
            "forward",
        ],
    );
    assert_not_found(&v);
    assert_eq!(v["path_found"], false);
    assert!(v["next_step"].as_str().unwrap().contains("No call path"));
    // Depth bound.
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "handle",
            "--target-function",
            "compute",
            "--max-depth",
            "3",
        ],
    );
    assert_eq!(v["path_count"], 0);
    // Cap keeps the exact count.
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "handle",
            "--target-function",
            "compute",
            "--max-paths",
            "1",
        ],
    );
    assert_truncated(
        &v,
        "paths",
        "path_count",
        "paths_listed",
        "max_paths",
        "shortest paths",
    );
    // Missing endpoints are NOT_FOUND with the endpoint named.
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "handel",
            "--target-function",
            "compute",
        ],
    );
    assert_not_found(&v);
    assert_eq!(v["endpoint"], "source");
    assert!(v["suggestions"].to_string().contains("handle"));
    let v = nav(
        &p.root,
        "call_path",
        &[
            "--source-function",
            "handle",
            "--target-function",
            "computer",
        ],
    );
    assert_eq!(v["endpoint"], "target");
    // Both required.
    let v = nav(&p.root, "call_path", &["--source-function", "handle"]);
    assert_eq!(v["error_type"], "validation");
}

#[test]
fn impact_scores_risk_from_production_edges_with_a_monotonic_verdict() {
    let p = project("navgraph");
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "risk_score", "--function-name", "check"],
    );
    // fan_in 6 (20) + 2 other caller files (15) + chain depth 5 (5) = 40 -> high.
    assert_eq!(v["score"], 40);
    assert_eq!(v["level"], "high");
    assert_eq!(v["factors"]["fan_in"], 6);
    assert_eq!(v["factors"]["cross_file_callers"], 2);
    assert_eq!(v["factors"]["max_chain_depth"], 5);
    assert_eq!(v["points"]["fan_in"], 20);
    assert_eq!(v["tests"]["test_callers_count"], 1);
    assert!(v["tests"].get("test_caller_files").is_none());
    assert_eq!(v["impact_level"], "high");
    assert_eq!(v["verdict"], "UNSAFE");
    assert!(
        v["verdict_basis"][0]
            .as_str()
            .unwrap()
            .contains("low->CAUTION"),
        "{v}"
    );
    let v = nav(
        &p.root,
        "impact",
        &[
            "--mode",
            "risk_score",
            "--function-name",
            "check",
            "--include-tests",
            "true",
        ],
    );
    assert_eq!(
        v["tests"]["test_caller_files"],
        json!(["tests/test_pricing.py"])
    );
    // Lower risk maps to a lower verdict.
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "risk_score", "--symbol", "quote"],
    );
    assert_eq!(v["level"], "low");
    assert_eq!(v["verdict"], "CAUTION");
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "risk_score", "--symbol", "Base.describe"],
    );
    assert_eq!(v["impact_level"], "none");
    assert_eq!(v["verdict"], "SAFE");
    // function_impact: risk plus capped callers.
    let v = nav(
        &p.root,
        "impact",
        &["--function-name", "check", "--limit", "2"],
    );
    assert_eq!(v["mode"], "function_impact");
    assert_eq!(v["risk"]["score"], 40);
    assert_eq!(v["caller_count"], 7);
    assert_truncated(
        &v,
        "callers",
        "caller_count",
        "callers_listed",
        "listed_cap",
        "callers",
    );
    // Ambiguous -> CAUTION with candidates; ClassName.method narrows.
    let v = nav(&p.root, "impact", &["--function-name", "audit"]);
    assert_eq!(v["verdict"], "CAUTION");
    assert_eq!(v["ambiguous"], true);
    assert_eq!(v["candidate_count"], 2);
    assert_eq!(v["level"], "unknown");
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("re-run with file_path")
    );
    let v = nav(&p.root, "impact", &["--function-name", "Invoice.audit"]);
    assert_eq!(v["function"], "Invoice.audit");
    let v = nav(&p.root, "impact", &["--function-name", "describe"]);
    assert_eq!(v["verdict"], "CAUTION");
    assert!(v["next_step"].as_str().unwrap().contains("file_path"));
    let v = nav(
        &p.root,
        "impact",
        &["--function-name", "describe", "--file-path", "shop/api.py"],
    );
    assert_eq!(v["function"], "describe");
    assert_eq!(v["file"], "shop/api.py");
    // file_path that does not define it -> NOT_FOUND with candidate files.
    let v = nav(
        &p.root,
        "impact",
        &["--function-name", "check", "--file-path", "shop/api.py"],
    );
    assert_not_found(&v);
    assert_eq!(v["file_path_mismatch"], true);
    assert_eq!(v["candidate_files"], json!(["shop/pricing.py"]));
    // Unknown -> NOT_FOUND, level unknown.
    let v = nav(&p.root, "impact", &["--function-name", "chek"]);
    assert_not_found(&v);
    assert_eq!(v["level"], "unknown");
}

#[test]
fn impact_blast_radius_walks_up_and_down_from_every_seed() {
    let p = project("navgraph");
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "blast_radius", "--function-names", "quote"],
    );
    assert_eq!(v["total_affected_functions"], 5);
    assert_eq!(v["upstream_functions"], 4);
    assert_eq!(v["downstream_functions"], 1);
    assert_eq!(v["total_files_at_risk"], 2);
    assert_eq!(v["verdict"], "CAUTION");
    let files = v["files_at_risk"].as_array().unwrap();
    assert_eq!(files[0]["file"], "shop/api.py");
    assert_eq!(files[0]["functions"], "dispatch handle process route");
    // Tests are outside the production radius unless asked for.
    let v = nav(
        &p.root,
        "impact",
        &[
            "--mode",
            "blast_radius",
            "--function-names",
            "quote",
            "--include-tests",
            "true",
        ],
    );
    assert_eq!(v["total_affected_functions"], 6);
    // Several seeds, singular alias, unknown seeds reported.
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "blast_radius", "--function-names", "ping,nope"],
    );
    assert_eq!(v["total_affected_functions"], 1);
    assert_eq!(v["unresolved_seeds"][0]["name"], "nope");
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "blast_radius", "--function-name", "ping"],
    );
    assert_eq!(v["total_affected_functions"], 1);
    // Chains cap with the exact total.
    let v = nav(
        &p.root,
        "impact",
        &[
            "--mode",
            "blast_radius",
            "--function-names",
            "quote",
            "--limit",
            "2",
        ],
    );
    assert_truncated(
        &v,
        "propagation_chains",
        "total_propagation_chains",
        "propagation_chains_listed",
        "propagation_chains_cap",
        "propagation chains",
    );
    assert_eq!(v["propagation_truncated"], true);
    let v = nav(
        &p.root,
        "impact",
        &["--mode", "blast_radius", "--function-names", "nope"],
    );
    assert_not_found(&v);
    let v = nav(&p.root, "impact", &["--mode", "blast_radius"]);
    assert_eq!(v["error_type"], "validation");
}

#[test]
fn test_map_walks_one_hop_above_helpers_and_names_the_run_command() {
    let p = project("navgraph");
    let v = nav(&p.root, "test_map", &["--symbol", "check"]);
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["test_files"], json!(["tests/test_pricing.py"]));
    assert_eq!(
        v["test_functions"],
        json!(["tests/test_pricing.py::test_check"])
    );
    assert_eq!(
        v["via_helpers"][0]["helper"],
        "tests/test_pricing.py::make_value"
    );
    assert_eq!(v["edge_count"], 1);
    assert_eq!(
        v["next_step"],
        "Run per-file tests: pytest tests/test_pricing.py"
    );
    let v = nav(&p.root, "test_map", &["--function-name", "compute"]);
    assert_eq!(
        v["test_functions"],
        json!(["tests/test_pricing.py::test_compute"])
    );
    // Unknown symbol: NOT_FOUND with suggestions, not success:false.
    let v = nav(&p.root, "test_map", &["--symbol", "chek"]);
    assert_not_found(&v);
    assert!(v["suggestions"].to_string().contains("check"));

    let r = project("rust");
    let v = nav(&r.root, "test_map", &["--symbol", "start"]);
    assert_eq!(v["test_functions"], json!(["src/lib.rs::tests::starts"]));
    assert_eq!(v["next_step"], "Run them: cargo test -- tests::starts");
    let g = project("go");
    let v = nav(&g.root, "test_map", &["--symbol", "Open", "--limit", "1"]);
    assert_eq!(v["unique_function_count"], 2);
    assert_truncated(
        &v,
        "test_functions",
        "unique_function_count",
        "test_functions_listed",
        "test_functions_cap",
        "test functions",
    );
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("go test -run '^(TestOpen)$' -bench '^(BenchmarkOpen)$' ./store/")
    );
}

#[test]
fn navigate_resolve_and_xref_answer_from_the_index() {
    let p = project("navgraph");
    let v = nav(&p.root, "navigate", &["--symbol", "Order.total"]);
    assert_eq!(v["mode"], "full");
    assert!(
        v["definitions"][0]["body"]["content"]
            .as_str()
            .unwrap()
            .contains("def total")
    );
    let h = &v["hierarchy"][0];
    assert_eq!(h["type"]["name"], "Order");
    assert_eq!(h["bases"][0]["name"], "Base");
    assert_eq!(h["overrides"][0]["qualified_name"], "Base.total");
    let v = nav(
        &p.root,
        "navigate",
        &["--symbol", "Base", "--mode", "hierarchy"],
    );
    assert_eq!(
        names(&v["hierarchy"][0]["subtypes"], "qualified_name"),
        ["Order", "Invoice"]
    );
    let v = nav(
        &p.root,
        "navigate",
        &["--symbol", "Base.total", "--mode", "hierarchy"],
    );
    assert_eq!(
        v["hierarchy"][0]["overridden_by"].as_array().unwrap().len(),
        2
    );
    let v = nav(
        &p.root,
        "navigate",
        &["--symbol", "check", "--mode", "references", "--limit", "2"],
    );
    // 7 bound calls + 3 imports (models, api, tests).
    assert_eq!(v["reference_count"], 10);
    assert_truncated(
        &v,
        "references",
        "reference_count",
        "references_listed",
        "listed_cap",
        "references",
    );
    assert_not_found(&nav(&p.root, "navigate", &["--symbol", "nowhere"]));

    let v = nav(&p.root, "resolve", &["--symbol", "audit"]);
    assert_eq!(v["definition_count"], 2);
    assert_eq!(v["ambiguous"], true);
    assert_eq!(
        names(&v["definitions"], "qualified_name"),
        ["Order.audit", "Invoice.audit"]
    );
    assert_eq!(v["definitions"][1]["call_sites"], 1);
    assert_eq!(v["definitions"][0]["signature"], "def audit(self)");
    let v = nav(
        &p.root,
        "resolve",
        &["--symbol", "check", "--mode", "references", "--limit", "3"],
    );
    assert_truncated(
        &v,
        "references",
        "reference_count",
        "references_listed",
        "listed_cap",
        "call sites",
    );
    assert_eq!(v["reference_count"], 7);
    assert!(v["references"][0]["resolution"].is_string());
    assert_not_found(&nav(&p.root, "resolve", &["--symbol", "nowhere"]));

    let v = nav(
        &p.root,
        "xref",
        &["--mode", "file", "--file-path", "shop/pricing.py"],
    );
    assert_eq!(v["importing_file_count"], 3);
    let from = names(&v["called_from_files"], "file");
    assert_eq!(from.len(), 3);
    let v = nav(
        &p.root,
        "xref",
        &["--mode", "file", "--file-path", "shop/api.py"],
    );
    let imports = v["imports"].as_array().unwrap();
    let quote = imports.iter().find(|i| i["name"] == "quote").unwrap();
    assert_eq!(quote["target_file"], "shop/pricing.py");
    assert_eq!(quote["resolution"], "project");
    assert_eq!(
        names(&v["calls_into_files"], "file"),
        ["shop/pricing.py", "shop/models.py"]
    );
    let v = nav(
        &p.root,
        "xref",
        &[
            "--mode",
            "file",
            "--file-path",
            "shop/pricing.py",
            "--limit",
            "2",
            "--include-callees",
            "false",
        ],
    );
    assert!(v.get("callees").is_none());
    assert_truncated(
        &v,
        "callers",
        "caller_count",
        "callers_listed",
        "callers_cap",
        "incoming calls",
    );
    let v = nav(&p.root, "xref", &["--symbol", "quote"]);
    assert_eq!(v["caller_count"], 1);
    assert_eq!(v["callee_count"], 1);
    assert_eq!(v["imported_by"][0]["file"], "shop/api.py");
    assert_not_found(&nav(&p.root, "xref", &["--symbol", "nowhere"]));
    let v = nav(&p.root, "xref", &["--mode", "file"]);
    assert_eq!(v["error_type"], "validation");
}

#[test]
fn context_composes_search_graph_and_code() {
    let p = project("navgraph");
    let v = nav(
        &p.root,
        "context",
        &[
            "--task",
            "compute the price quote",
            "--include-graph",
            "true",
        ],
    );
    assert_eq!(v["verdict"], "INFO");
    let matches = names(&v["matches"], "qualified_name");
    assert!(matches.contains(&"quote".to_owned()) && matches.contains(&"compute".to_owned()));
    let nodes = names(&v["nodes"], "qualified_name");
    assert!(
        nodes.contains(&"process".to_owned()),
        "caller of quote: {nodes:?}"
    );
    assert!(!v["code_blocks"].as_array().unwrap().is_empty());
    let edges = v["edges"].as_array().unwrap();
    assert!(
        edges
            .iter()
            .any(|e| e["caller"] == "quote" && e["callee"] == "compute")
    );
    let mut seen = std::collections::HashSet::new();
    assert!(
        edges
            .iter()
            .all(|e| seen.insert((e["caller"].to_string(), e["callee"].to_string())))
    );
    let v = nav(
        &p.root,
        "context",
        &[
            "--symbol",
            "check",
            "--max-nodes",
            "2",
            "--max-code-blocks",
            "1",
        ],
    );
    assert_eq!(v["matches"][0]["qualified_name"], "check");
    assert_truncated(
        &v,
        "nodes",
        "node_total",
        "nodes_listed",
        "max_nodes",
        "nodes",
    );
    assert_not_found(&nav(&p.root, "context", &["--query", "zzzqqq"]));
}

fn margs(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_answers_every_graph_action_with_truncation_and_not_found() {
    let p = project("navgraph");
    let client = crate::support::mcp((), &p.root).await;
    let call = |a: Value| {
        let mut m = margs(a);
        m.insert("output_format".into(), json!("json"));
        CallToolRequestParams::new("nav").with_arguments(m)
    };
    // (arguments, truncated list's keys) per action; each is also asked for a missing name.
    let cases: Vec<(Value, [&str; 4], Value)> = vec![
        (
            json!({"action": "callers", "function_name": "check", "scope": "graph", "limit": 2}),
            ["nodes", "node_total", "nodes_listed", "listed_cap"],
            json!({"action": "callers", "function_name": "chek", "scope": "graph"}),
        ),
        (
            json!({"action": "callees", "symbol": "handle", "scope": "graph", "limit": 2}),
            ["nodes", "node_total", "nodes_listed", "listed_cap"],
            json!({"action": "callees", "symbol": "hande", "scope": "graph"}),
        ),
        (
            json!({"action": "caller_tree", "symbol": "check", "max_nodes": 2}),
            ["nodes", "total_nodes", "node_count", "max_nodes"],
            json!({"action": "caller_tree", "symbol": "chek"}),
        ),
        (
            json!({"action": "callee_tree", "function_name": "handle", "max_nodes": 2}),
            ["nodes", "total_nodes", "node_count", "max_nodes"],
            json!({"action": "callee_tree", "symbol": "hande"}),
        ),
        (
            json!({"action": "call_path", "source_function": "handle", "target_function": "compute", "max_paths": 1}),
            ["paths", "path_count", "paths_listed", "max_paths"],
            json!({"action": "call_path", "source_function": "handle", "target_function": "nope"}),
        ),
        (
            json!({"action": "impact", "mode": "blast_radius", "function_names": ["quote"], "limit": 2}),
            [
                "propagation_chains",
                "total_propagation_chains",
                "propagation_chains_listed",
                "propagation_chains_cap",
            ],
            json!({"action": "impact", "symbol": "nope"}),
        ),
        (
            json!({"action": "impact", "symbol": "check", "limit": 1}),
            ["callers", "caller_count", "callers_listed", "listed_cap"],
            json!({"action": "impact", "mode": "risk_score", "function_name": "nope"}),
        ),
        (
            json!({"action": "test_map", "symbol": "handle", "limit": 1}),
            ["", "", "", ""],
            json!({"action": "test_map", "symbol": "nope"}),
        ),
        (
            json!({"action": "navigate", "symbol": "check", "limit": 1}),
            [
                "references",
                "reference_count",
                "references_listed",
                "listed_cap",
            ],
            json!({"action": "navigate", "symbol": "nope"}),
        ),
        (
            json!({"action": "resolve", "symbol": "check", "mode": "references", "limit": 1}),
            [
                "references",
                "reference_count",
                "references_listed",
                "listed_cap",
            ],
            json!({"action": "resolve", "symbol": "nope"}),
        ),
        (
            json!({"action": "xref", "symbol": "check", "limit": 1}),
            ["callers", "caller_count", "callers_listed", "callers_cap"],
            json!({"action": "xref", "symbol": "nope"}),
        ),
        (
            json!({"action": "context", "task": "check", "max_nodes": 1}),
            ["nodes", "node_total", "nodes_listed", "max_nodes"],
            json!({"action": "context", "query": "zzzqqq"}),
        ),
    ];
    for (ok, keys, missing) in cases {
        let r = client.call_tool(call(ok.clone())).await.unwrap();
        assert_eq!(r.is_error, Some(false), "{ok}");
        let v: Value = serde_json::from_str(
            serde_json::to_value(&r.content[0]).unwrap()["text"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_envelope(&v);
        if keys[0].is_empty() {
            assert_eq!(
                v["test_functions"],
                json!(["tests/test_pricing.py::test_handle"]),
                "{v}"
            );
            assert_eq!(v["truncated"], false);
        } else {
            assert_truncated(&v, keys[0], keys[1], keys[2], keys[3], "");
        }
        // The same action for a name that does not exist.
        let r = client.call_tool(call(missing.clone())).await.unwrap();
        assert_eq!(r.is_error, Some(false), "{missing}");
        let v: Value = serde_json::from_str(
            serde_json::to_value(&r.content[0]).unwrap()["text"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_envelope(&v);
        assert_eq!(v["verdict"], "NOT_FOUND", "{missing}: {v}");
    }
    // TOON (the default) decodes to the same payload as JSON.
    let mut a = margs(json!({"action": "caller_tree", "symbol": "check", "max_nodes": 2}));
    let r = client
        .call_tool(CallToolRequestParams::new("nav").with_arguments(a.clone()))
        .await
        .unwrap();
    let t: Value = serde_json::from_str(
        serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    a.insert("output_format".into(), json!("json"));
    let r = client
        .call_tool(CallToolRequestParams::new("nav").with_arguments(a))
        .await
        .unwrap();
    let j: Value = serde_json::from_str(
        serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        tsa_format::from_toon(t["toon_content"].as_str().unwrap()).unwrap(),
        j
    );
    client.cancel().await.unwrap();
}

/// Module-level code (run at import or load time) is a caller: `nav callers` lists
/// it as one `<module>` row per file with its call lines and the line itself, and
/// `nav impact` counts production files among the callers (a function called only
/// at import time is not SAFE to change).
#[test]
fn module_level_code_counts_as_a_caller() {
    let p = project("python");
    std::fs::write(p.root.join("app/boot.py"), "def warm():\n    return 1\n").unwrap();
    std::fs::write(
        p.root.join("app/startup.py"),
        "from app.boot import warm\n\nwarm()\nCACHE = warm()\n",
    )
    .unwrap();
    let v = nav(&p.root, "callers", &["--function-name", "warm"]);
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["caller_count"], 1);
    assert_eq!(v["unattributed_call_sites"], 2);
    assert_eq!(v["module_callers"], 1);
    let row = &v["callers"][0];
    assert_eq!(row["name"], "<module>");
    assert_eq!(row["qualified_name"], "app/startup.py:<module>");
    assert_eq!(row["call_lines"], "3 4");
    assert_eq!(row["call_text"], "warm()");
    assert_eq!(row["callee_resolved_file"], "app/boot.py");
    assert_eq!(row["body"], "warm()\n");

    let i = nav(
        &p.root,
        "impact",
        &["--function-name", "warm", "--mode", "function_impact"],
    );
    assert_eq!(i["risk"]["factors"]["fan_in"], 1, "{i}");
    assert_eq!(i["risk"]["factors"]["cross_file_callers"], 1);
    assert_ne!(i["verdict"], "SAFE", "{i}");
    assert_eq!(i["module_caller_count"], 1);
    assert_eq!(i["module_callers"][0]["file"], "app/startup.py");
    assert_eq!(i["module_callers"][0]["call_lines"], json!([3, 4]));

    // Production module code is listed before test code, like functions.
    let b = nav(
        &p.root,
        "callers",
        &["--function-name", "build", "--file-path", "app/core.py"],
    );
    let module = b["callers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "<module>")
        .expect("cli.py's module-level build() call");
    assert_eq!(module["file"], "app/cli.py");
    assert_eq!(module["line"], 21);
}
