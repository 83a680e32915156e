//! `.tsa/knowledge.json`: the knowledge graph as stored by `index knowledge`, with
//! the fingerprint of what it was built from (the index's files and hashes, the
//! documents' bytes, the settings) so `update` and `viz knowledge` can tell whether
//! it is current. Written whole to a temp file and renamed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tsa_index::Index;

use super::{DocStats, Graph, Link, Node, count_kinds, doc_globs};
use crate::ToolError;
use crate::docrefs;

/// The format tag of the sidecar file.
pub const FORMAT: &str = "tsa-knowledge/1";

/// The settings a sidecar is built with (part of its fingerprint).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub include_docs: bool,
    pub max_files: usize,
    pub max_nodes: usize,
    pub max_edges: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            include_docs: true,
            max_files: 20_000,
            max_nodes: 100_000,
            max_edges: 500_000,
        }
    }
}

/// The stored graph: at most `max_nodes` nodes and `max_edges` edges, with the
/// exact totals before the caps.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sidecar {
    pub format: String,
    pub fingerprint: String,
    pub built_at: u64,
    pub settings: Settings,
    pub node_total: usize,
    pub edge_total: usize,
    /// Before the caps.
    pub nodes_by_kind: BTreeMap<String, usize>,
    /// Before the caps.
    pub edges_by_kind: BTreeMap<String, usize>,
    pub docs: DocStats,
    pub nodes: Vec<Node>,
    pub edges: Vec<Link>,
}

impl Sidecar {
    /// Caps `graph` (nodes in keep order; edges whose ends are both kept, in kind
    /// order) and counts everything before the cut.
    pub fn from_graph(graph: Graph, settings: Settings, fingerprint: String) -> Sidecar {
        let node_total = graph.nodes.len();
        let edge_total = graph.links.len();
        let nodes_by_kind = count_kinds(graph.nodes.iter().map(|n| n.kind.as_str()));
        let edges_by_kind = count_kinds(graph.links.iter().map(|l| l.kind.as_str()));
        let mut nodes = graph.nodes;
        nodes.truncate(settings.max_nodes);
        let kept: std::collections::HashSet<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
        let edges: Vec<Link> = graph
            .links
            .into_iter()
            .filter(|l| kept.contains(l.source.as_str()) && kept.contains(l.target.as_str()))
            .take(settings.max_edges)
            .collect();
        Sidecar {
            format: FORMAT.to_owned(),
            fingerprint,
            built_at: now(),
            settings,
            node_total,
            edge_total,
            nodes_by_kind,
            edges_by_kind,
            docs: graph.docs,
            nodes,
            edges,
        }
    }

    /// Whether the caps cut anything.
    pub fn truncated(&self) -> bool {
        self.nodes.len() < self.node_total || self.edges.len() < self.edge_total
    }

    /// The stored graph back as a [`Graph`].
    pub fn graph(&self) -> Graph {
        Graph {
            nodes: self.nodes.clone(),
            links: self.edges.clone(),
            docs: self.docs.clone(),
        }
    }
}

pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Project-relative path of the sidecar.
pub const REL_PATH: &str = ".tsa/knowledge.json";

pub fn path(root: &Path) -> PathBuf {
    tsa_index::index_dir(root).join("knowledge.json")
}

/// The fingerprint of what a graph with `settings` would be built from now.
pub fn fingerprint(index: &Index, root: &Path, settings: &Settings) -> Result<String, ToolError> {
    let mut h = blake3::Hasher::new();
    h.update(FORMAT.as_bytes());
    h.update(index.content_fingerprint()?.as_bytes());
    h.update(
        format!(
            "|docs={} files={} nodes={} edges={}|",
            settings.include_docs, settings.max_files, settings.max_nodes, settings.max_edges
        )
        .as_bytes(),
    );
    if settings.include_docs {
        let (docs, more) = docrefs::walk_docs(root, &doc_globs()?, settings.max_files);
        h.update(if more { b"more" } else { b"all " });
        for d in docs {
            h.update(d.as_bytes());
            h.update(&[0]);
            match crate::security::read_in_root(root, &d) {
                Ok(bytes) => h.update(blake3::hash(&bytes).as_bytes()),
                Err(_) => h.update(b"unreadable"),
            };
        }
    }
    Ok(h.finalize().to_hex().to_string())
}

