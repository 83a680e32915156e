//! Graph walks over the index's resolved call edges, shared by the `nav` graph
//! actions: level-by-level BFS (one batched query per frontier), caller/callee
//! trees with cycle marks and exact node counts, shortest call paths with an exact
//! path count, the function risk score, and the rendering of nodes and edges.
//!
//! The walks are generic over [`Neighbors`] so they are unit-tested on plain
//! adjacency maps; [`IndexGraph`] is the implementation over the index.

use std::collections::{HashMap, HashSet};
use std::num::NonZeroUsize;

use serde::Serialize;
use serde_json::Value;
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::{Index, Resolution, SymbolRow};

use crate::ToolError;

/// Walk direction: up to callers or down to callees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Up,
    Down,
}

impl Dir {
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::Up => "upstream",
            Dir::Down => "downstream",
        }
    }
}

/// One step from a node to a neighbour over a resolved call edge (deduplicated per
/// pair: the first call line, the highest confidence).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    pub node: i64,
    pub line: u32,
    pub resolution: Resolution,
    pub confidence: f64,
    /// The call site lies in test code (the caller is a test definition).
    pub test: bool,
}

/// Neighbours of a set of nodes in one direction, batched.
pub trait Neighbors {
    fn neighbors(&mut self, ids: &[i64], dir: Dir) -> Result<HashMap<i64, Vec<Hop>>, ToolError>;
}

/// The index's resolved call graph, optionally without edges whose caller is test
/// code. Answers are cached per node so walks never ask twice.
pub struct IndexGraph<'a> {
    index: &'a Index,
    production_only: bool,
    cache: HashMap<(i64, Dir), Vec<Hop>>,
}

impl<'a> IndexGraph<'a> {
    pub fn new(index: &'a Index) -> Self {
        IndexGraph {
            index,
            production_only: false,
            cache: HashMap::new(),
        }
    }

    /// Only edges whose caller is production code (risk uses this).
    pub fn production(index: &'a Index) -> Self {
        IndexGraph {
            production_only: true,
            ..IndexGraph::new(index)
        }
    }
}

impl Neighbors for IndexGraph<'_> {
    fn neighbors(&mut self, ids: &[i64], dir: Dir) -> Result<HashMap<i64, Vec<Hop>>, ToolError> {
        let missing: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| !self.cache.contains_key(&(*id, dir)))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        if !missing.is_empty() {
            let edges = match dir {
                Dir::Up => self.index.edges_to(&missing)?,
                Dir::Down => self.index.edges_from(&missing)?,
            };
            let mut fresh: HashMap<i64, Vec<Hop>> =
                missing.iter().map(|id| (*id, Vec::new())).collect();
            // (from, to) -> position in fresh[from]: one hop per pair, in O(1).
            let mut slot: HashMap<(i64, i64), usize> = HashMap::new();
            for e in edges {
                if self.production_only && e.caller_is_test {
                    continue;
                }
                let (from, to) = match dir {
                    Dir::Up => (e.target, e.caller),
                    Dir::Down => (e.caller, e.target),
                };
                let hops = fresh.entry(from).or_default();
                match slot.get(&(from, to)).map(|&i| &mut hops[i]) {
                    Some(h) => {
                        if e.confidence > h.confidence {
                            h.confidence = e.confidence;
                            h.resolution = e.resolution;
                        }
                    }
                    None => {
                        slot.insert((from, to), hops.len());
                        hops.push(Hop {
                            node: to,
                            line: e.line,
                            resolution: e.resolution,
                            confidence: e.confidence,
                            test: e.caller_is_test,
                        });
                    }
                }
            }
            for (id, hops) in fresh {
                self.cache.insert((id, dir), hops);
            }
        }
        Ok(ids
            .iter()
            .map(|id| {
                (
                    *id,
                    self.cache.get(&(*id, dir)).cloned().unwrap_or_default(),
                )
            })
            .collect())
    }
}

