//! `project metrics`: graph-level statistics of the project from the real index, by
//! section. Each section is composed from the action or module that owns the
//! figure, so the numbers are theirs: `cache` from `index status` (staleness per
//! content hash), `call_graph` from the resolution classes of `index status` plus
//! fan-in/fan-out (`chain::fan_counts`) and recursion (Tarjan over resolved edges),
//! `complexity` from the complexity module through the health scorer (no reparse of
//! indexed files), `routes` from `health routes`, `health` from `health project`.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
use crate::actions::health::common::scoring;
use crate::actions::health::heatmap::{band_counts, fn_row};
use crate::actions::health::project as health_project;
use crate::actions::health::routes::{Mode as RoutesMode, RouteCounts, RouteQuery, find_routes};
use crate::actions::index::status::{self as index_status, PendingCounts, StatusReport};
use crate::{Context, ToolError};
use tsa_analysis::chain::fan_counts;
use tsa_analysis::health::DepsMode;
use tsa_analysis::health::model::{CALLABLE, tarjan};
use tsa_analysis::hyphae::Universe;

/// The sections, in answer order.
pub const SECTIONS: [&str; 5] = ["cache", "call_graph", "complexity", "routes", "health"];

/// Arguments of `project metrics`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Sections to compute, any of cache, call_graph, complexity, routes, health
    /// (default all).
    #[serde(default)]
    pub sections: Option<Vec<String>>,
    /// Most rows in each top list (fan-in, fan-out, cycles, complex functions,
    /// worst files; default 10). Totals stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Metrics;

/// The requested sections in canonical order; an unknown name is a validation error
/// naming the allowed ones.
fn wanted(sections: Option<Vec<String>>) -> Result<Vec<&'static str>, ToolError> {
    let Some(asked) = sections.filter(|s| !s.is_empty()) else {
        return Ok(SECTIONS.to_vec());
    };
    let mut out = Vec::new();
    for s in &asked {
        let name = s.trim().to_ascii_lowercase();
        match SECTIONS.iter().find(|k| **k == name) {
            Some(k) => out.push(*k),
            None => {
                return Err(ToolError::Validation(format!(
                    "unknown section '{s}'; allowed sections: {}",
                    SECTIONS.join(", ")
                )));
            }
        }
    }
    Ok(SECTIONS
        .iter()
        .copied()
        .filter(|k| out.contains(k))
        .collect())
}

fn rate(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1000.0).round() / 1000.0
    }
}

/// The `cache` section: what the index holds and whether it is current (the figures
/// of `index status`).
#[derive(Clone, Debug, Serialize)]
pub struct CacheSection {
    /// `empty` or `ready`.
    pub index_state: &'static str,
    /// Where the index lives, project-relative.
    pub index_path: &'static str,
    /// Size of the index database in bytes.
    pub index_bytes: u64,
    /// Indexed files.
    pub files: u64,
    /// Indexed definitions.
    pub symbols: u64,
    /// Import edges.
    pub imports: u64,
    /// Call edges.
    pub call_edges: u64,
    /// When the index was last built (Unix seconds).
    pub built_at: Option<u64>,
    /// Seconds since then.
    pub age_seconds: Option<u64>,
    /// Whether nothing changed since the last build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_to_date: Option<bool>,
    /// Changed files by kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_changes: Option<PendingCounts>,
    /// Files indexed with parse errors.
    pub parse_error_file_count: usize,
    /// Files per language.
    pub files_by_language: BTreeMap<String, u64>,
    /// The index schema version.
    pub schema_version: i64,
    /// Size of the health cache in bytes (0 when absent).
    pub health_cache_bytes: u64,
}

