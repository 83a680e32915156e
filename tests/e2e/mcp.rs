//! `tsa mcp` as a child process, driven by rmcp's client over stdio.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

use crate::support::{bin, project};

fn text(r: &CallToolResult) -> Value {
    let block = serde_json::to_value(&r.content[0]).unwrap();
    serde_json::from_str(block["text"].as_str().unwrap()).unwrap()
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_session_lists_nine_tools_and_answers_callers_in_every_format() {
    let p = project("python");
    let client = crate::support::mcp((), &p.root).await;

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "search",
            "nav",
            "structure",
            "health",
            "edit",
            "project",
            "index",
            "viz",
            "set_project_path"
        ]
    );
    let nav = tools.iter().find(|t| t.name == "nav").unwrap();
    let actions = &nav.input_schema["properties"]["action"]["enum"];
    // The 16 actions (14 of the 1.28 surface, pulse and pulse_batch of 3.0) and
    // `help`, which gives an action's full schema.
    assert_eq!(actions.as_array().unwrap().len(), 17);
    let (_, help) = crate::support::mcp_call(
        &client,
        "nav",
        json!({"action": "help", "target_action": "callers"}),
    )
    .await;
    assert_eq!(
        help["action_schema"]["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );

    let built = client
        .call_tool(
            CallToolRequestParams::new("index")
                .with_arguments(args(json!({"action": "full", "output_format": "json"}))),
        )
        .await
        .unwrap();
    assert_eq!(text(&built)["phases"]["files_indexed"], 8);

    let call = |extra: Value| {
        let mut a = args(
            json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 3}),
        );
        a.extend(args(extra));
        CallToolRequestParams::new("nav").with_arguments(a)
    };

    // TOON is the default.
    let r = client.call_tool(call(json!({}))).await.unwrap();
    assert_eq!(r.is_error, Some(false));
    let v = text(&r);
    assert_eq!(v["format"], "toon");
    assert_eq!(v["verdict"], "INFO");
    let payload = tsa_format::from_toon(v["toon_content"].as_str().unwrap()).unwrap();
    assert_eq!(payload["caller_count"], 8);
    assert_eq!(payload["callers_listed"], 3);
    assert_eq!(payload["listed_cap"], 3);
    assert_eq!(payload["truncated"], true);
    assert!(
        payload["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 3 of 8 callers")
    );
    // Scalars beside the blob, lists only inside it.
    assert_eq!(v["caller_count"], 8);
    assert!(v.get("callers").is_none());

    // JSON on request.
    let r = client
        .call_tool(call(json!({"output_format": "json"})))
        .await
        .unwrap();
    let j = text(&r);
    assert_eq!(j["caller_count"], 8);
    assert_eq!(j["callers"].as_array().unwrap().len(), 3);
    assert_eq!(
        j, payload,
        "the TOON blob decodes to exactly the JSON payload"
    );

    // compact_only: only control-surface keys.
    let r = client
        .call_tool(call(json!({"compact_only": true})))
        .await
        .unwrap();
    let c = text(&r);
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "format",
            "toon_content",
            "success",
            "verdict",
            "summary_line"
        ]
    );
    assert_eq!(
        tsa_format::from_toon(c["toon_content"].as_str().unwrap()).unwrap(),
        payload
    );

    // Failures set isError and keep the error envelope.
    let r = client
        .call_tool(
            CallToolRequestParams::new("nav")
                .with_arguments(args(json!({"action": "callers", "output_format": "json"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let e = text(&r);
    assert_eq!(e["error_type"], "validation");
    let r = client
        .call_tool(CallToolRequestParams::new("bogus"))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let r = client
        .call_tool(
            CallToolRequestParams::new("nav")
                .with_arguments(args(json!({"action": "callers", "function_name": "build", "compact_only": true, "file_path": "../x.py"}))),
        )
        .await
        .unwrap();
    let e = text(&r);
    assert_eq!(e["error_type"], "security_violation");
    assert!(e.get("hint").is_some());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_without_a_root_asks_for_set_project_path() {
    let p = project("rust");
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp").env_remove("TREE_SITTER_PROJECT_ROOT");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let q = || {
        CallToolRequestParams::new("nav").with_arguments(args(
            json!({"action": "callers", "function_name": "open", "output_format": "json"}),
        ))
    };
    let e = text(&client.call_tool(q()).await.unwrap());
    assert_eq!(e["error_type"], "project_not_set");
    let r = client
        .call_tool(
            CallToolRequestParams::new("set_project_path")
                .with_arguments(args(json!({"project_path": p.root}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    let v = text(&client.call_tool(q()).await.unwrap());
    assert_eq!(v["caller_count"], 5);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_build_sends_progress_notifications_for_a_progress_token() {
    use rmcp::model::{NumberOrString, ProgressToken, RequestParamsMeta};
    let p = project("python");
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(&p.root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let handler = crate::support::ProgressClient::default();
    let client = handler
        .clone()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let mut params = CallToolRequestParams::new("index").with_arguments(args(
        json!({"action": "full", "mode": "full", "output_format": "json"}),
    ));
    // (rmcp's client also attaches a token of its own to every request.)
    params.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    let r = client.call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(false));
    let total = text(&r)["phases"]["total_files"].as_f64().unwrap();
    // Notifications may trail the response by a moment.
    for _ in 0..50 {
        if handler
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.progress == total)
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let seen: Vec<(f64, Option<f64>)> = handler
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| (p.progress, p.total))
        .collect();
    assert!(!seen.is_empty(), "no progress notification");
    assert!(seen.iter().all(|(_, t)| *t == Some(total)));
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "progress never goes back: {seen:?}"
    );
    client.cancel().await.unwrap();
}
