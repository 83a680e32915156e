//! `health heatmap` (analyses.md §2): cyclomatic complexity ranked by project
//! (files), file (functions) or function, with the bands low/medium/high/critical.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::complexity::{FunctionCc, band};
use tsa_analysis::health::DepsMode;
pub(crate) use tsa_analysis::health::heatmap::band_counts;
use tsa_analysis::health::heatmap::{FunctionHeat, file_functions, file_heat, span_heat};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{Targets, cap, find_targets, to_value, with_payload};
use crate::actions::health::common::{check_language, scoring, with_warnings};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Project,
    File,
    Function,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// project (files ranked), file (functions of file_path), function (one function).
    #[serde(default)]
    pub mode: Mode,
    /// The file (mode file; optional narrowing for mode function).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// The function (mode function).
    #[serde(default)]
    pub function_name: Option<String>,
    /// Only files of this language.
    #[serde(default)]
    pub language: Option<String>,
    /// Only files under this directory (mode project).
    #[serde(default)]
    pub directory: Option<ProjectPath>,
    /// Most rows listed (default 200); totals stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
}

pub struct Heatmap;

pub(crate) fn fn_row(file: &str, f: &FunctionCc) -> Value {
    to_value(&FunctionHeat::of(file, f))
}

/// The complexity bands' ranges.
#[derive(Debug, Serialize)]
pub struct Bands {
    pub low: &'static str,
    pub medium: &'static str,
    pub high: &'static str,
    pub critical: &'static str,
}

const BANDS: Bands = Bands {
    low: "1-5",
    medium: "6-10",
    high: "11-20",
    critical: ">=21",
};

/// The payload of mode `project` before its list.
#[derive(Debug, Serialize)]
pub struct ProjectHeat {
    pub mode: &'static str,
    pub function_count: usize,
    pub band_counts: BTreeMap<&'static str, usize>,
    pub bands: Bands,
}

/// The payload of mode `file` before its list.
#[derive(Debug, Serialize)]
pub struct FileHeatPayload<'a> {
    pub mode: &'static str,
    pub file_path: &'a str,
    pub total_complexity: u32,
    pub band_counts: BTreeMap<&'static str, usize>,
}

/// The payload of mode `function` before its list.
#[derive(Debug, Serialize)]
pub struct FunctionHeatPayload<'a> {
    pub mode: &'static str,
    pub function_name: &'a str,
}

fn spelling(key: &'static str, noun: &'static str) -> ListSpelling {
    ListSpelling {
        list_key: key,
        total_key: "total_count",
        listed_key: "listed_count",
        cap_key: "max_files",
        noun,
        remedy: "raise max_files or narrow with directory/language".into(),
    }
}

fn verdict_of(worst: u32) -> Verdict {
    match band(worst) {
        "critical" | "high" => Verdict::Review,
        "medium" => Verdict::Caution,
        _ => Verdict::Safe,
    }
}

/// `directory` as a `dir/` prefix (none for the whole project).
fn dir_prefix(root: &Path, directory: Option<&str>) -> Result<Option<String>, ToolError> {
    match directory.filter(|d| !d.is_empty() && *d != ".") {
        Some(d) => {
            let (abs, rel) = resolve_in_root(root, d)?;
            if !abs.is_dir() {
                return Err(ToolError::NotFound(rel));
            }
            Ok(Some(format!("{}/", rel.trim_end_matches('/'))))
        }
        None => Ok(None),
    }
}

