//! `viz similarity`: clone groups of functions (analyses §13). Structural: the
//! pre-order sequence of `<node kind>:<child count>` of a function's parse tree to
//! depth 15 (names and literals ignored). Textual: the function's tokens with
//! comments dropped (comment nodes of the grammar, so `#` in C or CSS is safe) and
//! identifiers replaced by `_`. Equal fingerprints (BLAKE3, stable across runs)
//! make a group.

use std::collections::{BTreeMap, HashMap};

use globset::{Glob, GlobSetBuilder};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{cap, open_index};
use crate::{Context, ToolError};

/// Which fingerprints to compare.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    All,
    Structural,
    Textual,
}

/// Arguments of `viz similarity`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Shortest function body compared, in lines (default 5).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub min_lines: Option<i64>,
    /// Fewest functions that make a group (default 2).
    #[serde(default)]
    #[schemars(range(min = 2))]
    pub min_group_size: Option<i64>,
    /// Most groups listed (default 20); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_groups: Option<i64>,
    /// Accepted for compatibility: candidates always come from the index.
    #[serde(default)]
    pub use_cache: Option<bool>,
    /// Inline the functions' bodies (default false: up to 3 sample files per group).
    #[serde(default)]
    pub include_bodies: Option<bool>,
    /// Comma-separated globs of files to compare (default: all).
    #[serde(default)]
    pub path_filter: Option<String>,
}

pub struct Similarity;

const MAX_DEPTH: usize = 15;

fn structural(node: tree_sitter::Node<'_>, depth: usize, h: &mut blake3::Hasher) {
    let mut c = node.walk();
    // Comments are not structure.
    let children: Vec<_> = node
        .children(&mut c)
        .filter(|n| !n.kind().contains("comment"))
        .collect();
    h.update(node.kind().as_bytes());
    h.update(format!(":{}|", children.len()).as_bytes());
    if depth >= MAX_DEPTH {
        return;
    }
    for child in children {
        structural(child, depth + 1, h);
    }
}

/// Hashes the leaves in source order (names as `_`), with an explicit stack: a
/// deeply nested function must not exhaust the thread's stack.
fn textual(node: tree_sitter::Node<'_>, src: &[u8], h: &mut blake3::Hasher) {
    let mut stack = vec![node];
    let mut c = node.walk();
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        if kind.contains("comment") {
            continue;
        }
        if node.child_count() == 0 {
            if node.is_named()
                && (kind.contains("identifier") || kind == "name" || kind == "constant")
            {
                h.update(b"_");
            } else {
                let text = node.utf8_text(src).unwrap_or("");
                let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                h.update(squeezed.as_bytes());
            }
            h.update(b"\x1f");
            continue;
        }
        let start = stack.len();
        stack.extend(node.children(&mut c));
        stack[start..].reverse();
    }
}

/// The node of a definition: the outermost node starting on its first line and
/// ending on its last.
fn def_node<'t>(root: tree_sitter::Node<'t>, d: &SymbolRow) -> Option<tree_sitter::Node<'t>> {
    let (first, last) = (d.line as usize - 1, d.end_line as usize - 1);
    let mut node = root.descendant_for_point_range(
        tree_sitter::Point::new(first, 0),
        tree_sitter::Point::new(last, 0),
    )?;
    while let Some(p) = node.parent() {
        if p.start_position().row < first || p.end_position().row > last {
            break;
        }
        node = p;
    }
    (node.start_position().row >= first && node.end_position().row <= last).then_some(node)
}

