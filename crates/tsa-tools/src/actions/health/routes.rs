//! `health routes`: HTTP routes declared in the project (Flask, FastAPI, Django,
//! Express, Spring, Gin, Actix, Axum): all, a summary, lookup by URL, by prefix,
//! or one file's routes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::health::files::attach;
use tsa_analysis::health::routes_scan::{FRAMEWORKS, Route, scan_project};
use tsa_analysis::source::source_file;
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `health routes`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `summary` (default), `all`, `lookup` (routes matching url_pattern), `prefix` (paths starting with url_pattern) or `file` (routes in file_path).
    #[serde(default)]
    pub mode: Option<Mode>,
    /// URL to look up (`/users/42` matches `/users/<id>`, `/users/{id}`, `/users/:id`) or a path prefix.
    #[serde(default)]
    pub url_pattern: Option<String>,
    /// Project-relative file for mode=file.
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// `all` (default) or one of flask, django, fastapi, express, spring, gin, actix, axum.
    #[serde(default)]
    pub framework: Option<String>,
    /// Most routes to list (default 100). Totals stay exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

/// Modes of `health routes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    All,
    Summary,
    Lookup,
    Prefix,
    File,
}

pub struct Routes;

fn is_param(seg: &str) -> bool {
    (seg.starts_with('<') && seg.ends_with('>'))
        || (seg.starts_with('{') && seg.ends_with('}'))
        || seg.starts_with(':')
        || seg == "*"
}

fn segments(p: &str) -> Vec<&str> {
    p.trim_start_matches('^')
        .trim_end_matches('$')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether the concrete `url` is served by the route pattern `route`.
pub fn url_matches(route: &str, url: &str) -> bool {
    let (r, u) = (
        segments(route),
        segments(url.split('?').next().unwrap_or(url)),
    );
    if r.len() != u.len() {
        return false;
    }
    r.iter()
        .zip(&u)
        .all(|(a, b)| is_param(a) || a == b || (is_param(b) && is_param(a)))
}

fn row(r: &Route) -> Value {
    json!({
        "method": r.method,
        "path": r.path,
        "handler": r.handler,
        "file": r.file,
        "line": r.line,
        "framework": r.framework,
    })
}

impl Action for Routes {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "routes";
    const SUMMARY: &'static str = "HTTP routes (flask, django, fastapi, express, spring, gin, actix, axum): method, path, handler, file, line";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or(Mode::Summary);
        let limit = cap("limit", args.limit, 100)?;
        let framework = args
            .framework
            .as_deref()
            .unwrap_or("all")
            .to_ascii_lowercase();
        if framework != "all" && !FRAMEWORKS.contains(&framework.as_str()) {
            return Err(ToolError::Validation(format!(
                "parameter 'framework' must be one of all, {}; got '{framework}'",
                FRAMEWORKS.join(", ")
            )));
        }
        let root = ctx.root()?.to_path_buf();
        let pattern = args
            .url_pattern
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        if matches!(mode, Mode::Lookup | Mode::Prefix) && pattern.is_none() {
            return Err(ToolError::Validation(
                "parameter 'url_pattern' is required for mode=lookup and mode=prefix".into(),
            ));
        }
        let file = if mode == Mode::File {
            let Some(f) = args.file_path.as_deref() else {
                return Err(ToolError::Validation(
                    "parameter 'file_path' is required for mode=file".into(),
                ));
            };
            Some(source_file(&root, f)?)
        } else {
            None
        };
        let opened = open_index(ctx)?;
        let files = opened.index.files()?;
        let all = scan_project(&root, &files);
        let all: Vec<Route> = all
            .into_iter()
            .filter(|r| framework == "all" || r.framework == framework)
            .collect();
        let selected: Vec<&Route> = match mode {
            Mode::Lookup => all
                .iter()
                .filter(|r| url_matches(&r.path, pattern.unwrap_or("")))
                .collect(),
            Mode::Prefix => {
                let p = pattern.unwrap_or("");
                let p_norm = p.trim_start_matches('/');
                all.iter()
                    .filter(|r| r.path.trim_start_matches('/').starts_with(p_norm))
                    .collect()
            }
            Mode::File => all
                .iter()
                .filter(|r| Some(&r.file) == file.as_ref())
                .collect(),
            _ => all.iter().collect(),
        };
        let mut by_framework: BTreeMap<&str, usize> = BTreeMap::new();
        let mut by_method: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &selected {
            *by_framework.entry(r.framework).or_default() += 1;
            *by_method.entry(r.method.as_str()).or_default() += 1;
        }
        let n = selected.len();
        let verdict = if n > 0 {
            Verdict::Info
        } else if matches!(mode, Mode::Lookup | Mode::Prefix | Mode::File) {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let what = match mode {
            Mode::Lookup => format!(" serving '{}'", pattern.unwrap_or("")),
            Mode::Prefix => format!(" under '{}'", pattern.unwrap_or("")),
            Mode::File => format!(" in {}", file.as_deref().unwrap_or("")),
            _ => String::new(),
        };
        let mut s = Success::new(verdict, format!("routes: {n} route(s){what}"))
            .with(
                "mode",
                match mode {
                    Mode::All => "all",
                    Mode::Summary => "summary",
                    Mode::Lookup => "lookup",
                    Mode::Prefix => "prefix",
                    Mode::File => "file",
                },
            )
            .with("framework", framework.as_str())
            .with("by_framework", json!(by_framework))
            .with("by_method", json!(by_method))
            .with("files_with_routes", {
                let mut f: Vec<&str> = selected.iter().map(|r| r.file.as_str()).collect();
                f.dedup();
                f.len()
            });
        if let Some(p) = pattern {
            s = s.with("url_pattern", p);
        }
        if let Some(f) = &file {
            s = s.with("file_path", f.as_str());
        }
        s = attach(
            s,
            "routes",
            "routes",
            selected.iter().map(|r| row(r)).collect(),
            limit,
        );
        if n == 0 && matches!(mode, Mode::Lookup | Mode::Prefix) {
            let known: Vec<&str> = {
                let mut v: Vec<&str> = all.iter().map(|r| r.path.as_str()).collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let p = pattern.unwrap_or("");
            // Compared by its first 64 characters: the cost never grows with the input.
            let probe = tsa_analysis::suggest::clip(p);
            let mut scored: Vec<(f64, &str)> = known
                .iter()
                .map(|k| (strsim::jaro_winkler(probe, k), *k))
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let sugg: Vec<&str> = scored.into_iter().take(5).map(|(_, k)| k).collect();
            s = s.with("suggestions", json!(sugg)).with_next_step(format!(
                "No route matches '{p}'. Close route paths are in suggestions; mode=all lists every route."
            ));
        } else if n == 0 {
            s = s.with_next_step("No route declarations found for the frameworks recognised (flask, django, fastapi, express, spring, gin, actix, axum).");
        } else {
            s = s.with_next_step("nav action=callees on a handler shows what the route runs.");
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::url_matches;

    #[test]
    fn urls_match_parameterised_routes() {
        assert!(url_matches("/users/<id>", "/users/42"));
        assert!(url_matches("/users/{id}", "/users/42?x=1"));
        assert!(url_matches("/users/:id", "/users/42"));
        assert!(!url_matches("/users/:id", "/users/42/posts"));
        assert!(url_matches("articles/", "/articles"));
        assert!(!url_matches("/a/b", "/a/c"));
    }
}
