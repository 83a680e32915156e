//! A definition's type hierarchy: the bases and subtypes of its type (the
//! definition itself, or the type holding a method) level by level, and for a
//! method the same-named methods it overrides and that override it.

use std::collections::HashSet;

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;

/// Definition kinds that are types (they may have bases and subtypes).
pub const TYPE_KINDS: &[&str] = &[
    "class",
    "struct",
    "trait",
    "interface",
    "enum",
    "protocol",
    "object",
    "record",
    "type",
    "mixin",
];

/// The type a hierarchy is about.
#[derive(Clone, Debug, Serialize)]
pub struct TypeRef {
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Definition kind.
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
}

/// Where a declared base was found in the project.
#[derive(Clone, Debug, Serialize)]
pub struct BaseTarget {
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Qualified name.
    pub qualified_name: String,
}

/// One declared base, at some level above the type.
#[derive(Clone, Debug, Serialize)]
pub struct Base {
    /// The base as written.
    pub name: String,
    /// `extends` or `implements`.
    pub kind: &'static str,
    /// Levels above the type.
    pub depth: u32,
    /// Qualified name of the type declaring it.
    pub of: String,
    /// Resolution class.
    pub resolution: &'static str,
    /// The project definition it resolved to, if any.
    #[serde(flatten)]
    pub target: Option<BaseTarget>,
}

/// One subtype, at some level below the type.
#[derive(Clone, Debug, Serialize)]
pub struct Subtype {
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// `extends` or `implements`.
    pub kind: &'static str,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Levels below the type.
    pub depth: u32,
    /// Qualified name of the type it declares as base.
    pub of: Option<String>,
    /// Resolution class.
    pub resolution: &'static str,
}

/// A same-named method up or down the hierarchy.
#[derive(Clone, Debug, Serialize)]
pub struct MethodRef {
    /// Qualified name.
    pub qualified_name: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
}

/// The hierarchy of a definition.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Hierarchy {
    /// Not a type and not inside one.
    NoType {
        /// Always null.
        #[serde(rename = "type")]
        ty: Option<TypeRef>,
        /// Why there is no hierarchy.
        note: &'static str,
    },
    /// The type's bases and subtypes.
    Type {
        /// The type.
        #[serde(rename = "type")]
        ty: TypeRef,
        /// Its bases, level by level.
        bases: Vec<Base>,
        /// Its subtypes, level by level.
        subtypes: Vec<Subtype>,
        /// Methods of the bases it overrides (for a method).
        #[serde(skip_serializing_if = "Option::is_none")]
        overrides: Option<Vec<MethodRef>>,
        /// Methods of the subtypes overriding it (for a method).
        #[serde(skip_serializing_if = "Option::is_none")]
        overridden_by: Option<Vec<MethodRef>>,
    },
}

impl Hierarchy {
    /// Number of bases listed.
    pub fn base_count(&self) -> usize {
        match self {
            Hierarchy::NoType { .. } => 0,
            Hierarchy::Type { bases, .. } => bases.len(),
        }
    }

    /// Number of subtypes listed.
    pub fn subtype_count(&self) -> usize {
        match self {
            Hierarchy::NoType { .. } => 0,
            Hierarchy::Type { subtypes, .. } => subtypes.len(),
        }
    }
}

/// The type behind `def`: itself, or the type that contains it.
fn type_of(index: &Index, def: &SymbolRow) -> Result<Option<SymbolRow>, ToolError> {
    if TYPE_KINDS.contains(&def.kind.as_str()) {
        return Ok(Some(def.clone()));
    }
    Ok(match index.parents_of(&[def.id])?.get(&def.id) {
        Some(p) => index
            .symbols_by_id(&[*p])?
            .remove(p)
            .filter(|s| TYPE_KINDS.contains(&s.kind.as_str())),
        None => None,
    })
}

/// Bases and subtypes of the type behind `def`, to `depth` levels; overrides for
/// methods.
pub fn hierarchy(index: &Index, def: &SymbolRow, depth: u32) -> Result<Hierarchy, ToolError> {
    let Some(ty) = type_of(index, def)? else {
        return Ok(Hierarchy::NoType {
            ty: None,
            note: "not a type and not inside one: no hierarchy",
        });
    };
    let mut seen: HashSet<i64> = HashSet::from([ty.id]);
    let (bases, base_types) = bases(index, ty.id, depth, &mut seen)?;
    let (subtypes, sub_types) = subtypes(index, ty.id, depth, &mut seen)?;
    let (overrides, overridden_by) = if def.id != ty.id {
        let same = |rows: Vec<SymbolRow>| -> Vec<MethodRef> {
            rows.into_iter()
                .filter(|m| m.name == def.name)
                .map(|m| MethodRef {
                    qualified_name: m.qualname,
                    file: m.file,
                    line: m.line,
                })
                .collect()
        };
        (
            Some(same(index.children_of(&base_types)?)),
            Some(same(index.children_of(&sub_types)?)),
        )
    } else {
        (None, None)
    };
    Ok(Hierarchy::Type {
        ty: TypeRef {
            name: ty.name,
            qualified_name: ty.qualname,
            kind: ty.kind,
            file: ty.file,
            line: ty.line,
        },
        bases,
        subtypes,
        overrides,
        overridden_by,
    })
}

/// The bases of `ty` level by level, and the ids of those in the project.
fn bases(
    index: &Index,
    ty: i64,
    depth: u32,
    seen: &mut HashSet<i64>,
) -> Result<(Vec<Base>, Vec<i64>), ToolError> {
    let mut bases = Vec::new();
    let mut frontier = vec![ty];
    let mut base_types = Vec::new();
    for level in 1..=depth {
        if frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for b in index.bases_of(&frontier)? {
            if let Some(t) = &b.target
                && seen.insert(t.id)
            {
                next.push(t.id);
                base_types.push(t.id);
            }
            bases.push(Base {
                name: b.base_name,
                kind: b.kind,
                depth: level,
                of: b.symbol.qualname,
                resolution: b.resolution.as_str(),
                target: b.target.map(|t| BaseTarget {
                    file: t.file,
                    line: t.line,
                    qualified_name: t.qualname,
                }),
            });
        }
        frontier = next;
    }
    Ok((bases, base_types))
}

/// The subtypes of `ty` level by level, and their ids.
fn subtypes(
    index: &Index,
    ty: i64,
    depth: u32,
    seen: &mut HashSet<i64>,
) -> Result<(Vec<Subtype>, Vec<i64>), ToolError> {
    let mut subtypes = Vec::new();
    let mut sub_types = Vec::new();
    let mut frontier = vec![ty];
    for level in 1..=depth {
        if frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for b in index.subtypes_of(&frontier)? {
            if !seen.insert(b.symbol.id) {
                continue;
            }
            next.push(b.symbol.id);
            sub_types.push(b.symbol.id);
            subtypes.push(Subtype {
                name: b.symbol.name,
                qualified_name: b.symbol.qualname,
                kind: b.kind,
                file: b.symbol.file,
                line: b.symbol.line,
                depth: level,
                of: b.target.map(|t| t.qualname),
                resolution: b.resolution.as_str(),
            });
        }
        frontier = next;
    }
    Ok((subtypes, sub_types))
}