/// The stored sidecar, if any. An unreadable or foreign file is an error, not
/// silently replaced by nothing.
pub fn load(root: &Path) -> Result<Option<Sidecar>, ToolError> {
    let bytes = match std::fs::read(path(root)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ToolError::Internal(format!("reading {REL_PATH}: {e}"))),
    };
    let s: Sidecar = serde_json::from_slice(&bytes).map_err(|e| {
        ToolError::Internal(format!(
            "{REL_PATH} is unreadable ({e}); rebuild it with index action=knowledge mode=build"
        ))
    })?;
    if s.format != FORMAT {
        return Err(ToolError::Internal(format!(
            "{REL_PATH} has format '{}', expected '{FORMAT}'; rebuild it with index action=knowledge mode=build",
            s.format
        )));
    }
    Ok(Some(s))
}

/// Writes `bytes` to `target` through a temp file beside it and a rename, so a
/// reader never sees half a file.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> Result<(), ToolError> {
    let io = |e: std::io::Error| ToolError::Internal(format!("writing {}: {e}", target.display()));
    if let Some(dir) = target.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = target.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, target).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// Stores the sidecar in `.tsa/`.
pub fn save(root: &Path, sidecar: &Sidecar) -> Result<u64, ToolError> {
    let bytes = serde_json::to_vec(sidecar).map_err(|e| ToolError::Internal(e.to_string()))?;
    write_atomic(&path(root), &bytes)?;
    Ok(bytes.len() as u64)
}

/// Why a sidecar is rebuilt, or `up_to_date` when it is kept: `forced`, `missing`,
/// `up_to_date`, `settings_changed` or `inputs_changed`.
pub fn reason(
    previous: Option<&Sidecar>,
    force: bool,
    fingerprint: &str,
    settings: &Settings,
) -> &'static str {
    match previous {
        _ if force => "forced",
        None => "missing",
        Some(p) if p.fingerprint == fingerprint => "up_to_date",
        Some(p) if p.settings != *settings => "settings_changed",
        Some(_) => "inputs_changed",
    }
}

/// The sidecar after a refresh: kept or rebuilt (and saved), and why.
pub struct Refreshed {
    pub sidecar: Sidecar,
    /// See [`reason`].
    pub reason: &'static str,
    /// Bytes written when rebuilt.
    pub bytes_written: Option<u64>,
    /// The stored sidecar could not be read (it was rebuilt).
    pub warnings: Vec<String>,
}

/// Rebuilds and saves the sidecar of `index` when forced or when its inputs or
/// settings changed; keeps the stored one otherwise.
pub fn refresh(
    index: &Index,
    root: &Path,
    settings: Settings,
    force: bool,
) -> Result<Refreshed, ToolError> {
    let fingerprint = fingerprint(index, root, &settings)?;
    let mut warnings = Vec::new();
    let previous = match load(root) {
        Ok(p) => p,
        Err(e) => {
            warnings.push(format!("knowledge_unreadable: {e}; rebuilt"));
            None
        }
    };
    let reason = reason(previous.as_ref(), force, &fingerprint, &settings);
    let (sidecar, bytes_written) = match previous {
        Some(p) if reason == "up_to_date" => (p, None),
        _ => {
            let graph = super::build(index, root, settings.include_docs, settings.max_files)?;
            let sc = Sidecar::from_graph(graph, settings, fingerprint);
            let bytes = save(root, &sc)?;
            (sc, Some(bytes))
        }
    };
    Ok(Refreshed {
        sidecar,
        reason,
        bytes_written,
        warnings,
    })
}

#[cfg(test)]
mod refresh_tests {
    use super::*;

    #[test]
    fn a_sidecar_is_rebuilt_when_forced_missing_or_changed() {
        let s = Settings::default();
        let other = Settings {
            include_docs: !s.include_docs,
            ..s
        };
        let sc = Sidecar::from_graph(
            Graph {
                nodes: Vec::new(),
                links: Vec::new(),
                docs: DocStats::default(),
            },
            s,
            "f1".into(),
        );
        assert_eq!(reason(Some(&sc), true, "f1", &s), "forced");
        assert_eq!(reason(None, false, "f1", &s), "missing");
        assert_eq!(reason(Some(&sc), false, "f1", &s), "up_to_date");
        assert_eq!(reason(Some(&sc), false, "f2", &other), "settings_changed");
        assert_eq!(reason(Some(&sc), false, "f2", &s), "inputs_changed");
    }
}
