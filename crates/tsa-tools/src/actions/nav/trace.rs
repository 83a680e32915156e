//! `nav trace`: a text-based usage trace of a symbol. A word search for the name
//! over the project's code files; occurrences in comments, import lines and string
//! literals are filtered out; the rest are calls (name followed by `(`) or
//! references, and definition sites are listed apart.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::text_search::{CaseMode, FileFilter, Limits, MatchSpec, search};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::{Language, Tier};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, split_qualified};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `nav trace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The identifier to trace (`build`, or qualified `Engine.run`: its last part is searched).
    pub symbol: String,
    /// The file that defines the symbol (optional; its definition sites are marked).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Match letter case exactly (default true).
    #[serde(default)]
    pub case_sensitive: Option<bool>,
    /// Match the whole identifier only (default true).
    #[serde(default)]
    pub word_match: Option<bool>,
    /// Most usages to list (default 50, clamped 1..2000). All are counted.
    #[serde(default)]
    pub max_results: Option<i64>,
    /// Skip files and folders matching these globs (`tests/**`, `*_test.go`).
    #[serde(default)]
    pub exclude_patterns: Option<Vec<String>>,
}

pub struct Trace;

/// How one language writes line comments, imports and strings.
pub(crate) struct Syntax {
    comments: &'static [&'static str],
    imports: &'static [&'static str],
    quotes: &'static [char],
}

