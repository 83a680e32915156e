//! `max_chars`: every list-returning answer fits the budget by dropping whole rows,
//! over the CLI and MCP, keeping the four-part truncation shape.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::support::{assert_envelope, run};

/// A project where `hub` has 30 callers, each in its own file.
fn hub_project() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("hub");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(root.join("pkg/hub.py"), "def hub(x):\n    return x + 1\n").unwrap();
    for i in 0..30 {
        std::fs::write(
            root.join(format!("pkg/user_{i:02}.py")),
            format!("from pkg.hub import hub\n\n\ndef use_{i:02}(value):\n    # caller number {i}\n    return hub(value) * {i}\n"),
        )
        .unwrap();
    }
    (dir, root)
}

#[test]
fn cli_answer_fits_max_chars_and_keeps_exact_counts() {
    let (_d, root) = hub_project();
    let (code, full, _) = run(
        &root,
        &["nav", "callers", "--function-name", "hub", "--limit", "50"],
    );
    assert_eq!(code, 0);
    let full: Value = serde_json::from_str(&full).unwrap();
    assert_eq!(full["caller_count"], 30);
    assert_eq!(full["callers_listed"], 30);
    let full_len = serde_json::to_string_pretty(&full).unwrap().chars().count();

    for format in ["json", "toon"] {
        let budget = 4000usize;
        assert!(full_len > budget);
        let (code, out, err) = run(
            &root,
            &[
                "nav",
                "callers",
                "--function-name",
                "hub",
                "--limit",
                "50",
                "--max-chars",
                &budget.to_string(),
                "--output-format",
                format,
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            out.trim_end().chars().count() <= budget,
            "{format}: {} chars > {budget}",
            out.chars().count()
        );
        let v: Value = if format == "json" {
            serde_json::from_str(&out).unwrap()
        } else {
            tsa_format::from_toon(&out).unwrap()
        };
        assert_eq!(v["caller_count"], 30, "total stays exact");
        let listed = v["callers_listed"].as_u64().unwrap();
        assert!(listed > 0 && listed < 30, "{format}: listed {listed}");
        assert_eq!(v["callers"].as_array().unwrap().len() as u64, listed);
        assert_eq!(v["truncated"], true);
        assert!(
            v["next_step"]
                .as_str()
                .unwrap()
                .starts_with(&format!("showing {listed} of 30 callers")),
            "{}",
            v["next_step"]
        );
        assert!(v["warnings"].to_string().contains("max_chars=4000"));
    }

    // A budget no answer can meet still answers, with no rows and a warning.
    let (code, out, _) = run(
        &root,
        &[
            "nav",
            "callers",
            "--function-name",
            "hub",
            "--max-chars",
            "50",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_envelope(&v);
    assert_eq!(v["callers_listed"], 0);
    assert_eq!(v["caller_count"], 30);

    // Bad budgets are validation errors.
    for bad in ["0", "-3", "lots"] {
        let (code, out, _) = run(
            &root,
            &[
                "nav",
                "callers",
                "--function-name",
                "hub",
                "--limit",
                "50",
                "--max-chars",
                bad,
                "--output-format",
                "json",
            ],
        );
        assert_eq!(code, 1, "{bad}: {out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_envelope(&v);
        assert_eq!(v["error_type"], "validation");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_answer_fits_max_chars() {
    let (_d, root) = hub_project();
    let client = crate::support::mcp((), &root).await;
    for budget in [2500usize, 3500, 6000] {
        let args = json!({"action": "symbol", "query": "use", "limit": 40, "include_bodies": "all", "max_chars": budget});
        let r = client
            .call_tool(
                CallToolRequestParams::new("search")
                    .with_arguments(args.as_object().unwrap().clone()),
            )
            .await
            .unwrap();
        let block = serde_json::to_value(&r.content[0]).unwrap();
        let text = block["text"].as_str().unwrap();
        assert!(
            text.chars().count() <= budget,
            "{} > {budget}",
            text.chars().count()
        );
        let v: Value = serde_json::from_str(text).unwrap();
        let payload = tsa_format::from_toon(v["toon_content"].as_str().unwrap()).unwrap();
        assert_envelope(&payload);
        assert_eq!(payload["truncated"], true, "{budget}: {payload}");
    }
    client.cancel().await.unwrap();
}
