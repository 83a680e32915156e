//! `tools/list`: the 9 tools, kept small (each action named with its main
//! parameters and a few words), and each action's own schema, built from the same
//! `Args` types the dispatcher deserialises, `help` returns and the CLI parses.

use serde_json::{Map, Value, json};

use crate::actions::REGISTRY;
use crate::{FACADES, Facade};

/// One tool as MCP lists it.
#[derive(Clone, Debug)]
pub struct ToolDescription {
    pub name: &'static str,
    pub title: &'static str,
    pub description: String,
    pub input_schema: Map<String, Value>,
    pub read_only: bool,
    /// Some action writes project files (`edit rename` mode=apply).
    pub destructive: bool,
}

fn param_list(schema: &Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.keys()
                .map(|k| {
                    if required.contains(&k.as_str()) {
                        format!("{k}*")
                    } else {
                        k.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The schemas of the parameters every action accepts (`dispatch::UNIVERSAL_PARAMS`).
pub fn universal_properties() -> Map<String, Value> {
    let mut props = Map::new();
    props.insert(
        "output_format".into(),
        json!({"type": "string", "enum": ["toon", "json"], "description": "toon (default on MCP: official TOON v4 in toon_content) or json."}),
    );
    props.insert(
        "compact_only".into(),
        json!({"type": "boolean", "description": "With toon: keep only the control surface keys beside toon_content."}),
    );
    props.insert(
        "max_chars".into(),
        json!({"type": "integer", "minimum": 1, "description": "Character budget of the whole answer: whole list rows are dropped to fit, counts stay exact (MCP default 40000)."}),
    );
    props.insert(
        "offset".into(),
        json!({"type": "integer", "minimum": 0, "description": "Resume: skip this many rows of every capped list (same totals)."}),
    );
    props.insert(
        "cursor".into(),
        json!({"type": "string", "description": "Resume: the next_cursor of an earlier answer to the same call; its next rows, same totals."}),
    );
    props
}

/// The action every facade answers besides its own (`help.rs`): the facade's
/// actions with their reference, or one action's exact input schema.
pub const HELP: &str = "help";

/// Its line in the CLI's list of actions.
pub const HELP_SUMMARY: &str =
    "this tool's actions with their reference, or the exact input schema of one (target_action)";

/// The schema of help's own parameters.
pub fn help_args_schema() -> Map<String, Value> {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "target_action": {
                "type": "string",
                "description": "The action to describe; without it, the list of actions."
            }
        },
        "additionalProperties": false
    });
    if let Value::Object(m) = &mut schema {
        crate::arguments::annotate(m);
    }
    match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// One action of a facade as its own `Args` type describes it: what the CLI turns
/// into `tsa <facade> <action> --flag ...` with per-action help and completions.
#[derive(Clone, Debug)]
pub struct ActionDescription {
    pub facade: &'static str,
    pub name: &'static str,
    /// Its one line: the CLI's list of actions and bare `help`'s reference.
    pub summary: &'static str,
    /// Accepted alternative parameter names: (alias, canonical).
    pub aliases: &'static [(&'static str, &'static str)],
    /// The JSON schema of its `Args` (what the dispatcher checks; `help` returns it
    /// as `action_schema` with `action`, the universal parameters and the aliases).
    pub input_schema: Map<String, Value>,
    /// The parameters that are project paths (`ProjectPath` in its `Args`).
    pub path_params: Vec<String>,
}

/// The actions of `facade` this build answers, sorted by name (`set_project_path`
/// is one action of its own, named like the tool).
pub fn action_descriptions(facade: &str) -> Vec<ActionDescription> {
    if facade == "set_project_path" {
        return vec![ActionDescription {
            facade: "set_project_path",
            name: "set_project_path",
            summary: "Set the project root: an absolute path to an existing directory, not the filesystem root.",
            aliases: &[],
            input_schema: crate::actions::set_project_path::schema(),
            path_params: Vec::new(),
        }];
    }
    let mut out: Vec<ActionDescription> = REGISTRY
        .iter()
        .filter(|a| a.facade() == facade)
        .map(|a| ActionDescription {
            facade: a.facade(),
            name: a.name(),
            summary: a.summary(),
            aliases: a.aliases(),
            input_schema: a.schema(),
            path_params: a.path_params(),
        })
        .collect();
    if crate::catalog::facade(facade).is_some() {
        out.push(ActionDescription {
            facade: crate::catalog::facade(facade).map_or("", |f| f.name),
            name: HELP,
            summary: HELP_SUMMARY,
            aliases: &[],
            input_schema: help_args_schema(),
            path_params: Vec::new(),
        });
    }
    out.sort_by_key(|a| a.name);
    out
}

/// What `tools/list` may spend on the tools' names, descriptions and schemas;
/// MCP adds about 150 characters of annotations per tool, so the whole list stays
/// under 12,000 characters.
const LIST_BUDGET: usize = 10_200;

/// A facade's full per-action reference: every action with its parameters (`*` =
/// required) and its summary. `help` answers it; `tools/list` carries the short form.
pub fn long_description(f: &Facade) -> String {
    let lines: Vec<String> = REGISTRY
        .iter()
        .filter(|a| a.facade() == f.name)
        .map(|a| format!("{}({}): {}", a.name(), param_list(&a.schema()), a.summary()))
        .collect();
    let mut description = format!("{}. Actions (* = required): {}.", f.title, lines.join("; "));
    let available = crate::available_actions(f.name);
    let missing: Vec<&str> = f
        .actions
        .iter()
        .copied()
        .filter(|a| !available.contains(a))
        .collect();
    if !missing.is_empty() {
        description.push_str(&format!(
            " Not yet available in this build (answer unsupported_action): {}.",
            missing.join(", ")
        ));
    }
    description
}

/// The most parameter names an action shows in `tools/list` (required ones
/// first); `help` lists them all.
const LISTED_PARAMS: usize = 3;

/// An action's parameter names for `tools/list`: the required ones (`*`), then
/// the others in declaration order, at most [`LISTED_PARAMS`], `…` when cut.
fn short_param_list(schema: &Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let keys: Vec<&str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<String> = required.iter().map(|k| format!("{k}*")).collect();
    names.extend(
        keys.iter()
            .filter(|k| !required.contains(k))
            .map(|k| (*k).to_owned()),
    );
    if names.len() > LISTED_PARAMS {
        names.truncate(LISTED_PARAMS);
        names.push("…".into());
    }
    names.join(",")
}

/// The short form `tools/list` carries: one line of purpose, then every action
/// with its main parameter names (`*` = required) and a few words.
fn short_description(f: &Facade) -> String {
    let lines: Vec<String> = REGISTRY
        .iter()
        .filter(|a| a.facade() == f.name)
        .map(|a| {
            format!(
                "{}({}): {}",
                a.name(),
                short_param_list(&a.schema()),
                a.brief()
            )
        })
        .collect();
    let universal: Vec<String> = universal_properties().keys().cloned().collect();
    format!(
        "{}. Actions: {}; help(target_action): an action's full schema. Any action also takes {}.",
        f.title,
        lines.join("; "),
        universal.join(",")
    )
}

/// The `action` enum of a facade: its actions and `help`, sorted.
fn action_enum(f: &Facade) -> Vec<&'static str> {
    let mut actions = f.actions.to_vec();
    actions.push(HELP);
    actions.sort_unstable();
    actions
}

/// A parameter as `tools/list` shows it: its type (`null` left out) and, when
/// every action of the facade that takes it says the same, the first clause of its
/// description; `None` when the actions give it different types.
fn brief_property(f: &Facade, name: &str) -> Option<Value> {
    let mut ty: Option<Value> = None;
    let mut text: Option<String> = None;
    for a in REGISTRY.iter().filter(|a| a.facade() == f.name) {
        let schema = a.schema();
        let Some(p) = schema.get("properties").and_then(|p| p.get(name)) else {
            continue;
        };
        let t = non_null(p.get("type"));
        match &ty {
            None => ty = Some(t),
            Some(seen) if *seen != t => return None,
            Some(_) => {}
        }
        let clause = first_clause(p.get("description").and_then(Value::as_str).unwrap_or(""));
        match &text {
            None => text = Some(clause),
            Some(seen) if *seen != clause => text = Some(String::new()),
            Some(_) => {}
        }
    }
    let mut prop = Map::new();
    prop.insert("type".into(), ty.filter(|t| !t.is_null())?);
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        prop.insert("description".into(), Value::String(text));
    }
    Some(Value::Object(prop))
}

