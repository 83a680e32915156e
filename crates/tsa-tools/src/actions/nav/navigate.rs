//! `nav navigate`: go to a definition (body inlined), its references (bound call
//! sites, imports, subtypes) and its type hierarchy (bases and subtypes to `depth`).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::graph::{Definition, definitions, depth_param};
use tsa_analysis::navigate::{HierarchyFor, Reference, hierarchies, references};
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_analysis::trust::{Assessor, Trust};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;

use crate::action::Action;
use crate::actions::common::{Targets, cap, find_targets, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// What to show.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Definition,
    References,
    Hierarchy,
    /// All three (default).
    Full,
}

/// Arguments of `nav navigate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Symbol to go to; `ClassName.method` narrows.
    pub symbol: String,
    /// `definition`, `references`, `hierarchy` or `full` (default).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Project-relative file defining it (picks one of several definitions).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Hierarchy levels up (bases) and down (subtypes), default 2, at most 10.
    #[serde(default)]
    #[schemars(range(min = 1, max = 10))]
    pub depth: Option<i64>,
    /// Most references to list (default 50). The exact total is always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Navigate;

/// The payload of `nav navigate`, in answer order (definitions, with a body, and
/// references follow as lists; the trust fields after it).
#[derive(Clone, Debug, Serialize)]
pub struct NavigatePayload<'a> {
    /// The symbol as asked.
    pub symbol: &'a str,
    /// The mode shown.
    pub mode: &'static str,
    /// The definitions, in the modes that list no bodies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definitions: Option<Vec<Definition>>,
    /// With references: files holding one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub referencing_files: Option<usize>,
    /// With references: call sites of the name left unbound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved_call_sites: Option<u64>,
    /// With hierarchy: one per definition (at most five).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hierarchy: Option<Vec<HierarchyFor>>,
    /// With hierarchy: the levels walked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// With references: why the verdict is what it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict_basis: Option<Vec<String>>,
}

/// A definition with its inlined body.
#[derive(Clone, Debug, Serialize)]
pub struct DefinitionRow {
    /// The definition.
    #[serde(flatten)]
    pub definition: Definition,
    /// Its source, while the budget lasts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Definition => "definition",
        Mode::References => "references",
        Mode::Hierarchy => "hierarchy",
        Mode::Full => "full",
    }
}

/// The definitions list with bodies (modes definition and full).
fn with_bodies(ctx: &Context, s: Success, defs: &[SymbolRow]) -> Result<Success, ToolError> {
    let mut bodies = Bodies::new(
        ctx.root()?,
        BodyBudget {
            rows: 5,
            lines_each: 80,
            lines_total: 240,
        },
    );
    let rows = definitions(defs)
        .into_iter()
        .zip(defs)
        .map(|(definition, d)| {
            to_value(&DefinitionRow {
                definition,
                body: bodies.body(&d.qualname, &d.file, d.line, d.end_line),
            })
        });
    let rows: Vec<Value> = rows.collect();
    let s = s.with_list(
        ListSpelling {
            list_key: "definitions",
            total_key: "definition_count",
            listed_key: "definitions_listed",
            cap_key: "definitions_cap",
            noun: "definitions",
            remedy: "narrow with file_path or ClassName.method".into(),
        },
        Capped::collect(rows, crate::actions::common::fixed_cap(20)),
    );
    Ok(bodies.warn(s))
}

/// The next step for the mode and what was found.
fn next_step(mode: Mode, defs: usize, ref_total: usize, trust: Option<&Trust>) -> String {
    match mode {
        Mode::Definition => "nav action=navigate mode=references lists who uses it.".to_owned(),
        _ if defs > 1 => format!(
            "{defs} definitions share this name; re-run with file_path or ClassName.method to narrow"
        ),
        _ if ref_total == 0 && trust.is_some_and(|t| !t.settled()) => {
            format!(
                "No resolved reference, but the graph cannot rule callers out ({}): nav action=callers lists the unresolved call sites.",
                trust.map(|t| t.basis().join("; ")).unwrap_or_default()
            )
        }
        _ if ref_total == 0 && matches!(mode, Mode::References | Mode::Full) => {
            "No resolved reference: it may be an entry point, unused, or only called dynamically.".to_owned()
        }
        _ => "nav action=caller_tree shows callers transitively; nav action=impact scores the risk of changing it.".to_owned(),
    }
}

impl Action for Navigate {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "navigate";
    const SUMMARY: &'static str =
        "go to definition (body inlined), references (calls, imports, subtypes) and type hierarchy";
    const BRIEF: &'static str = "definition, references, hierarchy";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::Full);
        let (depth, clamped) = depth_param("depth", args.depth, 2, 10)?;
        let limit = cap("limit", args.limit, 50)?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs = match find_targets(
            ctx,
            index,
            "navigate",
            &args.symbol,
            args.file_path.as_deref(),
        )? {
            Targets::Found(d) => d,
            Targets::Missing(s) => return Ok(s.with("symbol", args.symbol.as_str())),
        };
        let want_refs = matches!(mode, Mode::References | Mode::Full);
        let refs = if want_refs {
            references(index, &defs)?
        } else {
            Vec::new()
        };
        let trust = if want_refs {
            Some(Assessor::new(index, ctx.root()?).assess(&defs, 0)?)
        } else {
            None
        };
        let with_defs = matches!(mode, Mode::Definition | Mode::Full);
        let want_hierarchy = matches!(mode, Mode::Hierarchy | Mode::Full);
        let payload = NavigatePayload {
            symbol: &args.symbol,
            mode: mode_name(mode),
            definitions: (!with_defs).then(|| definitions(&defs)),
            referencing_files: want_refs.then(|| {
                refs.iter()
                    .map(Reference::file)
                    .collect::<BTreeSet<_>>()
                    .len()
            }),
            unresolved_call_sites: trust.as_ref().map(|t| t.open.total),
            hierarchy: if want_hierarchy {
                Some(hierarchies(index, &defs, depth)?)
            } else {
                None
            },
            depth: want_hierarchy.then_some(depth),
            verdict_basis: trust.as_ref().map(Trust::basis),
        };
        let mut s = with_payload(
            Success::new(
                Verdict::Info,
                format!("navigate: '{}' — {} definition(s)", args.symbol, defs.len()),
            ),
            &payload,
        );
        if with_defs {
            s = with_bodies(ctx, s, &defs)?;
        }
        let ref_total = refs.len();
        if want_refs {
            s = s.with_list(
                ListSpelling {
                    list_key: "references",
                    total_key: "reference_count",
                    listed_key: "references_listed",
                    cap_key: "listed_cap",
                    noun: "references",
                    remedy: "raise limit, or narrow with file_path / ClassName.method".into(),
                },
                Capped::collect(refs.iter().map(to_value), limit),
            );
        }
        s = s.with_next_step(next_step(mode, defs.len(), ref_total, trust.as_ref()));
        if let Some(t) = &trust {
            s = t.annotate(s);
        }
        if let Some(w) = clamped {
            s = s.with_warning(w);
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
