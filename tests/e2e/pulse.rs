//! `nav pulse` and `nav pulse_batch` end to end, through the CLI and over MCP: the
//! card's facts against the fixture's `tsa:` truth, caps honoured exactly, the token
//! budget dropping whole fields in order, NOT_FOUND for an unknown name, an
//! ambiguous name refused with its candidates, a stale file re-indexed before the
//! answer, and a batch whose failed target is its own row.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{assert_envelope, mcp, mcp_call, project, tool_cli};

fn cli(root: &Path, args: &Value) -> Value {
    tool_cli(root, "nav", args)
}

/// The callers of `build` in the python fixture (its `tsa: call build` lines), as
/// (file, caller definition) pairs: one row per calling definition.
fn build_callers() -> usize {
    // app/cli.py: main, run, serve, <module>; app/jobs.py: weekly; app/core.py:
    // Engine.run; app/orphan.py: legacy; tests/test_core.py calls its own build.
    let v = cli(
        &project("python").root,
        &json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 100}),
    );
    v["callers"].as_array().unwrap().len()
}

#[test]
fn a_card_through_the_cli_tells_the_fixture_truth() {
    let p = project("python");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "TurboEngine.boost"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "INFO");
    let r = &v["result"];
    assert_eq!(r["sym"]["n"], "boost");
    assert_eq!(r["sym"]["k"], "method");
    assert_eq!(r["sym"]["cls"], "TurboEngine");
    assert_eq!(r["sym"]["l"], 28);
    let callees: Vec<(String, Value)> = r["ce"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["n"].as_str().unwrap().to_owned(), c["f"].clone()))
        .collect();
    assert!(
        callees.contains(&("Engine.step".into(), json!("app/core.py"))),
        "{callees:?}"
    );
    assert!(
        callees.contains(&("Engine.run".into(), json!("app/core.py"))),
        "{callees:?}"
    );
    assert_eq!(r["cr"], json!([]), "nothing calls boost");
    assert_eq!(v["callers_completeness"], "complete");
    assert_eq!(r["cg"], true);
    assert!(
        r["sib"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["n"] == "Engine.run")
    );
    assert!(
        r["cmt"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["l"].as_u64().unwrap() >= 28)
    );
    assert_eq!(v["source_evidence"]["freshness"], "fresh");
    assert_eq!(v["source_evidence"]["scope"], "answer_files");
    assert!(
        v["summary_line"]
            .as_str()
            .unwrap()
            .starts_with("pulse app/core.py:TurboEngine.boost callers=0 callees=")
    );
    // The docstring of a function is its first string.
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "build"}),
    );
    assert_eq!(v["result"]["sym"]["doc"], "Build a target.");
}

#[test]
fn caps_are_honoured_exactly_and_the_budget_drops_whole_fields_in_order() {
    let p = project("python");
    let all = build_callers();
    assert!(all >= 5, "{all}");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "build", "max_callers": 3, "token_budget": 5000}),
    );
    let r = &v["result"];
    assert_eq!(r["cr"].as_array().unwrap().len(), 3, "{r}");
    assert_eq!(r["ftr"]["callers"]["kept"], 3);
    assert_eq!(r["ftr"]["callers"]["total"].as_u64().unwrap() as usize, all);
    assert_eq!(r["trunc"], json!([]));
    // Callers are one row per calling definition, with their site counts.
    for c in r["cr"].as_array().unwrap() {
        assert!(c["sites"].as_u64().unwrap() >= 1, "{c}");
    }
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "build", "token_budget": 120}),
    );
    let r = &v["result"];
    let dropped: Vec<&str> = r["trunc"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    let order = [
        "comments",
        "siblings",
        "imported_by",
        "imports",
        "git_heat",
        "callees",
        "callers",
    ];
    assert!(!dropped.is_empty(), "{r}");
    assert_eq!(dropped, order[..dropped.len()].to_vec(), "drop order");
    assert!(r.get("cmt").is_none() && r.get("sym").is_some(), "{r}");
    let tok = r["tok"].as_u64().unwrap();
    let text_len = {
        let mut shown = r.clone();
        shown["tok"] = json!(tok);
        shown.to_string().chars().count() as u64
    };
    assert_eq!(
        tok,
        text_len.div_ceil(4),
        "tok is ceil(chars/4) of the card"
    );
}

