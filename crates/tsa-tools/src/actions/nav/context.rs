//! `nav context`: one call for a task: BM25 symbol search for the task's words, the
//! best definitions, their callers and callees over resolved edges, and the code of
//! the most relevant ones.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::graph::Node;
use tsa_analysis::source::{BODY_LINES_EACH, Bodies, BodyBudget};
use tsa_analysis::task_context::{ContextLookup, task_context};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{IncludeBodies, cap, fixed_cap, open_index, to_value, with_payload};
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

/// The payload of `nav context`, in answer order (nodes, code blocks and, with
/// include_graph, edges follow as lists).
#[derive(Clone, Debug, Serialize)]
pub struct ContextPayload<'a> {
    /// The task as asked.
    pub task: &'a str,
    /// Search hits over all definitions.
    pub search_matches: u64,
    /// The matched definitions.
    pub matches: Vec<Node>,
}

/// The payload of `nav context` when nothing matches.
#[derive(Clone, Debug, Serialize)]
pub struct MissingPayload<'a> {
    /// The task as asked.
    pub task: &'a str,
    /// Close names to its longest word.
    pub suggestions: Vec<String>,
}

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
        let mut bodies = Bodies::new(ctx.root()?, block_budget(include, max_blocks.get()));
        let c = match task_context(
            &opened.index,
            &args.task,
            max_nodes.get(),
            include_graph,
            &mut bodies,
        )? {
            ContextLookup::Found(c) => c,
            ContextLookup::Missing(suggestions) => {
                let payload = MissingPayload {
                    task: &args.task,
                    suggestions,
                };
                return Ok(with_payload(Success::new(Verdict::NotFound, format!("context: nothing in the index matches '{}'", args.task)), &payload)
                    .with_next_step("No definition matches these words; try other words (identifiers are split on _ and case), or search action=content for text."));
            }
        };
        let payload = ContextPayload {
            task: &args.task,
            search_matches: c.search_matches,
            matches: c.matches.iter().map(Node::of).collect(),
        };
        let mut s = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "context: {} definition(s) match '{}', {} node(s) around them",
                    c.matches.len(),
                    args.task,
                    c.node_total
                ),
            ),
            &payload,
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
            Capped::counted(
                c.nodes.iter().map(to_value).collect(),
                c.node_total,
                max_nodes,
            ),
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
            Capped::counted(
                c.code_blocks.iter().map(to_value).collect(),
                c.code_block_candidates,
                max_blocks,
            ),
        );
        if let Some(edges) = &c.edges {
            s = s.with_list(
                ListSpelling {
                    list_key: "edges",
                    total_key: "edge_total",
                    listed_key: "edges_listed",
                    cap_key: "edges_cap",
                    noun: "edges",
                    remedy: "raise max_nodes".into(),
                },
                Capped::collect(edges.iter().map(to_value), fixed_cap(4 * max_nodes.get())),
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