/// A schema `type` without `null` (`["integer", "null"]` is `"integer"`).
fn non_null(ty: Option<&Value>) -> Value {
    match ty {
        Some(Value::Array(types)) => {
            let kept: Vec<&Value> = types
                .iter()
                .filter(|t| t.as_str() != Some("null"))
                .collect();
            match kept.as_slice() {
                [one] => (*one).clone(),
                _ => Value::Array(kept.into_iter().cloned().collect()),
            }
        }
        Some(t) => t.clone(),
        None => Value::Null,
    }
}

/// The first sentence or clause of a description, at most 48 characters (else
/// nothing).
fn first_clause(text: &str) -> String {
    let end = text.find(['.', ';', '(', ':']).unwrap_or(text.len());
    let clause = text[..end].trim();
    if clause.chars().count() <= 48 {
        clause.to_owned()
    } else {
        String::new()
    }
}

/// The parameters of a facade's actions, most used first (then by name).
fn parameters_by_use(f: &Facade) -> Vec<String> {
    let mut uses: Vec<(usize, String)> = Vec::new();
    for a in REGISTRY.iter().filter(|a| a.facade() == f.name) {
        for k in a
            .schema()
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|p| p.keys())
        {
            match uses.iter_mut().find(|(_, n)| n == k) {
                Some((n, _)) => *n += 1,
                None => uses.push((1, k.clone())),
            }
        }
    }
    uses.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    uses.into_iter().map(|(_, k)| k).collect()
}

