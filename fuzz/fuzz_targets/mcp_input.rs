//! The MCP input path on arbitrary bytes. The first byte picks the mode:
//!
//! - even: the bytes are stdin as the server reads it: rmcp's line codec frames
//!   them into client JSON-RPC messages, and each `tools/call`, `resources/read`
//!   or `resources/subscribe` goes where `tsa-mcp` sends it (the dispatcher, the
//!   selector resource);
//! - odd: the bytes choose a tool and action from the catalog and build its
//!   arguments from the documented parameters (right and wrong types, paths inside
//!   and outside the root, selectors, chains, regexes, huge numbers).
//!
//! Every answer must be a well-formed envelope; nothing may panic.

#![no_main]

mod common;

use std::sync::OnceLock;

use arbitrary::{Result as ArbResult, Unstructured};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::transport::async_rw::JsonRpcMessageCodec;
use serde_json::{Map, Value, json};
use tokio_util::codec::Decoder;
use tsa_tools::{OutputFormat, Presentation, call, hyphae};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        framed(rest);
    } else {
        let _ = structured(&mut Unstructured::new(rest));
    }
});

/// One tool call as `TsaServer::answer` makes it, checked against the contract.
fn answer(ctx: &mut tsa_tools::Context, name: &str, args: Value) {
    // Rebinding the root would let the fuzzer index any folder of the machine.
    if name == "set_project_path" {
        return;
    }
    let reply = call(ctx, name, args, OutputFormat::Toon);
    let _ = reply.text(Presentation::Compact);
    let _ = reply.text(Presentation::Terminal);
    common::check_reply(&reply);
}

fn selector_resource(ctx: &mut tsa_tools::Context, uri: &str) {
    if let Some(selector) = hyphae::selector_of_uri(uri) {
        let reply = call(
            ctx,
            "search",
            json!({"action": "select", "selector": selector, "output_format": "json"}),
            OutputFormat::Json,
        );
        common::check_reply(&reply);
    }
}

fn framed(bytes: &[u8]) {
    let mut codec = JsonRpcMessageCodec::<ClientJsonRpcMessage>::default();
    let mut buf = BytesMut::from(bytes);
    let mut ctx = common::context();
    let mut handled = 0;
    for _ in 0..64 {
        let item = match codec.decode(&mut buf) {
            Ok(Some(item)) => Some(item),
            Ok(None) => match codec.decode_eof(&mut buf) {
                Ok(item) => item,
                Err(_) => None,
            },
            // A bad line is answered with an error by rmcp; the next line is read.
            Err(_) => continue,
        };
        let Some(message) = item else {
            break;
        };
        handled += 1;
        if handled > 8 {
            break;
        }
        let JsonRpcMessage::Request(request) = message else {
            continue;
        };
        match request.request {
            ClientRequest::CallToolRequest(r) => {
                let args = r.params.arguments.map(Value::Object).unwrap_or(Value::Null);
                answer(&mut ctx, &r.params.name, args);
            }
            ClientRequest::ReadResourceRequest(r) => selector_resource(&mut ctx, &r.params.uri),
            ClientRequest::SubscribeRequest(r) => selector_resource(&mut ctx, &r.params.uri),
            _ => {}
        }
    }
}

/// Words to build string arguments from: every file of the project, identifiers
/// found in them, and hand-picked hostile values.
struct Vocabulary {
    paths: Vec<String>,
    words: Vec<String>,
}

fn vocabulary() -> &'static Vocabulary {
    static VOCAB: OnceLock<Vocabulary> = OnceLock::new();
    VOCAB.get_or_init(|| {
        let root = common::project();
        let mut paths = Vec::new();
        let mut words = std::collections::BTreeSet::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if name == ".git" || name == ".tsa" {
                    continue;
                }
                let rel = p
                    .strip_prefix(root)
                    .map(|r| r.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if p.is_dir() {
                    paths.push(rel);
                    stack.push(p);
                } else {
                    if let Ok(text) = std::fs::read_to_string(&p) {
                        for w in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
                            if (3..=24).contains(&w.len())
                                && w.starts_with(|c: char| c.is_alphabetic())
                            {
                                words.insert(w.to_owned());
                            }
                        }
                    }
                    paths.push(rel);
                }
            }
        }
        paths.sort();
        Vocabulary {
            paths,
            words: words.into_iter().collect(),
        }
    })
}

