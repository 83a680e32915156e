//! `structure class_tree`: the inheritance tree of a class from the index's resolved
//! bases — superclasses (up), subclasses (down), both, or the blast radius of a
//! change to it; without a class, a project summary of its hierarchies.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::{Index, InheritRow, SymbolRow};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, open_index};
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

fn type_json(s: &SymbolRow) -> Value {
    json!({"name": s.name, "qualified_name": s.qualname, "kind": s.kind, "file": s.file, "line": s.line})
}

/// Walks resolved bases upward, level by level (one query per level).
fn supers(index: &Index, roots: &[i64], max_depth: usize) -> Result<Vec<Value>, ToolError> {
    let mut seen: HashSet<i64> = roots.iter().copied().collect();
    let mut frontier = roots.to_vec();
    let mut rows = Vec::new();
    for depth in 1..=max_depth {
        if frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for InheritRow {
            symbol,
            base_name,
            kind,
            target,
            resolution,
        } in index.bases_of(&frontier)?
        {
            let mut row = json!({
                "depth": depth,
                "class": symbol.qualname,
                "base": base_name,
                "relation": kind,
                "resolution": resolution.as_str(),
            });
            if let Some(t) = &target {
                row["base_qualified_name"] = json!(t.qualname);
                row["base_kind"] = json!(t.kind);
                row["file"] = json!(t.file);
                row["line"] = json!(t.line);
                if seen.insert(t.id) {
                    next.push(t.id);
                }
            }
            rows.push(row);
        }
        frontier = next;
    }
    Ok(rows)
}

/// Subtypes found by walking down: rows, the subtype symbols, whether the walk
/// stopped at max_depth, and how many were matched by name only.
struct Down {
    rows: Vec<Value>,
    found: Vec<SymbolRow>,
    cut: bool,
    name_only: usize,
}

/// Walks resolved subtypes downward; bases the resolver left unbound but which name
/// a type of the same language family are included, labelled `name_only`.
fn subs(index: &Index, roots: &[SymbolRow], max_depth: usize) -> Result<Down, ToolError> {
    let mut seen: HashSet<i64> = roots.iter().map(|r| r.id).collect();
    let mut frontier: Vec<SymbolRow> = roots.to_vec();
    let mut down = Down {
        rows: Vec::new(),
        found: Vec::new(),
        cut: false,
        name_only: 0,
    };
    let family = |l: &str| Language::from_name(l).map(|l| l.family());
    for depth in 1..=max_depth + 1 {
        if frontier.is_empty() {
            break;
        }
        let ids: Vec<i64> = frontier.iter().map(|t| t.id).collect();
        let mut level: Vec<(InheritRow, bool)> = index
            .subtypes_of(&ids)?
            .into_iter()
            .map(|r| (r, false))
            .collect();
        let mut names: Vec<(&str, &str)> = frontier
            .iter()
            .map(|t| (t.name.as_str(), t.language.as_str()))
            .collect();
        names.sort_unstable();
        names.dedup();
        for (name, lang) in names {
            for r in index.unresolved_subtypes_named(name)? {
                if family(&r.symbol.language) == family(lang) {
                    level.push((r, true));
                }
            }
        }
        if depth > max_depth {
            down.cut = level.iter().any(|(r, _)| !seen.contains(&r.symbol.id));
            break;
        }
        let mut next = Vec::new();
        for (r, name_only) in level {
            if !seen.insert(r.symbol.id) {
                continue;
            }
            let base = r
                .target
                .as_ref()
                .map(|t| t.qualname.clone())
                .unwrap_or(r.base_name.clone());
            let mut row = type_json(&r.symbol);
            row["depth"] = json!(depth);
            row["base"] = json!(base);
            row["relation"] = json!(r.kind);
            row["resolution"] = json!(if name_only {
                "name_only"
            } else {
                r.resolution.as_str()
            });
            if name_only {
                down.name_only += 1;
            }
            next.push(r.symbol.clone());
            down.found.push(r.symbol);
            down.rows.push(row);
        }
        frontier = next;
    }
    Ok(down)
}

fn impact_level(n: usize) -> ImpactLevel {
    match n {
        0 => ImpactLevel::None,
        1..=3 => ImpactLevel::Low,
        4..=10 => ImpactLevel::Medium,
        _ => ImpactLevel::High,
    }
}

