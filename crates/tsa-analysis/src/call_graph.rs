//! The resolved call graph `viz graph` draws: the project's call edges (test code
//! left out unless asked), cut to one file or to one function's neighbourhood, one
//! edge per caller/callee pair, and the Mermaid node ids and labels of the edges
//! drawn.

use std::collections::{HashMap, HashSet};

use tsa_index::{Edge, Index, SymbolRow};

use crate::error::ToolError;
use crate::graph::{Dir, IndexGraph, bfs, load_symbols};
use crate::mermaid;

/// Every resolved call edge; without `include_tests`, none made by or to test code.
pub fn call_edges(index: &Index, include_tests: bool) -> Result<Vec<Edge>, ToolError> {
    let mut edges = index.all_edges()?;
    if !include_tests {
        edges.retain(|e| !e.caller_is_test && !e.target_is_test);
    }
    Ok(edges)
}

/// Keeps the edges into or out of project file `file` (`syms` gets the symbols of
/// every edge).
pub fn keep_file(
    index: &Index,
    syms: &mut HashMap<i64, SymbolRow>,
    edges: &mut Vec<Edge>,
    file: &str,
) -> Result<(), ToolError> {
    load_symbols(index, syms, edges.iter().flat_map(|e| [e.caller, e.target]))?;
    edges.retain(|e| {
        [e.caller, e.target]
            .iter()
            .any(|id| syms.get(id).is_some_and(|s| s.file == file))
    });
    Ok(())
}

/// Keeps the edges among `id`, its callers and its callees, `depth` levels each way.
pub fn keep_around(
    index: &Index,
    edges: &mut Vec<Edge>,
    id: i64,
    depth: u32,
) -> Result<(), ToolError> {
    let mut g = IndexGraph::new(index);
    let mut keep: HashSet<i64> = HashSet::from([id]);
    for dir in [Dir::Up, Dir::Down] {
        keep.extend(
            bfs(&mut g, &[id], dir, depth)?
                .nodes
                .iter()
                .map(|(n, _)| *n),
        );
    }
    edges.retain(|e| keep.contains(&e.caller) && keep.contains(&e.target));
    Ok(())
}

/// One edge per (caller, target) pair, the first kept.
pub fn one_per_pair(edges: &mut Vec<Edge>) {
    let mut seen = HashSet::new();
    edges.retain(|e| seen.insert((e.caller, e.target)));
}

/// The nodes (Mermaid id, label) and edges (id pairs) of the edges drawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drawing {
    /// In the order the edges first reach them; symbols the index lacks are left out.
    pub nodes: Vec<(String, String)>,
    pub pairs: Vec<(String, String)>,
}

/// The drawing of `edges` (`syms` gets their symbols).
pub fn drawing(
    index: &Index,
    syms: &mut HashMap<i64, SymbolRow>,
    edges: &[Edge],
) -> Result<Drawing, ToolError> {
    load_symbols(index, syms, edges.iter().flat_map(|e| [e.caller, e.target]))?;
    Ok(draw(syms, edges))
}

fn draw(syms: &HashMap<i64, SymbolRow>, edges: &[Edge]) -> Drawing {
    let id_of = |id: i64| {
        syms.get(&id)
            .map(|s| mermaid::node_id(&s.qualname, &s.file))
            .unwrap_or_else(|| format!("sym{id}"))
    };
    let mut nodes = Vec::new();
    let mut node_ids: HashSet<i64> = HashSet::new();
    for e in edges {
        for id in [e.caller, e.target] {
            if node_ids.insert(id)
                && let Some(s) = syms.get(&id)
            {
                nodes.push((id_of(id), mermaid::label(&s.qualname, &s.file)));
            }
        }
    }
    let pairs = edges
        .iter()
        .map(|e| (id_of(e.caller), id_of(e.target)))
        .collect();
    Drawing { nodes, pairs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tsa_index::Resolution;

    fn edge(caller: i64, target: i64, line: u32) -> Edge {
        Edge {
            caller,
            target,
            line,
            resolution: Resolution::Local,
            confidence: 1.0,
            caller_is_test: false,
            target_is_test: false,
        }
    }

    fn sym(id: i64, qualname: &str, file: &str) -> (i64, SymbolRow) {
        (
            id,
            SymbolRow {
                id,
                name: qualname.into(),
                kind: "function".into(),
                qualname: qualname.into(),
                owner: None,
                file: file.into(),
                language: "python".into(),
                line: 1,
                end_line: 2,
                signature: String::new(),
                is_test: false,
            },
        )
    }

    #[test]
    fn one_edge_per_pair_and_nodes_in_first_reach_order() {
        let mut edges = vec![edge(1, 2, 3), edge(1, 2, 9), edge(2, 3, 4), edge(3, 9, 5)];
        one_per_pair(&mut edges);
        assert_eq!(edges.len(), 3);
        assert_eq!(edges[0].line, 3, "the first call line is kept");
        let syms: HashMap<i64, SymbolRow> = [
            sym(1, "a", "x/m.py"),
            sym(2, "b", "x/m.py"),
            sym(3, "K.c", "n.py"),
        ]
        .into_iter()
        .collect();
        let d = draw(&syms, &edges);
        let labels: Vec<&str> = d.nodes.iter().map(|n| n.1.as_str()).collect();
        assert_eq!(labels, ["a (m.py)", "b (m.py)", "K.c (n.py)"]);
        assert_eq!(
            d.pairs[2].1, "sym9",
            "a symbol the index lacks keeps its id"
        );
    }
}
