//! `nav navigate`: go to a definition (body inlined), its references (bound call
//! sites, imports, subtypes) and its type hierarchy (bases and subtypes to `depth`).

use std::collections::{BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsa_analysis::graph::depth_param;
use tsa_analysis::hierarchy::{Hierarchy, hierarchy};
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_analysis::trust::Assessor;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{Index, SymbolRow};

use crate::action::Action;
use crate::actions::common::{Targets, cap, definitions_json, find_targets, open_index, to_value};
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

/// References to `defs`: bound call sites, imports, and declared subtypes.
pub(crate) fn references(index: &Index, defs: &[SymbolRow]) -> Result<Vec<Value>, ToolError> {
    let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let mut out = Vec::new();
    for r in index.callers(&ids)? {
        let mut v = json!({
            "kind": "call",
            "file": r.file,
            "line": r.line,
            "resolution": r.resolution.as_str(),
            "confidence": r.confidence,
        });
        match &r.caller {
            Some(c) => {
                v["in"] = json!(c.qualname);
                v["in_test"] = json!(c.is_test);
            }
            None => v["in"] = json!("<module>"),
        }
        if let Some(t) = &r.target {
            v["target"] = json!(t.qualname);
        }
        out.push(v);
    }
    for d in defs {
        for i in index.importers_of_symbol(d.id)? {
            out.push(json!({
                "kind": "import",
                "file": i.file,
                "line": i.line,
                "module": i.module,
                "alias": i.alias,
                "resolution": i.resolution.as_str(),
                "target": d.qualname,
            }));
        }
    }
    for i in index.subtypes_of(&ids)? {
        out.push(json!({
            "kind": i.kind,
            "file": i.symbol.file,
            "line": i.symbol.line,
            "in": i.symbol.qualname,
            "resolution": i.resolution.as_str(),
            "target": i.target.as_ref().map(|t| t.qualname.clone()),
        }));
    }
    Ok(out)
}

/// A hierarchy with the definition it was asked for.
#[derive(Serialize)]
struct HierarchyFor {
    /// The hierarchy.
    #[serde(flatten)]
    hierarchy: Hierarchy,
    /// Qualified name of the definition.
    #[serde(rename = "for")]
    of: String,
    /// Its file.
    file: String,
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
        let mode_name = match mode {
            Mode::Definition => "definition",
            Mode::References => "references",
            Mode::Hierarchy => "hierarchy",
            Mode::Full => "full",
        };
        let mut s = Success::new(
            Verdict::Info,
            format!("navigate: '{}' — {} definition(s)", args.symbol, defs.len()),
        )
        .with("symbol", args.symbol.as_str())
        .with("mode", mode_name);
        if matches!(mode, Mode::Definition | Mode::Full) {
            let mut bodies = Bodies::new(
                ctx.root()?,
                BodyBudget {
                    rows: 5,
                    lines_each: 80,
                    lines_total: 240,
                },
            );
            let rows: Vec<Value> = match definitions_json(&defs) {
                Value::Array(a) => a
                    .into_iter()
                    .zip(&defs)
                    .map(|(mut v, d)| {
                        if let Some(b) = bodies.body(&d.qualname, &d.file, d.line, d.end_line) {
                            v["body"] = b;
                        }
                        v
                    })
                    .collect(),
                _ => Vec::new(),
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
                Capped::collect(rows, crate::actions::common::fixed_cap(20)),
            );
            s = bodies.warn(s);
        } else {
            s = s.with("definitions", definitions_json(&defs));
        }
        let mut ref_total = 0;
        let mut trust = None;
        if matches!(mode, Mode::References | Mode::Full) {
            let refs = references(index, &defs)?;
            ref_total = refs.len();
            let files: BTreeSet<String> = refs
                .iter()
                .filter_map(|r| r["file"].as_str().map(str::to_owned))
                .collect();
            let t = Assessor::new(index, ctx.root()?).assess(&defs, 0)?;
            let unresolved = t.open.total;
            trust = Some(t);
            s = s
                .with_list(
                    ListSpelling {
                        list_key: "references",
                        total_key: "reference_count",
                        listed_key: "references_listed",
                        cap_key: "listed_cap",
                        noun: "references",
                        remedy: "raise limit, or narrow with file_path / ClassName.method".into(),
                    },
                    Capped::collect(refs, limit),
                )
                .with("referencing_files", files.len())
                .with("unresolved_call_sites", unresolved);
        }
        if matches!(mode, Mode::Hierarchy | Mode::Full) {
            let mut h = Vec::new();
            let mut by_type: HashMap<i64, ()> = HashMap::new();
            for d in defs.iter().take(5) {
                if by_type.insert(d.id, ()).is_none() {
                    h.push(to_value(&HierarchyFor {
                        hierarchy: hierarchy(index, d, depth)?,
                        of: d.qualname.clone(),
                        file: d.file.clone(),
                    }));
                }
            }
            s = s.with("hierarchy", Value::Array(h)).with("depth", depth);
        }
        let step = match mode {
            Mode::Definition => "nav action=navigate mode=references lists who uses it.".to_owned(),
            _ if defs.len() > 1 => format!(
                "{} definitions share this name; re-run with file_path or ClassName.method to narrow",
                defs.len()
            ),
            _ if ref_total == 0
                && trust.as_ref().is_some_and(|t: &tsa_analysis::trust::Trust| !t.settled()) =>
            {
                format!(
                    "No resolved reference, but the graph cannot rule callers out ({}): nav action=callers lists the unresolved call sites.",
                    trust.as_ref().map(|t| t.basis().join("; ")).unwrap_or_default()
                )
            }
            _ if ref_total == 0 && matches!(mode, Mode::References | Mode::Full) => {
                "No resolved reference: it may be an entry point, unused, or only called dynamically.".to_owned()
            }
            _ => "nav action=caller_tree shows callers transitively; nav action=impact scores the risk of changing it.".to_owned(),
        };
        s = s.with_next_step(step);
        if let Some(t) = &trust {
            s = t.annotate(s.with("verdict_basis", json!(t.basis())));
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
