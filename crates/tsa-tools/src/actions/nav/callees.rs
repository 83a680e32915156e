//! `nav callees`: what a function calls, each call with its resolution.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::graph::Dir;
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{
    Targets, callee_full, cap, definitions_json, find_targets, open_index,
};
use crate::actions::nav::callers::{BODY_NOTE, Scope, run_graph};
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
    /// Most callees to list (>= 1, default 50; with scope=graph, most nodes and edges, default 100). The exact total is always reported.
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
}

pub struct Callees;

impl Action for Callees {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "callees";
    const SUMMARY: &'static str = "what a function calls (each call bound to a definition or classed stdlib/builtin/external/unknown)";
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
        let limit = cap("limit", args.limit, 50)?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs = match find_targets(
            ctx,
            index,
            "callees",
            &args.function_name,
            args.file_path.as_deref(),
        )? {
            Targets::Found(d) => d,
            Targets::Missing(s) => return Ok(s),
        };
        let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
        let mut seen = HashSet::new();
        let rows: Vec<_> = index
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
        let unknown = rows
            .iter()
            .filter(|r| r.resolution == tsa_index::Resolution::Unknown)
            .count();
        let total = rows.len();
        let capped = Capped::collect(rows, limit);
        let mut bodies = Bodies::new(
            ctx.root()?,
            BodyBudget {
                rows: 12,
                lines_each: 40,
                lines_total: 320,
            },
        );
        let listed = capped.map(|r| {
            let mut row = json!({
                "name": r.callee_name,
                "callee_full": callee_full(&r),
                "file": r.target.as_ref().map(|t| t.file.clone()).unwrap_or_else(|| r.file.clone()),
                "line": r.line,
                "language": r.language,
                "callee_resolution": r.resolution.as_str(),
                "callee_resolved_file": r.target.as_ref().map(|t| t.file.clone()).unwrap_or_default(),
                "confidence": r.confidence,
            });
            if let Some(p) = &r.package {
                row["package"] = json!(p);
            }
            if let Some(t) = &r.target {
                row["qualified_name"] = json!(t.qualname);
                row["definition_line"] = json!(t.line);
                if let Some(b) = bodies.body(&t.qualname, &t.file, t.line, t.end_line) {
                    row["body"] = b;
                }
            }
            row
        });
        let verdict = if total > 0 {
            Verdict::Info
        } else {
            Verdict::NotFound
        };
        let follow_up = if total == 0 {
            format!(
                "'{}' makes no calls the index knows of.",
                args.function_name
            )
        } else if bodies.any() {
            BODY_NOTE.to_owned()
        } else {
            "Review callees above, then nav action=callers to see who else depends on them."
                .to_owned()
        };
        let mut s = Success::new(verdict, format!("callees: '{}' calls {} function(s)", args.function_name, total))
            .with("data_source", "sql")
            .with("scope", args.scope.map_or("point", |s| s.as_str()))
            .with("function", args.function_name.as_str())
            .with("definitions", definitions_json(&defs))
            .with_list(
                ListSpelling {
                    list_key: "callees",
                    total_key: "callee_count",
                    listed_key: "callees_listed",
                    cap_key: "listed_cap",
                    noun: "callees",
                    remedy: "raise limit, or qualify with ClassName.method to narrow (dynamic-dispatch names like 'execute' have huge fan-out)".into(),
                },
                listed,
            )
            .with("unresolved_callees", unknown)
            .with_next_step(follow_up);
        if defs.len() > 1 {
            s = s
                .with("ambiguous", true)
                .with("candidate_count", defs.len());
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
