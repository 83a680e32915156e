//! What `viz knowledge` draws: the graph at one level of detail (definitions, files
//! or folders; documents at every level), cut to the neighbourhood of a focus or to
//! the best-connected nodes, capped with exact totals, laid out, as Graphology JSON.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde_json::{Value, json};

use super::{Graph, LinkKind, Node, NodeKind, layout::layout};

/// Level of detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lod {
    Symbol,
    File,
    Module,
}

impl Lod {
    pub fn as_str(self) -> &'static str {
        match self {
            Lod::Symbol => "symbol",
            Lod::File => "file",
            Lod::Module => "module",
        }
    }
}

/// The graph at one level of detail.
pub struct Projected<'g> {
    pub nodes: Vec<&'g Node>,
    pub at: HashMap<&'g str, usize>,
    /// (kind, source, target) -> weight, no self loops.
    pub edges: BTreeMap<(LinkKind, usize, usize), u64>,
}

/// The id of the node that stands for `n` at `lod` (`None`: not drawn at that level).
pub fn stand_in(n: &Node, lod: Lod) -> Option<String> {
    match (lod, n.kind) {
        (Lod::Symbol, _) | (_, NodeKind::Doc) => Some(n.id.clone()),
        (Lod::File, NodeKind::File) => Some(n.id.clone()),
        (Lod::File, NodeKind::Symbol) => Some(format!("file:{}", n.path)),
        (Lod::File, NodeKind::Module) => None,
        (Lod::Module, NodeKind::Module) => Some(n.id.clone()),
        (Lod::Module, NodeKind::File | NodeKind::Symbol) => Some(format!("module:{}", n.module)),
    }
}

pub fn project(g: &Graph, lod: Lod) -> Projected<'_> {
    let mut nodes = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for n in &g.nodes {
        if stand_in(n, lod).as_deref() == Some(n.id.as_str()) {
            at.insert(n.id.as_str(), nodes.len());
            nodes.push(n);
        }
    }
    // Where each node of the graph lands at this level.
    let lands: HashMap<&str, usize> = g
        .nodes
        .iter()
        .filter_map(|n| {
            let s = stand_in(n, lod)?;
            at.get(s.as_str()).map(|&i| (n.id.as_str(), i))
        })
        .collect();
    let mut edges: BTreeMap<(LinkKind, usize, usize), u64> = BTreeMap::new();
    for l in &g.links {
        if let (Some(&a), Some(&z)) = (lands.get(l.source.as_str()), lands.get(l.target.as_str()))
            && a != z
        {
            *edges.entry((l.kind, a, z)).or_default() += l.weight;
        }
    }
    Projected { nodes, at, edges }
}

/// What is kept of a projected graph.
pub struct Selection {
    /// Kept node positions (into `Projected::nodes`), in keep order, with the BFS
    /// distance from the focus (0 without one).
    pub nodes: Vec<(usize, usize)>,
    pub node_total: usize,
    /// Kept edges: (kind, source, target, weight), in keep order.
    pub edges: Vec<(LinkKind, usize, usize, u64)>,
    pub edge_total: usize,
}

/// Keeps at most `max_nodes` nodes: the breadth-first neighbourhood of `seeds`
/// (every node reachable from them counted), or without seeds the best-connected
/// nodes (every node counted); then at most `max_edges` edges between kept nodes,
/// heaviest first (every edge of the counted part counted).
pub fn select(p: &Projected<'_>, seeds: &[usize], max_nodes: usize, max_edges: usize) -> Selection {
    let n = p.nodes.len();
    let mut adj: Vec<Vec<(usize, u64)>> = vec![Vec::new(); n];
    let mut degree = vec![0u64; n];
    for (&(_, a, z), &w) in &p.edges {
        adj[a].push((z, w));
        adj[z].push((a, w));
        degree[a] += w;
        degree[z] += w;
    }
    let (order, in_scope): (Vec<(usize, usize)>, Vec<bool>) = if seeds.is_empty() {
        let mut all: Vec<usize> = (0..n).collect();
        all.sort_by(|&a, &b| degree[b].cmp(&degree[a]).then(a.cmp(&b)));
        (all.into_iter().map(|i| (i, 0)).collect(), vec![true; n])
    } else {
        let mut dist: Vec<Option<usize>> = vec![None; n];
        let mut q = VecDeque::new();
        let mut order = Vec::new();
        for &s in seeds {
            if dist[s].is_none() {
                dist[s] = Some(0);
                q.push_back(s);
                order.push((s, 0));
            }
        }
        while let Some(u) = q.pop_front() {
            let d = dist[u].unwrap_or(0);
            let mut next: Vec<(usize, u64)> = adj[u]
                .iter()
                .copied()
                .filter(|&(v, _)| dist[v].is_none())
                .collect();
            // Heaviest neighbours first, then the better connected, then stable.
            next.sort_by(|a, b| {
                b.1.cmp(&a.1)
                    .then(degree[b.0].cmp(&degree[a.0]))
                    .then(a.0.cmp(&b.0))
            });
            for (v, _) in next {
                if dist[v].is_none() {
                    dist[v] = Some(d + 1);
                    q.push_back(v);
                    order.push((v, d + 1));
                }
            }
        }
        let scope = dist.iter().map(Option::is_some).collect();
        (order, scope)
    };
    let node_total = order.len();
    let kept: Vec<(usize, usize)> = order.into_iter().take(max_nodes).collect();
    let kept_set: HashSet<usize> = kept.iter().map(|&(i, _)| i).collect();
    let mut scoped: Vec<(LinkKind, usize, usize, u64)> = p
        .edges
        .iter()
        .filter(|((_, a, z), _)| in_scope[*a] && in_scope[*z])
        .map(|(&(k, a, z), &w)| (k, a, z, w))
        .collect();
    let edge_total = scoped.len();
    scoped.retain(|&(_, a, z, _)| kept_set.contains(&a) && kept_set.contains(&z));
    scoped.sort_by(|x, y| y.3.cmp(&x.3).then((x.0, x.1, x.2).cmp(&(y.0, y.1, y.2))));
    scoped.truncate(max_edges);
    Selection {
        nodes: kept,
        node_total,
        edges: scoped,
        edge_total,
    }
}

