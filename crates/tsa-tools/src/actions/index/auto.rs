//! `index auto`: report on, warm (build or refresh) or reset (delete) the index.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Success, Verdict};
use tsa_index::{BuildOptions, Index, WalkOptions, pending_changes};

use crate::action::Action;
use crate::actions::common::{build_index, cap};
use crate::{Context, ToolError};

/// What `index auto` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Whether an index exists and is current (default).
    Status,
    /// Build it if missing, else refresh it incrementally.
    Warm,
    /// Delete it (the next query or build recreates it).
    Reset,
}

/// Arguments of `index auto`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `status` (default), `warm` or `reset`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Most files to index (>= 1; default 1000000, a guard: files past it are counted and warned about).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
}

pub struct Auto;

impl Action for Auto {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "auto";
    const SUMMARY: &'static str = "status | warm (build or refresh) | reset (delete) of the index";
    const BRIEF: &'static str = "status, warm or reset the index";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let max_files = cap("max_files", args.max_files, tsa_index::MAX_FILES_GUARD)?;
        let walk = WalkOptions {
            max_files: max_files.get(),
            ..WalkOptions::default()
        };
        match args.mode.unwrap_or(Mode::Status) {
            Mode::Status => {
                let Some(index) = Index::open(root)? else {
                    return Ok(
                        Success::new(Verdict::NotFound, "index auto status: no index")
                            .with("mode", "status")
                            .with("index_state", "missing")
                            .with_next_step("Build it: index action=auto mode=warm"),
                    );
                };
                let st = index.status()?;
                let pending = pending_changes(root, &walk)?;
                let up_to_date = pending.total() == 0;
                let verdict = if up_to_date {
                    Verdict::Info
                } else {
                    Verdict::Warn
                };
                Ok(Success::new(
                    verdict,
                    format!(
                        "index auto status files={} up_to_date={up_to_date}",
                        st.files
                    ),
                )
                .with("mode", "status")
                .with("index_state", if st.files == 0 { "empty" } else { "ready" })
                .with("indexed_files", st.files)
                .with("total_symbols", st.symbols)
                .with("pending_changes", pending.total())
                .with("up_to_date", up_to_date)
                .with_next_step(if up_to_date {
                    "Index is current."
                } else {
                    "Refresh: index action=auto mode=warm"
                }))
            }
            Mode::Warm => {
                let r = build_index(
                    ctx,
                    &BuildOptions {
                        walk,
                        ..ctx.build_options()
                    },
                )?;
                Ok(Success::new(
                    Verdict::Info,
                    format!(
                        "index auto warm indexed={} cached={} deleted={}",
                        r.indexed, r.cached, r.deleted
                    ),
                )
                .with("mode", "warm")
                .with("index_state", "ready")
                .with("files_indexed", r.indexed)
                .with("files_cached", r.cached)
                .with("files_deleted", r.deleted)
                .with("elapsed_ms", r.elapsed_ms as u64)
                .with_next_step("Query it: nav action=callers function_name=<name>"))
            }
            Mode::Reset => {
                let dir = tsa_index::state_path(root, "")?;
                let existed = dir.exists();
                if existed {
                    std::fs::remove_dir_all(&dir).map_err(|e| {
                        ToolError::Internal(format!("cannot remove the index folder: {e}"))
                    })?;
                }
                Ok(
                    Success::new(Verdict::Info, format!("index auto reset removed={existed}"))
                        .with("mode", "reset")
                        .with("index_state", "missing")
                        .with("removed", existed)
                        .with("removed_path", json!(".tsa"))
                        .with_next_step("Rebuild: index action=auto mode=warm"),
                )
            }
        }
    }
}
