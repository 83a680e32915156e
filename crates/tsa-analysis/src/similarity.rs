//! Clone groups of functions (analyses §13) for `viz similarity`. Structural: the
//! pre-order sequence of `<node kind>:<child count>` of a function's parse tree to
//! depth 15 (names and literals ignored). Textual: the function's tokens with
//! comments dropped (comment nodes of the grammar, so `#` in C or CSS is safe) and
//! identifiers replaced by `_`. Equal fingerprints (BLAKE3, stable across runs)
//! make a group.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use tsa_index::{Index, SymbolRow};
use tsa_lang::Language;

use crate::error::ToolError;

/// What to compare.
#[derive(Debug, Clone)]
pub struct CloneOptions {
    /// Compare parse-tree structure.
    pub structural: bool,
    /// Compare token text (names ignored).
    pub textual: bool,
    /// Shortest function compared, in lines.
    pub min_lines: u32,
    /// Fewest functions that make a group.
    pub min_group: usize,
    /// Only files matching these globs.
    pub filter: Option<GlobSet>,
}

/// Functions with one fingerprint.
#[derive(Debug, Clone)]
pub struct CloneGroup {
    /// `structural` or `textual`.
    pub method: &'static str,
    /// The first 16 hex digits of the BLAKE3 fingerprint.
    pub fingerprint: String,
    /// Its functions, by file then line.
    pub functions: Vec<SymbolRow>,
}

impl CloneGroup {
    /// Lines of its first function.
    pub fn lines(&self) -> u32 {
        self.functions[0].end_line - self.functions[0].line + 1
    }
}

/// The clone groups of a project.
#[derive(Debug, Clone)]
pub struct Clones {
    /// Functions compared.
    pub candidates: usize,
    /// Biggest groups first, then the longest functions.
    pub groups: Vec<CloneGroup>,
}

impl Clones {
    /// Functions in a group.
    pub fn instances(&self) -> usize {
        self.groups.iter().map(|g| g.functions.len()).sum()
    }
}

/// Comma-separated globs (empty: none).
pub fn path_filter(list: Option<&str>) -> Result<Option<GlobSet>, ToolError> {
    let Some(list) = list.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let mut b = GlobSetBuilder::new();
    for g in list.split(',').map(str::trim).filter(|g| !g.is_empty()) {
        b.add(
            Glob::new(g)
                .map_err(|e| ToolError::Validation(format!("path_filter: bad glob '{g}': {e}")))?,
        );
    }
    Ok(Some(
        b.build()
            .map_err(|e| ToolError::Validation(e.to_string()))?,
    ))
}

const MAX_DEPTH: usize = 15;

fn structural(node: tree_sitter::Node<'_>, depth: usize, h: &mut blake3::Hasher) {
    let mut c = node.walk();
    // Comments are not structure.
    let children: Vec<_> = node
        .children(&mut c)
        .filter(|n| !n.kind().contains("comment"))
        .collect();
    h.update(node.kind().as_bytes());
    h.update(format!(":{}|", children.len()).as_bytes());
    if depth >= MAX_DEPTH {
        return;
    }
    for child in children {
        structural(child, depth + 1, h);
    }
}

/// Hashes the leaves in source order (names as `_`), with an explicit stack: a
/// deeply nested function must not exhaust the thread's stack.
fn textual(node: tree_sitter::Node<'_>, src: &[u8], h: &mut blake3::Hasher) {
    let mut stack = vec![node];
    let mut c = node.walk();
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        if kind.contains("comment") {
            continue;
        }
        if node.child_count() == 0 {
            if node.is_named()
                && (kind.contains("identifier") || kind == "name" || kind == "constant")
            {
                h.update(b"_");
            } else {
                let text = node.utf8_text(src).unwrap_or("");
                let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                h.update(squeezed.as_bytes());
            }
            h.update(b"\x1f");
            continue;
        }
        let start = stack.len();
        stack.extend(node.children(&mut c));
        stack[start..].reverse();
    }
}

/// The node of a definition: the outermost node starting on its first line and
/// ending on its last.
fn def_node<'t>(root: tree_sitter::Node<'t>, d: &SymbolRow) -> Option<tree_sitter::Node<'t>> {
    let (first, last) = (d.line as usize - 1, d.end_line as usize - 1);
    let mut node = root.descendant_for_point_range(
        tree_sitter::Point::new(first, 0),
        tree_sitter::Point::new(last, 0),
    )?;
    while let Some(p) = node.parent() {
        if p.start_position().row < first || p.end_position().row > last {
            break;
        }
        node = p;
    }
    (node.start_position().row >= first && node.end_position().row <= last).then_some(node)
}