/// File colours (by folder); none is a definition kind's colour.
const PALETTE: [&str; 10] = [
    "#e15759", "#f28e2b", "#edc948", "#ff9da7", "#d37295", "#a0cbe8", "#8cd17d", "#499894",
    "#d4a6c8", "#79706e",
];

/// The colour of a node: documents amber, folders grey, files by their first two
/// folders, definitions by kind.
fn colour(n: &Node) -> &'static str {
    match n.kind {
        NodeKind::Doc => "#e8a33d",
        NodeKind::Module => "#8c8c8c",
        NodeKind::File => {
            // The first two folders: `crates/tsa-index`, `tests/fixtures`, `src`.
            let top: String = n.module.split('/').take(2).collect::<Vec<_>>().join("/");
            let h = top
                .bytes()
                .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
            PALETTE[h as usize % PALETTE.len()]
        }
        NodeKind::Symbol => match n.symbol_kind.as_deref().unwrap_or("") {
            "class" | "struct" | "interface" | "trait" | "enum" | "type" => "#4e79a7",
            "method" => "#76b7b2",
            "function" => "#59a14f",
            "module" => "#b07aa1",
            _ => "#9c755f",
        },
    }
}

/// The kind shown: `module` (a folder), `file`, `doc`, or the definition's kind.
pub fn shown_kind(n: &Node) -> &str {
    match n.kind {
        // A definition of kind `module` (Rust `mod`, a namespace) is no folder.
        NodeKind::Symbol => match n.symbol_kind.as_deref() {
            Some("module") => "namespace",
            Some(k) => k,
            None => "symbol",
        },
        k => k.as_str(),
    }
}

/// Graphology node and edge objects of a selection, laid out (with each node's
/// `distance` from the focus when there is one).
pub fn graphology(p: &Projected<'_>, sel: &Selection, focused: bool) -> (Vec<Value>, Vec<Value>) {
    let local: HashMap<usize, usize> = sel
        .nodes
        .iter()
        .enumerate()
        .map(|(li, &(i, _))| (i, li))
        .collect();
    let mut degree = vec![0u64; sel.nodes.len()];
    let mut lay_edges = Vec::with_capacity(sel.edges.len());
    for &(_, a, z, w) in &sel.edges {
        let (la, lz) = (local[&a], local[&z]);
        degree[la] += 1;
        degree[lz] += 1;
        lay_edges.push((la, lz, w as f64));
    }
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    let groups: Vec<usize> = sel
        .nodes
        .iter()
        .map(|&(i, _)| {
            let n = p.nodes[i];
            let g = if n.kind == NodeKind::Module {
                n.path.as_str()
            } else {
                n.module.as_str()
            };
            let next = group_of.len();
            *group_of.entry(g).or_insert(next)
        })
        .collect();
    let pos = layout(sel.nodes.len(), &lay_edges, &groups);
    let nodes = sel
        .nodes
        .iter()
        .enumerate()
        .map(|(li, &(i, dist))| {
            let n = p.nodes[i];
            let size = (3.0 + (degree[li] as f64).sqrt() * 1.5).min(20.0)
                + if n.kind == NodeKind::Module { 2.0 } else { 0.0 };
            let mut a = json!({
                "label": n.label,
                "kind": shown_kind(n),
                "path": n.path,
                "module": n.module,
                "x": pos[li].0,
                "y": pos[li].1,
                "size": (size * 10.0).round() / 10.0,
                "color": colour(n),
                "degree": degree[li],
            });
            if let Some(q) = &n.qualname {
                a["qualname"] = json!(q);
            }
            if let Some(l) = n.line {
                a["line"] = json!(l);
            }
            if let Some(l) = &n.language {
                a["language"] = json!(l);
            }
            if n.is_test {
                a["is_test"] = json!(true);
            }
            if focused {
                a["distance"] = json!(dist);
            }
            json!({"key": n.id, "attributes": a})
        })
        .collect();
    let edges = sel
        .edges
        .iter()
        .map(|&(k, a, z, w)| {
            let (s, t) = (&p.nodes[a].id, &p.nodes[z].id);
            json!({
                "key": format!("{}:{s}->{t}", k.as_str()),
                "source": s,
                "target": t,
                "attributes": {"kind": k.as_str(), "weight": w},
            })
        })
        .collect();
    (nodes, edges)
}

