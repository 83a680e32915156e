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
            json!({"type": "integer", "minimum": 1, "description": "Character budget of the whole answer: whole list rows are dropped to fit, counts stay exact."}),
        );
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
