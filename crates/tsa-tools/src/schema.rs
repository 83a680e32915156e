//! `tools/list`: the 9 tools with input schemas built from the same `Args` types
//! the dispatcher deserialises and the CLI parses.

use serde_json::{Map, Value, json};

use crate::FACADES;
use crate::actions::REGISTRY;

/// One tool as MCP lists it.
#[derive(Clone, Debug)]
pub struct ToolDescription {
    pub name: &'static str,
    pub title: &'static str,
    pub description: String,
    pub input_schema: Map<String, Value>,
    pub read_only: bool,
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

/// One action of a facade as its own `Args` type describes it: what the CLI turns
/// into `tsa <facade> <action> --flag ...` with per-action help and completions.
#[derive(Clone, Debug)]
pub struct ActionDescription {
    pub facade: &'static str,
    pub name: &'static str,
    /// The one line the facade description carries for it.
    pub summary: &'static str,
    /// Accepted alternative parameter names: (alias, canonical).
    pub aliases: &'static [(&'static str, &'static str)],
    /// The JSON schema of its `Args` (the properties MCP merges into the tool's schema).
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
    out.sort_by_key(|a| a.name);
    out
}

/// The 8 facades then `set_project_path`, in that order.
pub fn tool_descriptions() -> Vec<ToolDescription> {
    let mut out = Vec::new();
    for f in &FACADES {
        let mut props = Map::new();
        props.insert(
            "action".into(),
            json!({"type": "string", "enum": f.actions, "description": "The action to run (see the tool description)."}),
        );
        let mut lines = Vec::new();
        for a in REGISTRY.iter().filter(|a| a.facade() == f.name) {
            let schema = a.schema();
            lines.push(format!(
                "{}({}): {}",
                a.name(),
                param_list(&schema),
                a.summary()
            ));
            if let Some(p) = schema.get("properties").and_then(Value::as_object) {
                for (k, v) in p {
                    props.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            for (alias, canonical) in a.aliases() {
                props.entry((*alias).to_owned()).or_insert_with(
                    || json!({"type": "string", "description": format!("Alias of {canonical}.")}),
                );
            }
        }
        props.extend(universal_properties());
        let available = crate::available_actions(f.name);
        let missing: Vec<&str> = f
            .actions
            .iter()
            .copied()
            .filter(|a| !available.contains(a))
            .collect();
        let mut description = format!("{}. Actions (* = required): {}.", f.title, lines.join("; "));
        if !missing.is_empty() {
            description.push_str(&format!(
                " Not yet available in this build (answer unsupported_action): {}.",
                missing.join(", ")
            ));
        }
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(props));
        schema.insert("required".into(), json!(["action"]));
        schema.insert("additionalProperties".into(), json!(false));
        out.push(ToolDescription {
            name: f.name,
            title: f.title,
            description,
            input_schema: schema,
            read_only: f.read_only,
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
    });
    out
}