/// One edge met by a walk: `from` is the node nearer the seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WalkEdge {
    pub from: i64,
    pub to: i64,
    /// Depth of `to` from the seeds (1 for direct neighbours).
    pub depth: u32,
    pub hop: Hop,
}

/// A breadth-first walk: every node reached with its depth (seeds at 0, in
/// discovery order) and every edge met while expanding nodes above `depth`.
#[derive(Debug, Default)]
pub struct Walk {
    pub nodes: Vec<(i64, u32)>,
    pub edges: Vec<WalkEdge>,
    /// The deepest level that still found a new node.
    pub max_depth_reached: u32,
}

/// BFS from `seeds` in `dir`, at most `depth` levels, one neighbour query per level.
pub fn bfs(g: &mut impl Neighbors, seeds: &[i64], dir: Dir, depth: u32) -> Result<Walk, ToolError> {
    let mut seen: HashSet<i64> = HashSet::new();
    let mut walk = Walk::default();
    let mut frontier: Vec<i64> = Vec::new();
    for s in seeds {
        if seen.insert(*s) {
            walk.nodes.push((*s, 0));
            frontier.push(*s);
        }
    }
    let mut level = 0;
    while !frontier.is_empty() && level < depth {
        level += 1;
        let hops = g.neighbors(&frontier, dir)?;
        let mut next = Vec::new();
        for from in &frontier {
            for h in hops.get(from).map(Vec::as_slice).unwrap_or(&[]) {
                walk.edges.push(WalkEdge {
                    from: *from,
                    to: h.node,
                    depth: level,
                    hop: *h,
                });
                if seen.insert(h.node) {
                    walk.nodes.push((h.node, level));
                    next.push(h.node);
                    walk.max_depth_reached = level;
                }
            }
        }
        frontier = next;
    }
    Ok(walk)
}

/// One entry of a caller/callee tree, in breadth-first order (a parent always comes
/// before its children, so any prefix of the entries is a tree).
#[derive(Clone, Debug, PartialEq)]
pub struct TreeEntry {
    pub node: i64,
    /// Index of the parent entry; `None` for the root.
    pub parent: Option<usize>,
    pub depth: u32,
    pub hop: Option<Hop>,
    /// The node is already on the path from the root (recursion or a cycle): shown
    /// once, not expanded.
    pub cycle: bool,
    /// The node was already placed elsewhere in the tree: shown, not expanded again.
    pub repeat: bool,
}

/// The whole tree within `max_depth` (entries counted exactly up to `limit`;
/// `complete` is false when the walk stopped at `limit`, so the count is a floor).
#[derive(Debug)]
pub struct Tree {
    pub entries: Vec<TreeEntry>,
    pub complete: bool,
}

/// Builds the caller (Up) or callee (Down) tree of `root`: each function is expanded
/// once, at its shallowest place; later meetings are `repeat` leaves and meetings
/// with an ancestor are `cycle` leaves.
pub fn tree(
    g: &mut impl Neighbors,
    root: i64,
    dir: Dir,
    max_depth: u32,
    limit: usize,
) -> Result<Tree, ToolError> {
    let mut entries = vec![TreeEntry {
        node: root,
        parent: None,
        depth: 0,
        hop: None,
        cycle: false,
        repeat: false,
    }];
    let mut placed: HashSet<i64> = HashSet::from([root]);
    let mut frontier: Vec<usize> = vec![0];
    let mut depth = 0;
    while !frontier.is_empty() && depth < max_depth {
        depth += 1;
        let ids: Vec<i64> = frontier.iter().map(|&i| entries[i].node).collect();
        let hops = g.neighbors(&ids, dir)?;
        let mut next = Vec::new();
        for &parent in &frontier {
            let node = entries[parent].node;
            for h in hops.get(&node).map(Vec::as_slice).unwrap_or(&[]) {
                if entries.len() > limit {
                    return Ok(Tree {
                        entries,
                        complete: false,
                    });
                }
                let cycle = on_path(&entries, parent, h.node);
                let repeat = !cycle && !placed.insert(h.node);
                entries.push(TreeEntry {
                    node: h.node,
                    parent: Some(parent),
                    depth,
                    hop: Some(*h),
                    cycle,
                    repeat,
                });
                if !cycle && !repeat {
                    next.push(entries.len() - 1);
                }
            }
        }
        frontier = next;
    }
    Ok(Tree {
        entries,
        complete: true,
    })
}

