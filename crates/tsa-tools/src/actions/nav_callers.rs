//! `nav callers`: who calls a function, from call edges bound to its definition.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::CallRow;

use super::common::{Targets, cap, definitions_json, find_targets, open_index};
use crate::action::Action;
use crate::source::{Bodies, BodyBudget};
use crate::{Context, ToolError};

/// Arguments of `nav callers`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Function or method name; `ClassName.method` (or `Type::method`) narrows to one type.
    pub function_name: String,
    /// Project-relative file that defines the function, to pick one of several definitions.
    #[serde(default)]
    pub file_path: Option<String>,
    /// Most callers to list (>= 1, default 50). The exact total is always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// Only `point` (direct callers) in this build.
    #[serde(default)]
    pub scope: Option<Scope>,
}

/// The traversal scope.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Direct callers.
    Point,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Point => "point",
        }
    }
}

pub struct Callers;

pub(super) const BODY_NOTE: &str = "Each caller/callee's source body is inlined under 'body' — answer directly, no Read needed. Coordinate-only entries beyond the top-N can be Read on demand.";

impl Action for Callers {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "callers";
    const SUMMARY: &'static str =
        "who calls a function (exact count, capped list, bodies inlined, resolution per edge)";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("symbol", "function_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 50)?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs = match find_targets(
            ctx,
            index,
            "callers",
            &args.function_name,
            args.file_path.as_deref(),
        )? {
            Targets::Found(d) => d,
            Targets::Missing(s) => return Ok(s),
        };
        let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
        let rows = index.callers(&ids)?;
        // One row per calling definition; its call lines are kept together.
        let mut slot: HashMap<i64, usize> = HashMap::new();
        let mut unattributed = 0usize;
        let mut attributed: Vec<(CallRow, Vec<u32>)> = Vec::new();
        for r in rows {
            let Some(caller) = &r.caller else {
                unattributed += 1;
                continue;
            };
            match slot.get(&caller.id) {
                Some(&i) => attributed[i].1.push(r.line),
                None => {
                    slot.insert(caller.id, attributed.len());
                    let line = r.line;
                    attributed.push((r, vec![line]));
                }
            }
        }
        let call_sites: usize = attributed.iter().map(|(_, l)| l.len()).sum();
        // Production callers first, then tests; each group by file and line.
        attributed.sort_by(|(a, al), (b, bl)| {
            let key = |r: &CallRow| r.caller.as_ref().is_some_and(|c| c.is_test);
            key(a)
                .cmp(&key(b))
                .then_with(|| a.file.cmp(&b.file))
                .then(al[0].cmp(&bl[0]))
        });
        let mut languages: Vec<&str> = defs.iter().map(|d| d.language.as_str()).collect();
        languages.sort_unstable();
        languages.dedup();
        let name = defs[0].name.clone();
        let mut unresolved = 0u64;
        for l in &languages {
            unresolved += index.unresolved_sites(&name, l)?;
        }
        let total = attributed.len();
        let capped = Capped::collect(attributed, limit);
        let root = ctx.root()?;
        let mut bodies = Bodies::new(
            root,
            BodyBudget {
                rows: 12,
                lines_each: 40,
                lines_total: 320,
            },
        );
        let listed = capped.map(|(r, lines)| {
            let c = r.caller.as_ref().expect("attributed rows have a caller");
            let mut row = json!({
                "name": c.name,
                "qualified_name": c.qualname,
                "kind": c.kind,
                "file": r.file,
                "line": r.line,
                "language": r.language,
                "callee_resolution": r.resolution.as_str(),
                "callee_resolved_file": r.target.as_ref().map(|t| t.file.clone()).unwrap_or_default(),
                "confidence": r.confidence,
            });
            if lines.len() > 1 {
                row["call_lines"] = json!(lines);
            }
            if let Some(b) = bodies.body(&c.qualname, &c.file, c.line, c.end_line) {
                row["body"] = b;
            }
            row
        });
        let ambiguous = defs.len() > 1;
        let verdict = if total > 0 {
            Verdict::Info
        } else {
            Verdict::NotFound
        };
        let follow_up = if total == 0 {
            format!(
                "No call site is bound to '{}'. {}",
                args.function_name,
                if unresolved > 0 {
                    "Unresolved call sites with this name exist (see unresolved_call_sites); inspect them with search action=symbol or nav action=callees on likely callers."
                } else {
                    "It may be an entry point or unused."
                }
            )
        } else if ambiguous {
            format!(
                "{} definitions share this name; re-run with file_path or ClassName.method to narrow. {}",
                defs.len(),
                if bodies.any() { BODY_NOTE } else { "" }
            )
        } else if bodies.any() {
            BODY_NOTE.to_owned()
        } else {
            "Review callers above, then nav action=callees on one of them to go deeper.".to_owned()
        };
        let mut s = Success::new(verdict, format!("callers: '{}' has {} caller(s)", args.function_name, total))
            .with("data_source", "sql")
            .with("scope", args.scope.map_or("point", Scope::as_str))
            .with("function", args.function_name.as_str())
            .with("definitions", definitions_json(&defs))
            .with_list(
                ListSpelling {
                    list_key: "callers",
                    total_key: "caller_count",
                    listed_key: "callers_listed",
                    cap_key: "listed_cap",
                    noun: "callers",
                    remedy: "raise limit, or qualify with ClassName.method to narrow (dynamic-dispatch names like 'execute' have huge fan-in)".into(),
                },
                listed,
            )
            .with("call_site_count", call_sites)
            .with("unattributed_call_sites", unattributed)
            .with("unresolved_call_sites", unresolved)
            .with("completeness", if unresolved == 0 { "complete" } else { "partial" })
            .with_next_step(follow_up)
            .with_agent("total_callers", total);
        if ambiguous {
            s = s
                .with("ambiguous", true)
                .with("candidate_count", defs.len());
        }
        if unresolved > 0 {
            s = s.with_warning(format!(
                "unresolved_call_sites: {unresolved} call site(s) named '{name}' could not be bound to a definition; some may be further callers"
            ));
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
