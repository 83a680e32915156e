//! `search select`, `search chain`, `search subscribe`, `search unsubscribe`: the CLI
//! and the MCP server, with truncation, error and NOT_FOUND paths, and resource
//! update notifications after an index sync.

use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ReadResourceRequestParams, SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::RunningService;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{Updates, assert_envelope, drain, json, project};

fn select(root: &std::path::Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["search", "select"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--output-format", "json"]);
    json(root, &args)
}

fn chain(root: &std::path::Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["search", "chain"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--output-format", "json"]);
    json(root, &args)
}

fn names(v: &Value) -> Vec<String> {
    v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn cli_select_answers_truncates_and_reports_errors() {
    let p = project("hyphae");
    let (code, v) = select(&p.root, &["--selector", ".class:extends(#Model)"]);
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(names(&v), ["Product", "Order"]);
    assert_eq!(v["total_matches"], 2);
    assert_eq!(v["count"], 2);
    assert_eq!(v["truncated"], false);
    assert_eq!(v["index_state"], "ready");
    assert_eq!(v["indexed_files"], 7);
    let first = &v["symbols"][0];
    for key in ["name", "file", "line", "language", "class", "kind"] {
        assert!(first.get(key).is_some(), "symbol row has {key}");
    }
    assert_eq!(first["file"], "shop/models.py");
    assert_eq!(first["language"], "python");

    // Resolved call edges across files, with a combinator.
    let (_, v) = select(
        &p.root,
        &["--selector", "#MemoryRepository > .method:calls(#log)"],
    );
    assert_eq!(names(&v), ["get"]);
    assert_eq!(v["symbols"][0]["class"], "MemoryRepository");

    // Truncation: the four parts and the "showing X of Y" next step.
    let (_, v) = select(&p.root, &["--selector", "*", "--max-results", "2"]);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["count"], 2);
    assert_eq!(v["total_matches"], 27);
    assert_eq!(v["listed_cap"], 2);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["symbols"].as_array().unwrap().len(), 2);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 2 of 27 symbols"),
        "{}",
        v["next_step"]
    );
    // max_results is clamped, not refused.
    let (_, v) = select(&p.root, &["--selector", "*", "--max-results", "0"]);
    assert_eq!(v["listed_cap"], 1);
    let (_, v) = select(&p.root, &["--selector", "*", "--max-results", "5000"]);
    assert_eq!(v["listed_cap"], 1000);

    // NOT_FOUND names the indexed-file count.
    let (code, v) = select(&p.root, &["--selector", "#nope"]);
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert_eq!(v["total_matches"], 0);
    assert!(v["next_step"].as_str().unwrap().contains("7 indexed files"));

    // Syntax errors: validation envelopes with the spec's message and a column.
    let (code, v) = select(&p.root, &["--selector", ".function:bogus(#x)"]);
    assert_eq!(code, 1);
    assert_envelope(&v);
    assert_eq!(v["error_type"], "validation");
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.starts_with("Hyphae syntax error: unknown pseudo-class ':bogus'"),
        "{msg}"
    );
    assert!(msg.ends_with("at column 11"), "{msg}");
    let (code, v) = select(&p.root, &["--selector", "#a >"]);
    assert_eq!(code, 1);
    assert!(v["error"].as_str().unwrap().ends_with("at column 5"));
    let (code, v) = select(&p.root, &["--selector", "  "]);
    assert_eq!(code, 1);
    assert_eq!(v["error_type"], "validation");
}

