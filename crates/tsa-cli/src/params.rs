//! Turns `tool action --some-param value ...` into the JSON arguments of an MCP
//! call, typed by the tool's input schema (the same schema MCP advertises).

use serde_json::{Map, Value};
use tsa_tools::tool_descriptions;

/// A parsed command line.
pub struct Call {
    pub tool: String,
    pub args: Map<String, Value>,
}

/// Why no call was made.
pub enum Parsed {
    Help(String),
    Invalid(String),
}

fn tools_help() -> String {
    let mut s = String::from("Tools (tsa <tool> <action> --param value ...):\n");
    for t in tool_descriptions() {
        s.push_str(&format!("  {:<17} {}\n", t.name, t.title));
    }
    s
}

fn tool_help(name: &str) -> Option<String> {
    let t = tool_descriptions().into_iter().find(|t| t.name == name)?;
    let mut s = format!(
        "tsa {name}: {}\n\n{}\n\nParameters (as --kebab-case flags):\n",
        t.title, t.description
    );
    if let Some(props) = t.input_schema.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            let ty = v.get("type").and_then(Value::as_str).unwrap_or("string");
            let desc = v.get("description").and_then(Value::as_str).unwrap_or("");
            s.push_str(&format!(
                "  --{:<22} {:<8} {}\n",
                k.replace('_', "-"),
                ty,
                desc.replace('\n', " ")
            ));
        }
    }
    Some(s)
}

/// Parses `words` = `[tool, action?, --flag value, ...]`.
pub fn parse(words: &[String]) -> Result<Call, Parsed> {
    let Some(tool) = words.first() else {
        return Err(Parsed::Help(tools_help()));
    };
    if words.iter().any(|w| w == "--help" || w == "-h") {
        return Err(Parsed::Help(tool_help(tool).unwrap_or_else(tools_help)));
    }
    let schema = tool_descriptions()
        .into_iter()
        .find(|t| t.name == tool)
        .map(|t| t.input_schema);
    let prop_type = |key: &str| -> &'static str {
        let ty = schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(key))
            .and_then(|p| p.get("type"))
            .and_then(|t| match t {
                Value::String(s) => Some(s.clone()),
                Value::Array(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .find(|s| *s != "null")
                    .map(str::to_owned),
                _ => None,
            });
        match ty.as_deref() {
            Some("integer") => "integer",
            Some("number") => "number",
            Some("boolean") => "boolean",
            Some("array") => "array",
            _ => "string",
        }
    };
    let mut args = Map::new();
    let mut rest = &words[1..];
    if let Some(first) = rest.first()
        && !first.starts_with("--")
    {
        args.insert("action".into(), Value::String(first.clone()));
        rest = &rest[1..];
    }
    while let Some(flag) = rest.first() {
        let Some(name) = flag.strip_prefix("--") else {
            return Err(Parsed::Invalid(format!(
                "tsa {tool}: unexpected argument '{flag}' (parameters are --name value)"
            )));
        };
        let (name, inline) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (name, None),
        };
        let key = name.replace('-', "_");
        let key = if key == "format" {
            "output_format".to_owned()
        } else {
            key
        };
        rest = &rest[1..];
        let ty = prop_type(&key);
        let value = match inline {
            Some(v) => Some(v),
            None if ty == "boolean" => match rest.first().map(String::as_str) {
                Some("true") | Some("false") => {
                    let v = rest[0].clone();
                    rest = &rest[1..];
                    Some(v)
                }
                _ => None,
            },
            None => match rest.first() {
                Some(v) if !v.starts_with("--") => {
                    let v = v.clone();
                    rest = &rest[1..];
                    Some(v)
                }
                _ => None,
            },
        };
        let typed = match (ty, value) {
            ("boolean", None) => Value::Bool(true),
            ("boolean", Some(v)) => match v.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::String(v),
            },
            (_, None) => {
                return Err(Parsed::Invalid(format!(
                    "tsa {tool}: --{name} needs a value"
                )));
            }
            ("integer", Some(v)) => v
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::String(v)),
            ("number", Some(v)) => v
                .parse::<f64>()
                .map(Value::from)
                .unwrap_or(Value::String(v)),
            // A JSON array (`--queries '[{"pattern":"x"},...]'`) is taken as written.
            ("array", Some(v))
                if v.trim_start().starts_with('[')
                    && serde_json::from_str::<Vec<Value>>(&v).is_ok() =>
            {
                serde_json::from_str::<Value>(&v).unwrap_or(Value::Array(Vec::new()))
            }
            ("array", Some(v)) => {
                let mut items: Vec<Value> = match args.remove(&key) {
                    Some(Value::Array(a)) => a,
                    _ => Vec::new(),
                };
                items.extend(
                    v.split(',')
                        .filter(|s| !s.is_empty())
                        .map(|s| Value::String(s.to_owned())),
                );
                Value::Array(items)
            }
            (_, Some(v)) => Value::String(v),
        };
        args.insert(key, typed);
    }
    Ok(Call {
        tool: tool.clone(),
        args,
    })
}
