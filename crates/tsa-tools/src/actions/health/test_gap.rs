//! `health test_gap`: production functions no test reaches (a test function calls
//! them directly or through at most 3 hops of resolved calls), ranked by cyclomatic
//! complexity; optionally merged with a coverage.py JSON report.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::chain::complexity::band;
use tsa_analysis::health::files::attach_with;
use tsa_analysis::health::model::Model;
use tsa_analysis::health::test_gap::{
    Cover, GapReport, GapScope, MAX_HOPS, load_coverage, test_gaps,
};
use tsa_analysis::source::source_file;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `health test_gap`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `gaps` (default: untested functions ranked by complexity), `summary` (per file) or `file` (one file's functions).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Project-relative file (required for mode=file).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Only functions of this language (e.g. python, rust).
    #[serde(default)]
    pub language: Option<String>,
    /// Most production files analysed, in path order (default 1000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// Most gaps (or files in summary mode) to list (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_gaps: Option<i64>,
    /// Also list the covered functions and the test that reaches each.
    #[serde(default)]
    pub include_covered: Option<bool>,
    /// Project-relative coverage.py JSON report (`coverage json`); executed lines inside a function's body count as covered.
    #[serde(default)]
    pub coverage_json: Option<ProjectPath>,
}

/// Modes of `health test_gap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Summary,
    Gaps,
    File,
}

pub struct TestGap;

/// An untested function, as a row of `gaps`.
#[derive(Debug, Serialize)]
pub struct GapRow<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub end_line: u32,
    pub language: &'a str,
    pub complexity: Option<u32>,
    pub risk_band: Option<&'static str>,
}

/// A covered function, as a row of `covered`.
#[derive(Debug, Serialize)]
pub struct CoveredRow<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub file: &'a str,
    pub line: u32,
    /// Calls from the test that reaches it (test-covered only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<usize>,
    /// `file::test` of that test, or `coverage_json`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covered_by: Option<Option<String>>,
}

/// A file with gaps, as a row of `files` (summary mode).
#[derive(Debug, Serialize)]
pub struct FileGapRow<'a> {
    pub file: &'a str,
    pub functions: usize,
    pub gaps: usize,
    pub covered: usize,
}

/// The figures of `health test_gap`.
#[derive(Debug, Serialize)]
pub struct GapStats {
    pub production_functions: usize,
    pub covered: usize,
    pub gaps: usize,
    pub coverage_ratio: f64,
    pub complex_gaps: usize,
    pub test_functions: usize,
    pub production_files: usize,
    pub files_analysed: usize,
    pub max_hops: usize,
    pub coverage_json_used: bool,
}

/// The payload of `health test_gap`, in answer order (its capped lists follow).
#[derive(Debug, Serialize)]
pub struct GapPayload<'a> {
    pub mode: &'static str,
    pub stats: GapStats,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<&'a str>,
}

/// The payload of a file that is not indexed.
#[derive(Debug, Serialize)]
struct NotIndexed<'a> {
    file_path: &'a str,
}

fn gap_row<'a>(model: &'a Model, r: &GapReport, i: usize) -> GapRow<'a> {
    let s = &model.syms[i];
    let c = r.complexity_of(model, i);
    GapRow {
        name: &s.name,
        qualified_name: &s.qualname,
        file: model.path_of(s.file_id),
        line: s.line,
        end_line: s.end_line,
        language: model.file(s.file_id).map_or("", |f| f.language.as_str()),
        complexity: c,
        risk_band: c.map(band),
    }
}

fn covered_row<'a>(model: &'a Model, r: &GapReport, i: usize) -> CoveredRow<'a> {
    let s = &model.syms[i];
    let (hops, covered_by) = match &r.cover[i] {
        Some(Cover::Test { hops, test }) => (
            Some(*hops),
            Some(
                model
                    .sym(*test)
                    .map(|t| format!("{}::{}", model.path_of(t.file_id), t.qualname)),
            ),
        ),
        Some(Cover::Coverage) => (None, Some(Some("coverage_json".to_owned()))),
        None => (None, None),
    };
    CoveredRow {
        name: &s.name,
        qualified_name: &s.qualname,
        file: model.path_of(s.file_id),
        line: s.line,
        hops,
        covered_by,
    }
}

/// Per file of the production functions, its functions and gaps (files with gaps
/// only, most gaps first).
fn file_rows<'a>(model: &'a Model, r: &GapReport) -> Vec<Value> {
    let mut per: BTreeMap<&'a str, (usize, usize)> = BTreeMap::new();
    for &i in &r.prod {
        let e = per.entry(model.path_of(model.syms[i].file_id)).or_default();
        e.0 += 1;
        if r.cover[i].is_none() {
            e.1 += 1;
        }
    }
    let mut rows: Vec<(&str, usize, usize)> = per
        .into_iter()
        .map(|(f, (n, g))| (f, n, g))
        .filter(|r| r.2 > 0)
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    rows.into_iter()
        .map(|(file, functions, gaps)| {
            to_value(&FileGapRow {
                file,
                functions,
                gaps,
                covered: functions - gaps,
            })
        })
        .collect()
}

