//! A text usage trace of a name (the engine of `nav trace`, and the occurrence
//! classifier `edit guard` shares): every whole-word occurrence found by the text
//! search, classified by the line it is on as a comment, an import, a string, a
//! definition, a call or a plain reference, and the impact of the usage count.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use tsa_envelope::Verdict;
use tsa_lang::{Language, Tier};

use crate::ToolError;
use crate::text_search::{CaseMode, FileFilter, Limits, MatchSpec, search};

/// How one language writes line comments, imports and strings.
pub struct Syntax {
    comments: &'static [&'static str],
    imports: &'static [&'static str],
    quotes: &'static [char],
}

/// The language's `line_syntax` convention; nothing is a comment, an import or a
/// string in a language where it does not apply (markup and data).
pub fn syntax(lang: Language) -> Syntax {
    match lang.conventions().line_syntax.get() {
        Some(s) => Syntax {
            comments: s.comments,
            imports: s.imports,
            quotes: s.quotes,
        },
        None => Syntax {
            comments: &[],
            imports: &[],
            quotes: &[],
        },
    }
}

/// Words that, right before a name, make the line its definition.
const DEF_WORDS: [&str; 16] = [
    "def",
    "fn",
    "function",
    "class",
    "struct",
    "enum",
    "trait",
    "interface",
    "func",
    "fun",
    "type",
    "module",
    "union",
    "object",
    "record",
    "macro_rules!",
];

/// What an occurrence of a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence {
    Comment,
    Import,
    String,
    Definition,
    Call,
    Reference,
}

/// What the occurrence at `start..end` of `line` is: inside a comment, on an import
/// line, inside a string literal, a definition, a call or a plain reference.
pub fn classify(line: &str, start: usize, end: usize, syn: &Syntax) -> Occurrence {
    let trimmed = line.trim_start();
    if syn.comments.iter().any(|c| trimmed.starts_with(c))
        || (syn.comments.contains(&"* ") && trimmed == "*")
    {
        return Occurrence::Comment;
    }
    let import_line = syn.imports.iter().any(|i| trimmed.starts_with(i))
        || (trimmed.starts_with("const ")
            || trimmed.starts_with("let ")
            || trimmed.starts_with("var "))
            && trimmed.contains("require(");
    // Scan for strings and trailing comments up to the occurrence.
    let bytes = line.as_bytes();
    let mut in_quote: Option<u8> = None;
    let mut i = 0;
    while i < start {
        let b = bytes[i];
        match in_quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    in_quote = None;
                }
            }
            None => {
                if syn.quotes.iter().any(|q| *q as u32 == b as u32) {
                    in_quote = Some(b);
                } else if syn
                    .comments
                    .iter()
                    .filter(|c| !c.starts_with('*'))
                    .any(|c| line[i..].starts_with(c.trim_end()))
                {
                    return Occurrence::Comment;
                }
            }
        }
        i += 1;
    }
    if in_quote.is_some() {
        return Occurrence::String;
    }
    if import_line {
        return Occurrence::Import;
    }
    let before = line[..start].trim_end();
    let prev_word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '{' || c == ';')
        .next()
        .unwrap_or("");
    if DEF_WORDS.contains(&prev_word) {
        return Occurrence::Definition;
    }
    let after = line[end..].trim_start();
    if after.starts_with('(') || after.starts_with("!(") || after.starts_with("::<") {
        Occurrence::Call
    } else {
        Occurrence::Reference
    }
}

/// The impact level of `count` usages: level, badge, guidance and verdict.
pub fn impact(count: usize) -> (&'static str, &'static str, &'static str, Verdict) {
    match count {
        0 => (
            "none",
            "⚪ NONE",
            "No usages outside comments, imports and strings: a change here breaks nothing that text search can see (dynamic uses may still exist).",
            Verdict::NotFound,
        ),
        1..=5 => (
            "low",
            "🟢 LOW",
            "Few usages: change it and update the listed sites.",
            Verdict::Info,
        ),
        6..=20 => (
            "medium",
            "🟡 MEDIUM",
            "Several usages: review every listed site before changing the signature or behaviour.",
            Verdict::Caution,
        ),
        _ => (
            "high",
            "🔴 HIGH",
            "Many usages: prefer an additive change (new name or optional parameter) and run the full test suite.",
            Verdict::Review,
        ),
    }
}

/// A definition site, or (with `kind`) a usage.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    /// Project-relative file.
    pub file: String,
    /// Line.
    pub line: u64,
    /// 1-based column.
    pub column: usize,
    /// The line, trimmed.
    pub text: String,
    /// Its language.
    pub language: &'static str,
    /// `call` or `reference` (usages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
}

/// Occurrences left out of the usages.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Filtered {
    /// In comments.
    pub comments: usize,
    /// On import lines.
    pub imports: usize,
    /// Inside string literals.
    pub strings: usize,
}

/// The options of a trace.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// Match letter case exactly.
    pub case_sensitive: bool,
    /// Match the whole identifier only.
    pub word: bool,
    /// Skip files and folders matching these globs.
    pub exclude: Vec<String>,
}

