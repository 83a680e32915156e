//! Arguments as clients send them, made exact before an action sees them, driven
//! by the action's JSON schema: every string has a length limit by the kind of
//! parameter (stated in the schema as `maxLength`, every list as `maxItems`), and
//! an integer, number or boolean also accepts its plain string form (`"2"`,
//! `"2.0"`, `"true"`), a list a single item. Anything else is refused with the
//! parameter, the type it expects and (cut short) the value received.

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};
use tsa_analysis::suggest::clip;
use tsa_envelope::{ErrorType, Failure};

use crate::project_path::is_path_schema;

/// What a string parameter holds, which decides its length limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A symbol, function or class name, an id, a language, a mode, a git
    /// revision: every string parameter not named below.
    Name,
    /// A project path (a `ProjectPath` in the `Args`, marked in the schema), or
    /// `focus` and `project_path`.
    Path,
    /// A glob ([`GLOB_PARAMS`]): compiled into one matcher for every file, its
    /// cost grows faster than its length.
    Glob,
    /// A query, pattern, selector or prose ([`TEXT_PARAMS`]).
    Text,
    /// Source code passed inline (`edit ast_diff` `old_source`/`new_source`).
    Source,
}

impl Kind {
    /// The most characters (Unicode scalar values, as JSON Schema counts) a value
    /// of this kind may have.
    pub const fn max_chars(self) -> usize {
        match self {
            Kind::Name | Kind::Glob => 1_024,
            Kind::Path => 4_096,
            Kind::Text => 65_536,
            Kind::Source => 262_144,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Kind::Name => "a name",
            Kind::Path => "a path",
            Kind::Glob => "a glob",
            Kind::Text => "a query, pattern or text",
            Kind::Source => "inline source text",
        }
    }
}

/// The most items a list parameter may have.
pub const MAX_ITEMS: usize = 256;

/// String parameters that hold globs.
const GLOB_PARAMS: &[&str] = &[
    "doc_patterns",
    "exclude",
    "exclude_globs",
    "exclude_patterns",
    "include_globs",
    "path_filter",
];

/// String parameters that hold queries, patterns, selectors or prose.
const TEXT_PARAMS: &[&str] = &[
    "add_notes",
    "alternatives",
    "filter",
    "pattern",
    "pr_url",
    "query",
    "query_string",
    "rationale",
    "selector",
    "task",
    "title",
    "url_pattern",
];

/// String parameters that hold source code.
const SOURCE_PARAMS: &[&str] = &["new_source", "old_source"];

/// The kind of the parameter named `param` (list items take their list's kind),
/// when its schema does not mark it as a project path.
pub fn kind_of(param: &str) -> Kind {
    if SOURCE_PARAMS.contains(&param) {
        Kind::Source
    } else if TEXT_PARAMS.contains(&param) {
        Kind::Text
    } else if GLOB_PARAMS.contains(&param) {
        Kind::Glob
    } else if matches!(param, "focus" | "project_path") {
        Kind::Path
    } else {
        Kind::Name
    }
}

/// The kind of the value of `param` whose schema is `schema`: a project path when
/// the schema marks it so, else by the parameter's name.
fn kind_in(param: &str, schema: &Value) -> Kind {
    if is_path_schema(schema) {
        Kind::Path
    } else {
        kind_of(param)
    }
}

/// The hint of every length refusal: all the limits.
fn limits_hint() -> String {
    format!(
        "Pass a shorter value. Limits, in characters: names (symbols, ids, languages, \
         modes, revisions) {}, globs {}, paths {}, queries, patterns, selectors and prose \
         {}, inline source {}; lists {} items.",
        group(Kind::Name.max_chars()),
        group(Kind::Glob.max_chars()),
        group(Kind::Path.max_chars()),
        group(Kind::Text.max_chars()),
        group(Kind::Source.max_chars()),
        group(MAX_ITEMS),
    )
}

/// `1048576` -> `1,048,576`.
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Adds `maxLength` to every property of `schema` that may be a string and
/// `maxItems` to every list (items and nested objects too), by the property's
/// kind, unless the action's `Args` state their own.
pub fn annotate(schema: &mut Map<String, Value>) {
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            annotate_property(name, prop);
        }
    }
}

