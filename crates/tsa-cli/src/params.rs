//! One action parameter as a CLI flag, read from the action's JSON schema (the one
//! its `Args` type gives MCP): the kind decides the clap argument (value name,
//! possible values, a switch for booleans, repetition for lists) and how the words
//! typed after the flag become the JSON value an MCP client would send.
//!
//! Values are never validated here: a wrong type or an unknown enum value reaches
//! the dispatcher, which answers the same envelope as on MCP.

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, ArgAction};
use serde_json::{Map, Value};

/// What a parameter holds, as its schema says.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Integer,
    Number,
    Bool,
    Text,
    /// One of these strings.
    Choice(Vec<String>),
    /// Strings (or choices), comma-separated or repeated; a JSON array is taken as written.
    List(Option<Vec<String>>),
    /// A JSON array of objects (batch requests), written as JSON.
    JsonList,
    /// A JSON object, written as JSON.
    Json,
    /// Anything (an untyped `Value`, which the action reads itself): passed as text.
    Any,
}

/// One flag of one action.
#[derive(Clone, Debug)]
pub struct Param {
    /// The JSON key (`function_name`).
    pub key: String,
    /// The long flag without dashes (`function-name`).
    pub long: String,
    pub kind: Kind,
    pub required: bool,
    pub help: String,
    /// The schema's default, when it states one that is not null.
    pub default: Option<String>,
    pub aliases: Vec<String>,
    /// A project path (shown as `<PATH>`): a `ProjectPath` in the action's `Args`,
    /// which the dispatcher checks against the project boundary.
    pub path: bool,
}

/// Long flags no action parameter may take (globals, clap's own, the answer options).
pub const RESERVED: [&str; 9] = [
    "help",
    "version",
    "project-root",
    "format",
    "output-format",
    "compact-only",
    "max-chars",
    "offset",
    "cursor",
];

fn kebab(key: &str) -> String {
    key.replace('_', "-")
}

/// The non-null types a schema node allows.
fn types(node: &Value) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    }
}

/// The string values an enum node allows (`enum`, or `oneOf`/`anyOf` of `const`s).
fn choices(node: &Value) -> Option<Vec<String>> {
    if let Some(e) = node.get("enum").and_then(Value::as_array) {
        return Some(
            e.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        );
    }
    if let Some(c) = node.get("const").and_then(Value::as_str) {
        return Some(vec![c.to_owned()]);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array) {
            let mut out = Vec::new();
            for b in branches {
                if types(b).is_empty() && b.get("type").is_some() {
                    continue; // {"type": "null"}
                }
                out.extend(choices(b)?);
            }
            if !out.is_empty() {
                return Some(out);
            }
        }
    }
    None
}

/// The node itself, or its one non-null `anyOf` branch (`Option<Enum>`).
fn unwrap_option(node: &Value) -> &Value {
    if node.get("type").is_none()
        && let Some(branches) = node.get("anyOf").and_then(Value::as_array)
    {
        let real: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [one] = real[..] {
            return one;
        }
    }
    node
}

