//! Context for a task in one call (the engine of `nav context`): the definitions
//! whose names match the task's words (an exact name first, then BM25 hits), their
//! callers and callees over resolved edges (production before test, by confidence),
//! the code of the most relevant ones, and the call edges among the listed nodes.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use tsa_index::{Index, SymbolRow};

use crate::ToolError;
use crate::graph::{Dir, Hop, IndexGraph, Neighbors, Node, load_symbols};
use crate::signature::split_qualified;
use crate::source::{Bodies, Inlined};

/// Definition kinds a task can match.
const CALLABLE: &[&str] = &[
    "function",
    "method",
    "class",
    "struct",
    "trait",
    "interface",
    "enum",
];
/// Words of a task that never name code.
const STOP: &[&str] = &[
    "the", "a", "an", "to", "of", "in", "and", "or", "for", "how", "does", "do", "is", "what",
    "where", "why", "with", "fix", "add", "on", "it", "this", "that", "when", "from", "by",
];

/// The seed definitions: an exact name (or ClassName.method) first, then BM25 hits.
/// Returns them and the number of search matches.
pub fn seeds(index: &Index, task: &str, want: usize) -> Result<(Vec<SymbolRow>, u64), ToolError> {
    let mut out: Vec<SymbolRow> = Vec::new();
    let mut seen = HashSet::new();
    let trimmed = task.trim();
    if !trimmed.contains(char::is_whitespace) {
        let (owner, name) = split_qualified(trimmed);
        for d in index.find_symbols(name, owner, None)? {
            if CALLABLE.contains(&d.kind.as_str()) && seen.insert(d.id) {
                out.push(d);
            }
        }
    }
    let words: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty() && !STOP.contains(&w.to_lowercase().as_str()))
        .map(str::to_owned)
        .collect();
    let (hits, total) = index.search(&words.join(" "), None, CALLABLE, want * 4 + 20)?;
    // Production code first among equally ranked hits.
    let mut hits: Vec<(SymbolRow, f64)> = hits;
    hits.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.is_test.cmp(&b.0.is_test)));
    for (d, _) in hits {
        if out.len() >= want {
            break;
        }
        if seen.insert(d.id) {
            out.push(d);
        }
    }
    out.truncate(want.max(1));
    Ok((out, total))
}

/// One listed node: a match, or a caller or callee of one.
#[derive(Clone, Debug, Serialize)]
pub struct ContextNode {
    /// The definition.
    #[serde(flatten)]
    pub node: Node,
    /// `match`, `caller` or `callee`.
    pub role: &'static str,
    /// Its declaration header.
    pub signature: String,
    /// The match it is a caller or callee of (null for a match).
    pub of: Option<String>,
    /// How the call was bound (null for a match).
    pub resolution: Option<&'static str>,
    /// Confidence of the binding (null for a match).
    pub confidence: Option<f64>,
}

/// A listed node's code.
#[derive(Clone, Debug, Serialize)]
pub struct CodeBlock {
    /// Its qualified name.
    pub qualified_name: String,
    /// Its file.
    pub file: String,
    /// The body.
    #[serde(flatten)]
    pub body: Inlined,
}

/// A call edge between listed nodes.
#[derive(Clone, Debug, Serialize)]
pub struct ContextEdge {
    /// The caller's qualified name.
    pub caller: Option<String>,
    /// The callee's qualified name.
    pub callee: Option<String>,
    /// The call line.
    pub line: u32,
    /// How the call was bound.
    pub resolution: &'static str,
    /// Confidence of the binding.
    pub confidence: f64,
}

/// The context of a task.
#[derive(Clone, Debug)]
pub struct TaskContext {
    /// The matched definitions.
    pub matches: Vec<SymbolRow>,
    /// Search hits over all definitions.
    pub search_matches: u64,
    /// The first `max_nodes` nodes: matches, then neighbours.
    pub nodes: Vec<ContextNode>,
    /// Nodes before the cap.
    pub node_total: usize,
    /// Code of the nodes the body budget reached.
    pub code_blocks: Vec<CodeBlock>,
    /// Nodes that were candidates for a code block.
    pub code_block_candidates: usize,
    /// With include_graph: call edges among the listed nodes.
    pub edges: Option<Vec<ContextEdge>>,
}

/// What a task finds: its context, or the names to suggest when nothing matches.
#[derive(Clone, Debug)]
pub enum ContextLookup {
    /// Definitions matched.
    Found(Box<TaskContext>),
    /// Nothing matched: close names to the task's longest word.
    Missing(Vec<String>),
}

