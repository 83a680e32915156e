//! One type's members (the engine of `structure class_detail`): its own methods,
//! fields and nested types with their visibility, its declared bases, and the
//! members it inherits by walking the resolved bases level by level (a member it
//! redeclares is listed once, as an override).

use std::collections::HashSet;

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::signature::visibility;

/// Symbol kinds that are types (what class_tree / class_detail accept).
pub const TYPE_KINDS: [&str; 6] = ["class", "struct", "enum", "trait", "interface", "type"];

/// Most base levels walked for inherited members.
const MAX_BASE_DEPTH: usize = 10;

/// One member of a type.
#[derive(Clone, Debug, Serialize)]
pub struct MemberRow {
    /// Bare name.
    pub name: String,
    /// Definition kind.
    pub kind: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Visibility from the declaration or the naming convention.
    pub visibility: &'static str,
    /// The declaration header.
    pub signature: String,
    /// Its file, when not the type's own (null otherwise).
    pub file: Option<String>,
    /// Whether it is a static member.
    #[serde(rename = "static")]
    pub is_static: bool,
}

/// `m` as a member row of a type declared in `home`.
pub fn member_row(m: &SymbolRow, home: &str) -> MemberRow {
    let sig = format!(" {} ", m.signature);
    let is_static =
        sig.contains(" static ") || sig.contains("@staticmethod") || sig.contains("(cls");
    MemberRow {
        name: m.name.clone(),
        kind: m.kind.clone(),
        line: m.line,
        end_line: m.end_line,
        visibility: visibility(&m.language, &m.name, &m.signature),
        signature: m.signature.clone(),
        file: (m.file != home).then(|| m.file.clone()),
        is_static,
    }
}

/// A declared base of the type.
#[derive(Clone, Debug, Serialize)]
pub struct BaseRow {
    /// The base as written.
    pub base: String,
    /// `extends` or `implements`.
    pub relation: &'static str,
    /// Resolution class.
    pub resolution: &'static str,
    /// The project type it resolved to.
    pub qualified_name: Option<String>,
    /// Its file.
    pub file: Option<String>,
    /// Its line.
    pub line: Option<u32>,
}

/// A member inherited from a base.
#[derive(Clone, Debug, Serialize)]
pub struct InheritedRow {
    /// The member.
    #[serde(flatten)]
    pub member: MemberRow,
    /// The base declaring it.
    pub from: String,
    /// Levels above the type.
    pub depth: usize,
}

/// A member of the type that redeclares one of a base.
#[derive(Clone, Debug, Serialize)]
pub struct OverrideRow {
    /// Its name.
    pub name: String,
    /// `Base.name` it overrides.
    pub overrides: String,
    /// The base member's file.
    pub file: String,
    /// The base member's line.
    pub line: u32,
}

/// Another type of the same name.
#[derive(Clone, Debug, Serialize)]
pub struct OtherDefinition {
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// File.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Language.
    pub language: String,
}

impl From<&SymbolRow> for OtherDefinition {
    fn from(t: &SymbolRow) -> Self {
        OtherDefinition {
            qualified_name: t.qualname.clone(),
            kind: t.kind.clone(),
            file: t.file.clone(),
            line: t.line,
            language: t.language.clone(),
        }
    }
}

/// The members of one type.
#[derive(Clone, Debug, Default)]
pub struct ClassMembers {
    /// Its methods and functions.
    pub methods: Vec<MemberRow>,
    /// Its fields.
    pub fields: Vec<MemberRow>,
    /// Types declared inside it.
    pub nested: Vec<MemberRow>,
    /// Its declared bases.
    pub bases: Vec<BaseRow>,
    /// Base names no project type resolved, at any level (sorted, distinct).
    pub unresolved_bases: Vec<String>,
    /// Members inherited through resolved bases.
    pub inherited: Vec<InheritedRow>,
    /// Its members that redeclare a base's method.
    pub overrides: Vec<OverrideRow>,
}

