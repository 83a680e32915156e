//! The one dispatcher: tool -> action -> strict parameters -> arguments made
//! exact (string forms, single items, length limits) -> path boundary (every
//! `ProjectPath` parameter) -> action ->
//! envelope -> format. MCP and the CLI both call [`call`].

use serde_json::{Map, Value, json};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::suggest::{clip, closest};
use tsa_envelope::{Envelope, ErrorType, Failure, Success};
use tsa_format::{OutputFormat, render};

use crate::action::DynAction;
use crate::actions::{REGISTRY, set_project_path};
use crate::arguments::{normalise, normalise_value, received};
use crate::catalog::facade;
use crate::project_path::path_params;
use crate::{Context, ToolError};

/// Parameters every action accepts.
pub const UNIVERSAL_PARAMS: [&str; 3] = ["output_format", "compact_only", "max_chars"];

/// A rendered answer and whether it is a failure (MCP `isError`, CLI exit 1).
#[derive(Clone, Debug)]
pub struct Reply {
    pub body: Map<String, Value>,
    pub is_error: bool,
    pub format: OutputFormat,
    pub compact_only: bool,
}

/// How a transport writes a reply: MCP sends compact JSON text; the CLI prints
/// pretty JSON, or the bare TOON document. `max_chars` counts what is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presentation {
    /// One JSON line (MCP text content).
    Compact,
    /// Pretty JSON, or the TOON text alone (the CLI).
    Terminal,
}

impl Reply {
    /// The failure reply of `err` for a call of `tool` that never reached the
    /// dispatcher (a transport refusing its project root, say).
    pub fn from_error(tool: &str, err: ToolError, format: OutputFormat) -> Reply {
        let envelope = Envelope::from(err.into_failure().with_subject(tool, None));
        Reply {
            body: render(&envelope, format, false),
            is_error: true,
            format,
            compact_only: false,
        }
    }

    /// The reply as `presentation` writes it.
    pub fn text(&self, presentation: Presentation) -> String {
        present(&self.body, self.format, self.compact_only, presentation)
    }
}

fn present(
    body: &Map<String, Value>,
    format: OutputFormat,
    compact_only: bool,
    presentation: Presentation,
) -> String {
    match presentation {
        Presentation::Compact => Value::Object(body.clone()).to_string(),
        Presentation::Terminal => match (format, compact_only, body.get("toon_content")) {
            (OutputFormat::Toon, false, Some(Value::String(s))) => s.clone(),
            _ => serde_json::to_string_pretty(body).unwrap_or_default(),
        },
    }
}

/// Answers one tool call as MCP writes it. Never panics on bad input: every
/// failure is an envelope.
pub fn call(ctx: &mut Context, tool: &str, args: Value, default_format: OutputFormat) -> Reply {
    call_with(ctx, tool, args, default_format, Presentation::Compact)
}

