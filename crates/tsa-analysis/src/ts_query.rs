//! Tree-sitter queries over one file (the engine of `search query`): a custom
//! `.scm` query (every capture a row) or one of the named queries every language
//! answers (functions, classes, imports, calls from the language's own queries;
//! comments and strings by node kind), then a `filter` over the rows.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};
use tsa_lang::Language;

use crate::ToolError;
use crate::security::resolve_in_root;

/// The named queries every language answers.
pub const QUERY_KEYS: [&str; 6] = [
    "functions",
    "classes",
    "imports",
    "calls",
    "comments",
    "strings",
];

/// One result row before rendering.
#[derive(Clone, Debug)]
pub struct Hit {
    /// The capture (or the named query's main capture) that matched.
    pub capture: String,
    /// The node kind.
    pub kind: String,
    /// The `@name` capture of a named query.
    pub name: Option<String>,
    /// The node's text, trimmed to 200 bytes.
    pub text: String,
    /// 1-based (line, column) of its start.
    pub start: (usize, usize),
    /// 1-based (line, column) of its end.
    pub end: (usize, usize),
}

/// One condition of `filter`.
#[derive(Clone, Debug)]
pub enum Cond {
    Eq(String, String, bool),
    Re(String, regex::Regex, bool),
}

/// Parses `filter`: conditions joined by `,`.
pub fn parse_filter(f: &str) -> Result<Vec<Cond>, ToolError> {
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

/// Whether `h` meets every condition.
pub fn keep(h: &Hit, conds: &[Cond]) -> bool {
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

/// Compiles a query, refusing one nested deeper than tree-sitter can parse.
pub fn compile(lang: Language, text: &str) -> Result<Query, ToolError> {
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

/// Parses `src` as `lang`.
pub fn parse(lang: Language, src: &[u8]) -> Result<tree_sitter::Tree, ToolError> {
    let mut p = Parser::new();
    p.set_language(&lang.grammar())
        .map_err(|e| ToolError::Internal(format!("grammar of {}: {e}", lang.name())))?;
    p.parse(src, None)
        .ok_or_else(|| ToolError::Internal("the parser gave no tree".into()))
}

/// One result row: `capture`, `kind`, `name` when known and `start_line`; the
/// full form adds the text and the other coordinates.
#[derive(Clone, Debug, Serialize)]
pub struct HitRow<'a> {
    /// The capture.
    pub capture: &'a str,
    /// The node kind.
    pub kind: &'a str,
    /// The `@name` capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    /// 1-based start line.
    pub start_line: usize,
    /// The node's text (full form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// 1-based start column (full form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_column: Option<usize>,
    /// 1-based end line (full form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// 1-based end column (full form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<usize>,
}

impl Hit {
    /// The row of this hit, `summary` or full.
    pub fn row(&self, summary: bool) -> HitRow<'_> {
        let full = !summary;
        HitRow {
            capture: &self.capture,
            kind: &self.kind,
            name: self.name.as_deref(),
            start_line: self.start.0,
            text: full.then_some(self.text.as_str()),
            start_column: full.then_some(self.start.1),
            end_line: full.then_some(self.end.0),
            end_column: full.then_some(self.end.1),
        }
    }
}

/// The file a query runs over: read inside the root, its language (the given
/// one, or by extension), not binary.
pub fn read_source(
    root: &Path,
    file: &str,
    language: Option<&str>,
) -> Result<(String, Language, Vec<u8>), ToolError> {
    let (abs, rel) = resolve_in_root(root, file)?;
    if !abs.is_file() {
        return Err(ToolError::NotFound(rel));
    }
    let lang = match language {
        Some(l) => Language::from_name(l).ok_or_else(|| {
            let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
            ToolError::Validation(format!(
                "parameter 'language' must be one of: {}; got '{l}'",
                known.join(", ")
            ))
        })?,
        None => Language::from_path(&rel).ok_or_else(|| ToolError::Language(rel.clone()))?,
    };
    let bytes = crate::security::read_in_root(root, &rel)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary(rel));
    }
    Ok((rel, lang, bytes))
}

