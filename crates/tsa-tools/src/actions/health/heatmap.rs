//! `health heatmap` (analyses.md §2): cyclomatic complexity ranked by project
//! (files), file (functions) or function, with the bands low/medium/high/critical.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::complexity::{self, FunctionCc, band};
use tsa_analysis::health::{DepsMode, facts_of};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{Targets, cap, find_targets};
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
    json!({
        "name": f.name, "file": file, "line": f.line, "end_line": f.end_line,
        "complexity": f.complexity, "band": band(f.complexity),
        "lines": f.end_line - f.line + 1, "nesting": f.nesting,
    })
}

pub(crate) fn band_counts<'a>(ccs: impl Iterator<Item = &'a u32>) -> BTreeMap<&'static str, usize> {
    let mut m: BTreeMap<&'static str, usize> = ["low", "medium", "high", "critical"]
        .iter()
        .map(|b| (*b, 0))
        .collect();
    for c in ccs {
        *m.entry(band(*c)).or_default() += 1;
    }
    m
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
            Mode::Project => {
                let dir = match args
                    .directory
                    .as_deref()
                    .filter(|d| !d.is_empty() && *d != ".")
                {
                    Some(d) => {
                        let (abs, rel) = resolve_in_root(root, d)?;
                        if !abs.is_dir() {
                            return Err(ToolError::NotFound(rel));
                        }
                        Some(format!("{}/", rel.trim_end_matches('/')))
                    }
                    None => None,
                };
                let sc = scoring(ctx, DepsMode::Full)?;
                let rels: Vec<String> = sc
                    .scorer
                    .indexed_files()
                    .into_iter()
                    .filter(|f| dir.as_deref().is_none_or(|d| f.path.starts_with(d)))
                    .filter(|f| lang_filter.is_none_or(|l| Language::from_path(&f.path) == Some(l)))
                    .map(|f| f.path.clone())
                    .collect();
                let mut rows: Vec<(String, u32, f64, u32, usize)> = Vec::new();
                let mut all_ccs: Vec<u32> = Vec::new();
                for (rel, r) in sc.scorer.score_all(&rels) {
                    let Ok(s) = r else { continue };
                    let ccs: Vec<u32> = s.facts.functions.iter().map(|f| f.complexity).collect();
                    if ccs.is_empty() {
                        continue;
                    }
                    let total: u32 = ccs.iter().sum();
                    let max = *ccs.iter().max().unwrap_or(&1);
                    all_ccs.extend(&ccs);
                    rows.push((rel, total, total as f64 / ccs.len() as f64, max, ccs.len()));
                }
                rows.sort_by(|a, b| {
                    b.1.cmp(&a.1)
                        .then_with(|| b.3.cmp(&a.3))
                        .then_with(|| a.0.cmp(&b.0))
                });
                let worst = all_ccs.iter().copied().max().unwrap_or(1);
                let summary = format!(
                    "{} files, {} functions, worst cc={} ({})",
                    rows.len(),
                    all_ccs.len(),
                    worst,
                    band(worst)
                );
                let list = Capped::collect(
                    rows.iter().map(|(f, t, a, m, n)| {
                        json!({"file": f, "total_complexity": t, "average_complexity": tsa_analysis::health::round1(*a),
                               "max_complexity": m, "band": band(*m), "functions": n})
                    }),
                    limit,
                );
                Ok(with_warnings(
                    Success::new(verdict_of(worst), summary)
                        .with("mode", "project")
                        .with("function_count", all_ccs.len())
                        .with("band_counts", json!(band_counts(all_ccs.iter())))
                        .with("bands", json!({"low": "1-5", "medium": "6-10", "high": "11-20", "critical": ">=21"}))
                        .with_list(spelling("files", "files"), list)
                        .with_next_step("Open the top file with mode=file to see its functions."),
                    &sc.warnings,
                ))
            }
            Mode::File => {
                let Some(fp) = args.file_path.as_deref() else {
                    return Err(ToolError::Validation(
                        "mode 'file' requires file_path".into(),
                    ));
                };
                let rel = source_file(root, fp)?;
                check_language(args.language.as_deref(), &rel)?;
                let text = tsa_analysis::security::read_text_in_root(root, &rel)?;
                let lang =
                    Language::from_path(&rel).ok_or_else(|| ToolError::Language(rel.clone()))?;
                if complexity::rules(lang).is_none() {
                    return Err(ToolError::Language(rel));
                }
                let cfg = tsa_analysis::health::HealthConfig::load(root)?;
                let mut fns = facts_of(&rel, &text, &cfg).functions;
                let ccs: Vec<u32> = fns.iter().map(|f| f.complexity).collect();
                let worst = ccs.iter().copied().max().unwrap_or(1);
                let total: u32 = ccs.iter().sum();
                fns.sort_by(|a, b| b.complexity.cmp(&a.complexity).then(a.line.cmp(&b.line)));
                let summary = format!(
                    "{rel} {} functions, total cc={total}, worst cc={worst} ({})",
                    fns.len(),
                    band(worst)
                );
                Ok(Success::new(verdict_of(worst), summary)
                    .with("mode", "file")
                    .with("file_path", rel.clone())
                    .with("total_complexity", total)
                    .with("band_counts", json!(band_counts(ccs.iter())))
                    .with_list(
                        spelling("functions", "functions"),
                        Capped::collect(fns.iter().map(|f| fn_row(&rel, f)), limit),
                    )
                    .with_next_step("Functions in the high/critical bands are extraction candidates: edit action=refactor."))
            }
            Mode::Function => {
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
                let mut rows = Vec::new();
                let mut worst = 1;
                for d in &defs {
                    let Some(lang) = Language::from_path(&d.file) else {
                        continue;
                    };
                    let Some(rules) = complexity::rules(lang) else {
                        continue;
                    };
                    let Ok(text) = tsa_analysis::security::read_in_root(root, &d.file) else {
                        continue;
                    };
                    let Some(tree) = complexity::parse(lang, &text) else {
                        continue;
                    };
                    let cc = complexity::of_span(rules, tree.root_node(), d.line, d.end_line);
                    worst = worst.max(cc);
                    rows.push(json!({"name": d.qualname, "file": d.file, "line": d.line, "end_line": d.end_line,
                                     "kind": d.kind, "complexity": cc, "band": band(cc)}));
                }
                let summary = format!(
                    "{name}: {} definition(s), worst cc={worst} ({})",
                    rows.len(),
                    band(worst)
                );
                Ok(Success::new(verdict_of(worst), summary)
                    .with("mode", "function")
                    .with("function_name", name)
                    .with_list(spelling("functions", "definitions"), Capped::collect(rows, limit))
                    .with_next_step("Complexity above 10 is an extraction candidate: edit action=refactor on its file."))
            }
        }
    }
}
