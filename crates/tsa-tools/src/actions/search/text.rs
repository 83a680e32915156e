//! `search text`: literal line search over the live files of a folder, no index;
//! the answer is complete, or the call fails with the budget that stopped it (a
//! file too large to read is skipped, named, and the scan then says it is not
//! complete).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsa_analysis::literal_search::{self, Literal, Scan, ScanError, Scope};
use tsa_envelope::{Capped, ErrorType, Failure, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// How letter case is matched.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CaseMode {
    /// Case-sensitive if the query has an upper-case letter.
    #[default]
    Smart,
    Sensitive,
    Insensitive,
}

/// Arguments of `search text`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Literal text (1-4096 UTF-8 bytes, one line).
    pub query: String,
    /// Folder to search, project-relative (default: the whole project).
    #[serde(default)]
    pub root: Option<ProjectPath>,
    /// smart (default), sensitive or insensitive.
    #[serde(default)]
    pub case_mode: Option<CaseMode>,
    /// Only where no word character precedes or follows the match (default false).
    #[serde(default)]
    pub word_match: Option<bool>,
    /// Keep only files matching one of these globs, relative to root (`*` crosses `/`).
    #[serde(default)]
    pub include_globs: Option<Vec<String>>,
    /// Skip files matching any of these globs.
    #[serde(default)]
    pub exclude_globs: Option<Vec<String>>,
    /// Most matching lines to list (1-1000, default 100); the total is always exact.
    #[serde(default)]
    pub limit: Option<i64>,
}

pub struct Text;

/// Most globs per list, and bytes per glob.
const MAX_GLOBS: usize = 64;
const MAX_GLOB_BYTES: usize = 256;
/// Most bytes of the listed lines.
const MAX_RESULT_BYTES: usize = 32 << 20;
/// Most large files named.
const SKIPPED_NAMED: usize = 20;

#[derive(Serialize)]
struct Evidence {
    consistency: &'static str,
    index_used: bool,
    scan_complete: bool,
}

#[derive(Serialize)]
struct Stats<'a> {
    files_scanned: usize,
    bytes_scanned: u64,
    binary_files_skipped: usize,
    large_files_skipped: usize,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    skipped_files: &'a [String],
}

#[derive(Serialize)]
struct Payload<'a> {
    query: &'a str,
    match_mode: &'static str,
    effective_case_sensitive: bool,
    data_source: &'static str,
    engine_used: &'static str,
    source_evidence: Evidence,
    file_count: usize,
    truncation_reason: Option<&'static str>,
    scan_stats: Stats<'a>,
}

/// The failure of this action: `Text search failed: <CODE>` (or the field's rule
/// for bad input), with its code, the query and an empty result.
fn failure(code: &'static str, error: String, query: &str) -> ToolError {
    let t = match code {
        "INVALID_ARGUMENT" => ErrorType::Validation,
        "PROJECT_ROOT_NOT_SET" => ErrorType::ProjectNotSet,
        "SOURCE_ROOT_UNAVAILABLE" | "SOURCE_FILE_UNAVAILABLE" => ErrorType::FileNotFound,
        "SOURCE_ROOT_SYMLINK" | "SOURCE_ROOT_OUTSIDE_PROJECT" => ErrorType::SecurityViolation,
        c if c.ends_with("_BUDGET_EXCEEDED") => ErrorType::ResourceExhausted,
        _ => ErrorType::Internal,
    };
    let hint = match t {
        ErrorType::Validation => "Fix the argument named in error and call again.",
        ErrorType::ResourceExhausted => {
            "Narrow the scan: a smaller root, include_globs, or a more specific query."
        }
        ErrorType::FileNotFound => "Pass root as a folder of the project (project action=files).",
        ErrorType::SecurityViolation => {
            "Pass root as a real folder inside the project, not a symlink or a path outside it."
        }
        _ => "Retry; if files are being written, wait until they are done.",
    };
    ToolError::Coded(Box::new(
        Failure::new(t, error)
            .with_hint(hint)
            .with("error_code", code)
            .with("query", query)
            .with("results", json!([]))
            .with("source_evidence", json!({"scan_complete": false})),
    ))
}

fn invalid(error: impl Into<String>, query: &str) -> ToolError {
    failure("INVALID_ARGUMENT", error.into(), query)
}

fn scan_failed(e: ScanError, query: &str) -> ToolError {
    let code = e.code;
    failure(
        code,
        format!("Text search failed: {code}: {}", e.detail),
        query,
    )
}

fn check_globs(name: &str, globs: Option<Vec<String>>, q: &str) -> Result<Vec<String>, ToolError> {
    let globs = globs.unwrap_or_default();
    if globs.len() > MAX_GLOBS {
        return Err(invalid(
            format!("{name} takes at most {MAX_GLOBS} globs"),
            q,
        ));
    }
    for g in &globs {
        if g.is_empty() || g.len() > MAX_GLOB_BYTES || g.starts_with('!') {
            return Err(invalid(
                format!(
                    "{name}: each glob must be 1-{MAX_GLOB_BYTES} bytes and not start with '!' (use exclude_globs)"
                ),
                q,
            ));
        }
    }
    Ok(globs.into_iter().map(|g| g.replace('\\', "/")).collect())
}

