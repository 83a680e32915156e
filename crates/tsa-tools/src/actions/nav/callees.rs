//! `nav callees`: what a function calls, each call with its resolution.

use std::collections::HashSet;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::graph::{DefinitionBrief, Dir, definition_briefs};
use tsa_analysis::source::{Bodies, Inlined};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{CallRow, SymbolRow};

use crate::action::Action;
use crate::actions::common::{
    IncludeBodies, Targets, callee_full, cap, find_targets, open_index, to_value, with_payload,
};
use crate::actions::nav::callers::{
    BODY_NOTE, DEFAULT_LIMIT, DEFINITIONS_LISTED, Scope, run_graph,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `nav callees`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Function or method name; `ClassName.method` (or `Type::method`) narrows to one type.
    pub function_name: String,
    /// Project-relative file that defines the function, to pick one of several definitions.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Most callees to list (>= 1, default 10; with scope=graph, most nodes and edges, default 100). The exact total is always reported; `cursor` pages on.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// `point` (direct callees, default) or `graph` (callees of callees, level by level, to `depth`).
    #[serde(default)]
    pub scope: Option<Scope>,
    /// Levels to walk with scope=graph (default 5, at most 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub depth: Option<i64>,
    /// Which callees get their definition's source inlined: `none`, `top` (default: the first 3, 4 lines each), `all` (40 lines each).
    #[serde(default)]
    pub include_bodies: Option<IncludeBodies>,
}

pub struct Callees;

/// One call the function makes, as a row of `callees`.
#[derive(Clone, Debug, Serialize)]
pub struct CalleeRow {
    /// The called name.
    pub name: String,
    /// The call as written (`recv.name`, `Type::name`).
    pub callee_full: String,
    /// The file of the bound definition (else of the call).
    pub file: String,
    /// The call's line.
    pub line: u32,
    /// The call's language.
    pub language: String,
    /// How the call was bound.
    pub callee_resolution: &'static str,
    /// The file of the bound definition (empty when unbound).
    pub callee_resolved_file: String,
    /// Confidence of the binding.
    pub confidence: f64,
    /// The package of a target outside the project, when a SCIP index named it.
    pub package: Option<String>,
    /// The bound definition's qualified name.
    pub qualified_name: Option<String>,
    /// The bound definition's first line.
    pub definition_line: Option<u32>,
    /// The bound definition's source, for the rows `include_bodies` names.
    #[serde(flatten)]
    pub body: Inlined,
}

/// The engine of `nav callees` (scope=point).
pub struct CalleesReport {
    /// The definitions of the name.
    pub defs: Vec<SymbolRow>,
    /// The distinct calls they make (one per bound target or per unbound call text).
    pub callees: Capped<CallRow>,
    /// How many of them are unresolved.
    pub unresolved: usize,
    /// The warning of an index built by this call.
    pub built_now: Option<String>,
}

/// The callees of a name, or the NOT_FOUND answer when no definition has it.
pub enum CalleesLookup {
    /// The name is defined.
    Found(Box<CalleesReport>),
    /// It is not: the answer that says so, with suggestions.
    Missing(Success),
}

/// What `function_name` (narrowed by `file_path`) calls, `limit` listed.
pub fn find_callees(
    ctx: &Context,
    function_name: &str,
    file_path: Option<&str>,
    limit: NonZeroUsize,
) -> Result<CalleesLookup, ToolError> {
    let opened = open_index(ctx)?;
    let index = &opened.index;
    let defs = match find_targets(ctx, index, "callees", function_name, file_path)? {
        Targets::Found(d) => d,
        Targets::Missing(s) => return Ok(CalleesLookup::Missing(s)),
    };
    let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let mut seen = HashSet::new();
    let rows: Vec<CallRow> = index
        .callees(&ids)?
        .into_iter()
        .filter(|r| {
            let key = match &r.target {
                Some(t) => format!("#{}", t.id),
                None => callee_full(r),
            };
            seen.insert(key)
        })
        .collect();
    let unresolved = rows
        .iter()
        .filter(|r| r.resolution == tsa_index::Resolution::Unknown)
        .count();
    Ok(CalleesLookup::Found(Box::new(CalleesReport {
        defs,
        callees: Capped::collect(rows, limit),
        unresolved,
        built_now: opened.built_now,
    })))
}

