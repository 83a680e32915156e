//! `index knowledge`: the code + docs knowledge graph sidecar (`.tsa/knowledge.json`).
//! `build` syncs the index and rebuilds the graph; `update` (default) syncs the index
//! and rebuilds only when what the graph is made of changed (the index's files and
//! hashes, the documents, the settings); `status` tells whether the stored graph is
//! current, writing nothing.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::knowledge::DocStats;
use tsa_analysis::knowledge::sidecar::{self, Settings, Sidecar, refresh};
use tsa_envelope::{Success, Verdict};
use tsa_index::{BuildMode, BuildOptions, BuildReport, Index, WalkOptions};

use crate::action::Action;
use crate::actions::common::{build_index, cap, with_payload};
use crate::{Context, ToolError};

/// What to do.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Sync the index, then rebuild the graph whatever its state.
    Build,
    /// Sync the index, then rebuild the graph only if its inputs changed (default).
    #[default]
    Update,
    /// Report the stored graph and whether it is current; writes nothing.
    Status,
}

/// Where the graph is stored.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// `.tsa/knowledge.json` (default, the only backend).
    #[default]
    Json,
}

/// Arguments of `index knowledge`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(default)]
    pub backend: Option<Backend>,
    /// Most source files the index sync walks, and most documents read (default 20000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// Most nodes stored (default 100000); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_nodes: Option<i64>,
    /// Most edges stored (default 500000); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_edges: Option<i64>,
    /// Add the Markdown documents and what they mention (default true).
    #[serde(default)]
    pub include_docs: Option<bool>,
}

pub struct Knowledge;

/// The counts of a stored graph, with the caps and the exact totals.
#[derive(Debug, Serialize)]
pub struct Counts<'a> {
    pub knowledge_path: &'static str,
    pub fingerprint: &'a str,
    pub built_at: u64,
    pub age_seconds: u64,
    pub settings: Settings,
    pub node_count: usize,
    pub nodes_stored: usize,
    pub max_nodes: usize,
    pub edge_count: usize,
    pub edges_stored: usize,
    pub max_edges: usize,
    pub nodes_truncated: bool,
    pub edges_truncated: bool,
    pub nodes_by_kind: &'a BTreeMap<String, usize>,
    pub edges_by_kind: &'a BTreeMap<String, usize>,
    pub docs: &'a DocStats,
}