/// The folder to scan, checked: inside the project, a folder, no symlink on the way.
fn scope_dir(
    ctx: &Context,
    root: Option<&ProjectPath>,
    q: &str,
) -> Result<std::path::PathBuf, ToolError> {
    let project = ctx.root()?;
    let Some(r) = root else {
        return Ok(project.to_path_buf());
    };
    let given = r.as_str().replace('\\', "/");
    if given.starts_with('/') || given.get(1..2) == Some(":") {
        return Err(invalid(
            "root must be a project-relative folder, not an absolute path",
            q,
        ));
    }
    if given.split('/').any(|c| c == "..") {
        return Err(invalid("root must not contain '..'", q));
    }
    let mut at = project.to_path_buf();
    for c in given.split('/').filter(|c| !c.is_empty() && *c != ".") {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(failure(
                    "SOURCE_ROOT_SYMLINK",
                    format!(
                        "Text search failed: SOURCE_ROOT_SYMLINK: '{given}' passes through a symlink"
                    ),
                    q,
                ));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    if !r.absolute().is_dir() {
        return Err(failure(
            "SOURCE_ROOT_UNAVAILABLE",
            format!(
                "Text search failed: SOURCE_ROOT_UNAVAILABLE: '{given}' is not a folder of the project"
            ),
            q,
        ));
    }
    Ok(r.absolute().to_path_buf())
}

impl Action for Text {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "text";
    const SUMMARY: &'static str = "literal line search over the live files (no index): every matching line counted, complete or an error";
    const BRIEF: &'static str = "literal line search, no index";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let q = args.query.as_str();
        if q.is_empty() || q.len() > 4096 || q.contains(['\0', '\r', '\n']) {
            return Err(invalid(
                "query must be 1-4096 UTF-8 bytes without NUL or newlines",
                q,
            ));
        }
        let limit = match args.limit {
            Some(n) if !(1..=1000).contains(&n) => {
                return Err(invalid(format!("limit must be 1-1000, got {n}"), q));
            }
            l => cap("limit", l, 100)?,
        };
        let include = check_globs("include_globs", args.include_globs, q)?;
        let exclude = check_globs("exclude_globs", args.exclude_globs, q)?;
        let case_sensitive = match args.case_mode.unwrap_or_default() {
            CaseMode::Smart => literal_search::smart_case_sensitive(q),
            CaseMode::Sensitive => true,
            CaseMode::Insensitive => false,
        };
        let dir = scope_dir(ctx, args.root.as_ref(), q)?;
        let lit = Literal {
            text: q.to_owned(),
            case_sensitive,
            word: args.word_match.unwrap_or(false),
        };
        let scope = Scope {
            dir,
            root: ctx.root()?.to_path_buf(),
            include,
            exclude,
        };
        let scan = literal_search::scan(&lit, &scope).map_err(|e| scan_failed(e, q))?;
        answer(q, case_sensitive, scan, limit)
    }
}

fn answer(
    q: &str,
    case_sensitive: bool,
    scan: Scan,
    limit: std::num::NonZeroUsize,
) -> Result<Success, ToolError> {
    let total = scan.hits.len();
    let listed: usize = scan
        .hits
        .iter()
        .take(limit.get())
        .map(|h| h.text.len())
        .sum();
    if listed > MAX_RESULT_BYTES {
        return Err(scan_failed(
            ScanError {
                code: "SOURCE_RESPONSE_BUDGET_EXCEEDED",
                detail: "the listed lines exceed 32 MiB; lower limit".into(),
            },
            q,
        ));
    }
    let complete = scan.large_files.is_empty();
    let named: Vec<String> = scan
        .large_files
        .iter()
        .take(SKIPPED_NAMED)
        .cloned()
        .collect();
    let payload = Payload {
        query: q,
        match_mode: "literal",
        effective_case_sensitive: case_sensitive,
        data_source: "live_source",
        engine_used: "native",
        source_evidence: Evidence {
            consistency: "per_file_live",
            index_used: false,
            scan_complete: complete,
        },
        file_count: scan.file_count,
        truncation_reason: (total > limit.get()).then_some("limit"),
        scan_stats: Stats {
            files_scanned: scan.files_scanned,
            bytes_scanned: scan.bytes_scanned,
            binary_files_skipped: scan.binary_files_skipped,
            large_files_skipped: scan.large_files.len(),
            skipped_files: &named,
        },
    };
    // Binary files (UTF-16 text among them) were not searched: no hit is then not
    // "nowhere".
    let verdict = match (total, complete && scan.binary_files_skipped == 0) {
        (0, true) => Verdict::NotFound,
        (0, false) => Verdict::Warn,
        _ => Verdict::Info,
    };
    let shown = total.min(limit.get());
    let mut s = with_payload(
        Success::new(
            verdict,
            format!(
                "text search matched {total} line(s) in {} file(s); showing {shown}",
                scan.file_count
            ),
        ),
        &payload,
    );
    if !complete {
        s = s.with_warning(format!(
            "{} file(s) over 10 MiB were not read (scan_stats.skipped_files): a match there is not counted",
            scan.large_files.len()
        ));
    }
    if total == 0 {
        s = s.with_next_step(if verdict == Verdict::NotFound {
            "No matching line in the scope's text files (hidden, ignored and build folders are not searched); check the spelling, case_mode, or widen root/globs.".to_owned()
        } else if complete {
            format!("No matching line in the text files; {} binary file(s) (NUL bytes, UTF-16 text too) were not searched.", scan.binary_files_skipped)
        } else {
            "No matching line in the files read, but some were too large to read; search them with search action=content.".to_owned()
        });
    }
    let rows: Capped<Value> = Capped::collect(scan.hits, limit).map(|h| to_value(&h));
    Ok(s.with_list(
        ListSpelling {
            list_key: "results",
            total_key: "total_count",
            listed_key: "displayed_count",
            cap_key: "listed_cap",
            noun: "matching lines",
            remedy: "raise limit or narrow root/globs".into(),
        },
        rows,
    ))
}