#[test]
fn unknown_ambiguous_and_unindexed_targets() {
    let p = project("python");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "bild"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert_eq!(v["result"], Value::Null);
    assert!(
        v["candidates"]
            .as_array()
            .unwrap()
            .contains(&json!("build")),
        "{v}"
    );
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/none.py", "symbol": "x"}),
    );
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_type"], "file_not_found");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "../outside.py", "symbol": "x"}),
    );
    assert_eq!(v["error_type"], "security_violation", "{v}");
    // Two definitions of one name in one file.
    std::fs::write(
        p.root.join("app/twice.py"),
        "class A:\n    def go(self):\n        pass\n\nclass B:\n    def go(self):\n        pass\n",
    )
    .unwrap();
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/twice.py", "symbol": "go"}),
    );
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_code"], "AMBIGUOUS_SYMBOL");
    assert_eq!(v["candidates"].as_array().unwrap().len(), 2);
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/twice.py", "symbol": "B.go"}),
    );
    assert_eq!(v["result"]["sym"]["l"], 6, "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/twice.py", "symbol": "go", "line": 2}),
    );
    assert_eq!(v["result"]["sym"]["cls"], "A", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "build", "max_callers": 1001}),
    );
    assert_eq!(v["error_type"], "validation", "{v}");
}

#[test]
fn a_file_changed_since_the_index_is_re_indexed_before_the_card() {
    let p = project("python");
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "build"}),
    );
    assert_eq!(v["source_evidence"]["freshness"], "fresh");
    let before = v["result"]["ce"].as_array().unwrap().len();
    let core = p.root.join("app/core.py");
    let text = std::fs::read_to_string(&core).unwrap();
    let text = text.replace(
        "    return len(data)  # tsa: call len -> builtin",
        "    print(data)\n    return len(data)",
    );
    std::fs::write(&core, text).unwrap();
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "build"}),
    );
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(
        v["source_evidence"]["freshness"], "fresh",
        "re-indexed first: {v}"
    );
    let after = v["result"]["ce"].as_array().unwrap();
    assert_eq!(
        after.len(),
        before + 1,
        "the new call is in the card: {after:?}"
    );
    // A definition added since the index was built is found, not NOT_FOUND.
    let text = std::fs::read_to_string(&core).unwrap();
    std::fs::write(
        &core,
        format!("{text}\n\ndef fresh_one():\n    return build(1)\n"),
    )
    .unwrap();
    let v = cli(
        &p.root,
        &json!({"action": "pulse", "file": "app/core.py", "symbol": "fresh_one"}),
    );
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["result"]["sym"]["n"], "fresh_one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulse_and_pulse_batch_over_mcp() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "pulse", "file_path": "app/core.py", "function_name": "build",
               "format": "skeletal", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    let r = &v["result"];
    assert_eq!(r["n"], "build");
    assert_eq!(r["f"], "app/core.py:5");
    assert_eq!(
        r["callers"].as_u64().unwrap() as usize,
        build_callers(),
        "exact count: {r}"
    );
    let (_, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "pulse", "file": "app/core.py", "symbol": "build",
               "format": "verbose", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["result"]["symbol"]["name"], "build", "{v}");
    assert!(v["result"]["callers"].as_array().is_some());
    assert!(v["result"]["token_estimate"].as_u64().is_some());

    // A batch: results in input order, a failed target is its own row.
    let (is_error, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "pulse_batch", "output_format": "json", "targets": [
            {"file": "app/core.py", "symbol": "Engine.run"},
            {"file": "app/core.py", "symbol": "nope"},
            {"file": "app/cli.py", "symbol": "main"},
        ]}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    assert_eq!(v["verdict"], "WARN", "one target failed: {v}");
    let rows = v["results"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["sym"]["n"], "run");
    assert_eq!(rows[1]["error_code"], "SYMBOL_NOT_FOUND");
    assert_eq!(rows[2]["symbol"], "main");
    assert_eq!(
        (v["count"].as_u64(), v["error_count"].as_u64()),
        (Some(2), Some(1))
    );
    // Past max_symbols: counted and named, never inside results.
    let (_, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "pulse_batch", "output_format": "json", "max_symbols": 1, "targets": [
            {"file": "app/core.py", "symbol": "build"},
            {"file": "app/cli.py", "symbol": "main"},
        ]}),
    )
    .await;
    assert_eq!(v["results"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["truncated"], true);
    assert_eq!(v["truncated_count"], 1);
    assert_eq!(v["target_count"], 2);
    assert!(
        v["next_step"].as_str().unwrap().contains("remaining 1"),
        "{v}"
    );
    // None found: NOT_FOUND.
    let (_, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "pulse_batch", "output_format": "json",
               "targets": [{"file": "app/core.py", "symbol": "nope"}]}),
    )
    .await;
    assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
    client.cancel().await.unwrap();
}

#[test]
fn pulse_batch_through_the_cli() {
    let p = project("python");
    let v = cli(
        &p.root,
        &json!({"action": "pulse_batch", "targets": [{"file": "app/core.py", "symbol": "build"}]}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["results"][0]["sym"]["n"], "build");
}