#[test]
fn cli_chain_answers_truncates_and_reports_errors() {
    let p = project("hyphae");
    let (code, v) = chain(
        &p.root,
        &[
            "--query",
            r#"search("checkout").filter(test=false).callers().include("callers", "complexity", "risk").uml(max_edges=5)"#,
        ],
    );
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(names(&v), ["checkout", "seed", "test_checkout"]);
    let checkout = &v["symbols"][0];
    assert_eq!(checkout["caller_count"], 2);
    assert_eq!(checkout["complexity"], 3, "if + list comprehension");
    assert_eq!(checkout["risk"]["level"], "low");
    assert!(
        checkout["body"]["content"]
            .as_str()
            .unwrap()
            .contains("def checkout")
    );
    let mermaid = v["mermaid"].as_str().unwrap();
    assert!(mermaid.starts_with("flowchart TD\n"), "{mermaid}");
    assert!(
        mermaid.contains("shop_store_py_seed --> shop_store_py_checkout"),
        "{mermaid}"
    );
    assert_eq!(v["uml_truncated"], false);

    // A plain string is explore(...).related().
    let (_, v) = chain(&p.root, &["--query", "checkout", "--compact", "true"]);
    assert_eq!(v["pipeline"], r#"explore("checkout").related()"#);
    assert!(
        v["symbols"][0].get("body").is_none(),
        "compact rows carry no body"
    );

    // Truncation of both lists.
    let (_, v) = chain(
        &p.root,
        &[
            "--query",
            r#"search("price product order model repository")"#,
            "--max-symbols",
            "2",
            "--max-files",
            "1",
            "--include-code",
            "false",
        ],
    );
    assert_envelope(&v);
    assert_eq!(v["symbols_listed"], 2);
    assert_eq!(v["max_symbols"], 2);
    let total = v["total_symbols"].as_u64().unwrap();
    assert!(total > 2, "{v}");
    assert_eq!(v["files_listed"], 1);
    let total_files = v["total_files"].as_u64().unwrap();
    assert!(total_files > 1);
    assert_eq!(v["truncated"], true);
    let step = v["next_step"].as_str().unwrap();
    assert!(
        step.starts_with(&format!("showing 2 of {total} symbols")),
        "{step}"
    );
    assert!(
        step.contains(&format!("showing 1 of {total_files} files")),
        "{step}"
    );

    // NOT_FOUND when the chain ends empty.
    let (code, v) = chain(&p.root, &["--query", r#"search("zzqqxx")"#]);
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert_eq!(v["total_symbols"], 0);

    // Syntax and limit errors carry columns.
    let (code, v) = chain(&p.root, &["--query", r#"search("x").bogus()"#]);
    assert_eq!(code, 1);
    assert_envelope(&v);
    assert_eq!(v["error_type"], "validation");
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.contains("unknown step 'bogus'") && msg.ends_with("at column 13"),
        "{msg}"
    );
    let many = vec!["take(1)"; 21].join(".");
    let (code, v) = chain(&p.root, &["--query", &many]);
    assert_eq!(code, 1);
    assert!(v["error"].as_str().unwrap().contains("more than 20 steps"));
    let (code, v) = chain(&p.root, &["--query", r#"search("x").take(n="many")"#]);
    assert_eq!(code, 1);
    assert!(
        v["error"].as_str().unwrap().contains("at column 18"),
        "{}",
        v["error"]
    );
}

#[test]
fn cli_subscribe_and_unsubscribe() {
    let p = project("hyphae");
    let (code, v) = json(
        &p.root,
        &[
            "search",
            "subscribe",
            "--selector",
            ".class:extends(#Model)",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["sub_id"], "sub-1");
    assert_eq!(
        v["resource_uri"],
        "tsa://hyphae/.class%3Aextends%28%23Model%29"
    );
    assert_eq!(v["current_matches"], 2);
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("no_push_channel")),
        "the CLI says no notification can follow"
    );
    // TOON is the default format (the reference's json default is a weakness).
    let (_, out, _) = crate::support::run(&p.root, &["search", "subscribe", "--selector", "#log"]);
    assert!(out.contains("tsa://hyphae/%23log"), "{out}");
    let (code, v) = json(
        &p.root,
        &[
            "search",
            "subscribe",
            "--selector",
            "#log:zz",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("Hyphae syntax error")
    );
    let (code, v) = json(
        &p.root,
        &[
            "search",
            "subscribe",
            "--selector",
            "#log",
            "--min-interval",
            "-1",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(v["error_type"], "validation");

    // Each CLI run is its own session: nothing to cancel.
    let (code, v) = json(
        &p.root,
        &[
            "search",
            "unsubscribe",
            "--sub-id",
            "sub-1",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "NOT_FOUND");
    let (code, v) = json(
        &p.root,
        &["search", "unsubscribe", "--output-format", "json"],
    );
    assert_eq!(code, 1);
    assert_eq!(v["error_type"], "validation");
}

// ---------------------------------------------------------------- MCP

type Client = RunningService<RoleClient, Updates>;

async fn connect(root: &std::path::Path) -> (Client, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (crate::support::mcp(Updates(tx), root).await, rx)
}

async fn tool(client: &Client, name: &str, a: Value) -> (bool, Value) {
    crate::support::mcp_call(client, name, a).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_select_and_chain_in_toon_and_json_with_truncation_and_errors() {
    let p = project("hyphae");
    let (client, _rx) = connect(&p.root).await;
    tool(&client, "index", json!({"action": "full"})).await;

    // select, TOON by default: scalars beside the blob, the list inside it.
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "select", "selector": "*", "max_results": 3}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["format"], "toon");
    let payload = tsa_format::from_toon(v["toon_content"].as_str().unwrap()).unwrap();
    assert_eq!(payload["count"], 3);
    assert_eq!(payload["total_matches"], 27);
    assert_eq!(payload["listed_cap"], 3);
    assert_eq!(payload["truncated"], true);
    assert!(
        payload["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 3 of 27 symbols")
    );
    let (_, j) = tool(
        &client,
        "search",
        json!({"action": "select", "selector": "*", "max_results": 3, "output_format": "json"}),
    )
    .await;
    assert_eq!(j, payload, "the TOON blob decodes to the JSON payload");
    let (_, v) = tool(
        &client,
        "search",
        json!({"action": "select", "selector": "#nope", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "NOT_FOUND");
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "select", "selector": ":nth-child(0)", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(v["error_type"], "validation");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("Hyphae syntax error")
    );

    // chain through MCP.
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "chain", "query": "search(\"price product order\")", "max_symbols": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["symbols_listed"], 1);
    assert_eq!(v["truncated"], true);
    let total = v["total_symbols"].as_u64().unwrap();
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("showing 1 of {total} symbols"))
    );
    let (_, v) = tool(
        &client,
        "search",
        json!({"action": "chain", "query": "search(\"zzqqxx\")", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "NOT_FOUND");
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "chain", "query": "search(\"x\", colour=1)", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("unknown argument 'colour'")
    );

    // Resource template and read.
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "tsa://hyphae/{selector}");
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "tsa://hyphae/.class%3Aextends%28%23Model%29",
        ))
        .await
        .unwrap();
    let body = serde_json::to_value(&read.contents[0]).unwrap();
    let result: Value = serde_json::from_str(body["text"].as_str().unwrap()).unwrap();
    assert_eq!(result["total_matches"], 2);
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("tsa://hyphae/%3Azz"))
            .await
            .is_err()
    );
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("tsa://other/x"))
            .await
            .is_err()
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)] // resources/subscribe is the pre-2026 protocol's request, which this client speaks
async fn mcp_subscribers_get_exactly_one_update_after_a_sync_that_changes_their_result() {
    let p = project("hyphae");
    let (client, mut rx) = connect(&p.root).await;
    tool(&client, "index", json!({"action": "full"})).await;
    let selector = ".class:extends(#Model)";
    let uri = "tsa://hyphae/.class%3Aextends%28%23Model%29";

    // Subscribe through the tool and through resources/subscribe (same URI).
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "subscribe", "selector": selector, "output_format": "json"}),
    )
    .await;
    assert!(!err, "{v}");
    assert_eq!(v["resource_uri"], uri);
    assert!(v.get("warnings").is_none(), "MCP can push: {v}");
    let sub_id = v["sub_id"].as_str().unwrap().to_owned();
    client
        .subscribe(SubscribeRequestParams::new(uri))
        .await
        .unwrap();
    // A second selector whose result the edit does not change.
    client
        .subscribe(SubscribeRequestParams::new("tsa://hyphae/%23log"))
        .await
        .unwrap();
    assert!(
        client
            .subscribe(SubscribeRequestParams::new("tsa://hyphae/%3Azz"))
            .await
            .is_err()
    );
    let listed = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, [uri, "tsa://hyphae/%23log"]);

    // No change yet: a query and an unchanged sync send nothing.
    tool(&client, "index", json!({"action": "sync"})).await;
    assert!(drain(&mut rx, Duration::from_millis(300)).await.is_empty());

    // A new subclass of Model appears.
    let models = p.root.join("shop/models.py");
    let mut src = std::fs::read_to_string(&models).unwrap();
    src.push_str("\n\nclass Invoice(Model):\n    \"\"\"An invoice.\"\"\"\n");
    std::fs::write(&models, src).unwrap();
    let (err, v) = tool(
        &client,
        "index",
        json!({"action": "sync", "output_format": "json"}),
    )
    .await;
    assert!(!err, "{v}");
    let got = drain(&mut rx, Duration::from_secs(2)).await;
    assert_eq!(
        got,
        [uri],
        "exactly one notification, for the changed selector only"
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    let body = serde_json::to_value(&read.contents[0]).unwrap();
    let result: Value = serde_json::from_str(body["text"].as_str().unwrap()).unwrap();
    assert_eq!(result["total_matches"], 3);

    // After unsubscribing both ways, a further change notifies nobody.
    let (_, v) = tool(
        &client,
        "search",
        json!({"action": "unsubscribe", "sub_id": sub_id, "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["removed_count"], 1);
    client
        .unsubscribe(UnsubscribeRequestParams::new(uri))
        .await
        .unwrap();
    assert!(
        client
            .unsubscribe(UnsubscribeRequestParams::new(uri))
            .await
            .is_err()
    );
    let mut src = std::fs::read_to_string(&models).unwrap();
    src.push_str("\n\nclass Refund(Model):\n    pass\n");
    std::fs::write(&models, src).unwrap();
    tool(&client, "index", json!({"action": "sync"})).await;
    assert!(drain(&mut rx, Duration::from_millis(500)).await.is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_unsubscribe_not_found_errors_and_truncation() {
    let p = project("hyphae");
    let (client, _rx) = connect(&p.root).await;
    tool(&client, "index", json!({"action": "full"})).await;
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "unsubscribe", "sub_id": "sub-9", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["verdict"], "NOT_FOUND");
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "unsubscribe", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(v["error_type"], "validation");
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "subscribe", "selector": "#log[", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("Hyphae syntax error")
    );

    // 101 subscriptions to one selector, cancelled by selector: the removed list is capped.
    for _ in 0..101 {
        let (err, _) = tool(
            &client,
            "search",
            json!({"action": "subscribe", "selector": "#log", "min_interval": 0}),
        )
        .await;
        assert!(!err);
    }
    let (err, v) = tool(
        &client,
        "search",
        json!({"action": "unsubscribe", "selector": "#log", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["removed_count"], 101);
    assert_eq!(v["removed_listed"], 100);
    assert_eq!(v["listed_cap"], 100);
    assert_eq!(v["truncated"], true);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 100 of 101 subscriptions")
    );
    assert_eq!(v["active_subscriptions"], 0);
    client.cancel().await.unwrap();
}