/// Members inherited by walking the resolved bases of `frontier`, level by level.
fn inherit(
    index: &Index,
    ty: &SymbolRow,
    mut frontier: Vec<SymbolRow>,
    own: &HashSet<&str>,
    out: &mut ClassMembers,
) -> Result<(), ToolError> {
    let mut seen_types: HashSet<i64> = HashSet::from([ty.id]);
    let mut seen_members: HashSet<String> = own.iter().map(|s| (*s).to_owned()).collect();
    let mut level = 1;
    while !frontier.is_empty() && level <= MAX_BASE_DEPTH {
        let mut next = Vec::new();
        for base in frontier {
            if !seen_types.insert(base.id) {
                continue;
            }
            for m in index.members_of(&base)? {
                if !matches!(m.kind.as_str(), "method" | "function" | "variable") {
                    continue;
                }
                if own.contains(m.name.as_str()) {
                    if m.kind != "variable" {
                        out.overrides.push(OverrideRow {
                            name: m.name.clone(),
                            overrides: format!("{}.{}", base.qualname, m.name),
                            file: m.file.clone(),
                            line: m.line,
                        });
                    }
                    continue;
                }
                if !seen_members.insert(m.name.clone()) {
                    continue;
                }
                out.inherited.push(InheritedRow {
                    member: member_row(&m, ""),
                    from: base.qualname.clone(),
                    depth: level,
                });
            }
            for b in index.bases_of(&[base.id])? {
                match b.target {
                    Some(t) => next.push(t),
                    None => out.unresolved_bases.push(b.base_name),
                }
            }
        }
        frontier = next;
        level += 1;
    }
    Ok(())
}

/// The members, bases and inherited members of `ty`.
pub fn class_members(index: &Index, ty: &SymbolRow) -> Result<ClassMembers, ToolError> {
    let members = index.members_of(ty)?;
    let own: HashSet<&str> = members.iter().map(|m| m.name.as_str()).collect();
    let rows = |keep: &dyn Fn(&str) -> bool| -> Vec<MemberRow> {
        members
            .iter()
            .filter(|m| keep(m.kind.as_str()))
            .map(|m| member_row(m, &ty.file))
            .collect()
    };
    let direct = index.bases_of(&[ty.id])?;
    let mut out = ClassMembers {
        methods: rows(&|k| matches!(k, "method" | "function")),
        fields: rows(&|k| k == "variable"),
        nested: rows(&|k| TYPE_KINDS.contains(&k)),
        bases: direct
            .iter()
            .map(|b| BaseRow {
                base: b.base_name.clone(),
                relation: b.kind,
                resolution: b.resolution.as_str(),
                qualified_name: b.target.as_ref().map(|t| t.qualname.clone()),
                file: b.target.as_ref().map(|t| t.file.clone()),
                line: b.target.as_ref().map(|t| t.line),
            })
            .collect(),
        unresolved_bases: direct
            .iter()
            .filter(|b| b.target.is_none())
            .map(|b| b.base_name.clone())
            .collect(),
        ..ClassMembers::default()
    };
    let frontier: Vec<SymbolRow> = direct.into_iter().filter_map(|b| b.target).collect();
    inherit(index, ty, frontier, &own, &mut out)?;
    out.unresolved_bases.sort();
    out.unresolved_bases.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_inherited_members_and_overrides() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("shapes.py"),
            "class Base(Missing):\n    def area(self):\n        return 0\n\n    def name(self):\n        return 'b'\n\n\nclass Square(Base):\n    size = 2\n\n    def area(self):\n        return 4\n\n    @classmethod\n    def unit(cls):\n        return cls()\n",
        )
        .unwrap();
        tsa_index::build(dir.path(), &tsa_index::BuildOptions::default()).unwrap();
        let ix = Index::open(dir.path()).unwrap().unwrap();
        let sq = ix
            .symbols_in_file("shapes.py")
            .unwrap()
            .into_iter()
            .find(|s| s.name == "Square")
            .unwrap();
        let m = class_members(&ix, &sq).unwrap();
        let methods: Vec<(&str, bool)> = m
            .methods
            .iter()
            .map(|r| (r.name.as_str(), r.is_static))
            .collect();
        assert_eq!(methods, [("area", false), ("unit", true)]);
        assert!(m.nested.is_empty());
        assert_eq!(m.bases[0].qualified_name.as_deref(), Some("Base"));
        assert_eq!(m.overrides[0].overrides, "Base.area");
        let inherited: Vec<(&str, usize)> = m
            .inherited
            .iter()
            .map(|r| (r.member.name.as_str(), r.depth))
            .collect();
        assert_eq!(inherited, [("name", 1)]);
        assert_eq!(m.unresolved_bases, ["Missing"]);
    }
}
