//! What Markdown documents say about the code: links and path-like code spans
//! (files and folders), and code spans naming callables (`build()`, `Engine.run`,
//! `Store::open`) or bare identifiers. `project doc_sync` checks them against the
//! index; `index knowledge` turns them into `documents` edges.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use globset::GlobSet;
use regex::Regex;

/// Whether a code span ending in `.ext` may name a source file: some language's
/// `doc_path_extensions` convention lists it.
fn source_ext(ext: &str) -> bool {
    tsa_lang::Language::ALL.iter().any(|l| {
        l.conventions()
            .doc_path_extensions
            .get()
            .is_some_and(|exts| exts.contains(&ext))
    })
}

static LINK: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\[[^\]]*\]\(([^)\s]+)(?:\s+[^)]*)?\)").ok());
static SPAN: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").ok());

/// A code span that names a file: a `/` or a source extension, no spaces.
pub fn looks_like_path(s: &str) -> bool {
    !s.contains(char::is_whitespace)
        && !s.contains("://")
        && !s.starts_with('-')
        && (s.contains('/')
            || s.rsplit_once('.')
                .is_some_and(|(stem, ext)| !stem.is_empty() && source_ext(ext)))
        && s.chars().all(|c| c.is_alphanumeric() || "/._-".contains(c))
}

fn ident(p: &str) -> bool {
    !p.is_empty()
        && p.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !p.starts_with(|c: char| c.is_ascii_digit())
}

/// A code span that names a callable: `name()`, `Owner.name(...)`, `Type::name`.
/// Returns (owner, name).
pub fn looks_like_symbol(s: &str) -> Option<(Option<String>, String)> {
    let call = s
        .strip_suffix("()")
        .or_else(|| s.find('(').filter(|_| s.ends_with(')')).map(|i| &s[..i]));
    let body = call.unwrap_or(s);
    if body.is_empty() || body.contains(char::is_whitespace) {
        return None;
    }
    let parts: Vec<&str> = body.split(['.', ':']).filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || !parts.iter().all(|p| ident(p)) {
        return None;
    }
    let name = parts[parts.len() - 1].to_owned();
    let owner = (parts.len() > 1).then(|| parts[parts.len() - 2].to_owned());
    // Without call parentheses only `Type.member` / `Type::member` counts.
    let typed_owner = owner
        .as_deref()
        .is_some_and(|o| o.starts_with(|c: char| c.is_uppercase()));
    (call.is_some() || typed_owner).then_some((owner, name))
}

/// What one reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefKind {
    /// A file or folder, from a link (`via = "link"`) or a code span (`"code_span"`).
    Path { via: &'static str },
    /// A callable or `Type.member`.
    Symbol { owner: Option<String>, name: String },
    /// A code span that is one bare identifier (`Engine`): a name, maybe a definition.
    Ident,
}

/// One reference of a document, outside fenced code blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// 1-based line.
    pub line: usize,
    /// The reference as written (a link's target without its `#anchor`).
    pub text: String,
    pub kind: RefKind,
}

/// Every reference of a Markdown text, line by line: links, then path spans, then
/// symbol spans, then bare identifiers. Fenced code blocks are skipped.
pub fn references(text: &str) -> Vec<Reference> {
    let (Some(link), Some(span)) = (LINK.as_ref(), SPAN.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let at = i + 1;
        for c in link.captures_iter(line) {
            let target = c[1].split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            out.push(Reference {
                line: at,
                text: target.to_owned(),
                kind: RefKind::Path { via: "link" },
            });
        }
        let mut symbols = Vec::new();
        let mut idents = Vec::new();
        for c in span.captures_iter(line) {
            let s = c[1].trim();
            if looks_like_path(s) {
                out.push(Reference {
                    line: at,
                    text: s.to_owned(),
                    kind: RefKind::Path { via: "code_span" },
                });
            } else if let Some((owner, name)) = looks_like_symbol(s) {
                symbols.push(Reference {
                    line: at,
                    text: s.to_owned(),
                    kind: RefKind::Symbol { owner, name },
                });
            } else if ident(s) {
                idents.push(Reference {
                    line: at,
                    text: s.to_owned(),
                    kind: RefKind::Ident,
                });
            }
        }
        out.extend(symbols);
        out.extend(idents);
    }
    out
}

