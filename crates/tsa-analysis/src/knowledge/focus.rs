//! What `viz knowledge` draws: the current knowledge graph (the sidecar when its
//! fingerprint matches the index, else built now) and the nodes a focus names.

use std::collections::HashSet;
use std::path::Path;

use tsa_index::Index;

use crate::error::ToolError;
use crate::knowledge::view::{self, Lod, Projected};
use crate::knowledge::{Graph, Node, NodeKind, build, sidecar};
use crate::security::resolve_in_root;
use crate::signature::split_qualified;

/// The graph to draw, where it came from (`sidecar` or `index`) and warnings about it.
pub struct Current {
    pub graph: Graph,
    pub from: &'static str,
    pub warnings: Vec<String>,
}

/// The sidecar's graph when it is current, else one built from the index now (with
/// the sidecar's settings), with a warning saying why.
pub fn current(index: &Index, root: &Path) -> Result<Current, ToolError> {
    let mut warnings = Vec::new();
    let stored = match sidecar::load(root) {
        Ok(s) => s,
        Err(e) => {
            warnings.push(format!(
                "knowledge_unreadable: {e}; built from the index instead"
            ));
            None
        }
    };
    let settings = stored.as_ref().map(|s| s.settings).unwrap_or_default();
    if let Some(sc) = stored {
        if sidecar::fingerprint(index, root, &sc.settings)? == sc.fingerprint {
            if sc.truncated() {
                warnings.push(format!(
                    "knowledge_sidecar_truncated: it holds {} of {} nodes and {} of {} edges; rebuild with higher caps (index action=knowledge max_nodes=... max_edges=...)",
                    sc.nodes.len(),
                    sc.node_total,
                    sc.edges.len(),
                    sc.edge_total
                ));
            }
            return Ok(Current {
                graph: sc.graph(),
                from: "sidecar",
                warnings,
            });
        }
        warnings.push(
            "stale_knowledge: .tsa/knowledge.json is out of date, so the graph was built from the index now; refresh it with index action=knowledge".to_owned(),
        );
    }
    let graph = build(index, root, settings.include_docs, settings.max_files)?;
    Ok(Current {
        graph,
        from: "index",
        warnings,
    })
}

/// The projected nodes the focus names, or `None` when nothing matches.
pub fn find_focus(
    root: &Path,
    g: &Graph,
    p: &Projected<'_>,
    lod: Lod,
    focus: &str,
) -> Result<Option<Vec<usize>>, ToolError> {
    let f = focus.trim();
    if f.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'focus' must be a non-empty string".into(),
        ));
    }
    let path_like = f.contains('/') || f.contains('\\') || f == "." || root.join(f).exists();
    let mut base: Vec<&Node> = Vec::new();
    if path_like {
        let (_, rel) = resolve_in_root(root, f)?;
        let rel = if rel.is_empty() {
            ".".to_owned()
        } else {
            rel.trim_end_matches('/').to_owned()
        };
        let ids: HashSet<String> = ["file", "doc", "module"]
            .iter()
            .map(|k| format!("{k}:{rel}"))
            .collect();
        base.extend(g.nodes.iter().filter(|n| ids.contains(&n.id)));
    }
    if base.is_empty() && !f.contains('/') {
        let (owner, name) = split_qualified(f);
        base.extend(g.nodes.iter().filter(|n| {
            n.kind == NodeKind::Symbol
                && (n.qualname.as_deref() == Some(f)
                    || n.name.as_deref() == Some(name)
                        && owner.is_none_or(|o| {
                            n.qualname
                                .as_deref()
                                .is_some_and(|q| q.split(['.', ':']).rev().skip(1).any(|s| s == o))
                        }))
        }));
    }
    if base.is_empty() {
        return Ok(None);
    }
    let mut seeds = Vec::new();
    for n in base {
        match view::stand_in(n, lod).and_then(|id| p.at.get(id.as_str()).copied()) {
            Some(i) => seeds.push(i),
            // A folder at file level: everything drawn under it.
            None if n.kind == NodeKind::Module => {
                let prefix = format!("{}/", n.path);
                seeds.extend(
                    p.nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, m)| n.path == "." || m.path.starts_with(&prefix))
                        .map(|(i, _)| i),
                );
            }
            None => {}
        }
    }
    let mut seen = HashSet::new();
    seeds.retain(|s| seen.insert(*s));
    Ok((!seeds.is_empty()).then_some(seeds))
}