fn on_path(entries: &[TreeEntry], mut at: usize, node: i64) -> bool {
    loop {
        if entries[at].node == node {
            return true;
        }
        match entries[at].parent {
            Some(p) => at = p,
            None => return false,
        }
    }
}

/// Nests the first `listed` non-root entries under the root.
pub fn nest(
    entries: &[TreeEntry],
    listed: usize,
    render: &mut impl FnMut(&TreeEntry) -> Value,
) -> Value {
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
        render: &mut impl FnMut(&TreeEntry) -> Value,
    ) -> Value {
        let mut v = render(&entries[i]);
        let kids: Vec<Value> = children[i]
            .iter()
            .map(|&c| build(c, entries, children, render))
            .collect();
        v["children"] = Value::Array(kids);
        v
    }
    build(0, entries, &children, render)
}

/// A path in walk order: each node with the hop that reached it (none for the first).
pub type PathNodes = Vec<(i64, Option<Hop>)>;

/// Shortest call paths from any source to any target.
#[derive(Debug, Default)]
pub struct Paths {
    /// Up to `max_paths` paths, each a node list in walk order with the hop that
    /// reached each node after the first.
    pub paths: Vec<Vec<(i64, Option<Hop>)>>,
    /// Exact number of distinct shortest paths (saturating).
    pub total: u64,
    /// Edges per path (0 when a source is a target).
    pub length: u32,
}

/// BFS from `sources` in `dir` until a level holds a target (at most `max_depth`
/// levels); counts every shortest path exactly and lists up to `max_paths`.
pub fn shortest_paths(
    g: &mut impl Neighbors,
    sources: &[i64],
    targets: &[i64],
    dir: Dir,
    max_depth: u32,
    max_paths: usize,
) -> Result<Paths, ToolError> {
    let targets: HashSet<i64> = targets.iter().copied().collect();
    let mut dist: HashMap<i64, u32> = HashMap::new();
    let mut count: HashMap<i64, u64> = HashMap::new();
    let mut preds: HashMap<i64, Vec<(i64, Hop)>> = HashMap::new();
    let mut frontier: Vec<i64> = Vec::new();
    for s in sources {
        if dist.insert(*s, 0).is_none() {
            count.insert(*s, 1);
            frontier.push(*s);
        }
    }
    let mut found: Vec<i64> = frontier
        .iter()
        .copied()
        .filter(|s| targets.contains(s))
        .collect();
    let mut level = 0;
    while found.is_empty() && !frontier.is_empty() && level < max_depth {
        level += 1;
        let hops = g.neighbors(&frontier, dir)?;
        let mut next = Vec::new();
        for from in &frontier {
            let c = count.get(from).copied().unwrap_or(0);
            for h in hops.get(from).map(Vec::as_slice).unwrap_or(&[]) {
                match dist.get(&h.node) {
                    None => {
                        dist.insert(h.node, level);
                        count.insert(h.node, c);
                        preds.insert(h.node, vec![(*from, *h)]);
                        next.push(h.node);
                    }
                    Some(&d) if d == level => {
                        let n = count.entry(h.node).or_insert(0);
                        *n = n.saturating_add(c);
                        preds.entry(h.node).or_default().push((*from, *h));
                    }
                    Some(_) => {}
                }
            }
        }
        found = next
            .iter()
            .copied()
            .filter(|n| targets.contains(n))
            .collect();
        frontier = next;
    }
    let total = found.iter().fold(0u64, |acc, t| {
        acc.saturating_add(count.get(t).copied().unwrap_or(0))
    });
    let mut paths = Vec::new();
    for t in &found {
        let mut suffix = vec![(*t, None)];
        collect_paths(*t, &preds, &mut suffix, &mut paths, max_paths);
        if paths.len() >= max_paths {
            break;
        }
    }
    Ok(Paths {
        paths,
        total,
        length: if found.is_empty() { 0 } else { level },
    })
}

