//! `health test_gap`: production functions no test reaches (a test function calls
//! them directly or through at most 3 hops of resolved calls), ranked by cyclomatic
//! complexity; optionally merged with a coverage.py JSON report.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::chain::complexity::{band, of_symbols};
use tsa_analysis::health::files::attach_with;
use tsa_analysis::health::model::{CALLABLE, Model};
use tsa_analysis::hyphae::Universe;
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::source::source_file;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Most call hops from a test function that still count as tested.
pub const MAX_HOPS: usize = 3;

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

/// How a function is covered.
#[derive(Clone, Debug)]
enum Cover {
    Test { hops: usize, test: i64 },
    Coverage,
}

fn load_coverage(
    root: &std::path::Path,
    input: &str,
) -> Result<FxHashMap<String, FxHashSet<u32>>, ToolError> {
    let (abs, rel) = resolve_in_root(root, input)?;
    let text = std::fs::read_to_string(&abs).map_err(|_| ToolError::NotFound(rel.clone()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| ToolError::Validation(format!("coverage_json '{rel}' is not JSON: {e}")))?;
    let Some(files) = v.get("files").and_then(Value::as_object) else {
        return Err(ToolError::Validation(format!(
            "coverage_json '{rel}' has no 'files' object (expected coverage.py `coverage json` output)"
        )));
    };
    let root_str = root.to_string_lossy().replace('\\', "/");
    let mut out = FxHashMap::default();
    for (path, data) in files {
        let p = path.replace('\\', "/");
        let p = p
            .strip_prefix(&format!("{root_str}/"))
            .unwrap_or(&p)
            .trim_start_matches("./")
            .to_owned();
        let lines: FxHashSet<u32> = data
            .get("executed_lines")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|l| l.as_u64().map(|l| l as u32))
                    .collect()
            })
            .unwrap_or_default();
        out.insert(p, lines);
    }
    Ok(out)
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
        let file = match (mode, args.file_path.as_deref()) {
            (_, Some(f)) => Some(source_file(&root, f)?),
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
        let coverage = match args.coverage_json.as_deref() {
            Some(c) => Some(load_coverage(&root, c)?),
            None => None,
        };
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        if let Some(f) = &file
            && model.file_id_of(f).is_none()
        {
            return Ok(
                Success::new(Verdict::NotFound, format!("test_gap: '{f}' is not indexed"))
                    .with("file_path", f.as_str())
                    .with_next_step("Run index action=sync, then retry."),
            );
        }
        let is_test = |i: usize| {
            let s = &model.syms[i];
            s.is_test || model.file(s.file_id).is_some_and(|f| f.is_test)
        };
        // Walk down from every test function, MAX_HOPS levels, in memory.
        let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); model.syms.len()];
        for e in &model.edges {
            if let (Some(c), Some(&t)) = (
                e.caller.and_then(|c| model.sym_at.get(&c)),
                model.sym_at.get(&e.target),
            ) {
                out_edges[*c].push(t);
            }
        }
        let mut cover: Vec<Option<Cover>> = vec![None; model.syms.len()];
        let mut frontier: Vec<(usize, i64)> = (0..model.syms.len())
            .filter(|&i| is_test(i) && CALLABLE.contains(&model.syms[i].kind.as_str()))
            .map(|i| (i, model.syms[i].id))
            .collect();
        let tests_total = frontier.len();
        let mut seen: FxHashSet<usize> = frontier.iter().map(|(i, _)| *i).collect();
        for hops in 1..=MAX_HOPS {
            let mut next = Vec::new();
            for (v, test) in frontier {
                for &w in &out_edges[v] {
                    if seen.insert(w) {
                        if !is_test(w) {
                            cover[w] = Some(Cover::Test { hops, test });
                        }
                        next.push((w, test));
                    }
                }
            }
            frontier = next;
        }
        // Production functions in scope.
        let mut prod_files: Vec<&str> = model
            .files
            .iter()
            .filter(|f| !f.is_test)
            .filter(|f| language.as_deref().is_none_or(|l| f.language == l))
            .filter(|f| file.as_deref().is_none_or(|p| f.path == p))
            .map(|f| f.path.as_str())
            .collect();
        prod_files.sort_unstable();
        let files_total = prod_files.len();
        prod_files.truncate(max_files);
        let in_files: FxHashSet<&str> = prod_files.iter().copied().collect();
        let prod: Vec<usize> = (0..model.syms.len())
            .filter(|&i| {
                let s = &model.syms[i];
                CALLABLE.contains(&s.kind.as_str())
                    && !is_test(i)
                    // A declaration without a body (trait/interface signature) has nothing to test.
                    && !s.signature.trim_end().ends_with(';')
                    && in_files.contains(model.path_of(s.file_id))
            })
            .collect();
        if let Some(cov) = &coverage {
            for &i in &prod {
                let s = &model.syms[i];
                if cover[i].is_none()
                    && let Some(lines) = cov.get(model.path_of(s.file_id))
                    && (s.line + 1..=s.end_line.max(s.line)).any(|l| lines.contains(&l))
                {
                    cover[i] = Some(Cover::Coverage);
                }
            }
        }
        let gaps: Vec<usize> = prod
            .iter()
            .copied()
            .filter(|&i| cover[i].is_none())
            .collect();
        let covered: Vec<usize> = prod
            .iter()
            .copied()
            .filter(|&i| cover[i].is_some())
            .collect();
        // Complexity of the gaps (and of the file's functions in file mode).
        let universe = Universe::load(&opened.index)?;
        let wanted: Vec<i64> = if mode == Mode::File {
            prod.iter().map(|&i| model.syms[i].id).collect()
        } else {
            gaps.iter().map(|&i| model.syms[i].id).collect()
        };
        let cc = of_symbols(&root, &universe, &wanted);
        let cc_of = |i: usize| cc.get(&model.syms[i].id).copied().flatten();
        let gap_row = |i: usize| {
            let s = &model.syms[i];
            let c = cc_of(i);
            json!({
                "name": s.name,
                "qualified_name": s.qualname,
                "file": model.path_of(s.file_id),
                "line": s.line,
                "end_line": s.end_line,
                "language": model.file(s.file_id).map_or("", |f| f.language.as_str()),
                "complexity": c,
                "risk_band": c.map(band),
            })
        };
        let covered_row = |i: usize| {
            let s = &model.syms[i];
            let mut r = json!({
                "name": s.name,
                "qualified_name": s.qualname,
                "file": model.path_of(s.file_id),
                "line": s.line,
            });
            match &cover[i] {
                Some(Cover::Test { hops, test }) => {
                    r["hops"] = json!(hops);
                    r["covered_by"] = json!(model.sym(*test).map(|t| format!(
                        "{}::{}",
                        model.path_of(t.file_id),
                        t.qualname
                    )));
                }
                Some(Cover::Coverage) => r["covered_by"] = json!("coverage_json"),
                None => {}
            }
            r
        };
        let risky = gaps
            .iter()
            .filter(|&&i| cc_of(i).is_some_and(|c| c > 10))
            .count();
        let verdict = if prod.is_empty() {
            Verdict::Info
        } else if gaps.is_empty() {
            Verdict::Safe
        } else if risky > 0 {
            Verdict::Review
        } else {
            Verdict::Caution
        };
        let ratio = if prod.is_empty() {
            1.0
        } else {
            ((covered.len() as f64 / prod.len() as f64) * 1000.0).round() / 1000.0
        };
        let stats = json!({
            "production_functions": prod.len(),
            "covered": covered.len(),
            "gaps": gaps.len(),
            "coverage_ratio": ratio,
            "complex_gaps": risky,
            "test_functions": tests_total,
            "production_files": files_total,
            "files_analysed": prod_files.len(),
            "max_hops": MAX_HOPS,
            "coverage_json_used": coverage.is_some(),
        });
        let mut s = Success::new(
            verdict,
            format!(
                "test_gap: {} of {} production function(s) have no test within {MAX_HOPS} call hops",
                gaps.len(),
                prod.len()
            ),
        )
        .with("mode", match mode {
            Mode::Summary => "summary",
            Mode::Gaps => "gaps",
            Mode::File => "file",
        })
        .with("stats", stats);
        if let Some(l) = &language {
            s = s.with("language", l.as_str());
        }
        if let Some(f) = &file {
            s = s.with("file_path", f.as_str());
        }
        match mode {
            Mode::Summary => {
                let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
                for &i in &prod {
                    let e = per.entry(model.path_of(model.syms[i].file_id)).or_default();
                    e.0 += 1;
                    if cover[i].is_none() {
                        e.1 += 1;
                    }
                }
                let mut rows: Vec<(&str, usize, usize)> = per
                    .into_iter()
                    .map(|(f, (n, g))| (f, n, g))
                    .filter(|r| r.2 > 0)
                    .collect();
                rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
                let rows = rows
                    .into_iter()
                    .map(
                        |(f, n, g)| json!({"file": f, "functions": n, "gaps": g, "covered": n - g}),
                    )
                    .collect();
                s = attach_with(
                    s,
                    "files",
                    "files with gaps",
                    rows,
                    max_gaps,
                    "raise max_gaps",
                );
            }
            Mode::Gaps | Mode::File => {
                let mut ranked = gaps.clone();
                ranked.sort_by(|&a, &b| {
                    cc_of(b)
                        .unwrap_or(0)
                        .cmp(&cc_of(a).unwrap_or(0))
                        .then(
                            model
                                .path_of(model.syms[a].file_id)
                                .cmp(model.path_of(model.syms[b].file_id)),
                        )
                        .then(model.syms[a].line.cmp(&model.syms[b].line))
                });
                s = attach_with(
                    s,
                    "gaps",
                    "untested functions",
                    ranked.into_iter().map(gap_row).collect(),
                    max_gaps,
                    "raise max_gaps, or narrow with file_path or language",
                );
                if include_covered || mode == Mode::File {
                    let rows = covered.iter().map(|&i| covered_row(i)).collect();
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
        }
        s = s.with_next_step(if gaps.is_empty() {
            "Every production function in scope is reached by a test.".to_owned()
        } else {
            "Write tests for the most complex gaps first; nav action=test_map on a function shows which tests reach it.".to_owned()
        });
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
