//! Test gaps: production functions no test reaches (a test function calls them
//! directly or through at most [`MAX_HOPS`] hops of resolved calls), with their
//! cyclomatic complexity; optionally merged with a coverage.py JSON report.

use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use tsa_index::Index;

use crate::chain::complexity::of_symbols;
use crate::error::ToolError;
use crate::health::model::{CALLABLE, Model};
use crate::hyphae::Universe;
use crate::security::resolve_in_root;

/// Most call hops from a test function that still count as tested.
pub const MAX_HOPS: usize = 3;

/// Executed lines per project-relative file, from a coverage.py JSON report.
pub type Coverage = FxHashMap<String, FxHashSet<u32>>;

/// How a function is covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cover {
    /// A test function (model id) reaches it in `hops` calls.
    Test { hops: usize, test: i64 },
    /// The coverage report executed a line of its body.
    Coverage,
}

/// Reads a coverage.py `coverage json` report (paths made project-relative).
pub fn load_coverage(root: &Path, input: &str) -> Result<Coverage, ToolError> {
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

/// Which production functions to look at.
#[derive(Clone, Debug, Default)]
pub struct GapScope<'a> {
    /// Only files of this language (index name).
    pub language: Option<&'a str>,
    /// Only this file.
    pub file: Option<&'a str>,
    /// Most production files analysed, in path order.
    pub max_files: usize,
    /// Measure the complexity of every production function, not only the gaps.
    pub complexity_of_all: bool,
}

/// The test gaps of a project (symbols are indexes into the model's `syms`).
#[derive(Clone, Debug)]
pub struct GapReport {
    /// How each model symbol is covered (`None`: not reached).
    pub cover: Vec<Option<Cover>>,
    /// Production functions analysed, in model order.
    pub prod: Vec<usize>,
    /// Those no test reaches.
    pub gaps: Vec<usize>,
    /// Those a test (or the coverage report) reaches.
    pub covered: Vec<usize>,
    /// Test functions of the project.
    pub tests_total: usize,
    /// Production files in scope.
    pub files_total: usize,
    /// Production files analysed (at most `max_files`).
    pub files_analysed: usize,
    /// Cyclomatic complexity per model id (gaps, or every production function).
    pub complexity: FxHashMap<i64, Option<u32>>,
}

impl GapReport {
    /// The complexity of model symbol `i`, when measured.
    pub fn complexity_of(&self, model: &Model, i: usize) -> Option<u32> {
        self.complexity.get(&model.syms[i].id).copied().flatten()
    }

    /// Gaps of complexity above 10.
    pub fn complex_gaps(&self, model: &Model) -> usize {
        self.gaps
            .iter()
            .filter(|&&i| self.complexity_of(model, i).is_some_and(|c| c > 10))
            .count()
    }

    /// Covered / production functions, 3 decimals (1 without production functions).
    pub fn coverage_ratio(&self) -> f64 {
        ratio(self.covered.len(), self.prod.len())
    }
}

fn ratio(covered: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        ((covered as f64 / total as f64) * 1000.0).round() / 1000.0
    }
}

/// Whether model symbol `i` is test code.
fn is_test(model: &Model, i: usize) -> bool {
    let s = &model.syms[i];
    s.is_test || model.file(s.file_id).is_some_and(|f| f.is_test)
}

/// Walks down from every test function [`MAX_HOPS`] levels; returns the cover per
/// symbol and the number of test functions.
fn reach(model: &Model) -> (Vec<Option<Cover>>, usize) {
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
        .filter(|&i| is_test(model, i) && CALLABLE.contains(&model.syms[i].kind.as_str()))
        .map(|i| (i, model.syms[i].id))
        .collect();
    let tests_total = frontier.len();
    let mut seen: FxHashSet<usize> = frontier.iter().map(|(i, _)| *i).collect();
    for hops in 1..=MAX_HOPS {
        let mut next = Vec::new();
        for (v, test) in frontier {
            for &w in &out_edges[v] {
                if seen.insert(w) {
                    if !is_test(model, w) {
                        cover[w] = Some(Cover::Test { hops, test });
                    }
                    next.push((w, test));
                }
            }
        }
        frontier = next;
    }
    (cover, tests_total)
}

