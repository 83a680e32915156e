//! `search query`: a tree-sitter query (`.scm` DSL) over one file, or a named query
//! (functions, classes, imports, calls, comments, strings); or, with `symbol`, the
//! symbol's definitions from the index.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{Targets, definitions_json, find_targets, fixed_cap, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// The named queries every language answers.
pub const QUERY_KEYS: [&str; 6] = [
    "functions",
    "classes",
    "imports",
    "calls",
    "comments",
    "strings",
];

/// Arguments of `search query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to query (project-relative). Either this or symbol.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Instead of a file: look the symbol up in the index and list its definitions.
    #[serde(default)]
    pub symbol: Option<String>,
    /// A named query: functions, classes, imports, calls, comments, strings.
    #[serde(default)]
    pub query_key: Option<String>,
    /// A tree-sitter query in the .scm DSL, e.g. `(function_definition name: (identifier) @name)`.
    #[serde(default)]
    pub query_string: Option<String>,
    /// Keep results whose field matches: `name=~regex`, `name=value`, `capture=name`, `kind=node_kind`, `text=~regex`; `!=`/`!~` negate; several joined by `,`.
    #[serde(default)]
    pub filter: Option<String>,
    /// Parse the file as this language instead of by its extension.
    #[serde(default)]
    pub language: Option<String>,
    /// Most results to list (default 100, clamped 1..2000). The exact total is always counted.
    #[serde(default)]
    pub max_count: Option<i64>,
    /// json (default: full rows) or summary (counts per capture and short rows).
    #[serde(default)]
    pub result_format: Option<String>,
    /// With symbol: only definitions of this kind (function, method, class, struct, ...).
    #[serde(default)]
    pub symbol_type: Option<String>,
}

pub struct QueryAction;

/// One result row before rendering.
struct Hit {
    capture: String,
    kind: String,
    name: Option<String>,
    text: String,
    start: (usize, usize),
    end: (usize, usize),
}

/// One condition of `filter`.
enum Cond {
    Eq(String, String, bool),
    Re(String, regex::Regex, bool),
}

fn parse_filter(f: &str) -> Result<Vec<Cond>, ToolError> {
    let mut out = Vec::new();
    for part in f.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (field, op, value) = ["=~", "!~", "!=", "="]
            .iter()
            .find_map(|op| part.split_once(op).map(|(a, b)| (a.trim(), *op, b.trim())))
            .ok_or_else(|| {
                ToolError::Validation(format!(
                    "parameter 'filter': cannot read '{part}'; use name=~regex, name=value, capture=name, kind=node_kind or text=~regex"
                ))
            })?;
        if !matches!(field, "name" | "capture" | "kind" | "text") {
            return Err(ToolError::Validation(format!(
                "parameter 'filter': unknown field '{field}'; use name, capture, kind or text"
            )));
        }
        let negate = op.starts_with('!');
        if op.ends_with('~') {
            let re = regex::Regex::new(value).map_err(|e| {
                ToolError::Validation(format!("parameter 'filter': invalid regex '{value}': {e}"))
            })?;
            out.push(Cond::Re(field.to_owned(), re, negate));
        } else {
            out.push(Cond::Eq(field.to_owned(), value.to_owned(), negate));
        }
    }
    Ok(out)
}

fn field<'a>(h: &'a Hit, f: &str) -> &'a str {
    match f {
        "name" => h.name.as_deref().unwrap_or(&h.text),
        "capture" => &h.capture,
        "kind" => &h.kind,
        _ => &h.text,
    }
}

fn keep(h: &Hit, conds: &[Cond]) -> bool {
    conds.iter().all(|c| match c {
        Cond::Eq(f, v, neg) => (field(h, f) == v) != *neg,
        Cond::Re(f, re, neg) => re.is_match(field(h, f)) != *neg,
    })
}

