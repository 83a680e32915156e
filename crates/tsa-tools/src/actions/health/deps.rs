//! `health deps`: file dependency analysis over imports and cross-file calls:
//! blast radius, one file's dependencies both ways, cycles, summary, or all of it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::files::{FileArg, Files, attach, blast_verdict};
use tsa_analysis::health::model::Model;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value};
use crate::actions::health::imports::depth_arg;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `health deps`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `summary` (default), `blast_radius`, `file_deps`, `cycles` or `full`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Project-relative file (required for file_deps and blast_radius).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Levels of transitive dependents for blast_radius (default 10, 1..=50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub max_depth: Option<i64>,
    /// Most rows per list (default 50). Totals stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

/// Modes of `health deps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    BlastRadius,
    FileDeps,
    Cycles,
    Summary,
    Full,
}

pub struct Deps;

/// Calls between a file and another file, as a row of `call_dependencies` and
/// `call_dependents`.
#[derive(Debug, Serialize)]
pub struct CallDepRow {
    pub file: String,
    pub calls: u64,
}

impl Action for Deps {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "deps";
    const SUMMARY: &'static str =
        "file dependencies (imports and cross-file calls): blast radius, per-file deps, cycles";
    const BRIEF: &'static str = "file dependencies and cycles";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::Summary);
        let limit = cap("limit", args.limit, 50)?;
        let depth = depth_arg(args.max_depth)?;
        let root = ctx.root()?.to_path_buf();
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        let files = Files::new(&model);
        let file = if matches!(mode, Mode::BlastRadius | Mode::FileDeps) {
            match files.file_arg(&root, "deps", args.file_path.as_deref())? {
                FileArg::Found(id, rel) => Some((id, rel)),
                FileArg::Missing(s) => return Ok(s),
            }
        } else {
            None
        };
        let mode_name = match mode {
            Mode::BlastRadius => "blast_radius",
            Mode::FileDeps => "file_deps",
            Mode::Cycles => "cycles",
            Mode::Summary => "summary",
            Mode::Full => "full",
        };
        let mut s = match (mode, file) {
            (Mode::BlastRadius, Some((id, rel))) => {
                let rows = files.blast_rows(id, depth);
                let n = rows.len();
                attach(
                    Success::new(
                        blast_verdict(n),
                        format!("deps: changing {rel} can affect {n} file(s)"),
                    )
                    .with("file_path", rel.as_str())
                    .with("max_depth", depth),
                    "blast_radius",
                    "affected files",
                    rows,
                    limit,
                )
                .with_next_step("Run the tests of the affected files after editing.")
            }
            (Mode::FileDeps, Some((id, rel))) => {
                let (out, inc) = opened.index.file_call_deps(&rel)?;
                let call_out = out
                    .into_iter()
                    .map(|d| {
                        to_value(&CallDepRow {
                            file: d.file,
                            calls: d.calls,
                        })
                    })
                    .collect();
                let call_in = inc
                    .into_iter()
                    .map(|d| {
                        to_value(&CallDepRow {
                            file: d.file,
                            calls: d.calls,
                        })
                    })
                    .collect();
                let deps = files.deps_rows(id);
                let dependents = files.dependents_rows(id);
                let summary = format!(
                    "deps: {rel} imports {} and is imported by {} file(s)",
                    deps.len(),
                    dependents.len()
                );
                let s = Success::new(Verdict::Info, summary).with("file_path", rel.as_str());
                let s = attach(s, "dependencies", "dependencies", deps, limit);
                let s = attach(s, "dependents", "dependents", dependents, limit);
                let s = attach(s, "call_dependencies", "files called into", call_out, limit);
                attach(s, "call_dependents", "files calling in", call_in, limit)
                    .with_next_step("mode=blast_radius follows dependents transitively.")
            }
            (Mode::Cycles, _) => {
                let rows = files.cycle_rows();
                let n = rows.len();
                attach(
                    Success::new(
                        if n == 0 {
                            Verdict::Safe
                        } else {
                            Verdict::Review
                        },
                        format!("deps: {n} import cycle(s)"),
                    ),
                    "cycles",
                    "cycles",
                    rows,
                    limit,
                )
                .with_next_step(if n == 0 {
                    "No import cycle."
                } else {
                    "Break each cycle by moving shared definitions into a module both sides import."
                })
            }
            (Mode::Full, _) => {
                let summary = files.summary();
                let cycles = files.cycle_rows();
                let coupling = files.coupling_rows();
                let n = cycles.len();
                let s = Success::new(
                    if n == 0 {
                        Verdict::Info
                    } else {
                        Verdict::Caution
                    },
                    format!(
                        "deps: {} files, {} file import edges, {n} cycle(s)",
                        summary["total_files"], summary["file_import_edges"]
                    ),
                )
                .with("summary", summary);
                let s = attach(s, "cycles", "cycles", cycles, limit);
                attach(s, "coupling", "coupled files", coupling, limit).with_next_step(
                    "Use mode=file_deps or mode=blast_radius with file_path for one file.",
                )
            }
            _ => {
                let summary = files.summary();
                let n = summary["cycle_count"].as_u64().unwrap_or(0);
                Success::new(
                    if n == 0 {
                        Verdict::Info
                    } else {
                        Verdict::Caution
                    },
                    format!(
                        "deps: {} files, {} file import edges, {n} cycle(s)",
                        summary["total_files"], summary["file_import_edges"]
                    ),
                )
                .with("summary", summary)
                .with_next_step(
                    "Use mode=cycles, mode=full, or mode=file_deps|blast_radius with file_path.",
                )
            }
        };
        s = s.with("mode", mode_name);
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
