//! The engine of `nav resolve`: what a name's definitions are (with their parents
//! and the number of call sites bound to each) and the call sites bound to them.

use std::collections::HashMap;

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;

/// The definition a resolved one is nested in.
#[derive(Clone, Debug, Serialize)]
pub struct Parent {
    /// Qualified name.
    pub qualified_name: String,
    /// Definition kind.
    pub kind: String,
    /// First line.
    pub line: u32,
}

/// One definition the name resolved to.
#[derive(Clone, Debug, Serialize)]
pub struct ResolvedDefinition {
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Definition kind.
    pub kind: String,
    /// The owning type, if any.
    pub owner: Option<String>,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Language of the file.
    pub language: String,
    /// Signature as written.
    pub signature: String,
    /// Test code.
    pub is_test: bool,
    /// Call sites bound to it.
    pub call_sites: usize,
    /// The definition it is nested in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<Parent>,
}

/// A call site bound to one of the definitions.
#[derive(Clone, Debug, Serialize)]
pub struct Reference {
    /// Project-relative file of the call.
    pub file: String,
    /// Line of the call.
    pub line: u32,
    /// Qualified name of the calling function, `<module>` for module-level code.
    pub caller: String,
    /// The caller is test code.
    pub in_test: bool,
    /// Qualified name of the definition it is bound to.
    pub target: Option<String>,
    /// File of that definition.
    pub target_file: Option<String>,
    /// Resolution class.
    pub resolution: &'static str,
    /// Confidence of the binding.
    pub confidence: f64,
}

/// The definitions of a name and the call sites bound to them.
pub struct Resolved {
    /// The definitions, as found.
    pub definitions: Vec<ResolvedDefinition>,
    /// Every call site bound to any of them.
    pub references: Vec<Reference>,
}

/// Describes `defs`, with their parents and bound call sites.
pub fn resolve(index: &Index, defs: &[SymbolRow]) -> Result<Resolved, ToolError> {
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
    let definitions = defs
        .iter()
        .map(|d| ResolvedDefinition {
            name: d.name.clone(),
            qualified_name: d.qualname.clone(),
            kind: d.kind.clone(),
            owner: d.owner.clone(),
            file: d.file.clone(),
            line: d.line,
            end_line: d.end_line,
            language: d.language.clone(),
            signature: d.signature.clone(),
            is_test: d.is_test,
            call_sites: per_def.get(&d.id).copied().unwrap_or(0),
            parent: parents
                .get(&d.id)
                .and_then(|p| parent_rows.get(p))
                .map(|p| Parent {
                    qualified_name: p.qualname.clone(),
                    kind: p.kind.clone(),
                    line: p.line,
                }),
        })
        .collect();
    let references = sites
        .iter()
        .map(|r| Reference {
            file: r.file.clone(),
            line: r.line,
            caller: r
                .caller
                .as_ref()
                .map_or("<module>".to_owned(), |c| c.qualname.clone()),
            in_test: r.caller.as_ref().is_some_and(|c| c.is_test),
            target: r.target.as_ref().map(|t| t.qualname.clone()),
            target_file: r.target.as_ref().map(|t| t.file.clone()),
            resolution: r.resolution.as_str(),
            confidence: r.confidence,
        })
        .collect();
    Ok(Resolved {
        definitions,
        references,
    })
}

pub use crate::signature::split_qualified;

#[cfg(test)]
mod tests {
    use super::split_qualified;

    #[test]
    fn splits_qualified_names() {
        assert_eq!(split_qualified("Greeter.greet"), (Some("Greeter"), "greet"));
        assert_eq!(
            split_qualified("crate::a::Engine::run"),
            (Some("Engine"), "run")
        );
        assert_eq!(split_qualified("pkg.mod.Cls.m"), (Some("Cls"), "m"));
        assert_eq!(split_qualified("build"), (None, "build"));
        assert_eq!(split_qualified(".x"), (None, ".x"));
    }
}
