//! The small tool list and `action=help`: `tools/list` stays within 12,000
//! characters and names every action of every tool; `help` answers every action of
//! every tool with its exact input schema (parameters, types, defaults), the same
//! over MCP and the CLI, in JSON unless asked otherwise, and refuses what it cannot
//! answer with its `error_code`. The schema it returns lists exactly the
//! parameters the dispatcher accepts.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::{assert_envelope, bin, json as cli_json, mcp, mcp_call, mcp_raw, project};

/// The most characters `tools/list` may take (issue 19).
const LIST_LIMIT: usize = 12_000;

/// The `tools/list` result exactly as the server writes it, over raw stdio.
fn tools_list(root: &std::path::Path) -> Value {
    let mut child = Command::new(bin())
        .arg("mcp")
        .arg("--project-root")
        .arg(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "1"}}}),
    );
    lines.next().unwrap().unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}));
    let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    drop(stdin);
    child.kill().ok();
    child.wait().ok();
    answer["result"].clone()
}

fn facades() -> impl Iterator<Item = &'static str> {
    tsa_tools::FACADES.iter().map(|f| f.name)
}

#[test]
fn the_tool_list_is_small_and_names_every_action() {
    let p = project("python");
    let result = tools_list(&p.root);
    let size = result.to_string().chars().count();
    for t in result["tools"].as_array().unwrap() {
        eprintln!(
            "{}: {} characters",
            t["name"],
            t.to_string().chars().count()
        );
    }
    eprintln!("tools/list: {size} characters");
    assert!(size <= LIST_LIMIT, "tools/list is {size} characters");
    let tools = result["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 9);
    for facade in facades() {
        let tool = tools.iter().find(|t| t["name"] == facade).unwrap();
        let description = tool["description"].as_str().unwrap();
        let listed = tool["inputSchema"]["properties"]["action"]["enum"]
            .as_array()
            .unwrap();
        for a in tsa_tools::action_descriptions(facade) {
            assert!(
                description.contains(&format!("{}(", a.name)),
                "{facade} {}: {description}",
                a.name
            );
            assert!(listed.contains(&json!(a.name)), "{facade} {}", a.name);
        }
        // `help` is in the enum, sorted with the business actions.
        let names: Vec<&str> = listed.iter().filter_map(Value::as_str).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted, "{facade}");
        assert_eq!(
            names.len(),
            tsa_tools::available_actions(facade).len() + 1,
            "{facade}"
        );
        // The schema asks for `action` and lets the server check the rest.
        let schema = &tool["inputSchema"];
        assert_eq!(schema["required"], json!(["action"]), "{facade}");
        assert_eq!(schema["additionalProperties"], json!(true), "{facade}");
        assert_eq!(
            schema["properties"]["target_action"]["type"], "string",
            "{facade}"
        );
    }
}

/// The parameters the dispatcher accepts for an action, as its refusal of an
/// unknown one lists them.
async fn accepted<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    tool: &str,
    action: &str,
) -> Vec<String> {
    let (is_error, v) = mcp_call(
        client,
        tool,
        json!({"action": action, "zz_probe": 1, "output_format": "json"}),
    )
    .await;
    assert!(is_error, "{tool} {action}: {v}");
    if let Some(list) = v["allowed_arguments"].as_array() {
        return list
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect();
    }
    let err = v["error"].as_str().unwrap();
    let list = err.split("allowed parameters: ").nth(1).unwrap();
    list.split(", ").map(str::to_owned).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn help_gives_every_actions_exact_schema_over_mcp() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    for facade in facades() {
        let available = tsa_tools::available_actions(facade);
        // Bare: the actions (no `help`), the full reference, in JSON by default.
        let (is_error, raw) = mcp_raw(&client, facade, &json!({"action": "help"})).await;
        assert!(!is_error, "{raw}");
        let bare: Value = serde_json::from_str(&raw).unwrap();
        assert_envelope(&bare);
        assert_eq!(bare["verdict"], "INFO");
        assert_eq!(bare["facade"], facade);
        assert_eq!(bare["action"], "help");
        assert_eq!(bare["target_action"], Value::Null);
        assert_eq!(bare["actions"], json!(available));
        assert_eq!(bare["schema_status"], "not_requested");
        assert_eq!(
            bare["summary_line"],
            format!("{facade}: {} actions available", available.len())
        );
        assert_eq!(bare["core_profile"]["version"], "agent-core/v1");
        assert_eq!(bare["core_profile"]["steps"].as_array().unwrap().len(), 5);
        let description = bare["description"].as_str().unwrap();
        for a in tsa_tools::action_descriptions(facade) {
            if a.name != "help" {
                assert!(description.contains(a.summary), "{facade} {}", a.name);
            }
            let (is_error, v) = mcp_call(
                &client,
                facade,
                json!({"action": "help", "target_action": a.name}),
            )
            .await;
            assert!(!is_error, "{facade} {}: {v}", a.name);
            assert_eq!(v["schema_status"], "available");
            assert_eq!(
                v["schema_request"],
                json!({"action": "help", "target_action": a.name})
            );
            assert_eq!(
                v["summary_line"],
                format!("{facade}.{}: action schema available", a.name)
            );
            let schema = &v["action_schema"];
            check_schema(facade, &a, schema);
            // The schema's properties are exactly what the dispatcher accepts.
            let mut listed: Vec<String> = schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect();
            listed.sort();
            let mut allowed = accepted(&client, facade, a.name).await;
            allowed.sort();
            assert_eq!(listed, allowed, "{facade} {}", a.name);
        }
    }
    client.cancel().await.unwrap();
}