/// Answers one tool call for a transport that writes it as `presentation`.
pub fn call_with(
    ctx: &mut Context,
    tool: &str,
    args: Value,
    default_format: OutputFormat,
    presentation: Presentation,
) -> Reply {
    let mut format = default_format;
    let mut compact_only = false;
    let mut max_chars: Option<usize> = None;
    let identifier = identifier(&args);
    let outcome = (|| -> Result<Envelope, Failure> {
        let mut args = match args {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::Validation(format!(
                    "arguments must be a JSON object, got {}",
                    kind_of(&other)
                ))
                .into_failure());
            }
        };
        // `help` answers JSON unless asked otherwise (its refusals too).
        let help = crate::help::is_help(tool, &args, &mut format);
        if let Some(v) = args.remove("output_format") {
            format = output_format(tool, &v, help)?;
        }
        if let Some(mut v) = args.remove("compact_only") {
            normalise_value(
                "compact_only",
                "compact_only",
                &mut v,
                &json!({"type": "boolean"}),
            )?;
            compact_only = v.as_bool().unwrap_or_default();
        }
        if let Some(mut v) = args.remove("max_chars") {
            normalise_value(
                "max_chars",
                "max_chars",
                &mut v,
                &json!({"type": "integer"}),
            )?;
            max_chars = match v.as_u64() {
                Some(n) if n >= 1 => Some(n as usize),
                _ => {
                    return Err(ToolError::Validation(format!(
                        "parameter 'max_chars' must be an integer >= 1, got {}",
                        received(&v)
                    ))
                    .into_failure());
                }
            };
        }
        if tool == "set_project_path" {
            normalise(&set_project_path::schema(), &mut args)?;
            return set_project_path::run(ctx, args)
                .map(Envelope::from)
                .map_err(ToolError::into_failure);
        }
        let Some(f) = facade(tool) else {
            let tools: Vec<&str> = crate::FACADES
                .iter()
                .map(|f| f.name)
                .chain(std::iter::once("set_project_path"))
                .collect();
            let hint = match closest(tool, tools.iter().copied()) {
                Some(s) => format!(
                    "Did you mean tool '{s}'? Else call one of: {}",
                    tools.join(", ")
                ),
                None => format!("Call one of: {}", tools.join(", ")),
            };
            return Err(Failure::new(
                ErrorType::UnknownTool,
                format!("Unknown tool: {}", clip(tool)),
            )
            .with_hint(hint)
            .with("available_tools", json!(tools)));
        };
        let action = match args.remove("action") {
            None => {
                return Err(action_error(
                    f.name,
                    "missing required parameter 'action'",
                    None,
                ));
            }
            Some(Value::String(s)) => crate::catalog::canonical_action(f.name, s),
            Some(other) => {
                return Err(action_error(
                    f.name,
                    &format!(
                        "parameter 'action' must be a string, got {}",
                        received(&other)
                    ),
                    None,
                ));
            }
        };
        if help {
            return crate::help::answer(f, args).map(Envelope::from);
        }
        if !f.actions.contains(&action.as_str()) {
            let suggestion = closest(&action, f.actions.iter().copied());
            let msg = format!(
                "{}unknown action '{}'; valid actions are: {}",
                suggestion
                    .map(|s| format!("did you mean: {s}? "))
                    .unwrap_or_default(),
                clip(&action),
                f.actions.join(", ")
            );
            return Err(action_error(f.name, &msg, suggestion));
        }
        let Some(handler) = REGISTRY
            .iter()
            .find(|a| a.facade() == f.name && a.name() == action)
        else {
            let available = crate::available_actions(f.name);
            return Err(Failure::new(
                ErrorType::UnsupportedAction,
                format!(
                    "action '{action}' of tool '{}' is not available in this build",
                    f.name
                ),
            )
            .with_hint(format!(
                "Not yet available in this build. Available {} actions: {}",
                f.name,
                available.join(", ")
            ))
            .with("facade", f.name)
            .with("action", action.as_str())
            .with("available_actions", json!(available)));
        };
        let schema = handler.marked_schema();
        check_params(*handler, &schema, &mut args).map_err(ToolError::into_failure)?;
        normalise(&schema, &mut args)?;
        check_paths(ctx, &path_params(&schema), &args).map_err(ToolError::into_failure)?;
        let success = crate::heal::run(*handler, ctx, args).map_err(ToolError::into_failure)?;
        Ok(Envelope::from(match max_chars {
            Some(budget) => within_budget(success, budget, format, compact_only, presentation),
            None => success,
        }))
    })();
    let envelope = match outcome {
        Ok(e) => e,
        Err(f) => {
            // Error texts and summary lines never carry the absolute project root.
            let root = ctx
                .root()
                .map(|r| r.display().to_string())
                .unwrap_or_default();
            Envelope::from(f.with_subject(tool, identifier.as_deref()).redact(&root))
        }
    };
    Reply {
        is_error: !envelope.is_success(),
        body: render(&envelope, format, compact_only),
        format,
        compact_only,
    }
}

/// The answer format a call asks for; a bad value is refused (by `help` with its
/// own error code).
fn output_format(tool: &str, v: &Value, help: bool) -> Result<OutputFormat, Failure> {
    match v.as_str().and_then(OutputFormat::parse) {
        Some(f) => Ok(f),
        None if help => Err(crate::help::bad_format(tool, v)),
        None => Err(ToolError::Validation(format!(
            "parameter 'output_format' must be \"toon\" or \"json\", got {}",
            received(v)
        ))
        .into_failure()),
    }
}

/// The rendered size of an envelope in characters, as the transport writes it.
fn rendered_chars(
    envelope: &Envelope,
    format: OutputFormat,
    compact_only: bool,
    presentation: Presentation,
) -> usize {
    let body = render(envelope, format, compact_only);
    present(&body, format, compact_only, presentation)
        .chars()
        .count()
}