/// Where a path reference of the document in folder `doc_dir` points: the canonical
/// path, tried relative to the document first, then to the root. Never a path
/// outside the root.
pub fn resolve_path(root: &Path, doc_dir: &str, reference: &str) -> Option<PathBuf> {
    [
        root.join(doc_dir).join(reference),
        root.join(reference.trim_start_matches('/')),
    ]
    .iter()
    .find_map(|c| c.canonicalize().ok().filter(|abs| abs.starts_with(root)))
}

/// The documents of the project matching `globs` (project-relative, sorted), walked
/// like the index walk (gitignore, hidden and vendored folders skipped), at most
/// `max` of them; the flag says whether more were there.
pub fn walk_docs(root: &Path, globs: &GlobSet, max: usize) -> (Vec<String>, bool) {
    let mut docs = Vec::new();
    let mut more = false;
    for e in ignore::WalkBuilder::new(root)
        .hidden(true)
        .require_git(false)
        .filter_entry(|e| !tsa_index::is_skipped_dir(&e.file_name().to_string_lossy()))
        .build()
        .flatten()
    {
        if !e.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Some(rel) = tsa_index::relative(root, e.path())
            && globs.is_match(&rel)
        {
            if docs.len() >= max {
                more = true;
                continue;
            }
            docs.push(rel);
        }
    }
    docs.sort();
    (docs, more)
}

/// A Markdown reference that no longer matches the code.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StaleRef {
    pub doc: String,
    pub line: usize,
    pub reference: String,
    /// `path` or `symbol`.
    pub kind: &'static str,
    /// `link` or `code_span` (paths only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'static str>,
    pub reason: &'static str,
}

/// What a documentation check found.
#[derive(Clone, Debug, Default)]
pub struct DocCheck {
    /// Documents read.
    pub documents: usize,
    /// Path and symbol references checked.
    pub checked: usize,
    /// In document order.
    pub stale: Vec<StaleRef>,
    /// Documents not read because they are (below) symlinks leaving the root.
    pub linked: Vec<String>,
}

/// Whether a symbol reference names a definition of the index: by name, on its
/// owner (a type, or any module for a lower-case owner).
fn symbol_found(defs: &[tsa_index::SymbolRow], owner: Option<&str>) -> bool {
    match owner {
        Some(o) => {
            defs.iter()
                .any(|d| d.owner.as_deref() == Some(o) || d.qualname.contains(o))
                // `module.func()`: the owner may be a module, not a type.
                || (!o.starts_with(|c: char| c.is_uppercase()) && !defs.is_empty())
        }
        None => !defs.is_empty(),
    }
}