fn project(
    ctx: &Context,
    args: &Args,
    lang_filter: Option<Language>,
    limit: NonZeroUsize,
) -> Result<Success, ToolError> {
    let dir = dir_prefix(ctx.root()?, args.directory.as_deref())?;
    let sc = scoring(ctx, DepsMode::Full)?;
    let rels: Vec<String> = sc
        .scorer
        .indexed_files()
        .into_iter()
        .filter(|f| dir.as_deref().is_none_or(|d| f.path.starts_with(d)))
        .filter(|f| lang_filter.is_none_or(|l| Language::from_path(&f.path) == Some(l)))
        .map(|f| f.path.clone())
        .collect();
    let (rows, all_ccs) = file_heat(&sc.scorer, &rels);
    let worst = all_ccs.iter().copied().max().unwrap_or(1);
    let summary = format!(
        "{} files, {} functions, worst cc={} ({})",
        rows.len(),
        all_ccs.len(),
        worst,
        band(worst)
    );
    let payload = ProjectHeat {
        mode: "project",
        function_count: all_ccs.len(),
        band_counts: band_counts(all_ccs.iter()),
        bands: BANDS,
    };
    Ok(with_warnings(
        with_payload(Success::new(verdict_of(worst), summary), &payload)
            .with_list(
                spelling("files", "files"),
                Capped::collect(rows.iter().map(to_value), limit),
            )
            .with_next_step("Open the top file with mode=file to see its functions."),
        &sc.warnings,
    ))
}

fn file(root: &Path, args: &Args, limit: NonZeroUsize) -> Result<Success, ToolError> {
    let Some(fp) = args.file_path.as_deref() else {
        return Err(ToolError::Validation(
            "mode 'file' requires file_path".into(),
        ));
    };
    let rel = source_file(root, fp)?;
    check_language(args.language.as_deref(), &rel)?;
    let fns = file_functions(root, &rel)?;
    let ccs: Vec<u32> = fns.iter().map(|f| f.complexity).collect();
    let worst = ccs.iter().copied().max().unwrap_or(1);
    let total: u32 = ccs.iter().sum();
    let summary = format!(
        "{rel} {} functions, total cc={total}, worst cc={worst} ({})",
        fns.len(),
        band(worst)
    );
    let payload = FileHeatPayload {
        mode: "file",
        file_path: &rel,
        total_complexity: total,
        band_counts: band_counts(ccs.iter()),
    };
    Ok(with_payload(Success::new(verdict_of(worst), summary), &payload)
        .with_list(
            spelling("functions", "functions"),
            Capped::collect(fns.iter().map(|f| fn_row(&rel, f)), limit),
        )
        .with_next_step(
            "Functions in the high/critical bands are extraction candidates: edit action=refactor.",
        ))
}

fn function(ctx: &Context, args: &Args, limit: NonZeroUsize) -> Result<Success, ToolError> {
    let Some(name) = args.function_name.as_deref() else {
        return Err(ToolError::Validation(
            "mode 'function' requires function_name".into(),
        ));
    };
    let sc = scoring(ctx, DepsMode::Full)?;
    let defs = match find_targets(
        ctx,
        &sc.index,
        "health heatmap",
        name,
        args.file_path.as_deref(),
    )? {
        Targets::Found(d) => d,
        Targets::Missing(miss) => return Ok(miss),
    };
    let rows = span_heat(ctx.root()?, &defs);
    let worst = rows.iter().map(|r| r.complexity).fold(1, u32::max);
    let summary = format!(
        "{name}: {} definition(s), worst cc={worst} ({})",
        rows.len(),
        band(worst)
    );
    let payload = FunctionHeatPayload {
        mode: "function",
        function_name: name,
    };
    Ok(
        with_payload(Success::new(verdict_of(worst), summary), &payload)
            .with_list(
                spelling("functions", "definitions"),
                Capped::collect(rows.iter().map(to_value), limit),
            )
            .with_next_step(
                "Complexity above 10 is an extraction candidate: edit action=refactor on its file.",
            ),
    )
}

impl Action for Heatmap {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "heatmap";
    const SUMMARY: &'static str = "cyclomatic complexity heatmap: files (project), functions (file) or one function, banded low/medium/high/critical";
    const BRIEF: &'static str = "complexity heatmap";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("max_files", args.max_files, 200)?;
        let lang_filter = match args.language.as_deref().filter(|l| !l.is_empty()) {
            Some(l) => Some(
                Language::from_name(l)
                    .ok_or_else(|| ToolError::Validation(format!("unknown language '{l}'")))?,
            ),
            None => None,
        };
        match args.mode {
            Mode::Project => project(ctx, &args, lang_filter, limit),
            Mode::File => file(root, &args, limit),
            Mode::Function => function(ctx, &args, limit),
        }
    }
}
