//! Attribute-like macros blanked before parsing: a parser without a preprocessor
//! reads `static __always_inline __alloc_size(1) void *kmalloc(size_t size)` as
//! broken source and loses the definition. Each listed macro (with its
//! parenthesised arguments, when it has them) becomes spaces, newlines kept, so every
//! byte offset, line and column stays where it was.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use crate::Language;

/// Arguments longer than this are not a macro's (unbalanced source): left alone.
const MAX_ARGS: usize = 512;

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A language's macro names, with what most identifiers fail before a lookup.
struct Words {
    set: FxHashSet<&'static [u8]>,
    /// First bytes of the names.
    first: [bool; 256],
    /// Shortest and longest name.
    len: (usize, usize),
}

impl Words {
    fn contains(&self, w: &[u8]) -> bool {
        self.first[w[0] as usize]
            && (self.len.0..=self.len.1).contains(&w.len())
            && self.set.contains(w)
    }
}

/// The macro names of `lang` (its spec's `noise_macros`), parsed once.
fn words(lang: Language) -> &'static Words {
    static SETS: OnceLock<HashMap<Language, Words>> = OnceLock::new();
    let sets = SETS.get_or_init(|| {
        Language::ALL
            .iter()
            .map(|l| {
                let set: FxHashSet<&'static [u8]> = l
                    .spec()
                    .noise_macros
                    .lines()
                    .map(str::trim)
                    .filter(|w| !w.is_empty() && !w.starts_with('#'))
                    .map(str::as_bytes)
                    .collect();
                let mut first = [false; 256];
                for w in &set {
                    first[w[0] as usize] = true;
                }
                let len = (
                    set.iter().map(|w| w.len()).min().unwrap_or(0),
                    set.iter().map(|w| w.len()).max().unwrap_or(0),
                );
                (*l, Words { set, first, len })
            })
            .collect()
    });
    &sets[&lang]
}

/// `src` with the noise macros of `lang` blanked, or `None` when it has none.
pub(crate) fn blank(lang: Language, src: &[u8]) -> Option<Vec<u8>> {
    let words = words(lang);
    if words.set.is_empty() {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        if !(c.is_ascii_alphabetic() || c == b'_') || (i > 0 && is_ident(src[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < src.len() && is_ident(src[i]) {
            i += 1;
        }
        if !words.contains(&src[start..i]) {
            continue;
        }
        let end = args_end(src, i).unwrap_or(i);
        let buf = out.get_or_insert_with(|| src.to_vec());
        for b in &mut buf[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end;
    }
    out
}

/// The end of `(...)` right after `at` (spaces allowed before it), balanced and
/// within [`MAX_ARGS`] bytes; `None` when there are no arguments.
fn args_end(src: &[u8], at: usize) -> Option<usize> {
    let mut j = at;
    while j < src.len() && (src[j] == b' ' || src[j] == b'\t') {
        j += 1;
    }
    if src.get(j) != Some(&b'(') {
        return None;
    }
    let mut depth = 0usize;
    for (k, &b) in src[j..].iter().enumerate().take(MAX_ARGS) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_become_spaces_and_offsets_stay() {
        let src = b"static __always_inline __alloc_size(1, 2) void *kmalloc(size_t n)\n{ return __kmalloc(n); }\nint __init\nsetup(void);\n";
        let out = blank(Language::C, src).unwrap();
        assert_eq!(out.len(), src.len());
        let text = String::from_utf8(out).unwrap();
        let words: Vec<&str> = text.split_whitespace().take(3).collect();
        assert_eq!(words, ["static", "void", "*kmalloc(size_t"], "{text}");
        assert_eq!(
            text.find("void"),
            std::str::from_utf8(src).unwrap().find("void")
        );
        // A call that merely starts like a macro is kept; newlines stay.
        assert!(text.contains("__kmalloc(n)"));
        assert_eq!(text.lines().count(), 4);
        assert!(text.contains("int       \nsetup"));
        assert!(blank(Language::C, b"int f(void) { return 0; }\n").is_none());
        assert!(blank(Language::Python, b"__init = 1\n").is_none());
    }

    #[test]
    fn unbalanced_arguments_leave_the_rest_alone() {
        let src = b"__printf(1, (2\nint f(void);\n";
        let text = String::from_utf8(blank(Language::C, src).unwrap()).unwrap();
        assert!(text.starts_with("        (1, (2\nint f"), "{text}");
    }
}
