//! `index status`: what the index holds and whether it is stale.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{Index, WalkOptions, pending_changes};

use crate::action::Action;
use crate::actions::common::{fixed_cap, to_value, with_payload};
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

/// How many files changed since the last build, by kind.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PendingCounts {
    /// Files on disk the index does not hold.
    pub new: usize,
    /// Files whose content changed.
    pub modified: usize,
    /// Indexed files gone from disk.
    pub deleted: usize,
}

/// A file indexed with parse errors.
#[derive(Clone, Debug, Serialize)]
pub struct ParseErrorFile {
    /// The file, project-relative.
    pub file: String,
    /// How many parse errors it has.
    pub parse_errors: u32,
}

/// The engine of `index status` on an existing index: its payload in answer order,
/// then what the envelope is made of.
#[derive(Clone, Debug, Serialize)]
pub struct StatusReport {
    /// WARN when the index is stale or empty, else INFO.
    #[serde(skip)]
    pub verdict: Verdict,
    /// The one-line summary.
    #[serde(skip)]
    pub summary: String,
    /// Files with parse errors, capped at 20.
    #[serde(skip)]
    pub parse_error_files: Capped<ParseErrorFile>,
    /// How many files changed since the last build (when compared with the disk).
    #[serde(skip)]
    pub pending_total: Option<usize>,
    /// `empty` (no file indexed) or `ready`.
    pub index_state: &'static str,
    /// Where the index lives, project-relative.
    pub index_path: &'static str,
    /// Indexed files.
    pub files: u64,
    /// Indexed definitions.
    pub symbols: u64,
    /// Call edges.
    pub call_edges: u64,
    /// Call edges with a resolution class other than `unknown`.
    pub calls_classified: u64,
    /// `calls_classified / call_edges` (3 decimals; 0 without calls).
    pub calls_classified_share: f64,
    /// Import edges.
    pub imports: u64,
    /// Files per language.
    pub files_by_language: BTreeMap<String, u64>,
    /// Definitions per kind.
    pub symbols_by_kind: BTreeMap<String, u64>,
    /// Definitions per language.
    pub symbols_by_language: BTreeMap<String, u64>,
    /// Call edges per resolution class.
    pub calls_by_resolution: BTreeMap<String, u64>,
    /// Edges per kind.
    pub edges_by_kind: BTreeMap<String, u64>,
    /// Per edge kind, edges per resolution class.
    pub edges_by_resolution: BTreeMap<String, BTreeMap<String, u64>>,
    /// Size of the index database in bytes.
    pub index_bytes: u64,
    /// When the index was last built (Unix seconds).
    pub built_at: Option<u64>,
    /// Seconds since then.
    pub age_seconds: Option<u64>,
    /// What the last SCIP import did, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scip: Option<Value>,
    /// Changed files by kind (when compared with the disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_changes: Option<PendingCounts>,
    /// Whether nothing changed since the last build (when compared with the disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up_to_date: Option<bool>,
}

impl StatusReport {
    /// True when files changed since the last build.
    pub fn stale(&self) -> bool {
        self.pending_total.is_some_and(|p| p > 0)
    }

    /// The answer of `index status`.
    pub fn into_success(self) -> Success {
        let stale = self.stale();
        let empty = self.files == 0;
        let mut s = with_payload(Success::new(self.verdict, self.summary.as_str()), &self)
            .with_list(
                ListSpelling {
                    list_key: "parse_error_files",
                    total_key: "parse_error_file_count",
                    listed_key: "parse_error_files_listed",
                    cap_key: "parse_error_files_cap",
                    noun: "files with parse errors",
                    remedy: "fix the listed files first; the rest is in the index anyway".into(),
                },
                self.parse_error_files.map(|r| to_value(&r)),
            );
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
                self.pending_total.unwrap_or(0)
            ));
        }
        s
    }
}

/// What the index of `root` holds, compared with the files on disk when
/// `include_lag`; `None` when there is no index.
pub fn status(root: &Path, include_lag: bool) -> Result<Option<StatusReport>, ToolError> {
    let Some(index) = Index::open(root)? else {
        return Ok(None);
    };
    let st = index.status()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let lag = match include_lag {
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
    let errors = st.parse_error_files.iter().map(|(f, n)| ParseErrorFile {
        file: f.clone(),
        parse_errors: *n,
    });
    // SCIP coverage: what the last import of compiler-grade edges did.
    let scip = index
        .build_record("scip")?
        .and_then(|j| serde_json::from_str::<tsa_index::ScipReport>(&j).ok())
        .map(|scip| crate::actions::index::scip::report_json(&scip));
    Ok(Some(StatusReport {
        verdict,
        summary,
        parse_error_files: Capped::collect(errors, fixed_cap(20)),
        pending_total: pending,
        index_state: if empty { "empty" } else { "ready" },
        index_path: ".tsa/index.db",
        files: st.files,
        symbols: st.symbols,
        call_edges: st.calls,
        calls_classified: resolved,
        calls_classified_share: if st.calls == 0 {
            0.0
        } else {
            (resolved as f64 / st.calls as f64 * 1000.0).round() / 1000.0
        },
        imports: st.imports,
        files_by_language: st.files_by_language,
        symbols_by_kind: st.symbols_by_kind,
        symbols_by_language: st.symbols_by_language,
        calls_by_resolution: st.calls_by_resolution,
        edges_by_kind: st.edges_by_kind,
        edges_by_resolution: st.edges_by_resolution,
        index_bytes: st.index_bytes,
        built_at: st.built_at,
        age_seconds: st.built_at.map(|b| now.saturating_sub(b)),
        scip,
        pending_changes: lag.as_ref().map(|p| PendingCounts {
            new: p.new.len(),
            modified: p.modified.len(),
            deleted: p.deleted.len(),
        }),
        up_to_date: lag.as_ref().map(|_| !stale),
    }))
}

impl Action for Status {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "status";
    const SUMMARY: &'static str = "index health: files, symbols by kind and language, edges by resolution class, parse errors, size, staleness";
    const BRIEF: &'static str = "index health and counts";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        match status(ctx.root()?, args.include_lag.unwrap_or(true))? {
            Some(report) => Ok(report.into_success()),
            None => Ok(Success::new(Verdict::NotFound, "index status: no index")
                .with("index_state", "missing")
                .with_next_step("Build it: index action=full")),
        }
    }
}
