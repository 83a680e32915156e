//! `project metrics`: graph-level statistics of the project from the real index, by
//! section. Each section is composed from the action or module that owns the
//! figure, so the numbers are theirs: `cache` from `index status` (staleness per
//! content hash), `call_graph` from the resolution classes of `index status` plus
//! fan-in/fan-out (`chain::fan_counts`) and recursion (Tarjan over resolved edges),
//! `complexity` from the complexity module through the health scorer (no reparse of
//! indexed files), `routes` from `health routes`, `health` from `health project`.

use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tsa_analysis::chain::fan_counts;
use tsa_analysis::health::DepsMode;
use tsa_analysis::health::model::{CALLABLE, tarjan};
use tsa_analysis::hyphae::Universe;
use tsa_envelope::{Capped, Envelope, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, pick};
use crate::actions::health::common::scoring;
use crate::actions::health::heatmap::{band_counts, fn_row};
use crate::actions::health::{project as health_project, routes as health_routes};
use crate::actions::index::status as index_status;
use crate::{Context, ToolError};

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

fn spelling(
    list_key: &'static str,
    total_key: &'static str,
    listed_key: &'static str,
    cap_key: &'static str,
    noun: &'static str,
    remedy: &str,
) -> ListSpelling {
    ListSpelling {
        list_key,
        total_key,
        listed_key,
        cap_key,
        noun,
        remedy: remedy.to_owned(),
    }
}

fn rate(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1000.0).round() / 1000.0
    }
}

/// The call-graph section: sizes, resolution classes, fans and recursion.
struct CallGraph {
    stats: Value,
    fan_in: Capped<Value>,
    fan_out: Capped<Value>,
    cycles: Capped<Value>,
}

fn call_graph(
    index: &tsa_index::Index,
    status: &Map<String, Value>,
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
    let row = |id: i64| -> Value {
        let s = universe.get(id);
        json!({
            "name": s.map(|s| s.qualname.as_str()),
            "kind": s.map(|s| s.kind.as_str()),
            "file": s.and_then(|s| universe.file_of(s)).map(|f| f.path.as_str()),
            "line": s.map(|s| s.line),
            "is_test": s.is_some_and(|s| s.is_test),
        })
    };
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
                let mut r = row(id);
                r["fan_in"] = json!(f.fan_in);
                r["fan_out"] = json!(f.fan_out);
                r["cross_file_callers"] = json!(f.cross_file_callers);
                r["cross_file_callees"] = json!(f.cross_file_callees);
                r
            })
            .collect()
    };
    let called = fans.values().filter(|f| f.fan_in > 0).count();
    let calls = status
        .get("call_edges")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let classified = status
        .get("calls_classified")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let mut stats = Value::Object(pick(
        status,
        &[
            "call_edges",
            "calls_by_resolution",
            "calls_classified",
            "calls_classified_share",
            "edges_by_kind",
        ],
    ));
    stats["nodes"] = json!(nodes.len());
    stats["resolved_pairs"] = json!(pairs);
    stats["called_nodes"] = json!(called);
    stats["uncalled_nodes"] = json!(nodes.len() - called);
    stats["unresolved_share"] = json!(rate(calls - classified.min(calls), calls));
    stats["self_recursive"] = json!(self_recursive.len());
    stats["cycle_count"] = json!(cycles.len());
    stats["functions_in_cycles"] = json!(in_cycles);
    stats["average_fan_out"] = json!(tsa_analysis::health::round1(if nodes.is_empty() {
        0.0
    } else {
        fans.values().map(|f| f.fan_out).sum::<usize>() as f64 / nodes.len() as f64
    }));
    Ok(CallGraph {
        stats,
        fan_in: Capped::collect(ranked(|f| f.fan_in), limit),
        fan_out: Capped::collect(ranked(|f| f.fan_out), limit),
        cycles: Capped::collect(
            cycles.iter().map(|c| {
                json!({"size": c.len(), "functions": c.iter().map(|id| name_of(*id)).collect::<Vec<_>>()})
            }),
            limit,
        ),
    })
}

