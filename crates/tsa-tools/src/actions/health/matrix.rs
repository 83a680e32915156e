//! `health matrix`: module (directory) coupling from file imports and cross-file
//! call edges: the weighted module matrix, hotspots, one file's module view, and
//! unstable modules (instability I = Ce / (Ca + Ce)).

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::health::files::{FileArg, Files, attach_with, instability};
use tsa_analysis::health::model::{Model, module_of};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index};
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

/// Module-to-module dependencies: (from, to) -> (import edges, call sites).
pub struct ModuleGraph {
    pub pairs: BTreeMap<(String, String), (u64, u64)>,
    pub modules: BTreeSet<String>,
}

impl ModuleGraph {
    pub fn build(model: &Model) -> ModuleGraph {
        let mut pairs: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        let modules: BTreeSet<String> = model
            .files
            .iter()
            .map(|f| module_of(&f.path).to_owned())
            .collect();
        let g = model.file_graph();
        for (f, deps) in &g.deps {
            let a = module_of(model.path_of(*f));
            for t in deps {
                let b = module_of(model.path_of(*t));
                if a != b {
                    pairs.entry((a.to_owned(), b.to_owned())).or_default().0 += 1;
                }
            }
        }
        for ((cf, tf), n) in model.file_call_counts() {
            let (a, b) = (module_of(model.path_of(cf)), module_of(model.path_of(tf)));
            if a != b {
                pairs.entry((a.to_owned(), b.to_owned())).or_default().1 += n;
            }
        }
        ModuleGraph { pairs, modules }
    }

    /// Per module: (Ca, Ce) counted in distinct modules.
    pub fn coupling(&self) -> BTreeMap<&str, (usize, usize)> {
        let mut out: BTreeMap<&str, (usize, usize)> =
            self.modules.iter().map(|m| (m.as_str(), (0, 0))).collect();
        for (a, b) in self.pairs.keys() {
            out.entry(a.as_str()).or_default().1 += 1;
            out.entry(b.as_str()).or_default().0 += 1;
        }
        out
    }
}

