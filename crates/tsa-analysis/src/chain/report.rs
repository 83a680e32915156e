//! The rows of a finished chain (the engine behind `search chain`'s answer): each
//! listed symbol with the facets the chain asked for (callers, callees,
//! complexity, risk, affected tests, source), the files of the working set by
//! symbol count, and the Mermaid flowchart of `uml()`.

use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::Value as Json;
use tsa_index::{DslSymbol, Index};
use tsa_lang::is_test_path;

use super::{Run, complexity, fan_counts, risk_of};
use crate::ToolError;
use crate::hyphae::Universe;
use crate::mermaid;
use crate::source::Bodies;

/// A compact row: where a symbol is.
#[derive(Clone, Debug, Serialize)]
pub struct CompactRow {
    /// Bare name.
    pub name: String,
    /// Definition kind.
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
}

/// A symbol's risk from its fans.
#[derive(Clone, Debug, Serialize)]
pub struct Risk {
    /// 0..100.
    pub score: u32,
    /// low, medium, high.
    pub level: &'static str,
    /// Resolved callers.
    pub fan_in: usize,
    /// Resolved callees.
    pub fan_out: usize,
    /// Files calling it.
    pub cross_file_callers: usize,
    /// Files it calls into.
    pub cross_file_callees: usize,
}

/// A full row: the symbol and the facets asked for (absent when not asked).
#[derive(Clone, Debug, Serialize)]
pub struct FullRow {
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Definition kind.
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Language of the file.
    pub language: String,
    /// The step that brought it in.
    pub via: String,
    /// With callers: their number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller_count: Option<usize>,
    /// With callers: `qualname (file:line)` of the first few.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callers: Option<Vec<String>>,
    /// With callees: their number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callee_count: Option<usize>,
    /// With callees: the first few.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callees: Option<Vec<String>>,
    /// With complexity: cyclomatic complexity of a function or method (null for
    /// other kinds or an unreadable file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity: Option<Option<u32>>,
    /// Its band.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity_band: Option<&'static str>,
    /// Why it could not be computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity_unavailable: Option<&'static str>,
    /// With risk: the score and its fans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// With affected_tests: tests reaching it upstream (depth <= 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affected_test_count: Option<usize>,
    /// Their first few.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affected_tests: Option<Vec<String>>,
    /// With health: always null (health is scored per file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<Option<u32>>,
    /// With source: the inlined body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Json>,
}

/// One listed symbol.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum ChainRow {
    /// With compact.
    Compact(CompactRow),
    /// Otherwise.
    Full(Box<FullRow>),
}

/// A file of the working set.
#[derive(Clone, Debug, Serialize)]
pub struct FileCount {
    /// Project-relative path.
    pub file: String,
    /// Symbols of the working set in it.
    pub symbol_count: usize,
}

/// The `uml()` flowchart of the call edges within the working set.
#[derive(Clone, Debug)]
pub struct UmlChart {
    /// Mermaid text.
    pub mermaid: String,
    /// Edges within the working set.
    pub edge_total: usize,
    /// Edges drawn.
    pub edges_listed: usize,
}

/// What a chain's answer lists.
#[derive(Clone, Debug)]
pub struct ChainReport {
    /// The first `max_symbols` symbols, with their facets.
    pub rows: Vec<ChainRow>,
    /// Files of the whole working set, most symbols first (then by path).
    pub files: Vec<FileCount>,
    /// The flowchart, with uml().
    pub uml: Option<UmlChart>,
}

/// `qualname (file:line)`.
fn label(universe: &Universe, id: i64) -> Option<String> {
    let s = universe.get(id)?;
    let file = universe.file_of(s)?;
    Some(format!("{} ({}:{})", s.qualname, file.path, s.line))
}

/// The count of distinct `ids` and the labels of the first `limit`.
fn neighbours(universe: &Universe, mut ids: Vec<i64>, limit: usize) -> (usize, Vec<String>) {
    ids.sort_unstable();
    ids.dedup();
    let n = ids.len();
    (
        n,
        ids.into_iter()
            .take(limit)
            .filter_map(|id| label(universe, id))
            .collect(),
    )
}

/// Tests reaching `id` upstream through resolved calls (depth <= 3).
fn affected_tests(index: &Index, universe: &Universe, id: i64) -> Result<Vec<i64>, ToolError> {
    let mut seen: FxHashSet<i64> = FxHashSet::from_iter([id]);
    let mut frontier = vec![id];
    let mut tests: Vec<i64> = Vec::new();
    for _ in 0..3 {
        if frontier.is_empty() {
            break;
        }
        let up = index.dsl_callers_of(&frontier)?;
        frontier = up.into_iter().filter(|c| seen.insert(*c)).collect();
        for c in &frontier {
            if let Some(cs) = universe.get(*c) {
                let path = universe.file_of(cs).map(|f| f.path.as_str()).unwrap_or("");
                if cs.is_test || is_test_path(path) {
                    tests.push(*c);
                }
            }
        }
    }
    Ok(tests)
}