fn kind_of(node: &Value) -> Kind {
    let node = unwrap_option(node);
    if let Some(c) = choices(node) {
        return Kind::Choice(c);
    }
    let t = types(node);
    match t.first().copied() {
        Some("integer") => Kind::Integer,
        Some("number") => Kind::Number,
        Some("boolean") => Kind::Bool,
        Some("string") => Kind::Text,
        Some("object") => Kind::Json,
        Some("array") => {
            let items = node.get("items").map(unwrap_option);
            match items {
                Some(i) if types(i).first() == Some(&"object") => Kind::JsonList,
                Some(i) => Kind::List(choices(i)),
                None => Kind::List(None),
            }
        }
        _ => Kind::Any,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The parameters of an action schema, in schema order (the `Args` field order),
/// with its aliases attached to their canonical parameter; `paths` names those
/// that are project paths.
pub fn params(
    action: &str,
    schema: &Map<String, Value>,
    aliases: &[(&str, &str)],
    paths: &[String],
) -> Vec<Param> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out: Vec<Param> = props
        .iter()
        .map(|(key, node)| {
            let mut long = kebab(key);
            // A parameter named like a global flag keeps its meaning under the
            // action's name (`structure read --read-format json`).
            if !action.is_empty() && RESERVED.contains(&long.as_str()) {
                long = format!("{}-{long}", kebab(action));
            }
            let mut help = one_line(
                node.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            );
            let unwrapped = unwrap_option(node);
            let range = match (
                unwrapped.get("minimum").and_then(Value::as_i64),
                unwrapped.get("maximum").and_then(Value::as_i64),
            ) {
                (Some(a), Some(b)) => format!(" [range: {a}..={b}]"),
                (Some(a), None) => format!(" [minimum: {a}]"),
                (None, Some(b)) => format!(" [maximum: {b}]"),
                (None, None) => String::new(),
            };
            help.push_str(&range);
            let default = node
                .get("default")
                .filter(|d| !d.is_null())
                .map(|d| match d {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            Param {
                key: key.clone(),
                long,
                kind: kind_of(node),
                required: required.contains(&key.as_str()),
                help,
                default,
                aliases: Vec::new(),
                path: paths.contains(key),
            }
        })
        .collect();
    for (alias, canonical) in aliases {
        let long = kebab(alias);
        let taken = RESERVED.contains(&long.as_str())
            || out
                .iter()
                .any(|p| p.long == long || p.aliases.contains(&long));
        if let Some(p) = out.iter_mut().find(|p| p.key == *canonical)
            && !taken
        {
            p.aliases.push(long);
        }
    }
    out
}

/// The answer options every action takes (`output_format`, `compact_only`, `max_chars`,
/// `offset`, `cursor`).
pub fn universal() -> Vec<Param> {
    let schema: Map<String, Value> = [(
        "properties".to_owned(),
        Value::Object(tsa_tools::universal_properties()),
    )]
    .into_iter()
    .collect();
    params("", &schema, &[], &[])
}

/// Accepts any UTF-8 word and only advertises `values` (for help and completions):
/// checking a value is the dispatcher's job, so both surfaces answer alike.
#[derive(Clone)]
struct Advertise(Vec<String>);

impl TypedValueParser for Advertise {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        if self.0.is_empty() {
            return None;
        }
        Some(Box::new(self.0.iter().map(PossibleValue::new)))
    }
}

impl Param {
    /// The clap argument of this parameter.
    pub fn arg(&self) -> Arg {
        let mut help = self.help.clone();
        match self.kind {
            Kind::List(_) => help.push_str(" [list: comma-separated, repeated, or a JSON array]"),
            Kind::JsonList => help.push_str(" [a JSON array]"),
            _ => {}
        }
        if self.required {
            help.push_str(" [required]");
        }
        let mut arg = Arg::new(self.long.clone())
            .long(self.long.clone())
            .help(help.trim_start().to_owned())
            .action(ArgAction::Set)
            .value_parser(Advertise(Vec::new()));
        for a in &self.aliases {
            arg = arg.visible_alias(a.clone());
        }
        // The JSON spelling (`--function_name`) works too, unlisted.
        if self.key.contains('_') && self.long == kebab(&self.key) {
            arg = arg.alias(self.key.clone());
        }
        if let Some(d) = &self.default {
            arg = arg.default_value(d.clone());
        }
        match &self.kind {
            Kind::Integer => arg.value_name("N").allow_negative_numbers(true),
            Kind::Number => arg.value_name("X").allow_negative_numbers(true),
            Kind::Bool => arg
                .value_name("true|false")
                .num_args(0..=1)
                .default_missing_value("true")
                .value_parser(Advertise(vec!["true".into(), "false".into()]))
                .hide_possible_values(true),
            // A text may start with a dash (`--query '-> Result'`).
            Kind::Text if self.path => arg.value_name("PATH").allow_hyphen_values(true),
            Kind::Text => arg.value_name("TEXT").allow_hyphen_values(true),
            Kind::Choice(c) => arg
                .value_name(self.long.to_uppercase())
                .value_parser(Advertise(c.clone())),
            Kind::List(choices) => arg
                .value_name(if self.path { "PATH" } else { "ITEM" })
                .action(ArgAction::Append)
                .value_parser(Advertise(choices.clone().unwrap_or_default())),
            Kind::JsonList | Kind::Json => arg.value_name("JSON"),
            Kind::Any => arg.value_name("VALUE").allow_hyphen_values(true),
        }
    }

    /// The JSON value of the words given after this flag (all its occurrences).
    pub fn value(&self, words: Vec<String>) -> Option<Value> {
        let last = words.last().cloned()?;
        Some(match &self.kind {
            Kind::Integer => last
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::String(last)),
            Kind::Number => last
                .parse::<f64>()
                .ok()
                .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
                .unwrap_or(Value::String(last)),
            Kind::Bool => match last.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::String(last),
            },
            Kind::Text | Kind::Choice(_) | Kind::Any => Value::String(last),
            Kind::List(_) => {
                let mut items = Vec::new();
                for w in words {
                    match serde_json::from_str::<Value>(&w) {
                        Ok(Value::Array(a)) if w.trim_start().starts_with('[') => items.extend(a),
                        _ => items.extend(
                            w.split(',')
                                .filter(|s| !s.is_empty())
                                .map(|s| Value::String(s.to_owned())),
                        ),
                    }
                }
                Value::Array(items)
            }
            Kind::JsonList | Kind::Json => {
                serde_json::from_str::<Value>(&last).unwrap_or(Value::String(last))
            }
        })
    }

    /// A sample value for the generated example, by kind and name.
    pub fn sample(&self) -> Option<String> {
        let k = self.key.as_str();
        Some(match &self.kind {
            Kind::Bool => return None,
            Kind::Integer => self.default.clone().unwrap_or_else(|| "5".into()),
            Kind::Number => self.default.clone().unwrap_or_else(|| "0.5".into()),
            Kind::Choice(c) => c.first()?.clone(),
            Kind::JsonList => "'[...]'".into(),
            Kind::Json => "'{...}'".into(),
            _ if self.path => "src/main.py".into(),
            _ if k.contains("name") || k.contains("symbol") || k == "function" => "main".into(),
            _ if k == "query" || k == "pattern" => "TODO".into(),
            _ => format!("<{}>", k.to_uppercase()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn kinds_follow_the_schema() {
        let s = schema(json!({
            "properties": {
                "function_name": {"type": "string"},
                "limit": {"type": ["integer", "null"], "minimum": 1, "default": null},
                "include_tests": {"type": "boolean", "default": false},
                "scope": {"anyOf": [{"oneOf": [{"type": "string", "const": "point"}, {"type": "string", "const": "graph"}]}, {"type": "null"}]},
                "kind": {"type": ["string", "null"], "enum": ["function", "class", null]},
                "roots": {"type": ["array", "null"], "items": {"type": "string"}},
                "requests": {"type": ["array", "null"], "items": {"type": "object"}},
                "start_line": {"default": null},
                "format": {"type": "string"}
            },
            "required": ["function_name"]
        }));
        let p = params("read", &s, &[("symbol", "function_name")], &[]);
        let by = |k: &str| p.iter().find(|p| p.key == k).unwrap().clone();
        assert_eq!(by("function_name").kind, Kind::Text);
        assert!(by("function_name").required);
        assert_eq!(by("function_name").aliases, ["symbol"]);
        assert_eq!(by("limit").kind, Kind::Integer);
        assert!(by("limit").help.contains("[minimum: 1]"));
        assert_eq!(by("include_tests").kind, Kind::Bool);
        assert_eq!(by("include_tests").default.as_deref(), Some("false"));
        assert_eq!(
            by("scope").kind,
            Kind::Choice(vec!["point".into(), "graph".into()])
        );
        assert_eq!(
            by("kind").kind,
            Kind::Choice(vec!["function".into(), "class".into()])
        );
        assert_eq!(by("roots").kind, Kind::List(None));
        assert_eq!(by("requests").kind, Kind::JsonList);
        assert_eq!(by("start_line").kind, Kind::Any);
        assert_eq!(by("format").long, "read-format");
    }

    #[test]
    fn words_become_the_json_an_mcp_client_sends() {
        let p = |kind: Kind| Param {
            key: "x".into(),
            long: "x".into(),
            kind,
            required: false,
            help: String::new(),
            default: None,
            aliases: Vec::new(),
            path: false,
        };
        let w = |s: &[&str]| s.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(p(Kind::Integer).value(w(&["3"])), Some(json!(3)));
        assert_eq!(p(Kind::Integer).value(w(&["abc"])), Some(json!("abc")));
        assert_eq!(p(Kind::Number).value(w(&["0.5"])), Some(json!(0.5)));
        assert_eq!(p(Kind::Bool).value(w(&["true"])), Some(json!(true)));
        assert_eq!(p(Kind::Bool).value(w(&["false"])), Some(json!(false)));
        assert_eq!(p(Kind::Bool).value(w(&["maybe"])), Some(json!("maybe")));
        assert_eq!(
            p(Kind::List(None)).value(w(&["a,b", "c", "[\"d\",\"e\"]"])),
            Some(json!(["a", "b", "c", "d", "e"]))
        );
        assert_eq!(
            p(Kind::JsonList).value(w(&["[{\"pattern\":\"x\"}]"])),
            Some(json!([{"pattern": "x"}]))
        );
        assert_eq!(p(Kind::Any).value(w(&["2.5"])), Some(json!("2.5")));
        assert_eq!(p(Kind::Text).value(Vec::new()), None);
    }
}