/// A call as a row, the bound definition's body inlined within the budget.
fn callee_row(r: &CallRow, bodies: &mut Bodies) -> CalleeRow {
    let resolved_file = r.target.as_ref().map(|t| t.file.clone());
    CalleeRow {
        name: r.callee_name.clone(),
        callee_full: callee_full(r),
        file: resolved_file.clone().unwrap_or_else(|| r.file.clone()),
        line: r.line,
        language: r.language.clone(),
        callee_resolution: r.resolution.as_str(),
        callee_resolved_file: resolved_file.unwrap_or_default(),
        confidence: r.confidence,
        package: r.package.clone(),
        qualified_name: r.target.as_ref().map(|t| t.qualname.clone()),
        definition_line: r.target.as_ref().map(|t| t.line),
        body: r
            .target
            .as_ref()
            .map(|t| bodies.inline(&t.file, t.line, t.end_line))
            .unwrap_or_default(),
    }
}

/// The payload of `nav callees` (scope=point), in answer order (the callees follow
/// as a list).
#[derive(Clone, Debug, Serialize)]
pub struct CalleesPayload<'a> {
    /// Always `sql`.
    pub data_source: &'static str,
    /// Always `point`.
    pub scope: &'static str,
    /// The name asked for.
    pub function: &'a str,
    /// Its definitions.
    pub definitions: Vec<DefinitionBrief>,
    /// How many distinct calls are unresolved.
    pub unresolved_callees: usize,
    /// True when several definitions share the name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguous: Option<bool>,
    /// How many, when ambiguous (the first 3 are listed under `definitions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_count: Option<usize>,
}

/// The answer of `nav callees` (scope=point).
fn callees_answer(
    ctx: &Context,
    r: CalleesReport,
    function_name: &str,
    include: IncludeBodies,
) -> Result<Success, ToolError> {
    let mut bodies = Bodies::new(ctx.root()?, include.rows().budget());
    let total = r.callees.total();
    let listed = r
        .callees
        .map(|row| to_value(&callee_row(&row, &mut bodies)));
    let verdict = if total > 0 {
        Verdict::Info
    } else {
        Verdict::NotFound
    };
    let follow_up = if total == 0 {
        format!("'{function_name}' makes no calls the index knows of.")
    } else if bodies.any() && include != IncludeBodies::All {
        BODY_NOTE.to_owned()
    } else {
        "Review callees above; nav action=callee_tree goes further down.".to_owned()
    };
    let ambiguous = r.defs.len() > 1;
    let payload = CalleesPayload {
        data_source: "sql",
        scope: Scope::Point.as_str(),
        function: function_name,
        definitions: definition_briefs(&r.defs, DEFINITIONS_LISTED),
        unresolved_callees: r.unresolved,
        ambiguous: ambiguous.then_some(true),
        candidate_count: ambiguous.then_some(r.defs.len()),
    };
    let mut s = with_payload(
        Success::new(
            verdict,
            format!("callees: '{function_name}' calls {total} function(s)"),
        ),
        &payload,
    )
    .with_list(
        ListSpelling {
            list_key: "callees",
            total_key: "callee_count",
            listed_key: "callees_listed",
            cap_key: "listed_cap",
            noun: "callees",
            remedy: "raise limit".into(),
        },
        listed,
    )
    .with_next_step(follow_up);
    if let Some(w) = r.built_now {
        s = s.with_warning(w);
    }
    Ok(bodies.warn(s))
}

impl Action for Callees {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "callees";
    const SUMMARY: &'static str = "what a function calls (each call bound to a definition or classed stdlib/builtin/external/unknown)";
    const BRIEF: &'static str = "what a function calls";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("symbol", "function_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        if matches!(args.scope, Some(Scope::Graph)) {
            return run_graph(
                ctx,
                &args.function_name,
                args.file_path.as_deref(),
                args.depth,
                args.limit,
                Dir::Down,
            );
        }
        if args.depth.is_some() {
            return Err(ToolError::Validation(
                "parameter 'depth' applies to scope=graph only".into(),
            ));
        }
        let limit = cap("limit", args.limit, DEFAULT_LIMIT)?;
        match find_callees(ctx, &args.function_name, args.file_path.as_deref(), limit)? {
            CalleesLookup::Found(r) => callees_answer(
                ctx,
                *r,
                &args.function_name,
                args.include_bodies.unwrap_or_default(),
            ),
            CalleesLookup::Missing(s) => Ok(s),
        }
    }
}
