//! Compiler-grade edges from SCIP indexes (`scip-python`, `scip-typescript`,
//! `rust-analyzer scip`, `scip-go`, ...): each call site a fresh SCIP document
//! resolves gets that target, class `compiler`, confidence 1.0; calls into symbols
//! defined outside the project become `external` (or `stdlib`) with their package.
//!
//! Documents are streamed from the file one at a time (a large SCIP file is never
//! held whole). A document is matched to an indexed file by relative path and is
//! fresh only when its occurrences still name what the file says at their
//! positions; a stale one (the file changed since the SCIP index was made) is
//! counted and ignored. Nothing is written unless every input parses: a corrupt
//! or truncated file leaves the index as it was.

use std::collections::{HashMap, HashSet};
use std::io::{BufReader, Read};
use std::path::Path;
use std::time::Instant;

use protobuf::{CodedInputStream, Message};
use scip::types::{Document, PositionEncoding, SymbolRole};
use serde::{Deserialize, Serialize};

use crate::IndexError;

/// The SCIP file picked up at the project root without being named.
pub const DEFAULT_SCIP: &str = "index.scip";

/// Largest SCIP document read (a protobuf length prefix beyond this is corruption).
const MAX_DOCUMENT: u64 = 256 * 1024 * 1024;

/// Stale documents named in the report.
const STALE_LISTED: usize = 20;

/// What one import did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScipReport {
    /// The SCIP files read, project-relative.
    pub inputs: Vec<String>,
    /// Documents read, and of them: fresh (applied), stale (the file changed since),
    /// without a file (not indexed here).
    pub documents: usize,
    pub fresh: usize,
    pub stale: usize,
    pub without_file: usize,
    /// Up to 20 stale files, for the agent to re-run the indexer on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_files: Vec<String>,
    /// Call sites whose heuristic target the SCIP index confirmed.
    pub upgraded: usize,
    /// Call sites the heuristics left without a project target, now bound.
    pub added: usize,
    /// Call sites whose heuristic target the SCIP index contradicts, now rebound.
    pub contradicted: usize,
    /// Call sites into symbols defined outside the project.
    pub external: usize,
    /// SCIP references to callables with no call site of that name on their line
    /// (decorators, callbacks passed as values, ...).
    pub references_without_call_site: usize,
    /// Targets whose definition the index does not hold at the SCIP position.
    pub unmapped_targets: usize,
    pub bytes: u64,
    pub ms: u128,
}

/// One call the SCIP index resolves.
#[derive(Clone, Debug)]
pub(crate) struct Edge {
    pub file: String,
    /// 1-based.
    pub line: u32,
    pub callee: String,
    pub target: Target,
}

#[derive(Clone, Debug)]
pub(crate) enum Target {
    /// A project definition named `name` on 1-based `line` of `file`.
    Def {
        file: String,
        line: u32,
        name: String,
    },
    /// A symbol of another package.
    Outside { stdlib: bool, package: String },
}

/// What the SCIP symbol of an occurrence says.
#[derive(Clone, Debug)]
struct SymInfo {
    /// The identifier written at an occurrence (the last descriptor's name).
    name: String,
    callable: bool,
    /// `X#<constructor>().` stands for the class `X#`.
    class_of_constructor: Option<String>,
    /// Whether the name is written at its occurrences (a module reference such as
    /// `os/__init__:` is written `os`; it is not checked for staleness).
    checkable: bool,
    package: String,
    stdlib: bool,
}