/// The `call_graph` section's figures (its top lists are separate).
#[derive(Clone, Debug, Serialize)]
pub struct CallGraphStats {
    /// Call edges.
    pub call_edges: u64,
    /// Call edges per resolution class.
    pub calls_by_resolution: BTreeMap<String, u64>,
    /// Call edges with a resolution class other than `unknown`.
    pub calls_classified: u64,
    /// `calls_classified / call_edges`.
    pub calls_classified_share: f64,
    /// Edges per kind.
    pub edges_by_kind: BTreeMap<String, u64>,
    /// Callable definitions.
    pub nodes: usize,
    /// Distinct resolved caller -> callee pairs between callables.
    pub resolved_pairs: usize,
    /// Callables with a resolved caller.
    pub called_nodes: usize,
    /// Callables without one.
    pub uncalled_nodes: usize,
    /// Share of call edges left unclassified (3 decimals).
    pub unresolved_share: f64,
    /// Callables that call themselves.
    pub self_recursive: usize,
    /// Cycles of two or more callables.
    pub cycle_count: usize,
    /// Callables in those cycles.
    pub functions_in_cycles: usize,
    /// Average resolved fan-out per callable (1 decimal).
    pub average_fan_out: f64,
}

/// A callable in a fan-in or fan-out top list.
#[derive(Clone, Debug, Serialize)]
pub struct FanRow<'a> {
    /// Qualified name.
    pub name: Option<&'a str>,
    /// Definition kind.
    pub kind: Option<&'a str>,
    /// Its file, project-relative.
    pub file: Option<&'a str>,
    /// First line.
    pub line: Option<u32>,
    /// Whether it is test code.
    pub is_test: bool,
    /// Resolved callers.
    pub fan_in: usize,
    /// Resolved callees.
    pub fan_out: usize,
    /// Callers in other files.
    pub cross_file_callers: usize,
    /// Callees in other files.
    pub cross_file_callees: usize,
}

/// A call cycle.
#[derive(Clone, Debug, Serialize)]
pub struct CycleRow<'a> {
    /// How many callables it has.
    pub size: usize,
    /// Their names, sorted.
    pub functions: Vec<&'a str>,
}

/// The complexity bands' ranges.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bands {
    /// Low complexity.
    pub low: &'static str,
    /// Medium complexity.
    pub medium: &'static str,
    /// High complexity.
    pub high: &'static str,
    /// Critical complexity.
    pub critical: &'static str,
}

/// The `complexity` section's figures (its top list is separate).
#[derive(Clone, Debug, Serialize)]
pub struct ComplexityStats {
    /// Files whose functions were measured.
    pub files_measured: usize,
    /// Files that could not be read.
    pub files_unreadable: usize,
    /// Functions measured.
    pub function_count: usize,
    /// Sum of their cyclomatic complexities.
    pub total_complexity: u64,
    /// Average complexity (1 decimal).
    pub average_complexity: f64,
    /// Median complexity.
    pub median_complexity: u32,
    /// Highest complexity.
    pub max_complexity: u32,
    /// Functions per band.
    pub band_counts: BTreeMap<&'static str, usize>,
    /// The bands' ranges.
    pub bands: Bands,
}

/// The `routes` section (the figures of `health routes` in summary mode).
#[derive(Clone, Debug, Serialize)]
pub struct RoutesSection {
    /// Route counts by framework and method, and the files declaring them.
    #[serde(flatten)]
    pub counts: RouteCounts,
    /// How many routes.
    pub route_count: usize,
}

/// The `health` section (the figures of `health project`).
#[derive(Clone, Debug, Serialize)]
pub struct HealthSection {
    /// Files scored.
    pub total_files: usize,
    /// Their average score.
    pub average_score: f64,
    /// Files per grade.
    pub grade_distribution: BTreeMap<String, usize>,
    /// Average per dimension.
    pub average_dimensions: Map<String, Value>,
    /// The dimension with the lowest average.
    pub weakest_dimension: &'static str,
    /// Its signal.
    pub signal: &'static str,
    /// Whether coverage data was read.
    pub coverage_status: &'static str,
    /// Whether git history was read.
    pub git_status: &'static str,
    /// Files skipped as test data.
    pub skipped_test_data_files: usize,
    /// The risk word of the grade spread.
    pub risk: &'static str,
}

