//! `health imports`: the file import graph from the index's resolved imports:
//! summary, direct deps/dependents, blast radius, cycles (Tarjan SCC), coupling.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::files::{FileArg, Files, attach, blast_verdict, cycles_verdict};
use tsa_analysis::health::model::Model;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `health imports`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `summary` (default), `deps`, `dependents`, `blast_radius`, `cycles` or `coupling`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Project-relative file (required for deps, dependents and blast_radius).
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

/// Modes of `health imports`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Summary,
    Deps,
    Dependents,
    BlastRadius,
    Cycles,
    Coupling,
}

pub struct Imports;

pub fn depth_arg(v: Option<i64>) -> Result<usize, ToolError> {
    match v {
        None => Ok(10),
        Some(d) if (1..=50).contains(&d) => Ok(d as usize),
        Some(d) => Err(ToolError::Validation(format!(
            "parameter 'max_depth' must be between 1 and 50, got {d}"
        ))),
    }
}

/// A file with its importers, as a row of `most_imported`.
#[derive(Debug, Serialize)]
pub struct ImportedRow<'a> {
    pub file: &'a str,
    pub importers: usize,
}

impl Action for Imports {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "imports";
    const SUMMARY: &'static str =
        "file import graph: deps, dependents, blast radius, cycles, coupling";
    const BRIEF: &'static str = "file import graph";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::Summary);
        let limit = cap("limit", args.limit, 50)?;
        let depth = depth_arg(args.max_depth)?;
        let root = ctx.root()?.to_path_buf();
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        let files = Files::new(&model);
        let needs_file = matches!(mode, Mode::Deps | Mode::Dependents | Mode::BlastRadius);
        let file = if needs_file {
            match files.file_arg(&root, "imports", args.file_path.as_deref())? {
                FileArg::Found(id, rel) => Some((id, rel)),
                FileArg::Missing(s) => return Ok(s),
            }
        } else {
            None
        };
        let mut s = match (mode, file) {
            (Mode::Deps, Some((id, rel))) => {
                let rows = files.deps_rows(id);
                let n = rows.len();
                let transitive = files.reach_down_rows(id, depth);
                let s = attach(
                    Success::new(
                        Verdict::Info,
                        format!("imports: {rel} imports {n} file(s)/module(s)"),
                    )
                    .with("file_path", rel.as_str())
                    .with("max_depth", depth),
                    "dependencies",
                    "dependencies",
                    rows,
                    limit,
                );
                attach(s, "transitive_dependencies", "transitive dependencies", transitive, limit)
                .with_next_step("health action=imports mode=blast_radius shows who is affected when this file changes.")
            }
            (Mode::Dependents, Some((id, rel))) => {
                let rows = files.dependents_rows(id);
                let n = rows.len();
                attach(
                    Success::new(Verdict::Info, format!("imports: {n} file(s) import {rel}"))
                        .with("file_path", rel.as_str()),
                    "dependents",
                    "dependents",
                    rows,
                    limit,
                )
                .with_next_step("mode=blast_radius follows dependents transitively.")
            }
            (Mode::BlastRadius, Some((id, rel))) => {
                let rows = files.blast_rows(id, depth);
                let n = rows.len();
                attach(
                    Success::new(
                        blast_verdict(n),
                        format!("imports: changing {rel} can affect {n} file(s) (importers, transitively, depth <= {depth})"),
                    )
                    .with("file_path", rel.as_str())
                    .with("max_depth", depth),
                    "blast_radius",
                    "affected files",
                    rows,
                    limit,
                )
                .with_next_step("Run the tests of the affected files after editing; nav action=impact gives the function-level view.")
            }
            (Mode::Cycles, _) => {
                let rows = files.cycle_rows();
                let n = rows.len();
                attach(
                    Success::new(cycles_verdict(n), format!("imports: {n} import cycle(s)")),
                    "cycles",
                    "cycles",
                    rows,
                    limit,
                )
                .with_next_step(if n == 0 {
                    "No import cycle."
                } else {
                    "Break each cycle by moving the shared definitions into a module both sides import."
                })
            }
            (Mode::Coupling, _) => {
                let rows = files.coupling_rows();
                let n = rows.len();
                attach(
                    Success::new(Verdict::Info, format!("imports: {n} file(s) with import coupling")),
                    "coupling",
                    "coupled files",
                    rows,
                    limit,
                )
                .with_next_step("Files with high afferent coupling are risky to change; high instability means many outgoing dependencies.")
            }
            _ => {
                let mut most: Vec<(usize, &str)> = files
                    .graph
                    .rdeps
                    .iter()
                    .filter(|(_, r)| !r.is_empty())
                    .map(|(f, r)| (r.len(), model.path_of(*f)))
                    .collect();
                most.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
                let rows = most
                    .into_iter()
                    .map(|(importers, file)| to_value(&ImportedRow { file, importers }))
                    .collect();
                let summary = files.summary();
                let cycles = summary["cycle_count"].as_u64().unwrap_or(0);
                attach(
                    Success::new(
                        if cycles > 0 {
                            Verdict::Caution
                        } else {
                            Verdict::Info
                        },
                        format!(
                            "imports: {} files, {} file import edges, {cycles} cycle(s)",
                            summary["total_files"], summary["file_import_edges"]
                        ),
                    )
                    .with("summary", summary),
                    "most_imported",
                    "imported files",
                    rows,
                    limit,
                )
                .with_next_step(
                    "Use mode=deps|dependents|blast_radius with file_path, or mode=cycles.",
                )
            }
        };
        s = s.with("mode", mode_str(mode));
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}

fn mode_str(m: Mode) -> &'static str {
    match m {
        Mode::Summary => "summary",
        Mode::Deps => "deps",
        Mode::Dependents => "dependents",
        Mode::BlastRadius => "blast_radius",
        Mode::Cycles => "cycles",
        Mode::Coupling => "coupling",
    }
}