const HOSTILE_PATHS: &[&str] = &[
    "",
    ".",
    "..",
    "../",
    "../../etc/passwd",
    "/etc/passwd",
    "/",
    "app/../../x",
    "app/./core.py",
    "app//core.py",
    "nonexistent.py",
    ".tsa/index.db",
    ".git/HEAD",
    "app/core.py:3",
    "~",
    "app\0core.py",
    "*.py",
    "**/*.rs",
    "a/b/c/d/e/f/g",
];

const SELECTORS: &[&str] = &[
    "#log",
    ".function",
    "*",
    ".class > .method",
    ".class .method",
    ".function ~ .function",
    ".method:calls(#log)",
    ".function:called-by(.method)",
    ".class:extends(#Model)",
    ".class:implements(#Repository)",
    "#Model:subclasses(*)",
    ":not(:calls(#log))",
    "[file=shop/store.py]",
    "[name=save][kind=method]",
    "[lang=typescript]",
    "[class=MemoryRepository]",
    ".class:has(#save)",
    ".method:first-child, .method:last-child, .method:only-child",
    ".method:nth-child(2)",
    ":imports(shop.log)",
    ".function:in(hy/shop/)",
];

const CHAINS: &[&str] = &[
    "search(\"store\").callers(depth=2).take(5)",
    "explore(\"save records\").related()",
    "search(\"log\").filter(kind=\"function\").include(\"source\", \"callers\")",
    "search(\"Store\").callees(2, 10).sort(\"fan_in\", true).uml(\"LR\")",
    "search(\"helper\").where(test=false).with(complexity=true, health=true, risk=true).answer(compact=true)",
    "semantic(\"persist\").exclude(path=\"tests\").take(n=3)",
    "search([\"a\", 1, 2.5, null, true]).take(-1)",
    "store things",
];

const REGEXES: &[&str] = &[
    "def ",
    "(a+)+$",
    "[",
    "\\",
    "(?i)STORE",
    "^$",
    ".*",
    "\\bsave\\b",
    "(?P<x>a)|(?P<x>b)",
    "a{1000000}",
];

fn pick<'a, T: ?Sized>(u: &mut Unstructured<'_>, items: &'a [&'a T]) -> ArbResult<&'a T> {
    Ok(items[u.choose_index(items.len())?])
}

fn text(u: &mut Unstructured<'_>, param: &str) -> ArbResult<String> {
    let v = vocabulary();
    let kind = u.int_in_range(0..=9u8)?;
    let pathish = [
        "path",
        "file",
        "directory",
        "roots",
        "dir",
        "source",
        "target",
    ]
    .iter()
    .any(|k| param.contains(k));
    Ok(match kind {
        0 => u.arbitrary::<&str>()?.to_owned(),
        1 => pick(u, HOSTILE_PATHS)?.to_owned(),
        2 => pick(u, SELECTORS)?.to_owned(),
        3 => pick(u, CHAINS)?.to_owned(),
        4 => pick(u, REGEXES)?.to_owned(),
        5 | 6 if pathish && !v.paths.is_empty() => v.paths[u.choose_index(v.paths.len())?].clone(),
        7 if pathish => common::project()
            .join(&v.paths[u.choose_index(v.paths.len())?])
            .display()
            .to_string(),
        _ if !v.words.is_empty() => {
            let w = &v.words[u.choose_index(v.words.len())?];
            match u.int_in_range(0..=3u8)? {
                0 => w.to_uppercase(),
                1 => format!("{w}.{}", v.words[u.choose_index(v.words.len())?]),
                _ => w.clone(),
            }
        }
        _ => String::new(),
    })
}

