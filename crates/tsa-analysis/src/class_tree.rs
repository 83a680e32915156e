//! The inheritance tree of a class from the index's resolved bases (the engine of
//! `structure class_tree`): its bases walked up, its subtypes walked down (with
//! same-family bases left unbound counted as `name_only`), the risk of changing
//! it, and without a class a project summary of the largest hierarchies.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tsa_envelope::ImpactLevel;
use tsa_index::{Index, InheritRow, SymbolRow};
use tsa_lang::Language;

use crate::ToolError;
use crate::hierarchy::TypeRef;

/// A type as `{name, qualified_name, kind, file, line}`.
pub fn type_ref(s: &SymbolRow) -> TypeRef {
    TypeRef {
        name: s.name.clone(),
        qualified_name: s.qualname.clone(),
        kind: s.kind.clone(),
        file: s.file.clone(),
        line: s.line,
    }
}

/// Where a base resolved to in the project (all null when it did not: the rows
/// stay one TOON table).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SuperTarget {
    /// Its qualified name.
    pub base_qualified_name: Option<String>,
    /// Its kind.
    pub base_kind: Option<String>,
    /// Its file.
    pub file: Option<String>,
    /// Its first line.
    pub line: Option<u32>,
}

/// One declared base, `depth` levels above the class.
#[derive(Clone, Debug, Serialize)]
pub struct SuperRow {
    /// Levels above the class.
    pub depth: usize,
    /// Qualified name of the type declaring the base.
    pub class: String,
    /// The base as written.
    pub base: String,
    /// `extends` or `implements`.
    pub relation: &'static str,
    /// Resolution class.
    pub resolution: &'static str,
    /// The project definition it resolved to, if any.
    #[serde(flatten)]
    pub target: SuperTarget,
}

/// One subtype, `depth` levels below the class.
#[derive(Clone, Debug, Serialize)]
pub struct SubRow {
    /// The subtype.
    #[serde(flatten)]
    pub ty: TypeRef,
    /// Levels below the class.
    pub depth: usize,
    /// Qualified name of its base (as written when unresolved).
    pub base: String,
    /// `extends` or `implements`.
    pub relation: &'static str,
    /// Resolution class (`name_only` for a same-named unbound base).
    pub resolution: &'static str,
}

/// Walks resolved bases upward, level by level (one query per level).
pub fn supers(index: &Index, roots: &[i64], max_depth: usize) -> Result<Vec<SuperRow>, ToolError> {
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
            let target = target.map(|t| {
                if seen.insert(t.id) {
                    next.push(t.id);
                }
                SuperTarget {
                    base_qualified_name: Some(t.qualname),
                    base_kind: Some(t.kind),
                    file: Some(t.file),
                    line: Some(t.line),
                }
            });
            rows.push(SuperRow {
                depth,
                class: symbol.qualname,
                base: base_name,
                relation: kind,
                resolution: resolution.as_str(),
                target: target.unwrap_or_default(),
            });
        }
        frontier = next;
    }
    Ok(rows)
}

/// Subtypes found by walking down.
#[derive(Clone, Debug, Default)]
pub struct Down {
    /// One row per subtype, level by level.
    pub rows: Vec<SubRow>,
    /// The subtype symbols.
    pub found: Vec<SymbolRow>,
    /// The walk stopped at max_depth with subtypes below it.
    pub cut: bool,
    /// Subtypes matched by base name only.
    pub name_only: usize,
}

/// Walks resolved subtypes downward; bases the resolver left unbound but which name
/// a type of the same language family are included, labelled `name_only`.
pub fn subs(index: &Index, roots: &[SymbolRow], max_depth: usize) -> Result<Down, ToolError> {
    let mut seen: HashSet<i64> = roots.iter().map(|r| r.id).collect();
    let mut frontier: Vec<SymbolRow> = roots.to_vec();
    let mut down = Down::default();
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
            if name_only {
                down.name_only += 1;
            }
            down.rows.push(SubRow {
                ty: type_ref(&r.symbol),
                depth,
                base,
                relation: r.kind,
                resolution: if name_only {
                    "name_only"
                } else {
                    r.resolution.as_str()
                },
            });
            next.push(r.symbol.clone());
            down.found.push(r.symbol);
        }
        frontier = next;
    }
    Ok(down)
}

/// The risk of changing a class with `n` subtypes.
pub fn impact_level(n: usize) -> ImpactLevel {
    match n {
        0 => ImpactLevel::None,
        1..=3 => ImpactLevel::Low,
        4..=10 => ImpactLevel::Medium,
        _ => ImpactLevel::High,
    }
}

