//! `nav call_path`: shortest call paths between two functions over resolved edges,
//! with the exact number of shortest paths and the bodies of the functions on them.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::graph::{
    Dir, IndexGraph, PathNodes, depth_param, load_symbols, node_json, shortest_paths,
};
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{Targets, cap, definitions_json, find_targets, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Which way calls must flow.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// source calls (transitively) target.
    Forward,
    /// target calls (transitively) source.
    Backward,
    /// Either way (default).
    Bidirectional,
}

/// Arguments of `nav call_path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Function the path starts from; `ClassName.method` narrows.
    pub source_function: String,
    /// Function the path ends at; `ClassName.method` narrows.
    pub target_function: String,
    /// File defining the source function (picks one of several definitions).
    #[serde(default)]
    pub source_file: Option<ProjectPath>,
    /// File defining the target function.
    #[serde(default)]
    pub target_file: Option<ProjectPath>,
    /// `forward` (source calls target), `backward` (target calls source) or `bidirectional` (default).
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Longest path searched, in calls (default 10, at most 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub max_depth: Option<i64>,
    /// Most paths to list (default 5). The exact number of shortest paths is always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_paths: Option<i64>,
}

pub struct CallPath;

fn endpoint(
    ctx: &Context,
    index: &tsa_index::Index,
    which: &str,
    name: &str,
    file: Option<&str>,
) -> Result<Result<Vec<SymbolRow>, Success>, ToolError> {
    Ok(match find_targets(ctx, index, "call_path", name, file)? {
        Targets::Found(d) => Ok(d),
        Targets::Missing(s) => {
            let mismatch = s.payload().get("file_path_mismatch").is_some();
            let s = s.with("endpoint", which);
            Err(if mismatch {
                s.with_next_step(format!(
                    "'{name}' is not defined in {}; re-run with {which}_file set to one of candidate_files",
                    file.unwrap_or_default()
                ))
            } else {
                s
            })
        }
    })
}

