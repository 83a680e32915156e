//! `action=help` on every facade: the facade's actions with their full reference,
//! or the exact input schema of one action (`target_action`), built from the same
//! `Args` schema the dispatcher checks arguments against (tsa3-additions §1).
//! `help` is no business action: it is in the facade's `action` enum, never in
//! `available_actions`, counts or error lists.

use serde_json::{Map, Value, json};
use tsa_analysis::suggest::clip;
use tsa_envelope::{ErrorType, Failure, Success, Verdict};
use tsa_format::OutputFormat;

use crate::arguments::{normalise_value, received};
use crate::catalog::{Facade, available_actions, canonical_action};
use crate::schema::{
    HELP as NAME, action_descriptions, help_args_schema as args_schema, long_description,
    universal_properties,
};

/// Whether a call of `tool` with `args` asks for help; if so, `format` becomes
/// JSON, help's default (a given `output_format` still decides).
pub fn is_help(tool: &str, args: &Map<String, Value>, format: &mut OutputFormat) -> bool {
    let help = crate::catalog::facade(tool).is_some() && args.get("action") == Some(&json!(NAME));
    if help {
        *format = OutputFormat::Json;
    }
    help
}

/// The refusal of a bad `output_format` in a help call.
pub fn bad_format(tool: &str, value: &Value) -> Failure {
    let shown = match value {
        Value::String(s) => clip(s).to_owned(),
        other => received(other),
    };
    let f = crate::catalog::facade(tool);
    refusal(
        f,
        "INVALID_ARGUMENT",
        format!("invalid output_format: '{shown}'"),
        None,
    )
    .with("invalid_values", json!([shown]))
    .with("allowed_values", json!(["toon", "json"]))
}

/// Answers `help` on `f`; `args` hold what is left once the dispatcher took the
/// universal parameters and `action` out.
pub fn answer(f: &'static Facade, mut args: Map<String, Value>) -> Result<Success, Failure> {
    let target = args.remove("target_action").filter(|v| !v.is_null());
    let echo = target.as_ref().map(|v| match v {
        Value::String(s) => Value::from(clip(s)),
        // A list or object is echoed as text cut short: no error grows with the input.
        Value::Array(_) | Value::Object(_) => Value::from(received(v)),
        other => other.clone(),
    });
    if !args.is_empty() {
        let mut extra: Vec<String> = args.keys().map(|k| clip(k).to_owned()).collect();
        extra.sort();
        // The first 8 are named: no error grows with the input.
        if extra.len() > 8 {
            let more = extra.len() - 8;
            extra.truncate(8);
            extra.push(format!("(and {more} more)"));
        }
        let mut allowed: Vec<&str> = vec!["action"];
        allowed.push("target_action");
        let universal = universal_properties();
        allowed.extend(universal.keys().map(String::as_str));
        allowed.sort_unstable();
        return Err(refusal(
            Some(f),
            "INVALID_ARGUMENT",
            format!("unsupported help arguments: {}", extra.join(", ")),
            echo.as_ref(),
        )
        .with("invalid_arguments", json!(extra))
        .with("allowed_arguments", json!(allowed)));
    }
    let Some(mut target) = target else {
        return Ok(bare(f));
    };
    let schema = args_schema();
    if !target.is_string() {
        return Err(refusal(
            Some(f),
            "INVALID_ARGUMENT",
            "target_action must be a string".into(),
            echo.as_ref(),
        ));
    }
    normalise_value(
        "target_action",
        "target_action",
        &mut target,
        &schema["properties"]["target_action"],
    )
    .map_err(|e| with_context(e, Some(f), "INVALID_ARGUMENT", echo.as_ref()))?;
    let asked = target.as_str().unwrap_or_default().to_owned();
    let name = canonical_action(f.name, asked.clone());
    match action_schema(f, &name) {
        Some(schema) => Ok(targeted(f, &asked, schema)),
        None => Err(refusal(
            Some(f),
            "UNKNOWN_ACTION",
            format!("unknown target_action '{}'", clip(&asked)),
            echo.as_ref(),
        )),
    }
}

/// The bare answer: the actions and the facade's full reference.
fn bare(f: &Facade) -> Success {
    let actions = available_actions(f.name);
    let step = format!(
        "Call {} with action=help and target_action set to one of: {}, for its exact input schema.",
        f.name,
        actions.join(", ")
    );
    Success::new(
        Verdict::Info,
        format!("{}: {} actions available", f.name, actions.len()),
    )
    .with("facade", f.name)
    .with("action", NAME)
    .with("target_action", Value::Null)
    .with("actions", json!(actions))
    .with("schema_status", "not_requested")
    .with("schema_request", schema_request("<action>"))
    .with("core_profile", core_profile())
    .with("description", long_description(f))
    .with_next_step(step)
}

