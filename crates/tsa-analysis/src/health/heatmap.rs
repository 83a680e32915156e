//! The complexity heatmap of `health heatmap` (analyses.md §2): files ranked by
//! their functions' cyclomatic complexity, a file's functions, or the definitions
//! of one name, with the bands low/medium/high/critical.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use tsa_index::SymbolRow;
use tsa_lang::Language;

use crate::complexity::{self, FunctionCc, band};
use crate::error::ToolError;
use crate::health::{HealthConfig, Scorer, facts_of, round1};

/// Every band with how many complexities fall in it (zeros included).
pub fn band_counts<'a>(ccs: impl Iterator<Item = &'a u32>) -> BTreeMap<&'static str, usize> {
    let mut m: BTreeMap<&'static str, usize> = ["low", "medium", "high", "critical"]
        .iter()
        .map(|b| (*b, 0))
        .collect();
    for c in ccs {
        *m.entry(band(*c)).or_default() += 1;
    }
    m
}

/// A function of a file with its complexity.
#[derive(Clone, Debug, Serialize)]
pub struct FunctionHeat<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub end_line: u32,
    pub complexity: u32,
    pub band: &'static str,
    pub lines: u32,
    pub nesting: u32,
}

impl<'a> FunctionHeat<'a> {
    pub fn of(file: &'a str, f: &'a FunctionCc) -> FunctionHeat<'a> {
        FunctionHeat {
            name: &f.name,
            file,
            line: f.line,
            end_line: f.end_line,
            complexity: f.complexity,
            band: band(f.complexity),
            lines: f.end_line - f.line + 1,
            nesting: f.nesting,
        }
    }
}

/// A file with the complexity of its functions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileHeat {
    pub file: String,
    pub total_complexity: u32,
    /// One decimal.
    pub average_complexity: f64,
    pub max_complexity: u32,
    /// The band of the most complex function.
    pub band: &'static str,
    pub functions: usize,
}

/// The files of `rels` that have functions, most total complexity first (then the
/// worst function, then by path), and every function's complexity.
pub fn file_heat(scorer: &Scorer, rels: &[String]) -> (Vec<FileHeat>, Vec<u32>) {
    let mut rows = Vec::new();
    let mut all_ccs: Vec<u32> = Vec::new();
    for (rel, r) in scorer.score_all(rels) {
        let Ok(s) = r else { continue };
        let ccs: Vec<u32> = s.facts.functions.iter().map(|f| f.complexity).collect();
        if let Some(row) = heat_of(rel, &ccs) {
            all_ccs.extend(&ccs);
            rows.push(row);
        }
    }
    rank(&mut rows);
    (rows, all_ccs)
}

fn heat_of(file: String, ccs: &[u32]) -> Option<FileHeat> {
    let max = *ccs.iter().max()?;
    let total: u32 = ccs.iter().sum();
    Some(FileHeat {
        file,
        total_complexity: total,
        average_complexity: round1(total as f64 / ccs.len() as f64),
        max_complexity: max,
        band: band(max),
        functions: ccs.len(),
    })
}

fn rank(rows: &mut [FileHeat]) {
    rows.sort_by(|a, b| {
        b.total_complexity
            .cmp(&a.total_complexity)
            .then_with(|| b.max_complexity.cmp(&a.max_complexity))
            .then_with(|| a.file.cmp(&b.file))
    });
}

/// The functions of project file `rel` (a source file), most complex first.
pub fn file_functions(root: &Path, rel: &str) -> Result<Vec<FunctionCc>, ToolError> {
    let text = crate::security::read_text_in_root(root, rel)?;
    let lang = Language::from_path(rel).ok_or_else(|| ToolError::Language(rel.to_owned()))?;
    if complexity::rules(lang).is_none() {
        return Err(ToolError::Language(rel.to_owned()));
    }
    let cfg = HealthConfig::load(root)?;
    let mut fns = facts_of(rel, &text, &cfg).functions;
    fns.sort_by(|a, b| b.complexity.cmp(&a.complexity).then(a.line.cmp(&b.line)));
    Ok(fns)
}

/// A definition with the complexity of its span.
#[derive(Clone, Debug, Serialize)]
pub struct SpanHeat<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub end_line: u32,
    pub kind: &'a str,
    pub complexity: u32,
    pub band: &'static str,
}

/// The complexity of each definition whose file can be read and parsed.
pub fn span_heat<'a>(root: &Path, defs: &'a [SymbolRow]) -> Vec<SpanHeat<'a>> {
    let mut rows = Vec::new();
    for d in defs {
        let Some(lang) = Language::from_path(&d.file) else {
            continue;
        };
        let Some(rules) = complexity::rules(lang) else {
            continue;
        };
        let Ok(text) = crate::security::read_in_root(root, &d.file) else {
            continue;
        };
        let Some(tree) = complexity::parse(lang, &text) else {
            continue;
        };
        let cc = complexity::of_span(rules, tree.root_node(), d.line, d.end_line);
        rows.push(SpanHeat {
            name: &d.qualname,
            file: &d.file,
            line: d.line,
            end_line: d.end_line,
            kind: &d.kind,
            complexity: cc,
            band: band(cc),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_rank_by_total_then_worst_then_path() {
        let mut rows: Vec<FileHeat> = [
            ("b.py", vec![3, 3]),
            ("a.py", vec![1, 5]),
            ("c.py", vec![9]),
        ]
        .into_iter()
        .filter_map(|(f, ccs)| heat_of(f.to_owned(), &ccs))
        .collect();
        assert!(heat_of("e.py".into(), &[]).is_none(), "no function, no row");
        rank(&mut rows);
        let order: Vec<&str> = rows.iter().map(|r| r.file.as_str()).collect();
        assert_eq!(order, ["c.py", "a.py", "b.py"]);
        assert_eq!(rows[1].average_complexity, 3.0);
        assert_eq!(rows[0].band, "medium");
        let counts = band_counts([1, 6, 11, 30, 2].iter());
        assert_eq!(counts["low"], 2);
        assert_eq!(counts["critical"], 1);
    }

    #[test]
    fn a_file_functions_come_most_complex_first() {
        let dir = tempfile::tempdir().unwrap();
        let src =
            "def a():\n    return 1\n\ndef b(x):\n    if x:\n        return 1\n    return 2\n";
        std::fs::write(dir.path().join("m.py"), src).unwrap();
        let fns = file_functions(dir.path(), "m.py").unwrap();
        let got: Vec<(&str, u32)> = fns
            .iter()
            .map(|f| (f.name.as_str(), f.complexity))
            .collect();
        assert_eq!(got, [("b", 2), ("a", 1)]);
    }
}
