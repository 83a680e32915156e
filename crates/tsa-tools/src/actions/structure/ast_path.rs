//! `structure ast_path`: the tree-sitter parse tree at one line — the node path from
//! the root, the enclosing definitions (scope), the subtree of the innermost scope
//! (outline) or the nodes beside the one at the line (siblings).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tree_sitter::{Node, Parser, Point};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap};
use crate::actions::structure::common::load;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

const MAX_ROWS: usize = 200;

/// What to show at the line.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every named node from the root down to the innermost node at the line.
    Path,
    /// The definitions (classes, functions, sections) enclosing the line, outermost first.
    #[default]
    Scope,
    /// The named-node subtree of the innermost definition at the line, `max_depth` levels deep
    /// (the whole file when no line is given).
    Outline,
    /// The named nodes beside the innermost node at the line (same parent).
    Siblings,
}

/// Arguments of `structure ast_path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to parse.
    pub file_path: ProjectPath,
    /// 1-based line (required except in `outline` mode).
    #[serde(default)]
    pub line: Option<i64>,
    /// Parse as this language instead of the one its extension names.
    #[serde(default)]
    pub language: Option<String>,
    /// `path`, `scope` (default), `outline` or `siblings`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Levels of the subtree in `outline` mode (>= 1, default 3).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_depth: Option<i64>,
}

pub struct AstPath;

fn node_row(n: Node<'_>, src: &[u8], depth: usize) -> Value {
    let mut row = json!({
        "depth": depth,
        "type": n.kind(),
        "start_line": n.start_position().row + 1,
        "end_line": n.end_position().row + 1,
    });
    if let Some(name) = n.child_by_field_name("name")
        && let Ok(t) = name.utf8_text(src)
    {
        row["name"] = json!(t.chars().take(80).collect::<String>());
    }
    if n.is_error() || n.is_missing() {
        row["error"] = json!(true);
    }
    row
}

/// The innermost named node at the first non-blank column of `line` (1-based).
fn node_at<'t>(root: Node<'t>, text: &str, line: usize) -> Node<'t> {
    let l = text.lines().nth(line - 1).unwrap_or("");
    let col = l.len() - l.trim_start().len();
    let p = Point::new(line - 1, col);
    root.named_descendant_for_point_range(p, p).unwrap_or(root)
}

/// The subtree of `n` down to `max` levels, in source order (an explicit stack:
/// `max` may exceed what the thread's stack would hold).
fn outline_rows(n: Node<'_>, src: &[u8], depth: usize, max: usize, out: &mut Vec<Value>) {
    let mut stack = vec![(n, depth)];
    let mut cursor = n.walk();
    while let Some((n, depth)) = stack.pop() {
        out.push(node_row(n, src, depth));
        if depth >= max {
            continue;
        }
        let start = stack.len();
        stack.extend(n.named_children(&mut cursor).map(|c| (c, depth + 1)));
        stack[start..].reverse();
    }
}

