//! `project doc_sync`: Markdown references that no longer match the code: links and
//! path-like code spans to files that do not exist, and code spans naming functions
//! or methods (`build()`, `Engine.run`, `Store::open`) that no definition has.

use std::collections::HashSet;

use globset::{Glob, GlobSetBuilder};
use regex::Regex;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use super::common::{cap, open_index};
use crate::action::Action;
use crate::{Context, ToolError};

/// Arguments of `project doc_sync`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Globs of documents to check (default `["**/*.md"]`).
    #[serde(default)]
    pub doc_patterns: Option<Vec<String>>,
    /// Most stale references listed (default 50).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct DocSync;

const SOURCE_EXTS: [&str; 16] = [
    "py", "rs", "js", "ts", "tsx", "jsx", "go", "java", "c", "h", "cpp", "cs", "rb", "php", "kt",
    "swift",
];

/// A code span that names a file: a `/` or a source extension, no spaces.
fn looks_like_path(s: &str) -> bool {
    !s.contains(char::is_whitespace)
        && !s.contains("://")
        && !s.starts_with('-')
        && (s.contains('/')
            || s.rsplit_once('.')
                .is_some_and(|(stem, ext)| !stem.is_empty() && SOURCE_EXTS.contains(&ext)))
        && s.chars().all(|c| c.is_alphanumeric() || "/._-".contains(c))
}

/// A code span that names a callable: `name()`, `Owner.name(...)`, `Type::name`.
/// Returns (owner, name).
fn looks_like_symbol(s: &str) -> Option<(Option<String>, String)> {
    let call = s
        .strip_suffix("()")
        .or_else(|| s.find('(').filter(|_| s.ends_with(')')).map(|i| &s[..i]));
    let body = call.unwrap_or(s);
    if body.is_empty() || body.contains(char::is_whitespace) {
        return None;
    }
    let parts: Vec<&str> = body.split(['.', ':']).filter(|p| !p.is_empty()).collect();
    let ident = |p: &str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !p.starts_with(|c: char| c.is_ascii_digit())
    };
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

impl Action for DocSync {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "doc_sync";
    const SUMMARY: &'static str =
        "Markdown references to paths and symbols that no longer exist in the code";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 50)?;
        let root = ctx.root()?;
        let patterns = args
            .doc_patterns
            .unwrap_or_else(|| vec!["**/*.md".to_owned()]);
        let mut b = GlobSetBuilder::new();
        for p in &patterns {
            b.add(Glob::new(p).map_err(|e| {
                ToolError::Validation(format!("doc_patterns: bad glob '{p}': {e}"))
            })?);
        }
        let globs = b
            .build()
            .map_err(|e| ToolError::Validation(e.to_string()))?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let link = Regex::new(r"\[[^\]]*\]\(([^)\s]+)(?:\s+[^)]*)?\)")
            .map_err(|e| ToolError::Internal(e.to_string()))?;
        let span = Regex::new(r"`([^`\n]+)`").map_err(|e| ToolError::Internal(e.to_string()))?;
        let mut docs = Vec::new();
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
                docs.push(rel);
            }
        }
        docs.sort();
        let mut known: HashSet<String> = HashSet::new();
        let mut stale = Vec::new();
        let mut checked = 0usize;
        for doc in &docs {
            let Ok(text) = std::fs::read_to_string(root.join(doc)) else {
                continue;
            };
            let dir = doc.rsplit_once('/').map_or("", |(d, _)| d);
            let mut fenced = false;
            for (i, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("```") {
                    fenced = !fenced;
                    continue;
                }
                if fenced {
                    continue;
                }
                let mut paths: Vec<(String, &str)> = Vec::new();
                for c in link.captures_iter(line) {
                    let target = c[1].split('#').next().unwrap_or("").to_owned();
                    if target.is_empty() || target.contains("://") || target.starts_with("mailto:")
                    {
                        continue;
                    }
                    paths.push((target, "link"));
                }
                let mut symbols = Vec::new();
                for c in span.captures_iter(line) {
                    let s = c[1].trim();
                    if looks_like_path(s) {
                        paths.push((s.to_owned(), "code_span"));
                    } else if let Some(sym) = looks_like_symbol(s) {
                        symbols.push((s.to_owned(), sym));
                    }
                }
                for (p, how) in paths {
                    checked += 1;
                    let candidates = [
                        root.join(p.trim_start_matches('/')),
                        root.join(dir).join(&p),
                    ];
                    let exists = candidates.iter().any(|c| {
                        // Never look outside the project root.
                        c.canonicalize().is_ok_and(|abs| abs.starts_with(root))
                    });
                    if !exists {
                        stale.push(json!({"doc": doc, "line": i + 1, "reference": p, "kind": "path", "via": how,
                            "reason": "no such file or folder in the project"}));
                    }
                }
                for (text, (owner, name)) in symbols {
                    checked += 1;
                    if known.contains(&text) {
                        continue;
                    }
                    let builtin = Language::ALL.iter().any(|l| l.is_builtin(&name));
                    if builtin {
                        continue;
                    }
                    let defs = index.find_symbols(&name, None, None)?;
                    let found = match &owner {
                        Some(o) => {
                            defs.iter().any(|d| d.owner.as_deref() == Some(o.as_str()) || d.qualname.contains(o.as_str()))
                            // `module.func()`: the owner may be a module, not a type.
                            || (!o.starts_with(|c: char| c.is_uppercase()) && !defs.is_empty())
                        }
                        None => !defs.is_empty(),
                    };
                    if found {
                        known.insert(text);
                    } else {
                        stale.push(json!({"doc": doc, "line": i + 1, "reference": text, "kind": "symbol",
                            "reason": if defs.is_empty() { "no definition of this name in the index" } else { "the name exists, but not on that owner" }}));
                    }
                }
            }
        }
        let listed = Capped::collect(stale, limit);
        let total = listed.total();
        let mut s = Success::new(
            if total == 0 { Verdict::Info } else { Verdict::Caution },
            format!("doc_sync: {total} stale reference(s) in {} document(s), {checked} checked", docs.len()),
        )
        .with("documents", docs.len())
        .with("references_checked", checked)
        .with("doc_patterns", json!(patterns))
        .with_list(
            ListSpelling {
                list_key: "stale_references",
                total_key: "stale_count",
                listed_key: "stale_listed",
                cap_key: "limit",
                noun: "stale references",
                remedy: "raise limit, or narrow doc_patterns".into(),
            },
            listed,
        )
        .with_next_step(if total == 0 {
            "Docs and code agree on every path and symbol checked.".to_owned()
        } else {
            "Fix or remove each stale reference; search action=symbol finds what a renamed symbol is called now.".to_owned()
        });
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
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
}
