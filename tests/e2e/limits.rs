//! Input that cannot pin a core: 1 MB sent to every parameter of every action over
//! MCP is refused within a second with a validation error that states the limit
//! (or, for a parameter that is no string, names the type it expects), and a name
//! at its limit that is in no index still gets its suggestions at once. The
//! parameters of each action are the dispatcher's own list (the answer to an
//! unknown parameter), so a new action or parameter is covered without a change.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::support::{assert_envelope, json as cli_json, mcp, mcp_call, project};

/// What the issue measured: 100,000 characters took 5.4 s, 1 MB minutes.
const MB: usize = 1 << 20;
const BOUND: Duration = Duration::from_secs(1);

/// 1 MB that looks like a name, a path and a pattern at once.
fn megabyte() -> String {
    "jsonify_app/core.py*".repeat(MB / 20)
}

/// The parameters an action accepts, as its unknown-parameter error lists them
/// (`help` lists them in `allowed_arguments`).
async fn allowed<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    tool: &str,
    action: &str,
) -> Vec<String> {
    let (_, v) = mcp_call(
        client,
        tool,
        json!({"action": action, "zz_probe": 1, "output_format": "json"}),
    )
    .await;
    if let Some(list) = v["allowed_arguments"].as_array() {
        return list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    let err = v["error"].as_str().unwrap_or_default();
    let list = err
        .split("allowed parameters: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{tool} {action}: {v}"));
    list.split(", ").map(str::to_owned).collect()
}

/// The properties of an action's exact input schema, as `action=help` gives it.
async fn properties<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    tool: &str,
    action: &str,
) -> Map<String, Value> {
    let (_, v) = mcp_call(
        client,
        tool,
        json!({"action": "help", "target_action": action, "output_format": "json"}),
    )
    .await;
    v["action_schema"]["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{tool} {action}: {v}"))
        .clone()
}