impl<'a> Counts<'a> {
    fn of(sc: &'a Sidecar) -> Counts<'a> {
        Counts {
            knowledge_path: sidecar::REL_PATH,
            fingerprint: &sc.fingerprint,
            built_at: sc.built_at,
            age_seconds: sidecar::now().saturating_sub(sc.built_at),
            settings: sc.settings,
            node_count: sc.node_total,
            nodes_stored: sc.nodes.len(),
            max_nodes: sc.settings.max_nodes,
            edge_count: sc.edge_total,
            edges_stored: sc.edges.len(),
            max_edges: sc.settings.max_edges,
            nodes_truncated: sc.nodes.len() < sc.node_total,
            edges_truncated: sc.edges.len() < sc.edge_total,
            nodes_by_kind: &sc.nodes_by_kind,
            edges_by_kind: &sc.edges_by_kind,
            docs: &sc.docs,
        }
    }
}

/// The index sync behind a build or an update.
#[derive(Debug, Serialize)]
pub struct IndexSync {
    pub total_files: usize,
    pub files_indexed: usize,
    pub files_cached: usize,
    pub files_deleted: usize,
    pub truncated_by_max_files: bool,
}

/// The payload of a build or an update, before the counts.
#[derive(Debug, Serialize)]
pub struct RefreshPayload {
    pub mode: &'static str,
    pub backend: &'static str,
    pub rebuilt: bool,
    pub reason: &'static str,
    pub index_sync: IndexSync,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_written: Option<u64>,
}

/// The payload of `status`, before the counts (or alone when there is no graph).
#[derive(Debug, Serialize)]
struct StatusPayload {
    mode: &'static str,
    knowledge_state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    knowledge_path: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    up_to_date: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    index_present: Option<bool>,
}

/// The counts of a stored graph (warning when it was cut).
fn with_counts(s: Success, sc: &Sidecar) -> Success {
    let mut s = with_payload(s, &Counts::of(sc));
    if sc.truncated() {
        s = s.with_warning(format!(
            "knowledge_truncated: stored {} of {} nodes and {} of {} edges; raise max_nodes / max_edges",
            sc.nodes.len(),
            sc.node_total,
            sc.edges.len(),
            sc.edge_total
        ));
    }
    s
}

fn cut_sentence(sc: &Sidecar) -> String {
    format!(
        "showing {} of {} nodes and {} of {} edges — raise max_nodes / max_edges",
        sc.nodes.len(),
        sc.node_total,
        sc.edges.len(),
        sc.edge_total
    )
}

fn index_sync(report: &BuildReport) -> IndexSync {
    IndexSync {
        total_files: report.total_files,
        files_indexed: report.indexed,
        files_cached: report.cached,
        files_deleted: report.deleted,
        truncated_by_max_files: report.truncated_by_max_files,
    }
}

impl Action for Knowledge {
    type Args = Args;
    const FACADE: &'static str = "index";
    const NAME: &'static str = "knowledge";
    const SUMMARY: &'static str = "code + docs knowledge graph sidecar (.tsa/knowledge.json): folders, files, definitions, documents; imports, calls, bases, mentions";
    const BRIEF: &'static str = "code + docs knowledge graph";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let settings = Settings {
            include_docs: args.include_docs.unwrap_or(true),
            max_files: cap("max_files", args.max_files, tsa_index::MAX_FILES_GUARD)?.get(),
            max_nodes: cap("max_nodes", args.max_nodes, 100_000)?.get(),
            max_edges: cap("max_edges", args.max_edges, 500_000)?.get(),
        };
        let Backend::Json = args.backend.unwrap_or_default();
        let mode = args.mode.unwrap_or_default();
        if mode == Mode::Status {
            return status(ctx);
        }
        let opts = BuildOptions {
            mode: BuildMode::Incremental,
            walk: WalkOptions {
                max_files: settings.max_files,
                ..WalkOptions::default()
            },
            ..ctx.build_options()
        };
        let report = build_index(ctx, &opts)?;
        let index = Index::open(root)?
            .ok_or_else(|| ToolError::Internal("index missing right after sync".into()))?;
        let r = refresh(&index, root, settings, mode == Mode::Build)?;
        let sc = &r.sidecar;
        let rebuilt = r.bytes_written.is_some();
        let verdict = if sc.truncated() || report.truncated_by_max_files {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let mode_name = if mode == Mode::Build {
            "build"
        } else {
            "update"
        };
        let summary = format!(
            "index knowledge mode={mode_name} {}: {} nodes, {} edges ({} documents)",
            if rebuilt {
                "rebuilt"
            } else {
                "already current"
            },
            sc.node_total,
            sc.edge_total,
            sc.docs.documents
        );
        let payload = RefreshPayload {
            mode: mode_name,
            backend: "json",
            rebuilt,
            reason: r.reason,
            index_sync: index_sync(&report),
            bytes_written: r.bytes_written,
        };
        let mut s = with_counts(with_payload(Success::new(verdict, summary), &payload), sc);
        let follow = "Draw it: viz action=knowledge export_format=html (lod file|module|symbol, focus a file or definition)";
        s = s.with_next_step(if sc.truncated() {
            format!("{}. {follow}", cut_sentence(sc))
        } else {
            follow.to_owned()
        });
        let mut warnings = r.warnings.clone();
        if report.truncated_by_max_files {
            warnings.push(format!(
                "truncated_by_max_files: the index sync stopped at {} files; raise max_files",
                settings.max_files
            ));
        }
        for w in warnings {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}

fn status(ctx: &Context) -> Result<Success, ToolError> {
    let root = ctx.root()?;
    let Some(sc) = sidecar::load(root)? else {
        let payload = StatusPayload {
            mode: "status",
            knowledge_state: "missing",
            knowledge_path: Some(sidecar::REL_PATH),
            up_to_date: None,
            index_present: None,
        };
        return Ok(with_payload(
            Success::new(Verdict::NotFound, "index knowledge: no knowledge graph yet"),
            &payload,
        )
        .with_next_step("Build it: index action=knowledge mode=build"));
    };
    let current = match Index::open(root)? {
        Some(index) => Some(sidecar::fingerprint(&index, root, &sc.settings)?),
        None => None,
    };
    let up_to_date = current.as_deref() == Some(sc.fingerprint.as_str());
    let summary = format!(
        "index knowledge status: {} nodes, {} edges, {}",
        sc.node_total,
        sc.edge_total,
        if up_to_date { "current" } else { "stale" }
    );
    let payload = StatusPayload {
        mode: "status",
        knowledge_state: if up_to_date { "ready" } else { "stale" },
        knowledge_path: None,
        up_to_date: Some(up_to_date),
        index_present: Some(current.is_some()),
    };
    let verdict = if up_to_date {
        Verdict::Info
    } else {
        Verdict::Warn
    };
    let mut s = with_counts(with_payload(Success::new(verdict, summary), &payload), &sc);
    if !up_to_date {
        s = s.with_warning(
            "stale_knowledge: the index, the documents or the settings changed since it was built",
        );
    }
    let follow = if up_to_date {
        "Current; draw it with viz action=knowledge export_format=html"
    } else {
        "Refresh it: index action=knowledge (mode=update)"
    };
    Ok(s.with_next_step(if sc.truncated() {
        format!("{}. {follow}", cut_sentence(&sc))
    } else {
        follow.to_owned()
    }))
}
