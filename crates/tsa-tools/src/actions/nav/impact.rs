//! `nav impact`: function risk score (analyses §5), function impact (risk plus
//! callers and callees), and blast radius (BFS up and down from every seed).
//! Risk uses production edges only; edges from test code are counted in `tests`.

use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::graph::{
    Definition, Hop, VERDICT_BASIS, ambiguous, definitions, depth_param, exact_pick, impact_level,
    narrow_hint,
};
use tsa_analysis::impact::{self, Risk, RiskRow, edge_rows};
use tsa_analysis::trust::{Assessor, Change, Completeness, OPEN_SITES_MEDIUM, Trust};
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{
    Lookup, Miss, SUGGESTED_MISSES, cap, lookup, open_index, to_value, with_payload,
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

fn level_name(l: ImpactLevel) -> &'static str {
    match l {
        ImpactLevel::None => "none",
        ImpactLevel::Low => "low",
        ImpactLevel::Medium => "medium",
        ImpactLevel::High => "high",
    }
}

/// The keys every `function_impact`/`risk_score` answer starts with.
#[derive(Serialize)]
pub struct ImpactHead {
    /// `function_impact` or `risk_score`.
    pub mode: &'static str,
    /// Qualified name of the definition.
    pub function: String,
    /// Its file.
    pub file: String,
    /// The definition.
    pub definition: Vec<Definition>,
    /// `none`, `low`, `medium` or `high`.
    pub impact_level: &'static str,
    /// Why the level is what it is.
    pub verdict_basis: Vec<String>,
}

/// What `function_impact` adds before its lists.
#[derive(Serialize)]
pub struct FunctionImpact {
    /// The risk of the definition.
    pub risk: RiskRow,
    /// Production functions calling it within `depth`.
    pub upstream_affected: usize,
    /// Levels walked up.
    pub depth: u32,
}

/// The keys a miss or an ambiguous name adds.
#[derive(Serialize)]
struct Unresolved {
    /// Always `unknown`.
    level: &'static str,
    /// The mode asked.
    mode: &'static str,
}

/// A seed name of `blast_radius` that matched no definition.
#[derive(Serialize)]
pub struct UnresolvedSeed {
    /// The name as given.
    pub name: String,
    /// Close names in the index (space-separated).
    #[serde(serialize_with = "tsa_analysis::flat::spaced")]
    pub suggestions: Vec<String>,
    /// Files defining the name when it is not in `file_path` (`, `-separated).
    #[serde(serialize_with = "tsa_analysis::flat::comma_spaced")]
    pub candidate_files: Vec<String>,
}