impl Action for CallPath {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "call_path";
    const SUMMARY: &'static str =
        "shortest call paths between two functions (exact path count, bodies on the path inlined)";
    const BRIEF: &'static str = "call paths between two functions";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let (max_depth, clamped) = depth_param("max_depth", args.max_depth, 10, 20)?;
        let max_paths = cap("max_paths", args.max_paths, 5)?;
        let direction = args.direction.unwrap_or(Direction::Bidirectional);
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let sources = match endpoint(
            ctx,
            index,
            "source",
            &args.source_function,
            args.source_file.as_deref(),
        )? {
            Ok(d) => d,
            Err(s) => return Ok(s),
        };
        let targets = match endpoint(
            ctx,
            index,
            "target",
            &args.target_function,
            args.target_file.as_deref(),
        )? {
            Ok(d) => d,
            Err(s) => return Ok(s),
        };
        let src_ids: Vec<i64> = sources.iter().map(|d| d.id).collect();
        let dst_ids: Vec<i64> = targets.iter().map(|d| d.id).collect();
        let dirs: &[(Dir, &str)] = match direction {
            Direction::Forward => &[(Dir::Down, "forward")],
            Direction::Backward => &[(Dir::Up, "backward")],
            Direction::Bidirectional => &[(Dir::Down, "forward"), (Dir::Up, "backward")],
        };
        let mut g = IndexGraph::new(index);
        let mut total = 0u64;
        let mut found: Vec<(&str, u32, PathNodes)> = Vec::new();
        let mut shortest: HashMap<&str, u32> = HashMap::new();
        for (dir, name) in dirs {
            let p = shortest_paths(&mut g, &src_ids, &dst_ids, *dir, max_depth, max_paths.get())?;
            if p.total > 0 {
                shortest.insert(name, p.length);
            }
            total = total.saturating_add(p.total);
            for path in p.paths {
                found.push((name, p.length, path));
            }
        }
        let mut syms = HashMap::new();
        load_symbols(
            index,
            &mut syms,
            found.iter().flat_map(|(_, _, p)| p.iter().map(|(n, _)| *n)),
        )?;
        let mut bodies = Bodies::new(
            ctx.root()?,
            BodyBudget {
                rows: 12,
                lines_each: 40,
                lines_total: 320,
            },
        );
        let mut inlined: HashSet<i64> = HashSet::new();
        let paths: Vec<Value> = found
            .into_iter()
            .take(max_paths.get())
            .map(|(dir_name, length, walk)| {
                // Walk order is source -> target; calls read caller -> callee.
                let mut calls = Vec::new();
                for pair in walk.windows(2) {
                    let (a, b) = (pair[0].0, pair[1].0);
                    let hop = pair[1].1;
                    let (caller, callee) = if dir_name == "forward" {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    let q = |id: i64| {
                        syms.get(&id)
                            .map(|s| s.qualname.clone())
                            .unwrap_or_default()
                    };
                    let mut c = json!({"caller": q(caller), "callee": q(callee)});
                    if let Some(h) = hop {
                        c["line"] = json!(h.line);
                        c["resolution"] = json!(h.resolution.as_str());
                        c["confidence"] = json!(h.confidence);
                    }
                    calls.push(c);
                }
                let mut order: Vec<i64> = walk.iter().map(|(n, _)| *n).collect();
                if dir_name == "backward" {
                    order.reverse();
                    calls.reverse();
                }
                let nodes: Vec<Value> = order
                    .iter()
                    .map(|id| {
                        let Some(s) = syms.get(id) else {
                            return json!({"id": id});
                        };
                        let mut v = node_json(s);
                        if inlined.insert(*id)
                            && let Some(b) = bodies.body(&s.qualname, &s.file, s.line, s.end_line)
                        {
                            v["body"] = b;
                        }
                        v
                    })
                    .collect();
                json!({"direction": dir_name, "length": length, "nodes": nodes, "calls": calls})
            })
            .collect();
        let listed_total = usize::try_from(total).unwrap_or(usize::MAX);
        let verdict = if total > 0 {
            Verdict::Info
        } else {
            Verdict::NotFound
        };
        let dir_label = match direction {
            Direction::Forward => "forward",
            Direction::Backward => "backward",
            Direction::Bidirectional => "bidirectional",
        };
        let step = if total == 0 {
            format!(
                "No call path within {max_depth} calls between '{}' and '{}' ({dir_label}). Raise max_depth, try direction=bidirectional, or check for unresolved call sites with nav action=callers / callees (dynamic dispatch is not in the resolved graph).",
                args.source_function, args.target_function
            )
        } else if bodies.any() {
            "Functions on the listed paths carry their bodies under 'body' (first appearance only) — no Read needed.".to_owned()
        } else {
            "Follow the calls above; nav action=navigate shows each function's definition."
                .to_owned()
        };
        let mut s = Success::new(
            verdict,
            format!(
                "call_path: {total} shortest path(s) between '{}' and '{}'",
                args.source_function, args.target_function
            ),
        )
        .with("source", definitions_json(&sources))
        .with("target", definitions_json(&targets))
        .with("direction", dir_label)
        .with("max_depth", max_depth)
        .with("shortest_length", json!(shortest))
        .with("path_found", total > 0)
        .with_list(
            ListSpelling {
                list_key: "paths",
                total_key: "path_count",
                listed_key: "paths_listed",
                cap_key: "max_paths",
                noun: "shortest paths",
                remedy: "raise max_paths, or narrow with source_file/target_file".into(),
            },
            Capped::counted(paths, listed_total, max_paths),
        )
        .with_next_step(step)
        .with_agent("path_count", total);
        if sources.len() > 1 || targets.len() > 1 {
            s = s.with_warning(format!(
                "several definitions matched ({} source, {} target); paths start/end at any of them — narrow with source_file/target_file",
                sources.len(),
                targets.len()
            ));
        }
        if let Some(w) = clamped {
            s = s.with_warning(w);
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