fn summary(index: &Index, max_depth: usize) -> Result<Success, ToolError> {
    let bases = index.all_bases()?;
    let mut children: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut types: HashMap<i64, SymbolRow> = HashMap::new();
    let mut resolved = 0usize;
    let mut external: HashMap<String, usize> = HashMap::new();
    for r in &bases {
        types.insert(r.symbol.id, r.symbol.clone());
        match &r.target {
            Some(t) => {
                resolved += 1;
                types.insert(t.id, t.clone());
                children.entry(t.id).or_default().push(r.symbol.id);
            }
            None => *external.entry(r.base_name.clone()).or_default() += 1,
        }
    }
    let descendants = |root: i64| {
        let mut seen = HashSet::from([root]);
        let mut frontier = vec![root];
        let mut deepest = 0;
        for d in 1..=max_depth {
            let next: Vec<i64> = frontier
                .iter()
                .flat_map(|id| children.get(id).into_iter().flatten().copied())
                .filter(|c| seen.insert(*c))
                .collect();
            if next.is_empty() {
                break;
            }
            deepest = d;
            frontier = next;
        }
        (seen.len() - 1, deepest)
    };
    let mut rows: Vec<(usize, Value)> = children
        .keys()
        .filter_map(|id| types.get(id).map(|s| (id, s)))
        .map(|(id, s)| {
            let (total, depth) = descendants(*id);
            let mut row = type_json(s);
            row["direct_subclasses"] = json!(children[id].len());
            row["total_subclasses"] = json!(total);
            row["depth"] = json!(depth);
            (total, row)
        })
        .collect();
    rows.sort_by(|a, b| {
        b.0.cmp(&a.0).then_with(|| {
            a.1["qualified_name"]
                .as_str()
                .cmp(&b.1["qualified_name"].as_str())
        })
    });
    let mut ext: Vec<(String, usize)> = external.into_iter().collect();
    ext.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let n = rows.len();
    Ok(Success::new(
        Verdict::Info,
        format!(
            "class_tree summary: {n} project types have subtypes; {} inheritance edges ({resolved} resolved)",
            bases.len()
        ),
    )
    .with("mode", "summary")
    .with("inheritance_edges", bases.len())
    .with("resolved_edges", resolved)
    .with("unresolved_edges", bases.len() - resolved)
    .with_list(
        ListSpelling {
            list_key: "hierarchies",
            total_key: "hierarchy_count",
            listed_key: "hierarchies_listed",
            cap_key: "listed_cap",
            noun: "hierarchies",
            remedy: "ask about one class with class_name".into(),
        },
        Capped::collect(rows.into_iter().map(|r| r.1), fixed_cap(MAX_ROWS)),
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
        Capped::collect(
            ext.into_iter().map(|(b, c)| json!({"base": b, "uses": c})),
            fixed_cap(50),
        ),
    )
    .with_next_step("ask about one class with class_name=<name> (mode tree, subclasses, superclasses or impact)"))
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
            (mode, Some(name)) => {
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
                let mode_name = match mode {
                    Mode::Subclasses => "subclasses",
                    Mode::Superclasses | Mode::Supers => "superclasses",
                    Mode::Tree => "tree",
                    Mode::Impact => "impact",
                    Mode::All => "all",
                    Mode::Summary => "summary",
                };
                let mut parts = Vec::new();
                let up = if want_up {
                    supers(index, &ids, max_depth)?
                } else {
                    Vec::new()
                };
                let Down {
                    rows: down,
                    found,
                    cut,
                    name_only,
                } = if want_down {
                    subs(index, &types, max_depth)?
                } else {
                    Down {
                        rows: Vec::new(),
                        found: Vec::new(),
                        cut: false,
                        name_only: 0,
                    }
                };
                if want_up {
                    parts.push(format!("{} bases", up.len()));
                }
                if want_down {
                    parts.push(format!("{} subclasses", down.len()));
                }
                let verdict = if want_impact {
                    Verdict::from_impact(impact_level(found.len()))
                } else {
                    Verdict::Info
                };
                let mut s = Success::new(
                    verdict,
                    format!("class_tree {name} ({mode_name}): {}", parts.join(", ")),
                )
                .with("class_name", name)
                .with("mode", mode_name)
                .with("max_depth", max_depth)
                .with(
                    "definitions",
                    Value::Array(types.iter().map(type_json).collect()),
                );
                if name_only > 0 {
                    s = s.with("name_only_subclasses", name_only).with_warning(format!(
                        "{name_only} subclasses name the class but their base was not resolved (resolution name_only): they may mean another type of that name"
                    ));
                }
                if cut {
                    s = s.with("depth_limited", true).with_warning(format!(
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
                        Capped::collect(up, fixed_cap(MAX_ROWS)),
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
                        Capped::collect(down, fixed_cap(MAX_ROWS)),
                    );
                }
                if want_impact {
                    let mut files: Vec<&str> = found.iter().map(|s| s.file.as_str()).collect();
                    files.sort_unstable();
                    files.dedup();
                    let level = impact_level(found.len());
                    s = s
                        .with("risk", format!("{level:?}").to_lowercase())
                        .with_list(
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
                        .with_next_step(if found.is_empty() {
                            format!("nothing in the project extends {name}: a change stays inside it (callers aside: nav action=callers)")
                        } else {
                            format!("a change to {name} reaches {} subclasses; check overrides with structure action=class_detail", found.len())
                        });
                } else {
                    s = s.with_next_step(format!(
                        "members and inherited members: structure action=class_detail class_name={name}"
                    ));
                }
                s
            }
        };
        if let Some(w) = opened.built_now {
            out = out.with_warning(w);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impact_levels_grow_with_subclasses() {
        assert_eq!(impact_level(0), ImpactLevel::None);
        assert_eq!(impact_level(2), ImpactLevel::Low);
        assert_eq!(impact_level(7), ImpactLevel::Medium);
        assert_eq!(impact_level(40), ImpactLevel::High);
    }
}