/// A file graded D or F in the `worst_files` list.
#[derive(Clone, Debug, Serialize)]
pub struct WorstFile {
    /// The file, project-relative.
    pub file: String,
    /// Grade D or F.
    pub grade: String,
    /// Its health score.
    pub total_score: f64,
    /// Its lowest-scoring dimension.
    pub weakest_dimension: &'static str,
    /// Its health signal.
    pub signal: &'static str,
}

/// The payload of `project metrics`, in answer order (the top lists follow).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MetricsPayload {
    /// The sections computed, in canonical order.
    pub sections: Vec<&'static str>,
    /// Every section name.
    pub allowed_sections: [&'static str; 5],
    /// The `cache` section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheSection>,
    /// The `call_graph` section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_graph: Option<CallGraphStats>,
    /// The `complexity` section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity: Option<ComplexityStats>,
    /// The `routes` section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routes: Option<RoutesSection>,
    /// The `health` section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<HealthSection>,
}

/// What the sections add besides their payload: summary parts, lists, warnings.
struct Collector {
    summary: Vec<String>,
    verdict: Verdict,
    warnings: Vec<String>,
    lists: Vec<(ListSpelling, Capped<Value>)>,
}

/// The call-graph section: sizes, resolution classes, fans and recursion.
struct CallGraph {
    stats: CallGraphStats,
    fan_in: Capped<Value>,
    fan_out: Capped<Value>,
    cycles: Capped<Value>,
}

fn call_graph(
    index: &tsa_index::Index,
    status: &StatusReport,
    limit: std::num::NonZeroUsize,
) -> Result<CallGraph, ToolError> {
    let universe = Universe::load(index)?;
    let nodes: Vec<i64> = universe
        .syms
        .iter()
        .filter(|s| CALLABLE.contains(&s.kind.as_str()))
        .map(|s| s.id)
        .collect();
    let fans = fan_counts(index, &universe, &nodes)?;
    // Distinct resolved caller -> target pairs between callables.
    let at: FxHashMap<i64, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut self_recursive = Vec::new();
    let mut pairs = 0usize;
    for (from, to) in index.dsl_edges_touching(&nodes)? {
        let (Some(&a), Some(&b)) = (at.get(&from), at.get(&to)) else {
            continue;
        };
        pairs += 1;
        if a == b {
            self_recursive.push(from);
        } else {
            adj[a].push(b);
        }
    }
    let name_of = |id: i64| universe.get(id).map_or("", |s| s.qualname.as_str());
    let mut cycles: Vec<Vec<i64>> = tarjan(&adj)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut v: Vec<i64> = c.into_iter().map(|i| nodes[i]).collect();
            v.sort_by(|x, y| name_of(*x).cmp(name_of(*y)));
            v
        })
        .collect();
    cycles.sort_by(|a, b| {
        b.len()
            .cmp(&a.len())
            .then_with(|| name_of(a[0]).cmp(name_of(b[0])))
    });
    let in_cycles: usize = cycles.iter().map(Vec::len).sum();
    let ranked = |key: fn(&tsa_analysis::chain::Fans) -> usize| -> Vec<Value> {
        let mut v: Vec<(usize, i64)> = fans
            .iter()
            .map(|(id, f)| (key(f), *id))
            .filter(|(n, _)| *n > 0)
            .collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| name_of(a.1).cmp(name_of(b.1))));
        v.into_iter()
            .map(|(_, id)| {
                let f = fans.get(&id).copied().unwrap_or_default();
                let s = universe.get(id);
                to_value(&FanRow {
                    name: s.map(|s| s.qualname.as_str()),
                    kind: s.map(|s| s.kind.as_str()),
                    file: s.and_then(|s| universe.file_of(s)).map(|f| f.path.as_str()),
                    line: s.map(|s| s.line),
                    is_test: s.is_some_and(|s| s.is_test),
                    fan_in: f.fan_in,
                    fan_out: f.fan_out,
                    cross_file_callers: f.cross_file_callers,
                    cross_file_callees: f.cross_file_callees,
                })
            })
            .collect()
    };
    let called = fans.values().filter(|f| f.fan_in > 0).count();
    let calls = status.call_edges;
    let classified = status.calls_classified;
    let stats = CallGraphStats {
        call_edges: status.call_edges,
        calls_by_resolution: status.calls_by_resolution.clone(),
        calls_classified: status.calls_classified,
        calls_classified_share: status.calls_classified_share,
        edges_by_kind: status.edges_by_kind.clone(),
        nodes: nodes.len(),
        resolved_pairs: pairs,
        called_nodes: called,
        uncalled_nodes: nodes.len() - called,
        unresolved_share: rate(calls - classified.min(calls), calls),
        self_recursive: self_recursive.len(),
        cycle_count: cycles.len(),
        functions_in_cycles: in_cycles,
        average_fan_out: tsa_analysis::health::round1(if nodes.is_empty() {
            0.0
        } else {
            fans.values().map(|f| f.fan_out).sum::<usize>() as f64 / nodes.len() as f64
        }),
    };
    Ok(CallGraph {
        stats,
        fan_in: Capped::collect(ranked(|f| f.fan_in), limit),
        fan_out: Capped::collect(ranked(|f| f.fan_out), limit),
        cycles: Capped::collect(
            cycles.iter().map(|c| {
                to_value(&CycleRow {
                    size: c.len(),
                    functions: c.iter().map(|id| name_of(*id)).collect(),
                })
            }),
            limit,
        ),
    })
}

