//! The engines of `nav impact`: a function's risk (analyses §5: production edges
//! only, test edges counted apart) with its direct neighbours, and the blast radius
//! of a set of seeds (breadth-first up and down).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;
use tsa_envelope::ImpactLevel;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::graph::{
    Dir, Hop, IndexGraph, Neighbors, Node, RiskFactors, RiskPoints, Walk, bfs, load_symbols,
    risk_score,
};

/// The risk of one definition, and its direct neighbours split production/test.
pub struct Risk {
    /// The inputs of the score.
    pub factors: RiskFactors,
    /// The score, 0..=100.
    pub score: u32,
    /// `low`, `medium`, `high` or `critical`.
    pub level: &'static str,
    /// Points per factor.
    pub points: RiskPoints,
    /// Direct callers (production and test) with the call that reaches it.
    pub callers: Vec<(SymbolRow, Hop)>,
    /// Direct callees (production and test).
    pub callees: Vec<(SymbolRow, Hop)>,
    /// Files whose module-level code calls it (runs at import/load), with the
    /// call lines; production files count in `fan_in`.
    pub module_callers: Vec<(String, Vec<u32>)>,
}

/// Test callers and callees, counted apart from the score.
#[derive(Clone, Debug, Serialize)]
pub struct TestsBucket {
    /// Direct callers in test code.
    pub test_callers_count: usize,
    /// Direct callees in test code.
    pub test_callees_count: usize,
    /// Files of the test callers (when asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_caller_files: Option<Vec<String>>,
    /// Files of the test callees (when asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_callee_files: Option<Vec<String>>,
}

/// The score of a risk, as answers list it.
#[derive(Clone, Debug, Serialize)]
pub struct RiskParts {
    /// The score, 0..=100.
    pub score: u32,
    /// `low`, `medium`, `high` or `critical`.
    pub level: &'static str,
    /// The inputs of the score.
    pub factors: RiskFactors,
    /// Points per factor.
    pub points: RiskPoints,
    /// Test callers and callees.
    pub tests: TestsBucket,
}

/// A risk with the definition it belongs to.
#[derive(Clone, Debug, Serialize)]
pub struct RiskRow {
    /// Qualified name.
    pub function: String,
    /// Project-relative file.
    pub file: String,
    /// First line of the definition.
    pub line: u32,
    /// The score and its parts.
    #[serde(flatten)]
    pub parts: RiskParts,
}

/// A direct caller or callee with the call between them.
#[derive(Clone, Debug, Serialize)]
pub struct EdgeRow {
    /// The neighbour.
    #[serde(flatten)]
    pub node: Node,
    /// Line of the call.
    pub call_line: u32,
    /// Resolution class of the edge.
    pub resolution: &'static str,
    /// Confidence of the edge.
    pub confidence: f64,
    /// The neighbour is test code.
    pub in_test: bool,
}

/// A file calling the function from module-level code.
#[derive(Clone, Debug, Serialize)]
pub struct ModuleCaller {
    /// Project-relative file.
    pub file: String,
    /// Lines of the calls.
    pub call_lines: Vec<u32>,
    /// The file is a test file.
    pub is_test: bool,
}

