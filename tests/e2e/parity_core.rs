//! `nav callers`, `nav callees` and `search symbol` through one MCP session and the
//! CLI: the same truncation and NOT_FOUND answers on both transports.

use serde_json::{Value, json};

use crate::support::{assert_envelope, cli_words, json as cli_json, mcp, mcp_call, project};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn core_actions_truncate_and_miss_alike_over_mcp_and_cli() {
    let p = project("python");
    let client = mcp((), &p.root).await;
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
        let mut with_format = args.clone();
        with_format["output_format"] = json!("json");
        let (_, mcp) = mcp_call(&client, tool, with_format).await;
        assert_envelope(&mcp);
        let words = cli_words(tool, &args);
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
