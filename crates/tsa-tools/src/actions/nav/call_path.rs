//! `nav call_path`: shortest call paths between two functions over resolved edges,
//! with the exact number of shortest paths and the bodies of the functions on them.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::call_paths::{self, Way};
use tsa_analysis::graph::{Definition, definitions, depth_param};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{Lookup, Miss, cap, lookup, open_index, to_value, with_payload};
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

/// The payload of a `nav call_path` answer (the `paths` list goes in capped).
#[derive(Serialize)]
pub struct CallPathPayload {
    /// The definitions the source name resolved to.
    pub source: Vec<Definition>,
    /// The definitions the target name resolved to.
    pub target: Vec<Definition>,
    /// `forward`, `backward` or `bidirectional`.
    pub direction: &'static str,
    /// Longest path searched, in calls.
    pub max_depth: u32,
    /// Length of the shortest paths per way that has any.
    pub shortest_length: HashMap<&'static str, u32>,
    /// Whether any path was found.
    pub path_found: bool,
}

/// Which end of the path a name stands for.
#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum End {
    Source,
    Target,
}

/// The NOT_FOUND answer for an end of the path that names no definition.
#[derive(Serialize)]
struct EndMiss {
    #[serde(flatten)]
    miss: Miss,
    /// Which end was not found.
    endpoint: End,
}

fn endpoint(
    ctx: &Context,
    index: &tsa_index::Index,
    which: End,
    name: &str,
    file: Option<&str>,
) -> Result<Result<Vec<SymbolRow>, Success>, ToolError> {
    Ok(match lookup(ctx, index, "call_path", name, file, true)? {
        Lookup::Found(d) => Ok(d),
        Lookup::NotFound(miss) => {
            let step = if miss.file_path_mismatch {
                let which = match which {
                    End::Source => "source",
                    End::Target => "target",
                };
                format!(
                    "'{name}' is not defined in {}; re-run with {which}_file set to one of candidate_files",
                    file.unwrap_or_default()
                )
            } else {
                miss.next_step.clone()
            };
            let s = Success::new(Verdict::NotFound, miss.summary.clone());
            Err(with_payload(
                s,
                &EndMiss {
                    miss,
                    endpoint: which,
                },
            )
            .with_next_step(step))
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
            End::Source,
            &args.source_function,
            args.source_file.as_deref(),
        )? {
            Ok(d) => d,
            Err(s) => return Ok(s),
        };
        let targets = match endpoint(
            ctx,
            index,
            End::Target,
            &args.target_function,
            args.target_file.as_deref(),
        )? {
            Ok(d) => d,
            Err(s) => return Ok(s),
        };
        let ways: &[Way] = match direction {
            Direction::Forward => &[Way::Forward],
            Direction::Backward => &[Way::Backward],
            Direction::Bidirectional => &[Way::Forward, Way::Backward],
        };
        let report = call_paths::find(
            index,
            ctx.root()?,
            &sources,
            &targets,
            ways,
            max_depth,
            max_paths,
        )?;
        let total = report.total;
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
        } else if report.bodies_inlined {
            "Functions on the listed paths carry their bodies under 'body' (first appearance only) — no Read needed.".to_owned()
        } else {
            "Follow the calls above; nav action=navigate shows each function's definition."
                .to_owned()
        };
        let payload = CallPathPayload {
            source: definitions(&sources),
            target: definitions(&targets),
            direction: dir_label,
            max_depth,
            shortest_length: report.shortest,
            path_found: total > 0,
        };
        let s = Success::new(
            verdict,
            format!(
                "call_path: {total} shortest path(s) between '{}' and '{}'",
                args.source_function, args.target_function
            ),
        );
        let paths: Vec<Value> = report.paths.iter().map(to_value).collect();
        let mut s = with_payload(s, &payload)
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
        Ok(report.bodies.warn(s))
    }
}