/// `max_chars`: drops whole rows from the end of the answer's capped lists until
/// the rendered answer fits. The lists keep their exact totals, so the four-part
/// truncation shape and the "showing X of Y" next_step stay true.
fn within_budget(
    success: Success,
    budget: usize,
    format: OutputFormat,
    compact_only: bool,
    presentation: Presentation,
) -> Success {
    let size_of = |s: &Success| {
        rendered_chars(
            &Envelope::from(s.clone()),
            format,
            compact_only,
            presentation,
        )
    };
    if size_of(&success) <= budget {
        return success;
    }
    let mut current = success.with_warning(format!(
        "max_chars={budget}: whole rows were left out to fit; the counts stay exact"
    ));
    // Coarse steps (half the overshoot, measured on compact rows, so never more
    // than needed), then single rows from the last state that did not fit.
    loop {
        let size = size_of(&current);
        if size <= budget {
            return current;
        }
        let mut next = current.clone();
        if next.drop_rows((size - budget) / 2) == 0 {
            return current.with_warning(format!(
                "max_chars={budget}: the answer without any listed rows is still {size} characters"
            ));
        }
        if size_of(&next) <= budget {
            break;
        }
        current = next;
    }
    // `next` fits, so dropping single rows from `current` ends at or before it.
    while current.drop_rows(0) > 0 {
        if size_of(&current) <= budget {
            break;
        }
    }
    current
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The first non-empty identifier of the request (its first 64 characters), for
/// error summary lines.
fn identifier(args: &Value) -> Option<String> {
    [
        "file_path",
        "symbol",
        "function_name",
        "query",
        "mode",
        "action",
    ]
    .iter()
    .find_map(|k| {
        args.get(*k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(|s| clip(s).to_owned())
    })
}

fn action_error(facade: &str, msg: &str, suggestion: Option<&str>) -> Failure {
    let actions = facade_actions(facade);
    let next = match suggestion {
        Some(s) => format!(
            "Did you mean action '{s}'? Else set action to one of: {}",
            actions.join(", ")
        ),
        None => format!("Set action to one of: {}", actions.join(", ")),
    };
    Failure::new(ErrorType::Validation, msg)
        .with_hint(next)
        .with("facade", facade)
        .with("available_actions", json!(actions))
        .with(
            "suggestion",
            suggestion.map(Value::from).unwrap_or(Value::Null),
        )
}

fn facade_actions(name: &str) -> Vec<&'static str> {
    facade(name).map(|f| f.actions.to_vec()).unwrap_or_default()
}

/// Strict parameters: aliases renamed, unknown keys and missing required keys refused.
fn check_params(
    handler: &dyn DynAction,
    schema: &Map<String, Value>,
    args: &mut Map<String, Value>,
) -> Result<(), ToolError> {
    for (alias, canonical) in handler.aliases() {
        if let Some(v) = args.remove(*alias) {
            if args.contains_key(*canonical) {
                return Err(ToolError::Validation(format!(
                    "parameters '{alias}' and '{canonical}' mean the same thing; pass only one"
                )));
            }
            args.insert((*canonical).to_owned(), v);
        }
    }
    let props: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut allowed: Vec<&str> = props.clone();
    allowed.extend(handler.aliases().iter().map(|(a, _)| *a));
    allowed.extend(UNIVERSAL_PARAMS);
    allowed.push("action");
    allowed.sort_unstable();
    let mut unknown: Vec<&String> = args
        .keys()
        .filter(|k| !props.contains(&k.as_str()))
        .collect();
    unknown.sort();
    if let Some(key) = unknown.first() {
        let hint = closest(key, allowed.iter().copied())
            .map(|s| format!(" — did you mean '{s}'?"))
            .unwrap_or_default();
        return Err(ToolError::Validation(format!(
            "unknown parameter '{}' for tool '{}' action '{}'{hint}; allowed parameters: {}",
            clip(key),
            handler.facade(),
            handler.name(),
            allowed.join(", ")
        )));
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for r in required.iter().filter_map(Value::as_str) {
            if !args.contains_key(r) || args[r].is_null() {
                return Err(ToolError::Validation(format!(
                    "missing required parameter '{r}' for tool '{}' action '{}'",
                    handler.facade(),
                    handler.name()
                )));
            }
        }
    }
    Ok(())
}

/// Every path parameter (a [`crate::ProjectPath`] in the action's `Args`, marked in
/// its schema) must resolve inside the project root: checked here, before the
/// action or anything else runs, so the refusal is the same for every action; the
/// `Args` resolve them again as they are parsed.
fn check_paths(
    ctx: &Context,
    path_params: &[String],
    args: &Map<String, Value>,
) -> Result<(), ToolError> {
    let present: Vec<&Value> = path_params.iter().filter_map(|k| args.get(k)).collect();
    if present.is_empty() {
        return Ok(());
    }
    let root = ctx.root()?;
    for v in present {
        let paths: Vec<&str> = match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        for p in paths {
            resolve_in_root(root, p)?;
        }
    }
    Ok(())
}
