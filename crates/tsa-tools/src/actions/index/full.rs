//! `index full`: cold or incremental build of the symbol and call-graph index.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{BuildMode, BuildOptions, WalkOptions};

use crate::action::Action;
use crate::actions::common::{build_index, cap, fixed_cap};
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
    /// Most files to index (>= 1, default 20000).
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
}

pub struct Full;

impl Action for Full {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "full";
    const SUMMARY: &'static str = "build the symbol + call-graph index (incremental by content hash, or full), all cores, one transaction";
    const BRIEF: &'static str = "full or incremental build";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_files = cap("max_files", args.max_files, 20_000)?;
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
                json!({
                    "file": f.file,
                    "status": f.status,
                    "reason": f.reason,
                    "parse_errors": f.parse_errors,
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
        let mut s = Success::new(verdict, summary)
            .with("mode", r.mode_used)
            .with("elapsed_seconds", (r.elapsed_ms as f64) / 1000.0)
            .with(
                "phases",
                json!({
                    "status": "completed",
                    "mode_used": r.mode_used,
                    "total_files": r.total_files,
                    "files_indexed": r.indexed,
                    "files_cached": r.cached,
                    "files_deleted": r.deleted,
                    "errors": r.errors,
                    "files_with_parse_errors": r.files_with_parse_errors,
                    "skipped_binary": r.skipped_binary,
                    "skipped_unknown_extension": r.skipped_unknown_extension,
                    "skipped_too_large": r.skipped_too_large,
                    "skipped_missing": r.skipped_missing,
                    "truncated_by_max_files": r.truncated_by_max_files,
                    "calls_resolved": r.calls_resolved,
                    "workers": r.workers,
                }),
            )
            .with("index_path", ".tsa/index.db")
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
                "truncated_by_max_files: stopped at {} files; raise max_files",
                max_files
            ));
        }
        Ok(crate::actions::index::scip::with_build_scip(s, &r))
    }
}