fn annotate_property(name: &str, prop: &mut Value) {
    let types = types_of(prop);
    let kind = kind_in(name, prop);
    let Value::Object(map) = prop else { return };
    if types.as_ref().is_none_or(|t| t.contains("string")) {
        map.entry("maxLength")
            .or_insert_with(|| Value::from(kind.max_chars()));
    }
    if types.as_ref().is_some_and(|t| t.contains("array")) {
        map.entry("maxItems")
            .or_insert_with(|| Value::from(MAX_ITEMS));
        if let Some(items) = map.get_mut("items") {
            match items.get("properties") {
                Some(_) => {
                    if let Value::Object(item) = items {
                        annotate(item);
                    }
                }
                None => annotate_property(name, items),
            }
        }
    }
    if map.contains_key("properties") {
        annotate(map);
    }
}

/// Makes `args` exact against `schema` (the action's, annotated): typed values in
/// their string forms are converted, single items wrapped in a list, limits
/// checked. Keys the schema does not list are left alone (the strict check
/// refuses them before this runs).
pub fn normalise(
    schema: &Map<String, Value>,
    args: &mut Map<String, Value>,
) -> Result<(), Failure> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, value) in args.iter_mut() {
        if let Some(prop) = props.get(key) {
            normalise_value(key, key, value, prop)?;
        }
    }
    Ok(())
}