/// The `cache` section from `index status`'s report.
fn cache_section(
    ctx: &Context,
    status: &StatusReport,
    out: &mut Collector,
) -> Result<CacheSection, ToolError> {
    let health_cache = tsa_index::index_dir(ctx.root()?).join("health-cache.json");
    let cache = CacheSection {
        index_state: status.index_state,
        index_path: status.index_path,
        index_bytes: status.index_bytes,
        files: status.files,
        symbols: status.symbols,
        imports: status.imports,
        call_edges: status.call_edges,
        built_at: status.built_at,
        age_seconds: status.age_seconds,
        up_to_date: status.up_to_date,
        pending_changes: status.pending_changes,
        parse_error_file_count: status.parse_error_files.total(),
        files_by_language: status.files_by_language.clone(),
        schema_version: tsa_index::SCHEMA_VERSION,
        health_cache_bytes: std::fs::metadata(health_cache).map_or(0, |m| m.len()),
    };
    let up_to_date = cache.up_to_date.unwrap_or(true);
    out.summary.push(format!(
        "files={} symbols={} up_to_date={up_to_date}",
        cache.files, cache.symbols
    ));
    if !up_to_date {
        out.verdict = Verdict::Warn;
        let n: usize = cache
            .pending_changes
            .map_or(0, |p| p.new + p.modified + p.deleted);
        out.warnings.push(format!(
            "stale_index: {n} file(s) changed since the last build"
        ));
    }
    Ok(cache)
}

/// The `call_graph` section; its three top lists join `out`.
fn call_graph_section(
    index: &tsa_index::Index,
    status: &StatusReport,
    limit: std::num::NonZeroUsize,
    out: &mut Collector,
) -> Result<CallGraphStats, ToolError> {
    let cg = call_graph(index, status, limit)?;
    out.summary.push(format!(
        "nodes={} edges={} classified={} cycles={}",
        cg.stats.nodes,
        cg.stats.call_edges,
        Value::from(cg.stats.calls_classified_share),
        cg.stats.cycle_count
    ));
    let remedy = "raise limit, or nav action=impact on one function for its full risk";
    out.lists.push((
        ListSpelling::new(
            "fan_in_top",
            "fan_in_node_count",
            "fan_in_top_listed",
            "fan_in_top_cap",
            "called functions",
            remedy,
        ),
        cg.fan_in,
    ));
    out.lists.push((
        ListSpelling::new(
            "fan_out_top",
            "fan_out_node_count",
            "fan_out_top_listed",
            "fan_out_top_cap",
            "calling functions",
            remedy,
        ),
        cg.fan_out,
    ));
    out.lists.push((
        ListSpelling::new(
            "call_cycles",
            "call_cycle_count",
            "call_cycles_listed",
            "call_cycles_cap",
            "call cycles",
            "raise limit, or nav action=caller_tree on a listed function",
        ),
        cg.cycles,
    ));
    Ok(cg.stats)
}

