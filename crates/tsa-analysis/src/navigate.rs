//! References to a definition and its type hierarchies (the engine of `nav
//! navigate`'s references and hierarchy modes): bound call sites, imports of it,
//! and types declaring it as a base; the hierarchy of each of its first five
//! definitions.

use std::collections::HashSet;

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::hierarchy::{Hierarchy, hierarchy};

/// A bound call site.
#[derive(Clone, Debug, Serialize)]
pub struct CallRef {
    /// Always `call`.
    pub kind: &'static str,
    /// File of the call.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// How it was bound.
    pub resolution: &'static str,
    /// Confidence of the binding.
    pub confidence: f64,
    /// The calling definition (`<module>` for module-level code).
    #[serde(rename = "in")]
    pub within: String,
    /// Whether the caller is a test (absent for module-level code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_test: Option<bool>,
    /// The definition it was bound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// An import of the definition.
#[derive(Clone, Debug, Serialize)]
pub struct ImportRef {
    /// Always `import`.
    pub kind: &'static str,
    /// The importing file.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The module as written.
    pub module: String,
    /// The local name bound.
    pub alias: String,
    /// How it was resolved.
    pub resolution: &'static str,
    /// The definition imported.
    pub target: String,
}

/// A type declaring the definition as a base.
#[derive(Clone, Debug, Serialize)]
pub struct SubtypeRef {
    /// `extends` or `implements`.
    pub kind: &'static str,
    /// The subtype's file.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The subtype.
    #[serde(rename = "in")]
    pub within: String,
    /// How the base was resolved.
    pub resolution: &'static str,
    /// The base it resolved to.
    pub target: Option<String>,
}

/// One reference. Written as one flat row with every key of every kind (null where
/// a kind has none), so the references of an answer are one TOON table.
#[derive(Clone, Debug)]
pub enum Reference {
    /// A call.
    Call(CallRef),
    /// An import.
    Import(ImportRef),
    /// A subtype.
    Subtype(SubtypeRef),
}

/// A reference as written: the keys of all three kinds.
#[derive(Serialize)]
struct ReferenceRow<'a> {
    kind: &'static str,
    file: &'a str,
    line: u32,
    #[serde(rename = "in")]
    within: Option<&'a str>,
    resolution: &'static str,
    confidence: Option<f64>,
    in_test: Option<bool>,
    module: Option<&'a str>,
    alias: Option<&'a str>,
    target: Option<&'a str>,
}

impl Serialize for Reference {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let row = match self {
            Reference::Call(r) => ReferenceRow {
                kind: r.kind,
                file: &r.file,
                line: r.line,
                within: Some(&r.within),
                resolution: r.resolution,
                confidence: Some(r.confidence),
                in_test: r.in_test,
                module: None,
                alias: None,
                target: r.target.as_deref(),
            },
            Reference::Import(r) => ReferenceRow {
                kind: r.kind,
                file: &r.file,
                line: r.line,
                within: None,
                resolution: r.resolution,
                confidence: None,
                in_test: None,
                module: Some(&r.module),
                alias: Some(&r.alias),
                target: Some(&r.target),
            },
            Reference::Subtype(r) => ReferenceRow {
                kind: r.kind,
                file: &r.file,
                line: r.line,
                within: Some(&r.within),
                resolution: r.resolution,
                confidence: None,
                in_test: None,
                module: None,
                alias: None,
                target: r.target.as_deref(),
            },
        };
        row.serialize(serializer)
    }
}

impl Reference {
    /// The referencing file.
    pub fn file(&self) -> &str {
        match self {
            Reference::Call(r) => &r.file,
            Reference::Import(r) => &r.file,
            Reference::Subtype(r) => &r.file,
        }
    }
}

/// References to `defs`: bound call sites, then imports, then declared subtypes.
pub fn references(index: &Index, defs: &[SymbolRow]) -> Result<Vec<Reference>, ToolError> {
    let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let mut out = Vec::new();
    for r in index.callers(&ids)? {
        out.push(Reference::Call(CallRef {
            kind: "call",
            resolution: r.resolution.as_str(),
            confidence: r.confidence,
            within: r
                .caller
                .as_ref()
                .map_or_else(|| "<module>".to_owned(), |c| c.qualname.clone()),
            in_test: r.caller.as_ref().map(|c| c.is_test),
            target: r.target.as_ref().map(|t| t.qualname.clone()),
            file: r.file,
            line: r.line,
        }));
    }
    for d in defs {
        for i in index.importers_of_symbol(d.id)? {
            out.push(Reference::Import(ImportRef {
                kind: "import",
                file: i.file,
                line: i.line,
                module: i.module,
                alias: i.alias,
                resolution: i.resolution.as_str(),
                target: d.qualname.clone(),
            }));
        }
    }
    for i in index.subtypes_of(&ids)? {
        out.push(Reference::Subtype(SubtypeRef {
            kind: i.kind,
            file: i.symbol.file,
            line: i.symbol.line,
            within: i.symbol.qualname,
            resolution: i.resolution.as_str(),
            target: i.target.as_ref().map(|t| t.qualname.clone()),
        }));
    }
    Ok(out)
}

/// A hierarchy with the definition it was asked for.
#[derive(Clone, Debug, Serialize)]
pub struct HierarchyFor {
    /// The hierarchy.
    #[serde(flatten)]
    pub hierarchy: Hierarchy,
    /// Qualified name of the definition.
    #[serde(rename = "for")]
    pub of: String,
    /// Its file.
    pub file: String,
}

/// The hierarchies of the first five definitions (each once), `depth` levels.
pub fn hierarchies(
    index: &Index,
    defs: &[SymbolRow],
    depth: u32,
) -> Result<Vec<HierarchyFor>, ToolError> {
    let mut out = Vec::new();
    let mut seen: HashSet<i64> = HashSet::new();
    for d in defs.iter().take(5) {
        if seen.insert(d.id) {
            out.push(HierarchyFor {
                hierarchy: hierarchy(index, d, depth)?,
                of: d.qualname.clone(),
                file: d.file.clone(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_imports_and_subtypes_are_references() {
        let (_dir, ix) = crate::test_support::index_of(&[
            (
                "base.py",
                "class Base:\n    pass\n\n\ndef make():\n    return Base()\n",
            ),
            (
                "sub.py",
                "from base import Base\n\n\nclass Sub(Base):\n    pass\n",
            ),
        ]);
        let defs: Vec<SymbolRow> = ix
            .symbols_in_file("base.py")
            .unwrap()
            .into_iter()
            .filter(|s| s.name == "Base")
            .collect();
        let refs = references(&ix, &defs).unwrap();
        let kinds: Vec<(&str, &str)> = refs
            .iter()
            .map(|r| match r {
                Reference::Call(c) => ("call", c.within.as_str()),
                Reference::Import(i) => ("import", i.file.as_str()),
                Reference::Subtype(s) => ("subtype", s.within.as_str()),
            })
            .collect();
        assert!(kinds.contains(&("import", "sub.py")), "{kinds:?}");
        assert!(kinds.contains(&("subtype", "Sub")), "{kinds:?}");
        assert!(refs.iter().all(|r| !r.file().is_empty()));
        let h = hierarchies(&ix, &[defs[0].clone(), defs[0].clone()], 2).unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].of, "Base");
    }
}