/// The gaps, most complex first, then by file and line.
fn ranked_gaps(model: &Model, r: &GapReport) -> Vec<Value> {
    let mut ranked = r.gaps.clone();
    ranked.sort_by(|&a, &b| {
        r.complexity_of(model, b)
            .unwrap_or(0)
            .cmp(&r.complexity_of(model, a).unwrap_or(0))
            .then(
                model
                    .path_of(model.syms[a].file_id)
                    .cmp(model.path_of(model.syms[b].file_id)),
            )
            .then(model.syms[a].line.cmp(&model.syms[b].line))
    });
    ranked
        .into_iter()
        .map(|i| to_value(&gap_row(model, r, i)))
        .collect()
}

fn verdict_of(model: &Model, r: &GapReport) -> Verdict {
    if r.prod.is_empty() {
        Verdict::Info
    } else if r.gaps.is_empty() {
        Verdict::Safe
    } else if r.complex_gaps(model) > 0 {
        Verdict::Review
    } else {
        Verdict::Caution
    }
}

/// The checked file and language of a call.
fn checked(
    root: &std::path::Path,
    mode: Mode,
    args: &Args,
) -> Result<(Option<String>, Option<String>), ToolError> {
    let file = match (mode, args.file_path.as_deref()) {
        (_, Some(f)) => Some(source_file(root, f)?),
        (Mode::File, None) => {
            return Err(ToolError::Validation(
                "parameter 'file_path' is required for mode=file".into(),
            ));
        }
        _ => None,
    };
    let language = args.language.as_deref().map(str::to_ascii_lowercase);
    if let Some(l) = &language
        && tsa_lang::Language::from_name(l).is_none()
    {
        return Err(ToolError::Validation(format!("unknown language '{l}'")));
    }
    Ok((file, language))
}

impl Action for TestGap {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "test_gap";
    const SUMMARY: &'static str =
        "production functions no test reaches (<= 3 call hops), ranked by complexity";
    const BRIEF: &'static str = "functions no test reaches";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::Gaps);
        let max_files = cap("max_files", args.max_files, 1000)?.get();
        let max_gaps = cap("max_gaps", args.max_gaps, 50)?;
        let include_covered = args.include_covered.unwrap_or(false);
        let root = ctx.root()?.to_path_buf();
        let (file, language) = checked(&root, mode, &args)?;
        let coverage = match args.coverage_json.as_deref() {
            Some(c) => Some(load_coverage(&root, c)?),
            None => None,
        };
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        if let Some(f) = &file
            && model.file_id_of(f).is_none()
        {
            return Ok(with_payload(
                Success::new(Verdict::NotFound, format!("test_gap: '{f}' is not indexed")),
                &NotIndexed { file_path: f },
            )
            .with_next_step("Run index action=sync, then retry."));
        }
        let scope = GapScope {
            language: language.as_deref(),
            file: file.as_deref(),
            max_files,
            complexity_of_all: mode == Mode::File,
        };
        let r = test_gaps(&root, &opened.index, &model, &scope, coverage.as_ref())?;
        let payload = GapPayload {
            mode: match mode {
                Mode::Summary => "summary",
                Mode::Gaps => "gaps",
                Mode::File => "file",
            },
            stats: GapStats {
                production_functions: r.prod.len(),
                covered: r.covered.len(),
                gaps: r.gaps.len(),
                coverage_ratio: r.coverage_ratio(),
                complex_gaps: r.complex_gaps(&model),
                test_functions: r.tests_total,
                production_files: r.files_total,
                files_analysed: r.files_analysed,
                max_hops: MAX_HOPS,
                coverage_json_used: coverage.is_some(),
            },
            language: language.as_deref(),
            file_path: file.as_deref(),
        };
        let summary = format!(
            "test_gap: {} of {} production function(s) have no test within {MAX_HOPS} call hops",
            r.gaps.len(),
            r.prod.len()
        );
        let mut s = with_payload(Success::new(verdict_of(&model, &r), summary), &payload);
        if mode == Mode::Summary {
            let rows = file_rows(&model, &r);
            s = attach_with(
                s,
                "files",
                "files with gaps",
                rows,
                max_gaps,
                "raise max_gaps",
            );
        } else {
            s = attach_with(
                s,
                "gaps",
                "untested functions",
                ranked_gaps(&model, &r),
                max_gaps,
                "raise max_gaps, or narrow with file_path or language",
            );
            if include_covered || mode == Mode::File {
                let rows = r
                    .covered
                    .iter()
                    .map(|&i| to_value(&covered_row(&model, &r, i)))
                    .collect();
                s = attach_with(
                    s,
                    "covered",
                    "covered functions",
                    rows,
                    max_gaps,
                    "raise max_gaps",
                );
            }
        }
        s = s.with_next_step(if r.gaps.is_empty() {
            "Every production function in scope is reached by a test."
        } else {
            "Write tests for the most complex gaps first; nav action=test_map on a function shows which tests reach it."
        });
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
