//! `nav impact`: function risk score (analyses §5), function impact (risk plus
//! callers and callees), and blast radius (BFS up and down from every seed).
//! Risk uses production edges only; edges from test code are counted in `tests`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::graph::{
    Dir, Hop, IndexGraph, Neighbors, RiskFactors, VERDICT_BASIS, ambiguous, bfs, depth_param,
    exact_pick, impact_level, load_symbols, narrow_hint, node_json, risk_score,
};
use tsa_analysis::trust::{Assessor, Change, Completeness, OPEN_SITES_MEDIUM};
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::{Index, SymbolRow};

use crate::action::Action;
use crate::actions::common::{
    SUGGESTED_MISSES, Targets, cap, definitions_json, find_targets, find_targets_with, open_index,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// What to compute.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Risk plus the direct callers and callees (default).
    FunctionImpact,
    /// Everything reachable up and down from the seeds within `depth`.
    BlastRadius,
    /// The risk score alone.
    RiskScore,
}

/// Arguments of `nav impact`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `function_impact` (default), `blast_radius` or `risk_score`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// The function (function_impact, risk_score; blast_radius accepts it as one seed).
    /// `ClassName.method` narrows.
    #[serde(default)]
    pub function_name: Option<String>,
    /// Seed functions for blast_radius.
    #[serde(default)]
    pub function_names: Option<Vec<String>>,
    /// Project-relative file defining the function (picks one of several definitions).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Levels walked up and down (default 5, at most 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub depth: Option<i64>,
    /// Also list the test files calling in (risk never counts them).
    #[serde(default)]
    pub include_tests: Option<bool>,
    /// Most rows per list: callers/callees (default 50), propagation chains (default 100).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Impact;

/// The risk of one definition, and its direct neighbours split production/test.
struct Risk {
    factors: RiskFactors,
    score: u32,
    level: &'static str,
    points: Value,
    callers: Vec<(SymbolRow, Hop)>,
    callees: Vec<(SymbolRow, Hop)>,
    /// Files whose module-level code calls it (runs at import/load), with the
    /// call lines; production files count in `fan_in`.
    module_callers: Vec<(String, Vec<u32>)>,
}