fn collect_paths(
    node: i64,
    preds: &HashMap<i64, Vec<(i64, Hop)>>,
    suffix: &mut Vec<(i64, Option<Hop>)>,
    out: &mut Vec<Vec<(i64, Option<Hop>)>>,
    max: usize,
) {
    if out.len() >= max {
        return;
    }
    match preds.get(&node) {
        None => {
            // A source: the suffix, reversed, is a whole path. Each node keeps the
            // hop that led into it.
            let mut path: Vec<(i64, Option<Hop>)> = Vec::with_capacity(suffix.len());
            let rev: Vec<_> = suffix.iter().rev().collect();
            for (i, (n, _)) in rev.iter().enumerate() {
                let hop = if i == 0 { None } else { rev[i - 1].1 };
                path.push((*n, hop));
            }
            out.push(path);
        }
        Some(ps) => {
            for (p, h) in ps {
                suffix.push((*p, Some(*h)));
                collect_paths(*p, preds, suffix, out, max);
                suffix.pop();
                if out.len() >= max {
                    return;
                }
            }
        }
    }
}

/// The inputs of the function risk score (analyses §5), production edges only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RiskFactors {
    /// Production callers (functions, and files calling from module-level code).
    pub fan_in: usize,
    /// Files other than its own holding production callers.
    pub cross_file_callers: usize,
    /// Production callees.
    pub fan_out: usize,
    /// Files other than its own holding production callees.
    pub cross_file_callees: usize,
    /// Longest chain of production callers above it (up to 5).
    pub max_chain_depth: u32,
}

/// The points each risk factor adds to the score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RiskPoints {
    /// Points for the fan-in.
    pub fan_in: u32,
    /// Points for callers in other files.
    pub cross_file_callers: u32,
    /// Points for the fan-out.
    pub fan_out: u32,
    /// Points for callees in other files.
    pub cross_file_callees: u32,
    /// Points for a long caller chain.
    pub max_chain_depth: u32,
}

/// Score (0..=100), level (`low|medium|high|critical`) and points per factor.
pub fn risk_score(f: &RiskFactors) -> (u32, &'static str, RiskPoints) {
    let fan_in = match f.fan_in {
        n if n >= 10 => 35,
        n if n >= 5 => 20,
        n if n >= 3 => 10,
        _ => 0,
    };
    let cross_in = match f.cross_file_callers {
        n if n >= 5 => 25,
        n if n >= 2 => 15,
        _ => 0,
    };
    let fan_out = match f.fan_out {
        n if n >= 10 => 20,
        n if n >= 5 => 10,
        _ => 0,
    };
    let cross_out = match f.cross_file_callees {
        n if n >= 3 => 15,
        n if n >= 1 => 5,
        _ => 0,
    };
    let chain = if f.max_chain_depth >= 4 { 5 } else { 0 };
    let score = (fan_in + cross_in + fan_out + cross_out + chain).min(100);
    let level = match score {
        s if s >= 60 => "critical",
        s if s >= 40 => "high",
        s if s >= 20 => "medium",
        _ => "low",
    };
    let points = RiskPoints {
        fan_in,
        cross_file_callers: cross_in,
        fan_out,
        cross_file_callees: cross_out,
        max_chain_depth: chain,
    };
    (score, level, points)
}

/// The one impact level a risk level maps to (then `Verdict::from_impact`):
/// `low` is `none` when nothing in production calls the function or is called by it.
pub fn impact_level(level: &str, f: &RiskFactors) -> ImpactLevel {
    match level {
        "critical" | "high" => ImpactLevel::High,
        "medium" => ImpactLevel::Medium,
        _ if f.fan_in == 0 && f.fan_out == 0 => ImpactLevel::None,
        _ => ImpactLevel::Low,
    }
}

