//! `nav callers`: who calls a function, from call edges bound to its definition.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{CallRow, SymbolRow};

use crate::action::Action;
use crate::actions::common::{
    IncludeBodies, MORE_BODIES, Targets, callee_full, cap, definitions_json, find_targets,
    open_index, to_value, with_payload,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};
use tsa_analysis::graph::{
    DefinitionBrief, Dir, IndexGraph, Walk, bfs, definition_briefs, depth_param, load_symbols,
};
use tsa_analysis::source::{Bodies, Inlined};
use tsa_analysis::trust::{Assessor, Completeness, Trust};

/// Arguments of `nav callers`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Function or method name; `ClassName.method` (or `Type::method`) narrows to one type.
    pub function_name: String,
    /// Project-relative file that defines the function, to pick one of several definitions.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Most callers to list (>= 1, default 10; with scope=graph, most nodes and edges, default 100). The exact total is always reported; `cursor` pages on.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// `point` (direct callers, default) or `graph` (callers of callers, level by level, to `depth`).
    #[serde(default)]
    pub scope: Option<Scope>,
    /// Levels to walk with scope=graph (default 5, at most 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub depth: Option<i64>,
    /// Which callers get their source inlined: `none`, `top` (default: the first 3, 4 lines around the call), `all` (40 lines each).
    #[serde(default)]
    pub include_bodies: Option<IncludeBodies>,
}

/// The traversal scope.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Direct callers.
    Point,
    /// A walk over resolved edges, `depth` levels.
    Graph,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Point => "point",
            Scope::Graph => "graph",
        }
    }
}

pub struct Callers;

/// How `nav callers` (and the caller graph and tree) choose their verdict:
/// NOT_FOUND only when no caller is bound, completeness is complete and it is not
/// public API; WARN when no caller is bound and completeness is lower_bound or
/// unknown (the empty list must not be read as "no callers"); INFO otherwise (an
/// incomplete graph travels in completeness and warnings). This names the case that
/// applied, as the first line of `verdict_basis`.
pub(crate) fn callers_rule(total: usize, trust: &Trust) -> String {
    if total > 0 {
        format!("INFO: {total} caller(s) bound")
    } else if trust.settled() {
        "NOT_FOUND: no caller bound, completeness complete, not public API".to_owned()
    } else if trust.completeness == Completeness::Complete {
        "INFO: no caller bound in the project; public API, callers outside it uncounted".to_owned()
    } else {
        format!(
            "WARN: no caller bound, completeness {}: the empty list is not 'no callers'",
            trust.completeness.as_str()
        )
    }
}

/// The verdict of a caller answer with `total` callers found (see
/// [`callers_rule`]).
pub(crate) fn callers_verdict(total: usize, trust: &Trust) -> Verdict {
    if total > 0 {
        Verdict::Info
    } else if trust.settled() {
        Verdict::NotFound
    } else if trust.completeness == Completeness::Complete {
        Verdict::Info
    } else {
        Verdict::Warn
    }
}

pub(crate) const BODY_NOTE: &str = MORE_BODIES;

/// Callers (or callees) listed when `limit` is not given: a lean first page (the
/// total is exact, `cursor` pages on).
pub(crate) const DEFAULT_LIMIT: usize = 10;

/// Unresolved call sites listed when `limit` is not given.
const UNRESOLVED_LISTED: NonZeroUsize = NonZeroUsize::new(3).unwrap();

/// Call lines of one caller listed in `call_lines` (the rest are counted: `(+N more)`;
/// `call_site_count` has them all).
const CALL_LINES_LISTED: usize = 10;

/// Definitions listed beside callers or callees; `candidate_count` gives them all.
pub(crate) const DEFINITIONS_LISTED: usize = 3;

/// One caller as a row of `callers`: a calling definition, or the module-level code
/// of one file (`<module>`, qualified `file:<module>`).
#[derive(Clone, Debug, Serialize)]
pub struct CallerRow {
    /// The caller's name (`<module>` for module-level code).
    pub name: String,
    /// Its qualified name.
    pub qualified_name: String,
    /// The file of the call.
    pub file: String,
    /// The line of its first call.
    pub line: u32,
    /// The language of the call.
    pub language: String,
    /// How the call was bound to the definition.
    pub callee_resolution: &'static str,
    /// The file of the definition it was bound to.
    pub callee_resolved_file: String,
    /// Confidence of the binding.
    pub confidence: f64,
    /// The source line of the first call (trimmed).
    pub call_text: Option<String>,
    /// Its call lines (`12 40 88`, the first 10, then `(+N more)`), when the caller
    /// calls more than once.
    pub call_lines: Option<String>,
    /// The caller's source, for the rows `include_bodies` names.
    #[serde(flatten)]
    pub body: Inlined,
}