impl Risk {
    /// The score and its parts; test files listed when `include_tests`.
    pub fn parts(&self, include_tests: bool) -> RiskParts {
        let files = |rows: &[(SymbolRow, Hop)]| -> Vec<String> {
            rows.iter()
                .filter(|(s, _)| s.is_test)
                .map(|(s, _)| s.file.clone())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        RiskParts {
            score: self.score,
            level: self.level,
            factors: self.factors,
            points: self.points,
            tests: TestsBucket {
                test_callers_count: self.callers.iter().filter(|(s, _)| s.is_test).count(),
                test_callees_count: self.callees.iter().filter(|(s, _)| s.is_test).count(),
                test_caller_files: include_tests.then(|| files(&self.callers)),
                test_callee_files: include_tests.then(|| files(&self.callees)),
            },
        }
    }

    /// The risk row of `def`.
    pub fn row(&self, def: &SymbolRow, include_tests: bool) -> RiskRow {
        RiskRow {
            function: def.qualname.clone(),
            file: def.file.clone(),
            line: def.line,
            parts: self.parts(include_tests),
        }
    }

    /// The module-level callers as rows.
    pub fn module_caller_rows(&self) -> Vec<ModuleCaller> {
        self.module_callers
            .iter()
            .map(|(file, lines)| ModuleCaller {
                file: file.clone(),
                call_lines: lines.clone(),
                is_test: tsa_lang::is_test_path(file),
            })
            .collect()
    }
}

/// Neighbours as rows: production first, then by file and line.
pub fn edge_rows(v: &[(SymbolRow, Hop)]) -> Vec<EdgeRow> {
    let mut v: Vec<&(SymbolRow, Hop)> = v.iter().collect();
    v.sort_by(|a, b| {
        a.0.is_test
            .cmp(&b.0.is_test)
            .then_with(|| a.0.file.cmp(&b.0.file))
            .then(a.0.line.cmp(&b.0.line))
    });
    v.into_iter()
        .map(|(s, h)| EdgeRow {
            node: Node::of(s),
            call_line: h.line,
            resolution: h.resolution.as_str(),
            confidence: h.confidence,
            in_test: s.is_test,
        })
        .collect()
}

/// The risk of `def`: its direct neighbours, module-level callers and score.
pub fn assess(index: &Index, def: &SymbolRow) -> Result<Risk, ToolError> {
    assess_set(index, std::slice::from_ref(def))
}

/// The risk of a set of definitions changed together (an overload set: one
/// qualified name, one file): the union of their neighbours, each call site once,
/// calls between members of the set left out. `defs` must not be empty.
pub fn assess_set(index: &Index, defs: &[SymbolRow]) -> Result<Risk, ToolError> {
    let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let members: HashSet<i64> = ids.iter().copied().collect();
    let mut g = IndexGraph::new(index);
    let merge = |mut by: HashMap<i64, Vec<Hop>>| -> Vec<Hop> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for id in &ids {
            for h in by.remove(id).unwrap_or_default() {
                let inner = members.len() > 1 && members.contains(&h.node);
                if !inner && seen.insert((h.node, h.line)) {
                    out.push(h);
                }
            }
        }
        out
    };
    let up = merge(g.neighbors(&ids, Dir::Up)?);
    let down = merge(g.neighbors(&ids, Dir::Down)?);
    let mut syms = HashMap::new();
    load_symbols(index, &mut syms, up.iter().chain(&down).map(|h| h.node))?;
    let pair = |hops: Vec<Hop>| -> Vec<(SymbolRow, Hop)> {
        hops.into_iter()
            .filter_map(|h| syms.get(&h.node).map(|s| (s.clone(), h)))
            .collect()
    };
    let callers = pair(up);
    let callees = pair(down);
    let module_callers = module_callers(index, &ids)?;
    let factors = factors(index, defs, &callers, &callees, &module_callers)?;
    let (score, level, points) = risk_score(&factors);
    Ok(Risk {
        factors,
        score,
        level,
        points,
        callers,
        callees,
        module_callers,
    })
}

/// Files whose module-level code calls one of `ids`, with the call lines, sorted.
fn module_callers(index: &Index, ids: &[i64]) -> Result<Vec<(String, Vec<u32>)>, ToolError> {
    let mut module_callers: Vec<(String, Vec<u32>)> = Vec::new();
    for site in index.callers(ids)? {
        if site.caller.is_some() {
            continue;
        }
        match module_callers.iter_mut().find(|(f, _)| *f == site.file) {
            Some((_, lines)) => {
                if !lines.contains(&site.line) {
                    lines.push(site.line);
                }
            }
            None => module_callers.push((site.file, vec![site.line])),
        }
    }
    for (_, lines) in &mut module_callers {
        lines.sort_unstable();
    }
    module_callers.sort();
    Ok(module_callers)
}

/// The risk factors from production neighbours only.
fn factors(
    index: &Index,
    defs: &[SymbolRow],
    callers: &[(SymbolRow, Hop)],
    callees: &[(SymbolRow, Hop)],
    module_callers: &[(String, Vec<u32>)],
) -> Result<RiskFactors, ToolError> {
    let prod = |rows: &[(SymbolRow, Hop)]| -> Vec<SymbolRow> {
        rows.iter()
            .filter(|(s, _)| !s.is_test)
            .map(|(s, _)| s.clone())
            .collect()
    };
    let prod_callers = prod(callers);
    let prod_callees = prod(callees);
    let prod_modules: Vec<&str> = module_callers
        .iter()
        .map(|(f, _)| f.as_str())
        .filter(|f| !tsa_lang::is_test_path(f))
        .collect();
    let other_files = |rows: &[SymbolRow], modules: &[&str]| -> usize {
        rows.iter()
            .map(|s| s.file.as_str())
            .chain(modules.iter().copied())
            .filter(|f| defs.iter().all(|d| d.file != *f))
            .collect::<BTreeSet<_>>()
            .len()
    };
    let mut g = IndexGraph::production(index);
    let seeds: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let chain = bfs(&mut g, &seeds, Dir::Up, 5)?.max_depth_reached;
    Ok(RiskFactors {
        fan_in: prod_callers.len() + prod_modules.len(),
        cross_file_callers: other_files(&prod_callers, &prod_modules),
        fan_out: prod_callees.len(),
        cross_file_callees: other_files(&prod_callees, &[]),
        max_chain_depth: chain,
    })
}

/// Production callers of `defs` within `depth`, the definitions themselves excluded.
pub fn upstream(index: &Index, defs: &[SymbolRow], depth: u32) -> Result<usize, ToolError> {
    let mut prod = IndexGraph::production(index);
    let seeds: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let up = bfs(&mut prod, &seeds, Dir::Up, depth)?;
    Ok(up.nodes.len().saturating_sub(seeds.len()))
}

