//! `nav context`: one call for a task: BM25 symbol search for the task's words, the
//! best definitions, their callers and callees over resolved edges, and the code of
//! the most relevant ones.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::graph::{Dir, Hop, IndexGraph, Neighbors, load_symbols, node_json};
use tsa_analysis::source::{BODY_LINES_EACH, Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{IncludeBodies, cap, open_index, split_qualified};
use crate::{Context, ToolError};

/// Arguments of `nav context`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The task in words, or a symbol name.
    pub task: String,
    /// Most graph nodes (definitions, callers, callees) to list (default 30).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_nodes: Option<i64>,
    /// Most code bodies to inline (default 3; with include_bodies=all, max_nodes).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_code_blocks: Option<i64>,
    /// Also list the call edges among the listed nodes (default false).
    #[serde(default)]
    pub include_graph: Option<bool>,
    /// Which nodes get their source inlined under code_blocks: `none`, `top` (default: max_code_blocks of them), `all`; each body at most 40 lines.
    #[serde(default)]
    pub include_bodies: Option<IncludeBodies>,
}

pub struct TaskContext;

const CALLABLE: &[&str] = &[
    "function",
    "method",
    "class",
    "struct",
    "trait",
    "interface",
    "enum",
];
const STOP: &[&str] = &[
    "the", "a", "an", "to", "of", "in", "and", "or", "for", "how", "does", "do", "is", "what",
    "where", "why", "with", "fix", "add", "on", "it", "this", "that", "when", "from", "by",
];

/// The budget of code blocks: none, or `max_blocks` bodies of at most 40 lines.
fn block_budget(include: IncludeBodies, max_blocks: usize) -> BodyBudget {
    BodyBudget {
        rows: if include == IncludeBodies::None {
            0
        } else {
            max_blocks
        },
        lines_each: BODY_LINES_EACH,
        lines_total: usize::MAX,
    }
}

/// A definition's code block (flat: `qualified_name`, `file`, then the body fields),
/// or none when the budget is spent.
fn code_block(bodies: &mut Bodies, s: &SymbolRow) -> Option<Value> {
    let b = bodies.inline(&s.file, s.line, s.end_line);
    b.body.as_ref()?;
    let mut block = json!({"qualified_name": s.qualname, "file": s.file});
    if let (Value::Object(m), Value::Object(f)) = (&mut block, json!(b)) {
        m.extend(f);
    }
    Some(block)
}

/// A listed node: id, role (`match|caller|callee`), and the seed and hop it came by.
type Node = (i64, &'static str, Option<(i64, Hop)>);

/// The seed definitions: an exact name (or ClassName.method) first, then BM25 hits.
fn seeds(
    index: &tsa_index::Index,
    task: &str,
    want: usize,
) -> Result<(Vec<SymbolRow>, u64), ToolError> {
    let mut out: Vec<SymbolRow> = Vec::new();
    let mut seen = HashSet::new();
    let trimmed = task.trim();
    if !trimmed.contains(char::is_whitespace) {
        let (owner, name) = split_qualified(trimmed);
        for d in index.find_symbols(name, owner, None)? {
            if CALLABLE.contains(&d.kind.as_str()) && seen.insert(d.id) {
                out.push(d);
            }
        }
    }
    let words: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && !STOP.contains(&w.to_lowercase().as_str()))
        .map(str::to_owned)
        .collect();
    let (hits, total) = index.search(&words.join(" "), None, CALLABLE, want * 4 + 20)?;
    // Production code first among equally ranked hits.
    let mut hits: Vec<(SymbolRow, f64)> = hits;
    hits.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.is_test.cmp(&b.0.is_test)));
    for (d, _) in hits {
        if out.len() >= want {
            break;
        }
        if seen.insert(d.id) {
            out.push(d);
        }
    }
    out.truncate(want.max(1));
    Ok((out, total))
}

