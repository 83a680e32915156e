//! `nav resolve`: what a name refers to (every definition with qualified name, kind,
//! signature and place), or the call sites bound to it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::resolve;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{
    Targets, cap, find_targets, fixed_cap, open_index, to_value, with_payload,
};
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

/// The keys of a `nav resolve` answer before its lists.
#[derive(Serialize)]
pub struct ResolvePayload {
    /// The name as asked.
    pub symbol: String,
    /// `resolve` or `references`.
    pub mode: &'static str,
    /// Exactly one definition.
    pub resolved: bool,
    /// Several definitions.
    pub ambiguous: bool,
}

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
        let r = resolve::resolve(index, &defs)?;
        let payload = ResolvePayload {
            symbol: args.symbol.clone(),
            mode: if mode == Mode::Resolve {
                "resolve"
            } else {
                "references"
            },
            resolved: defs.len() == 1,
            ambiguous: defs.len() > 1,
        };
        let s = Success::new(
            Verdict::Info,
            format!(
                "resolve: '{}' -> {} definition(s), {} bound call site(s)",
                args.symbol,
                defs.len(),
                r.references.len()
            ),
        );
        let mut s = with_payload(s, &payload);
        let rows: Vec<Value> = r.definitions.iter().map(to_value).collect();
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
            let total = r.references.len();
            let refs: Vec<Value> = r.references.iter().map(to_value).collect();
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
