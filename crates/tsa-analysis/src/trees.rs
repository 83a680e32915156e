//! The engine of `nav caller_tree` and `nav callee_tree`: the tree of callers or
//! callees of one definition (each function expanded once), as a nested tree and
//! as breadth-first rows, with per-level counts.

use std::collections::{BTreeMap, HashMap};
use std::num::NonZeroUsize;

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::graph::{Dir, IndexGraph, TreeEntry, load_symbols, tree};

/// Walks stop counting after this many tree entries (the count is then a floor).
pub const COUNT_LIMIT: usize = 20_000;

/// Which function a tree node is.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum TreeFunction {
    /// A definition in the index.
    Known {
        /// Bare name.
        name: String,
        /// Qualified name.
        qualified_name: String,
        /// Project-relative file.
        file: String,
        /// First line.
        line: u32,
    },
    /// An id the index no longer holds.
    Unknown {
        /// The symbol id.
        id: i64,
    },
}

/// The call that links a node to its parent.
#[derive(Clone, Debug, Serialize)]
pub struct TreeEdge {
    /// Resolution class of the edge.
    pub resolution: &'static str,
    /// Confidence of the edge.
    pub confidence: f64,
    /// Line of the call.
    pub call_line: u32,
    /// The call site lies in test code.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_test: bool,
}

/// One node of the tree.
#[derive(Clone, Debug, Serialize)]
pub struct TreeNode {
    /// The function.
    #[serde(flatten)]
    pub function: TreeFunction,
    /// The call to its parent (none for the root).
    #[serde(flatten)]
    pub edge: Option<TreeEdge>,
    /// Already on the path from the root (recursion): not expanded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cycle: bool,
    /// Already expanded elsewhere in the tree: not expanded again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
}

/// A node with its listed children.
#[derive(Clone, Debug, Serialize)]
pub struct NestedNode {
    /// The node.
    #[serde(flatten)]
    pub node: TreeNode,
    /// Its children within the listed nodes.
    pub children: Vec<NestedNode>,
}

/// A listed node, breadth-first.
#[derive(Clone, Debug, Serialize)]
pub struct TreeRow {
    /// The node.
    #[serde(flatten)]
    pub node: TreeNode,
    /// Its depth below the root.
    pub depth: u32,
    /// Qualified name of its parent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// How many nodes one depth holds.
#[derive(Clone, Debug, Serialize)]
pub struct Level {
    /// Depth below the root.
    pub depth: u32,
    /// Nodes at that depth.
    pub nodes: usize,
}

/// The tree of one definition.
pub struct CallTree {
    /// The root with the listed nodes nested under it.
    pub root: NestedNode,
    /// The listed nodes, breadth-first.
    pub rows: Vec<TreeRow>,
    /// Every node below the root within the depth (a floor when not `complete`).
    pub total: usize,
    /// Nodes per depth.
    pub levels: Vec<Level>,
    /// Nodes that are neither cycles nor repeats.
    pub distinct: usize,
    /// Nodes marked `cycle`.
    pub cycles: usize,
    /// The walk counted every node (it stops at [`COUNT_LIMIT`]).
    pub complete: bool,
}

/// The caller (`Up`) or callee (`Down`) tree of `root` within `max_depth`, at most
/// `max_nodes` listed.
pub fn call_tree(
    index: &Index,
    root: &SymbolRow,
    dir: Dir,
    max_depth: u32,
    max_nodes: NonZeroUsize,
) -> Result<CallTree, ToolError> {
    let mut g = IndexGraph::new(index);
    let t = tree(&mut g, root.id, dir, max_depth, COUNT_LIMIT)?;
    let total = t.entries.len() - 1;
    let listed = total.min(max_nodes.get());
    let mut syms = HashMap::new();
    load_symbols(
        index,
        &mut syms,
        t.entries.iter().take(listed + 1).map(|e| e.node),
    )?;
    let node = |e: &TreeEntry| node_of(&syms, e);
    let rows = t.entries[1..]
        .iter()
        .take(listed)
        .map(|e| TreeRow {
            node: node(e),
            depth: e.depth,
            parent: e
                .parent
                .and_then(|p| syms.get(&t.entries[p].node))
                .map(|p| p.qualname.clone()),
        })
        .collect();
    let mut by_depth: BTreeMap<u32, usize> = BTreeMap::new();
    for e in &t.entries[1..] {
        *by_depth.entry(e.depth).or_insert(0) += 1;
    }
    Ok(CallTree {
        root: nested(&t.entries, listed, &node),
        rows,
        total,
        levels: by_depth
            .into_iter()
            .map(|(depth, nodes)| Level { depth, nodes })
            .collect(),
        distinct: t.entries[1..]
            .iter()
            .filter(|e| !e.cycle && !e.repeat)
            .count(),
        cycles: t.entries.iter().filter(|e| e.cycle).count(),
        complete: t.complete,
    })
}

fn node_of(syms: &HashMap<i64, SymbolRow>, e: &TreeEntry) -> TreeNode {
    TreeNode {
        function: match syms.get(&e.node) {
            Some(s) => TreeFunction::Known {
                name: s.name.clone(),
                qualified_name: s.qualname.clone(),
                file: s.file.clone(),
                line: s.line,
            },
            None => TreeFunction::Unknown { id: e.node },
        },
        edge: e.hop.map(|h| TreeEdge {
            resolution: h.resolution.as_str(),
            confidence: h.confidence,
            call_line: h.line,
            in_test: h.test,
        }),
        cycle: e.cycle,
        repeat: e.repeat,
    }
}

/// The first `listed` entries below the root nested under it.
fn nested(
    entries: &[TreeEntry],
    listed: usize,
    node: &impl Fn(&TreeEntry) -> TreeNode,
) -> NestedNode {
    let keep = (listed + 1).min(entries.len());
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); keep];
    for (i, e) in entries.iter().enumerate().take(keep).skip(1) {
        if let Some(p) = e.parent {
            children[p].push(i);
        }
    }
    fn build(
        i: usize,
        entries: &[TreeEntry],
        children: &[Vec<usize>],
        node: &impl Fn(&TreeEntry) -> TreeNode,
    ) -> NestedNode {
        NestedNode {
            node: node(&entries[i]),
            children: children[i]
                .iter()
                .map(|&c| build(c, entries, children, node))
                .collect(),
        }
    }
    build(0, entries, &children, node)
}