fn assess(index: &Index, def: &SymbolRow) -> Result<Risk, ToolError> {
    let mut g = IndexGraph::new(index);
    let up = g
        .neighbors(&[def.id], Dir::Up)?
        .remove(&def.id)
        .unwrap_or_default();
    let down = g
        .neighbors(&[def.id], Dir::Down)?
        .remove(&def.id)
        .unwrap_or_default();
    let mut syms = HashMap::new();
    load_symbols(index, &mut syms, up.iter().chain(&down).map(|h| h.node))?;
    let pair = |hops: Vec<Hop>| -> Vec<(SymbolRow, Hop)> {
        hops.into_iter()
            .filter_map(|h| syms.get(&h.node).map(|s| (s.clone(), h)))
            .collect()
    };
    let callers = pair(up);
    let callees = pair(down);
    let prod_callers: Vec<&SymbolRow> = callers
        .iter()
        .filter(|(s, _)| !s.is_test)
        .map(|(s, _)| s)
        .collect();
    let prod_callees: Vec<&SymbolRow> = callees
        .iter()
        .filter(|(s, _)| !s.is_test)
        .map(|(s, _)| s)
        .collect();
    let mut module_callers: Vec<(String, Vec<u32>)> = Vec::new();
    for site in index.callers(&[def.id])? {
        if site.caller.is_some() {
            continue;
        }
        match module_callers.iter_mut().find(|(f, _)| *f == site.file) {
            Some((_, lines)) => lines.push(site.line),
            None => module_callers.push((site.file, vec![site.line])),
        }
    }
    module_callers.sort();
    let prod_modules: Vec<&str> = module_callers
        .iter()
        .map(|(f, _)| f.as_str())
        .filter(|f| !tsa_lang::is_test_path(f))
        .collect();
    let other_files = |rows: &[&SymbolRow], modules: &[&str]| -> usize {
        rows.iter()
            .map(|s| s.file.as_str())
            .chain(modules.iter().copied())
            .filter(|f| *f != def.file)
            .collect::<BTreeSet<_>>()
            .len()
    };
    let mut prod = IndexGraph::production(index);
    let chain = bfs(&mut prod, &[def.id], Dir::Up, 5)?.max_depth_reached;
    let factors = RiskFactors {
        fan_in: prod_callers.len() + prod_modules.len(),
        cross_file_callers: other_files(&prod_callers, &prod_modules),
        fan_out: prod_callees.len(),
        cross_file_callees: other_files(&prod_callees, &[]),
        max_chain_depth: chain,
    };
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

fn tests_bucket(r: &Risk, include: bool) -> Value {
    let files = |rows: &[(SymbolRow, Hop)]| -> Vec<String> {
        rows.iter()
            .filter(|(s, _)| s.is_test)
            .map(|(s, _)| s.file.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let mut v = json!({
        "test_callers_count": r.callers.iter().filter(|(s, _)| s.is_test).count(),
        "test_callees_count": r.callees.iter().filter(|(s, _)| s.is_test).count(),
    });
    if include {
        v["test_caller_files"] = json!(files(&r.callers));
        v["test_callee_files"] = json!(files(&r.callees));
    }
    v
}

fn risk_json(def: &SymbolRow, r: &Risk, include_tests: bool) -> Value {
    json!({
        "function": def.qualname,
        "file": def.file,
        "line": def.line,
        "score": r.score,
        "level": r.level,
        "factors": {
            "fan_in": r.factors.fan_in,
            "cross_file_callers": r.factors.cross_file_callers,
            "fan_out": r.factors.fan_out,
            "cross_file_callees": r.factors.cross_file_callees,
            "max_chain_depth": r.factors.max_chain_depth,
        },
        "points": r.points,
        "tests": tests_bucket(r, include_tests),
    })
}

fn level_name(l: ImpactLevel) -> &'static str {
    match l {
        ImpactLevel::None => "none",
        ImpactLevel::Low => "low",
        ImpactLevel::Medium => "medium",
        ImpactLevel::High => "high",
    }
}

fn edge_row(s: &SymbolRow, h: &Hop) -> Value {
    let mut v = node_json(s);
    v["call_line"] = json!(h.line);
    v["resolution"] = json!(h.resolution.as_str());
    v["confidence"] = json!(h.confidence);
    v["in_test"] = json!(s.is_test);
    v
}

impl Action for Impact {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "impact";
    const SUMMARY: &'static str = "function risk score (fan-in/out, cross-file, chain depth; production edges only) and blast radius up and down";
    const BRIEF: &'static str = "function risk and blast radius";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("symbol", "function_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::FunctionImpact);
        let (depth, clamped) = depth_param("depth", args.depth, 5, 20)?;
        let include_tests = args.include_tests.unwrap_or(false);
        let mut s = match mode {
            Mode::BlastRadius => blast_radius(ctx, &args, depth, include_tests)?,
            Mode::FunctionImpact | Mode::RiskScore => {
                let name = args.function_name.clone().ok_or_else(|| {
                    ToolError::Validation(format!(
                        "parameter 'function_name' is required for mode={}",
                        if mode == Mode::RiskScore {
                            "risk_score"
                        } else {
                            "function_impact"
                        }
                    ))
                })?;
                if args.function_names.is_some() {
                    return Err(ToolError::Validation(
                        "parameter 'function_names' applies to mode=blast_radius only".into(),
                    ));
                }
                one_function(ctx, &args, &name, mode, depth, include_tests)?
            }
        };
        if let Some(w) = clamped {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}

fn one_function(
    ctx: &Context,
    args: &Args,
    name: &str,
    mode: Mode,
    depth: u32,
    include_tests: bool,
) -> Result<Success, ToolError> {
    let limit = cap("limit", args.limit, 50)?;
    let label = if mode == Mode::RiskScore {
        "risk_score"
    } else {
        "impact"
    };
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let mut defs = match find_targets(ctx, index, label, name, args.file_path.as_deref())? {
        Targets::Found(d) => d,
        Targets::Missing(s) => {
            return Ok(s.with("level", "unknown").with("mode", mode_name(mode)));
        }
    };
    let mut picked = None;
    if defs.len() > 1 {
        match exact_pick(name, &defs) {
            Some((d, w)) if args.file_path.is_some() => {
                defs = vec![d];
                picked = Some(w);
            }
            _ => {
                let mut s = ambiguous(label, name, &defs)
                    .with("level", "unknown")
                    .with("mode", mode_name(mode));
                if args.file_path.is_none() {
                    s = s.with_next_step(format!(
                        "re-run with file_path (or a qualified name) to pick one: {}",
                        narrow_hint(name, &defs)
                    ));
                }
                return Ok(s);
            }
        }
    }
    let def = defs.remove(0);
    let r = assess(index, &def)?;
    let trust = Assessor::new(index, ctx.root()?).assess(std::slice::from_ref(&def), 0)?;
    let from_risk = impact_level(r.level, &r.factors);
    // Unresolved same-name call sites, an unknown graph and public API raise the
    // level: nothing here is SAFE unless every caller is known and counted.
    let impact = from_risk.max(trust.floor(Change::Behaviour));
    let verdict = Verdict::from_impact(impact);
    let mut basis = vec![VERDICT_BASIS.to_owned()];
    basis.extend(trust.basis());
    if impact > from_risk {
        basis.push(format!(
            "impact_level raised from {} to {} by the floor of completeness and public API (unresolved sites: low, or medium past {OPEN_SITES_MEDIUM} in production code; unknown graph: low; public API: low)",
            level_name(from_risk),
            level_name(impact)
        ));
    }
    let risk = risk_json(&def, &r, include_tests);
    let mut s = Success::new(
        verdict,
        format!(
            "{label}: '{name}' risk {} ({}) — {} production caller(s), {} callee(s){}",
            r.level,
            r.score,
            r.factors.fan_in,
            r.factors.fan_out,
            if trust.open.total > 0 {
                format!(
                    ", {} unresolved call site(s) named '{}'",
                    trust.open.total, def.name
                )
            } else {
                String::new()
            }
        ),
    )
    .with("mode", mode_name(mode))
    .with("function", def.qualname.as_str())
    .with("file", def.file.as_str())
    .with("definition", definitions_json(std::slice::from_ref(&def)))
    .with("impact_level", level_name(impact))
    .with("verdict_basis", json!(basis));
    let step;
    if mode == Mode::RiskScore {
        for k in ["score", "level", "factors", "points", "tests"] {
            s = s.with(k, risk[k].clone());
        }
        step = format!(
            "For the callers behind this score run nav action=impact mode=function_impact function_name={name}{}",
            args.file_path
                .as_ref()
                .map(|f| format!(" file_path={f}"))
                .unwrap_or_default()
        );
    } else {
        let mut prod = IndexGraph::production(index);
        let up = bfs(&mut prod, &[def.id], Dir::Up, depth)?;
        let upstream = up.nodes.len() - 1;
        let rows = |v: &[(SymbolRow, Hop)]| -> Vec<Value> {
            let mut v: Vec<&(SymbolRow, Hop)> = v.iter().collect();
            v.sort_by(|a, b| {
                a.0.is_test
                    .cmp(&b.0.is_test)
                    .then_with(|| a.0.file.cmp(&b.0.file))
                    .then(a.0.line.cmp(&b.0.line))
            });
            v.into_iter().map(|(s, h)| edge_row(s, h)).collect()
        };
        s = s
            .with("risk", risk)
            .with("upstream_affected", upstream)
            .with("depth", depth)
            .with_list(
                ListSpelling {
                    list_key: "callers",
                    total_key: "caller_count",
                    listed_key: "callers_listed",
                    cap_key: "listed_cap",
                    noun: "callers",
                    remedy: "raise limit".into(),
                },
                Capped::collect(rows(&r.callers), limit),
            )
            .with_list(
                ListSpelling {
                    list_key: "callees",
                    total_key: "callee_count",
                    listed_key: "callees_listed",
                    cap_key: "callees_cap",
                    noun: "callees",
                    remedy: "raise limit".into(),
                },
                Capped::collect(rows(&r.callees), limit),
            )
            .with_list(
                ListSpelling {
                    list_key: "module_callers",
                    total_key: "module_caller_count",
                    listed_key: "module_callers_listed",
                    cap_key: "module_callers_cap",
                    noun: "files calling it from module-level code",
                    remedy: "raise limit".into(),
                },
                Capped::collect(
                    r.module_callers
                        .iter()
                        .map(|(file, lines)| {
                            json!({"file": file, "call_lines": lines, "is_test": tsa_lang::is_test_path(file)})
                        })
                        .collect::<Vec<Value>>(),
                    limit,
                ),
            );
        step = match impact {
            _ if trust.open.total > 0 && r.factors.fan_in == 0 => format!(
                "No resolved production caller, but {} call site(s) named '{}' are unresolved ({} in production code): run nav action=callers function_name={name} and check them before changing it.",
                trust.open.total,
                def.name,
                trust.open.total - trust.open.in_tests
            ),
            _ if trust.completeness == Completeness::Unknown => format!(
                "The call graph cannot tell who calls it ({}): search its uses with search action=content before changing it.",
                trust.basis().join("; ")
            ),
            _ if !trust.public_api.is_empty() && r.factors.fan_in == 0 => format!(
                "No production caller inside the project, but it is public API ({}): keep its signature and behaviour compatible, or treat the change as breaking.",
                trust.public_api[0].reason
            ),
            ImpactLevel::None => {
                "Nothing in production calls it or is called by it: changes stay local.".to_owned()
            }
            ImpactLevel::Low => {
                "Few production callers: review the callers above before changing the signature."
                    .to_owned()
            }
            _ => format!(
                "{} production caller(s) across {} other file(s): run nav action=test_map symbol={name} and nav action=impact mode=blast_radius before changing it.",
                r.factors.fan_in, r.factors.cross_file_callers
            ),
        };
    }
    let mut s = trust
        .annotate(s)
        .with_next_step(step)
        .with_agent("risk_level", r.level);
    if let Some(w) = picked {
        s = s.with_warning(w);
    }
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::FunctionImpact => "function_impact",
        Mode::BlastRadius => "blast_radius",
        Mode::RiskScore => "risk_score",
    }
}

fn blast_radius(
    ctx: &Context,
    args: &Args,
    depth: u32,
    include_tests: bool,
) -> Result<Success, ToolError> {
    let chains_cap = cap("limit", args.limit, 100)?;
    let names: Vec<String> = match (&args.function_names, &args.function_name) {
        (Some(n), None) => n.clone(),
        (None, Some(n)) => vec![n.clone()],
        (Some(n), Some(one)) => {
            let mut n = n.clone();
            n.push(one.clone());
            n
        }
        (None, None) => {
            return Err(ToolError::Validation(
                "parameter 'function_names' (array of names) is required for mode=blast_radius"
                    .into(),
            ));
        }
    };
    if names.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'function_names' must hold at least one name".into(),
        ));
    }
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let mut seeds: Vec<SymbolRow> = Vec::new();
    let mut missing: Vec<Value> = Vec::new();
    let mut last_miss = None;
    for n in &names {
        let suggest = missing.len() < SUGGESTED_MISSES;
        match find_targets_with(
            ctx,
            index,
            "blast_radius",
            n,
            args.file_path.as_deref(),
            suggest,
        )? {
            Targets::Found(d) => seeds.extend(d),
            Targets::Missing(s) => {
                missing.push(json!({
                    "name": n,
                    "suggestions": s.payload().get("suggestions").cloned().unwrap_or(json!([])),
                    "candidate_files": s.payload().get("candidate_files").cloned().unwrap_or(json!([])),
                }));
                last_miss = Some(s);
            }
        }
    }
    if seeds.is_empty() {
        let miss = last_miss
            .unwrap_or_else(|| Success::new(Verdict::NotFound, "blast_radius: no seed found"));
        return Ok(miss
            .with("mode", "blast_radius")
            .with("unresolved_seeds", Value::Array(missing)));
    }
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
    let mut affected: BTreeSet<i64> = BTreeSet::new();
    for (id, d) in up.nodes.iter().chain(&down.nodes) {
        if *d > 0 && !seed_set.contains(id) {
            affected.insert(*id);
        }
    }
    let mut syms = HashMap::new();
    load_symbols(
        index,
        &mut syms,
        up.nodes.iter().chain(&down.nodes).map(|(id, _)| *id),
    )?;
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for id in &affected {
        if let Some(s) = syms.get(id) {
            files
                .entry(s.file.clone())
                .or_default()
                .push(s.qualname.clone());
        }
    }
    let mut file_rows: Vec<(String, Vec<String>)> = files.into_iter().collect();
    file_rows.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    let file_rows: Vec<Value> = file_rows
        .into_iter()
        .map(|(f, mut fns)| {
            fns.sort();
            json!({"file": f, "function_count": fns.len(), "functions": fns})
        })
        .collect();
    let q = |id: i64| {
        syms.get(&id)
            .map(|s| s.qualname.clone())
            .unwrap_or_default()
    };
    let mut chains: Vec<Value> = Vec::new();
    for (walk, dir) in [(&up, Dir::Up), (&down, Dir::Down)] {
        for e in &walk.edges {
            chains.push(json!({
                "from": q(e.from),
                "to": q(e.to),
                "direction": dir.as_str(),
                "depth": e.depth,
                "resolution": e.hop.resolution.as_str(),
                "confidence": e.hop.confidence,
            }));
        }
    }
    let total = affected.len();
    let impact = match total {
        0 => ImpactLevel::None,
        1..=5 => ImpactLevel::Low,
        6..=20 => ImpactLevel::Medium,
        _ => ImpactLevel::High,
    };
    let chains = Capped::collect(chains, chains_cap);
    let chains_truncated = chains.truncated();
    let upstream = up
        .nodes
        .iter()
        .filter(|(id, d)| *d > 0 && !seed_set.contains(id))
        .count();
    let downstream = down
        .nodes
        .iter()
        .filter(|(id, d)| *d > 0 && !seed_set.contains(id))
        .count();
    let mut s = Success::new(
        Verdict::from_impact(impact),
        format!(
            "blast_radius: {total} function(s) in {} file(s) affected within depth {depth}",
            file_rows.len()
        ),
    )
    .with("mode", "blast_radius")
    .with("seed_functions", definitions_json(&seeds))
    .with("depth", depth)
    .with("total_affected_functions", total)
    .with("upstream_functions", upstream)
    .with("downstream_functions", downstream)
    .with("impact_level", level_name(impact))
    .with("verdict_basis", format!("{VERDICT_BASIS}; blast_radius impact_level by affected functions: 0 none, 1-5 low, 6-20 medium, >20 high"))
    .with("edges", if include_tests { "all resolved edges" } else { "production edges (callers in test code excluded; include_tests=true adds them)" })
    .with_list(
        ListSpelling {
            list_key: "files_at_risk",
            total_key: "total_files_at_risk",
            listed_key: "files_at_risk_listed",
            cap_key: "files_at_risk_cap",
            noun: "files at risk",
            remedy: "raise limit or lower depth".into(),
        },
        Capped::collect(file_rows, chains_cap),
    )
    .with_list(
        ListSpelling {
            list_key: "propagation_chains",
            total_key: "total_propagation_chains",
            listed_key: "propagation_chains_listed",
            cap_key: "propagation_chains_cap",
            noun: "propagation chains",
            remedy: "raise limit or lower depth".into(),
        },
        chains,
    )
    .with("propagation_truncated", chains_truncated)
    .with_next_step(if total == 0 {
        "No resolved caller or callee within depth: a change stays local (dynamic calls are not in the graph).".to_owned()
    } else {
        "Check the files at risk; nav action=test_map on each seed lists the tests to run.".to_owned()
    })
    .with_agent("total_affected_functions", total);
    if !missing.is_empty() {
        s = s
            .with("unresolved_seeds", Value::Array(missing.clone()))
            .with_warning(format!(
                "{} seed name(s) not found: see unresolved_seeds",
                missing.len()
            ));
    }
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}
