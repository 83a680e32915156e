//! `project doc_sync`: Markdown references that no longer match the code: links and
//! path-like code spans to files that do not exist, and code spans naming functions
//! or methods (`build()`, `Engine.run`, `Store::open`) that no definition has.

use globset::{Glob, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::docrefs::stale_references;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
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

/// The payload of `project doc_sync` before its list.
#[derive(Debug, Serialize)]
pub struct DocSyncPayload<'a> {
    pub documents: usize,
    pub references_checked: usize,
    pub doc_patterns: &'a [String],
}

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
        let check = stale_references(root, index, &globs)?;
        let listed = Capped::collect(check.stale.iter().map(to_value), limit);
        let total = listed.total();
        let payload = DocSyncPayload {
            documents: check.documents,
            references_checked: check.checked,
            doc_patterns: &patterns,
        };
        let mut s = with_payload(
            Success::new(
                if total == 0 { Verdict::Info } else { Verdict::Caution },
                format!(
                    "doc_sync: {total} stale reference(s) in {} document(s), {} checked",
                    check.documents, check.checked
                ),
            ),
            &payload,
        )
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
        Ok(tsa_analysis::security::warn_linked(s, &check.linked))
    }
}
