//! `viz graph`: the call graph of the project, a file or a function as a Mermaid
//! flowchart (or a Graphology JSON graph for Sigma), capped at `max_edges` with the
//! exact total of edges kept.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::call_graph::{
    Drawing, call_edges, drawing, keep_around, keep_file, one_per_pair,
};
use tsa_analysis::graph::{One, depth_param};
use tsa_analysis::mermaid;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{cap, find_one, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// What to draw.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every resolved call edge of the project.
    #[default]
    Full,
    /// Edges into or out of one file.
    File,
    /// Callers and callees of one function, `depth` levels each way.
    Function,
}

/// Flowchart direction.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
pub enum Direction {
    #[default]
    TD,
    LR,
    BT,
    RL,
}

/// Output form.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Mermaid,
    /// Graphology-compatible JSON (`graph`) for Sigma.js.
    Sigma,
}

/// Arguments of `viz graph`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub mode: Option<Mode>,
    /// The file of mode=file.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// The function of mode=function (`Class.method` narrows).
    #[serde(default)]
    pub function: Option<String>,
    /// Levels each way in mode=function (default 3, at most 10).
    #[serde(default)]
    pub depth: Option<i64>,
    /// Most edges drawn (default 150); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_edges: Option<i64>,
    #[serde(default)]
    pub direction: Option<Direction>,
    #[serde(default)]
    pub visualization_format: Option<Format>,
    /// Also draw calls made by test code (default false).
    #[serde(default)]
    pub include_tests: Option<bool>,
}

pub struct Graph;

/// `attributes` of the Sigma graph.
#[derive(Debug, Serialize)]
pub struct SigmaAttributes {
    pub name: String,
}

/// `options` of the Sigma graph.
#[derive(Debug, Serialize)]
pub struct SigmaOptions {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub multi: bool,
    #[serde(rename = "allowSelfLoops")]
    pub allow_self_loops: bool,
}

/// A node's attributes.
#[derive(Debug, Serialize)]
pub struct NodeLabel<'a> {
    pub label: &'a str,
}

/// A node of the Sigma graph.
#[derive(Debug, Serialize)]
pub struct SigmaNode<'a> {
    pub key: &'a str,
    pub attributes: NodeLabel<'a>,
}

/// An edge of the Sigma graph.
#[derive(Debug, Serialize)]
pub struct SigmaEdge<'a> {
    pub key: String,
    pub source: &'a str,
    pub target: &'a str,
}

/// The Graphology-compatible graph for Sigma.js.
#[derive(Debug, Serialize)]
pub struct SigmaGraph<'a> {
    pub attributes: SigmaAttributes,
    pub options: SigmaOptions,
    pub nodes: Vec<SigmaNode<'a>>,
    pub edges: Vec<SigmaEdge<'a>>,
}

impl<'a> SigmaGraph<'a> {
    fn of(subject: &str, d: &'a Drawing) -> SigmaGraph<'a> {
        SigmaGraph {
            attributes: SigmaAttributes {
                name: format!("call graph of {subject}"),
            },
            options: SigmaOptions {
                kind: "directed",
                multi: false,
                allow_self_loops: true,
            },
            nodes: d
                .nodes
                .iter()
                .map(|(id, label)| SigmaNode {
                    key: id,
                    attributes: NodeLabel { label },
                })
                .collect(),
            edges: d
                .pairs
                .iter()
                .map(|(a, b)| SigmaEdge {
                    key: format!("{a}->{b}"),
                    source: a,
                    target: b,
                })
                .collect(),
        }
    }
}

/// The payload of `viz graph` before its capped list: the picture is `mermaid`
/// text or a Sigma `graph`.
#[derive(Debug, Serialize)]
pub struct GraphPayload<'a> {
    pub mode: &'static str,
    pub subject: &'a str,
    pub node_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mermaid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<SigmaGraph<'a>>,
}

/// A call edge drawn, as a row of `edges`.
#[derive(Debug, Serialize)]
pub struct EdgeRow<'a> {
    pub source: Option<&'a str>,
    pub source_file: Option<&'a str>,
    pub target: Option<&'a str>,
    pub target_file: Option<&'a str>,
    pub line: u32,
    pub resolution: &'static str,
    pub confidence: f64,
}