/// A call site of the same name that no resolution bound or ruled out.
#[derive(Clone, Debug, Serialize)]
pub struct UnresolvedSite {
    /// Its file.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The enclosing definition (none for module-level code).
    pub caller: Option<String>,
    /// The call as written (`recv.name`, `Type::name`).
    pub call: String,
}

/// The engine of `nav callers` (scope=point).
pub struct CallersReport {
    /// The definitions of the name.
    pub defs: Vec<SymbolRow>,
    /// Who calls them, and how far that can be trusted.
    pub trust: Trust,
    /// One entry per calling definition (and per file for module-level code) with
    /// its call lines; production callers first, then tests, by file and line.
    pub callers: Capped<(CallRow, Vec<u32>)>,
    /// Call sites over all callers.
    pub call_sites: usize,
    /// Call sites in module-level code.
    pub module_sites: usize,
    /// Files whose module-level code calls the name.
    pub module_callers: usize,
    /// Same-name call sites left unresolved (exact total).
    pub unresolved: Capped<UnresolvedSite>,
    /// The warning of an index built by this call.
    pub built_now: Option<String>,
}

/// The callers of a name, or the NOT_FOUND answer when no definition has it.
pub enum CallersLookup {
    /// The name is defined.
    Found(Box<CallersReport>),
    /// It is not: the answer that says so, with suggestions.
    Missing(Success),
}

/// One entry per calling definition, and one per file for module-level code (it
/// runs at import or load time, so it is a caller too); call lines are kept
/// together. Returns the entries (production first, then tests, by file and line)
/// and how many call sites are module-level.
fn attribute(rows: Vec<CallRow>) -> (Vec<(CallRow, Vec<u32>)>, usize) {
    let mut slot: HashMap<Result<i64, String>, usize> = HashMap::new();
    let mut module_sites = 0usize;
    let mut attributed: Vec<(CallRow, Vec<u32>)> = Vec::new();
    for r in rows {
        let key = match &r.caller {
            Some(caller) => Ok(caller.id),
            None => {
                module_sites += 1;
                Err(r.file.clone())
            }
        };
        match slot.get(&key) {
            Some(&i) => attributed[i].1.push(r.line),
            None => {
                slot.insert(key, attributed.len());
                let line = r.line;
                attributed.push((r, vec![line]));
            }
        }
    }
    attributed.sort_by(|(a, al), (b, bl)| {
        let key = |r: &CallRow| {
            r.caller
                .as_ref()
                .map_or_else(|| tsa_lang::is_test_path(&r.file), |c| c.is_test)
        };
        key(a)
            .cmp(&key(b))
            .then_with(|| a.file.cmp(&b.file))
            .then(al[0].cmp(&bl[0]))
    });
    (attributed, module_sites)
}

/// The callers of `function_name` (narrowed by `file_path`), `limit` listed.
pub fn find_callers(
    ctx: &Context,
    function_name: &str,
    file_path: Option<&str>,
    limit: NonZeroUsize,
) -> Result<CallersLookup, ToolError> {
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let defs = match find_targets(ctx, index, "callers", function_name, file_path)? {
        Targets::Found(d) => d,
        Targets::Missing(s) => return Ok(CallersLookup::Missing(s)),
    };
    let trust = Assessor::new(index, ctx.root()?).assess(&defs, limit.get())?;
    let (attributed, module_sites) = attribute(trust.callers.clone());
    let call_sites: usize = attributed.iter().map(|(_, l)| l.len()).sum();
    let module_callers = attributed
        .iter()
        .filter(|(r, _)| r.caller.is_none())
        .count();
    // Call sites of the same name in the definitions' language families that no
    // resolution bound or ruled out (a call never crosses families, so only
    // these could be further callers).
    let unresolved = Capped::counted(
        trust
            .open_rows
            .iter()
            .map(|r| UnresolvedSite {
                file: r.file.clone(),
                line: r.line,
                caller: r.caller.as_ref().map(|c| c.qualname.clone()),
                call: callee_full(r),
            })
            .collect(),
        trust.open.total as usize,
        limit,
    );
    Ok(CallersLookup::Found(Box::new(CallersReport {
        defs,
        callers: Capped::collect(attributed, limit),
        trust,
        call_sites,
        module_sites,
        module_callers,
        unresolved,
        built_now: opened.built_now,
    })))
}