impl Action for AstPath {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "ast_path";
    const SUMMARY: &'static str = "parse tree at a line: node path from the root, enclosing scopes, subtree (max_depth) or siblings (mode path|scope|outline|siblings)";
    const BRIEF: &'static str = "parse tree at a line";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let f = load(ctx, &args.file_path, args.language.as_deref())?;
        let mode = args.mode.unwrap_or_default();
        let max_depth = cap("max_depth", args.max_depth, 3)?.get();
        let count = f.line_count();
        let line = match (args.line, mode) {
            (None, Mode::Outline) => None,
            (None, _) => {
                return Err(ToolError::Validation(
                    "ast_path needs 'line' (1-based) in path, scope and siblings modes".into(),
                ));
            }
            (Some(l), _) if l < 1 || l as usize > count => {
                return Err(ToolError::Validation(format!(
                    "line {l} is outside {}, which has {count} lines",
                    f.rel
                )));
            }
            (Some(l), _) => Some(l as usize),
        };
        let mut parser = Parser::new();
        parser
            .set_language(&f.lang.grammar())
            .map_err(|_| ToolError::Internal(format!("no grammar for {}", f.lang.name())))?;
        let tree = parser
            .parse(f.text.as_bytes(), None)
            .ok_or_else(|| ToolError::Internal(format!("cannot parse '{}'", f.rel)))?;
        let src = f.text.as_bytes();
        let root = tree.root_node();
        let target = line.map(|l| node_at(root, &f.text, l));
        let mut chain: Vec<Node<'_>> = Vec::new();
        if let Some(t) = target {
            let mut at = Some(t);
            while let Some(n) = at {
                chain.push(n);
                at = n.parent();
            }
            chain.reverse();
        }
        let x = &f.extract;
        // Enclosing definitions, outermost first (by extent, then nesting).
        let mut scopes: Vec<usize> = match line {
            Some(l) => (0..x.defs.len())
                .filter(|&i| x.defs[i].line as usize <= l && l <= x.defs[i].end_line as usize)
                .collect(),
            None => Vec::new(),
        };
        scopes.sort_by_key(|&i| (f.depth(i), x.defs[i].start_byte));
        let (rows, noun): (Vec<Value>, &str) = match mode {
            Mode::Path => (
                chain
                    .iter()
                    .enumerate()
                    .map(|(d, n)| node_row(*n, src, d))
                    .collect(),
                "path nodes",
            ),
            Mode::Scope => (
                scopes
                    .iter()
                    .enumerate()
                    .map(|(d, &i)| {
                        let def = &x.defs[i];
                        json!({
                            "depth": d,
                            "kind": def.kind.as_str(),
                            "name": def.name,
                            "qualified_name": def.qualname,
                            "start_line": def.line,
                            "end_line": def.end_line,
                            "signature": def.signature,
                        })
                    })
                    .collect(),
                "enclosing scopes",
            ),
            Mode::Outline => {
                // The innermost definition's node, else the whole file.
                let start = scopes
                    .last()
                    .and_then(|&i| {
                        let d = &x.defs[i];
                        root.descendant_for_byte_range(d.start_byte, d.end_byte)
                    })
                    .unwrap_or(root);
                let mut out = Vec::new();
                outline_rows(start, src, 0, max_depth, &mut out);
                (out, "subtree nodes")
            }
            Mode::Siblings => {
                let t = target.unwrap_or(root);
                let rows = match t.parent() {
                    Some(p) => {
                        let mut cursor = p.walk();
                        p.named_children(&mut cursor)
                            .map(|c| {
                                let mut r = node_row(c, src, 0);
                                r.as_object_mut().map(|o| o.remove("depth"));
                                r["is_target"] = json!(c.id() == t.id());
                                r
                            })
                            .collect()
                    }
                    None => vec![node_row(t, src, 0)],
                };
                (rows, "sibling nodes")
            }
        };
        let mode_name = match mode {
            Mode::Path => "path",
            Mode::Scope => "scope",
            Mode::Outline => "outline",
            Mode::Siblings => "siblings",
        };
        let at = line.map(|l| format!(":{l}")).unwrap_or_default();
        let innermost = target.map(|t| t.kind()).unwrap_or(root.kind());
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "ast_path {}{at} ({mode_name}): {} {noun}, innermost node {innermost}",
                f.rel,
                rows.len()
            ),
        )
        .with("file_path", f.rel.clone())
        .with("language", f.lang.name())
        .with("mode", mode_name)
        .with("line", line)
        .with("node_type", innermost)
        .with("line_count", count);
        if mode == Mode::Outline {
            out = out.with("max_depth", max_depth);
        }
        out = out.with_next_step(if mode == Mode::Scope && rows.is_empty() {
            "the line is at module level (no enclosing definition); use mode=path for the node path"
        } else {
            "other views of the same line: mode=path|scope|outline|siblings"
        });
        if root.has_error() {
            out = out.with_warning(format!("{} has syntax errors", f.rel));
        }
        Ok(out.with_list(
            ListSpelling {
                list_key: "nodes",
                total_key: "node_count",
                listed_key: "nodes_listed",
                cap_key: "listed_cap",
                noun: match mode {
                    Mode::Path => "path nodes",
                    Mode::Scope => "scopes",
                    Mode::Outline => "subtree nodes",
                    Mode::Siblings => "siblings",
                },
                remedy: "lower max_depth, or ask about a more specific line".into(),
            },
            Capped::collect(rows, fixed_cap(MAX_ROWS)),
        ))
    }
}