fn short_text(s: &str) -> String {
    const MAX: usize = 200;
    let s = s.trim();
    if s.len() <= MAX {
        return s.to_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

fn hit(capture: &str, node: Node<'_>, src: &[u8], name: Option<String>) -> Hit {
    let text = node.utf8_text(src).unwrap_or_default();
    let sp = node.start_position();
    let ep = node.end_position();
    Hit {
        capture: capture.to_owned(),
        kind: node.kind().to_owned(),
        name,
        text: short_text(text),
        start: (sp.row + 1, sp.column + 1),
        end: (ep.row + 1, ep.column + 1),
    }
}

/// How deep the groups of a query may nest: tree-sitter's query parser recurses
/// once per level, and a few ten thousand levels overflow a thread's stack.
const MAX_QUERY_DEPTH: usize = 64;

/// The deepest nesting of `(`/`[` groups in a `.scm` query, strings and `;`
/// comments skipped.
fn query_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(s) = chars.next() {
                    match s {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            ';' => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        break;
                    }
                }
            }
            '(' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn compile(lang: Language, text: &str) -> Result<Query, ToolError> {
    let depth = query_depth(text);
    if depth > MAX_QUERY_DEPTH {
        return Err(ToolError::Validation(format!(
            "parameter 'query_string' nests {depth} levels deep; the limit is {MAX_QUERY_DEPTH}"
        )));
    }
    Query::new(&lang.grammar(), text).map_err(|e| {
        ToolError::Validation(format!(
            "query syntax error at line {} column {} ({:?}): {}",
            e.row + 1,
            e.column + 1,
            e.kind,
            e.message.trim()
        ))
    })
}

/// Runs a custom query: every capture is a row.
fn run_custom(q: &Query, root: Node<'_>, src: &[u8]) -> Vec<Hit> {
    let names = q.capture_names();
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut matches = cursor.matches(q, root, src);
    while let Some(m) = matches.next() {
        for c in m.captures() {
            out.push(hit(names[c.index as usize], c.node, src, None));
        }
    }
    out
}

/// Runs one of the language's own queries, keeping matches whose main capture
/// starts with one of `prefixes`; the row's `name` is the `@name` capture.
fn run_named(q: &Query, root: Node<'_>, src: &[u8], prefixes: &[&str]) -> Vec<Hit> {
    let names = q.capture_names();
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut matches = cursor.matches(q, root, src);
    while let Some(m) = matches.next() {
        let main = m.captures().iter().find(|c| {
            prefixes
                .iter()
                .any(|p| names[c.index as usize].starts_with(p))
        });
        let Some(main) = main else { continue };
        // Several patterns may match one node (a class with and without bases).
        if !seen.insert((main.node.id(), names[main.index as usize])) {
            continue;
        }
        let name = m
            .captures()
            .iter()
            .find(|c| names[c.index as usize] == "name")
            .and_then(|c| c.node.utf8_text(src).ok())
            .map(str::to_owned);
        out.push(hit(names[main.index as usize], main.node, src, name));
    }
    out.sort_by_key(|h| (h.start, h.end));
    out
}

/// Every node whose kind names a comment or a string literal.
fn run_kinds(root: Node<'_>, src: &[u8], want: &str) -> Vec<Hit> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        let is = match want {
            "comments" => kind.contains("comment"),
            _ => {
                node.is_named()
                    && (kind.contains("string") || kind == "template_literal")
                    && !kind.contains("content")
                    && !kind.contains("fragment")
            }
        };
        if is {
            out.push(hit(&want[..want.len() - 1], node, src, None));
            // A string's parts are not reported again.
            continue;
        }
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

fn row(h: &Hit, summary: bool) -> Value {
    let mut m = Map::new();
    m.insert("capture".into(), json!(h.capture));
    m.insert("kind".into(), json!(h.kind));
    if let Some(n) = &h.name {
        m.insert("name".into(), json!(n));
    }
    m.insert("start_line".into(), json!(h.start.0));
    if !summary {
        m.insert("text".into(), json!(h.text));
        m.insert("start_column".into(), json!(h.start.1));
        m.insert("end_line".into(), json!(h.end.0));
        m.insert("end_column".into(), json!(h.end.1));
    }
    Value::Object(m)
}

impl Action for QueryAction {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "query";
    const SUMMARY: &'static str = "run a tree-sitter query over one file (query_string in .scm, or query_key functions|classes|imports|calls|comments|strings; filter name=~regex), or list a symbol's definitions (symbol)";
    const BRIEF: &'static str = "tree-sitter query on a file";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let cap = match a.max_count {
            None => 100,
            Some(n) => (n.max(1) as usize).min(2000),
        };
        let summary = match a.result_format.as_deref() {
            None | Some("json") => false,
            Some("summary") => true,
            Some(other) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'result_format' must be json or summary, got '{other}'"
                )));
            }
        };
        let conds = parse_filter(a.filter.as_deref().unwrap_or(""))?;
        match (&a.file_path, &a.symbol) {
            (None, Some(sym)) => return symbol_lookup(ctx, sym, a.symbol_type.as_deref(), cap),
            (None, None) => {
                return Err(ToolError::Validation(
                    "pass file_path (with query_key or query_string) or symbol".into(),
                ));
            }
            _ => {}
        }
        let Some(file) = a.file_path.as_deref() else {
            return Err(ToolError::Validation("pass file_path or symbol".into()));
        };
        let (abs, rel) = resolve_in_root(root, file)?;
        if !abs.is_file() {
            return Err(ToolError::NotFound(rel));
        }
        let lang = match &a.language {
            Some(l) => Language::from_name(l).ok_or_else(|| {
                let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                ToolError::Validation(format!(
                    "parameter 'language' must be one of: {}; got '{l}'",
                    known.join(", ")
                ))
            })?,
            None => Language::from_path(&rel).ok_or_else(|| ToolError::Language(rel.clone()))?,
        };
        let bytes = tsa_analysis::security::read_in_root(root, &rel)?;
        if bytes[..bytes.len().min(8192)].contains(&0) {
            return Err(ToolError::Binary(rel));
        }
        let (hits, query_label) = match (&a.query_key, &a.query_string) {
            (Some(_), Some(_)) => {
                return Err(ToolError::Validation(
                    "pass query_key or query_string, not both".into(),
                ));
            }
            (None, None) => {
                return Err(ToolError::Validation(format!(
                    "pass query_string (.scm) or query_key ({})",
                    QUERY_KEYS.join(", ")
                )));
            }
            (None, Some(qs)) => {
                if qs.trim().is_empty() {
                    return Err(ToolError::Validation(
                        "parameter 'query_string' must be a non-empty query".into(),
                    ));
                }
                let q = compile(lang, qs)?;
                let tree = parse(lang, &bytes)?;
                (
                    run_custom(&q, tree.root_node(), &bytes),
                    "query_string".to_owned(),
                )
            }
            (Some(key), None) => {
                let key = key.to_ascii_lowercase();
                let [defs, calls, imports] = lang.query_sources();
                let tree = parse(lang, &bytes)?;
                let r = tree.root_node();
                let named = |text: &str, prefixes: &[&str]| -> Result<Vec<Hit>, ToolError> {
                    if text.trim().is_empty() {
                        return Ok(Vec::new());
                    }
                    Ok(run_named(&compile(lang, text)?, r, &bytes, prefixes))
                };
                let hits = match key.as_str() {
                    "functions" => named(defs, &["definition.function", "definition.method"])?,
                    "classes" => named(
                        defs,
                        &[
                            "definition.class",
                            "definition.struct",
                            "definition.enum",
                            "definition.trait",
                            "definition.interface",
                            "definition.type",
                        ],
                    )?,
                    "imports" => named(imports, &["import"])?,
                    "calls" => named(calls, &["reference.call"])?,
                    "comments" | "strings" => run_kinds(r, &bytes, &key),
                    other => {
                        return Err(ToolError::Validation(format!(
                            "unknown query_key '{other}'; use one of: {}",
                            QUERY_KEYS.join(", ")
                        )));
                    }
                };
                (hits, key)
            }
        };
        let kept: Vec<Hit> = hits.into_iter().filter(|h| keep(h, &conds)).collect();
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for h in &kept {
            *counts.entry(h.capture.clone()).or_default() += 1;
        }
        let total = kept.len();
        let list = Capped::collect(kept.iter().map(|h| row(h, summary)), fixed_cap(cap));
        let verdict = if total == 0 {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let step = if total == 0 {
            format!(
                "Nothing matched in {rel}; check the node names with structure action=ast_path, or loosen filter"
            )
        } else {
            format!("Read a result in context: structure action=read file_path={rel}")
        };
        Ok(Success::new(
            verdict,
            format!("search_query {rel} {query_label}: {total} results"),
        )
        .with("file_path", rel.as_str())
        .with("language", lang.name())
        .with("query", query_label.as_str())
        .with("result_format", if summary { "summary" } else { "json" })
        .with("capture_counts", json!(counts))
        .with_list(
            ListSpelling {
                list_key: "results",
                total_key: "total_matches",
                listed_key: "count",
                cap_key: "listed_cap",
                noun: "results",
                remedy: "raise max_count, or narrow with filter=name=~regex".into(),
            },
            list,
        )
        .with_next_step(step))
    }
}