fn listed_chars(tools: &[ToolDescription]) -> usize {
    tools
        .iter()
        .map(|t| {
            json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema})
                .to_string()
                .chars()
                .count()
        })
        .sum()
}

/// Adds parameter schemas to the facades' input schemas while the list stays
/// within [`LIST_BUDGET`]: round by round, each facade's next most used parameter.
fn fill_parameters(tools: &mut [ToolDescription]) {
    let queues: Vec<Vec<String>> = FACADES.iter().map(parameters_by_use).collect();
    let mut used = listed_chars(tools);
    let rounds = queues.iter().map(Vec::len).max().unwrap_or(0);
    for round in 0..rounds {
        for (i, f) in FACADES.iter().enumerate() {
            let Some(name) = queues[i].get(round) else {
                continue;
            };
            let Some(prop) = brief_property(f, name) else {
                continue;
            };
            // `"name":{...},` inside the properties object.
            let cost = name.chars().count() + prop.to_string().chars().count() + 4;
            if used + cost > LIST_BUDGET {
                continue;
            }
            if let Some(Value::Object(props)) = tools[i].input_schema.get_mut("properties") {
                props.insert(name.clone(), prop);
                used += cost;
            }
        }
    }
}

/// The 8 facades then `set_project_path`, in that order. Each facade lists its
/// actions (with `help`), `target_action`, and what fits of its parameters; the
/// dispatcher checks every argument against the action's own schema, which
/// `action=help` returns.
pub fn tool_descriptions() -> Vec<ToolDescription> {
    let mut out = Vec::new();
    for f in &FACADES {
        let mut props = Map::new();
        props.insert(
            "action".into(),
            json!({"type": "string", "enum": action_enum(f)}),
        );
        props.insert(
            "target_action".into(),
            json!({"type": "string", "description": "action to describe when action is help"}),
        );
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(props));
        schema.insert("required".into(), json!(["action"]));
        schema.insert("additionalProperties".into(), json!(true));
        out.push(ToolDescription {
            name: f.name,
            title: f.title,
            description: short_description(f),
            input_schema: schema,
            read_only: f.read_only,
            destructive: f.destructive,
        });
    }
    let spp = crate::actions::set_project_path::schema();
    out.push(ToolDescription {
        name: "set_project_path",
        title: "Set the project root",
        description: "Set the project root (an absolute path to an existing directory, not the filesystem root). \
                      Every path argument of every tool is then confined to it."
            .into(),
        input_schema: spp,
        read_only: false,
        destructive: false,
    });
    fill_parameters(&mut out);
    out
}