/// One project type with subtypes, in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct HierarchyRow {
    /// The type.
    #[serde(flatten)]
    pub ty: TypeRef,
    /// Types naming it as a base.
    pub direct_subclasses: usize,
    /// Subtypes to max_depth.
    pub total_subclasses: usize,
    /// The deepest level reached.
    pub depth: usize,
}

/// A base name the resolver could not bind, with how many types name it.
#[derive(Clone, Debug, Serialize)]
pub struct UnresolvedBase {
    /// The base as written.
    pub base: String,
    /// Types naming it.
    pub uses: usize,
}

/// The project-wide summary of hierarchies.
#[derive(Clone, Debug)]
pub struct ClassSummary {
    /// Inheritance edges in the index.
    pub edges: usize,
    /// Of which resolved to a project type.
    pub resolved: usize,
    /// Types with subtypes, most subtypes first (then by qualified name).
    pub hierarchies: Vec<HierarchyRow>,
    /// Unbound base names, most used first (then by name).
    pub unresolved_bases: Vec<UnresolvedBase>,
}

/// The largest hierarchies of the project, each walked to `max_depth`.
pub fn summary(index: &Index, max_depth: usize) -> Result<ClassSummary, ToolError> {
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
    let mut hierarchies: Vec<HierarchyRow> = children
        .keys()
        .filter_map(|id| types.get(id).map(|s| (id, s)))
        .map(|(id, s)| {
            let (total, depth) = descendants(*id);
            HierarchyRow {
                ty: type_ref(s),
                direct_subclasses: children[id].len(),
                total_subclasses: total,
                depth,
            }
        })
        .collect();
    hierarchies.sort_by(|a, b| {
        b.total_subclasses
            .cmp(&a.total_subclasses)
            .then_with(|| a.ty.qualified_name.cmp(&b.ty.qualified_name))
    });
    let mut unresolved_bases: Vec<UnresolvedBase> = external
        .into_iter()
        .map(|(base, uses)| UnresolvedBase { base, uses })
        .collect();
    unresolved_bases.sort_by(|a, b| b.uses.cmp(&a.uses).then_with(|| a.base.cmp(&b.base)));
    Ok(ClassSummary {
        edges: bases.len(),
        resolved,
        hierarchies,
        unresolved_bases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::index_of;

    fn named(ix: &Index, name: &str) -> Vec<SymbolRow> {
        let mut v = ix.symbols_in_file("shapes.py").unwrap();
        v.retain(|s| s.name == name);
        v
    }

    const SHAPES: &str = "class Base:\n    pass\n\n\nclass Mid(Base):\n    pass\n\n\nclass Leaf(Mid):\n    pass\n\n\nclass Other(Mid, Missing):\n    pass\n";

    #[test]
    fn impact_levels_grow_with_subclasses() {
        assert_eq!(impact_level(0), ImpactLevel::None);
        assert_eq!(impact_level(2), ImpactLevel::Low);
        assert_eq!(impact_level(7), ImpactLevel::Medium);
        assert_eq!(impact_level(40), ImpactLevel::High);
    }

    #[test]
    fn walks_go_up_and_down_level_by_level() {
        let (_d, ix) = index_of(&[("shapes.py", SHAPES)]);
        let leaf = named(&ix, "Leaf");
        let up = supers(&ix, &[leaf[0].id], 10).unwrap();
        let chain: Vec<(usize, &str)> = up.iter().map(|r| (r.depth, r.base.as_str())).collect();
        assert_eq!(chain, [(1, "Mid"), (2, "Base")]);
        assert!(up.iter().all(|r| r.target.base_qualified_name.is_some()));
        let base = named(&ix, "Base");
        let down = subs(&ix, &base, 10).unwrap();
        let mut names: Vec<(usize, &str)> = down
            .rows
            .iter()
            .map(|r| (r.depth, r.ty.name.as_str()))
            .collect();
        names.sort_unstable();
        assert_eq!(names, [(1, "Mid"), (2, "Leaf"), (2, "Other")]);
        assert!(!down.cut);
        let shallow = subs(&ix, &base, 1).unwrap();
        assert_eq!(shallow.rows.len(), 1);
        assert!(shallow.cut);
    }

    #[test]
    fn the_summary_ranks_hierarchies_and_counts_unbound_bases() {
        let (_d, ix) = index_of(&[("shapes.py", SHAPES)]);
        let s = summary(&ix, 10).unwrap();
        assert_eq!(s.edges, 4);
        assert_eq!(s.resolved, 3);
        let top: Vec<(&str, usize, usize)> = s
            .hierarchies
            .iter()
            .map(|h| (h.ty.name.as_str(), h.total_subclasses, h.depth))
            .collect();
        assert_eq!(top, [("Base", 3, 2), ("Mid", 2, 1)]);
        assert_eq!(s.unresolved_bases.len(), 1);
        assert_eq!(s.unresolved_bases[0].base, "Missing");
    }
}
