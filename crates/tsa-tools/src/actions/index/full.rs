//! `index full`: cold or incremental build of the symbol and call-graph index.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{BuildMode, BuildOptions, WalkOptions};

use crate::action::Action;
use crate::actions::common::{build_index, cap, fixed_cap, to_value, with_payload};
use crate::{Context, ToolError};

/// Build modes.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Wipe and rebuild everything.
    Full,
    /// Re-parse only files whose content hash changed (default).
    Incremental,
}

/// Arguments of `index full`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `incremental` (default) or `full`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Most files to index (>= 1; default 1000000, a guard: files past it are counted and warned about).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// Skip files larger than this many bytes (default 2097152).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_file_size: Option<i64>,
    /// Also index hidden files and folders (default false).
    #[serde(default)]
    pub include_hidden: Option<bool>,
    /// Ignore .gitignore / .ignore rules (default false; .tsaignore always applies).
    #[serde(default)]
    pub no_ignore: Option<bool>,
    /// Apply .gitignore files outside a git work tree too (default false: git, and
    /// tsa, apply them inside one only).
    #[serde(default)]
    pub gitignore_outside_git: Option<bool>,
    /// Also compute per-symbol git activation (blame over the last 365 days) for
    /// TQL's temporal selectors (default false).
    #[serde(default)]
    pub include_activation: Option<bool>,
}

pub struct Full;

/// A file not indexed cleanly, as a row of `file_issues`.
#[derive(Debug, Serialize)]
pub struct FileIssue<'a> {
    pub file: &'a str,
    pub status: &'static str,
    pub reason: &'a str,
    pub parse_errors: u32,
}

/// What the build did, phase by phase.
#[derive(Debug, Serialize)]
pub struct Phases {
    pub status: &'static str,
    pub mode_used: &'static str,
    pub total_files: usize,
    pub files_indexed: usize,
    pub files_cached: usize,
    pub files_deleted: usize,
    pub errors: usize,
    pub files_with_parse_errors: usize,
    pub skipped_binary: usize,
    pub skipped_unknown_extension: usize,
    pub skipped_too_large: usize,
    pub skipped_missing: usize,
    /// Source files the ignore rules left out (counted by cold and full builds).
    pub skipped_ignored: usize,
    /// Source files past `max_files`, left out.
    pub skipped_over_max_files: usize,
    pub truncated_by_max_files: bool,
    pub calls_resolved: usize,
    pub workers: usize,
}

/// An ignore rule that left files out, as a row of `ignore_rules`.
#[derive(Debug, Serialize)]
pub struct IgnoreRuleRow<'a> {
    pub pattern: &'a str,
    pub file: &'a str,
    pub files: usize,
}

/// The payload of `index full` before its list.
#[derive(Debug, Serialize)]
pub struct FullPayload<'a> {
    pub mode: &'static str,
    pub elapsed_seconds: f64,
    pub phases: Phases,
    /// The ignore rules that left the most source files out (at most 5).
    pub ignore_rules: Vec<IgnoreRuleRow<'a>>,
    pub index_path: &'static str,
}