fn module_row(m: &str, ca: usize, ce: usize) -> Value {
    json!({"module": m, "afferent": ca, "efferent": ce, "instability": instability(ca, ce)})
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
        let mut s = match mode {
            Mode::Matrix => {
                let mut rows: Vec<(u64, Value)> = mg
                    .pairs
                    .iter()
                    .map(|((a, b), (i, c))| {
                        (
                            i + c,
                            json!({"from": a, "to": b, "imports": i, "calls": c, "weight": i + c}),
                        )
                    })
                    .collect();
                rows.sort_by_key(|r| std::cmp::Reverse(r.0));
                let n = rows.len();
                attach_with(
                    Success::new(Verdict::Info, format!("matrix: {n} module dependency pair(s) among {} module(s)", mg.modules.len())),
                    "cells",
                    "module pairs",
                    rows.into_iter().map(|(_, v)| v).collect(),
                    top_k,
                    "raise top_k",
                )
                .with_next_step("mode=hotspots ranks modules by total coupling; mode=unstable lists modules above threshold.")
            }
            Mode::Hotspots => {
                let mut rows: Vec<(&str, usize, usize)> = coupling
                    .iter()
                    .map(|(m, (a, e))| (*m, *a, *e))
                    .filter(|r| r.1 + r.2 > 0)
                    .collect();
                rows.sort_by(|x, y| (y.1 + y.2).cmp(&(x.1 + x.2)).then(x.0.cmp(y.0)));
                let n = rows.len();
                attach_with(
                    Success::new(
                        Verdict::Info,
                        format!("matrix: {n} coupled module(s), most coupled first"),
                    ),
                    "hotspots",
                    "modules",
                    rows.into_iter()
                        .map(|(m, a, e)| module_row(m, a, e))
                        .collect(),
                    top_k,
                    "raise top_k",
                )
                .with_next_step("Changes in modules with high afferent coupling ripple furthest.")
            }
            Mode::Unstable => {
                let mut rows: Vec<(&str, usize, usize, f64)> = coupling
                    .iter()
                    .map(|(m, (a, e))| (*m, *a, *e, instability(*a, *e)))
                    .filter(|r| r.1 + r.2 > 0 && r.3 >= threshold)
                    .collect();
                rows.sort_by(|x, y| y.3.total_cmp(&x.3).then(y.2.cmp(&x.2)).then(x.0.cmp(y.0)));
                let n = rows.len();
                attach_with(
                    Success::new(
                        if n == 0 { Verdict::Info } else { Verdict::Caution },
                        format!("matrix: {n} module(s) with instability >= {threshold}"),
                    )
                    .with("threshold", threshold),
                    "unstable_modules",
                    "unstable modules",
                    rows.into_iter().map(|(m, a, e, _)| module_row(m, a, e)).collect(),
                    top_k,
                    "raise top_k",
                )
                .with_next_step("Unstable modules depend on many others; keep stable modules from depending on them.")
            }
            Mode::File => {
                let files = Files::new(&model);
                let (id, rel) = match files.file_arg(&root, "matrix", args.file_path.as_deref())? {
                    FileArg::Found(id, rel) => (id, rel),
                    FileArg::Missing(s) => return Ok(s),
                };
                let module = module_of(&rel).to_owned();
                let mut by_module: BTreeMap<(String, &str), u64> = BTreeMap::new();
                for t in files.graph.deps.get(&id).into_iter().flatten() {
                    *by_module
                        .entry((module_of(model.path_of(*t)).to_owned(), "depends_on"))
                        .or_default() += 1;
                }
                for t in files.graph.rdeps.get(&id).into_iter().flatten() {
                    *by_module
                        .entry((module_of(model.path_of(*t)).to_owned(), "depended_on_by"))
                        .or_default() += 1;
                }
                for ((cf, tf), n) in model.file_call_counts() {
                    if cf == id {
                        *by_module
                            .entry((module_of(model.path_of(tf)).to_owned(), "calls_into"))
                            .or_default() += n;
                    } else if tf == id {
                        *by_module
                            .entry((module_of(model.path_of(cf)).to_owned(), "called_from"))
                            .or_default() += n;
                    }
                }
                let rows: Vec<Value> = by_module
                    .into_iter()
                    .filter(|((m, _), _)| *m != module)
                    .map(
                        |((m, rel_kind), n)| json!({"module": m, "relation": rel_kind, "count": n}),
                    )
                    .collect();
                let (ca, ce) = coupling.get(module.as_str()).copied().unwrap_or((0, 0));
                let n = rows.len();
                attach_with(
                    Success::new(
                        Verdict::Info,
                        format!("matrix: {rel} ({module}) has {n} cross-module relation(s)"),
                    )
                    .with("file_path", rel.as_str())
                    .with("module", module_row(&module, ca, ce)),
                    "relations",
                    "module relations",
                    rows,
                    top_k,
                    "raise top_k",
                )
                .with_next_step(
                    "health action=imports mode=deps lists the file's imports one by one.",
                )
            }
            Mode::Summary => {
                let connected: Vec<f64> = coupling
                    .values()
                    .filter(|(a, e)| a + e > 0)
                    .map(|(a, e)| instability(*a, *e))
                    .collect();
                let avg = if connected.is_empty() {
                    0.0
                } else {
                    (connected.iter().sum::<f64>() / connected.len() as f64 * 1000.0).round()
                        / 1000.0
                };
                let unstable = connected.iter().filter(|i| **i >= threshold).count();
                let mut rows: Vec<(u64, Value)> = mg
                    .pairs
                    .iter()
                    .map(|((a, b), (i, c))| {
                        (
                            i + c,
                            json!({"from": a, "to": b, "imports": i, "calls": c, "weight": i + c}),
                        )
                    })
                    .collect();
                rows.sort_by_key(|r| std::cmp::Reverse(r.0));
                attach_with(
                    Success::new(
                        Verdict::Info,
                        format!(
                            "matrix: {} module(s), {} dependency pair(s), {unstable} unstable (I >= {threshold})",
                            mg.modules.len(),
                            mg.pairs.len()
                        ),
                    )
                    .with(
                        "summary",
                        json!({
                            "modules": mg.modules.len(),
                            "connected_modules": connected.len(),
                            "dependency_pairs": mg.pairs.len(),
                            "average_instability": avg,
                            "unstable_modules": unstable,
                            "threshold": threshold,
                        }),
                    ),
                    "strongest_pairs",
                    "module pairs",
                    rows.into_iter().map(|(_, v)| v).collect(),
                    top_k,
                    "raise top_k",
                )
                .with_next_step("mode=matrix for every pair, mode=hotspots or mode=unstable for modules.")
            }
        };
        s = s.with(
            "mode",
            match mode {
                Mode::Summary => "summary",
                Mode::Matrix => "matrix",
                Mode::Hotspots => "hotspots",
                Mode::File => "file",
                Mode::Unstable => "unstable",
            },
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
