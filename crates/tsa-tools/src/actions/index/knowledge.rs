//! `index knowledge`: the code + docs knowledge graph sidecar (`.tsa/knowledge.json`).
//! `build` syncs the index and rebuilds the graph; `update` (default) syncs the index
//! and rebuilds only when what the graph is made of changed (the index's files and
//! hashes, the documents, the settings); `status` tells whether the stored graph is
//! current, writing nothing.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::knowledge::sidecar::{self, Settings, Sidecar};
use tsa_envelope::{Success, Verdict};
use tsa_index::{BuildMode, BuildOptions, Index, WalkOptions};

use crate::action::Action;
use crate::actions::common::{build_index, cap};
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
fn with_counts(mut s: Success, sc: &Sidecar) -> Success {
    s = s
        .with("knowledge_path", sidecar::REL_PATH)
        .with("fingerprint", sc.fingerprint.as_str())
        .with("built_at", sc.built_at)
        .with("age_seconds", sidecar::now().saturating_sub(sc.built_at))
        .with("settings", json!(sc.settings))
        .with("node_count", sc.node_total)
        .with("nodes_stored", sc.nodes.len())
        .with("max_nodes", sc.settings.max_nodes)
        .with("edge_count", sc.edge_total)
        .with("edges_stored", sc.edges.len())
        .with("max_edges", sc.settings.max_edges)
        .with("nodes_truncated", sc.nodes.len() < sc.node_total)
        .with("edges_truncated", sc.edges.len() < sc.edge_total)
        .with("nodes_by_kind", json!(sc.nodes_by_kind))
        .with("edges_by_kind", json!(sc.edges_by_kind))
        .with("docs", json!(sc.docs));
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
            max_files: cap("max_files", args.max_files, 20_000)?.get(),
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
        let fingerprint = sidecar::fingerprint(&index, root, &settings)?;
        let mut warnings = Vec::new();
        let previous = match sidecar::load(root) {
            Ok(p) => p,
            Err(e) => {
                warnings.push(format!("knowledge_unreadable: {e}; rebuilt"));
                None
            }
        };
        let reason = match (&previous, mode) {
            (_, Mode::Build) => "forced",
            (None, _) => "missing",
            (Some(p), _) if p.fingerprint == fingerprint => "up_to_date",
            (Some(p), _) if p.settings != settings => "settings_changed",
            (Some(_), _) => "inputs_changed",
        };
        let (sc, bytes) = match previous {
            Some(p) if reason == "up_to_date" => (p, None),
            _ => {
                let graph = tsa_analysis::knowledge::build(
                    &index,
                    root,
                    settings.include_docs,
                    settings.max_files,
                )?;
                let sc = Sidecar::from_graph(graph, settings, fingerprint);
                let bytes = sidecar::save(root, &sc)?;
                (sc, Some(bytes))
            }
        };
        let rebuilt = bytes.is_some();
        let verdict = if sc.truncated() || report.truncated_by_max_files {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let summary = format!(
            "index knowledge mode={} {}: {} nodes, {} edges ({} documents)",
            if mode == Mode::Build {
                "build"
            } else {
                "update"
            },
            if rebuilt {
                "rebuilt"
            } else {
                "already current"
            },
            sc.node_total,
            sc.edge_total,
            sc.docs.documents
        );
        let mut s = Success::new(verdict, summary)
            .with(
                "mode",
                if mode == Mode::Build {
                    "build"
                } else {
                    "update"
                },
            )
            .with("backend", "json")
            .with("rebuilt", rebuilt)
            .with("reason", reason)
            .with(
                "index_sync",
                json!({
                    "total_files": report.total_files,
                    "files_indexed": report.indexed,
                    "files_cached": report.cached,
                    "files_deleted": report.deleted,
                    "truncated_by_max_files": report.truncated_by_max_files,
                }),
            );
        if let Some(b) = bytes {
            s = s.with("bytes_written", b);
        }
        s = with_counts(s, &sc);
        let follow = "Draw it: viz action=knowledge export_format=html (lod file|module|symbol, focus a file or definition)";
        s = s.with_next_step(if sc.truncated() {
            format!("{}. {follow}", cut_sentence(&sc))
        } else {
            follow.to_owned()
        });
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
        return Ok(
            Success::new(Verdict::NotFound, "index knowledge: no knowledge graph yet")
                .with("mode", "status")
                .with("knowledge_state", "missing")
                .with("knowledge_path", sidecar::REL_PATH)
                .with_next_step("Build it: index action=knowledge mode=build"),
        );
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
    let mut s = Success::new(
        if up_to_date {
            Verdict::Info
        } else {
            Verdict::Warn
        },
        summary,
    )
    .with("mode", "status")
    .with(
        "knowledge_state",
        if up_to_date { "ready" } else { "stale" },
    )
    .with("up_to_date", up_to_date)
    .with("index_present", current.is_some());
    s = with_counts(s, &sc);
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