/// A small valid value for a required parameter, by its type in the action schema
/// (a list holds one small item; an object its required fields).
fn small(schema: &Value) -> Value {
    let ty = match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string")
            .to_owned(),
        _ => "string".into(),
    };
    match ty.as_str() {
        "integer" | "number" => json!(1),
        "boolean" => json!(true),
        "array" => json!([small(&schema["items"])]),
        "object" => {
            let mut m = Map::new();
            for r in schema["required"].as_array().into_iter().flatten() {
                let r = r.as_str().unwrap();
                m.insert(r.to_owned(), small(&schema["properties"][r]));
            }
            Value::Object(m)
        }
        _ => json!("app/core.py"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_megabyte_in_any_parameter_is_refused_within_a_second() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let tools = client.list_all_tools().await.unwrap();
    let big = megabyte();
    let mut calls = 0;
    let mut pairs = 0;
    let mut worst = (Duration::ZERO, String::new());
    let mut refused_for_length = 0;
    for tool in &tools {
        let props = tool.input_schema["properties"].as_object().unwrap().clone();
        let actions: Vec<Option<String>> =
            match props.get("action").and_then(|a| a["enum"].as_array()) {
                Some(a) => a
                    .iter()
                    .map(|a| Some(a.as_str().unwrap().to_owned()))
                    .collect(),
                None => vec![None],
            };
        for action in actions {
            let (params, props) = match &action {
                Some(a) => (
                    allowed(&client, &tool.name, a).await,
                    properties(&client, &tool.name, a).await,
                ),
                None => (props.keys().cloned().collect(), props.clone()),
            };
            // Required parameters get a small valid value (learnt from the
            // answers), so the 1 MB one is what the answer is about.
            let mut base = Map::new();
            if let Some(a) = &action {
                base.insert("action".into(), json!(a));
            }
            base.insert("output_format".into(), json!("json"));
            // The list has `action` and the universal parameters in it too.
            for param in &params {
                pairs += 1;
                let mut answer = Value::Null;
                // The canonical name of an alias under test is left out.
                let mut left_out: Option<String> = None;
                for _ in 0..6 {
                    let mut args = base.clone();
                    if let Some(k) = &left_out {
                        args.remove(k);
                    }
                    args.insert(param.clone(), json!(big));
                    let started = Instant::now();
                    let (is_error, v) =
                        mcp_call(&client, &tool.name, Value::Object(args.clone())).await;
                    let took = started.elapsed();
                    calls += 1;
                    let what = format!("{} {:?} {param}", tool.name, action);
                    assert!(took < BOUND, "{what}: answered in {took:?}");
                    assert!(is_error, "{what}: 1 MB accepted: {v}");
                    assert_envelope(&v);
                    let text = v.to_string();
                    assert!(text.len() < 16_384, "{what}: a {} byte answer", text.len());
                    if took > worst.0 {
                        worst = (took, what);
                    }
                    let err = v["error"].as_str().unwrap_or_default().to_owned();
                    if err.ends_with("mean the same thing; pass only one") {
                        let names: Vec<&str> = err.split('\'').skip(1).step_by(2).collect();
                        left_out = names.into_iter().find(|n| n != param).map(str::to_owned);
                        continue;
                    }
                    match err
                        .strip_prefix("missing required parameter '")
                        .and_then(|r| r.split('\'').next())
                    {
                        Some(req) if req != param => {
                            base.insert(req.to_owned(), small(&props[req]));
                        }
                        _ => {
                            answer = v;
                            break;
                        }
                    }
                }
                let err = answer["error"].as_str().unwrap_or_default();
                let what = format!("{} {:?} {param}: {answer}", tool.name, action);
                match answer["error_type"].as_str() {
                    // An action name is looked up, not measured.
                    Some("validation") if param == "action" => {
                        assert!(err.contains("unknown action"), "{what}")
                    }
                    Some("validation") if err.contains("characters long; the limit is") => {
                        refused_for_length += 1;
                        assert!(
                            answer["hint"].as_str().unwrap().contains("Limits"),
                            "{what}"
                        );
                    }
                    // A parameter that is no string says what it expects.
                    Some("validation") => assert!(
                        err.contains(&format!("parameter '{param}")) && err.contains("expects")
                            || param == "output_format",
                        "{what}"
                    ),
                    _ => panic!("not a validation error: {what}"),
                }
            }
        }
    }
    assert!(
        pairs > 600 && refused_for_length > 200,
        "{pairs} parameters, {refused_for_length} refused for length"
    );
    eprintln!(
        "1 MB in every parameter: {pairs} (action, parameter) pairs in {calls} calls, \
         {refused_for_length} refused for length, worst answer {:?} ({})",
        worst.0, worst.1
    );
    client.cancel().await.unwrap();
}

/// A name at its limit that no index holds: the "did you mean" search looks at its
/// first 64 characters only.
#[tokio::test(flavor = "multi_thread")]
async fn a_name_at_its_limit_gets_suggestions_at_once() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let (_, built) = mcp_call(
        &client,
        "index",
        json!({"action": "full", "output_format": "json"}),
    )
    .await;
    assert_eq!(built["success"], true, "{built}");
    for name in [format!("buidl{}", "x".repeat(1_019)), "buidl".to_owned()] {
        let started = Instant::now();
        let (is_error, v) = mcp_call(
            &client,
            "nav",
            json!({"action": "callers", "function_name": name, "output_format": "json"}),
        )
        .await;
        let took = started.elapsed();
        assert!(!is_error, "{v}");
        assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
        assert!(took < BOUND, "{} characters: {took:?}", name.len());
        if name.len() < 10 {
            assert_eq!(v["suggestions"][0], "build", "{v}");
        }
    }
    client.cancel().await.unwrap();
}

/// The CLI turns flags into the same JSON: an over-long name is refused there too,
/// with exit 1.
#[test]
fn the_cli_refuses_an_over_long_name_with_its_limit() {
    let p = project("python");
    let long = "a".repeat(100_000);
    let started = Instant::now();
    let (code, v) = cli_json(&p.root, &["nav", "callers", "--function-name", &long]);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error_type"], "validation");
    assert_eq!(
        v["error"],
        "parameter 'function_name' is 100,000 characters long; the limit is 1,024 characters (a name)"
    );
    assert!(v["summary_line"].as_str().unwrap().len() < 200, "{v}");
}
