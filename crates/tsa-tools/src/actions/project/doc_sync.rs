//! `project doc_sync`: Markdown references that no longer match the code: links and
//! path-like code spans to files that do not exist, and code spans naming functions
//! or methods (`build()`, `Engine.run`, `Store::open`) that no definition has.

use std::collections::HashSet;

use globset::{Glob, GlobSetBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::docrefs::{self, RefKind};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{cap, open_index};
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

impl Action for DocSync {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "doc_sync";
    const SUMMARY: &'static str =
        "Markdown references to paths and symbols that no longer exist in the code";
    const BRIEF: &'static str = "stale references in docs";

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
        let (docs, _) = docrefs::walk_docs(root, &globs, usize::MAX);
        let mut known: HashSet<String> = HashSet::new();
        let mut stale = Vec::new();
        let mut checked = 0usize;
        let mut linked = Vec::new();
        for doc in &docs {
            let text = match tsa_analysis::security::read_text_in_root(root, doc) {
                Ok(t) => t,
                Err(ToolError::Linked(_)) => {
                    linked.push(doc.clone());
                    continue;
                }
                Err(_) => continue,
            };
            let dir = doc.rsplit_once('/').map_or("", |(d, _)| d);
            for r in docrefs::references(&text) {
                match r.kind {
                    RefKind::Path { via } => {
                        checked += 1;
                        if docrefs::resolve_path(root, dir, &r.text).is_none() {
                            stale.push(json!({"doc": doc, "line": r.line, "reference": r.text, "kind": "path", "via": via,
                                "reason": "no such file or folder in the project"}));
                        }
                    }
                    RefKind::Symbol { owner, name } => {
                        checked += 1;
                        if known.contains(&r.text) {
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
                            known.insert(r.text);
                        } else {
                            stale.push(json!({"doc": doc, "line": r.line, "reference": r.text, "kind": "symbol",
                                "reason": if defs.is_empty() { "no definition of this name in the index" } else { "the name exists, but not on that owner" }}));
                        }
                    }
                    RefKind::Ident => {}
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
        Ok(tsa_analysis::security::warn_linked(s, &linked))
    }
}