/// The `complexity` section; its top list joins `out`.
fn complexity_section(
    ctx: &Context,
    limit: std::num::NonZeroUsize,
    out: &mut Collector,
) -> Result<ComplexityStats, ToolError> {
    let sc = scoring(ctx, DepsMode::Fast)?;
    let rels: Vec<String> = sc
        .scorer
        .indexed_files()
        .into_iter()
        .map(|f| f.path.clone())
        .collect();
    let mut rows: Vec<(u32, String, tsa_analysis::complexity::FunctionCc)> = Vec::new();
    let mut files_measured = 0usize;
    let mut unreadable = 0usize;
    for (rel, r) in sc.scorer.score_all(&rels) {
        match r {
            Ok(s) if s.facts.analysable => {
                files_measured += 1;
                for f in s.facts.functions {
                    rows.push((f.complexity, rel.clone(), f));
                }
            }
            Ok(_) => {}
            Err(_) => unreadable += 1,
        }
    }
    rows.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1.cmp(&b.1))
            .then_with(|| a.2.line.cmp(&b.2.line))
    });
    let ccs: Vec<u32> = rows.iter().map(|r| r.0).collect();
    let n = ccs.len();
    let total: u64 = ccs.iter().map(|c| u64::from(*c)).sum();
    let stats = ComplexityStats {
        files_measured,
        files_unreadable: unreadable,
        function_count: n,
        total_complexity: total,
        average_complexity: tsa_analysis::health::round1(if n == 0 {
            0.0
        } else {
            total as f64 / n as f64
        }),
        median_complexity: if n == 0 { 0 } else { ccs[n / 2] },
        max_complexity: ccs.first().copied().unwrap_or(0),
        band_counts: band_counts(ccs.iter()),
        bands: Bands {
            low: "1-5",
            medium: "6-10",
            high: "11-20",
            critical: ">=21",
        },
    };
    out.summary.push(format!(
        "functions={n} cc_avg={} cc_max={}",
        Value::from(stats.average_complexity),
        stats.max_complexity
    ));
    out.lists.push((
        ListSpelling::new(
            "complex_functions",
            "complex_function_count",
            "complex_functions_listed",
            "complex_functions_cap",
            "functions",
            "raise limit, or health action=heatmap mode=project",
        ),
        Capped::collect(rows.iter().map(|(_, file, f)| fn_row(file, f)), limit),
    ));
    out.warnings.extend(sc.warnings);
    Ok(stats)
}

/// The `routes` section from `health routes`' engine (every framework).
fn routes_section(ctx: &Context, out: &mut Collector) -> Result<RoutesSection, ToolError> {
    let r = find_routes(
        ctx,
        &RouteQuery {
            mode: RoutesMode::Summary,
            framework: "all".into(),
            pattern: None,
            file: None,
        },
    )?;
    let route_count = r.selected.len();
    out.summary.push(format!("routes={route_count}"));
    Ok(RoutesSection {
        counts: r.counts,
        route_count,
    })
}