fn number(u: &mut Unstructured<'_>) -> ArbResult<Value> {
    Ok(match u.int_in_range(0..=7u8)? {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(u64::MAX),
        3 => json!(i64::MIN),
        4 => json!(u.arbitrary::<f64>()?),
        5 => json!(u.int_in_range(0..=1_000_000u32)?),
        _ => json!(u.int_in_range(1..=50u32)?),
    })
}

/// Any JSON value, shallow.
fn any_value(u: &mut Unstructured<'_>, depth: u32) -> ArbResult<Value> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(u)?,
        3 => Value::String(u.arbitrary::<&str>()?.to_owned()),
        4 if depth < 3 => {
            let n = u.int_in_range(0..=3usize)?;
            Value::Array(
                (0..n)
                    .map(|_| any_value(u, depth + 1))
                    .collect::<ArbResult<_>>()?,
            )
        }
        _ if depth < 3 => {
            let n = u.int_in_range(0..=3usize)?;
            let mut m = Map::new();
            for _ in 0..n {
                m.insert(u.arbitrary::<&str>()?.to_owned(), any_value(u, depth + 1)?);
            }
            Value::Object(m)
        }
        _ => Value::Null,
    })
}

/// A value for `param`, usually of the type its schema states.
fn value_for(u: &mut Unstructured<'_>, param: &str, schema: Option<&Value>) -> ArbResult<Value> {
    if u.ratio(1u8, 12u8)? {
        return any_value(u, 0);
    }
    let schema = schema.cloned().unwrap_or(Value::Null);
    if let Some(Value::Array(choices)) = schema.get("enum")
        && !choices.is_empty()
        && u.ratio(4u8, 5u8)?
    {
        return Ok(choices[u.choose_index(choices.len())?].clone());
    }
    let types: Vec<String> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => schema
            .get("anyOf")
            .and_then(Value::as_array)
            .map(|alts| {
                alts.iter()
                    .filter_map(|a| a.get("type").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let ty = if types.is_empty() {
        "string".to_owned()
    } else {
        types[u.choose_index(types.len())?].clone()
    };
    Ok(match ty.as_str() {
        "boolean" => Value::Bool(u.arbitrary()?),
        "integer" | "number" => number(u)?,
        "array" => {
            let n = u.int_in_range(0..=4usize)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(Value::String(text(u, param)?));
            }
            Value::Array(items)
        }
        "object" => any_value(u, 1)?,
        "null" => Value::Null,
        _ => Value::String(text(u, param)?),
    })
}

fn structured(u: &mut Unstructured<'_>) -> ArbResult<()> {
    let catalog = common::catalog();
    let info = &catalog.actions[u.choose_index(catalog.actions.len())?];
    let props = catalog.properties.get(info.tool);
    let mut args = Map::new();
    args.insert("action".into(), Value::String(info.action.to_owned()));
    for (param, required) in &info.params {
        if *required || u.ratio(1u8, 2u8)? {
            let v = value_for(u, param, props.and_then(|p| p.get(param)))?;
            args.insert(param.clone(), v);
        }
    }
    // Universal parameters, sometimes wrong.
    if u.ratio(1u8, 3u8)? {
        let f = if u.ratio(1u8, 8u8)? {
            any_value(u, 1)?
        } else {
            json!(if u.arbitrary()? { "json" } else { "toon" })
        };
        args.insert("output_format".into(), f);
    }
    if u.ratio(1u8, 6u8)? {
        args.insert("compact_only".into(), any_value(u, 2)?);
    }
    if u.ratio(1u8, 4u8)? {
        args.insert("max_chars".into(), number(u)?);
    }
    // An unknown parameter, or a documented one of another action.
    if u.ratio(1u8, 10u8)? {
        args.insert(u.arbitrary::<&str>()?.to_owned(), any_value(u, 1)?);
    }
    // Sometimes a misspelt or foreign tool/action.
    let mut tool = info.tool.to_owned();
    if u.ratio(1u8, 30u8)? {
        tool = u.arbitrary::<&str>()?.to_owned();
    }
    if u.ratio(1u8, 30u8)? {
        args.insert("action".into(), any_value(u, 2)?);
    }
    let mut ctx = common::context();
    answer(&mut ctx, &tool, Value::Object(args));
    Ok(())
}