/// A file holding affected functions.
#[derive(Clone, Debug, Serialize)]
pub struct FileAtRisk {
    /// Project-relative file.
    pub file: String,
    /// Number of affected functions in it.
    pub function_count: usize,
    /// Their qualified names, sorted (one string, space-separated, so the rows stay
    /// a TOON table).
    #[serde(serialize_with = "crate::flat::spaced")]
    pub functions: Vec<String>,
}

/// One edge met by the walks, as the change would travel it.
#[derive(Clone, Debug, Serialize)]
pub struct Chain {
    /// Qualified name of the node nearer the seeds.
    pub from: String,
    /// Qualified name of the node reached.
    pub to: String,
    /// `up` (callers) or `down` (callees).
    pub direction: &'static str,
    /// Depth of `to` from the seeds.
    pub depth: u32,
    /// Resolution class of the edge.
    pub resolution: &'static str,
    /// Confidence of the edge.
    pub confidence: f64,
}

/// What a change to the seeds may reach.
pub struct Blast {
    /// Functions reached up or down, seeds excluded.
    pub total: usize,
    /// Functions reached upward (callers), seeds excluded.
    pub upstream: usize,
    /// Functions reached downward (callees), seeds excluded.
    pub downstream: usize,
    /// Files of the affected functions, most functions first.
    pub files: Vec<FileAtRisk>,
    /// Every edge met, upward walk first.
    pub chains: Vec<Chain>,
    /// The level by affected functions: 0 none, 1-5 low, 6-20 medium, >20 high.
    pub impact: ImpactLevel,
}

/// Walks up and down from `seeds` within `depth` (production edges unless
/// `include_tests`).
pub fn blast(
    index: &Index,
    seeds: &[SymbolRow],
    depth: u32,
    include_tests: bool,
) -> Result<Blast, ToolError> {
    let ids: Vec<i64> = seeds.iter().map(|d| d.id).collect();
    let (up, down) = if include_tests {
        let mut g = IndexGraph::new(index);
        (
            bfs(&mut g, &ids, Dir::Up, depth)?,
            bfs(&mut g, &ids, Dir::Down, depth)?,
        )
    } else {
        let mut g = IndexGraph::production(index);
        (
            bfs(&mut g, &ids, Dir::Up, depth)?,
            bfs(&mut g, &ids, Dir::Down, depth)?,
        )
    };
    let seed_set: BTreeSet<i64> = ids.iter().copied().collect();
    let reached = |w: &Walk| -> Vec<i64> {
        w.nodes
            .iter()
            .filter(|(id, d)| *d > 0 && !seed_set.contains(id))
            .map(|(id, _)| *id)
            .collect()
    };
    let (up_ids, down_ids) = (reached(&up), reached(&down));
    let affected: BTreeSet<i64> = up_ids.iter().chain(&down_ids).copied().collect();
    let mut syms = HashMap::new();
    load_symbols(
        index,
        &mut syms,
        up.nodes.iter().chain(&down.nodes).map(|(id, _)| *id),
    )?;
    let total = affected.len();
    Ok(Blast {
        total,
        upstream: up_ids.len(),
        downstream: down_ids.len(),
        files: files_at_risk(&syms, &affected),
        chains: chains(&syms, &up, &down),
        impact: match total {
            0 => ImpactLevel::None,
            1..=5 => ImpactLevel::Low,
            6..=20 => ImpactLevel::Medium,
            _ => ImpactLevel::High,
        },
    })
}

/// The affected functions grouped by file, most functions first.
fn files_at_risk(syms: &HashMap<i64, SymbolRow>, affected: &BTreeSet<i64>) -> Vec<FileAtRisk> {
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for id in affected {
        if let Some(s) = syms.get(id) {
            files
                .entry(s.file.clone())
                .or_default()
                .push(s.qualname.clone());
        }
    }
    let mut rows: Vec<(String, Vec<String>)> = files.into_iter().collect();
    rows.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    rows.into_iter()
        .map(|(file, mut functions)| {
            functions.sort();
            FileAtRisk {
                file,
                function_count: functions.len(),
                functions,
            }
        })
        .collect()
}

/// Every edge the two walks met, upward first.
fn chains(syms: &HashMap<i64, SymbolRow>, up: &Walk, down: &Walk) -> Vec<Chain> {
    let q = |id: i64| {
        syms.get(&id)
            .map(|s| s.qualname.clone())
            .unwrap_or_default()
    };
    let mut chains = Vec::new();
    for (walk, dir) in [(up, Dir::Up), (down, Dir::Down)] {
        for e in &walk.edges {
            chains.push(Chain {
                from: q(e.from),
                to: q(e.to),
                direction: dir.as_str(),
                depth: e.depth,
                resolution: e.hop.resolution.as_str(),
                confidence: e.hop.confidence,
            });
        }
    }
    chains
}
