//! Shared by the `structure` actions: loading one source file (any of the 21
//! languages, structure tier included, parsed directly — never from the index),
//! outline rows from one extraction, visibility, parameter and return splitting,
//! and `output_file` writing inside the root.

use std::path::Path;

use serde::Serialize;
pub use tsa_analysis::read_range::read_text;
pub use tsa_analysis::signature::visibility;
use tsa_lang::{Def, DefKind, FileExtract, Language, Tier};

use crate::{Context, ToolError};

/// One source file, read and parsed.
pub struct Loaded {
    /// Project-relative path.
    pub rel: String,
    pub lang: Language,
    pub text: String,
    pub extract: FileExtract,
}

impl Loaded {
    pub fn line_count(&self) -> usize {
        self.text.lines().count()
    }

    /// The definitions in source order (by start byte, outer first).
    pub fn ordered(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.extract.defs.len()).collect();
        order.sort_by_key(|&i| {
            let d = &self.extract.defs[i];
            (d.start_byte, std::cmp::Reverse(d.end_byte), i)
        });
        order
    }

    /// Nesting depth of definition `i` (0 = top level).
    pub fn depth(&self, i: usize) -> usize {
        let mut depth = 0;
        let mut at = self.extract.defs[i].parent;
        while let Some(p) = at {
            depth += 1;
            at = self.extract.defs[p].parent;
            if depth > 256 {
                break;
            }
        }
        depth
    }

    pub fn parent_name(&self, i: usize) -> Option<&str> {
        self.extract.defs[i]
            .parent
            .map(|p| self.extract.defs[p].qualname.as_str())
    }
}

/// A `language` parameter: a known language name, or a validation error listing them.
pub fn language_arg(value: Option<&str>) -> Result<Option<Language>, ToolError> {
    match value.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(l) => Language::from_name(&l.to_lowercase())
            .map(Some)
            .ok_or_else(|| {
                let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                ToolError::Validation(format!(
                    "parameter 'language' must be one of: {}; got '{l}'",
                    known.join(", ")
                ))
            }),
    }
}

/// Reads and parses one file.
pub fn load(ctx: &Context, input: &str, language: Option<&str>) -> Result<Loaded, ToolError> {
    let root = ctx.root()?;
    let language = language_arg(language)?;
    let (_, rel, lang, text) = read_text(root, input, language)?;
    tsa_analysis::source::check_parse_size(&rel, text.len() as u64)?;
    let extract = tsa_lang::extract(lang, text.as_bytes())
        .map_err(|e| ToolError::Internal(format!("cannot parse '{rel}': {e}")))?;
    Ok(Loaded {
        rel,
        lang,
        text,
        extract,
    })
}

pub fn tier_name(lang: Language) -> &'static str {
    match lang.tier() {
        Tier::Full => "full",
        Tier::Symbol => "symbol",
        Tier::Structure => "structure",
    }
}

pub use tsa_analysis::file_table::{is_field, kind_counts};

/// Whether an outline shows `d`: fields only on request; code-language locals never.
pub fn shown_in_outline(lang: Language, x: &FileExtract, d: &Def, include_fields: bool) -> bool {
    if lang.tier() == Tier::Structure {
        return true;
    }
    if d.kind != DefKind::Variable {
        return true;
    }
    if is_field(x, d) {
        return include_fields;
    }
    // Module-level constants and variables are part of the outline.
    d.parent.is_none() || d.parent.is_some_and(|p| x.defs[p].kind == DefKind::Module)
}

/// One outline row of a definition.
#[derive(Clone, Debug, Serialize)]
pub struct OutlineRow<'a> {
    /// Bare name.
    pub name: &'a str,
    /// Definition kind.
    pub kind: &'static str,
    /// Qualified name.
    pub qualified_name: &'a str,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Nesting depth (0 = top level).
    pub depth: usize,
    /// The enclosing definition's qualified name.
    pub parent: Option<&'a str>,
    /// The declaration header (absent for a structure-tier entry without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<&'a str>,
    /// The owner type, when it is not the enclosing definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<&'a str>,
    /// Declared bases, comma-separated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bases: Option<String>,
    /// Present (true) for a test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_test: Option<bool>,
}