impl Action for Full {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "full";
    const SUMMARY: &'static str = "build the symbol + call-graph index (incremental by content hash, or full), all cores, one transaction";
    const BRIEF: &'static str = "full or incremental build";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_files = cap("max_files", args.max_files, tsa_index::MAX_FILES_GUARD)?;
        let mode = match args.mode.unwrap_or(Mode::Incremental) {
            Mode::Full => BuildMode::Full,
            Mode::Incremental => BuildMode::Incremental,
        };
        let opts = BuildOptions {
            mode,
            walk: WalkOptions {
                max_files: max_files.get(),
                max_file_size: cap("max_file_size", args.max_file_size, 2 * 1024 * 1024)?.get()
                    as u64,
                include_hidden: args.include_hidden.unwrap_or(false),
                no_ignore: args.no_ignore.unwrap_or(false),
                gitignore_outside_git: args.gitignore_outside_git.unwrap_or(false),
                ..WalkOptions::default()
            },
            // An explicit build checks the index it syncs (PRAGMA quick_check).
            verify: true,
            ..ctx.build_options()
        };
        let r = build_index(ctx, &opts)?;
        let issues: Vec<_> = r
            .files
            .iter()
            .filter(|f| f.status != "indexed" || f.parse_errors > 0)
            .map(|f| {
                to_value(&FileIssue {
                    file: &f.file,
                    status: f.status,
                    reason: &f.reason,
                    parse_errors: f.parse_errors,
                })
            })
            .collect();
        let issues = Capped::collect(issues, fixed_cap(20));
        let verdict = if r.errors > 0 || r.truncated_by_max_files {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let summary = format!(
            "index full mode={} files={} indexed={} cached={} deleted={} errors={} elapsed_ms={}",
            r.mode_used, r.total_files, r.indexed, r.cached, r.deleted, r.errors, r.elapsed_ms
        );
        let payload = FullPayload {
            mode: r.mode_used,
            elapsed_seconds: (r.elapsed_ms as f64) / 1000.0,
            phases: Phases {
                status: "completed",
                mode_used: r.mode_used,
                total_files: r.total_files,
                files_indexed: r.indexed,
                files_cached: r.cached,
                files_deleted: r.deleted,
                errors: r.errors,
                files_with_parse_errors: r.files_with_parse_errors,
                skipped_binary: r.skipped_binary,
                skipped_unknown_extension: r.skipped_unknown_extension,
                skipped_too_large: r.skipped_too_large,
                skipped_missing: r.skipped_missing,
                skipped_ignored: r.skipped_ignored,
                skipped_over_max_files: r.skipped_over_max_files,
                truncated_by_max_files: r.truncated_by_max_files,
                calls_resolved: r.calls_resolved,
                workers: r.workers,
            },
            ignore_rules: r
                .ignore_rules
                .iter()
                .map(|g| IgnoreRuleRow {
                    pattern: &g.pattern,
                    file: &g.file,
                    files: g.files,
                })
                .collect(),
            index_path: ".tsa/index.db",
        };
        let mut s = with_payload(Success::new(verdict, summary), &payload)
            .with_list(
                ListSpelling {
                    list_key: "file_issues",
                    total_key: "file_issue_count",
                    listed_key: "file_issues_listed",
                    cap_key: "file_issues_cap",
                    noun: "file issues",
                    remedy: "see index action=status for parse-error files".into(),
                },
                issues,
            )
            .with_next_step("Ask the graph: nav action=callers function_name=<name>, or search action=symbol query=<words>");
        if r.truncated_by_max_files {
            s = s.with_warning(format!(
                "truncated_by_max_files: indexed {} files and left {} out; raise max_files",
                max_files, r.skipped_over_max_files
            ));
        }
        if args.include_activation.unwrap_or(false) {
            s = with_activation(ctx, s)?;
        }
        Ok(crate::actions::index::scip::with_build_scip(s, &r))
    }
}

/// Computes per-symbol git activation after a build and says what it did.
fn with_activation(ctx: &Context, mut s: Success) -> Result<Success, ToolError> {
    use tsa_analysis::activation;
    let root = ctx.root()?;
    let Some(index) = tsa_index::Index::open(root)? else {
        s.set_verdict(Verdict::Warn);
        return Ok(s.with_warning("activation not computed: no index to compute it for"));
    };
    match activation::compute(root, &index, None, std::time::Duration::from_secs(600)) {
        Ok(done) => {
            let pending = done.pending.len();
            s.insert(
                "activation",
                serde_json::json!({
                    "files": done.files,
                    "blamed": done.blamed,
                    "pending": pending,
                    "window_days": activation::WINDOW_DAYS,
                }),
            );
            if pending > 0 {
                s.set_verdict(Verdict::Warn);
                s = s.with_warning(format!(
                    "activation: {pending} file(s) left without activation (time budget or git error; first: {}); temporal selectors refuse them",
                    done.pending[0]
                ));
            }
            Ok(s)
        }
        Err(e) => {
            s.set_verdict(Verdict::Warn);
            Ok(s.with_warning(format!("activation not computed: {e}")))
        }
    }
}