/// The facets shared by every row, computed once for the listed symbols.
struct Shared<'a> {
    index: &'a Index,
    universe: &'a Universe,
    run: &'a Run,
    fans: FxHashMap<i64, super::Fans>,
    cx: FxHashMap<i64, Option<u32>>,
}

impl Shared<'_> {
    fn full_row(
        &self,
        id: i64,
        s: &DslSymbol,
        file: &tsa_index::DslFile,
        bodies: &mut Bodies<'_>,
    ) -> Result<FullRow, ToolError> {
        let f = &self.run.facets;
        let mut row = FullRow {
            name: s.name.clone(),
            qualified_name: s.qualname.clone(),
            kind: s.kind.clone(),
            file: file.path.clone(),
            line: s.line,
            end_line: s.end_line,
            language: file.language.clone(),
            via: self.run.via.get(&id).cloned().unwrap_or_default(),
            caller_count: None,
            callers: None,
            callee_count: None,
            callees: None,
            complexity: None,
            complexity_band: None,
            complexity_unavailable: None,
            risk: None,
            affected_test_count: None,
            affected_tests: None,
            health: None,
            body: None,
        };
        if f.callers {
            let (n, list) = neighbours(self.universe, self.index.dsl_callers_of(&[id])?, f.limit);
            row.caller_count = Some(n);
            row.callers = Some(list);
        }
        if f.callees {
            let (n, list) = neighbours(self.universe, self.index.dsl_callees_of(&[id])?, f.limit);
            row.callee_count = Some(n);
            row.callees = Some(list);
        }
        if f.complexity {
            match self.cx.get(&id).copied().flatten() {
                Some(c) if matches!(s.kind.as_str(), "function" | "method") => {
                    row.complexity = Some(Some(c));
                    row.complexity_band = Some(complexity::band(c));
                }
                Some(_) => row.complexity = Some(None),
                None => {
                    row.complexity = Some(None);
                    row.complexity_unavailable = Some("file could not be read or parsed");
                }
            }
        }
        if f.risk {
            let fan = self.fans.get(&id).copied().unwrap_or_default();
            let (score, level) = risk_of(&fan);
            row.risk = Some(Risk {
                score,
                level,
                fan_in: fan.fan_in,
                fan_out: fan.fan_out,
                cross_file_callers: fan.cross_file_callers,
                cross_file_callees: fan.cross_file_callees,
            });
        }
        if f.affected_tests {
            let tests = affected_tests(self.index, self.universe, id)?;
            let (n, list) = neighbours(self.universe, tests, f.limit);
            row.affected_test_count = Some(n);
            row.affected_tests = Some(list);
        }
        if f.health {
            row.health = Some(None);
        }
        if f.source {
            row.body = bodies.body(&s.qualname, &file.path, s.line, s.end_line);
        }
        Ok(row)
    }
}

/// Files of the whole working set, by symbol count (then path).
fn files_of(universe: &Universe, ids: &[i64]) -> Vec<FileCount> {
    let mut counts: FxHashMap<&str, usize> = FxHashMap::default();
    let mut order: Vec<&str> = Vec::new();
    for id in ids {
        if let Some(file) = universe.get(*id).and_then(|s| universe.file_of(s)) {
            let e = counts.entry(file.path.as_str()).or_insert(0);
            if *e == 0 {
                order.push(file.path.as_str());
            }
            *e += 1;
        }
    }
    let mut files: Vec<FileCount> = order
        .into_iter()
        .map(|f| FileCount {
            file: f.to_owned(),
            symbol_count: counts[f],
        })
        .collect();
    files.sort_by(|a, b| {
        b.symbol_count
            .cmp(&a.symbol_count)
            .then_with(|| a.file.cmp(&b.file))
    });
    files
}

