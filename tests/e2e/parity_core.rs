//! `nav callers`, `nav callees` and `search symbol` through one MCP session and the
//! CLI: the same truncation and NOT_FOUND answers on both transports.

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn core_actions_truncate_and_miss_alike_over_mcp_and_cli() {
    let p = project("python");
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(&p.root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let cases = [
        (
            "nav",
            json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 2}),
            "truncated",
        ),
        (
            "nav",
            json!({"action": "callees", "function_name": "main", "limit": 1}),
            "truncated",
        ),
        (
            "search",
            json!({"action": "symbol", "query": "engine", "limit": 1}),
            "truncated",
        ),
        (
            "nav",
            json!({"action": "callers", "function_name": "no_such_function_xyz"}),
            "NOT_FOUND",
        ),
        (
            "nav",
            json!({"action": "callees", "function_name": "Enginee.runn"}),
            "NOT_FOUND",
        ),
        (
            "search",
            json!({"action": "symbol", "query": "zzqqxx_absent"}),
            "NOT_FOUND",
        ),
    ];
    for (tool, args, expect) in cases {
        let mut with_format = args.as_object().unwrap().clone();
        with_format.insert("output_format".into(), json!("json"));
        let r = client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(with_format))
            .await
            .unwrap();
        let block = serde_json::to_value(&r.content[0]).unwrap();
        let mcp: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
        assert_envelope(&mcp);
        let words = cli_args(tool, &args);
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        let (_, cli) = cli_json(&p.root, &refs);
        assert_envelope(&cli);
        let strip = |mut v: Value| {
            // Timings and first-use build notes differ between the two runs.
            v.as_object_mut().unwrap().remove("warnings");
            v.as_object_mut().unwrap().remove("elapsed_ms");
            v
        };
        assert_eq!(
            strip(mcp.clone()),
            strip(cli),
            "{tool} {args}: CLI and MCP differ"
        );
        match expect {
            "truncated" => {
                assert_eq!(mcp["truncated"], true, "{args}: {mcp}");
                assert!(
                    mcp["next_step"].as_str().unwrap().starts_with("showing "),
                    "{}",
                    mcp["next_step"]
                );
            }
            _ => {
                assert_eq!(mcp["verdict"], "NOT_FOUND", "{args}: {mcp}");
                assert!(
                    mcp.get("suggestions").is_some() || tool == "search",
                    "{mcp}"
                );
            }
        }
    }
    client.cancel().await.unwrap();
}