/// Runs a named query (`key`, any case) over `bytes`.
fn run_key(lang: Language, bytes: &[u8], key: &str) -> Result<Vec<Hit>, ToolError> {
    let [defs, calls, imports] = lang.query_sources();
    let tree = parse(lang, bytes)?;
    let r = tree.root_node();
    let named = |text: &str, prefixes: &[&str]| -> Result<Vec<Hit>, ToolError> {
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        Ok(run_named(&compile(lang, text)?, r, bytes, prefixes))
    };
    Ok(match key {
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
        "comments" | "strings" => run_kinds(r, bytes, key),
        other => {
            return Err(ToolError::Validation(format!(
                "unknown query_key '{other}'; use one of: {}",
                QUERY_KEYS.join(", ")
            )));
        }
    })
}

/// What a query found.
#[derive(Debug)]
pub struct QueryReport {
    /// `query_string`, or the named query (lower case).
    pub label: String,
    /// The hits that passed the filter, in match order.
    pub hits: Vec<Hit>,
    /// Hits per capture.
    pub capture_counts: BTreeMap<String, usize>,
}

/// Runs `query_key` or `query_string` (exactly one) over `bytes`, keeping the hits
/// that meet `conds`.
pub fn run_query(
    lang: Language,
    bytes: &[u8],
    query_key: Option<&str>,
    query_string: Option<&str>,
    conds: &[Cond],
) -> Result<QueryReport, ToolError> {
    let (hits, label) = match (query_key, query_string) {
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
            let tree = parse(lang, bytes)?;
            (
                run_custom(&q, tree.root_node(), bytes),
                "query_string".to_owned(),
            )
        }
        (Some(key), None) => {
            let key = key.to_ascii_lowercase();
            (run_key(lang, bytes, &key)?, key)
        }
    };
    let hits: Vec<Hit> = hits.into_iter().filter(|h| keep(h, conds)).collect();
    let mut capture_counts: BTreeMap<String, usize> = BTreeMap::new();
    for h in &hits {
        *capture_counts.entry(h.capture.clone()).or_default() += 1;
    }
    Ok(QueryReport {
        label,
        hits,
        capture_counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = "# a comment\nclass A:\n    def run(self):\n        return helper('x')\n\n\ndef build():\n    pass\n";

    fn python() -> Language {
        Language::from_name("python").unwrap()
    }

    #[test]
    fn named_queries_and_filters() {
        let r = run_query(python(), PY.as_bytes(), Some("Functions"), None, &[]).unwrap();
        assert_eq!(r.label, "functions");
        let names: Vec<_> = r.hits.iter().filter_map(|h| h.name.as_deref()).collect();
        assert_eq!(names, ["run", "build"]);
        let conds = parse_filter("name=~^b").unwrap();
        let r = run_query(python(), PY.as_bytes(), Some("functions"), None, &conds).unwrap();
        assert_eq!(r.hits.len(), 1);
        assert_eq!(r.capture_counts.values().sum::<usize>(), 1);
        let r = run_query(python(), PY.as_bytes(), Some("comments"), None, &[]).unwrap();
        assert_eq!(r.hits[0].text, "# a comment");
        assert!(run_query(python(), PY.as_bytes(), Some("nope"), None, &[]).is_err());
        assert!(run_query(python(), PY.as_bytes(), None, None, &[]).is_err());
        assert!(parse_filter("size=3").is_err());
    }

    #[test]
    fn custom_queries_list_every_capture() {
        let q = "(function_definition name: (identifier) @name) @def";
        let r = run_query(python(), PY.as_bytes(), None, Some(q), &[]).unwrap();
        assert_eq!(r.label, "query_string");
        assert_eq!(r.capture_counts["name"], 2);
        assert_eq!(r.capture_counts["def"], 2);
        let row = r.hits[0].row(true);
        assert!(row.text.is_none() && row.end_line.is_none());
    }

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
