//! `structure ast_path`: the tree-sitter parse tree at one line — the node path from
//! the root, the enclosing definitions (scope), the subtree of the innermost scope
//! (outline) or the nodes beside the one at the line (siblings).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::ast_view::{View, ast_view};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, to_value, with_payload};
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

/// The payload of `structure ast_path`, in answer order (the nodes follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct AstPathPayload<'a> {
    /// The file, project-relative.
    pub file_path: &'a str,
    /// The language it was parsed as.
    pub language: &'static str,
    /// The view.
    pub mode: &'static str,
    /// The line asked (null for the outline of the whole file).
    pub line: Option<usize>,
    /// Kind of the innermost node at the line.
    pub node_type: &'a str,
    /// Lines in the file.
    pub line_count: usize,
    /// With outline: the levels shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
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
        let view = match mode {
            Mode::Path => View::Path,
            Mode::Scope => View::Scope,
            Mode::Outline => View::Outline,
            Mode::Siblings => View::Siblings,
        };
        let v = ast_view(f.lang, &f.rel, &f.text, &f.extract, line, view, max_depth)?;
        let noun = match mode {
            Mode::Path => "path nodes",
            Mode::Scope => "enclosing scopes",
            Mode::Outline => "subtree nodes",
            Mode::Siblings => "sibling nodes",
        };
        let rows: Vec<Value> = v.rows.iter().map(to_value).collect();
        let mode_name = match mode {
            Mode::Path => "path",
            Mode::Scope => "scope",
            Mode::Outline => "outline",
            Mode::Siblings => "siblings",
        };
        let at = line.map(|l| format!(":{l}")).unwrap_or_default();
        let innermost = v.innermost.as_str();
        let payload = AstPathPayload {
            file_path: &f.rel,
            language: f.lang.name(),
            mode: mode_name,
            line,
            node_type: innermost,
            line_count: count,
            max_depth: (mode == Mode::Outline).then_some(max_depth),
        };
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "ast_path {}{at} ({mode_name}): {} {noun}, innermost node {innermost}",
                    f.rel,
                    rows.len()
                ),
            ),
            &payload,
        );
        out = out.with_next_step(if mode == Mode::Scope && rows.is_empty() {
            "the line is at module level (no enclosing definition); use mode=path for the node path"
        } else {
            "other views of the same line: mode=path|scope|outline|siblings"
        });
        if v.has_error {
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
