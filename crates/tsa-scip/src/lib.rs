//! `tsa export scip`: the index as a SCIP file, so an organisation can load many
//! repositories into a Sourcegraph instance when one machine is no longer enough.
//!
//! One SCIP document per indexed file: a definition occurrence and a
//! `SymbolInformation` for every definition (kind, display name, signature,
//! enclosing symbol, `implementation` relationships to resolved bases), and a
//! reference occurrence for every call site bound to a project definition.
//! Symbols are global SCIP symbols `tsa . <project> . <path>/<Type>#<method>().`; the
//! index stores lines, so columns come from the identifier's place on its line.

use std::collections::HashMap;
use std::path::Path;

use protobuf::{EnumOrUnknown, MessageField};
use scip::types::{
    Document, Index as ScipIndex, Metadata, Occurrence, PositionEncoding, ProtocolVersion,
    Relationship, SymbolInformation, SymbolRole, TextEncoding, ToolInfo, descriptor,
    symbol_information,
};
use tsa_index::{Index, IndexError, SymbolRow};

/// Export failures.
#[derive(Debug, thiserror::Error)]
pub enum ScipError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("no index at {0}: build it first (tsa index full)")]
    NoIndex(String),
    #[error("writing the SCIP file: {0}")]
    Write(String),
}

/// What an export wrote.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub documents: usize,
    pub symbols: usize,
    pub definitions: usize,
    pub references: usize,
    pub relationships: usize,
    pub bytes: u64,
    /// Indexed files whose text was not read (positions fall back to column 0):
    /// each is now a symlink, or lies below one, leading out of the project root.
    pub linked: Vec<String>,
}

fn kind_of(kind: &str) -> symbol_information::Kind {
    use symbol_information::Kind;
    match kind {
        "function" => Kind::Function,
        "method" => Kind::Method,
        "class" => Kind::Class,
        "struct" => Kind::Struct,
        "enum" => Kind::Enum,
        "trait" => Kind::Trait,
        "interface" => Kind::Interface,
        "module" => Kind::Module,
        "type" => Kind::TypeAlias,
        "variable" => Kind::Variable,
        _ => Kind::UnspecifiedKind,
    }
}

fn suffix_of(kind: &str) -> descriptor::Suffix {
    use descriptor::Suffix;
    match kind {
        "function" | "method" => Suffix::Method,
        "class" | "struct" | "enum" | "trait" | "interface" | "type" | "impl" => Suffix::Type,
        "module" => Suffix::Namespace,
        _ => Suffix::Term,
    }
}

/// The SCIP symbol of a definition: the file path as namespaces, then the chain of
/// enclosing definitions (qualified name parts) with suffixes by kind.
fn scip_symbol(project: &str, sym: &SymbolRow, parents: &[&SymbolRow]) -> String {
    let mut descriptors = Vec::new();
    for part in sym.file.split('/') {
        descriptors.push(scip::types::Descriptor {
            name: part.to_owned(),
            suffix: EnumOrUnknown::new(descriptor::Suffix::Namespace),
            ..Default::default()
        });
    }
    for p in parents.iter().rev().chain(std::iter::once(&sym)) {
        descriptors.push(scip::types::Descriptor {
            name: p.name.clone(),
            // Overloads and same-named nested items stay distinct by line.
            disambiguator: if p.id == sym.id && matches!(p.kind.as_str(), "function" | "method") {
                p.line.to_string()
            } else {
                String::new()
            },
            suffix: EnumOrUnknown::new(suffix_of(&p.kind)),
            ..Default::default()
        });
    }
    scip::symbol::format_symbol(scip::types::Symbol {
        scheme: "tsa".into(),
        package: MessageField::some(scip::types::Package {
            manager: ".".into(),
            name: project.into(),
            version: ".".into(),
            ..Default::default()
        }),
        descriptors,
        ..Default::default()
    })
}

/// `[line, start, end]` (0-based, UTF-8 bytes) of `name` on 1-based `line` of
/// `lines`, at or after the first occurrence as a whole word; the line start when
/// the name is not on it.
fn range_of(lines: &[&str], line: u32, name: &str) -> Vec<i32> {
    let row = line.saturating_sub(1) as usize;
    let text = lines.get(row).copied().unwrap_or("");
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = text[from..].find(name).map(|i| i + from) {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            return vec![row as i32, i as i32, (i + name.len()) as i32];
        }
        from = i + name.len().max(1);
        if from >= text.len() {
            break;
        }
    }
    vec![row as i32, 0, 0]
}