/// A listed node: id, role (`match|caller|callee`), and the seed and hop it came by.
type Placed = (i64, &'static str, Option<(i64, Hop)>);

/// Seeds, then their neighbours (production before test, by confidence), once each.
fn place(ids: &[i64], up: &HashMap<i64, Vec<Hop>>, down: &HashMap<i64, Vec<Hop>>) -> Vec<Placed> {
    let mut nodes: Vec<Placed> = ids.iter().map(|id| (*id, "match", None)).collect();
    let mut placed: HashSet<i64> = ids.iter().copied().collect();
    let mut neigh: Vec<(i64, &'static str, i64, Hop)> = Vec::new();
    for id in ids {
        for h in up.get(id).into_iter().flatten() {
            neigh.push((h.node, "caller", *id, *h));
        }
        for h in down.get(id).into_iter().flatten() {
            neigh.push((h.node, "callee", *id, *h));
        }
    }
    neigh.sort_by(|a, b| {
        a.3.test
            .cmp(&b.3.test)
            .then(b.3.confidence.total_cmp(&a.3.confidence))
    });
    for (n, role, of, h) in neigh {
        if placed.insert(n) {
            nodes.push((n, role, Some((of, h))));
        }
    }
    nodes
}

/// The call edges between the seeds and the listed nodes.
fn edges_among(
    ids: &[i64],
    up: &HashMap<i64, Vec<Hop>>,
    down: &HashMap<i64, Vec<Hop>>,
    listed: &HashSet<i64>,
    syms: &HashMap<i64, SymbolRow>,
) -> Vec<ContextEdge> {
    let mut edges = Vec::new();
    let mut seen_edges: HashSet<(i64, i64)> = HashSet::new();
    for (map, up_dir) in [(up, true), (down, false)] {
        for id in ids {
            for h in map.get(id).into_iter().flatten() {
                if !listed.contains(&h.node) {
                    continue;
                }
                let (caller, callee) = if up_dir { (h.node, *id) } else { (*id, h.node) };
                if !seen_edges.insert((caller, callee)) {
                    continue;
                }
                let q = |i: i64| syms.get(&i).map(|s| s.qualname.clone());
                edges.push(ContextEdge {
                    caller: q(caller),
                    callee: q(callee),
                    line: h.line,
                    resolution: h.resolution.as_str(),
                    confidence: h.confidence,
                });
            }
        }
    }
    edges
}

/// The context of `task`: at most 5 seeds (fewer with a smaller `max_nodes`), the
/// first `max_nodes` nodes around them, code blocks from `bodies` (production nodes
/// and matches are candidates), and with `include_graph` the edges among them.
pub fn task_context(
    index: &Index,
    task: &str,
    max_nodes: usize,
    include_graph: bool,
    bodies: &mut Bodies<'_>,
) -> Result<ContextLookup, ToolError> {
    let (seed_defs, search_matches) = seeds(index, task, max_nodes.min(5))?;
    if seed_defs.is_empty() {
        let longest = task
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .max_by_key(|w| w.len())
            .unwrap_or("");
        return Ok(ContextLookup::Missing(index.suggest(longest, 5)?));
    }
    let ids: Vec<i64> = seed_defs.iter().map(|d| d.id).collect();
    let mut g = IndexGraph::new(index);
    let up = g.neighbors(&ids, Dir::Up)?;
    let down = g.neighbors(&ids, Dir::Down)?;
    let mut nodes = place(&ids, &up, &down);
    let mut syms: HashMap<i64, SymbolRow> = seed_defs.iter().map(|d| (d.id, d.clone())).collect();
    let node_total = nodes.len();
    nodes.truncate(max_nodes);
    load_symbols(index, &mut syms, nodes.iter().map(|n| n.0))?;
    let mut code_blocks = Vec::new();
    let mut code_block_candidates = 0;
    let rows: Vec<ContextNode> = nodes
        .iter()
        .filter_map(|(id, role, via)| {
            let s = syms.get(id)?;
            if !s.is_test || *role == "match" {
                code_block_candidates += 1;
                let b = bodies.inline(&s.file, s.line, s.end_line);
                if b.body.is_some() {
                    code_blocks.push(CodeBlock {
                        qualified_name: s.qualname.clone(),
                        file: s.file.clone(),
                        body: b,
                    });
                }
            }
            Some(ContextNode {
                node: Node::of(s),
                role,
                signature: s.signature.clone(),
                of: via.and_then(|(of, _)| syms.get(&of).map(|o| o.qualname.clone())),
                resolution: via.map(|(_, h)| h.resolution.as_str()),
                confidence: via.map(|(_, h)| h.confidence),
            })
        })
        .collect();
    let listed: HashSet<i64> = nodes.iter().map(|n| n.0).collect();
    let edges = include_graph.then(|| edges_among(&ids, &up, &down, &listed, &syms));
    Ok(ContextLookup::Found(Box::new(TaskContext {
        matches: seed_defs,
        search_matches,
        nodes: rows,
        node_total,
        code_blocks,
        code_block_candidates,
        edges,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::BodyBudget;

    fn project() -> (tempfile::TempDir, Index) {
        crate::test_support::index_of(&[(
            "app.py",
            "def parse_config(path):\n    return load(path)\n\n\ndef load(path):\n    return open(path)\n\n\ndef main():\n    return parse_config('x')\n",
        )])
    }

    fn budget(rows: usize) -> BodyBudget {
        BodyBudget {
            rows,
            lines_each: 40,
            lines_total: usize::MAX,
        }
    }

    #[test]
    fn a_task_finds_its_definitions_callers_and_callees() {
        let (dir, ix) = project();
        let mut bodies = Bodies::new(dir.path(), budget(1));
        let ContextLookup::Found(c) =
            task_context(&ix, "parse_config", 30, true, &mut bodies).unwrap()
        else {
            panic!("found")
        };
        assert_eq!(c.matches[0].name, "parse_config");
        let roles: Vec<(&str, &str)> = c
            .nodes
            .iter()
            .map(|n| (n.node.name.as_str(), n.role))
            .collect();
        assert!(roles.contains(&("main", "caller")), "{roles:?}");
        assert!(roles.contains(&("load", "callee")), "{roles:?}");
        assert_eq!(c.code_blocks.len(), 1);
        assert_eq!(c.code_block_candidates, c.nodes.len());
        assert_eq!(c.edges.as_ref().map(Vec::len), Some(2));
    }

    #[test]
    fn nothing_matching_gives_suggestions() {
        let (dir, ix) = project();
        let mut bodies = Bodies::new(dir.path(), budget(0));
        let r = task_context(&ix, "zzq qqz", 30, false, &mut bodies).unwrap();
        assert!(matches!(r, ContextLookup::Missing(_)));
    }
}