fn sym_info(symbol: &str) -> Option<SymInfo> {
    if scip::symbol::is_local_symbol(symbol) {
        return None;
    }
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    let last = parsed.descriptors.last()?;
    use scip::types::descriptor::Suffix;
    let suffix = last.suffix.enum_value().ok()?;
    let package = parsed
        .package
        .as_ref()
        .map(|p| p.name.clone())
        .unwrap_or_default();
    let stdlib = package == "python-stdlib"
        || package == "typescript"
        || package.starts_with("@types/node")
        || package == "std"
        || package == "core"
        || package == "alloc";
    let (name, class_of_constructor) = if last.name == "<constructor>" {
        let class = parsed
            .descriptors
            .iter()
            .rev()
            .nth(1)
            .map(|d| d.name.clone())
            .unwrap_or_default();
        let cut = symbol
            .rfind("`<constructor>`")
            .or_else(|| symbol.rfind("<constructor>"))
            .unwrap_or(symbol.len());
        (class, Some(symbol[..cut].to_owned()))
    } else {
        (last.name.clone(), None)
    };
    let checkable = class_of_constructor.is_none()
        && matches!(
            suffix,
            Suffix::Method
                | Suffix::Type
                | Suffix::Term
                | Suffix::Parameter
                | Suffix::TypeParameter
                | Suffix::Macro
        )
        && !name.starts_with("__init__")
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    Some(SymInfo {
        checkable,
        name,
        callable: matches!(suffix, Suffix::Method | Suffix::Type | Suffix::Macro),
        class_of_constructor,
        package,
        stdlib,
    })
}

/// Streams the documents of a SCIP file to `each`.
fn read_documents(
    path: &Path,
    shown: &str,
    mut each: impl FnMut(Document) -> Result<(), IndexError>,
) -> Result<u64, IndexError> {
    let bad = |e: String| IndexError::Scip(format!("{shown}: {e}"));
    let file = std::fs::File::open(path).map_err(|e| bad(e.to_string()))?;
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = BufReader::new(file);
    let mut input = CodedInputStream::new(&mut reader as &mut dyn Read);
    let mut buf = Vec::new();
    while let Some(tag) = input
        .read_raw_tag_or_eof()
        .map_err(|e| bad(e.to_string()))?
    {
        let field = tag >> 3;
        let wire = protobuf::rt::WireType::new(tag & 7)
            .ok_or_else(|| bad(format!("not a SCIP index (wire type {})", tag & 7)))?;
        if field == 2 && wire == protobuf::rt::WireType::LengthDelimited {
            let len = input.read_raw_varint64().map_err(|e| bad(e.to_string()))?;
            if len > MAX_DOCUMENT || len > bytes {
                return Err(bad(format!(
                    "a document of {len} bytes: corrupt or truncated"
                )));
            }
            buf.clear();
            input
                .read_raw_bytes_into(len as u32, &mut buf)
                .map_err(|e| bad(format!("truncated: {e}")))?;
            let doc = Document::parse_from_bytes(&buf).map_err(|e| bad(e.to_string()))?;
            each(doc)?;
        } else if (1..=3).contains(&field) {
            input.skip_field(wire).map_err(|e| bad(e.to_string()))?;
        } else {
            return Err(bad(format!("not a SCIP index (field {field})")));
        }
    }
    Ok(bytes)
}

/// The text of `line` between two SCIP character offsets.
fn slice(line: &str, start: usize, end: usize, enc: PositionEncoding) -> Option<&str> {
    let byte = |off: usize| -> Option<usize> {
        match enc {
            PositionEncoding::UTF8CodeUnitOffsetFromLineStart => {
                line.is_char_boundary(off).then_some(off)
            }
            PositionEncoding::UTF32CodeUnitOffsetFromLineStart => line
                .char_indices()
                .map(|(i, _)| i)
                .chain([line.len()])
                .nth(off),
            // UTF-16, and the default for an unspecified encoding.
            _ => {
                let mut units = 0;
                for (i, c) in line.char_indices() {
                    if units == off {
                        return Some(i);
                    }
                    units += c.len_utf16();
                }
                (units == off).then_some(line.len())
            }
        }
    };
    let (s, e) = (byte(start)?, byte(end)?);
    (s <= e).then(|| &line[s..e])
}