fn parse(lang: Language, src: &[u8]) -> Result<tree_sitter::Tree, ToolError> {
    let mut p = Parser::new();
    p.set_language(&lang.grammar())
        .map_err(|e| ToolError::Internal(format!("grammar of {}: {e}", lang.name())))?;
    p.parse(src, None)
        .ok_or_else(|| ToolError::Internal("the parser gave no tree".into()))
}

/// The symbol form: the definitions of `symbol` in the index, or NOT_FOUND with
/// suggestions.
fn symbol_lookup(
    ctx: &Context,
    symbol: &str,
    symbol_type: Option<&str>,
    cap: usize,
) -> Result<Success, ToolError> {
    let opened = open_index(ctx)?;
    let mut s = match find_targets(ctx, &opened.index, "search_query", symbol, None)? {
        Targets::Missing(miss) => miss.with("symbol", symbol),
        Targets::Found(defs) => {
            let defs: Vec<_> = defs
                .into_iter()
                .filter(|d| symbol_type.is_none_or(|t| d.kind.eq_ignore_ascii_case(t)))
                .collect();
            if defs.is_empty() {
                Success::new(
                    Verdict::NotFound,
                    format!(
                        "search_query: '{symbol}' has no definition of kind {}",
                        symbol_type.unwrap_or("?")
                    ),
                )
                .with("symbol", symbol)
                .with_next_step(format!(
                    "Drop symbol_type to see every definition of '{symbol}'"
                ))
            } else {
                let rows = definitions_json(&defs);
                let rows = rows.as_array().cloned().unwrap_or_default();
                let n = rows.len();
                let first = &defs[0];
                Success::new(
                    Verdict::Info,
                    format!("search_query: '{symbol}' has {n} definition(s)"),
                )
                .with("symbol", symbol)
                .with_list(
                    ListSpelling {
                        list_key: "definitions",
                        total_key: "definition_count",
                        listed_key: "count",
                        cap_key: "listed_cap",
                        noun: "definitions",
                        remedy: "raise max_count, or qualify as ClassName.method".into(),
                    },
                    Capped::collect(rows, fixed_cap(cap)),
                )
                .with_next_step(format!(
                    "Query the file: search action=query file_path={} query_key=functions filter=name={}",
                    first.file, first.name
                ))
            }
        }
    };
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_depth_counts_groups_outside_strings_and_comments() {
        assert_eq!(
            query_depth("(function_definition name: (identifier) @n)"),
            2
        );
        assert_eq!(query_depth("[(a) (b (c))] @x"), 3);
        assert_eq!(query_depth("((a) @x (#eq? @x \"((((\\\"(\"))"), 2);
        assert_eq!(query_depth("; (((((\n(a)"), 1);
        assert_eq!(query_depth(")))("), 1);
    }

    #[test]
    fn a_deeply_nested_query_is_refused_before_tree_sitter_parses_it() {
        let lang = Language::from_name("python").unwrap();
        let deep = format!("{}(identifier){}", "(".repeat(65_536), ")".repeat(65_536));
        match compile(lang, &deep) {
            Err(ToolError::Validation(m)) => assert!(m.contains("the limit is 64"), "{m}"),
            _ => panic!("a 65,536-deep query compiled"),
        }
        let ok = format!("{}(identifier){}", "(".repeat(63), ")".repeat(63));
        assert!(
            !matches!(compile(lang, &ok), Err(ToolError::Validation(m)) if m.contains("levels deep"))
        );
    }
}