/// [`normalise`] for one value of `schema`; `param` names its top-level parameter
/// (for the kind), `path` the value itself (`queries[1].pattern`).
pub fn normalise_value(
    param: &str,
    path: &str,
    value: &mut Value,
    schema: &Value,
) -> Result<(), Failure> {
    if let Some(types) = types_of(schema)
        && !fits(value, &types)
    {
        match coerced(value, &types, find(schema, "items")) {
            Some(v) => *value = v,
            None => return Err(wrong_type(path, schema, &types, value)),
        }
    }
    match value {
        Value::String(s) => {
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
                let max = max as usize;
                // Bytes bound characters from above: count only when it may matter,
                // and never past the limit.
                if s.len() > max && s.chars().nth(max).is_some() {
                    return Err(too_long(param, path, schema, s.chars().count(), max));
                }
            }
        }
        Value::Array(items) => {
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && items.len() > max as usize
            {
                return Err(Failure::new(
                    ErrorType::Validation,
                    format!(
                        "parameter '{path}' has {} items; the limit is {} items",
                        group(items.len()),
                        group(max as usize)
                    ),
                )
                .with_hint(limits_hint())
                .with("parameter", path)
                .with("limit", max));
            }
            if let Some(item_schema) = find(schema, "items") {
                for (i, item) in items.iter_mut().enumerate() {
                    normalise_value(param, &format!("{path}[{i}]"), item, item_schema)?;
                }
            }
        }
        Value::Object(map) => {
            if let Some(props) = find(schema, "properties").and_then(Value::as_object) {
                for (k, v) in map.iter_mut() {
                    if let Some(p) = props.get(k) {
                        normalise_value(k, &format!("{path}.{k}"), v, p)?;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// `key` of `schema`, or of the first of its `anyOf`/`oneOf` branches that has it.
fn find<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema.get(key).or_else(|| {
        ["anyOf", "oneOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(Value::as_array))
            .flatten()
            .find_map(|b| find(b, key))
    })
}

/// The JSON types `schema` admits; `None` when it does not restrict them.
fn types_of(schema: &Value) -> Option<BTreeSet<&'static str>> {
    const TYPES: [&str; 7] = [
        "null", "boolean", "integer", "number", "string", "array", "object",
    ];
    let named = |t: &str| TYPES.iter().copied().find(|k| *k == t);
    let Value::Object(map) = schema else {
        return None;
    };
    match map.get("type") {
        Some(Value::String(t)) => return Some(named(t).into_iter().collect()),
        Some(Value::Array(ts)) => {
            return Some(
                ts.iter()
                    .filter_map(Value::as_str)
                    .filter_map(named)
                    .collect(),
            );
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = map.get(key).and_then(Value::as_array) {
            let mut all = BTreeSet::new();
            for b in branches {
                all.extend(types_of(b)?);
            }
            return Some(all);
        }
    }
    let consts: Vec<&Value> = match (map.get("const"), map.get("enum")) {
        (Some(c), _) => vec![c],
        (None, Some(Value::Array(e))) => e.iter().collect(),
        _ => return None,
    };
    Some(consts.into_iter().map(type_name).collect())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `value` is of one of `types` as it stands (an integer is a number too).
fn fits(value: &Value, types: &BTreeSet<&'static str>) -> bool {
    match type_name(value) {
        "integer" => types.contains("integer") || types.contains("number"),
        t => types.contains(t),
    }
}

/// The value a client meant, when its form is one of the accepted near misses;
/// `items` is the item schema when a list is meant.
fn coerced(value: &Value, types: &BTreeSet<&'static str>, items: Option<&Value>) -> Option<Value> {
    match value {
        Value::String(s) => {
            let t = s.trim();
            if types.contains("integer")
                && let Some(n) = integer(t)
            {
                return Some(n);
            }
            if types.contains("number")
                && let Some(n) = integer(t).or_else(|| {
                    t.parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .and_then(Number::from_f64)
                        .map(Value::Number)
                })
            {
                return Some(n);
            }
            if types.contains("boolean") {
                if t.eq_ignore_ascii_case("true") {
                    return Some(Value::Bool(true));
                }
                if t.eq_ignore_ascii_case("false") {
                    return Some(Value::Bool(false));
                }
            }
        }
        // `2.0` where an integer is meant.
        Value::Number(n) if types.contains("integer") => {
            if let Some(v) = n.as_f64().and_then(integral) {
                return Some(v);
            }
        }
        _ => {}
    }
    // One item where a list is meant, when it is (or reads as) an item.
    if types.contains("array") && !value.is_array() && !value.is_null() {
        let item_types = items.and_then(types_of);
        let is_item = item_types.as_ref().is_none_or(|t| {
            fits(value, t) || coerced(value, t, items.and_then(|i| find(i, "items"))).is_some()
        });
        if is_item {
            return Some(Value::Array(vec![value.clone()]));
        }
    }
    None
}

/// `"2"`, `"-3"`, `"2.0"`, `"1e3"` as an integer; not `"2.5"`, `"NaN"` or `""`.
fn integer(s: &str) -> Option<Value> {
    if let Ok(i) = s.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = s.parse::<u64>() {
        return Some(Value::from(u));
    }
    s.parse::<f64>().ok().and_then(integral)
}

fn integral(f: f64) -> Option<Value> {
    // Within i64 and exactly representable: |f| < 2^63.
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 9.223_372_036_854_776e18)
        .then(|| Value::from(f as i64))
}

fn too_long(param: &str, path: &str, schema: &Value, chars: usize, max: usize) -> Failure {
    let kind = kind_in(param, schema);
    let what = if kind.max_chars() == max {
        format!(" ({})", kind.what())
    } else {
        String::new()
    };
    Failure::new(
        ErrorType::Validation,
        format!(
            "parameter '{path}' is {} characters long; the limit is {} characters{what}",
            group(chars),
            group(max)
        ),
    )
    .with_hint(limits_hint())
    .with("parameter", path)
    .with("limit", max)
}

/// `a string`, `an integer or a string`, `a list of strings`: what `types` (of
/// `schema`) admit, in words.
fn expected(schema: &Value, types: &BTreeSet<&'static str>) -> String {
    let words: Vec<String> = types
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "boolean" => "a boolean (true or false)".to_owned(),
            "integer" => "an integer".to_owned(),
            "number" => "a number".to_owned(),
            "string" => "a string".to_owned(),
            "array" => match find(schema, "items").and_then(types_of) {
                Some(items) if items.len() == 1 => {
                    let plural = match items.iter().next().copied() {
                        Some("boolean") => "booleans",
                        Some("integer") => "integers",
                        Some("number") => "numbers",
                        Some("string") => "strings",
                        Some("object") => "objects",
                        _ => "lists",
                    };
                    format!("a list of {plural}")
                }
                _ => "a list".to_owned(),
            },
            _ => "an object".to_owned(),
        })
        .collect();
    if words.is_empty() {
        "null".to_owned()
    } else {
        words.join(" or ")
    }
}

fn wrong_type(
    path: &str,
    schema: &Value,
    types: &BTreeSet<&'static str>,
    value: &Value,
) -> Failure {
    let expected = expected(schema, types);
    Failure::new(
        ErrorType::Validation,
        format!(
            "parameter '{path}' expects {expected}; got {}",
            received(value)
        ),
    )
    .with_hint(format!(
        "Pass '{path}' as {expected}. Integers, numbers and booleans may also be sent as \
         plain strings (\"2\", \"2.0\", \"true\"), and a list as one item."
    ))
    .with("parameter", path)
}

/// `value` as an error message shows it: its kind and its JSON text, cut to
/// [`SHOWN_CHARS`](tsa_analysis::suggest::SHOWN_CHARS) characters (with the full length when cut).
pub fn received(value: &Value) -> String {
    let (kind, text) = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(b) => return format!("the boolean {b}"),
        Value::Number(n) => return format!("the number {n}"),
        Value::String(s) => {
            let head = clip(s);
            if head.len() == s.len() {
                return format!("the string {value}");
            }
            return format!(
                "the string {}… ({} characters)",
                Value::from(head),
                group(s.chars().count())
            );
        }
        Value::Array(_) => ("a list", value.to_string()),
        Value::Object(_) => ("an object", value.to_string()),
    };
    let head = clip(&text);
    if head.len() == text.len() {
        format!("{kind} {text}")
    } else {
        format!(
            "{kind} {head}… ({} characters of JSON)",
            group(text.chars().count())
        )
    }
}

/// `message` (a deserialiser's) with every `quoted` run longer than
/// [`SHOWN_CHARS`](tsa_analysis::suggest::SHOWN_CHARS) cut short: what it echoes of a received value stays short.
pub fn shorten(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            let head = clip(part);
            if i % 2 == 1 && head.len() < part.len() {
                format!("{head}… ({} characters)", group(part.chars().count()))
            } else {
                part.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        let mut s = json!({
            "type": "object",
            "properties": {
                "function_name": {"type": "string"},
                "file_path": {"type": ["string", "null"], "x-tsa-project-path": true},
                "query": {"type": ["string", "null"]},
                "old_source": {"type": ["string", "null"]},
                "limit": {"type": ["integer", "null"]},
                "threshold": {"type": ["number", "null"]},
                "include_tests": {"type": ["boolean", "null"]},
                "fixed": {"type": "boolean", "default": false},
                "symbols": {"type": ["array", "null"], "items": {"type": "string"}},
                "mode": {"anyOf": [{"oneOf": [{"type": "string", "const": "point"}]}, {"type": "null"}]},
                "start_line": {"description": "int or string"},
                "queries": {"type": "array", "items": {"type": "object", "properties": {
                    "pattern": {"type": "string"},
                    "roots": {"type": ["array", "null"], "items": {"type": "string", "x-tsa-project-path": true}}
                }}}
            }
        });
        let mut m = s.as_object_mut().unwrap().clone();
        annotate(&mut m);
        m
    }

    fn norm(args: Value) -> Result<Value, String> {
        let mut a = args.as_object().unwrap().clone();
        normalise(&schema(), &mut a)
            .map(|()| Value::Object(a))
            .map_err(|f| f.error().to_owned())
    }

    #[test]
    fn the_schema_states_each_limit_by_kind() {
        let s = schema();
        let p = &s["properties"];
        assert_eq!(p["function_name"]["maxLength"], 1_024);
        assert_eq!(p["file_path"]["maxLength"], 4_096);
        assert_eq!(p["query"]["maxLength"], 65_536);
        assert_eq!(p["old_source"]["maxLength"], 262_144);
        assert_eq!(p["mode"]["maxLength"], 1_024);
        assert_eq!(p["start_line"]["maxLength"], 1_024);
        assert!(p["limit"].get("maxLength").is_none());
        assert_eq!(p["symbols"]["maxItems"], 256);
        assert_eq!(p["symbols"]["items"]["maxLength"], 1_024);
        let item = &p["queries"]["items"]["properties"];
        assert_eq!(item["pattern"]["maxLength"], 65_536);
        assert_eq!(item["roots"]["items"]["maxLength"], 4_096);
    }

    #[test]
    fn a_limit_the_args_state_is_kept() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Args {
            #[schemars(length(max = 10))]
            query: Option<String>,
            name: String,
        }
        let mut s = crate::action::schema_of::<Args>();
        annotate(&mut s);
        assert_eq!(s["properties"]["query"]["maxLength"], 10);
        assert_eq!(s["properties"]["name"]["maxLength"], 1_024);
        let mut args = json!({"query": "x".repeat(11), "name": "n"})
            .as_object()
            .unwrap()
            .clone();
        let e = normalise(&s, &mut args).unwrap_err();
        assert_eq!(
            e.error(),
            "parameter 'query' is 11 characters long; the limit is 10 characters"
        );
    }

    #[test]
    fn plain_string_forms_are_taken_for_typed_values() {
        let v = norm(json!({
            "limit": "2", "threshold": "0.5", "include_tests": "true", "fixed": "FALSE",
            "symbols": "build", "queries": {"pattern": "x", "roots": "app"}
        }))
        .unwrap();
        assert_eq!(
            v,
            json!({
                "limit": 2, "threshold": 0.5, "include_tests": true, "fixed": false,
                "symbols": ["build"], "queries": [{"pattern": "x", "roots": ["app"]}]
            })
        );
        assert_eq!(norm(json!({"limit": "2.0"})).unwrap()["limit"], 2);
        assert_eq!(norm(json!({"limit": 3.0})).unwrap()["limit"], 3);
        assert_eq!(norm(json!({"limit": " 7 "})).unwrap()["limit"], 7);
        assert_eq!(norm(json!({"threshold": 1})).unwrap()["threshold"], 1);
        // Already exact values, nulls and untyped parameters pass unchanged.
        let same = json!({"limit": 5, "symbols": ["a", "b"], "mode": null, "start_line": "3"});
        assert_eq!(norm(same.clone()).unwrap(), same);
    }

    #[test]
    fn anything_else_names_the_parameter_the_type_and_the_value() {
        let e = norm(json!({"limit": "2.5"})).unwrap_err();
        assert_eq!(
            e,
            "parameter 'limit' expects an integer; got the string \"2.5\""
        );
        let e = norm(json!({"limit": "abc"})).unwrap_err();
        assert!(
            e.contains("'limit' expects an integer") && e.contains("\"abc\""),
            "{e}"
        );
        let e = norm(json!({"include_tests": "yes"})).unwrap_err();
        assert!(e.contains("expects a boolean"), "{e}");
        let e = norm(json!({"function_name": 5})).unwrap_err();
        assert_eq!(
            e,
            "parameter 'function_name' expects a string; got the number 5"
        );
        let e = norm(json!({"symbols": [1]})).unwrap_err();
        assert!(
            e.starts_with("parameter 'symbols[0]' expects a string"),
            "{e}"
        );
        let e = norm(json!({"symbols": 1})).unwrap_err();
        assert_eq!(
            e,
            "parameter 'symbols' expects a list of strings; got the number 1"
        );
        let e = norm(json!({"queries": "x"})).unwrap_err();
        assert!(
            e.starts_with("parameter 'queries' expects a list of objects; got the string"),
            "{e}"
        );
        let e = norm(json!({"limit": "NaN"})).unwrap_err();
        assert!(e.contains("expects an integer"), "{e}");
        let e = norm(json!({"limit": "1e300"})).unwrap_err();
        assert!(e.contains("expects an integer"), "{e}");
        // A long received value is cut, with its length.
        let e = norm(json!({"limit": "9".repeat(100_000)})).unwrap_err();
        assert!(e.len() < 200 && e.contains("(100,000 characters)"), "{e}");
    }

    #[test]
    fn values_over_their_limit_are_refused_with_the_limit() {
        let long = |n: usize| "é".repeat(n);
        let e = norm(json!({"function_name": long(1_025)})).unwrap_err();
        assert_eq!(
            e,
            "parameter 'function_name' is 1,025 characters long; the limit is 1,024 characters (a name)"
        );
        norm(json!({"function_name": long(1_024)})).unwrap();
        norm(json!({"query": long(65_536)})).unwrap();
        let e = norm(json!({"query": long(65_537)})).unwrap_err();
        assert!(
            e.contains("limit is 65,536 characters (a query, pattern or text)"),
            "{e}"
        );
        let e = norm(json!({"queries": [{"pattern": "x", "roots": [long(4_097)]}]})).unwrap_err();
        assert!(
            e.starts_with("parameter 'queries[0].roots[0]' is 4,097"),
            "{e}"
        );
        let e = norm(json!({"symbols": vec!["a"; 257]})).unwrap_err();
        assert_eq!(
            e,
            "parameter 'symbols' has 257 items; the limit is 256 items"
        );
        // A single over-long item is refused as an item.
        let e = norm(json!({"symbols": "x".repeat(2_000)})).unwrap_err();
        assert!(e.starts_with("parameter 'symbols[0]' is 2,000"), "{e}");
    }

    #[test]
    fn received_values_are_shown_short() {
        assert_eq!(received(&json!("ab")), "the string \"ab\"");
        assert_eq!(received(&json!(null)), "null");
        let long = received(&json!("x".repeat(1_000_000)));
        assert!(
            long.ends_with("… (1,000,000 characters)") && long.len() < 120,
            "{long}"
        );
        let list = received(&json!(vec![1; 100]));
        assert!(
            list.starts_with("a list [1,1,") && list.contains('…'),
            "{list}"
        );
        assert_eq!(group(1_048_576), "1,048,576");
        assert_eq!(group(999), "999");
        let msg = format!("unknown variant `{}`, expected `a` or `b`", "z".repeat(500));
        let short = shorten(&msg);
        assert!(
            short.len() < 140 && short.ends_with("(500 characters)`, expected `a` or `b`"),
            "{short}"
        );
        assert_eq!(shorten("invalid type: `x`"), "invalid type: `x`");
    }
}