/// Writes the SCIP index of `root`'s tsa index to `out`.
pub fn export(root: &Path, out: &Path) -> Result<Report, ScipError> {
    let index = Index::open(root)?.ok_or_else(|| ScipError::NoIndex(root.display().to_string()))?;
    let project = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into());
    let files = index.files()?;
    // Every definition first, so references anywhere can name their target.
    let mut by_file: Vec<(String, Vec<SymbolRow>)> = Vec::with_capacity(files.len());
    let mut by_id: HashMap<i64, SymbolRow> = HashMap::new();
    for f in &files {
        let syms = index.symbols_in_file(f)?;
        for s in &syms {
            by_id.insert(s.id, s.clone());
        }
        by_file.push((f.clone(), syms));
    }
    let ids: Vec<i64> = by_id.keys().copied().collect();
    let parents = index.parents_of(&ids)?;
    let chain = |s: &SymbolRow| -> Vec<&SymbolRow> {
        let mut out = Vec::new();
        let mut cur = parents.get(&s.id);
        while let Some(p) = cur.and_then(|p| by_id.get(p)) {
            out.push(p);
            cur = parents.get(&p.id);
        }
        out
    };
    let symbol_of: HashMap<i64, String> = by_id
        .values()
        .map(|s| (s.id, scip_symbol(&project, s, &chain(s))))
        .collect();
    let bases = index.bases_of(&ids)?;
    let mut implements: HashMap<i64, Vec<i64>> = HashMap::new();
    for b in bases {
        if let Some(t) = b.target {
            implements.entry(b.symbol.id).or_default().push(t.id);
        }
    }

    let mut report = Report::default();
    let mut documents = Vec::with_capacity(by_file.len());
    for (file, syms) in by_file {
        let text = match tsa_index::read_confined(root, &file) {
            Ok(bytes) => String::from_utf8(bytes).unwrap_or_default(),
            Err(e) => {
                if e.is_outside() {
                    report.linked.push(file.clone());
                }
                String::new()
            }
        };
        let lines: Vec<&str> = text.lines().collect();
        let mut doc = Document {
            relative_path: file.clone(),
            language: syms.first().map(|s| s.language.clone()).unwrap_or_default(),
            position_encoding: EnumOrUnknown::new(
                PositionEncoding::UTF8CodeUnitOffsetFromLineStart,
            ),
            ..Default::default()
        };
        for s in &syms {
            let symbol = symbol_of[&s.id].clone();
            doc.occurrences.push(Occurrence {
                range: range_of(&lines, s.line, &s.name),
                symbol: symbol.clone(),
                symbol_roles: SymbolRole::Definition as i32,
                enclosing_range: vec![
                    s.line.saturating_sub(1) as i32,
                    0,
                    s.end_line.saturating_sub(1) as i32,
                    lines
                        .get(s.end_line.saturating_sub(1) as usize)
                        .map_or(0, |l| l.len() as i32),
                ],
                ..Default::default()
            });
            let relationships: Vec<Relationship> = implements
                .get(&s.id)
                .into_iter()
                .flatten()
                .filter_map(|t| symbol_of.get(t))
                .map(|t| Relationship {
                    symbol: t.clone(),
                    is_implementation: true,
                    ..Default::default()
                })
                .collect();
            report.relationships += relationships.len();
            doc.symbols.push(SymbolInformation {
                symbol,
                kind: EnumOrUnknown::new(kind_of(&s.kind)),
                display_name: s.name.clone(),
                documentation: if s.signature.is_empty() {
                    Vec::new()
                } else {
                    vec![format!("```{}\n{}\n```", s.language, s.signature)]
                },
                enclosing_symbol: parents
                    .get(&s.id)
                    .and_then(|p| symbol_of.get(p))
                    .cloned()
                    .unwrap_or_default(),
                relationships,
                ..Default::default()
            });
            report.definitions += 1;
        }
        for c in index.calls_in_file(&file)? {
            let Some(t) = c.target.as_ref().and_then(|t| symbol_of.get(&t.id)) else {
                continue;
            };
            doc.occurrences.push(Occurrence {
                range: range_of(&lines, c.line, &c.callee_name),
                symbol: t.clone(),
                symbol_roles: SymbolRole::ReadAccess as i32,
                ..Default::default()
            });
            report.references += 1;
        }
        report.symbols += doc.symbols.len();
        documents.push(doc);
    }
    report.documents = documents.len();
    let scip_index = ScipIndex {
        metadata: MessageField::some(Metadata {
            version: EnumOrUnknown::new(ProtocolVersion::UnspecifiedProtocolVersion),
            tool_info: MessageField::some(ToolInfo {
                name: "tsa".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Default::default()
            }),
            project_root: format!("file://{}", root.display()),
            text_document_encoding: EnumOrUnknown::new(TextEncoding::UTF8),
            ..Default::default()
        }),
        documents,
        ..Default::default()
    };
    // Written next to the target and renamed, so a reader never sees half a file.
    let tmp = out.with_extension("scip.partial");
    scip::write_message_to_file(&tmp, scip_index).map_err(|e| ScipError::Write(e.to_string()))?;
    std::fs::rename(&tmp, out).map_err(|e| ScipError::Write(e.to_string()))?;
    report.bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_find_whole_words() {
        let lines = ["    x = build_all(build(1))"];
        assert_eq!(range_of(&lines, 1, "build"), vec![0, 18, 23]);
        assert_eq!(range_of(&lines, 1, "nothing"), vec![0, 0, 0]);
        assert_eq!(range_of(&lines, 9, "x"), vec![8, 0, 0]);
    }
}

#[cfg(all(test, unix))]
mod linked {
    use super::*;

    /// A file swapped for a link out of the root after indexing is not read: its
    /// document keeps column-0 positions and the report names it.
    #[test]
    fn a_file_swapped_for_a_link_out_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("proj");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.py"), "def f():\n    return 1\n").unwrap();
        std::fs::write(root.join("b.py"), "def g():\n    return 2\n").unwrap();
        tsa_index::build(&root, &tsa_index::BuildOptions::default()).unwrap();
        std::fs::write(base.join("secret.py"), "def f():  # zq7xk\n").unwrap();
        std::fs::remove_file(root.join("a.py")).unwrap();
        std::os::unix::fs::symlink(base.join("secret.py"), root.join("a.py")).unwrap();
        let out = root.join("out.scip");
        let report = export(&root, &out).unwrap();
        assert_eq!(report.linked, vec!["a.py".to_owned()]);
        assert_eq!(report.documents, 2);
        let bytes = std::fs::read(&out).unwrap();
        assert!(!bytes.windows(5).any(|w| w == b"zq7xk"));
    }
}