#[cfg(test)]
mod tests {
    use super::super::Link;
    use super::*;

    fn node(id: &str, kind: NodeKind, path: &str, module: &str) -> Node {
        Node {
            id: id.into(),
            kind,
            label: id.into(),
            path: path.into(),
            module: module.into(),
            symbol_kind: (kind == NodeKind::Symbol).then(|| "function".into()),
            name: None,
            qualname: None,
            language: None,
            line: None,
            is_test: false,
        }
    }

    fn link(a: &str, b: &str, kind: LinkKind) -> Link {
        Link {
            source: a.into(),
            target: b.into(),
            kind,
            weight: 1,
        }
    }

    fn sample() -> Graph {
        Graph {
            nodes: vec![
                node("module:.", NodeKind::Module, ".", "."),
                node("module:a", NodeKind::Module, "a", "."),
                node("file:a/x.py", NodeKind::File, "a/x.py", "a"),
                node("file:a/y.py", NodeKind::File, "a/y.py", "a"),
                node("file:z.py", NodeKind::File, "z.py", "."),
                node("symbol:a/x.py#f@1", NodeKind::Symbol, "a/x.py", "a"),
                node("symbol:a/x.py#g@5", NodeKind::Symbol, "a/x.py", "a"),
                node("symbol:z.py#h@1", NodeKind::Symbol, "z.py", "."),
            ],
            links: vec![
                link("file:a/x.py", "file:z.py", LinkKind::Imports),
                link("symbol:a/x.py#f@1", "symbol:z.py#h@1", LinkKind::Calls),
                link("symbol:a/x.py#g@5", "symbol:z.py#h@1", LinkKind::Calls),
                link("symbol:a/x.py#f@1", "symbol:a/x.py#g@5", LinkKind::Calls),
                link("module:.", "module:a", LinkKind::Contains),
                link("module:a", "file:a/x.py", LinkKind::Contains),
            ],
            docs: Default::default(),
        }
    }

    #[test]
    fn file_level_merges_calls_and_drops_self_loops() {
        let g = sample();
        let p = project(&g, Lod::File);
        let ids: Vec<&str> = p.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["file:a/x.py", "file:a/y.py", "file:z.py"]);
        let e: Vec<(LinkKind, &str, &str, u64)> = p
            .edges
            .iter()
            .map(|(&(k, a, z), &w)| (k, ids[a], ids[z], w))
            .collect();
        assert_eq!(
            e,
            [
                (LinkKind::Imports, "file:a/x.py", "file:z.py", 1),
                (LinkKind::Calls, "file:a/x.py", "file:z.py", 2),
            ]
        );
        let m = project(&g, Lod::Module);
        let ids: Vec<&str> = m.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["module:.", "module:a"]);
        // Contains root->a, and a->root for imports and calls.
        assert_eq!(m.edges.len(), 3);
    }

    #[test]
    fn focus_keeps_the_neighbourhood_and_counts_its_whole_component() {
        let g = sample();
        let p = project(&g, Lod::File);
        let z = p.at["file:z.py"];
        let sel = select(&p, &[z], 1, 10);
        assert_eq!(sel.node_total, 2, "y.py is not reachable from z.py");
        assert_eq!(sel.nodes, vec![(z, 0)]);
        assert_eq!(sel.edge_total, 2);
        assert!(sel.edges.is_empty(), "the other end was cut");
        let sel = select(&p, &[z], 10, 1);
        assert_eq!(sel.nodes.len(), 2);
        assert_eq!(sel.edges.len(), 1);
        assert_eq!(sel.edges[0].0, LinkKind::Calls, "heaviest edge first");
        let all = select(&p, &[], 2, 10);
        assert_eq!(all.node_total, 3);
        assert_eq!(all.nodes.len(), 2);
        let (nodes, edges) = graphology(&p, &all, false);
        assert_eq!(nodes.len(), 2);
        assert_eq!(edges.len(), 2);
        assert!(nodes.iter().all(|n| n["attributes"]["x"].is_number()));
    }
}
