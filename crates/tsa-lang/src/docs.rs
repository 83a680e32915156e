//! A definition's documentation: Python's docstring (the string opening a function
//! or class body), else the comment block right above it (past decorators and
//! attributes), in the language's comment syntax. Markers stripped, one line. The
//! index stores it (semantic search reads it); `nav pulse` shows it.

use tree_sitter::Node;

use crate::languages::Language;

/// Longest documentation the index keeps, in characters.
pub const DOC_CHARS: usize = 256;
/// Lines looked at above a definition.
const MAX_LINES_ABOVE: usize = 40;

/// The documentation of the definition `node`, clipped to `max` characters.
pub fn doc_of(lang: Language, node: Node<'_>, src: &[u8], max: usize) -> Option<String> {
    docstring(|n, f| lang.field(n, f), node, src, max)
        .or_else(|| comment_above(lang, src, node.start_byte(), max))
}

/// The string that opens a Python function or class body.
pub fn python_docstring(def: Node<'_>, src: &[u8], max: usize) -> Option<String> {
    docstring(|n, f| n.child_by_field_name(f), def, src, max)
}

/// The string that opens a function or class body as Python's docstring does;
/// `field` finds a node's child in a field.
fn docstring<'t>(
    field: impl Fn(Node<'t>, &str) -> Option<Node<'t>>,
    def: Node<'t>,
    src: &[u8],
    max: usize,
) -> Option<String> {
    let def = match def.kind() {
        "decorated_definition" => field(def, "definition")?,
        "function_definition" | "class_definition" => def,
        _ => return None,
    };
    let body = field(def, "body")?;
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let s = first.named_child(0)?;
    if s.kind() != "string" {
        return None;
    }
    let raw = s.utf8_text(src).ok()?;
    let t = raw
        .trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F'])
        .trim_matches(['"', '\''])
        .trim();
    let t = clip(t, max);
    (!t.is_empty()).then_some(t)
}

/// The comment block right above the line holding byte `start` (decorator and
/// attribute lines skipped), in `lang`'s comment syntax; `None` when there is none
/// or the language states no comment syntax.
pub fn comment_above(lang: Language, src: &[u8], start: usize, max: usize) -> Option<String> {
    let markers = lang.conventions().line_syntax.get()?.comments;
    let block_stars = markers.contains(&"* ");
    let is_comment = |l: &str| {
        markers.iter().any(|m| l.starts_with(m.trim_end()))
            || (block_stars && (l == "*" || l.starts_with("* ") || l.starts_with("*/")))
    };
    // The start of the definition's line, then line by line upwards. Lines are
    // looked for within LONGEST_LINE bytes: a longer one (minified code) is no
    // comment, and the scan stays linear.
    let mut end = line_start(src, start.min(src.len()))?.checked_sub(1)?;
    let mut block: Vec<String> = Vec::new();
    for _ in 0..MAX_LINES_ABOVE {
        let Some(begin) = line_start(src, end) else {
            break;
        };
        let line = String::from_utf8_lossy(&src[begin..end]);
        let l = line.trim();
        let attribute = l.starts_with("#[") || l.starts_with('@');
        // A shebang or an encoding line documents the file, not the definition.
        let file_header = l.starts_with("#!") || (l.starts_with('#') && l.contains("coding"));
        if attribute && block.is_empty() {
            // A decorator or attribute between the comment and the definition.
        } else if l.is_empty() || file_header || !is_comment(l) {
            break;
        } else {
            block.push(strip_markers(l));
        }
        if begin == 0 {
            break;
        }
        end = begin - 1;
    }
    block.reverse();
    let joined = block
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let t = clip(&joined, max);
    (!t.is_empty()).then_some(t)
}

/// The longest line looked at above a definition.
const LONGEST_LINE: usize = 4096;

/// The start of the line holding byte `at` (or ending there), found within
/// [`LONGEST_LINE`] bytes back; `None` past that.
fn line_start(src: &[u8], at: usize) -> Option<usize> {
    let lo = at.saturating_sub(LONGEST_LINE);
    match src[lo..at].iter().rposition(|b| *b == b'\n') {
        Some(i) => Some(lo + i + 1),
        None if lo == 0 => Some(0),
        None => None,
    }
}