/// The stale path and symbol references of the documents matching `globs`.
pub fn stale_references(
    root: &Path,
    index: &tsa_index::Index,
    globs: &GlobSet,
) -> Result<DocCheck, crate::error::ToolError> {
    let (docs, _) = walk_docs(root, globs, usize::MAX);
    let mut known: std::collections::HashSet<String> = Default::default();
    let mut out = DocCheck {
        documents: docs.len(),
        ..DocCheck::default()
    };
    for doc in &docs {
        let text = match crate::security::read_text_in_root(root, doc) {
            Ok(t) => t,
            Err(crate::error::ToolError::Linked(_)) => {
                out.linked.push(doc.clone());
                continue;
            }
            Err(_) => continue,
        };
        let dir = doc.rsplit_once('/').map_or("", |(d, _)| d);
        for r in references(&text) {
            match r.kind {
                RefKind::Path { via } => {
                    out.checked += 1;
                    if resolve_path(root, dir, &r.text).is_none() {
                        out.stale.push(StaleRef {
                            doc: doc.clone(),
                            line: r.line,
                            reference: r.text,
                            kind: "path",
                            via: Some(via),
                            reason: "no such file or folder in the project",
                        });
                    }
                }
                RefKind::Symbol { owner, name } => {
                    out.checked += 1;
                    if known.contains(&r.text)
                        || tsa_lang::Language::ALL.iter().any(|l| l.is_builtin(&name))
                    {
                        continue;
                    }
                    let defs = index.find_symbols(&name, None, None)?;
                    if symbol_found(&defs, owner.as_deref()) {
                        known.insert(r.text);
                    } else {
                        out.stale.push(StaleRef {
                            doc: doc.clone(),
                            line: r.line,
                            reference: r.text,
                            kind: "symbol",
                            via: None,
                            reason: if defs.is_empty() {
                                "no definition of this name in the index"
                            } else {
                                "the name exists, but not on that owner"
                            },
                        });
                    }
                }
                RefKind::Ident => {}
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_paths_and_symbols_from_prose() {
        assert!(looks_like_path("app/core.py"));
        assert!(looks_like_path("core.py"));
        assert!(!looks_like_path("cargo test"));
        assert!(!looks_like_path("https://x.org/a"));
        assert!(!looks_like_path("v1.2"));
        assert_eq!(looks_like_symbol("build()"), Some((None, "build".into())));
        assert_eq!(
            looks_like_symbol("Engine.run"),
            Some((Some("Engine".into()), "run".into()))
        );
        assert_eq!(
            looks_like_symbol("Store::open(path)"),
            Some((Some("Store".into()), "open".into()))
        );
        assert_eq!(
            looks_like_symbol("json.dumps()"),
            Some((Some("json".into()), "dumps".into()))
        );
        assert_eq!(looks_like_symbol("some words"), None);
        assert_eq!(
            looks_like_symbol("x.y"),
            None,
            "lower-case owner without a call: prose-like"
        );
    }

    #[test]
    fn references_skip_fences_and_keep_line_order() {
        let text = "See [core](app/core.py#L3) and `Engine.run`, `Engine`.\n```\n`hidden()`\n```\n`build()` in `app/`\n";
        let refs = references(text);
        let got: Vec<(usize, &str, &RefKind)> = refs
            .iter()
            .map(|r| (r.line, r.text.as_str(), &r.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "app/core.py", &RefKind::Path { via: "link" }),
                (
                    1,
                    "Engine.run",
                    &RefKind::Symbol {
                        owner: Some("Engine".into()),
                        name: "run".into()
                    }
                ),
                (1, "Engine", &RefKind::Ident),
                (5, "app/", &RefKind::Path { via: "code_span" }),
                (
                    5,
                    "build()",
                    &RefKind::Symbol {
                        owner: None,
                        name: "build".into()
                    }
                ),
            ]
        );
    }

    #[test]
    fn symbol_references_match_a_type_owner_or_any_module() {
        let def = |qualname: &str, owner: Option<&str>| tsa_index::SymbolRow {
            id: 1,
            name: "run".into(),
            kind: "method".into(),
            qualname: qualname.into(),
            owner: owner.map(Into::into),
            file: "a.py".into(),
            language: "python".into(),
            line: 1,
            end_line: 2,
            signature: String::new(),
            is_test: false,
        };
        let defs = vec![def("Engine.run", Some("Engine"))];
        assert!(symbol_found(&defs, Some("Engine")));
        assert!(
            !symbol_found(&defs, Some("Store")),
            "a type owner must match"
        );
        assert!(
            symbol_found(&defs, Some("jobs")),
            "a module owner is not checked"
        );
        assert!(symbol_found(&defs, None));
        assert!(!symbol_found(&[], None));
    }
}