/// The language's `line_syntax` convention; nothing is a comment, an import or a
/// string in a language where it does not apply (markup and data).
pub(crate) fn syntax(lang: Language) -> Syntax {
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Occurrence {
    Comment,
    Import,
    String,
    Definition,
    Call,
    Reference,
}

/// What the occurrence at `start..end` of `line` is: inside a comment, on an import
/// line, inside a string literal, a definition, a call or a plain reference.
pub(crate) fn classify(line: &str, start: usize, end: usize, syn: &Syntax) -> Occurrence {
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

fn impact(count: usize) -> (&'static str, &'static str, &'static str, Verdict) {
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

impl Action for Trace {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "trace";
    const SUMMARY: &'static str = "text usage trace of a symbol across the project: calls vs references, comments/imports/strings filtered out, impact_level by usage count";
    const BRIEF: &'static str = "text usage trace of a symbol";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let (_, name) = split_qualified(&a.symbol);
        let name = name.trim();
        if name.is_empty() {
            return Err(ToolError::Validation(
                "parameter 'symbol' must be a non-empty identifier".into(),
            ));
        }
        let cap = match a.max_results {
            None => 50,
            Some(n) => (n.max(1) as usize).min(2000),
        };
        let def_file = match &a.file_path {
            None => None,
            Some(p) => {
                let (abs, rel) = resolve_in_root(root, p)?;
                if !abs.is_file() {
                    return Err(ToolError::NotFound(rel));
                }
                Some(rel)
            }
        };
        let mut spec = MatchSpec::new(name);
        spec.fixed_strings = true;
        spec.word = a.word_match.unwrap_or(true);
        spec.case = if a.case_sensitive.unwrap_or(true) {
            CaseMode::Sensitive
        } else {
            CaseMode::Insensitive
        };
        let filter = FileFilter {
            exclude_globs: a.exclude_patterns.unwrap_or_default(),
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
        let mut usages = Vec::new();
        let mut definitions = Vec::new();
        let (mut comments, mut imports, mut strings) = (0usize, 0usize, 0usize);
        let mut call_count = 0usize;
        let mut files_with_usages = std::collections::BTreeSet::new();
        for f in &out.files {
            let Some(lang) = Language::from_path(&f.file).filter(|l| l.tier() != Tier::Structure)
            else {
                continue;
            };
            let syn = syntax(lang);
            for r in &f.rows {
                for [s, e] in &r.matches {
                    let kind = classify(&r.text, *s, *e, &syn);
                    let row = || {
                        json!({
                            "file": f.file,
                            "line": r.line,
                            "column": s + 1,
                            "text": r.text.trim(),
                            "language": lang.name(),
                        })
                    };
                    match kind {
                        Occurrence::Comment => comments += 1,
                        Occurrence::Import => imports += 1,
                        Occurrence::String => strings += 1,
                        Occurrence::Definition => definitions.push(row()),
                        Occurrence::Call | Occurrence::Reference => {
                            let mut v = row();
                            let is_call = kind == Occurrence::Call;
                            call_count += usize::from(is_call);
                            v["kind"] = json!(if is_call { "call" } else { "reference" });
                            files_with_usages.insert(f.file.clone());
                            usages.push(v);
                        }
                    }
                }
            }
        }
        let count = usages.len();
        let (level, badge, guidance, verdict) = impact(count);
        let found = count > 0;
        let defined_in_file = def_file.as_ref().map(|df| {
            definitions
                .iter()
                .any(|d| d["file"].as_str() == Some(df.as_str()))
        });
        let mut s = Success::new(
            verdict,
            format!(
                "trace: '{}' has {count} usage(s) ({call_count} calls) in {} files impact={level}",
                a.symbol,
                files_with_usages.len()
            ),
        )
        .with("symbol", a.symbol.as_str())
        .with("found", found)
        .with("call_count", call_count)
        .with("reference_count", count - call_count)
        .with("file_count", files_with_usages.len())
        .with("impact_level", level)
        .with("impact_badge", badge)
        .with("impact_guidance", guidance)
        .with(
            "filtered",
            json!({"comments": comments, "imports": imports, "strings": strings}),
        )
        .with("total_count_known", !out.timed_out)
        .with("data_source", "text_search")
        .with_list(
            ListSpelling {
                list_key: "usages",
                total_key: "count",
                listed_key: "usages_listed",
                cap_key: "listed_cap",
                noun: "usages",
                remedy: "raise max_results, or skip folders with exclude_patterns".into(),
            },
            Capped::collect(usages, fixed_cap(cap)),
        )
        .with_list(
            ListSpelling {
                list_key: "definitions",
                total_key: "definition_count",
                listed_key: "definitions_listed",
                cap_key: "definitions_cap",
                noun: "definition sites",
                remedy: "qualify the symbol or pass file_path".into(),
            },
            Capped::collect(definitions.clone(), fixed_cap(20)),
        )
        .with_agent("impact_level", level)
        .with_agent("symbol", a.symbol.as_str())
        .with_agent("count", count);
        if let Some(df) = &def_file {
            s = s.with("definition_file", df.as_str());
            if defined_in_file == Some(false) {
                s = s.with_warning(format!("no definition of '{name}' was recognised in {df}"));
            }
        }
        if out.timed_out {
            s = s.with_warning(
                "the search stopped at its time budget: counts are lower bounds; narrow with exclude_patterns",
            );
        }
        let step = if found {
            if call_count > 0 {
                format!(
                    "For resolved call edges use nav action=callers function_name={}",
                    a.symbol
                )
            } else {
                "Open a listed usage with structure action=read".to_owned()
            }
        } else if !definitions.is_empty() {
            format!(
                "'{name}' is defined but never used in code text; check for dynamic use, then health action=dead"
            )
        } else {
            // Close names come from the symbol index (built on first use); a project
            // without indexable code simply has none.
            let suggestions = open_index(ctx)
                .ok()
                .and_then(|o| o.index.suggest(name, 5).ok())
                .unwrap_or_default();
            let first = suggestions.first().cloned();
            s = s.with("suggestions", json!(suggestions));
            match first {
                Some(sug) => format!(
                    "No usage of '{name}'. Did you mean '{sug}'? Check spelling, or try case_sensitive=false"
                ),
                None => format!(
                    "No usage of '{name}'. Check spelling, try case_sensitive=false, or search action=content query={name}"
                ),
            }
        };
        Ok(s.with_next_step(step))
    }
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