/// How verdicts of risk-derived answers are chosen (written into `verdict_basis`).
pub const VERDICT_BASIS: &str = "Verdict::from_impact(impact_level), one monotonic order: none->SAFE, low->CAUTION, medium->REVIEW, high->UNSAFE; impact_level from risk level: critical|high->high, medium->medium, low->low (none when no production caller or callee)";

/// A node as listed in answers.
pub fn node_json(s: &SymbolRow) -> Value {
    serde_json::to_value(Node::of(s)).unwrap_or(Value::Null)
}

/// A function on a walk: how graph answers name a node.
#[derive(Clone, Debug, Serialize)]
pub struct Node {
    /// Bare name.
    pub name: String,
    /// Qualified name (`Owner.method`).
    pub qualified_name: String,
    /// Definition kind (function, method, class, ...).
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line of the definition.
    pub line: u32,
}

impl Node {
    /// The node of a definition.
    pub fn of(s: &SymbolRow) -> Self {
        Node {
            name: s.name.clone(),
            qualified_name: s.qualname.clone(),
            kind: s.kind.clone(),
            file: s.file.clone(),
            line: s.line,
        }
    }
}

/// A definition a name resolved to, as listed beside graph answers.
#[derive(Clone, Debug, Serialize)]
pub struct Definition {
    /// Bare name.
    pub name: String,
    /// Qualified name (`Owner.method`).
    pub qualified_name: String,
    /// Definition kind (function, method, class, ...).
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Language of the file.
    pub language: String,
    /// Signature as written.
    pub signature: String,
}

/// The definitions list shown beside callers/callees, typed.
pub fn definitions(defs: &[SymbolRow]) -> Vec<Definition> {
    defs.iter()
        .map(|d| Definition {
            name: d.name.clone(),
            qualified_name: d.qualname.clone(),
            kind: d.kind.clone(),
            file: d.file.clone(),
            line: d.line,
            end_line: d.end_line,
            language: d.language.clone(),
            signature: d.signature.clone(),
        })
        .collect()
}

/// A definition as listed beside `nav callers`/`callees` (lean: the name and the
/// language are the answer's, and the signature is cut at [`SIGNATURE_CHARS`]).
#[derive(Clone, Debug, Serialize)]
pub struct DefinitionBrief {
    /// Qualified name (`Owner.method`).
    pub qualified_name: String,
    /// Definition kind (function, method, class, ...).
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Signature as written, cut at [`SIGNATURE_CHARS`] characters (`...`).
    pub signature: String,
}

/// Characters of a signature in a [`DefinitionBrief`].
pub const SIGNATURE_CHARS: usize = 80;

/// The first `n` definitions as brief rows.
pub fn definition_briefs(defs: &[SymbolRow], n: usize) -> Vec<DefinitionBrief> {
    defs.iter()
        .take(n)
        .map(|d| DefinitionBrief {
            qualified_name: d.qualname.clone(),
            kind: d.kind.clone(),
            file: d.file.clone(),
            line: d.line,
            end_line: d.end_line,
            signature: match d.signature.char_indices().nth(SIGNATURE_CHARS) {
                Some((i, _)) => format!("{}...", d.signature[..i].trim_end()),
                None => d.signature.clone(),
            },
        })
        .collect()
}

/// The definitions list shown beside callers/callees.
pub fn definitions_json(defs: &[SymbolRow]) -> Value {
    serde_json::to_value(definitions(defs)).unwrap_or(Value::Null)
}

/// A fixed list cap (`n` >= 1) for lists that take no limit parameter.
pub fn fixed_cap(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN)
}