/// The payload of `nav callers` (scope=point), in answer order (the callers and
/// the unresolved sites follow as lists).
#[derive(Clone, Debug, Serialize)]
pub struct CallersPayload<'a> {
    /// Always `sql`.
    pub data_source: &'static str,
    /// Always `point`.
    pub scope: &'static str,
    /// The name asked for.
    pub function: &'a str,
    /// Its definitions (the first [`DEFINITIONS_LISTED`]).
    pub definitions: Vec<DefinitionBrief>,
    /// Call sites over all callers.
    pub call_site_count: usize,
    /// Call sites in module-level code (listed as `<module>` rows, one per file).
    pub unattributed_call_sites: usize,
    /// Files whose module-level code calls the name.
    pub module_callers: usize,
    /// How the verdict was chosen, rule first.
    pub verdict_basis: Vec<String>,
    /// True when several definitions share the name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguous: Option<bool>,
    /// How many, when ambiguous (the first 3 are listed under `definitions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_count: Option<usize>,
}

/// A caller as a row, its body inlined within the budget of `bodies`.
fn caller_row(r: &CallRow, lines: Vec<u32>, bodies: &mut Bodies) -> CallerRow {
    let module = format!("{}:<module>", r.file);
    let (name, qualname, span) = match r.caller.as_ref() {
        Some(c) => (
            c.name.as_str(),
            c.qualname.as_str(),
            (c.file.as_str(), c.line, c.end_line),
        ),
        None => (
            "<module>",
            module.as_str(),
            (r.file.as_str(), r.line, r.line),
        ),
    };
    CallerRow {
        name: name.to_owned(),
        qualified_name: qualname.to_owned(),
        file: r.file.clone(),
        line: r.line,
        language: r.language.clone(),
        callee_resolution: r.resolution.as_str(),
        callee_resolved_file: r
            .target
            .as_ref()
            .map(|t| t.file.clone())
            .unwrap_or_default(),
        confidence: r.confidence,
        call_text: bodies.line_text(&r.file, r.line),
        body: bodies.inline_around(span.0, span.1, span.2, r.line),
        call_lines: (lines.len() > 1).then(|| {
            let mut s = lines
                .iter()
                .take(CALL_LINES_LISTED)
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" ");
            if lines.len() > CALL_LINES_LISTED {
                s.push_str(&format!(" (+{} more)", lines.len() - CALL_LINES_LISTED));
            }
            s
        }),
    }
}

/// The next step of a callers answer.
fn callers_follow_up(r: &CallersReport, function_name: &str, bodies_any: bool) -> String {
    let total = r.callers.total();
    let unresolved = r.unresolved.total();
    let name = &r.defs[0].name;
    let trust = &r.trust;
    if total == 0 {
        if unresolved > 0 {
            format!(
                "0 resolved callers, {unresolved} unresolved call site(s) named '{name}': the true count may be higher; inspect unresolved_sites."
            )
        } else if trust.completeness == Completeness::Unknown {
            format!(
                "No call site is bound to '{function_name}', but the call graph cannot say so: {}",
                trust.basis().join("; ")
            )
        } else if !trust.public_api.is_empty() {
            format!(
                "No caller inside the project; it is public API ({}), so callers outside it may exist: keep its signature and behaviour compatible.",
                trust.public_api[0].reason
            )
        } else {
            format!(
                "No call site is bound to '{function_name}' and none of that name is unresolved. It may be an entry point or unused."
            )
        }
    } else if r.defs.len() > 1 {
        format!(
            "{} definitions: narrow with file_path or ClassName.method",
            r.defs.len(),
        )
    } else if bodies_any {
        BODY_NOTE.to_owned()
    } else {
        "Review callers above; nav action=caller_tree goes further up.".to_owned()
    }
}

