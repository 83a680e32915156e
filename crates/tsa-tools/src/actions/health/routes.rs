//! `health routes`: HTTP routes declared in the project (Flask, FastAPI, Django,
//! Express, Spring, Gin, Actix, Axum): all, a summary, lookup by URL, by prefix,
//! or one file's routes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};
use tsa_analysis::health::files::attach;
use tsa_analysis::health::routes_scan::{FRAMEWORKS, Route, scan_project};
use tsa_analysis::source::source_file;

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

/// One route as a row of the answer.
#[derive(Clone, Debug, Serialize)]
pub struct RouteRow<'a> {
    /// HTTP method (`GET`, `ANY`, ...).
    pub method: &'a str,
    /// The path pattern as declared.
    pub path: &'a str,
    /// The handler's name.
    pub handler: &'a str,
    /// The declaring file, project-relative.
    pub file: &'a str,
    /// The declaration's line.
    pub line: u32,
    /// The framework that declares it.
    pub framework: &'static str,
}

impl<'a> RouteRow<'a> {
    fn of(r: &'a Route) -> Self {
        RouteRow {
            method: &r.method,
            path: &r.path,
            handler: &r.handler,
            file: &r.file,
            line: r.line,
            framework: r.framework,
        }
    }
}

/// Which routes `health routes` selects.
#[derive(Clone, Debug)]
pub struct RouteQuery {
    /// The selection mode.
    pub mode: Mode,
    /// `all` or one framework (lower case).
    pub framework: String,
    /// The URL or prefix for `lookup` and `prefix`.
    pub pattern: Option<String>,
    /// The project-relative file for `file`.
    pub file: Option<String>,
}

/// The selected routes counted by framework and method.
#[derive(Clone, Debug, Serialize)]
pub struct RouteCounts {
    /// Routes per framework.
    pub by_framework: BTreeMap<&'static str, usize>,
    /// Routes per HTTP method.
    pub by_method: BTreeMap<String, usize>,
    /// Files declaring them (consecutive repeats counted once).
    pub files_with_routes: usize,
}

/// The engine of `health routes`: every route of the chosen framework(s), those
/// the query selects, and their counts.
#[derive(Clone, Debug)]
pub struct RoutesReport {
    /// Every route of the chosen framework(s).
    pub all: Vec<Route>,
    /// The routes the query selects.
    pub selected: Vec<Route>,
    /// Counts over the selected routes.
    pub counts: RouteCounts,
    /// The warning of an index built by this call.
    pub built_now: Option<String>,
}

/// Scans the indexed files for routes and selects those `q` asks for.
pub fn find_routes(ctx: &Context, q: &RouteQuery) -> Result<RoutesReport, ToolError> {
    let root = ctx.root()?.to_path_buf();
    let opened = open_index(ctx)?;
    let files = opened.index.files()?;
    let all: Vec<Route> = scan_project(&root, &files)
        .into_iter()
        .filter(|r| q.framework == "all" || r.framework == q.framework)
        .collect();
    let pattern = q.pattern.as_deref().unwrap_or("");
    let selected: Vec<Route> = match q.mode {
        Mode::Lookup => all
            .iter()
            .filter(|r| url_matches(&r.path, pattern))
            .cloned()
            .collect(),
        Mode::Prefix => {
            let p_norm = pattern.trim_start_matches('/');
            all.iter()
                .filter(|r| r.path.trim_start_matches('/').starts_with(p_norm))
                .cloned()
                .collect()
        }
        Mode::File => all
            .iter()
            .filter(|r| Some(&r.file) == q.file.as_ref())
            .cloned()
            .collect(),
        _ => all.clone(),
    };
    let mut by_framework: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut by_method: BTreeMap<String, usize> = BTreeMap::new();
    for r in &selected {
        *by_framework.entry(r.framework).or_default() += 1;
        *by_method.entry(r.method.clone()).or_default() += 1;
    }
    let files_with_routes = {
        let mut f: Vec<&str> = selected.iter().map(|r| r.file.as_str()).collect();
        f.dedup();
        f.len()
    };
    Ok(RoutesReport {
        all,
        selected,
        counts: RouteCounts {
            by_framework,
            by_method,
            files_with_routes,
        },
        built_now: opened.built_now,
    })
}