impl Action for TaskContext {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "context";
    const SUMMARY: &'static str = "one call for a task: best-matching definitions, their callers and callees, code of the best 3 inlined";
    const BRIEF: &'static str = "context for a task in one call";
    const ALIASES: &'static [(&'static str, &'static str)] =
        &[("symbol", "task"), ("query", "task")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_nodes = cap("max_nodes", args.max_nodes, 30)?;
        let include = args.include_bodies.unwrap_or_default();
        let max_blocks = match (include, args.max_code_blocks) {
            (IncludeBodies::All, None) => max_nodes,
            _ => cap("max_code_blocks", args.max_code_blocks, 3)?,
        };
        let include_graph = args.include_graph.unwrap_or(false);
        if args.task.trim().is_empty() {
            return Err(ToolError::Validation(
                "parameter 'task' must be a non-empty string".into(),
            ));
        }
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let seed_count = max_nodes.get().min(5);
        let (seed_defs, matches) = seeds(index, &args.task, seed_count)?;
        if seed_defs.is_empty() {
            let longest = args
                .task
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .max_by_key(|w| w.len())
                .unwrap_or("");
            let suggestions = index.suggest(longest, 5)?;
            return Ok(Success::new(Verdict::NotFound, format!("context: nothing in the index matches '{}'", args.task))
                .with("task", args.task.as_str())
                .with("suggestions", json!(suggestions))
                .with_next_step("No definition matches these words; try other words (identifiers are split on _ and case), or search action=content for text."));
        }
        let ids: Vec<i64> = seed_defs.iter().map(|d| d.id).collect();
        let mut g = IndexGraph::new(index);
        let up = g.neighbors(&ids, Dir::Up)?;
        let down = g.neighbors(&ids, Dir::Down)?;
        // Nodes: seeds, then neighbours (production before test, by confidence).
        let mut nodes: Vec<Node> = ids.iter().map(|id| (*id, "match", None)).collect();
        let mut placed: HashSet<i64> = ids.iter().copied().collect();
        let mut neigh: Vec<(i64, &'static str, i64, Hop)> = Vec::new();
        for id in &ids {
            for h in up.get(id).into_iter().flatten() {
                neigh.push((h.node, "caller", *id, *h));
            }
            for h in down.get(id).into_iter().flatten() {
                neigh.push((h.node, "callee", *id, *h));
            }
        }
        neigh.sort_by(|a, b| {
            a.3.test
                .cmp(&b.3.test)
                .then(b.3.confidence.total_cmp(&a.3.confidence))
        });
        for (n, role, of, h) in neigh {
            if placed.insert(n) {
                nodes.push((n, role, Some((of, h))));
            }
        }
        let mut syms: HashMap<i64, SymbolRow> =
            seed_defs.iter().map(|d| (d.id, d.clone())).collect();
        let total = nodes.len();
        nodes.truncate(max_nodes.get());
        load_symbols(index, &mut syms, nodes.iter().map(|n| n.0))?;
        let mut bodies = Bodies::new(ctx.root()?, block_budget(include, max_blocks.get()));
        let mut blocks = Vec::new();
        let mut block_total = 0;
        let rows: Vec<Value> = nodes
            .iter()
            .filter_map(|(id, role, via)| {
                let s = syms.get(id)?;
                let mut v = node_json(s);
                v["role"] = json!(role);
                v["signature"] = json!(s.signature);
                // Every row has the same keys (one table): null where no hop led here.
                v["of"] = json!(via.and_then(|(of, _)| syms.get(&of).map(|o| o.qualname.clone())));
                v["resolution"] = json!(via.map(|(_, h)| h.resolution.as_str()));
                v["confidence"] = json!(via.map(|(_, h)| h.confidence));
                if !s.is_test || *role == "match" {
                    block_total += 1;
                    blocks.extend(code_block(&mut bodies, s));
                }
                Some(v)
            })
            .collect();
        let listed: HashSet<i64> = nodes.iter().map(|n| n.0).collect();
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "context: {} definition(s) match '{}', {total} node(s) around them",
                seed_defs.len(),
                args.task
            ),
        )
        .with("task", args.task.as_str())
        .with("search_matches", matches)
        .with(
            "matches",
            Value::Array(seed_defs.iter().map(node_json).collect()),
        )
        .with_list(
            ListSpelling {
                list_key: "nodes",
                total_key: "node_total",
                listed_key: "nodes_listed",
                cap_key: "max_nodes",
                noun: "nodes",
                remedy: "raise max_nodes, or name the symbol exactly in task".into(),
            },
            Capped::counted(rows, total, max_nodes),
        )
        .with_list(
            ListSpelling {
                list_key: "code_blocks",
                total_key: "code_block_candidates",
                listed_key: "code_blocks_listed",
                cap_key: "max_code_blocks",
                noun: "code blocks",
                remedy: "raise max_code_blocks".into(),
            },
            Capped::counted(blocks, block_total, max_blocks),
        );
        if include_graph {
            let mut edges = Vec::new();
            let mut seen_edges: HashSet<(i64, i64)> = HashSet::new();
            for (map, up_dir) in [(&up, true), (&down, false)] {
                for id in &ids {
                    for h in map.get(id).into_iter().flatten() {
                        if !listed.contains(&h.node) {
                            continue;
                        }
                        let (caller, callee) = if up_dir { (h.node, *id) } else { (*id, h.node) };
                        if !seen_edges.insert((caller, callee)) {
                            continue;
                        }
                        let q = |i: i64| syms.get(&i).map(|s| s.qualname.clone());
                        edges.push(
                            json!({"caller": q(caller), "callee": q(callee), "line": h.line,
                            "resolution": h.resolution.as_str(), "confidence": h.confidence}),
                        );
                    }
                }
            }
            s = s.with_list(
                ListSpelling {
                    list_key: "edges",
                    total_key: "edge_total",
                    listed_key: "edges_listed",
                    cap_key: "edges_cap",
                    noun: "edges",
                    remedy: "raise max_nodes".into(),
                },
                Capped::collect(
                    edges,
                    crate::actions::common::fixed_cap(4 * max_nodes.get()),
                ),
            );
        }
        s = s.with_next_step(
            "Bodies of the best matches are under code_blocks (each capped at 40 lines, cut lines named in body_cut_lines); include_bodies=all inlines every listed node, structure action=read shows one file's lines; nav action=caller_tree / callee_tree go deeper from one node.",
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
