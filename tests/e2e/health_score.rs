//! `health file|project|heatmap` and `edit safe` through one MCP session and the CLI,
//! on `tests/fixtures/healthproj` (a module imported by 21 files, a file nobody
//! imports with a nearby test, a very complex function, long lines, a syntax error):
//! the same answers on both transports, truncation, errors and NOT_FOUND, the seed's
//! worked examples 2 and 3 in shape.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

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

fn strip(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("warnings");
    o.remove("elapsed_ms");
    o.remove("project_root");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_edit_safe_answer_alike_over_mcp_and_cli() {
    let p = project("healthproj");
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(&p.root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let call = |tool: &'static str, args: Map<String, Value>| {
        let client = &client;
        async move {
            let r = client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
                .await
                .unwrap();
            let block = serde_json::to_value(&r.content[0]).unwrap();
            serde_json::from_str::<Value>(block["text"].as_str().unwrap()).unwrap()
        }
    };
    let cases = [
        (
            "health",
            json!({"action": "file", "file_path": "complex.py", "limit": 1}),
            "truncated",
        ),
        (
            "health",
            json!({"action": "file", "file_path": "missing.py"}),
            "file_not_found",
        ),
        (
            "health",
            json!({"action": "file", "file_path": "core.py", "language": "cobol"}),
            "validation",
        ),
        (
            "health",
            json!({"action": "project", "min_grade": "A", "max_files": 1}),
            "truncated",
        ),
        (
            "health",
            json!({"action": "project", "min_grade": "Z"}),
            "validation",
        ),
        (
            "health",
            json!({"action": "heatmap", "mode": "file", "file_path": "core.py", "max_files": 1}),
            "truncated",
        ),
        (
            "health",
            json!({"action": "heatmap", "mode": "project", "max_files": 1}),
            "truncated",
        ),
        (
            "health",
            json!({"action": "heatmap", "mode": "function", "function_name": "no_such_fn_xyz"}),
            "NOT_FOUND",
        ),
        (
            "health",
            json!({"action": "heatmap", "mode": "file", "file_path": "nope.py"}),
            "file_not_found",
        ),
        (
            "edit",
            json!({"action": "safe", "file_path": "core.py"}),
            "truncated",
        ),
        (
            "edit",
            json!({"action": "safe", "file_path": "missing.py"}),
            "file_not_found",
        ),
        (
            "edit",
            json!({"action": "safe", "file_path": "core.py", "edit_type": "explode"}),
            "validation",
        ),
    ];
    for (tool, args, expect) in cases {
        let mut with_format = args.as_object().unwrap().clone();
        with_format.insert("output_format".into(), json!("json"));
        let mcp = call(tool, with_format).await;
        assert_envelope(&mcp);
        let words = cli_args(tool, &args);
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let (_, cli) = cli_json(&p.root, &refs);
        assert_envelope(&cli);
        assert_eq!(
            strip(mcp.clone()),
            strip(cli),
            "{tool} {args}: CLI and MCP differ"
        );
        match expect {
            "truncated" => {
                assert_eq!(mcp["success"], true, "{args}: {mcp}");
                assert_eq!(mcp["truncated"], true, "{args}: {mcp}");
                assert!(
                    mcp["next_step"].as_str().unwrap().starts_with("showing "),
                    "{mcp}"
                );
            }
            "NOT_FOUND" => {
                assert_eq!(mcp["verdict"], "NOT_FOUND", "{args}: {mcp}");
                assert!(mcp.get("suggestions").is_some(), "{mcp}");
            }
            kind => {
                assert_eq!(mcp["success"], false, "{args}: {mcp}");
                assert_eq!(mcp["error_type"], kind, "{args}: {mcp}");
            }
        }
    }

    // Seed example 3: TOON + compact_only keeps exactly the control surface.
    let args = json!({"action": "file", "file_path": "longline.py", "output_format": "toon", "compact_only": true});
    let compact = call("health", args.as_object().unwrap().clone()).await;
    let mut keys: Vec<&str> = compact
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "file_path",
            "format",
            "success",
            "summary_line",
            "toon_content",
            "verdict"
        ]
    );
    let line = compact["summary_line"].as_str().unwrap();
    let parts: Vec<&str> = line.split(' ').collect();
    assert_eq!(parts.len(), 5, "{line}");
    assert_eq!(parts[0], "longline.py");
    assert!(
        ["A", "B", "C", "D", "F"].contains(&parts[1].strip_prefix("grade=").unwrap()),
        "{line}"
    );
    assert!(
        parts[2]
            .strip_prefix("score=")
            .unwrap()
            .parse::<f64>()
            .is_ok(),
        "{line}"
    );
    assert!(
        parts[3]
            .strip_prefix("smells=")
            .unwrap()
            .parse::<u32>()
            .is_ok(),
        "{line}"
    );
    assert!(
        parts[4]
            .strip_prefix("weakest=")
            .unwrap()
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_'),
        "{line}"
    );
    let decoded = tsa_format::from_toon(compact["toon_content"].as_str().unwrap()).unwrap();
    let full = call(
        "health",
        json!({"action": "file", "file_path": "longline.py", "output_format": "json"})
            .as_object()
            .unwrap()
            .clone(),
    )
    .await;
    assert_eq!(strip(decoded), strip(full.clone()));
    // Two critical long lines: 2 x (3 + 5) points.
    assert_eq!(full["smell_penalty"], 16);
    assert!(
        full["code_smells"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["line"].is_u64() && s["fix"].is_string())
    );

    // Seed example 2: a file nobody imports, with a nearby test, is SAFE.
    let safe = call(
        "edit",
        json!({"action": "safe", "file_path": "lonely.py", "output_format": "json"})
            .as_object()
            .unwrap()
            .clone(),
    )
    .await;
    assert_eq!(safe["verdict"], "SAFE", "{safe}");
    assert_eq!(safe["risk_level"], "safe");
    assert_eq!(safe["downstream_count"], 0);
    assert_eq!(safe["health_grade"], "A");
    assert_eq!(
        safe["recommendation"],
        "SAFE to edit (health A, 0 downstream). Standard test pass after the edit is sufficient."
    );
    let a = &safe["agent_summary"];
    assert_eq!(
        a["summary_line"],
        "lonely.py risk=safe verdict=SAFE health=A tests=yes"
    );
    assert_eq!(a["risk"], "safe");
    assert_eq!(a["edit_strategy"], "direct_focused_edit");
    assert_eq!(a["verification_command"], "pytest tests/test_lonely.py -q");
    assert_eq!(
        a["next_step"],
        "Run pre-edit verification first: pytest tests/test_lonely.py -q"
    );
    assert!(a["guardrails"].is_array() && a["stop_condition"].is_string());
    assert_eq!(safe["test_files_nearby"], json!(["tests/test_lonely.py"]));
    for (i, item) in safe["pre_edit_checklist"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert!(
            item.as_str().unwrap().starts_with(&format!("{}. ", i + 1)),
            "{item}"
        );
    }
    assert!(safe["agent_workflow"]["before_edit_commands"].is_array());

    // A module imported by 21 files: high downstream, no tests, refactor -> dangerous.
    let risky = call(
        "edit",
        json!({"action": "safe", "file_path": "core.py", "output_format": "json"})
            .as_object()
            .unwrap()
            .clone(),
    )
    .await;
    assert_eq!(risky["downstream_count"], 21, "{risky}");
    assert_eq!(risky["downstream_files"].as_array().unwrap().len(), 20);
    assert_eq!(risky["risk_level"], "dangerous");
    assert_eq!(risky["verdict"], "UNSAFE");
    let factors: Vec<&str> = risky["risk_factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["factor"].as_str().unwrap())
        .collect();
    assert_eq!(factors, ["high_downstream", "no_tests", "refactor_risk"]);
    assert!(
        risky["recommendation"]
            .as_str()
            .unwrap()
            .starts_with("UNSAFE to edit: ")
    );

    // Syntax error: a success envelope, never verdict ERROR.
    let broken = call(
        "edit",
        json!({"action": "safe", "file_path": "broken.py", "output_format": "json"})
            .as_object()
            .unwrap()
            .clone(),
    )
    .await;
    assert_eq!(broken["success"], true);
    assert_eq!(broken["verdict"], "UNSAFE");
    assert_eq!(broken["signal"], "syntax_error");
    assert_eq!(broken["risk_level"], "dangerous");

    // The very complex function is found by the heatmap in the critical band.
    let hm = call(
        "health",
        json!({"action": "heatmap", "mode": "function", "function_name": "tangled", "output_format": "json"})
            .as_object()
            .unwrap()
            .clone(),
    )
    .await;
    assert_eq!(hm["functions"][0]["complexity"], 51, "{hm}");
    assert_eq!(hm["functions"][0]["band"], "critical");
    assert_eq!(hm["verdict"], "REVIEW");

    let get = |tool: &'static str, args: Value| {
        let mut m = args.as_object().unwrap().clone();
        m.insert("output_format".into(), json!("json"));
        call(tool, m)
    };
    // Patterns: each finding with its line and fix; threshold and category filter.
    let pat = get(
        "health",
        json!({"action": "patterns", "file_path": "risky.py"}),
    )
    .await;
    let found: Vec<(String, u64)> = pat["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["category"] != "smells")
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    for expected in [
        ("shell_true", 8),
        ("eval_exec", 12),
        ("bare_except", 9),
        ("mutable_default", 6),
        ("os_system", 13),
        ("none_comparison", 11),
    ] {
        assert!(
            found.contains(&(expected.0.to_owned(), expected.1)),
            "{expected:?} in {found:?}"
        );
    }
    assert!(
        pat["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["fix"].is_string())
    );
    assert_eq!(pat["verdict"], "REVIEW");
    let crit = get("health", json!({"action": "patterns", "file_path": "risky.py", "categories": ["security"], "severity_threshold": "critical"})).await;
    assert_eq!(crit["finding_count"], 2, "{crit}");

    // Scale: a batch of two files.
    let sc = get("health", json!({"action": "scale", "file_paths": ["complex.py", "lonely.py"], "include_details": true})).await;
    assert_eq!(sc["file_count"], 2);
    assert_eq!(sc["files"][0]["complexity"]["max"], 51);
    assert_eq!(sc["files"][0]["functions"][1]["name"], "branchy");
    let one = get(
        "health",
        json!({"action": "scale", "file_paths": ["complex.py", "lonely.py"], "limit": 1}),
    )
    .await;
    assert_eq!(one["file_count"], 2);
    assert_eq!(one["files_listed"], 1);
    assert_eq!(one["truncated"], true);
    assert!(
        one["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 1 of 2 files"),
        "{one}"
    );

    // Refactor: the dispatch chain inside `tangled` is one extraction with its range.
    let rf = get(
        "edit",
        json!({"action": "refactor", "file_path": "complex.py"}),
    )
    .await;
    assert_eq!(rf["candidate_count"], 2, "{rf}");
    let first = &rf["extraction_candidates"][0];
    assert_eq!(first["name"], "tangled");
    assert_eq!(first["extractions"][0]["start_line"], 6);
    assert_eq!(first["extractions"][0]["end_line"], 55);
    assert_eq!(rf["hotspots"][0]["complexity"], 51);
    assert_eq!(rf["skeleton"].as_array().unwrap().len(), 2);
    client.cancel().await.unwrap();
}

#[test]
fn override_file_changes_thresholds_and_bad_override_is_a_validation_error() {
    let p = project("healthproj");
    let (_, before) = cli_json(
        &p.root,
        &[
            "health",
            "file",
            "--file-path",
            "longline.py",
            "--output-format",
            "json",
        ],
    );
    std::fs::write(
        p.root.join("tsa-health.yml"),
        "smells:\n  long_line: {warning: 1000, critical: 2000}\n",
    )
    .unwrap();
    let (_, after) = cli_json(
        &p.root,
        &[
            "health",
            "file",
            "--file-path",
            "longline.py",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(before["smell_count"], 2);
    assert_eq!(after["smell_count"], 0, "{after}");
    assert!(after["warnings"].to_string().contains("tsa-health.yml"));
    std::fs::write(p.root.join("tsa-health.yml"), "size: {good: lots}\n").unwrap();
    let (code, bad) = cli_json(
        &p.root,
        &[
            "health",
            "file",
            "--file-path",
            "longline.py",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(bad["error_type"], "validation");
    assert!(
        bad["error"].as_str().unwrap().contains("size.good"),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_safe_escalates_on_constraint_violations() {
    let p = crate::support::project("constraints");
    let words = [
        "edit",
        "safe",
        "--file-path",
        "app/api/routes.py",
        "--output-format",
        "json",
    ];
    let (code, v) = crate::support::json(&p.root, &words);
    assert_eq!(code, 0);
    crate::support::assert_envelope(&v);
    assert_eq!(v["verdict"], "UNSAFE", "an error-severity rule: {v}");
    assert_eq!(v["constraints_checked"], true);
    assert!(
        v["constraint_violations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["rule_id"] == "api-not-db")
    );
    assert!(
        v["risk_factors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["factor"] == "constraint_violation")
    );
    let client = crate::support::mcp((), &p.root).await;
    let (_, m) = crate::support::mcp_call(
        &client,
        "edit",
        serde_json::json!({"action": "safe", "file_path": "app/db/audit.py", "output_format": "json"}),
    )
    .await;
    assert_eq!(m["verdict"], "CAUTION", "a warn-severity rule: {m}");
    client.cancel().await.unwrap();
}

/// Scores from the measurements the index build stored (one parse) equal scores from
/// parsing each file again.
#[test]
fn stored_tree_facts_score_like_a_fresh_parse() {
    let p = crate::support::project("healthproj");
    let args = [
        "health",
        "project",
        "--min-grade",
        "A",
        "--max-files",
        "100",
        "--output-format",
        "json",
    ];
    // An index built without the facts hook: health parses every file itself.
    tsa_index::build(&p.root, &tsa_index::BuildOptions::default()).unwrap();
    let (_, parsed) = crate::support::json(&p.root, &args);
    // Rebuilt through the CLI (the hook stores tree facts); no cache to fall back on.
    std::fs::remove_file(p.root.join(".tsa/health-cache.json")).unwrap();
    let (code, _) = crate::support::json(
        &p.root,
        &["index", "full", "--mode", "full", "--output-format", "json"],
    );
    assert_eq!(code, 0);
    std::fs::remove_file(p.root.join(".tsa/health-cache.json")).ok();
    let (_, stored) = crate::support::json(&p.root, &args);
    assert_eq!(parsed["files"], stored["files"]);
    assert_eq!(parsed["grade_distribution"], stored["grade_distribution"]);
    assert!(parsed["files"].as_array().unwrap().len() > 3);
}