/// The answer of `nav callers` (scope=point).
fn callers_answer(
    ctx: &Context,
    r: CallersReport,
    function_name: &str,
    include: IncludeBodies,
    unresolved_cap: NonZeroUsize,
) -> Result<Success, ToolError> {
    let mut bodies = Bodies::new(ctx.root()?, include.rows().budget());
    let total = r.callers.total();
    let unresolved = r.unresolved.total();
    // Unresolved sites: the first UNRESOLVED_LISTED unless `limit` was given (the
    // total stays exact).
    let unresolved_list =
        Capped::counted(r.unresolved.items().to_vec(), unresolved, unresolved_cap);
    let listed = r
        .callers
        .clone()
        .map(|(row, lines)| to_value(&caller_row(&row, lines, &mut bodies)));
    let ambiguous = r.defs.len() > 1;
    let verdict = callers_verdict(total, &r.trust);
    let follow_up = callers_follow_up(
        &r,
        function_name,
        bodies.any() && include != IncludeBodies::All,
    );
    let summary = if unresolved > 0 {
        format!(
            "callers: '{function_name}' has {total} resolved caller(s), {unresolved} unresolved call site(s) named '{}'",
            r.defs[0].name
        )
    } else {
        format!("callers: '{function_name}' has {total} caller(s)")
    };
    let mut basis = vec![callers_rule(total, &r.trust)];
    basis.extend(r.trust.completeness_basis());
    let payload = CallersPayload {
        data_source: "sql",
        scope: Scope::Point.as_str(),
        function: function_name,
        definitions: definition_briefs(&r.defs, DEFINITIONS_LISTED),
        call_site_count: r.call_sites,
        unattributed_call_sites: r.module_sites,
        module_callers: r.module_callers,
        verdict_basis: basis,
        ambiguous: ambiguous.then_some(true),
        candidate_count: ambiguous.then_some(r.defs.len()),
    };
    let mut s = with_payload(Success::new(verdict, summary), &payload)
        .with_list(
            ListSpelling {
                list_key: "callers",
                total_key: "caller_count",
                listed_key: "callers_listed",
                cap_key: "listed_cap",
                noun: "callers",
                remedy: "raise limit".into(),
            },
            listed,
        )
        .with_list(
            ListSpelling {
                list_key: "unresolved_sites",
                total_key: "unresolved_call_sites",
                listed_key: "unresolved_sites_listed",
                cap_key: "unresolved_sites_cap",
                noun: "unresolved call sites",
                remedy: String::new(),
            },
            unresolved_list.map(|u| to_value(&u)),
        )
        .with_next_step(follow_up)
        .with_agent("total_callers", total);
    s = r.trust.annotate(s);
    if let Some(w) = r.built_now {
        s = s.with_warning(w);
    }
    Ok(bodies.warn(s))
}

impl Action for Callers {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "callers";
    const SUMMARY: &'static str = "who calls a function (exact count, capped list of call sites, bodies of the first 3 inlined, resolution per edge)";
    const BRIEF: &'static str = "who calls a function";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("symbol", "function_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        if matches!(args.scope, Some(Scope::Graph)) {
            return run_graph(
                ctx,
                &args.function_name,
                args.file_path.as_deref(),
                args.depth,
                args.limit,
                Dir::Up,
            );
        }
        if args.depth.is_some() {
            return Err(ToolError::Validation(
                "parameter 'depth' applies to scope=graph only".into(),
            ));
        }
        let limit = cap("limit", args.limit, DEFAULT_LIMIT)?;
        match find_callers(ctx, &args.function_name, args.file_path.as_deref(), limit)? {
            CallersLookup::Found(r) => callers_answer(
                ctx,
                *r,
                &args.function_name,
                args.include_bodies.unwrap_or_default(),
                match args.limit {
                    Some(_) => limit,
                    None => UNRESOLVED_LISTED,
                },
            ),
            CallersLookup::Missing(s) => Ok(s),
        }
    }
}

/// The rows of a walk: node counts per level, the nodes (each with the edge that
/// first reached it) and the edges, read caller -> callee.
fn walk_rows(
    walk: &Walk,
    syms: &HashMap<i64, SymbolRow>,
    dir: Dir,
    depth: u32,
) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let qual = |id: i64| -> (String, String) {
        syms.get(&id)
            .map(|s| (s.qualname.clone(), s.file.clone()))
            .unwrap_or_default()
    };
    // The edge that first reached each node.
    let mut via: HashMap<i64, usize> = HashMap::new();
    for (i, e) in walk.edges.iter().enumerate() {
        via.entry(e.to).or_insert(i);
    }
    let mut levels: Vec<usize> = vec![0; depth as usize + 1];
    for (_, d) in &walk.nodes {
        levels[*d as usize] += 1;
    }
    let levels: Vec<Value> = levels
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, n)| **n > 0)
        .map(|(d, n)| json!({"depth": d, "nodes": n}))
        .collect();
    let nodes: Vec<Value> = walk
        .nodes
        .iter()
        .filter(|(_, d)| *d > 0)
        .map(|(id, d)| {
            let mut v = syms
                .get(id)
                .map(tsa_analysis::graph::node_json)
                .unwrap_or(Value::Null);
            v["depth"] = json!(d);
            if let Some(e) = via.get(id).map(|i| &walk.edges[*i]) {
                v["via"] = json!(qual(e.from).0);
                v["resolution"] = json!(e.hop.resolution.as_str());
                v["confidence"] = json!(e.hop.confidence);
            }
            v
        })
        .collect();
    let edges: Vec<Value> = walk
        .edges
        .iter()
        .map(|e| {
            // Edges always read caller -> callee.
            let (caller, callee) = match dir {
                Dir::Up => (e.to, e.from),
                Dir::Down => (e.from, e.to),
            };
            let (cq, cf) = qual(caller);
            let (tq, tf) = qual(callee);
            json!({
                "caller": cq, "caller_file": cf, "callee": tq, "callee_file": tf,
                "line": e.hop.line, "depth": e.depth,
                "resolution": e.hop.resolution.as_str(), "confidence": e.hop.confidence,
            })
        })
        .collect();
    (levels, nodes, edges)
}