/// The answer for one action: its exact input schema.
fn targeted(f: &Facade, asked: &str, schema: Map<String, Value>) -> Success {
    let name = canonical_action(f.name, asked.to_owned());
    Success::new(
        Verdict::Info,
        format!("{}.{name}: action schema available", f.name),
    )
    .with("facade", f.name)
    .with("action", NAME)
    .with("target_action", asked)
    .with("actions", json!(available_actions(f.name)))
    .with("schema_status", "available")
    .with("schema_request", schema_request(asked))
    .with("core_profile", core_profile())
    .with("action_schema", Value::Object(schema))
    .with_next_step(format!(
        "Call {} with arguments matching action_schema.",
        f.name
    ))
}

fn schema_request(target: &str) -> Value {
    json!({"action": NAME, "target_action": target})
}

/// The recommended core loop over the actions this build has: find, outline,
/// gather context, gate the edit, then check its impact.
fn core_profile() -> Value {
    let steps = [
        ("search", "symbol"),
        ("structure", "outline"),
        ("nav", "context"),
        ("edit", "safe"),
        ("edit", "impact"),
    ];
    let steps: Vec<Value> = steps
        .iter()
        .enumerate()
        .map(|(i, (facade, action))| json!({"position": i + 1, "facade": facade, "action": action}))
        .collect();
    json!({"version": "agent-core/v1", "steps": steps})
}

/// The exact input schema of `action` on `f` (a canonical name; `help` included),
/// or `None` for an action this facade does not answer.
pub fn action_schema(f: &Facade, action: &str) -> Option<Map<String, Value>> {
    let d = action_descriptions(f.name)
        .into_iter()
        .find(|d| d.name == action)?;
    let own = d
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut required: Vec<String> = d
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut props = Map::new();
    props.insert("action".into(), json!({"type": "string", "const": action}));
    props.extend(own.clone());
    let mut any_of = Vec::new();
    for (alias, canonical) in d.aliases {
        let mut prop = own.get(*canonical).cloned().unwrap_or(json!({}));
        let text = prop
            .get("description")
            .and_then(Value::as_str)
            .map(|t| format!("{t} "))
            .unwrap_or_default();
        if let Value::Object(m) = &mut prop {
            m.insert(
                "description".into(),
                json!(format!("{text}Facade alias for {canonical}.")),
            );
        }
        props.insert((*alias).to_owned(), prop);
        if required.iter().any(|r| r == canonical) {
            required.retain(|r| r != canonical);
            any_of.push(json!({"anyOf": [{"required": [canonical]}, {"required": [alias]}]}));
        }
    }
    let default_format = if action == NAME { "json" } else { "toon" };
    for (k, mut v) in universal_properties() {
        if k == "output_format"
            && let Value::Object(m) = &mut v
        {
            m.insert("default".into(), json!(default_format));
        }
        props.insert(k, v);
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("description".into(), json!(d.summary));
    schema.insert("properties".into(), Value::Object(props));
    let mut all_required = vec!["action".to_owned()];
    all_required.extend(required);
    schema.insert("required".into(), json!(all_required));
    if !any_of.is_empty() {
        schema.insert("allOf".into(), Value::Array(any_of));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Some(schema)
}

/// A help refusal: `error_type` validation, the stable `error_code`, and what to
/// ask instead.
fn refusal(
    f: Option<&'static Facade>,
    code: &str,
    error: String,
    target: Option<&Value>,
) -> Failure {
    with_context(Failure::new(ErrorType::Validation, error), f, code, target)
}

fn with_context(
    failure: Failure,
    f: Option<&'static Facade>,
    code: &str,
    target: Option<&Value>,
) -> Failure {
    let facade = f.map_or("", |f| f.name);
    let actions = available_actions(facade);
    let mut failure = failure
        .with("error_code", code)
        .with("facade", facade)
        .with("action", NAME)
        .with("target_action", target.cloned().unwrap_or(Value::Null))
        .with("available_actions", json!(actions));
    // A value past its length limit keeps the hint that states the limits.
    if !failure.hint().contains("Limits") {
        failure = failure.with_hint(format!(
            "Call {facade} with action=help, and target_action one of: {}",
            actions.join(", ")
        ));
    }
    failure
}