/// The (method, fingerprint) pairs of one definition node.
fn prints(
    lang: Language,
    node: tree_sitter::Node<'_>,
    src: &[u8],
    o: &CloneOptions,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if o.structural {
        let mut h = blake3::Hasher::new();
        h.update(lang.name().as_bytes());
        structural(node, 0, &mut h);
        out.push(("structural", h.finalize().to_hex()[..16].to_owned()));
    }
    if o.textual {
        let mut h = blake3::Hasher::new();
        h.update(lang.name().as_bytes());
        textual(node, src, &mut h);
        out.push(("textual", h.finalize().to_hex()[..16].to_owned()));
    }
    out
}

/// The fingerprints of one file's definitions (nothing when it cannot be read or
/// parsed).
fn file_prints(
    root: &Path,
    file: &str,
    defs: Vec<SymbolRow>,
    o: &CloneOptions,
) -> Vec<(&'static str, String, SymbolRow)> {
    let mut out = Vec::new();
    let Some(lang) = Language::from_path(file) else {
        return out;
    };
    let Ok(src) = crate::security::read_in_root(root, file) else {
        return out;
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&lang.grammar()).is_err() {
        return out;
    }
    let Some(tree) = parser.parse(&src, None) else {
        return out;
    };
    for d in defs {
        let Some(node) = def_node(tree.root_node(), &d) else {
            continue;
        };
        for (method, fp) in prints(lang, node, &src, o) {
            out.push((method, fp, d.clone()));
        }
    }
    out
}

/// Groups `prints` by fingerprint, keeps those of at least `min_group` functions,
/// biggest first, then the longest functions, then by method and fingerprint.
fn group(prints: Vec<(&'static str, String, SymbolRow)>, min_group: usize) -> Vec<CloneGroup> {
    let mut groups: HashMap<(&'static str, String), Vec<SymbolRow>> = HashMap::new();
    for (method, fp, d) in prints {
        groups.entry((method, fp)).or_default().push(d);
    }
    let mut groups: Vec<CloneGroup> = groups
        .into_iter()
        .filter(|(_, v)| v.len() >= min_group)
        .map(|((method, fingerprint), functions)| CloneGroup {
            method,
            fingerprint,
            functions,
        })
        .collect();
    groups.sort_by(|a, b| {
        b.functions
            .len()
            .cmp(&a.functions.len())
            .then_with(|| b.lines().cmp(&a.lines()))
            .then_with(|| (a.method, &a.fingerprint).cmp(&(b.method, &b.fingerprint)))
    });
    groups
}

/// The clone groups of the indexed functions and methods (one parse per file, on
/// all cores).
pub fn clone_groups(root: &Path, index: &Index, o: &CloneOptions) -> Result<Clones, ToolError> {
    let mut by_file: BTreeMap<String, Vec<SymbolRow>> = BTreeMap::new();
    for f in index.files()? {
        if o.filter.as_ref().is_some_and(|g| !g.is_match(&f)) {
            continue;
        }
        let defs: Vec<SymbolRow> = index
            .symbols_in_file(&f)?
            .into_iter()
            .filter(|d| {
                matches!(d.kind.as_str(), "function" | "method")
                    && d.end_line + 1 >= d.line + o.min_lines
            })
            .collect();
        if !defs.is_empty() {
            by_file.insert(f, defs);
        }
    }
    let candidates: usize = by_file.values().map(Vec::len).sum();
    let prints: Vec<(&'static str, String, SymbolRow)> = by_file
        .into_par_iter()
        .flat_map_iter(|(file, defs)| file_prints(root, &file, defs, o))
        .collect();
    Ok(Clones {
        candidates,
        groups: group(prints, o.min_group),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprints(src: &str) -> Vec<(&'static str, String)> {
        let lang = Language::from_name("python").unwrap();
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang.grammar()).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let node = tree.root_node().child(0).unwrap();
        let o = CloneOptions {
            structural: true,
            textual: true,
            min_lines: 1,
            min_group: 2,
            filter: None,
        };
        prints(lang, node, src.as_bytes(), &o)
    }

    #[test]
    fn renamed_clones_share_both_fingerprints_and_other_code_does_not() {
        let a = fingerprints("def f(x):\n    # note\n    return x + 1\n");
        let b = fingerprints("def g(y):\n    return y + 1\n");
        let c = fingerprints("def h(y):\n    return y + 2\n");
        let d = fingerprints("def k(y):\n    if y:\n        return y\n");
        assert_eq!(a, b, "names and comments are ignored");
        assert_eq!(a[0], c[0], "same structure");
        assert_ne!(a[1], c[1], "other operator and literal");
        assert_ne!(a[0], d[0]);
    }

    #[test]
    fn globs_are_checked() {
        assert!(path_filter(Some(" ")).unwrap().is_none());
        let g = path_filter(Some("src/**, *.py")).unwrap().unwrap();
        assert!(g.is_match("src/a/b.rs") && g.is_match("x.py") && !g.is_match("lib/x.rs"));
        assert!(matches!(
            path_filter(Some("a[")),
            Err(ToolError::Validation(_))
        ));
    }
}