/// The keys of a `blast_radius` answer before its lists.
#[derive(Serialize)]
pub struct BlastHead {
    /// Always `blast_radius`.
    pub mode: &'static str,
    /// The definitions the seed names matched.
    pub seed_functions: Vec<Definition>,
    /// Levels walked up and down.
    pub depth: u32,
    /// Functions reached up or down, seeds excluded.
    pub total_affected_functions: usize,
    /// Functions reached upward.
    pub upstream_functions: usize,
    /// Functions reached downward.
    pub downstream_functions: usize,
    /// `none`, `low`, `medium` or `high`.
    pub impact_level: &'static str,
    /// Why the level is what it is.
    pub verdict_basis: String,
    /// Which edges were walked.
    pub edges: &'static str,
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
    let unresolved = Unresolved {
        level: "unknown",
        mode: mode_name(mode),
    };
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let mut defs = match lookup(ctx, index, label, name, args.file_path.as_deref(), true)? {
        Lookup::Found(d) => d,
        Lookup::NotFound(miss) => return Ok(with_payload(miss.into_success(), &unresolved)),
    };
    let mut picked = None;
    if defs.len() > 1 && overload_set(&defs) {
        // One qualified name in one file: the overloads of a method change
        // together as far as an agent can tell, so they are answered as one.
        picked = Some(format!(
            "'{}' has {} overloads in {}; answered for all of them together (every caller of any overload)",
            defs[0].qualname,
            defs.len(),
            defs[0].file
        ));
    } else if defs.len() > 1 {
        match exact_pick(name, &defs) {
            Some((d, w)) if args.file_path.is_some() => {
                defs = vec![d];
                picked = Some(w);
            }
            _ => {
                let mut s = with_payload(ambiguous(label, name, &defs), &unresolved);
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
    let r = impact::assess_set(index, &defs)?;
    let trust = Assessor::new(index, ctx.root()?).assess(&defs, 0)?;
    let def = defs[0].clone();
    let from_risk = impact_level(r.level, &r.factors);
    // Unresolved same-name call sites, an unknown graph and public API raise the
    // level: nothing here is SAFE unless every caller is known and counted.
    let level = from_risk.max(trust.floor(Change::Behaviour));
    let mut basis = vec![VERDICT_BASIS.to_owned()];
    basis.extend(trust.basis());
    if level > from_risk {
        basis.push(format!(
            "impact_level raised from {} to {} by the floor of completeness and public API (unresolved sites: low, or medium past {OPEN_SITES_MEDIUM} in production code; unknown graph: low; public API: low)",
            level_name(from_risk),
            level_name(level)
        ));
    }
    let head = ImpactHead {
        mode: mode_name(mode),
        function: def.qualname.clone(),
        file: def.file.clone(),
        definition: definitions(&defs),
        impact_level: level_name(level),
        verdict_basis: basis,
    };
    let s = with_payload(
        Success::new(
            Verdict::from_impact(level),
            impact_summary(label, name, &def, &r, trust.open.total),
        ),
        &head,
    );
    let (s, step) = if mode == Mode::RiskScore {
        let step = format!(
            "For the callers behind this score run nav action=impact mode=function_impact function_name={name}{}",
            args.file_path
                .as_ref()
                .map(|f| format!(" file_path={f}"))
                .unwrap_or_default()
        );
        (with_payload(s, &r.parts(include_tests)), step)
    } else {
        let payload = FunctionImpact {
            risk: r.row(&def, include_tests),
            upstream_affected: impact::upstream(index, &defs, depth)?,
            depth,
        };
        let s = with_neighbour_lists(with_payload(s, &payload), &r, limit);
        let step = function_step(name, &def, &r, &trust, level);
        (s, step)
    };
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

/// Several definitions of one qualified name in one file, every one a function
/// or method: the overloads of one method (Java, C#, C++, Kotlin, ...).
fn overload_set(defs: &[SymbolRow]) -> bool {
    let first = &defs[0];
    defs.iter().all(|d| {
        d.qualname == first.qualname
            && d.file == first.file
            && matches!(d.kind.as_str(), "function" | "method")
    })
}

fn impact_summary(label: &str, name: &str, def: &SymbolRow, r: &Risk, open: u64) -> String {
    format!(
        "{label}: '{name}' risk {} ({}) — {} production caller(s), {} callee(s){}",
        r.level,
        r.score,
        r.factors.fan_in,
        r.factors.fan_out,
        if open > 0 {
            format!(", {open} unresolved call site(s) named '{}'", def.name)
        } else {
            String::new()
        }
    )
}

/// The callers, callees and module-level callers lists of `function_impact`.
fn with_neighbour_lists(s: Success, r: &Risk, limit: NonZeroUsize) -> Success {
    let rows =
        |v: &[(SymbolRow, Hop)]| -> Vec<Value> { edge_rows(v).iter().map(to_value).collect() };
    s.with_list(
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
        Capped::collect(r.module_caller_rows().iter().map(to_value), limit),
    )
}

/// The next step of `function_impact`.
fn function_step(
    name: &str,
    def: &SymbolRow,
    r: &Risk,
    trust: &Trust,
    level: ImpactLevel,
) -> String {
    match level {
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
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::FunctionImpact => "function_impact",
        Mode::BlastRadius => "blast_radius",
        Mode::RiskScore => "risk_score",
    }
}

/// The seed names of `blast_radius`: `function_names`, plus `function_name`.
fn seed_names(args: &Args) -> Result<Vec<String>, ToolError> {
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
    Ok(names)
}

/// The seeds' unresolved names, and the last miss for the answer with no seed.
#[derive(Serialize)]
struct NoSeed {
    /// Always `blast_radius`.
    mode: &'static str,
    /// Every name that matched nothing.
    unresolved_seeds: Vec<UnresolvedSeed>,
}

/// The names that matched nothing, when some seeds did.
#[derive(Serialize)]
struct SomeUnresolved {
    /// Every name that matched nothing.
    unresolved_seeds: Vec<UnresolvedSeed>,
}

fn blast_radius(
    ctx: &Context,
    args: &Args,
    depth: u32,
    include_tests: bool,
) -> Result<Success, ToolError> {
    let chains_cap = cap("limit", args.limit, 100)?;
    let names = seed_names(args)?;
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let mut seeds: Vec<SymbolRow> = Vec::new();
    let mut missing: Vec<UnresolvedSeed> = Vec::new();
    let mut last_miss = None;
    for n in &names {
        let suggest = missing.len() < SUGGESTED_MISSES;
        let file = args.file_path.as_deref();
        match lookup(ctx, index, "blast_radius", n, file, suggest)? {
            Lookup::Found(d) => seeds.extend(d),
            Lookup::NotFound(miss) => {
                missing.push(UnresolvedSeed {
                    name: n.clone(),
                    suggestions: miss.suggestions.clone().unwrap_or_default(),
                    candidate_files: miss.candidate_files.clone().unwrap_or_default(),
                });
                last_miss = Some(miss);
            }
        }
    }
    if seeds.is_empty() {
        let miss = last_miss.map_or_else(
            || Success::new(Verdict::NotFound, "blast_radius: no seed found"),
            Miss::into_success,
        );
        let no_seed = NoSeed {
            mode: "blast_radius",
            unresolved_seeds: missing,
        };
        return Ok(with_payload(miss, &no_seed));
    }
    let b = impact::blast(index, &seeds, depth, include_tests)?;
    let total = b.total;
    let head = BlastHead {
        mode: "blast_radius",
        seed_functions: definitions(&seeds),
        depth,
        total_affected_functions: total,
        upstream_functions: b.upstream,
        downstream_functions: b.downstream,
        impact_level: level_name(b.impact),
        verdict_basis: format!(
            "{VERDICT_BASIS}; blast_radius impact_level by affected functions: 0 none, 1-5 low, 6-20 medium, >20 high"
        ),
        edges: if include_tests {
            "all resolved edges"
        } else {
            "production edges (callers in test code excluded; include_tests=true adds them)"
        },
    };
    let s = Success::new(
        Verdict::from_impact(b.impact),
        format!(
            "blast_radius: {total} function(s) in {} file(s) affected within depth {depth}",
            b.files.len()
        ),
    );
    let chains = Capped::collect(b.chains.iter().map(to_value), chains_cap);
    let chains_truncated = chains.truncated();
    let mut s = with_payload(s, &head)
    .with_list(
        ListSpelling {
            list_key: "files_at_risk",
            total_key: "total_files_at_risk",
            listed_key: "files_at_risk_listed",
            cap_key: "files_at_risk_cap",
            noun: "files at risk",
            remedy: "raise limit or lower depth".into(),
        },
        Capped::collect(b.files.iter().map(to_value), chains_cap),
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
        let n = missing.len();
        s = with_payload(
            s,
            &SomeUnresolved {
                unresolved_seeds: missing,
            },
        )
        .with_warning(format!("{n} seed name(s) not found: see unresolved_seeds"));
    }
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}