/// After the list, when test code was left out.
#[derive(Debug, Serialize)]
struct TestsExcluded {
    tests_excluded: bool,
}

impl Action for Graph {
    type Args = Args;
    const FACADE: &'static str = "viz";
    const NAME: &'static str = "graph";
    const SUMMARY: &'static str =
        "Mermaid (or Graphology) call graph of the project, a file or a function, capped honestly";
    const BRIEF: &'static str = "Mermaid call graph";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "function")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or_default();
        let max_edges = cap("max_edges", args.max_edges, 150)?;
        let (depth, depth_warning) = depth_param("depth", args.depth, 3, 10)?;
        let include_tests = args.include_tests.unwrap_or(false);
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let mut warnings: Vec<String> = depth_warning.into_iter().collect();
        let mut syms: HashMap<i64, SymbolRow> = HashMap::new();
        let mut edges = call_edges(index, include_tests)?;
        let subject = match mode {
            Mode::Full => "project".to_owned(),
            Mode::File => {
                let Some(f) = args.file_path.as_deref() else {
                    return Err(ToolError::Validation(
                        "viz action=graph mode=file needs file_path".into(),
                    ));
                };
                let file = source_file(ctx.root()?, f)?;
                keep_file(index, &mut syms, &mut edges, &file)?;
                file
            }
            Mode::Function => {
                let Some(name) = args.function.as_deref() else {
                    return Err(ToolError::Validation(
                        "viz action=graph mode=function needs function".into(),
                    ));
                };
                let def = match find_one(ctx, index, "graph", name, args.file_path.as_deref())? {
                    One::Answer(s) => return Ok(s),
                    One::Found(d, w) => {
                        warnings.extend(w);
                        d
                    }
                };
                keep_around(index, &mut edges, def.id, depth)?;
                def.qualname
            }
        };
        one_per_pair(&mut edges);
        let listed = Capped::collect(edges, max_edges);
        let d = drawing(index, &mut syms, listed.items())?;
        let direction = format!("{:?}", args.direction.unwrap_or_default());
        let total = listed.total();
        let node_count = d.nodes.len();
        let (mermaid, graph) = match args.visualization_format.unwrap_or_default() {
            Format::Mermaid => (
                Some(mermaid::flowchart(&direction, &d.nodes, &d.pairs, total)),
                None,
            ),
            Format::Sigma => (None, Some(SigmaGraph::of(&subject, &d))),
        };
        let payload = GraphPayload {
            mode: match mode {
                Mode::Full => "full",
                Mode::File => "file",
                Mode::Function => "function",
            },
            subject: &subject,
            node_count,
            mermaid,
            graph,
        };
        let rows = listed.map(|e| {
            let s = syms.get(&e.caller);
            let t = syms.get(&e.target);
            to_value(&EdgeRow {
                source: s.map(|s| s.qualname.as_str()),
                source_file: s.map(|s| s.file.as_str()),
                target: t.map(|t| t.qualname.as_str()),
                target_file: t.map(|t| t.file.as_str()),
                line: e.line,
                resolution: e.resolution.as_str(),
                confidence: e.confidence,
            })
        });
        let mut s = with_payload(
            Success::new(
                Verdict::Info,
                format!("graph {subject}: {node_count} node(s), {total} call edge(s)"),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "edges",
                total_key: "edge_count",
                listed_key: "edges_listed",
                cap_key: "max_edges",
                noun: "call edges",
                remedy:
                    "raise max_edges, or draw one file (mode=file) or one function (mode=function)"
                        .into(),
            },
            rows,
        )
        .with_next_step(if total == 0 {
            "No resolved call edges here; nav action=callers shows unresolved call sites."
        } else {
            "Render the mermaid text, or open viz action=knowledge for an interactive page."
        });
        if !include_tests {
            s = with_payload(
                s,
                &TestsExcluded {
                    tests_excluded: true,
                },
            );
        }
        for w in warnings {
            s = s.with_warning(w);
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