/// `scope=graph`: a level-by-level walk over resolved edges from every definition of
/// the name, to `depth` levels; nodes and edges listed with exact totals.
pub(crate) fn run_graph(
    ctx: &Context,
    function_name: &str,
    file_path: Option<&str>,
    depth: Option<i64>,
    limit: Option<i64>,
    dir: Dir,
) -> Result<Success, ToolError> {
    let (depth, clamped) = depth_param("depth", depth, 5, 20)?;
    let limit = cap("limit", limit, 100)?;
    let (label, noun) = match dir {
        Dir::Up => ("callers", "callers"),
        Dir::Down => ("callees", "callees"),
    };
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let defs = match find_targets(ctx, index, label, function_name, file_path)? {
        Targets::Found(d) => d,
        Targets::Missing(s) => return Ok(s.with("scope", "graph")),
    };
    let seeds: Vec<i64> = defs.iter().map(|d| d.id).collect();
    // Who calls the seeds rests on the call graph's completeness there (the levels
    // above are walked over what it bound).
    let trust = match dir {
        Dir::Up => Some(Assessor::new(index, ctx.root()?).assess(&defs, 0)?),
        Dir::Down => None,
    };
    let mut g = IndexGraph::new(index);
    let walk = bfs(&mut g, &seeds, dir, depth)?;
    let mut syms = HashMap::new();
    load_symbols(index, &mut syms, walk.nodes.iter().map(|(id, _)| *id))?;
    let (levels, nodes, edges) = walk_rows(&walk, &syms, dir, depth);
    let total = nodes.len();
    let verdict = match &trust {
        Some(t) => callers_verdict(total, t),
        None if total > 0 => Verdict::Info,
        None => Verdict::NotFound,
    };
    let step = if total == 0 && trust.as_ref().is_some_and(|t| t.open.total > 0) {
        format!(
            "'{function_name}' has no resolved callers, but {} call site(s) of its name are unresolved: nav action=callers scope=point lists them",
            trust.as_ref().map_or(0, |t| t.open.total)
        )
    } else if total == 0 {
        format!(
            "'{function_name}' has no resolved {noun}; nav action={label} scope=point shows unresolved call-site counts"
        )
    } else {
        format!(
            "Use nav action={}_tree for the nested view, or nav action=call_path between two of these functions.",
            if dir == Dir::Up { "caller" } else { "callee" }
        )
    };
    let mut s = Success::new(
        verdict,
        format!(
            "{label} graph: '{function_name}' reaches {total} function(s) within depth {depth}"
        ),
    )
    .with("data_source", "sql")
    .with("scope", "graph")
    .with("mode", label)
    .with("function", function_name)
    .with("depth", depth)
    .with("max_depth_reached", walk.max_depth_reached)
    .with("definitions", definitions_json(&defs))
    .with("levels", Value::Array(levels))
    .with_list(
        ListSpelling {
            list_key: "nodes",
            total_key: "node_total",
            listed_key: "nodes_listed",
            cap_key: "listed_cap",
            noun: "nodes",
            remedy: "raise limit or lower depth".into(),
        },
        Capped::collect(nodes, limit),
    )
    .with_list(
        ListSpelling {
            list_key: "edges",
            total_key: "edge_total",
            listed_key: "edges_listed",
            cap_key: "edges_cap",
            noun: "edges",
            remedy: "raise limit or lower depth".into(),
        },
        Capped::collect(edges, limit),
    )
    .with_next_step(step)
    .with_agent("node_total", total);
    if defs.len() > 1 {
        s = s
            .with("ambiguous", true)
            .with("candidate_count", defs.len());
    }
    if let Some(t) = &trust {
        let mut basis = vec![callers_rule(total, t)];
        basis.extend(t.completeness_basis());
        s = t.annotate(s.with("verdict_basis", json!(basis)));
    }
    if let Some(w) = clamped {
        s = s.with_warning(w);
    }
    if let Some(w) = opened.built_now {
        s = s.with_warning(w);
    }
    Ok(s)
}