/// Whitespace runs collapsed, at most `max` characters.
pub fn clip(t: &str, max: usize) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(max).collect()
}

/// A comment's text without its markers (`///` before `//`), on one line.
pub fn strip_markers(t: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in t.lines() {
        let mut l = line.trim();
        for m in [
            "/**", "/*!", "/*", "*/", "///", "//!", "//", "<!--", "-->", "--", "#",
        ] {
            if let Some(rest) = l.strip_prefix(m) {
                l = rest.trim_start();
                break;
            }
        }
        let l = l.strip_suffix("*/").unwrap_or(l).trim();
        let l = l.strip_prefix('*').map_or(l, str::trim_start);
        if !l.is_empty() {
            out.push(l.to_owned());
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use crate::{Language, extract};

    fn docs(lang: Language, src: &str) -> Vec<(String, Option<String>)> {
        extract(lang, src.as_bytes())
            .unwrap()
            .defs
            .into_iter()
            .map(|d| (d.name, d.doc))
            .collect()
    }

    #[test]
    fn docstrings_and_comments_above_are_kept() {
        let got = docs(
            Language::Python,
            "# Adds things.\n# Two lines.\ndef add(a, b):\n    \"\"\"Sum of a\n    and b.\"\"\"\n    return a + b\n\n\n@cached\ndef plain():\n    return 1\n\nclass Box:\n    '''A box.'''\n",
        );
        assert_eq!(got[0].1.as_deref(), Some("Sum of a and b."), "{got:?}");
        assert_eq!(got[1].1, None, "{got:?}");
        assert_eq!(got[2].1.as_deref(), Some("A box."), "{got:?}");
        let got = docs(
            Language::Rust,
            "use x;\n\n/// Parses a line.\n/// Never panics.\n#[inline]\npub fn parse() {}\n\n// unrelated\n\nfn bare() {}\n",
        );
        assert_eq!(
            got[0].1.as_deref(),
            Some("Parses a line. Never panics."),
            "{got:?}"
        );
        assert_eq!(got[1].1, None, "a blank line parts a comment: {got:?}");
        let got = docs(
            Language::C,
            "#include <x.h>\n/**\n * kfree - free memory\n * @p: pointer\n */\nvoid kfree(void *p) {}\n#define N 1\nint other(void) { return N; }\n",
        );
        assert_eq!(
            got[0].1.as_deref(),
            Some("kfree - free memory @p: pointer"),
            "{got:?}"
        );
        assert_eq!(got[1].1, None, "#define is no comment in C: {got:?}");
    }

    #[test]
    fn markers_are_stripped_doc_comments_before_line_comments() {
        use super::strip_markers;
        assert_eq!(strip_markers("/// Adds two."), "Adds two.");
        assert_eq!(strip_markers("// plain"), "plain");
        assert_eq!(strip_markers("/* a\n * b\n */"), "a b");
        assert_eq!(strip_markers("# note"), "note");
        assert_eq!(strip_markers("-- sql"), "sql");
    }

    #[test]
    fn file_headers_and_long_lines_are_no_doc() {
        let got = docs(
            Language::Python,
            "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\ndef main():\n    pass\n",
        );
        assert_eq!(got[0].1, None, "{got:?}");
        // A minified line: definitions on it have no comment above, in linear time.
        let line = "function a(){}".repeat(5_000);
        let src = format!("// header\n{line}\n");
        let x = extract(Language::JavaScript, src.as_bytes()).unwrap();
        assert!(x.defs.len() > 1000);
        assert_eq!(x.defs[0].doc.as_deref(), Some("header"));
        assert!(
            x.defs
                .iter()
                .filter(|d| d.start_byte > 5000)
                .all(|d| d.doc.is_none())
        );
    }

    #[test]
    fn the_first_line_has_no_comment_above() {
        assert_eq!(
            super::comment_above(Language::Rust, b"fn a() {}\n", 0, 10),
            None
        );
    }

    #[test]
    fn long_docs_are_clipped() {
        let long = "word ".repeat(200);
        let got = docs(Language::Python, &format!("def f():\n    \"{long}\"\n"));
        assert_eq!(got[0].1.as_ref().unwrap().chars().count(), super::DOC_CHARS);
    }
}
