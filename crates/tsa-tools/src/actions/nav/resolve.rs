//! `nav resolve`: what a name refers to (every definition with qualified name, kind,
//! signature and place), or the call sites bound to it.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{Targets, cap, find_targets, fixed_cap, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// What to answer.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The definitions (default).
    Resolve,
    /// The call sites bound to them.
    References,
}

/// Arguments of `nav resolve`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Name to resolve; `ClassName.method` (or `Type::method`) narrows.
    pub symbol: String,
    /// `resolve` (definitions, default) or `references` (bound call sites).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Project-relative file, to resolve only definitions in it.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Most rows to list (default 50). The exact total is always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Resolve;

impl Action for Resolve {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "resolve";
    const SUMMARY: &'static str = "resolve a name to its definitions (qualified name, kind, signature, place) or the call sites bound to them";
    const BRIEF: &'static str = "name to definitions or call sites";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 50)?;
        let mode = args.mode.unwrap_or(Mode::Resolve);
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs = match find_targets(
            ctx,
            index,
            "resolve",
            &args.symbol,
            args.file_path.as_deref(),
        )? {
            Targets::Found(d) => d,
            Targets::Missing(s) => return Ok(s.with("symbol", args.symbol.as_str())),
        };
        let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
        let sites = index.callers(&ids)?;
        let mut per_def: HashMap<i64, usize> = HashMap::new();
        for r in &sites {
            if let Some(t) = &r.target {
                *per_def.entry(t.id).or_insert(0) += 1;
            }
        }
        let parents = index.parents_of(&ids)?;
        let parent_rows = index.symbols_by_id(&parents.values().copied().collect::<Vec<_>>())?;
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "resolve: '{}' -> {} definition(s), {} bound call site(s)",
                args.symbol,
                defs.len(),
                sites.len()
            ),
        )
        .with("symbol", args.symbol.as_str())
        .with(
            "mode",
            if mode == Mode::Resolve {
                "resolve"
            } else {
                "references"
            },
        )
        .with("resolved", defs.len() == 1)
        .with("ambiguous", defs.len() > 1);
        let rows: Vec<Value> = defs
            .iter()
            .map(|d| {
                let mut v = json!({
                    "name": d.name,
                    "qualified_name": d.qualname,
                    "kind": d.kind,
                    "owner": d.owner,
                    "file": d.file,
                    "line": d.line,
                    "end_line": d.end_line,
                    "language": d.language,
                    "signature": d.signature,
                    "is_test": d.is_test,
                    "call_sites": per_def.get(&d.id).copied().unwrap_or(0),
                });
                if let Some(p) = parents.get(&d.id).and_then(|p| parent_rows.get(p)) {
                    v["parent"] =
                        json!({"qualified_name": p.qualname, "kind": p.kind, "line": p.line});
                }
                v
            })
            .collect();
        let def_cap = if mode == Mode::Resolve {
            limit
        } else {
            fixed_cap(20)
        };
        s = s.with_list(
            ListSpelling {
                list_key: "definitions",
                total_key: "definition_count",
                listed_key: "definitions_listed",
                cap_key: "definitions_cap",
                noun: "definitions",
                remedy: "narrow with file_path or ClassName.method".into(),
            },
            Capped::collect(rows, def_cap),
        );
        if mode == Mode::References {
            let total = sites.len();
            let refs: Vec<Value> = sites
                .iter()
                .map(|r| {
                    json!({
                        "file": r.file,
                        "line": r.line,
                        "caller": r.caller.as_ref().map_or("<module>".to_owned(), |c| c.qualname.clone()),
                        "in_test": r.caller.as_ref().is_some_and(|c| c.is_test),
                        "target": r.target.as_ref().map(|t| t.qualname.clone()),
                        "target_file": r.target.as_ref().map(|t| t.file.clone()),
                        "resolution": r.resolution.as_str(),
                        "confidence": r.confidence,
                    })
                })
                .collect();
            s = s
                .with_list(
                    ListSpelling {
                        list_key: "references",
                        total_key: "reference_count",
                        listed_key: "references_listed",
                        cap_key: "listed_cap",
                        noun: "call sites",
                        remedy: "raise limit, or narrow with file_path / ClassName.method".into(),
                    },
                    Capped::collect(refs, limit),
                )
                .with_next_step(if total == 0 {
                    "No call site is bound to it; nav action=callers reports unresolved sites with the same name."
                } else {
                    "nav action=navigate shows the definition body and hierarchy."
                });
        } else {
            s = s.with_next_step(if defs.len() > 1 {
                "Several definitions: pass file_path or ClassName.method to the next nav call."
            } else {
                "nav action=resolve mode=references lists the call sites bound to it."
            });
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
