//! `structure class_tree`: the inheritance tree of a class from the index's resolved
//! bases — superclasses (up), subclasses (down), both, or the blast radius of a
//! change to it; without a class, a project summary of its hierarchies.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::class_tree::{self, Down, impact_level};
use tsa_analysis::hierarchy::TypeRef;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::Index;

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, open_index, to_value, with_payload};
use crate::actions::structure::common::find_types;
use crate::{Context, ToolError};

const MAX_ROWS: usize = 200;

/// Which part of the hierarchy to show.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Types that extend or implement the class, transitively.
    Subclasses,
    /// The class's bases, transitively (unresolved bases listed as leaves).
    Superclasses,
    /// Same as `superclasses`.
    Supers,
    /// Superclasses and subclasses (default with a class).
    Tree,
    /// Subclasses and the files they live in, with a risk verdict for changing the class.
    Impact,
    /// Tree and impact together.
    All,
    /// Project-wide: the largest hierarchies (default without a class).
    Summary,
}

/// Arguments of `structure class_tree`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The class (or struct, trait, interface); `Outer.Inner` qualifies. Omit for the summary.
    #[serde(default)]
    pub class_name: Option<String>,
    /// `subclasses`, `superclasses`/`supers`, `tree`, `impact`, `all` or `summary`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Levels to walk (>= 1, default 10).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_depth: Option<i64>,
}

pub struct ClassTree;

/// The payload of `structure class_tree` without a class (the lists follow).
#[derive(Clone, Debug, Serialize)]
pub struct SummaryPayload {
    /// Always `summary`.
    pub mode: &'static str,
    /// Inheritance edges in the index.
    pub inheritance_edges: usize,
    /// Of which resolved to a project type.
    pub resolved_edges: usize,
    /// Of which left unbound.
    pub unresolved_edges: usize,
}

/// The payload of `structure class_tree` about one class (the lists follow).
#[derive(Clone, Debug, Serialize)]
pub struct TreePayload<'a> {
    /// The class as asked.
    pub class_name: &'a str,
    /// The mode shown.
    pub mode: &'static str,
    /// Levels walked.
    pub max_depth: usize,
    /// The definitions of the class.
    pub definitions: Vec<TypeRef>,
    /// Subclasses matched by base name only, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_only_subclasses: Option<usize>,
    /// Present (true) when subclasses continue below max_depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_limited: Option<bool>,
    /// With impact: the risk of changing the class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
}

fn summary(index: &Index, max_depth: usize) -> Result<Success, ToolError> {
    let s = class_tree::summary(index, max_depth)?;
    let payload = SummaryPayload {
        mode: "summary",
        inheritance_edges: s.edges,
        resolved_edges: s.resolved,
        unresolved_edges: s.edges - s.resolved,
    };
    Ok(with_payload(
        Success::new(
            Verdict::Info,
            format!(
                "class_tree summary: {} project types have subtypes; {} inheritance edges ({} resolved)",
                s.hierarchies.len(),
                s.edges,
                s.resolved
            ),
        ),
        &payload,
    )
    .with_list(
        ListSpelling {
            list_key: "hierarchies",
            total_key: "hierarchy_count",
            listed_key: "hierarchies_listed",
            cap_key: "listed_cap",
            noun: "hierarchies",
            remedy: "ask about one class with class_name".into(),
        },
        Capped::collect(s.hierarchies.iter().map(to_value), fixed_cap(MAX_ROWS)),
    )
    .with_list(
        ListSpelling {
            list_key: "unresolved_bases",
            total_key: "unresolved_base_count",
            listed_key: "unresolved_bases_listed",
            cap_key: "unresolved_bases_cap",
            noun: "unresolved base names",
            remedy: "bases the resolver could not bind (libraries, or names it could not place)".into(),
        },
        Capped::collect(s.unresolved_bases.iter().map(to_value), fixed_cap(50)),
    )
    .with_next_step("ask about one class with class_name=<name> (mode tree, subclasses, superclasses or impact)"))
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Subclasses => "subclasses",
        Mode::Superclasses | Mode::Supers => "superclasses",
        Mode::Tree => "tree",
        Mode::Impact => "impact",
        Mode::All => "all",
        Mode::Summary => "summary",
    }
}

