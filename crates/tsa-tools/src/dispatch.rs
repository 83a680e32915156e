//! The one dispatcher: tool -> action -> strict parameters -> arguments made
//! exact (string forms, single items, length limits) -> path boundary (every
//! `ProjectPath` parameter) -> action ->
//! envelope -> format. MCP and the CLI both call [`call`].

use serde_json::{Map, Value, json};
use tsa_analysis::suggest::{clip, closest};
use tsa_envelope::{Envelope, ErrorType, Failure, Success, with_reach};
use tsa_format::{OutputFormat, render};

use crate::action::DynAction;
use crate::actions::{REGISTRY, set_project_path};
use crate::arguments::{normalise, normalise_value, received};
use crate::catalog::facade;
use crate::project_path::path_params;
use crate::resume::{Cursor, Resume, Resumer};
use crate::{Context, ToolError};

/// Parameters every action accepts.
pub const UNIVERSAL_PARAMS: [&str; 5] = [
    "output_format",
    "compact_only",
    "max_chars",
    "offset",
    "cursor",
];

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
    call_within(ctx, tool, args, default_format, presentation, None)
}

/// [`call_with`] under a transport's default character budget (`tsa mcp`): an
/// answer with no `max_chars` of its own is cut to `default_budget` the same way.
pub fn call_within(
    ctx: &mut Context,
    tool: &str,
    args: Value,
    default_format: OutputFormat,
    presentation: Presentation,
    default_budget: Option<usize>,
) -> Reply {
    let mut format = default_format;
    let mut compact_only = false;
    let mut max_chars: Option<usize> = None;
    let mut resume: Option<Resume> = None;
    let identifier = identifier(&args);
    let mut answering: Option<(&'static str, &'static str)> = None; // once known
    // An answer measured against a budget is rendered there: its last rendering
    // (of the answer as sent) is kept so it is not rendered twice.
    let mut rendered: Option<Map<String, Value>> = None;
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
        take_presentation(tool, help, &mut args, &mut format, &mut compact_only)?;
        max_chars = take_max_chars(&mut args)?;
        resume = take_resume(&mut args)?;
        if tool == "set_project_path" {
            normalise(&set_project_path::schema(), &mut args)?;
            return set_project_path::run(ctx, args)
                .map(Envelope::from)
                .map_err(ToolError::into_failure);
        }
        let Some(f) = facade(tool) else {
            return Err(unknown_tool(tool));
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
        answering = Some((handler.facade(), handler.name()));
        let schema = handler.marked_schema();
        check_params(*handler, &schema, &mut args).map_err(ToolError::into_failure)?;
        normalise(&schema, &mut args)?;
        // The paths confined here serve this call only (forgotten when it ends).
        let _confined = crate::project_path::CallPaths::begin();
        check_paths(ctx, &path_params(&schema), &args).map_err(ToolError::into_failure)?;
        let how = Answering {
            format,
            compact_only,
            presentation,
            budget: budget_of(max_chars, default_budget),
        };
        let (success, body) = answer(ctx, *handler, args, resume.as_ref(), &how)?;
        rendered = body;
        Ok(Envelope::from(success))
    })();
    let envelope = match outcome {
        Ok(e) => e,
        Err(f) => {
            rendered = None;
            let f = with_error_code(f, answering).with_subject(tool, identifier.as_deref());
            // Error texts and summary lines never carry the absolute project root.
            Envelope::from(
                f.redact(
                    &ctx.root()
                        .map(|r| r.display().to_string())
                        .unwrap_or_default(),
                ),
            )
        }
    };
    Reply {
        is_error: !envelope.is_success(),
        body: rendered.unwrap_or_else(|| render(&envelope, format, compact_only)),
        format,
        compact_only,
    }
}

/// The refusal of a tool name that is none of ours.
fn unknown_tool(tool: &str) -> Failure {
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
    Failure::new(
        ErrorType::UnknownTool,
        format!("Unknown tool: {}", clip(tool)),
    )
    .with_hint(hint)
    .with("available_tools", json!(tools))
}