/// The `health` section from `health project`'s engine; its worst files join `out`.
fn health_section(
    ctx: &Context,
    limit: std::num::NonZeroUsize,
    out: &mut Collector,
) -> Result<HealthSection, ToolError> {
    let h = health_project::assess(ctx, health_project::MinGrade::D, limit)?;
    let p = h.payload;
    let d = &p.grade_distribution;
    out.summary.push(format!(
        "grades A={} B={} C={} D={} F={}",
        d["A"], d["B"], d["C"], d["D"], d["F"]
    ));
    let worst: Vec<Value> = h
        .files
        .items()
        .iter()
        .map(|f| {
            to_value(&WorstFile {
                file: f.file.clone(),
                grade: f.grade.clone(),
                total_score: f.total_score,
                weakest_dimension: f.weakest_dimension,
                signal: f.signal,
            })
        })
        .collect();
    out.lists.push((
        ListSpelling::new(
            "worst_files",
            "worst_file_count",
            "worst_files_listed",
            "worst_files_cap",
            "files graded D or F",
            "raise limit, or health action=project",
        ),
        Capped::counted(worst, p.matching_file_count, limit),
    ));
    Ok(HealthSection {
        total_files: p.total_files,
        average_score: p.average_score,
        grade_distribution: p.grade_distribution,
        average_dimensions: p.average_dimensions,
        weakest_dimension: p.weakest_dimension,
        signal: p.signal,
        coverage_status: p.coverage_status,
        git_status: p.git_status,
        skipped_test_data_files: p.skipped_test_data_files,
        risk: h.agent.risk,
    })
}

impl Action for Metrics {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "metrics";
    const SUMMARY: &'static str = "graph-level statistics by section: cache, call_graph (fans, recursion), complexity, routes, health";
    const BRIEF: &'static str = "graph-level statistics";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let sections = wanted(args.sections)?;
        let limit = cap("limit", args.limit, 10)?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let has = |k: &str| sections.contains(&k);
        let mut out = Collector {
            summary: vec![format!("metrics sections={}", sections.join(","))],
            verdict: Verdict::Info,
            warnings: opened.built_now.into_iter().collect(),
            lists: Vec::new(),
        };
        let mut payload = MetricsPayload {
            sections: sections.clone(),
            allowed_sections: SECTIONS,
            ..MetricsPayload::default()
        };
        let status = if has("cache") || has("call_graph") {
            let st = index_status::status(ctx.root()?, has("cache"))?;
            Some(st.ok_or_else(|| ToolError::Internal("index missing after opening it".into()))?)
        } else {
            None
        };
        if let Some(st) = status.as_ref().filter(|_| has("cache")) {
            payload.cache = Some(cache_section(ctx, st, &mut out)?);
        }
        if let Some(st) = status.as_ref().filter(|_| has("call_graph")) {
            payload.call_graph = Some(call_graph_section(index, st, limit, &mut out)?);
        }
        if has("complexity") {
            payload.complexity = Some(complexity_section(ctx, limit, &mut out)?);
        }
        if has("routes") {
            payload.routes = Some(routes_section(ctx, &mut out)?);
        }
        if has("health") {
            payload.health = Some(health_section(ctx, limit, &mut out)?);
        }
        let verdict = out.verdict;
        let mut s = with_payload(Success::new(verdict, out.summary.join(" ")), &payload);
        for (spelling, list) in out.lists {
            s = s.with_list(spelling, list);
        }
        s = s.with_next_step(if verdict == Verdict::Warn {
            "Refresh the index (index action=sync), then read the metrics again."
        } else {
            "nav action=impact on a fan_in_top function shows its blast radius; health action=file on a worst file shows what drives its grade."
        });
        let mut seen = std::collections::BTreeSet::new();
        for w in out.warnings {
            if seen.insert(w.clone()) {
                s = s.with_warning(w);
            }
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_checked_and_ordered() {
        assert_eq!(wanted(None).unwrap(), SECTIONS);
        assert_eq!(wanted(Some(vec![])).unwrap(), SECTIONS);
        assert_eq!(
            wanted(Some(vec!["health".into(), "Cache".into(), "health".into()])).unwrap(),
            ["cache", "health"]
        );
        let e = wanted(Some(vec!["graph".into()])).unwrap_err().to_string();
        assert!(
            e.contains("'graph'") && e.contains("cache, call_graph, complexity, routes, health")
        );
        assert_eq!(rate(1, 4), 0.25);
        assert_eq!(rate(1, 0), 0.0);
    }
}