/// Up to five names or paths close to `focus`.
pub fn suggestions(g: &Graph, focus: &str) -> Vec<String> {
    // Compared by its first 64 characters: the cost never grows with the input.
    let f = crate::suggest::clip(focus.trim()).to_lowercase();
    let tail = f.rsplit(['/', '.', ':']).next().unwrap_or(&f).to_owned();
    let mut scored: Vec<(f64, String)> = Vec::new();
    let mut seen = HashSet::new();
    for n in &g.nodes {
        let shown = match n.kind {
            NodeKind::Symbol => n.qualname.clone().unwrap_or_else(|| n.label.clone()),
            _ => n.path.clone(),
        };
        let key = match n.kind {
            NodeKind::Symbol => n.name.clone().unwrap_or_default().to_lowercase(),
            _ => n.path.rsplit('/').next().unwrap_or(&n.path).to_lowercase(),
        };
        let mut score = strsim::normalized_levenshtein(&tail, &key)
            .max(strsim::normalized_levenshtein(&f, &shown.to_lowercase()));
        if !tail.is_empty() && (key.contains(&tail) || tail.contains(&key) && !key.is_empty()) {
            score = score.max(0.75);
        }
        if score >= 0.5 && seen.insert(shown.clone()) {
            scored.push((score, shown));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(5).map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, kind: NodeKind, path: &str, qualname: Option<&str>) -> Node {
        Node {
            id: id.into(),
            kind,
            label: id.into(),
            path: path.into(),
            module: crate::knowledge::folder_of(path).into(),
            symbol_kind: (kind == NodeKind::Symbol).then(|| "function".into()),
            name: qualname.map(|q| q.rsplit('.').next().unwrap_or(q).into()),
            qualname: qualname.map(Into::into),
            language: None,
            line: qualname.map(|_| 1),
            is_test: false,
        }
    }

    fn sample() -> Graph {
        Graph {
            nodes: vec![
                node("module:.", NodeKind::Module, ".", None),
                node("module:a", NodeKind::Module, "a", None),
                node("file:a/x.py", NodeKind::File, "a/x.py", None),
                node("file:z.py", NodeKind::File, "z.py", None),
                node(
                    "symbol:a/x.py#Engine.run@1",
                    NodeKind::Symbol,
                    "a/x.py",
                    Some("Engine.run"),
                ),
            ],
            links: Vec::new(),
            docs: Default::default(),
        }
    }

    #[test]
    fn a_focus_names_a_path_or_a_definition() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a")).unwrap();
        let g = sample();
        let p = view::project(&g, Lod::File);
        let file = find_focus(root, &g, &p, Lod::File, "a/x.py")
            .unwrap()
            .unwrap();
        assert_eq!(p.nodes[file[0]].path, "a/x.py");
        // A folder at file level: the files under it.
        let folder = find_focus(root, &g, &p, Lod::File, "a").unwrap().unwrap();
        assert!(folder.iter().all(|&i| p.nodes[i].path.starts_with("a/")));
        // A definition at file level: its file.
        let def = find_focus(root, &g, &p, Lod::File, "Engine.run")
            .unwrap()
            .unwrap();
        assert_eq!(p.nodes[def[0]].path, "a/x.py");
        assert!(
            find_focus(root, &g, &p, Lod::File, "nothing")
                .unwrap()
                .is_none()
        );
        assert!(matches!(
            find_focus(root, &g, &p, Lod::File, "  "),
            Err(ToolError::Validation(_))
        ));
    }

    #[test]
    fn suggestions_are_close_names() {
        let g = sample();
        assert_eq!(suggestions(&g, "Engine.rum"), ["Engine.run"]);
        assert!(suggestions(&g, "qqqqqqqq").is_empty());
    }
}
