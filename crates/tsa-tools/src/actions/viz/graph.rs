//! `viz graph`: the call graph of the project, a file or a function as a Mermaid
//! flowchart (or a Graphology JSON graph for Sigma), capped at `max_edges` with the
//! exact total of edges kept.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::graph::{Dir, IndexGraph, One, bfs, depth_param, load_symbols};
use tsa_analysis::mermaid;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::Edge;

use crate::action::Action;
use crate::actions::common::{cap, find_one, open_index};
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
        let mut syms = HashMap::new();
        let mut edges: Vec<Edge> = index.all_edges()?;
        if !include_tests {
            edges.retain(|e| !e.caller_is_test && !e.target_is_test);
        }
        let subject = match mode {
            Mode::Full => "project".to_owned(),
            Mode::File => {
                let Some(f) = args.file_path.as_deref() else {
                    return Err(ToolError::Validation(
                        "viz action=graph mode=file needs file_path".into(),
                    ));
                };
                let file = source_file(ctx.root()?, f)?;
                load_symbols(
                    index,
                    &mut syms,
                    edges.iter().flat_map(|e| [e.caller, e.target]),
                )?;
                edges.retain(|e| {
                    [e.caller, e.target]
                        .iter()
                        .any(|id| syms.get(id).is_some_and(|s| s.file == file))
                });
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
                let mut g = IndexGraph::new(index);
                let mut keep: HashSet<i64> = HashSet::from([def.id]);
                for dir in [Dir::Up, Dir::Down] {
                    keep.extend(
                        bfs(&mut g, &[def.id], dir, depth)?
                            .nodes
                            .iter()
                            .map(|(n, _)| *n),
                    );
                }
                edges.retain(|e| keep.contains(&e.caller) && keep.contains(&e.target));
                def.qualname
            }
        };
        // One edge per (caller, target) pair, first call line kept.
        let mut seen = HashSet::new();
        edges.retain(|e| seen.insert((e.caller, e.target)));
        let listed = Capped::collect(edges, max_edges);
        load_symbols(
            index,
            &mut syms,
            listed.items().iter().flat_map(|e| [e.caller, e.target]),
        )?;
        let id_of = |id: i64| {
            syms.get(&id)
                .map(|s| mermaid::node_id(&s.qualname, &s.file))
                .unwrap_or_else(|| format!("sym{id}"))
        };
        let mut nodes: Vec<(String, String)> = Vec::new();
        let mut node_ids: HashSet<i64> = HashSet::new();
        for e in listed.items() {
            for id in [e.caller, e.target] {
                if node_ids.insert(id)
                    && let Some(s) = syms.get(&id)
                {
                    nodes.push((id_of(id), mermaid::label(&s.qualname, &s.file)));
                }
            }
        }
        let pairs: Vec<(String, String)> = listed
            .items()
            .iter()
            .map(|e| (id_of(e.caller), id_of(e.target)))
            .collect();
        let direction = format!("{:?}", args.direction.unwrap_or_default());
        let format = args.visualization_format.unwrap_or_default();
        let total = listed.total();
        let node_count = nodes.len();
        let picture = match format {
            Format::Mermaid => json!(mermaid::flowchart(&direction, &nodes, &pairs, total)),
            Format::Sigma => json!({
                "attributes": {"name": format!("call graph of {subject}")},
                "options": {"type": "directed", "multi": false, "allowSelfLoops": true},
                "nodes": nodes.iter().map(|(id, label)| json!({"key": id, "attributes": {"label": label}})).collect::<Vec<_>>(),
                "edges": pairs.iter().map(|(a, b)| json!({"key": format!("{a}->{b}"), "source": a, "target": b})).collect::<Vec<_>>(),
            }),
        };
        let rows = listed.map(|e| {
            let s = syms.get(&e.caller);
            let t = syms.get(&e.target);
            json!({
                "source": s.map(|s| s.qualname.clone()),
                "source_file": s.map(|s| s.file.clone()),
                "target": t.map(|t| t.qualname.clone()),
                "target_file": t.map(|t| t.file.clone()),
                "line": e.line,
                "resolution": e.resolution.as_str(),
                "confidence": e.confidence,
            })
        });
        let mut s = Success::new(
            Verdict::Info,
            format!("graph {subject}: {node_count} node(s), {total} call edge(s)"),
        )
        .with("mode", format!("{mode:?}").to_lowercase())
        .with("subject", subject.as_str())
        .with("node_count", node_count)
        .with(
            match format {
                Format::Mermaid => "mermaid",
                Format::Sigma => "graph",
            },
            picture,
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
                .to_owned()
        } else {
            "Render the mermaid text, or open viz action=knowledge for an interactive page."
                .to_owned()
        });
        if !include_tests {
            s = s.with("tests_excluded", true);
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