impl Action for Metrics {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "metrics";
    const SUMMARY: &'static str = "graph-level statistics by section: cache, call_graph (fans, recursion), complexity, routes, health";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let sections = wanted(args.sections)?;
        let limit = cap("limit", args.limit, 10)?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let has = |k: &str| sections.contains(&k);
        let mut summary = vec![format!("metrics sections={}", sections.join(","))];
        let mut verdict = Verdict::Info;
        let mut warnings: Vec<String> = opened.built_now.into_iter().collect();
        let mut lists: Vec<(ListSpelling, Capped<Value>)> = Vec::new();
        let mut payload: Vec<(&'static str, Value)> = Vec::new();

        let status = if has("cache") || has("call_graph") {
            let st = index_status::Status.run(
                ctx,
                index_status::Args {
                    include_lag: Some(has("cache")),
                },
            )?;
            Envelope::from(st).to_json()
        } else {
            Map::new()
        };
        if has("cache") {
            let mut cache = Value::Object(pick(
                &status,
                &[
                    "index_state",
                    "index_path",
                    "index_bytes",
                    "files",
                    "symbols",
                    "imports",
                    "call_edges",
                    "built_at",
                    "age_seconds",
                    "up_to_date",
                    "pending_changes",
                    "parse_error_file_count",
                    "files_by_language",
                ],
            ));
            cache["schema_version"] = json!(tsa_index::SCHEMA_VERSION);
            let health_cache = tsa_index::index_dir(ctx.root()?).join("health-cache.json");
            cache["health_cache_bytes"] =
                json!(std::fs::metadata(health_cache).map_or(0, |m| m.len()));
            let up_to_date = cache["up_to_date"].as_bool().unwrap_or(true);
            summary.push(format!(
                "files={} symbols={} up_to_date={up_to_date}",
                cache["files"], cache["symbols"]
            ));
            if !up_to_date {
                verdict = Verdict::Warn;
                let p = &cache["pending_changes"];
                let n: u64 = ["new", "modified", "deleted"]
                    .iter()
                    .filter_map(|k| p[*k].as_u64())
                    .sum();
                warnings.push(format!(
                    "stale_index: {n} file(s) changed since the last build"
                ));
            }
            payload.push(("cache", cache));
        }
        if has("call_graph") {
            let cg = call_graph(index, &status, limit)?;
            summary.push(format!(
                "nodes={} edges={} classified={} cycles={}",
                cg.stats["nodes"],
                cg.stats["call_edges"],
                cg.stats["calls_classified_share"],
                cg.stats["cycle_count"]
            ));
            payload.push(("call_graph", cg.stats));
            let remedy = "raise limit, or nav action=impact on one function for its full risk";
            lists.push((
                spelling(
                    "fan_in_top",
                    "fan_in_node_count",
                    "fan_in_top_listed",
                    "fan_in_top_cap",
                    "called functions",
                    remedy,
                ),
                cg.fan_in,
            ));
            lists.push((
                spelling(
                    "fan_out_top",
                    "fan_out_node_count",
                    "fan_out_top_listed",
                    "fan_out_top_cap",
                    "calling functions",
                    remedy,
                ),
                cg.fan_out,
            ));
            lists.push((
                spelling(
                    "call_cycles",
                    "call_cycle_count",
                    "call_cycles_listed",
                    "call_cycles_cap",
                    "call cycles",
                    "raise limit, or nav action=caller_tree on a listed function",
                ),
                cg.cycles,
            ));
        }
        if has("complexity") {
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
            let median = if n == 0 { 0 } else { ccs[n / 2] };
            let stats = json!({
                "files_measured": files_measured,
                "files_unreadable": unreadable,
                "function_count": n,
                "total_complexity": total,
                "average_complexity": tsa_analysis::health::round1(if n == 0 { 0.0 } else { total as f64 / n as f64 }),
                "median_complexity": median,
                "max_complexity": ccs.first().copied().unwrap_or(0),
                "band_counts": band_counts(ccs.iter()),
                "bands": {"low": "1-5", "medium": "6-10", "high": "11-20", "critical": ">=21"},
            });
            summary.push(format!(
                "functions={n} cc_avg={} cc_max={}",
                stats["average_complexity"], stats["max_complexity"]
            ));
            payload.push(("complexity", stats));
            lists.push((
                spelling(
                    "complex_functions",
                    "complex_function_count",
                    "complex_functions_listed",
                    "complex_functions_cap",
                    "functions",
                    "raise limit, or health action=heatmap mode=project",
                ),
                Capped::collect(rows.iter().map(|(_, file, f)| fn_row(file, f)), limit),
            ));
            warnings.extend(sc.warnings);
        }
        if has("routes") {
            let r = Envelope::from(health_routes::Routes.run(
                ctx,
                health_routes::Args {
                    mode: Some(health_routes::Mode::Summary),
                    url_pattern: None,
                    file_path: None,
                    framework: None,
                    limit: Some(1),
                },
            )?)
            .to_json();
            let mut routes = Value::Object(pick(
                &r,
                &["by_framework", "by_method", "files_with_routes"],
            ));
            let count = r.get("route_count").cloned().unwrap_or(json!(0));
            routes["route_count"] = count.clone();
            summary.push(format!("routes={count}"));
            payload.push(("routes", routes));
        }
        if has("health") {
            let h = Envelope::from(health_project::ProjectHealth.run(
                ctx,
                health_project::Args {
                    min_grade: health_project::MinGrade::D,
                    max_files: Some(limit.get() as i64),
                },
            )?)
            .to_json();
            let mut health = Value::Object(pick(
                &h,
                &[
                    "total_files",
                    "average_score",
                    "grade_distribution",
                    "average_dimensions",
                    "weakest_dimension",
                    "signal",
                    "coverage_status",
                    "git_status",
                    "skipped_test_data_files",
                ],
            ));
            health["risk"] = h
                .get("agent_summary")
                .and_then(|a| a.get("risk"))
                .cloned()
                .unwrap_or(Value::Null);
            let d = &health["grade_distribution"];
            summary.push(format!(
                "grades A={} B={} C={} D={} F={}",
                d["A"], d["B"], d["C"], d["D"], d["F"]
            ));
            payload.push(("health", health));
            let worst: Vec<Value> = h
                .get("files")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|f| {
                    Value::Object(pick(
                        f.as_object().unwrap_or(&Map::new()),
                        &[
                            "file",
                            "grade",
                            "total_score",
                            "weakest_dimension",
                            "signal",
                        ],
                    ))
                })
                .collect();
            let total = h
                .get("matching_file_count")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            lists.push((
                spelling(
                    "worst_files",
                    "worst_file_count",
                    "worst_files_listed",
                    "worst_files_cap",
                    "files graded D or F",
                    "raise limit, or health action=project",
                ),
                Capped::counted(worst, total as usize, limit),
            ));
        }

        let mut s = Success::new(verdict, summary.join(" "))
            .with("sections", json!(sections))
            .with("allowed_sections", json!(SECTIONS));
        for (k, v) in payload {
            s = s.with(k, v);
        }
        for (spelling, list) in lists {
            s = s.with_list(spelling, list);
        }
        s = s.with_next_step(if verdict == Verdict::Warn {
            "Refresh the index (index action=sync), then read the metrics again."
        } else {
            "nav action=impact on a fan_in_top function shows its blast radius; health action=file on a worst file shows what drives its grade."
        });
        let mut seen = std::collections::BTreeSet::new();
        for w in warnings {
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
