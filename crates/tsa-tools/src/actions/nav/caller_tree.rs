//! `nav caller_tree`: the nested tree of who calls a function, level by level, over
//! resolved call edges (shared with `nav callee_tree`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::graph::{Definition, Dir, One, definitions, depth_param};
use tsa_analysis::trees::{self, COUNT_LIMIT, Level, NestedNode};
use tsa_analysis::trust::Assessor;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, find_one, open_index, to_value, with_payload};
use crate::actions::nav::callers::{callers_rule, callers_verdict};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

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

/// The payload of a tree answer (the `nodes` list goes in capped).
#[derive(Serialize)]
pub struct TreePayload {
    /// The name as asked.
    pub function: String,
    /// The definition it resolved to.
    pub definition: Vec<Definition>,
    /// The root with the listed nodes nested under it.
    pub root: NestedNode,
    /// Levels walked.
    pub max_depth: u32,
    /// Nodes per depth.
    pub levels: Vec<Level>,
    /// Nodes that are neither cycles nor repeats.
    pub distinct_functions: usize,
    /// Nodes marked `cycle`.
    pub cycle_count: usize,
}

/// The tree answer for either direction.
pub(crate) fn run_tree(ctx: &Context, args: Args, dir: Dir) -> Result<Success, ToolError> {
    let label = match dir {
        Dir::Up => "caller_tree",
        Dir::Down => "callee_tree",
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
    let t = trees::call_tree(index, &root, dir, max_depth, max_nodes)?;
    let total = t.total;
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
    let step = tree_step(
        &args.symbol,
        dir,
        total,
        trust.as_ref().map_or(0, |t| t.open.total),
    );
    let s = Success::new(
        verdict,
        format!(
            "{label}: '{}' has {total} node(s) within depth {max_depth} ({} distinct function(s))",
            args.symbol, t.distinct
        ),
    );
    let rows: Vec<Value> = t.rows.iter().map(to_value).collect();
    let payload = TreePayload {
        function: args.symbol.clone(),
        definition: definitions(std::slice::from_ref(&root)),
        root: t.root,
        max_depth,
        levels: t.levels,
        distinct_functions: t.distinct,
        cycle_count: t.cycles,
    };
    let mut s = with_payload(s, &payload)
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
        let mut basis = vec![callers_rule(total, tr)];
        basis.extend(tr.completeness_basis());
        s = tr.annotate(s.with("verdict_basis", basis));
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

/// The next step of a tree answer with `total` nodes and `unresolved` open sites.
fn tree_step(symbol: &str, dir: Dir, total: usize, unresolved: u64) -> String {
    let label = match dir {
        Dir::Up => "caller_tree",
        Dir::Down => "callee_tree",
    };
    let (noun, other) = match dir {
        Dir::Up => ("callers", "callee_tree"),
        Dir::Down => ("callees", "caller_tree"),
    };
    if total > 0 {
        format!(
            "Nodes marked cycle: true are already on their path (recursion); repeat: true were expanded elsewhere in the tree. Run nav action={label} on a leaf to go deeper."
        )
    } else if unresolved > 0 {
        format!(
            "No resolved {noun} of '{symbol}'; {unresolved} unresolved call site(s) share its name: inspect them with nav action=callers scope=point"
        )
    } else {
        format!("'{symbol}' has no resolved {noun}; try nav action={other} for the other direction")
    }
}