/// The flowchart of the call edges within the working set.
fn uml_chart(
    index: &Index,
    universe: &Universe,
    run: &Run,
    u: &super::Uml,
) -> Result<UmlChart, ToolError> {
    let mut all = run.ids.clone();
    all.sort_unstable();
    let edges = index.dsl_edges_within(&all)?;
    let edges: Vec<(i64, i64)> = edges.into_iter().filter(|(a, b)| a != b).collect();
    let edge_total = edges.len();
    let kept: Vec<(i64, i64)> = edges.into_iter().take(u.max_edges).collect();
    let mut nodes: Vec<(String, String)> = Vec::new();
    let mut ids: FxHashMap<i64, String> = FxHashMap::default();
    for id in kept.iter().flat_map(|(a, b)| [*a, *b]) {
        if ids.contains_key(&id) {
            continue;
        }
        if let Some(sym) = universe.get(id) {
            let file = universe.file_of(sym).map(|f| f.path.as_str()).unwrap_or("");
            let nid = mermaid::node_id(&sym.qualname, file);
            nodes.push((nid.clone(), mermaid::label(&sym.qualname, file)));
            ids.insert(id, nid);
        }
    }
    let pairs: Vec<(String, String)> = kept
        .iter()
        .filter_map(|(a, b)| Some((ids.get(a)?.clone(), ids.get(b)?.clone())))
        .collect();
    Ok(UmlChart {
        mermaid: mermaid::flowchart(&u.direction, &nodes, &pairs, edge_total),
        edge_total,
        edges_listed: kept.len(),
    })
}

/// The rows, files and flowchart of a finished chain; bodies come from `bodies`
/// (its budget and the files it could not read stay with it).
pub fn report(
    root: &Path,
    index: &Index,
    universe: &Universe,
    run: &Run,
    bodies: &mut Bodies<'_>,
) -> Result<ChainReport, ToolError> {
    let p = run.params;
    let f = &run.facets;
    let shown: Vec<i64> = run.ids.iter().take(p.max_symbols).copied().collect();
    let shared = Shared {
        index,
        universe,
        run,
        fans: if f.risk {
            fan_counts(index, universe, &shown)?
        } else {
            FxHashMap::default()
        },
        cx: if f.complexity {
            complexity::of_symbols(root, universe, &shown)
        } else {
            FxHashMap::default()
        },
    };
    let mut rows: Vec<ChainRow> = Vec::with_capacity(shown.len());
    for id in &shown {
        let Some(s) = universe.get(*id) else { continue };
        let Some(file) = universe.file_of(s) else {
            continue;
        };
        rows.push(if p.compact {
            ChainRow::Compact(CompactRow {
                name: s.name.clone(),
                kind: s.kind.clone(),
                file: file.path.clone(),
                line: s.line,
            })
        } else {
            ChainRow::Full(Box::new(shared.full_row(*id, s, file, bodies)?))
        });
    }
    let uml = match &run.uml {
        Some(u) => Some(uml_chart(index, universe, run, u)?),
        None => None,
    };
    Ok(ChainReport {
        rows,
        files: files_of(universe, &run.ids),
        uml,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{Params, parse::parse, run as run_chain};
    use crate::source::BodyBudget;

    use crate::test_support::index_of;

    const APP: &str = "def helper():\n    return 1\n\n\ndef build():\n    if helper():\n        return 2\n    return helper()\n";
    const TEST: &str = "from app import build\n\n\ndef test_build():\n    assert build()\n";

    fn report_of(query: &str, compact: bool) -> ChainReport {
        let (dir, ix) = index_of(&[("app.py", APP), ("tests/test_app.py", TEST)]);
        let universe = Universe::load(&ix).unwrap();
        let steps = parse(query).unwrap();
        let params = Params {
            max_symbols: 20,
            max_files: 8,
            include_code: true,
            compact,
        };
        let run = run_chain(&ix, &universe, &steps, params).unwrap();
        let mut bodies = Bodies::new(
            dir.path(),
            BodyBudget {
                rows: 12,
                lines_each: 40,
                lines_total: 400,
            },
        );
        report(dir.path(), &ix, &universe, &run, &mut bodies).unwrap()
    }

    #[test]
    fn facets_are_attached_only_when_asked() {
        let r = report_of(
            "search('helper').include('callers','complexity','risk','affected_tests')",
            false,
        );
        let ChainRow::Full(row) = &r.rows[0] else {
            panic!("a full row")
        };
        assert_eq!(row.name, "helper");
        assert_eq!(row.caller_count, Some(1));
        assert_eq!(row.complexity, Some(Some(1)));
        assert!(row.risk.is_some());
        assert_eq!(row.affected_test_count, Some(1));
        assert!(row.callees.is_none() && row.health.is_none());
        assert_eq!(r.files[0].file, "app.py");
        assert!(r.uml.is_none());
    }

    #[test]
    fn compact_rows_and_the_flowchart() {
        let r = report_of("search('build').callees().uml()", true);
        assert!(r.rows.iter().all(|x| matches!(x, ChainRow::Compact(_))));
        let uml = r.uml.unwrap();
        assert!(uml.edge_total >= 1, "{uml:?}");
        assert!(uml.mermaid.starts_with("flowchart"), "{}", uml.mermaid);
    }
}
