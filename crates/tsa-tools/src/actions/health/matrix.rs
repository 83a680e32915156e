//! `health matrix`: module (directory) coupling from file imports and cross-file
//! call edges: the weighted module matrix, hotspots, one file's module view, and
//! unstable modules (instability I = Ce / (Ca + Ce)).

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::files::{FileArg, Files, attach_with};
use tsa_analysis::health::matrix::{
    MatrixSummary, ModuleGraph, ModuleRow, file_relations, hotspots, summary, unstable,
};
use tsa_analysis::health::model::{Model, module_of};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `health matrix`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `summary` (default), `matrix`, `hotspots`, `file` or `unstable`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Project-relative file (required for mode=file).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Rows to list (default 10).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub top_k: Option<i64>,
    /// Instability at or above which a module is unstable (default 0.7, 0..=1).
    #[serde(default)]
    pub threshold: Option<f64>,
}

/// Modes of `health matrix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Summary,
    Matrix,
    Hotspots,
    File,
    Unstable,
}

pub struct Matrix;

/// Mode `unstable`'s threshold, before its list.
#[derive(Debug, Serialize)]
struct Threshold {
    threshold: f64,
}

/// Mode `file`'s file and module, before its list.
#[derive(Debug, Serialize)]
struct FileModule<'a> {
    file_path: &'a str,
    module: ModuleRow<'a>,
}

/// Mode `summary`'s figures, before its list.
#[derive(Debug, Serialize)]
struct SummaryPart {
    summary: MatrixSummary,
}

/// The mode, after the list.
#[derive(Debug, Serialize)]
struct ModeTail {
    mode: &'static str,
}

type Coupling<'a> = BTreeMap<&'a str, (usize, usize)>;

fn file_mode(
    files: &Files<'_>,
    id: i64,
    rel: &str,
    coupling: &Coupling<'_>,
    top_k: NonZeroUsize,
) -> Success {
    let module = module_of(rel).to_owned();
    let rows = file_relations(files, id, &module);
    let (ca, ce) = coupling.get(module.as_str()).copied().unwrap_or((0, 0));
    let n = rows.len();
    let head = FileModule {
        file_path: rel,
        module: ModuleRow::new(&module, ca, ce),
    };
    attach_with(
        with_payload(
            Success::new(
                Verdict::Info,
                format!("matrix: {rel} ({module}) has {n} cross-module relation(s)"),
            ),
            &head,
        ),
        "relations",
        "module relations",
        rows.iter().map(to_value).collect(),
        top_k,
        "raise top_k",
    )
    .with_next_step("health action=imports mode=deps lists the file's imports one by one.")
}

fn modules_mode(
    mode: Mode,
    mg: &ModuleGraph,
    coupling: &Coupling<'_>,
    threshold: f64,
    top_k: NonZeroUsize,
) -> Success {
    match mode {
        Mode::Matrix => {
            let rows = mg.pair_rows();
            let n = rows.len();
            attach_with(
                Success::new(Verdict::Info, format!("matrix: {n} module dependency pair(s) among {} module(s)", mg.modules.len())),
                "cells",
                "module pairs",
                rows.iter().map(to_value).collect(),
                top_k,
                "raise top_k",
            )
            .with_next_step("mode=hotspots ranks modules by total coupling; mode=unstable lists modules above threshold.")
        }
        Mode::Hotspots => {
            let rows = hotspots(coupling);
            let n = rows.len();
            attach_with(
                Success::new(
                    Verdict::Info,
                    format!("matrix: {n} coupled module(s), most coupled first"),
                ),
                "hotspots",
                "modules",
                rows.iter().map(to_value).collect(),
                top_k,
                "raise top_k",
            )
            .with_next_step("Changes in modules with high afferent coupling ripple furthest.")
        }
        Mode::Unstable => {
            let rows = unstable(coupling, threshold);
            let n = rows.len();
            attach_with(
                with_payload(
                    Success::new(
                        if n == 0 { Verdict::Info } else { Verdict::Caution },
                        format!("matrix: {n} module(s) with instability >= {threshold}"),
                    ),
                    &Threshold { threshold },
                ),
                "unstable_modules",
                "unstable modules",
                rows.iter().map(to_value).collect(),
                top_k,
                "raise top_k",
            )
            .with_next_step("Unstable modules depend on many others; keep stable modules from depending on them.")
        }
        Mode::Summary | Mode::File => {
            let figures = summary(mg, coupling, threshold);
            let line = format!(
                "matrix: {} module(s), {} dependency pair(s), {} unstable (I >= {threshold})",
                figures.modules, figures.dependency_pairs, figures.unstable_modules
            );
            attach_with(
                with_payload(
                    Success::new(Verdict::Info, line),
                    &SummaryPart { summary: figures },
                ),
                "strongest_pairs",
                "module pairs",
                mg.pair_rows().iter().map(to_value).collect(),
                top_k,
                "raise top_k",
            )
            .with_next_step(
                "mode=matrix for every pair, mode=hotspots or mode=unstable for modules.",
            )
        }
    }
}

impl Action for Matrix {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "matrix";
    const SUMMARY: &'static str =
        "module coupling matrix (imports + cross-file calls), hotspots, instability";
    const BRIEF: &'static str = "module coupling matrix";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::Summary);
        let top_k = cap("top_k", args.top_k, 10)?;
        let threshold = args.threshold.unwrap_or(0.7);
        if !(0.0..=1.0).contains(&threshold) || threshold.is_nan() {
            return Err(ToolError::Validation(format!(
                "parameter 'threshold' must be between 0 and 1, got {threshold}"
            )));
        }
        let root = ctx.root()?.to_path_buf();
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        let mg = ModuleGraph::build(&model);
        let coupling = mg.coupling();
        let s = if mode == Mode::File {
            let files = Files::new(&model);
            match files.file_arg(&root, "matrix", args.file_path.as_deref())? {
                FileArg::Found(id, rel) => file_mode(&files, id, &rel, &coupling, top_k),
                FileArg::Missing(s) => return Ok(s),
            }
        } else {
            modules_mode(mode, &mg, &coupling, threshold, top_k)
        };
        let tail = ModeTail {
            mode: match mode {
                Mode::Summary => "summary",
                Mode::Matrix => "matrix",
                Mode::Hotspots => "hotspots",
                Mode::File => "file",
                Mode::Unstable => "unstable",
            },
        };
        let mut s = with_payload(s, &tail);
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
