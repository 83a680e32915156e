//! The engine of `nav call_path`: the shortest call paths between two sets of
//! definitions, each way asked, with the calls along them and the bodies of the
//! functions on them (each inlined once).

use std::collections::{HashMap, HashSet};
use std::num::NonZeroUsize;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::graph::{Dir, Hop, IndexGraph, Node, PathNodes, load_symbols, shortest_paths};
use crate::source::{Bodies, BodyBudget};

/// One way calls may flow: from the sources down to the targets (`forward`) or
/// up (`backward`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// The source calls (transitively) the target.
    Forward,
    /// The target calls (transitively) the source.
    Backward,
}

impl Way {
    /// The name answers use.
    pub fn as_str(self) -> &'static str {
        match self {
            Way::Forward => "forward",
            Way::Backward => "backward",
        }
    }

    fn dir(self) -> Dir {
        match self {
            Way::Forward => Dir::Down,
            Way::Backward => Dir::Up,
        }
    }
}

/// The resolved call behind one step of a path.
#[derive(Clone, Debug, Serialize)]
pub struct CallSite {
    /// Line of the call.
    pub line: u32,
    /// Resolution class of the edge.
    pub resolution: &'static str,
    /// Confidence of the edge.
    pub confidence: f64,
}

/// One call on a path, caller -> callee.
#[derive(Clone, Debug, Serialize)]
pub struct PathCall {
    /// Qualified name of the calling function.
    pub caller: String,
    /// Qualified name of the called function.
    pub callee: String,
    /// Where and how the call was resolved (absent for the first node).
    #[serde(flatten)]
    pub site: Option<CallSite>,
}

/// A function on a path.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum PathNode {
    /// A definition still in the index.
    Known {
        /// The definition.
        #[serde(flatten)]
        node: Node,
        /// Its source, on its first appearance in the answer, within the budget.
        #[serde(skip_serializing_if = "Option::is_none")]
        body: Option<Value>,
    },
    /// An id the index no longer holds.
    Unknown {
        /// The symbol id.
        id: i64,
    },
}

/// One shortest path, written caller first.
#[derive(Clone, Debug, Serialize)]
pub struct CallPath {
    /// `forward` or `backward`.
    pub direction: &'static str,
    /// Number of calls on the path.
    pub length: u32,
    /// The functions on the path, in call order.
    pub nodes: Vec<PathNode>,
    /// The calls between them.
    pub calls: Vec<PathCall>,
}

/// The shortest paths found, each way asked.
pub struct PathsReport<'a> {
    /// Up to `max_paths` paths, forward ones first.
    pub paths: Vec<CallPath>,
    /// Exact number of shortest paths, all ways together (saturating).
    pub total: u64,
    /// Length of the shortest paths per way that has any.
    pub shortest: HashMap<&'static str, u32>,
    /// Whether any body was inlined.
    pub bodies_inlined: bool,
    /// Bodies: the linked files skipped while reading them.
    pub bodies: Bodies<'a>,
}

/// Shortest call paths from any of `sources` to any of `targets`, each of `ways`,
/// within `max_depth` calls; at most `max_paths` listed, all counted.
pub fn find<'a>(
    index: &Index,
    root: &'a Path,
    sources: &[SymbolRow],
    targets: &[SymbolRow],
    ways: &[Way],
    max_depth: u32,
    max_paths: NonZeroUsize,
) -> Result<PathsReport<'a>, ToolError> {
    let src_ids: Vec<i64> = sources.iter().map(|d| d.id).collect();
    let dst_ids: Vec<i64> = targets.iter().map(|d| d.id).collect();
    let mut g = IndexGraph::new(index);
    let mut total = 0u64;
    let mut found: Vec<(Way, u32, PathNodes)> = Vec::new();
    let mut shortest = HashMap::new();
    for way in ways {
        let p = shortest_paths(
            &mut g,
            &src_ids,
            &dst_ids,
            way.dir(),
            max_depth,
            max_paths.get(),
        )?;
        if p.total > 0 {
            shortest.insert(way.as_str(), p.length);
        }
        total = total.saturating_add(p.total);
        for path in p.paths {
            found.push((*way, p.length, path));
        }
    }
    let mut syms = HashMap::new();
    load_symbols(
        index,
        &mut syms,
        found.iter().flat_map(|(_, _, p)| p.iter().map(|(n, _)| *n)),
    )?;
    let mut bodies = Bodies::new(
        root,
        BodyBudget {
            rows: 12,
            lines_each: 40,
            lines_total: 320,
        },
    );
    let mut inlined: HashSet<i64> = HashSet::new();
    let paths = found
        .into_iter()
        .take(max_paths.get())
        .map(|(way, length, walk)| written(&syms, &mut bodies, &mut inlined, way, length, &walk))
        .collect();
    Ok(PathsReport {
        paths,
        total,
        shortest,
        bodies_inlined: bodies.any(),
        bodies,
    })
}

/// One walk written caller first, with the bodies not inlined yet.
fn written(
    syms: &HashMap<i64, SymbolRow>,
    bodies: &mut Bodies,
    inlined: &mut HashSet<i64>,
    way: Way,
    length: u32,
    walk: &[(i64, Option<Hop>)],
) -> CallPath {
    let q = |id: i64| {
        syms.get(&id)
            .map(|s| s.qualname.clone())
            .unwrap_or_default()
    };
    // Walk order is source -> target; calls read caller -> callee.
    let mut calls = Vec::new();
    for pair in walk.windows(2) {
        let (a, b) = (pair[0].0, pair[1].0);
        let (caller, callee) = if way == Way::Forward { (a, b) } else { (b, a) };
        calls.push(PathCall {
            caller: q(caller),
            callee: q(callee),
            site: pair[1].1.map(|h| CallSite {
                line: h.line,
                resolution: h.resolution.as_str(),
                confidence: h.confidence,
            }),
        });
    }
    let mut order: Vec<i64> = walk.iter().map(|(n, _)| *n).collect();
    if way == Way::Backward {
        order.reverse();
        calls.reverse();
    }
    let nodes = order
        .iter()
        .map(|id| match syms.get(id) {
            None => PathNode::Unknown { id: *id },
            Some(s) => PathNode::Known {
                node: Node::of(s),
                body: if inlined.insert(*id) {
                    bodies.body(&s.qualname, &s.file, s.line, s.end_line)
                } else {
                    None
                },
            },
        })
        .collect();
    CallPath {
        direction: way.as_str(),
        length,
        nodes,
        calls,
    }
}