/// Where a name occurs in code text.
#[derive(Clone, Debug, Default)]
pub struct TraceReport {
    /// Calls and references, in file and line order.
    pub usages: Vec<Site>,
    /// Definition sites.
    pub definitions: Vec<Site>,
    /// Occurrences filtered out.
    pub filtered: Filtered,
    /// Usages that are calls.
    pub call_count: usize,
    /// Files holding a usage.
    pub files_with_usages: BTreeSet<String>,
    /// The search stopped at its time budget (counts are lower bounds).
    pub timed_out: bool,
}

/// Every occurrence of `name` in files of a code language under `root`.
pub fn trace(root: &Path, name: &str, opts: &TraceOptions) -> Result<TraceReport, ToolError> {
    let mut spec = MatchSpec::new(name);
    spec.fixed_strings = true;
    spec.word = opts.word;
    spec.case = if opts.case_sensitive {
        CaseMode::Sensitive
    } else {
        CaseMode::Insensitive
    };
    let filter = FileFilter {
        exclude_globs: opts.exclude.clone(),
        max_filesize: Some(10_000_000),
        parallel: true,
        ..FileFilter::default()
    };
    let out = search(
        root,
        &filter,
        &spec,
        Limits {
            rows_per_file: 100_000,
            deadline: Instant::now() + Duration::from_millis(8000),
            file_limit: None,
        },
    )?;
    let mut t = TraceReport {
        timed_out: out.timed_out,
        ..TraceReport::default()
    };
    for f in &out.files {
        let Some(lang) = Language::from_path(&f.file).filter(|l| l.tier() != Tier::Structure)
        else {
            continue;
        };
        let syn = syntax(lang);
        for r in &f.rows {
            for [s, e] in &r.matches {
                let kind = classify(&r.text, *s, *e, &syn);
                let site = |kind: Option<&'static str>| Site {
                    file: f.file.clone(),
                    line: r.line,
                    column: s + 1,
                    text: r.text.trim().to_owned(),
                    language: lang.name(),
                    kind,
                };
                match kind {
                    Occurrence::Comment => t.filtered.comments += 1,
                    Occurrence::Import => t.filtered.imports += 1,
                    Occurrence::String => t.filtered.strings += 1,
                    Occurrence::Definition => t.definitions.push(site(None)),
                    Occurrence::Call | Occurrence::Reference => {
                        let is_call = kind == Occurrence::Call;
                        t.call_count += usize::from(is_call);
                        t.files_with_usages.insert(f.file.clone());
                        t.usages
                            .push(site(Some(if is_call { "call" } else { "reference" })));
                    }
                }
            }
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(line: &str, word: &str) -> Occurrence {
        let s = line.find(word).unwrap();
        classify(
            line,
            s,
            s + word.len(),
            &syntax(Language::from_name("python").unwrap()),
        )
    }

    #[test]
    fn a_trace_sorts_occurrences() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.py"),
            "# build here\nfrom x import build\n\n\ndef build():\n    pass\n\n\nbuild()\nf = build\nprint('build')\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.md"), "build\n").unwrap();
        let opts = TraceOptions {
            case_sensitive: true,
            word: true,
            exclude: Vec::new(),
        };
        let t = trace(dir.path(), "build", &opts).unwrap();
        let kinds: Vec<Option<&str>> = t.usages.iter().map(|u| u.kind).collect();
        assert_eq!(kinds, [Some("call"), Some("reference")]);
        assert_eq!(t.call_count, 1);
        assert_eq!(t.definitions.len(), 1);
        assert_eq!(
            (t.filtered.comments, t.filtered.imports, t.filtered.strings),
            (1, 1, 1)
        );
        assert_eq!(t.files_with_usages.len(), 1);
        assert_eq!(impact(t.usages.len()).0, "low");
    }

    #[test]
    fn classifies_occurrences() {
        assert_eq!(py("    build(x)", "build"), Occurrence::Call);
        assert_eq!(py("f = build", "build"), Occurrence::Reference);
        assert_eq!(py("# build here", "build"), Occurrence::Comment);
        assert_eq!(py("x = 1  # build", "build"), Occurrence::Comment);
        assert_eq!(
            py("from app.core import build", "build"),
            Occurrence::Import
        );
        assert_eq!(py("print('build it')", "build"), Occurrence::String);
        assert_eq!(py("def build(target):", "build"), Occurrence::Definition);
        assert_eq!(py("s = '#'; build()", "build"), Occurrence::Call);
        let rs = syntax(Language::from_name("rust").unwrap());
        let line = "    let r: &'a str = build::<T>(x); // build";
        let s = line.find("build").unwrap();
        assert_eq!(classify(line, s, s + 5, &rs), Occurrence::Call);
        let s = line.rfind("build").unwrap();
        assert_eq!(classify(line, s, s + 5, &rs), Occurrence::Comment);
        assert_eq!(
            classify("use crate::build;", 11, 16, &rs),
            Occurrence::Import
        );
        assert_eq!(classify("/// build docs", 4, 9, &rs), Occurrence::Comment);
    }
}
