//! `nav caller_tree`: the nested tree of who calls a function, level by level, over
//! resolved call edges (shared with `nav callee_tree`).

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::graph::{Dir, IndexGraph, One, TreeEntry, depth_param, load_symbols, nest, tree};
use tsa_analysis::trust::Assessor;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, definitions_json, find_one, open_index};
use crate::actions::nav::callers::{CALLERS_VERDICT_RULE, callers_verdict};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Walks stop counting after this many tree entries (the count is then a floor).
const COUNT_LIMIT: usize = 20_000;

/// Arguments of `nav caller_tree` and `nav callee_tree`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Function or method name at the root; `ClassName.method` narrows to one type.
    pub symbol: String,
    /// Project-relative file that defines the function, to pick one of several definitions.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Levels below the root (default 3, at most 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10))]
    pub max_depth: Option<i64>,
    /// Most nodes to list below the root (default 50). The exact number of nodes
    /// within max_depth is always reported as total_nodes.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_nodes: Option<i64>,
}

pub struct CallerTree;

impl Action for CallerTree {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "caller_tree";
    const SUMMARY: &'static str = "nested tree of callers to max_depth (cycles marked, exact node count, each node with its edge's resolution)";
    const BRIEF: &'static str = "tree of callers";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        run_tree(ctx, args, Dir::Up)
    }
}

/// The tree answer for either direction.
pub(crate) fn run_tree(ctx: &Context, args: Args, dir: Dir) -> Result<Success, ToolError> {
    let label = match dir {
        Dir::Up => "caller_tree",
        Dir::Down => "callee_tree",
    };
    let (noun, other) = match dir {
        Dir::Up => ("callers", "callee_tree"),
        Dir::Down => ("callees", "caller_tree"),
    };
    let (max_depth, clamped) = depth_param("max_depth", args.max_depth, 3, 10)?;
    let max_nodes = cap("max_nodes", args.max_nodes, 50)?;
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let picked;
    let root = match find_one(ctx, index, label, &args.symbol, args.file_path.as_deref())? {
        One::Found(d, w) => {
            picked = w;
            d
        }
        One::Answer(s) => return Ok(s),
    };
    let mut g = IndexGraph::new(index);
    let t = tree(&mut g, root.id, dir, max_depth, COUNT_LIMIT)?;
    let total = t.entries.len() - 1;
    let listed = total.min(max_nodes.get());
    let mut syms = HashMap::new();
    load_symbols(
        index,
        &mut syms,
        t.entries.iter().take(listed + 1).map(|e| e.node),
    )?;
    let mut render = |e: &TreeEntry| -> Value {
        let mut v = match syms.get(&e.node) {
            Some(s) => {
                json!({"name": s.name, "qualified_name": s.qualname, "file": s.file, "line": s.line})
            }
            None => json!({"id": e.node}),
        };
        if let Some(h) = &e.hop {
            v["resolution"] = json!(h.resolution.as_str());
            v["confidence"] = json!(h.confidence);
            v["call_line"] = json!(h.line);
            if h.test {
                v["in_test"] = json!(true);
            }
        }
        if e.cycle {
            v["cycle"] = json!(true);
        }
        if e.repeat {
            v["repeat"] = json!(true);
        }
        v
    };
    let nested = nest(&t.entries, listed, &mut render);
    let rows: Vec<Value> = t.entries[1..]
        .iter()
        .take(listed)
        .map(|e| {
            let mut v = render(e);
            v["depth"] = json!(e.depth);
            if let Some(p) = e.parent.and_then(|p| syms.get(&t.entries[p].node)) {
                v["parent"] = json!(p.qualname);
            }
            v
        })
        .collect();
    let mut by_depth: BTreeMap<u32, usize> = BTreeMap::new();
    for e in &t.entries[1..] {
        *by_depth.entry(e.depth).or_insert(0) += 1;
    }
    let levels: Vec<Value> = by_depth
        .iter()
        .map(|(d, n)| json!({"depth": d, "nodes": n}))
        .collect();
    let cycles = t.entries.iter().filter(|e| e.cycle).count();
    let distinct = t.entries[1..]
        .iter()
        .filter(|e| !e.cycle && !e.repeat)
        .count();
    // Who calls the root rests on the call graph's completeness there.
    let trust = match dir {
        Dir::Up => Some(Assessor::new(index, ctx.root()?).assess(std::slice::from_ref(&root), 0)?),
        Dir::Down => None,
    };
    let verdict = match &trust {
        Some(t) => callers_verdict(total, t),
        None if total > 0 => Verdict::Info,
        None => Verdict::NotFound,
    };
    let step = if total == 0 {
        let unresolved = trust.as_ref().map_or(0, |t| t.open.total);
        if unresolved > 0 {
            format!(
                "No resolved {noun} of '{}'; {unresolved} unresolved call site(s) share its name: inspect them with nav action=callers scope=point",
                args.symbol
            )
        } else {
            format!(
                "'{}' has no resolved {noun}; try nav action={other} for the other direction",
                args.symbol
            )
        }
    } else {
        format!(
            "Nodes marked cycle: true are already on their path (recursion); repeat: true were expanded elsewhere in the tree. Run nav action={label} on a leaf to go deeper."
        )
    };
    let mut s = Success::new(
        verdict,
        format!(
            "{label}: '{}' has {total} node(s) within depth {max_depth} ({distinct} distinct function(s))",
            args.symbol
        ),
    )
    .with("function", args.symbol.as_str())
    .with("definition", definitions_json(std::slice::from_ref(&root)))
    .with("root", nested)
    .with("max_depth", max_depth)
    .with("levels", Value::Array(levels))
    .with("distinct_functions", distinct)
    .with("cycle_count", cycles)
    .with_list(
        ListSpelling {
            list_key: "nodes",
            total_key: "total_nodes",
            listed_key: "node_count",
            cap_key: "max_nodes",
            noun: "nodes",
            remedy: "raise max_nodes (or lower max_depth); the tree under root holds the same listed nodes".into(),
        },
        Capped::counted(rows, total, max_nodes),
    )
    .with_next_step(step)
    .with_agent("total_nodes", total);
    if let Some(tr) = &trust {
        let mut basis = vec![CALLERS_VERDICT_RULE.to_owned()];
        basis.extend(tr.basis());
        s = tr.annotate(s.with("verdict_basis", json!(basis)));
    }
    if !t.complete {
        s = s.with("total_is_lower_bound", true).with_warning(format!(
            "the walk stopped counting at {COUNT_LIMIT} nodes; total_nodes is a lower bound"
        ));
    }
    if let Some(w) = clamped {
        s = s.with_warning(w);
    }
    if let Some(w) = picked {
        s = s.with_warning(w);
    }
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}