/// Whether a line of the body (after the definition line) was executed.
fn executed(lines: &FxHashSet<u32>, line: u32, end_line: u32) -> bool {
    (line + 1..=end_line.max(line)).any(|l| lines.contains(&l))
}

/// The test gaps of the production functions in `scope`.
pub fn test_gaps(
    root: &Path,
    index: &Index,
    model: &Model,
    scope: &GapScope<'_>,
    coverage: Option<&Coverage>,
) -> Result<GapReport, ToolError> {
    let (mut cover, tests_total) = reach(model);
    let mut prod_files: Vec<&str> = model
        .files
        .iter()
        .filter(|f| !f.is_test)
        .filter(|f| scope.language.is_none_or(|l| f.language == l))
        .filter(|f| scope.file.is_none_or(|p| f.path == p))
        .map(|f| f.path.as_str())
        .collect();
    prod_files.sort_unstable();
    let files_total = prod_files.len();
    prod_files.truncate(scope.max_files);
    let in_files: FxHashSet<&str> = prod_files.iter().copied().collect();
    let prod: Vec<usize> = (0..model.syms.len())
        .filter(|&i| {
            let s = &model.syms[i];
            CALLABLE.contains(&s.kind.as_str())
                && !is_test(model, i)
                // A declaration without a body (trait/interface signature) has nothing to test.
                && !s.signature.trim_end().ends_with(';')
                && in_files.contains(model.path_of(s.file_id))
        })
        .collect();
    if let Some(cov) = coverage {
        for &i in &prod {
            let s = &model.syms[i];
            if cover[i].is_none()
                && cov
                    .get(model.path_of(s.file_id))
                    .is_some_and(|lines| executed(lines, s.line, s.end_line))
            {
                cover[i] = Some(Cover::Coverage);
            }
        }
    }
    let (covered, gaps): (Vec<usize>, Vec<usize>) =
        prod.iter().copied().partition(|&i| cover[i].is_some());
    let universe = Universe::load(index)?;
    let wanted: Vec<i64> = if scope.complexity_of_all {
        &prod
    } else {
        &gaps
    }
    .iter()
    .map(|&i| model.syms[i].id)
    .collect();
    let complexity = of_symbols(root, &universe, &wanted);
    Ok(GapReport {
        cover,
        prod,
        gaps,
        covered,
        tests_total,
        files_total,
        files_analysed: prod_files.len(),
        complexity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_has_three_decimals_and_is_one_without_functions() {
        assert_eq!(ratio(0, 0), 1.0);
        assert_eq!(ratio(1, 3), 0.333);
        assert_eq!(ratio(2, 3), 0.667);
    }

    #[test]
    fn only_body_lines_count_as_executed() {
        let lines: FxHashSet<u32> = [10, 20].into_iter().collect();
        assert!(!executed(&lines, 10, 12), "the def line is not the body");
        assert!(executed(&lines, 9, 10));
        assert!(executed(&lines, 18, 25));
        assert!(
            !executed(&lines, 20, 20),
            "a one-line function has no body line"
        );
    }

    #[test]
    fn coverage_paths_become_project_relative() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let abs = format!("{}/pkg/a.py", root.display());
        let report = format!(
            r#"{{"files": {{"{abs}": {{"executed_lines": [1, 3]}}, "./pkg/b.py": {{}}}}}}"#
        );
        std::fs::write(root.join("cov.json"), report).unwrap();
        let cov = load_coverage(root, "cov.json").unwrap();
        assert_eq!(cov["pkg/a.py"].len(), 2);
        assert!(cov["pkg/b.py"].is_empty());
        std::fs::write(root.join("bad.json"), "{}").unwrap();
        assert!(matches!(
            load_coverage(root, "bad.json"),
            Err(ToolError::Validation(_))
        ));
    }
}