/// An action's `action_schema`: its own parameters with their types and defaults,
/// `action` as a constant, the answer options, aliases, `required` led by
/// `action`, nothing else allowed.
fn check_schema(facade: &str, a: &tsa_tools::ActionDescription, schema: &Value) {
    let what = format!("{facade} {}: {schema}", a.name);
    assert_eq!(schema["type"], "object", "{what}");
    assert_eq!(schema["additionalProperties"], false, "{what}");
    assert_eq!(schema["properties"]["action"]["const"], a.name, "{what}");
    let required = schema["required"].as_array().unwrap();
    assert_eq!(required[0], "action", "{what}");
    let default_format = if a.name == "help" { "json" } else { "toon" };
    assert_eq!(
        schema["properties"]["output_format"]["default"], default_format,
        "{what}"
    );
    for key in tsa_tools::universal_properties().keys() {
        assert!(schema["properties"].get(key).is_some(), "{key}: {what}");
    }
    let own = a.input_schema.get("properties").and_then(Value::as_object);
    for (key, prop) in own.into_iter().flatten() {
        // Type, default, limits and description: the very schema the dispatcher checks.
        assert_eq!(&schema["properties"][key], prop, "{key}: {what}");
    }
    let aliased: Vec<&str> = a.aliases.iter().map(|(_, c)| *c).collect();
    for r in a
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let r = r.as_str().unwrap();
        if aliased.contains(&r) {
            assert!(schema["allOf"].to_string().contains(r), "{r}: {what}");
        } else {
            assert!(required.contains(&json!(r)), "{r}: {what}");
        }
    }
    for (alias, canonical) in a.aliases {
        let text = schema["properties"][alias]["description"].as_str().unwrap();
        assert!(
            text.ends_with(&format!("Facade alias for {canonical}.")),
            "{alias}: {what}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn help_refuses_what_it_cannot_answer() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let refused = |v: &Value, code: &str| {
        assert_envelope(v);
        assert_eq!(v["success"], false, "{v}");
        assert_eq!(v["verdict"], "ERROR", "{v}");
        assert_eq!(v["error_type"], "validation", "{v}");
        assert_eq!(v["error_code"], code, "{v}");
        assert_eq!(v["facade"], "nav", "{v}");
        assert_eq!(v["action"], "help", "{v}");
        let actions = v["available_actions"].as_array().unwrap();
        assert!(!actions.contains(&json!("help")), "{v}");
    };
    let ask = |args: Value| mcp_call(&client, "nav", args);

    let (is_error, v) = ask(json!({"action": "help", "function_name": "x", "zeta": 1})).await;
    assert!(is_error);
    refused(&v, "INVALID_ARGUMENT");
    assert_eq!(
        v["error"],
        "unsupported help arguments: function_name, zeta"
    );
    assert_eq!(v["invalid_arguments"], json!(["function_name", "zeta"]));
    assert!(
        v["allowed_arguments"]
            .as_array()
            .unwrap()
            .contains(&json!("target_action"))
    );

    // No refusal grows with the input: 20 unknown arguments, 8 named.
    let mut many = serde_json::Map::new();
    many.insert("action".into(), json!("help"));
    for i in 0..20 {
        many.insert(format!("p{i:02}"), json!(i));
    }
    let (_, v) = ask(Value::Object(many)).await;
    refused(&v, "INVALID_ARGUMENT");
    let named = v["invalid_arguments"].as_array().unwrap();
    assert_eq!(named.len(), 9, "{v}");
    assert_eq!(named[8], "(and 12 more)", "{v}");
    let (_, v) = ask(json!({"action": "help", "target_action": vec![7; 10_000]})).await;
    refused(&v, "INVALID_ARGUMENT");
    assert!(v.to_string().len() < 4_096, "{v}");

    let (_, v) = ask(json!({"action": "help", "output_format": "xml"})).await;
    refused(&v, "INVALID_ARGUMENT");
    assert_eq!(v["error"], "invalid output_format: 'xml'");
    assert_eq!(v["invalid_values"], json!(["xml"]));
    assert_eq!(v["allowed_values"], json!(["toon", "json"]));

    let (_, v) = ask(json!({"action": "help", "target_action": 5})).await;
    refused(&v, "INVALID_ARGUMENT");
    assert_eq!(v["error"], "target_action must be a string");

    let (_, v) = ask(json!({"action": "help", "target_action": "callerz"})).await;
    refused(&v, "UNKNOWN_ACTION");
    assert_eq!(v["error"], "unknown target_action 'callerz'");
    assert_eq!(v["target_action"], "callerz");
    assert!(v["next_step"].as_str().unwrap().contains("callers"), "{v}");

    // A value past its limit is refused by its limit, and echoed cut short.
    let long = "x".repeat(5_000);
    let (_, v) = ask(json!({"action": "help", "target_action": long})).await;
    refused(&v, "INVALID_ARGUMENT");
    assert!(v["error"].as_str().unwrap().contains("the limit is"), "{v}");
    assert!(v["target_action"].as_str().unwrap().len() <= 64, "{v}");

    // TOON on request.
    let (is_error, raw) = mcp_raw(
        &client,
        "search",
        &json!({"action": "help", "target_action": "text", "output_format": "toon"}),
    )
    .await;
    assert!(!is_error);
    let v: Value = serde_json::from_str(&raw).unwrap();
    let toon = tsa_format::from_toon(v["toon_content"].as_str().unwrap()).unwrap();
    assert_eq!(
        toon["action_schema"]["properties"]["action"]["const"],
        "text"
    );

    // `help` is no business action: an unknown action's refusal does not list it.
    let (_, v) = ask(json!({"action": "halp", "output_format": "json"})).await;
    assert!(
        !v["available_actions"]
            .as_array()
            .unwrap()
            .contains(&json!("help")),
        "{v}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_answers_help_as_mcp_does() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    for facade in facades() {
        let (code, bare) = cli_json(&p.root, &[facade, "help"]);
        assert_eq!(code, 0, "{bare}");
        let (_, over_mcp) = mcp_call(&client, facade, json!({"action": "help"})).await;
        assert_eq!(bare, over_mcp, "{facade}");
        for a in tsa_tools::action_descriptions(facade) {
            let (code, v) = cli_json(&p.root, &[facade, "help", "--target-action", a.name]);
            assert_eq!(code, 0, "{v}");
            let (_, over_mcp) = mcp_call(
                &client,
                facade,
                json!({"action": "help", "target_action": a.name}),
            )
            .await;
            assert_eq!(v, over_mcp, "{facade} {}", a.name);
        }
    }
    let (code, v) = cli_json(&p.root, &["nav", "help", "--target-action", "nope"]);
    assert_eq!(code, 1);
    assert_eq!(v["error_code"], "UNKNOWN_ACTION", "{v}");
    // `--help` is still clap's help, and lists the help action.
    let (code, out, _) = crate::support::run(&p.root, &["nav", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("help ")),
        "{out}"
    );
    let (code, out, _) = crate::support::run(&p.root, &["nav", "help", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--target-action"), "{out}");
    client.cancel().await.unwrap();
}