/// Every failure of a 3.0 action names its `error_code` (from its error type when
/// the action did not name one).
fn with_error_code(f: Failure, answering: Option<(&str, &str)>) -> Failure {
    if !answering.is_some_and(|(t, a)| crate::catalog::added_in_3(t, a)) || f.has("error_code") {
        return f;
    }
    let code = match f.error_type() {
        ErrorType::Validation => "INVALID_ARGUMENT".to_owned(),
        t => t.as_str().to_uppercase(),
    };
    f.with("error_code", code)
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

/// An envelope rendered, and its size in characters as the transport writes it.
fn rendered(
    envelope: &Envelope,
    format: OutputFormat,
    compact_only: bool,
    presentation: Presentation,
) -> (usize, Map<String, Value>) {
    let body = render(envelope, format, compact_only);
    let chars = present(&body, format, compact_only, presentation)
        .chars()
        .count();
    (chars, body)
}

/// How an answer is written and the budget it must fit (with what set it).
struct Answering {
    format: OutputFormat,
    compact_only: bool,
    presentation: Presentation,
    budget: Option<(usize, String)>,
}

/// Runs the action (keeping the rows earlier pages listed when `resume` asks for a
/// later page), makes the page, then fits the budget; `next_cursor` resumes it.
/// With a budget, the answer comes with its rendering (measured to fit it).
fn answer(
    ctx: &mut Context,
    handler: &dyn DynAction,
    args: Map<String, Value>,
    resume: Option<&Resume>,
    how: &Answering,
) -> Result<(Success, Option<Map<String, Value>>), Failure> {
    let resumer = Resumer::new(ctx, handler.facade(), handler.name(), &args);
    let reach = resume.map_or(0, Resume::reach);
    let timing = crate::latency::start(handler.facade(), handler.name());
    let ran = with_reach(reach, || crate::heal::run(handler, ctx, args));
    if let Some(t) = timing {
        crate::latency::finish(t);
    }
    let mut success = ran.map_err(ToolError::into_failure)?;
    if let Some(r) = resume {
        resumer
            .page(&mut success, r)
            .map_err(ToolError::into_failure)?;
    }
    resumer.mark(&mut success);
    Ok(match &how.budget {
        Some((chars, label)) => within_budget(
            success,
            Budget {
                chars: *chars,
                label,
                format: how.format,
                compact_only: how.compact_only,
                presentation: how.presentation,
            },
            &resumer,
        ),
        None => (success, None),
    })
}

/// `output_format` and `compact_only`, taken out of the arguments.
fn take_presentation(
    tool: &str,
    help: bool,
    args: &mut Map<String, Value>,
    format: &mut OutputFormat,
    compact_only: &mut bool,
) -> Result<(), Failure> {
    if let Some(v) = args.remove("output_format") {
        *format = output_format(tool, &v, help)?;
    }
    if let Some(mut v) = args.remove("compact_only") {
        normalise_value(
            "compact_only",
            "compact_only",
            &mut v,
            &json!({"type": "boolean"}),
        )?;
        *compact_only = v.as_bool().unwrap_or_default();
    }
    Ok(())
}

/// The budget an answer must fit, and what set it (for the warning): the call's
/// `max_chars`, else the transport's default.
fn budget_of(max_chars: Option<usize>, default_budget: Option<usize>) -> Option<(usize, String)> {
    match (max_chars, default_budget) {
        (Some(n), _) => Some((n, format!("max_chars={n}"))),
        (None, Some(n)) => Some((
            n,
            format!(
                "the default budget of {n} characters (set max_chars, or start the server with tsa mcp --max-chars or MAX_MCP_OUTPUT_TOKENS)"
            ),
        )),
        (None, None) => None,
    }
}

/// `max_chars`, taken out of the arguments.
fn take_max_chars(args: &mut Map<String, Value>) -> Result<Option<usize>, Failure> {
    let Some(mut v) = args.remove("max_chars") else {
        return Ok(None);
    };
    normalise_value(
        "max_chars",
        "max_chars",
        &mut v,
        &json!({"type": "integer"}),
    )?;
    match v.as_u64() {
        Some(n) if n >= 1 => Ok(Some(n as usize)),
        _ => Err(ToolError::Validation(format!(
            "parameter 'max_chars' must be an integer >= 1, got {}",
            received(&v)
        ))
        .into_failure()),
    }
}

/// `offset` and `cursor`, taken out of the arguments (at most one of them).
fn take_resume(args: &mut Map<String, Value>) -> Result<Option<Resume>, Failure> {
    let offset = match args.remove("offset") {
        None => None,
        Some(mut v) => {
            normalise_value("offset", "offset", &mut v, &json!({"type": "integer"}))?;
            match v.as_u64() {
                Some(n) => Some(Resume::Offset(n as usize)),
                None => {
                    return Err(ToolError::Validation(format!(
                        "parameter 'offset' must be an integer >= 0, got {}",
                        received(&v)
                    ))
                    .into_failure());
                }
            }
        }
    };
    let cursor = match args.remove("cursor") {
        None => None,
        Some(Value::String(s)) => Some(Resume::Cursor(
            Cursor::parse(&s).map_err(ToolError::into_failure)?,
        )),
        Some(other) => {
            return Err(ToolError::Validation(format!(
                "parameter 'cursor' expects the next_cursor string of an earlier answer, got {}",
                received(&other)
            ))
            .into_failure());
        }
    };
    match (offset, cursor) {
        (Some(_), Some(_)) => Err(ToolError::Validation(
            "parameters 'offset' and 'cursor' both say where to resume; pass only one".into(),
        )
        .into_failure()),
        (o, c) => Ok(o.or(c)),
    }
}

/// A character budget and how the answer is written.
struct Budget<'a> {
    chars: usize,
    /// What set it, for the warning (`max_chars=N`, or the transport's default).
    label: &'a str,
    format: OutputFormat,
    compact_only: bool,
    presentation: Presentation,
}