impl Action for Similarity {
    type Args = Args;
    const FACADE: &'static str = "viz";
    const NAME: &'static str = "similarity";
    const SUMMARY: &'static str =
        "clone groups of functions by parse-tree structure and by token text (names ignored)";
    const BRIEF: &'static str = "clone groups";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or_default();
        let min_lines = cap("min_lines", args.min_lines, 5)?.get() as u32;
        let min_group = cap("min_group_size", args.min_group_size, 2)?.get().max(2);
        let max_groups = cap("max_groups", args.max_groups, 20)?;
        let include_bodies = args.include_bodies.unwrap_or(false);
        let filter = match args
            .path_filter
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            None => None,
            Some(list) => {
                let mut b = GlobSetBuilder::new();
                for g in list.split(',').map(str::trim).filter(|g| !g.is_empty()) {
                    b.add(Glob::new(g).map_err(|e| {
                        ToolError::Validation(format!("path_filter: bad glob '{g}': {e}"))
                    })?);
                }
                Some(
                    b.build()
                        .map_err(|e| ToolError::Validation(e.to_string()))?,
                )
            }
        };
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let root = ctx.root()?;
        // Candidates by file.
        let mut by_file: BTreeMap<String, Vec<SymbolRow>> = BTreeMap::new();
        for f in index.files()? {
            if filter.as_ref().is_some_and(|g| !g.is_match(&f)) {
                continue;
            }
            let defs: Vec<SymbolRow> = index
                .symbols_in_file(&f)?
                .into_iter()
                .filter(|d| {
                    matches!(d.kind.as_str(), "function" | "method")
                        && d.end_line + 1 >= d.line + min_lines
                })
                .collect();
            if !defs.is_empty() {
                by_file.insert(f, defs);
            }
        }
        let candidates: usize = by_file.values().map(Vec::len).sum();
        // One parse per file, on all cores.
        let prints: Vec<(String, String, SymbolRow)> = by_file
            .into_par_iter()
            .flat_map_iter(|(file, defs)| {
                let mut out = Vec::new();
                let Some(lang) = Language::from_path(&file) else {
                    return out;
                };
                let Ok(src) = tsa_analysis::security::read_in_root(root, &file) else {
                    return out;
                };
                let mut parser = tree_sitter::Parser::new();
                if parser.set_language(&lang.grammar()).is_err() {
                    return out;
                }
                let Some(tree) = parser.parse(&src, None) else {
                    return out;
                };
                for d in defs {
                    let Some(node) = def_node(tree.root_node(), &d) else {
                        continue;
                    };
                    if mode != Mode::Textual {
                        let mut h = blake3::Hasher::new();
                        h.update(lang.name().as_bytes());
                        structural(node, 0, &mut h);
                        out.push((
                            "structural".to_owned(),
                            h.finalize().to_hex()[..16].to_owned(),
                            d.clone(),
                        ));
                    }
                    if mode != Mode::Structural {
                        let mut h = blake3::Hasher::new();
                        h.update(lang.name().as_bytes());
                        textual(node, &src, &mut h);
                        out.push((
                            "textual".to_owned(),
                            h.finalize().to_hex()[..16].to_owned(),
                            d,
                        ));
                    }
                }
                out
            })
            .collect();
        let mut groups: HashMap<(String, String), Vec<SymbolRow>> = HashMap::new();
        for (method, fp, d) in prints {
            groups.entry((method, fp)).or_default().push(d);
        }
        let mut groups: Vec<((String, String), Vec<SymbolRow>)> = groups
            .into_iter()
            .filter(|(_, v)| v.len() >= min_group)
            .collect();
        // Biggest groups first, then the longest functions.
        groups.sort_by(|a, b| {
            b.1.len()
                .cmp(&a.1.len())
                .then_with(|| {
                    let lines = |v: &Vec<SymbolRow>| v[0].end_line - v[0].line;
                    lines(&b.1).cmp(&lines(&a.1))
                })
                .then_with(|| a.0.cmp(&b.0))
        });
        let instances: usize = groups.iter().map(|(_, v)| v.len()).sum();
        let listed = Capped::collect(groups, max_groups);
        let mut bodies = Bodies::new(
            root,
            BodyBudget {
                rows: 40,
                lines_each: 60,
                lines_total: 600,
            },
        );
        let rows = listed.map(|((method, fp), funcs)| {
            let mut g = json!({
                "fingerprint": fp,
                "method": method,
                "similarity": 1.0,
                "function_count": funcs.len(),
                "lines": funcs[0].end_line - funcs[0].line + 1,
            });
            if include_bodies {
                g["functions"] = json!(funcs
                    .iter()
                    .map(|f| {
                        let mut v = json!({"name": f.qualname, "file": f.file, "line": f.line, "end_line": f.end_line});
                        if let Some(b) = bodies.body(&f.qualname, &f.file, f.line, f.end_line) {
                            v["body"] = b;
                        }
                        v
                    })
                    .collect::<Vec<_>>());
            } else {
                let mut files: Vec<&str> = funcs.iter().map(|f| f.file.as_str()).collect();
                files.dedup();
                g["sample_files"] = json!(files.iter().take(3).collect::<Vec<_>>());
                g["sample_functions"] = json!(funcs
                    .iter()
                    .take(3)
                    .map(|f| format!("{}:{} {}", f.file, f.line, f.qualname))
                    .collect::<Vec<_>>());
            }
            g
        });
        let verdict = if rows.total() == 0 {
            Verdict::Info
        } else if instances > 50 {
            Verdict::Review
        } else {
            Verdict::Caution
        };
        let mut s = Success::new(
            verdict,
            format!(
                "similarity: {} clone group(s), {instances} function(s) in them, of {candidates} compared",
                rows.total()
            ),
        )
        .with("project_root", ".")
        .with(
            "stats",
            json!({
                "candidates": candidates,
                "total_clone_instances": instances,
                "min_lines": min_lines,
                "min_group_size": min_group,
                "mode": format!("{mode:?}").to_lowercase(),
            }),
        )
        .with_list(
            ListSpelling {
                list_key: "groups",
                total_key: "group_count",
                listed_key: "groups_listed",
                cap_key: "max_groups",
                noun: "clone groups",
                remedy: "raise max_groups, or path_filter to one area".into(),
            },
            rows,
        )
        .with_next_step(if instances == 0 {
            "No clones at this size; lower min_lines to look for smaller ones.".to_owned()
        } else {
            "Read a group with include_bodies=true, then extract the shared logic once.".to_owned()
        });
        if args.use_cache == Some(false) {
            s = s.with_warning(
                "use_cache=false: candidates still come from the index, which is kept in sync by content hash",
            );
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