/// The query of `args`, checked: a known framework, a pattern for lookup and
/// prefix, a source file for mode=file.
fn query_of(ctx: &Context, args: Args) -> Result<RouteQuery, ToolError> {
    let mode = args.mode.unwrap_or(Mode::Summary);
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
    let root = ctx.root()?;
    let pattern = args
        .url_pattern
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
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
        Some(source_file(root, f)?)
    } else {
        None
    };
    Ok(RouteQuery {
        mode,
        framework,
        pattern,
        file,
    })
}

/// The payload of `health routes`, in answer order (the routes follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct RoutesPayload<'a> {
    /// The selection mode.
    pub mode: &'static str,
    /// `all` or one framework.
    pub framework: &'a str,
    /// Counts over the selected routes.
    #[serde(flatten)]
    pub counts: &'a RouteCounts,
    /// The URL or prefix looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_pattern: Option<&'a str>,
    /// The file of mode=file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<&'a str>,
    /// Close route paths, when a lookup or prefix matched nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<&'a str>>,
}

/// Up to five known route paths closest to `p` (compared by its first 64
/// characters: the cost never grows with the input).
fn suggestions<'a>(all: &'a [Route], p: &str) -> Vec<&'a str> {
    let known: Vec<&str> = {
        let mut v: Vec<&str> = all.iter().map(|r| r.path.as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let probe = tsa_analysis::suggest::clip(p);
    let mut scored: Vec<(f64, &str)> = known
        .iter()
        .map(|k| (strsim::jaro_winkler(probe, k), *k))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(5).map(|(_, k)| k).collect()
}

impl Action for Routes {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "routes";
    const SUMMARY: &'static str = "HTTP routes (flask, django, fastapi, express, spring, gin, actix, axum): method, path, handler, file, line";
    const BRIEF: &'static str = "HTTP routes";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 100)?;
        let q = query_of(ctx, args)?;
        let report = find_routes(ctx, &q)?;
        let (mode, pattern, file) = (q.mode, q.pattern.as_deref(), q.file.as_deref());
        let n = report.selected.len();
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
            Mode::File => format!(" in {}", file.unwrap_or("")),
            _ => String::new(),
        };
        let unmatched = n == 0 && matches!(mode, Mode::Lookup | Mode::Prefix);
        let payload = RoutesPayload {
            mode: match mode {
                Mode::All => "all",
                Mode::Summary => "summary",
                Mode::Lookup => "lookup",
                Mode::Prefix => "prefix",
                Mode::File => "file",
            },
            framework: &q.framework,
            counts: &report.counts,
            url_pattern: pattern,
            file_path: file,
            suggestions: unmatched.then(|| suggestions(&report.all, pattern.unwrap_or(""))),
        };
        let mut s = attach(
            with_payload(
                Success::new(verdict, format!("routes: {n} route(s){what}")),
                &payload,
            ),
            "routes",
            "routes",
            report
                .selected
                .iter()
                .map(|r| to_value(&RouteRow::of(r)))
                .collect(),
            limit,
        );
        s = if unmatched {
            let p = pattern.unwrap_or("");
            s.with_next_step(format!(
                "No route matches '{p}'. Close route paths are in suggestions; mode=all lists every route."
            ))
        } else if n == 0 {
            s.with_next_step("No route declarations found for the frameworks recognised (flask, django, fastapi, express, spring, gin, actix, axum).")
        } else {
            s.with_next_step("nav action=callees on a handler shows what the route runs.")
        };
        if let Some(w) = report.built_now {
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
