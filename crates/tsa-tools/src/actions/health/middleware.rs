//! `health middleware`: the project's request-pipeline hooks (Flask, FastAPI,
//! Django, Express, Spring): all of them, a summary, or those under a URL prefix;
//! `framework` filters every mode.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::middleware::{Hook, scan};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value};
use crate::{Context, ToolError};

/// all, summary or lookup.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    All,
    Summary,
    Lookup,
}

/// Which framework's hooks.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Framework {
    #[default]
    All,
    Flask,
    Django,
    Fastapi,
    Express,
    Spring,
}

/// Arguments of `health middleware`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// all (default), summary, or lookup (needs url_prefix).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// With lookup: hooks whose URL pattern starts with this.
    #[serde(default)]
    #[schemars(length(max = 1024))]
    pub url_prefix: Option<String>,
    /// all (default), flask, django, fastapi, express or spring.
    #[serde(default)]
    pub framework: Option<Framework>,
    /// Most hooks listed (default 200); the count is exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Middleware;

/// Whether a hook mounted at `pattern` runs for URLs under `prefix`: a global hook
/// (`/*`) always does, a mounted one when either path contains the other.
fn covers(pattern: &str, prefix: &str) -> bool {
    let mount = pattern.trim_end_matches('*').trim_end_matches('/');
    let want = prefix.trim_end_matches('/');
    mount.is_empty() || want.starts_with(mount) || mount.starts_with(want)
}

fn name(f: Framework) -> &'static str {
    match f {
        Framework::All => "all",
        Framework::Flask => "flask",
        Framework::Django => "django",
        Framework::Fastapi => "fastapi",
        Framework::Express => "express",
        Framework::Spring => "spring",
    }
}

impl Action for Middleware {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "middleware";
    const SUMMARY: &'static str = "request-pipeline hooks: Flask before/after/error handlers, FastAPI and Express middleware, Django MIDDLEWARE, Spring advice, filters and interceptors";
    const BRIEF: &'static str = "middleware and hooks";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or_default();
        let fw = args.framework.unwrap_or_default();
        let limit = cap("limit", args.limit, 200)?;
        let prefix = match (mode, args.url_prefix.as_deref().map(str::trim)) {
            (Mode::Lookup, None | Some("")) => {
                return Err(ToolError::Validation(
                    "mode=lookup needs url_prefix (e.g. /api)".into(),
                ));
            }
            (Mode::Lookup, Some(p)) => Some(if p.starts_with('/') {
                p.to_owned()
            } else {
                format!("/{p}")
            }),
            _ => None,
        };
        let (all, files_scanned) = scan(ctx.root()?);
        let hooks: Vec<Hook> = all
            .into_iter()
            .filter(|h| fw == Framework::All || h.framework == name(fw))
            .filter(|h| prefix.as_ref().is_none_or(|p| covers(&h.url_pattern, p)))
            .collect();
        let n = hooks.len();
        if mode == Mode::Summary {
            let mut by_framework: BTreeMap<&str, usize> = BTreeMap::new();
            let mut by_type: BTreeMap<&str, usize> = BTreeMap::new();
            let files: BTreeSet<&str> = hooks.iter().map(|h| h.file_path.as_str()).collect();
            for h in &hooks {
                *by_framework.entry(h.framework).or_insert(0) += 1;
                *by_type.entry(h.middleware_type).or_insert(0) += 1;
            }
            let mut s = Success::new(
                Verdict::Info,
                format!("middleware: {n} hook(s) in {} file(s)", files.len()),
            );
            for (k, v) in [
                ("mode", json!("summary")),
                ("framework", json!(name(fw))),
                ("total_middlewares", json!(n)),
                ("by_framework", json!(by_framework)),
                ("by_type", json!(by_type)),
                ("file_count", json!(files.len())),
                ("files_scanned", json!(files_scanned)),
            ] {
                s.insert(k, v);
            }
            return Ok(
                s.with_next_step("List them with mode=all (or mode=lookup url_prefix=/api).")
            );
        }
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "middleware: {n} hook(s){}",
                prefix
                    .as_deref()
                    .map(|p| format!(" under {p}"))
                    .unwrap_or_default()
            ),
        );
        s.insert(
            "mode",
            json!(if mode == Mode::Lookup {
                "lookup"
            } else {
                "all"
            }),
        );
        s.insert("framework", json!(name(fw)));
        if let Some(p) = &prefix {
            s.insert("url_prefix", json!(p));
        }
        s.insert("files_scanned", json!(files_scanned));
        let s = s.with_list(
            ListSpelling {
                list_key: "middlewares",
                total_key: "middleware_count",
                listed_key: "listed_count",
                cap_key: "listed_cap",
                noun: "hooks",
                remedy: "raise limit, or filter with framework".into(),
            },
            Capped::counted(
                hooks.iter().take(limit.get()).map(to_value).collect(),
                n,
                NonZeroUsize::new(limit.get()).unwrap_or(NonZeroUsize::MIN),
            ),
        );
        Ok(if n == 0 {
            s.with_next_step(
                "No hook found for this filter; routes are listed by health action=routes.",
            )
        } else {
            s.with_next_step("Each hook runs on every matching request: check it with nav action=pulse before changing request handling.")
        })
    }
}