/// Whether `w`, a slice of `line`, is one whole identifier there (`CharField` in
/// `models.CharField(`), not a piece of one or of other text.
fn on_whole_identifier(line: &str, w: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    if w.is_empty() || !w.chars().all(is_word) {
        return false;
    }
    let start = w.as_ptr() as usize - line.as_ptr() as usize;
    let end = start + w.len();
    !line[..start].chars().next_back().is_some_and(is_word)
        && !line[end..].chars().next().is_some_and(is_word)
}

/// Whether `text` holds `name` as a whole word.
fn names_word(text: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(is_word)
            && !text[i + name.len()..].chars().next().is_some_and(is_word)
    })
}

/// Everything read from the inputs, before anything is written.
pub(crate) struct Collected {
    pub edges: Vec<Edge>,
    pub report: ScipReport,
}

/// Reads the SCIP files `inputs` (project-relative) against the indexed files
/// `indexed`, reading each document's file confined to `root`.
pub(crate) fn collect(
    root: &Path,
    inputs: &[String],
    indexed: &HashSet<String>,
) -> Result<Collected, IndexError> {
    let started = Instant::now();
    let mut report = ScipReport {
        inputs: inputs.to_vec(),
        ..ScipReport::default()
    };
    let mut infos: HashMap<String, Option<SymInfo>> = HashMap::new();
    // Symbols defined in any document (project symbols), and where, in fresh ones.
    let mut project: HashSet<String> = HashSet::new();
    let mut defs: HashMap<String, (String, u32)> = HashMap::new();
    // References of fresh documents: (file, 1-based line, name written, symbol).
    let mut refs: Vec<(String, u32, String, String)> = Vec::new();
    for input in inputs {
        let path = crate::confined(root, input).map_err(|e| IndexError::Scip(e.to_string()))?;
        report.bytes += read_documents(&path, input, |doc| {
            report.documents += 1;
            let rel = doc.relative_path.trim_start_matches("./").to_owned();
            for o in &doc.occurrences {
                if o.symbol_roles & SymbolRole::Definition as i32 != 0
                    && !scip::symbol::is_local_symbol(&o.symbol)
                {
                    project.insert(o.symbol.clone());
                }
            }
            if !indexed.contains(&rel) {
                report.without_file += 1;
                return Ok(());
            }
            let Ok(bytes) = crate::read_confined(root, &rel) else {
                report.without_file += 1;
                return Ok(());
            };
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<&str> = text.split('\n').collect();
            let enc = doc.position_encoding.enum_value_or_default();
            let (mut checked, mut wrong) = (0usize, 0usize);
            let mut doc_refs = Vec::new();
            let mut doc_defs = Vec::new();
            for o in &doc.occurrences {
                let info = infos
                    .entry(o.symbol.clone())
                    .or_insert_with(|| sym_info(&o.symbol));
                let Some(info) = info.as_ref() else { continue };
                let (line, start, end) = match o.range[..] {
                    [l, s, e] => (l, s, e),
                    [l, s, el, e] if l == el => (l, s, e),
                    _ => continue,
                };
                let (Ok(line), Ok(start), Ok(end)) = (
                    usize::try_from(line),
                    usize::try_from(start),
                    usize::try_from(end),
                ) else {
                    continue;
                };
                let text_line = lines.get(line).map(|l| l.trim_end_matches('\r'));
                let written = text_line.and_then(|l| slice(l, start, end, enc));
                // Only names written as such are checked (not modules, `<constructor>`).
                // An occurrence on a whole identifier of another name is the indexer's
                // mistake (scip-python through star imports); one that no longer sits
                // on an identifier at all is the file's change.
                if info.checkable && !info.name.is_empty() {
                    checked += 1;
                    // (`Flask as Flask`: some indexers cover a whole import clause.)
                    let right =
                        written.is_some_and(|w| w == info.name || names_word(w, &info.name));
                    let on_identifier = written.is_some_and(|w| {
                        let l = text_line.unwrap_or("");
                        on_whole_identifier(l, w)
                    });
                    if !right && !on_identifier {
                        wrong += 1;
                    }
                }
                if o.symbol_roles & SymbolRole::Definition as i32 != 0 {
                    doc_defs.push((o.symbol.clone(), line as u32 + 1));
                } else if info.callable
                    && let Some(w) = written
                {
                    doc_refs.push((line as u32 + 1, w.to_owned(), o.symbol.clone()));
                }
            }
            // Stale: the text no longer matches (an edit shifts lines and moves every
            // name after it); a few odd occurrences are the indexer's, not an edit's.
            let stale =
                (!doc.text.is_empty() && doc.text != text) || (wrong >= 3 && wrong * 10 > checked);
            if stale {
                report.stale += 1;
                if report.stale_files.len() < STALE_LISTED {
                    report.stale_files.push(rel);
                }
                return Ok(());
            }
            report.fresh += 1;
            for (sym, line) in doc_defs {
                defs.entry(sym).or_insert((rel.clone(), line));
            }
            refs.extend(
                doc_refs
                    .into_iter()
                    .map(|(line, w, sym)| (rel.clone(), line, w, sym)),
            );
            Ok(())
        })?;
    }
    let mut edges = Vec::with_capacity(refs.len());
    for (file, line, written, sym) in refs {
        let Some(Some(info)) = infos.get(&sym) else {
            continue;
        };
        let def_sym = info.class_of_constructor.clone().unwrap_or(sym.clone());
        let target = match defs.get(&def_sym) {
            Some((tf, tl)) => Target::Def {
                file: tf.clone(),
                line: *tl,
                name: info.name.clone(),
            },
            // Defined in the project, but in a stale document: not known here.
            None if project.contains(&def_sym) => continue,
            None => Target::Outside {
                stdlib: info.stdlib,
                package: info.package.clone(),
            },
        };
        // `new X()` is written `X`; a call is written with its callee's name (an
        // occurrence on another name is the indexer's mistake: not applied).
        if info.class_of_constructor.is_none() && written != info.name {
            continue;
        }
        let callee = written;
        edges.push(Edge {
            file,
            line,
            callee,
            target,
        });
    }
    report.ms = started.elapsed().as_millis();
    Ok(Collected { edges, report })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_by_encoding() {
        let line = "x = héllo(1)";
        assert_eq!(
            slice(
                line,
                4,
                9,
                PositionEncoding::UTF16CodeUnitOffsetFromLineStart
            ),
            Some("héllo")
        );
        assert_eq!(
            slice(
                line,
                4,
                10,
                PositionEncoding::UTF8CodeUnitOffsetFromLineStart
            ),
            Some("héllo")
        );
        assert_eq!(
            slice(
                line,
                4,
                9,
                PositionEncoding::UTF32CodeUnitOffsetFromLineStart
            ),
            Some("héllo")
        );
        assert_eq!(
            slice(
                "ab",
                1,
                9,
                PositionEncoding::UTF16CodeUnitOffsetFromLineStart
            ),
            None
        );
    }

    #[test]
    fn symbols_say_name_kind_and_package() {
        let s = sym_info("scip-python python flask 3.1 `flask.helpers`/url_for().").unwrap();
        assert_eq!(s.name, "url_for");
        assert!(s.callable);
        let c = sym_info(
            "scip-typescript npm rxjs 7.8 src/`Observable.ts`/Observable#`<constructor>`().",
        )
        .unwrap();
        assert_eq!(c.name, "Observable");
        assert_eq!(
            c.class_of_constructor.as_deref(),
            Some("scip-typescript npm rxjs 7.8 src/`Observable.ts`/Observable#")
        );
        let std = sym_info("scip-python python python-stdlib 3.11 json/dumps().").unwrap();
        assert!(std.stdlib);
        assert!(sym_info("local 3").is_none());
    }
}