/// The answer about one class: its bases, subtypes and, with impact, the risk.
fn one_class(
    index: &Index,
    name: &str,
    mode: Mode,
    max_depth: usize,
) -> Result<Success, ToolError> {
    let types = match find_types(index, "class_tree", name, None)? {
        Ok(t) => t,
        Err(miss) => return Ok(miss),
    };
    let ids: Vec<i64> = types.iter().map(|t| t.id).collect();
    let want_up = matches!(
        mode,
        Mode::Superclasses | Mode::Supers | Mode::Tree | Mode::All
    );
    let want_down = !matches!(mode, Mode::Superclasses | Mode::Supers);
    let want_impact = matches!(mode, Mode::Impact | Mode::All);
    let mode_name = mode_name(mode);
    let up = if want_up {
        class_tree::supers(index, &ids, max_depth)?
    } else {
        Vec::new()
    };
    let down = if want_down {
        class_tree::subs(index, &types, max_depth)?
    } else {
        Down::default()
    };
    let mut parts = Vec::new();
    if want_up {
        parts.push(format!("{} bases", up.len()));
    }
    if want_down {
        parts.push(format!("{} subclasses", down.rows.len()));
    }
    let level = impact_level(down.found.len());
    let verdict = if want_impact {
        Verdict::from_impact(level)
    } else {
        Verdict::Info
    };
    let payload = TreePayload {
        class_name: name,
        mode: mode_name,
        max_depth,
        definitions: types.iter().map(class_tree::type_ref).collect(),
        name_only_subclasses: (down.name_only > 0).then_some(down.name_only),
        depth_limited: down.cut.then_some(true),
        risk: want_impact.then(|| format!("{level:?}").to_lowercase()),
    };
    let mut s = with_payload(
        Success::new(
            verdict,
            format!("class_tree {name} ({mode_name}): {}", parts.join(", ")),
        ),
        &payload,
    );
    if down.name_only > 0 {
        s = s.with_warning(format!(
            "{} subclasses name the class but their base was not resolved (resolution name_only): they may mean another type of that name",
            down.name_only
        ));
    }
    if down.cut {
        s = s.with_warning(format!(
            "subclasses continue below max_depth {max_depth}; raise max_depth to see them"
        ));
    }
    if want_up {
        s = s.with_list(
            ListSpelling {
                list_key: "superclasses",
                total_key: "superclass_count",
                listed_key: "superclasses_listed",
                cap_key: "superclasses_cap",
                noun: "bases",
                remedy: "lower max_depth".into(),
            },
            Capped::collect(up.iter().map(to_value), fixed_cap(MAX_ROWS)),
        );
    }
    if want_down {
        s = s.with_list(
            ListSpelling {
                list_key: "subclasses",
                total_key: "subclass_count",
                listed_key: "subclasses_listed",
                cap_key: "subclasses_cap",
                noun: "subclasses",
                remedy: "lower max_depth, or ask about a subclass".into(),
            },
            Capped::collect(down.rows.iter().map(to_value), fixed_cap(MAX_ROWS)),
        );
    }
    if !want_impact {
        return Ok(s.with_next_step(format!(
            "members and inherited members: structure action=class_detail class_name={name}"
        )));
    }
    let mut files: Vec<&str> = down.found.iter().map(|s| s.file.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    Ok(s.with_list(
        ListSpelling {
            list_key: "affected_files",
            total_key: "affected_file_count",
            listed_key: "affected_files_listed",
            cap_key: "affected_files_cap",
            noun: "files",
            remedy: "lower max_depth".into(),
        },
        Capped::collect(files.into_iter().map(Value::from), fixed_cap(MAX_ROWS)),
    )
    .with_next_step(if down.found.is_empty() {
        format!("nothing in the project extends {name}: a change stays inside it (callers aside: nav action=callers)")
    } else {
        format!(
            "a change to {name} reaches {} subclasses; check overrides with structure action=class_detail",
            down.found.len()
        )
    }))
}

impl Action for ClassTree {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "class_tree";
    const SUMMARY: &'static str = "inheritance tree from resolved bases: subclasses, superclasses, tree, impact (risk of changing a base), all; without class_name a project summary (max_depth)";
    const BRIEF: &'static str = "inheritance tree";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("symbol", "class_name")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_depth = cap("max_depth", args.max_depth, 10)?.get();
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let class = args
            .class_name
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let mode = match (args.mode, class) {
            (Some(m), _) => m,
            (None, Some(_)) => Mode::Tree,
            (None, None) => Mode::Summary,
        };
        let mut out = match (mode, class) {
            (Mode::Summary, _) => summary(index, max_depth)?,
            (_, None) => {
                return Err(ToolError::Validation(
                    "class_tree needs class_name for this mode (omit mode, or use mode=summary, for the project summary)".into(),
                ));
            }
            (mode, Some(name)) => one_class(index, name, mode, max_depth)?,
        };
        if let Some(w) = opened.built_now {
            out = out.with_warning(w);
        }
        Ok(out)
    }
}
