//! `index status`: what the index holds and whether it is stale.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{Index, WalkOptions, pending_changes};

use crate::action::Action;
use crate::actions::common::fixed_cap;
use crate::{Context, ToolError};

/// Arguments of `index status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Compare the index with the files on disk (default true).
    #[serde(default)]
    pub include_lag: Option<bool>,
}

pub struct Status;

impl Action for Status {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "status";
    const SUMMARY: &'static str = "index health: files, symbols by kind and language, edges by resolution class, parse errors, size, staleness";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let Some(index) = Index::open(root)? else {
            return Ok(Success::new(Verdict::NotFound, "index status: no index")
                .with("index_state", "missing")
                .with_next_step("Build it: index action=full"));
        };
        let st = index.status()?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let lag = match args.include_lag.unwrap_or(true) {
            true => Some(pending_changes(root, &WalkOptions::default())?),
            false => None,
        };
        let pending = lag.as_ref().map(|p| p.total());
        let stale = pending.is_some_and(|p| p > 0);
        let empty = st.files == 0;
        let verdict = if stale || empty {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let resolved = st.calls - st.calls_by_resolution.get("unknown").copied().unwrap_or(0);
        let summary = format!(
            "index status files={} symbols={} call_edges={} classified={} ({:.1}%) stale={}",
            st.files,
            st.symbols,
            st.calls,
            resolved,
            if st.calls == 0 {
                0.0
            } else {
                resolved as f64 * 100.0 / st.calls as f64
            },
            stale
        );
        let errors: Vec<_> = st
            .parse_error_files
            .iter()
            .map(|(f, n)| json!({"file": f, "parse_errors": n}))
            .collect();
        let errors = Capped::collect(errors, fixed_cap(20));
        let mut s = Success::new(verdict, summary)
            .with("index_state", if empty { "empty" } else { "ready" })
            .with("index_path", ".tsa/index.db")
            .with("files", st.files)
            .with("symbols", st.symbols)
            .with("call_edges", st.calls)
            .with("calls_classified", resolved)
            .with(
                "calls_classified_share",
                if st.calls == 0 {
                    0.0
                } else {
                    (resolved as f64 / st.calls as f64 * 1000.0).round() / 1000.0
                },
            )
            .with("imports", st.imports)
            .with("files_by_language", json!(st.files_by_language))
            .with("symbols_by_kind", json!(st.symbols_by_kind))
            .with("symbols_by_language", json!(st.symbols_by_language))
            .with("calls_by_resolution", json!(st.calls_by_resolution))
            .with("edges_by_kind", json!(st.edges_by_kind))
            .with("edges_by_resolution", json!(st.edges_by_resolution))
            .with("index_bytes", st.index_bytes)
            .with("built_at", st.built_at)
            .with("age_seconds", st.built_at.map(|b| now.saturating_sub(b)))
            .with_list(
                ListSpelling {
                    list_key: "parse_error_files",
                    total_key: "parse_error_file_count",
                    listed_key: "parse_error_files_listed",
                    cap_key: "parse_error_files_cap",
                    noun: "files with parse errors",
                    remedy: "fix the listed files first; the rest is in the index anyway".into(),
                },
                errors,
            );
        // SCIP coverage: what the last import of compiler-grade edges did.
        if let Some(scip) = index
            .build_record("scip")?
            .and_then(|j| serde_json::from_str::<tsa_index::ScipReport>(&j).ok())
        {
            s = s.with("scip", crate::actions::index::scip::report_json(&scip));
        }
        if let Some(p) = &lag {
            s = s
                .with(
                    "pending_changes",
                    json!({"new": p.new.len(), "modified": p.modified.len(), "deleted": p.deleted.len()}),
                )
                .with("up_to_date", !stale);
        }
        s = s.with_next_step(if stale {
            "Refresh: index action=full (incremental re-parses only the changed files)"
        } else if empty {
            "No source files indexed; check the project root"
        } else {
            "Index is current; query it with nav action=callers or search action=symbol"
        });
        if stale {
            s = s.with_warning(format!(
                "stale_index: {} file(s) changed since the last build",
                pending.unwrap_or(0)
            ));
        }
        Ok(s)
    }
}