/// `max_chars` (or a transport's default budget): drops whole rows from the end of
/// the answer's capped lists until the rendered answer fits. The lists keep their
/// exact totals, so the four-part truncation shape and the "showing X of Y"
/// next_step stay true, and `next_cursor` (rewritten after every cut) resumes at
/// the first row left out.
fn within_budget(
    success: Success,
    b: Budget<'_>,
    resumer: &Resumer,
) -> (Success, Option<Map<String, Value>>) {
    let budget = b.chars;
    let render_of = |s: &Success| {
        rendered(
            &Envelope::from(s.clone()),
            b.format,
            b.compact_only,
            b.presentation,
        )
    };
    let size_of = |s: &Success| render_of(s).0;
    let (size, body) = render_of(&success);
    if size <= budget {
        return (success, Some(body));
    }
    let mut current = success.with_warning(format!(
        "{}: whole rows were left out to fit; the counts stay exact",
        b.label
    ));
    let cut = |s: &mut Success, chars: usize| {
        let dropped = s.drop_rows(chars);
        resumer.mark(s);
        dropped
    };
    // Coarse steps (half the overshoot, measured on compact rows, so never more
    // than needed), then single rows from the last state that did not fit.
    loop {
        let (size, body) = render_of(&current);
        if size <= budget {
            return (current, Some(body));
        }
        let mut next = current.clone();
        if cut(&mut next, (size - budget) / 2) == 0 {
            let current = current.with_warning(format!(
                "{}: the answer without any listed rows is still {size} characters",
                b.label
            ));
            return (current, None);
        }
        if size_of(&next) <= budget {
            break;
        }
        current = next;
    }
    // `next` fits, so dropping single rows from `current` ends at or before it.
    while cut(&mut current, 0) > 0 {
        let (size, body) = render_of(&current);
        if size <= budget {
            return (current, Some(body));
        }
    }
    (current, None)
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
    if handler.facade() == "edit" && handler.name() == "plan_rename" {
        let refused: Vec<&str> = unknown
            .iter()
            .map(|k| k.as_str())
            .filter(|k| crate::actions::PLAN_RENAME_REFUSED.contains(k))
            .collect();
        if !refused.is_empty() {
            return Err(ToolError::Coded(Box::new(
                tsa_envelope::Failure::new(
                    tsa_envelope::ErrorType::Validation,
                    format!(
                        "PLAN_RENAME_IS_PREVIEW_ONLY: [{}] not accepted; plan_rename never writes (apply its plan_id with edit action=rename mode=apply)",
                        refused.join(", ")
                    ),
                )
                .with_hint("Drop those parameters; apply the preview with edit action=rename mode=apply plan_id=<its plan_id>.")
                .with("error_code", "PLAN_RENAME_IS_PREVIEW_ONLY"),
            )));
        }
    }
    if let Some(key) = unknown.first() {
        let close = closest(key, allowed.iter().copied());
        let hint = close
            .map(|s| format!(" — did you mean '{s}'?"))
            .unwrap_or_default();
        let error = format!(
            "unknown parameter '{}' for tool '{}' action '{}'{hint}; allowed parameters: {}",
            clip(key),
            handler.facade(),
            handler.name(),
            allowed.join(", ")
        );
        let invalid: Vec<String> = unknown.iter().map(|k| clip(k).to_owned()).collect();
        return Err(ToolError::Coded(Box::new(
            Failure::new(ErrorType::Validation, error)
                .with_hint("Fix the parameter named in `error` and retry.")
                .with("error_code", "INVALID_ARGUMENT")
                .with("invalid_arguments", json!(invalid))
                .with("allowed_arguments", json!(allowed))
                .with("suggestions", json!(close.into_iter().collect::<Vec<_>>())),
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
            crate::project_path::confine_for_call(root, p)?;
        }
    }
    Ok(())
}