/// One outline row of definition `i`.
pub fn outline_row(f: &Loaded, i: usize) -> OutlineRow<'_> {
    let d = &f.extract.defs[i];
    OutlineRow {
        name: &d.name,
        kind: d.kind.as_str(),
        qualified_name: &d.qualname,
        line: d.line,
        end_line: d.end_line,
        depth: f.depth(i),
        parent: f.parent_name(i),
        signature: (f.lang.tier() != Tier::Structure || !d.signature.is_empty())
            .then_some(d.signature.as_str()),
        owner: d
            .owner
            .as_deref()
            .filter(|o| d.parent.is_none_or(|p| f.extract.defs[p].name != *o)),
        bases: (!d.bases.is_empty()).then(|| {
            d.bases
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }),
        is_test: d.is_test.then_some(true),
    }
}

/// Resolves an `output_file` inside the root and writes `content` there.
pub fn write_output(root: &Path, output_file: &str, content: &str) -> Result<String, ToolError> {
    let (abs, rel) = tsa_analysis::security::output_target(root, output_file)?;
    if let Some(parent) = abs.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ToolError::Internal(format!("cannot create '{rel}': {e}")))?;
    }
    std::fs::write(&abs, content)
        .map_err(|e| ToolError::Internal(format!("cannot write '{rel}': {e}")))?;
    Ok(rel)
}

pub use tsa_analysis::class_members::TYPE_KINDS;

/// The type definitions `input` (optionally qualified) names, or the NOT_FOUND answer
/// (with close names as suggestions) to give instead. Never answers for another name.
pub fn find_types(
    index: &tsa_index::Index,
    tool_label: &str,
    input: &str,
    language: Option<&str>,
) -> Result<Result<Vec<tsa_index::SymbolRow>, tsa_envelope::Success>, ToolError> {
    use tsa_envelope::{Success, Verdict};
    let input = input.trim();
    if input.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'class_name' must be a non-empty string".into(),
        ));
    }
    let (owner, name) = crate::actions::common::split_qualified(input);
    let mut all = index.find_symbols(name, owner, None)?;
    if owner.is_some() && all.is_empty() {
        // `pkg.Class` / `module::Type`: the qualifier may be a module, not an owner type.
        all = index
            .find_symbols(name, None, None)?
            .into_iter()
            .filter(|s| {
                let q = input.replace("::", ".");
                s.qualname.replace("::", ".").ends_with(&q) || s.file.contains(owner.unwrap_or(""))
            })
            .collect();
    }
    if let Some(l) = language {
        all.retain(|s| s.language == l);
    }
    let types: Vec<_> = all
        .iter()
        .filter(|s| TYPE_KINDS.contains(&s.kind.as_str()))
        .cloned()
        .collect();
    if !types.is_empty() {
        return Ok(Ok(types));
    }
    let mut miss = Success::new(
        Verdict::NotFound,
        format!("{tool_label}: class '{input}' not found"),
    )
    .with("class_name", input);
    if let Some(other) = all.first() {
        return Ok(Err(miss
            .with("found_kind", other.kind.clone())
            .with("suggestions", Vec::<String>::new())
            .with_next_step(format!(
                "'{input}' is a {} ({}:{}), not a class or type; use nav action=callers or structure action=outline on {}",
                other.kind, other.file, other.line, other.file
            ))));
    }
    let suggestions: Vec<String> = index.suggest(name, 5)?;
    miss = miss.with("suggestions", suggestions.clone());
    let step = match suggestions.first() {
        Some(s) => format!("Class '{input}' is not in the index. Did you mean '{s}'?"),
        None => format!(
            "Class '{input}' is not in the index. Check spelling, or search with search action=symbol kind=class."
        ),
    };
    Ok(Err(miss.with_next_step(step)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_names_are_checked() {
        assert!(language_arg(Some("Python")).unwrap().is_some());
        assert!(language_arg(None).unwrap().is_none());
        assert!(matches!(
            language_arg(Some("cobol")),
            Err(ToolError::Validation(_))
        ));
    }
}