/// Fetches the rows of every id in `ids` not yet in `syms`.
pub fn load_symbols(
    index: &Index,
    syms: &mut HashMap<i64, SymbolRow>,
    ids: impl IntoIterator<Item = i64>,
) -> Result<(), ToolError> {
    let want: Vec<i64> = ids
        .into_iter()
        .filter(|id| !syms.contains_key(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if !want.is_empty() {
        syms.extend(index.symbols_by_id(&want)?);
    }
    Ok(())
}

/// The answer for a name with several definitions where one is needed: CAUTION,
/// the candidates listed, and how to narrow.
pub fn ambiguous(label: &str, name: &str, defs: &[SymbolRow]) -> Success {
    let list = match definitions_json(defs) {
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    Success::new(
        Verdict::Caution,
        format!(
            "{label}: '{name}' is ambiguous ({} definitions)",
            defs.len()
        ),
    )
    .with("function", name)
    .with("ambiguous", true)
    .with("candidate_count", defs.len())
    .with_list(
        ListSpelling {
            list_key: "candidates",
            total_key: "candidates_total",
            listed_key: "candidates_listed",
            cap_key: "candidates_cap",
            noun: "candidates",
            remedy: "qualify as ClassName.method or pass file_path".into(),
        },
        Capped::collect(list, fixed_cap(20)),
    )
    .with_next_step(narrow_hint(name, defs))
}

/// How to pick one of several definitions: file_path when they live in different
/// files, the qualified names otherwise.
pub fn narrow_hint(name: &str, defs: &[SymbolRow]) -> String {
    let files: HashSet<&str> = defs.iter().map(|d| d.file.as_str()).collect();
    let quals: Vec<&str> = defs.iter().map(|d| d.qualname.as_str()).take(5).collect();
    if files.len() > 1 {
        format!(
            "'{name}' has {} definitions; re-run with file_path set to one of the candidates' files, or pass a qualified name ({})",
            defs.len(),
            quals.join(", ")
        )
    } else {
        format!(
            "'{name}' has {} definitions in one file; re-run with a qualified name: one of {}",
            defs.len(),
            quals.join(", ")
        )
    }
}

/// One definition a name must resolve to, or the answer to give instead
/// (NOT_FOUND with suggestions, or CAUTION listing the candidates).
pub enum One {
    /// The definition, and a warning naming the other definitions that share the
    /// bare name when the exact qualified name picked this one.
    Found(SymbolRow, Option<String>),
    Answer(Success),
}

/// Among several definitions, the one whose qualified name is exactly `name`
/// (a top-level `getLogger` beside `Manager.getLogger`), with a warning.
pub fn exact_pick(name: &str, defs: &[SymbolRow]) -> Option<(SymbolRow, String)> {
    let name = name.trim();
    let mut exact = defs.iter().filter(|d| d.qualname == name);
    let one = exact.next()?;
    if exact.next().is_some() {
        return None;
    }
    let others: Vec<&str> = defs
        .iter()
        .filter(|d| d.id != one.id)
        .map(|d| d.qualname.as_str())
        .take(5)
        .collect();
    Some((
        one.clone(),
        format!(
            "'{name}' also names {} other definition(s) ({}); answering for the one whose qualified name is exactly '{name}' — pass ClassName.method for the others",
            defs.len() - 1,
            others.join(", ")
        ),
    ))
}

/// A depth parameter: absent -> default; below 1 -> validation error; above `max`
/// -> clamped to `max` with a warning.
pub fn depth_param(
    name: &str,
    value: Option<i64>,
    default: u32,
    max: u32,
) -> Result<(u32, Option<String>), ToolError> {
    match value {
        None => Ok((default, None)),
        Some(v) if v < 1 => Err(ToolError::Validation(format!(
            "parameter '{name}' must be >= 1, got {v}"
        ))),
        Some(v) if v > i64::from(max) => Ok((
            max,
            Some(format!("{name}={v} clamped to the maximum {max}")),
        )),
        Some(v) => Ok((v as u32, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain adjacency map: `down[a]` = what `a` calls.
    struct Adj {
        down: HashMap<i64, Vec<i64>>,
        queries: usize,
    }

    impl Adj {
        fn new(edges: &[(i64, i64)]) -> Self {
            let mut down: HashMap<i64, Vec<i64>> = HashMap::new();
            for (a, b) in edges {
                down.entry(*a).or_default().push(*b);
            }
            Adj { down, queries: 0 }
        }
    }

    fn hop(node: i64) -> Hop {
        Hop {
            node,
            line: 1,
            resolution: Resolution::Local,
            confidence: 1.0,
            test: false,
        }
    }

    impl Neighbors for Adj {
        fn neighbors(
            &mut self,
            ids: &[i64],
            dir: Dir,
        ) -> Result<HashMap<i64, Vec<Hop>>, ToolError> {
            self.queries += 1;
            Ok(ids
                .iter()
                .map(|id| {
                    let hops = match dir {
                        Dir::Down => self.down.get(id).cloned().unwrap_or_default(),
                        Dir::Up => {
                            let mut v: Vec<i64> = self
                                .down
                                .iter()
                                .filter(|(_, to)| to.contains(id))
                                .map(|(from, _)| *from)
                                .collect();
                            v.sort_unstable();
                            v
                        }
                    };
                    (*id, hops.into_iter().map(hop).collect())
                })
                .collect())
        }
    }

    #[test]
    fn bfs_stops_at_depth_and_queries_once_per_level() {
        let mut g = Adj::new(&[(1, 2), (2, 3), (3, 4), (4, 5)]);
        let w = bfs(&mut g, &[1], Dir::Down, 2).unwrap();
        assert_eq!(w.nodes, vec![(1, 0), (2, 1), (3, 2)]);
        assert_eq!(w.max_depth_reached, 2);
        assert_eq!(g.queries, 2);
        let up = bfs(&mut g, &[5], Dir::Up, 10).unwrap();
        assert_eq!(up.nodes.len() - 1, 4);
        assert_eq!(up.max_depth_reached, 4);
    }

    #[test]
    fn bfs_terminates_on_cycles() {
        let mut g = Adj::new(&[(1, 2), (2, 3), (3, 1), (3, 3)]);
        let w = bfs(&mut g, &[1], Dir::Down, 50).unwrap();
        assert_eq!(w.nodes.len(), 3);
        // Every edge among the reached nodes is seen once per expansion.
        assert_eq!(w.edges.len(), 4);
    }

    #[test]
    fn tree_marks_recursion_and_cycles_and_repeats() {
        // 1 -> 2 -> 3 -> 1 (cycle), 3 -> 3 (recursion), 1 -> 3 (repeat at depth 2).
        let mut g = Adj::new(&[(1, 2), (1, 3), (2, 3), (3, 1), (3, 3)]);
        let t = tree(&mut g, 1, Dir::Down, 5, 1000).unwrap();
        assert!(t.complete);
        let got: Vec<(i64, u32, bool, bool)> = t
            .entries
            .iter()
            .map(|e| (e.node, e.depth, e.cycle, e.repeat))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 0, false, false),
                (2, 1, false, false),
                (3, 1, false, false),
                (3, 2, false, true),
                (1, 2, true, false),
                (3, 2, true, false),
            ]
        );
        // Parents come before children, so any prefix nests.
        for (i, e) in t.entries.iter().enumerate() {
            if let Some(p) = e.parent {
                assert!(p < i);
            }
        }
        let v = nest(&t.entries, 2, &mut |e| serde_json::json!({"id": e.node}));
        assert_eq!(v["children"].as_array().unwrap().len(), 2);
        assert!(v["children"][0]["children"].as_array().unwrap().is_empty());
    }

    #[test]
    fn tree_respects_depth_and_reports_incomplete_at_limit() {
        let mut g = Adj::new(&[(1, 2), (2, 3), (3, 4)]);
        let t = tree(&mut g, 1, Dir::Down, 2, 1000).unwrap();
        assert_eq!(t.entries.len(), 3);
        let fan: Vec<(i64, i64)> = (2..40).map(|i| (1, i)).collect();
        let mut g = Adj::new(&fan);
        let t = tree(&mut g, 1, Dir::Down, 3, 10).unwrap();
        assert!(!t.complete);
        assert_eq!(t.entries.len(), 11);
    }

    #[test]
    fn shortest_paths_counts_all_and_lists_few() {
        // 1 -> {2,3,4} -> 5 -> 6: three shortest paths of length 3.
        let mut g = Adj::new(&[
            (1, 2),
            (1, 3),
            (1, 4),
            (2, 5),
            (3, 5),
            (4, 5),
            (5, 6),
            (1, 7),
            (7, 8),
            (8, 9),
            (9, 6),
        ]);
        let p = shortest_paths(&mut g, &[1], &[6], Dir::Down, 10, 2).unwrap();
        assert_eq!((p.total, p.length, p.paths.len()), (3, 3, 2));
        let first: Vec<i64> = p.paths[0].iter().map(|(n, _)| *n).collect();
        assert_eq!(first.first(), Some(&1));
        assert_eq!(first.last(), Some(&6));
        assert!(p.paths[0][0].1.is_none());
        assert!(p.paths[0][1..].iter().all(|(_, h)| h.is_some()));
        // Upward from 6 reaches 1 with the same count.
        let up = shortest_paths(&mut g, &[6], &[1], Dir::Up, 10, 10).unwrap();
        assert_eq!((up.total, up.paths.len()), (3, 3));
        // Depth bound and no path.
        let none = shortest_paths(&mut g, &[1], &[6], Dir::Down, 2, 5).unwrap();
        assert_eq!((none.total, none.paths.len()), (0, 0));
        let none = shortest_paths(&mut g, &[6], &[1], Dir::Down, 10, 5).unwrap();
        assert_eq!(none.total, 0);
    }

    #[test]
    fn shortest_paths_handle_cycles_and_self() {
        let mut g = Adj::new(&[(1, 2), (2, 1), (2, 3)]);
        let p = shortest_paths(&mut g, &[1], &[3], Dir::Down, 10, 5).unwrap();
        assert_eq!((p.total, p.length), (1, 2));
        let same = shortest_paths(&mut g, &[1], &[1], Dir::Down, 10, 5).unwrap();
        assert_eq!((same.total, same.length), (1, 0));
    }

    #[test]
    fn risk_points_and_levels_follow_the_table() {
        let none = RiskFactors::default();
        assert_eq!(risk_score(&none).0, 0);
        assert_eq!(risk_score(&none).1, "low");
        assert_eq!(impact_level("low", &none), ImpactLevel::None);
        let f = RiskFactors {
            fan_in: 3,
            cross_file_callers: 2,
            ..Default::default()
        };
        assert_eq!(risk_score(&f).0, 25);
        assert_eq!(risk_score(&f).1, "medium");
        let f = RiskFactors {
            fan_in: 10,
            cross_file_callers: 5,
            fan_out: 10,
            cross_file_callees: 3,
            max_chain_depth: 4,
        };
        let (score, level, points) = risk_score(&f);
        assert_eq!((score, level), (100, "critical"));
        assert_eq!(points.fan_in, 35);
        assert_eq!(points.max_chain_depth, 5);
        let f = RiskFactors {
            fan_in: 5,
            cross_file_callers: 2,
            fan_out: 5,
            ..Default::default()
        };
        assert_eq!(risk_score(&f), (45, "high", risk_score(&f).2));
        let f = RiskFactors {
            fan_in: 2,
            cross_file_callers: 1,
            fan_out: 4,
            cross_file_callees: 1,
            max_chain_depth: 3,
        };
        assert_eq!(risk_score(&f).0, 5);
        assert_eq!(impact_level("low", &f), ImpactLevel::Low);
    }

    #[test]
    fn verdicts_from_risk_are_monotonic() {
        let f = RiskFactors {
            fan_in: 1,
            ..Default::default()
        };
        let order = ["low", "medium", "high", "critical"];
        let v: Vec<Verdict> = order
            .iter()
            .map(|l| Verdict::from_impact(impact_level(l, &f)))
            .collect();
        assert_eq!(
            v,
            [
                Verdict::Caution,
                Verdict::Review,
                Verdict::Unsafe,
                Verdict::Unsafe
            ]
        );
    }
}
