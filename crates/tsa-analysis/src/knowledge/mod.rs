//! The knowledge graph: the code of the index (folders, files, definitions; imports,
//! resolved calls, resolved bases, containment) joined with the project's Markdown
//! documents (which files, folders, definitions and other documents they mention).
//! `index knowledge` stores it as the `.tsa/knowledge.json` sidecar; `viz knowledge`
//! projects it to a level of detail, cuts it around a focus, lays it out and exports
//! Graphology JSON or a self-contained HTML page.

pub mod focus;
pub mod layout;
pub mod page;
pub mod sidecar;
pub mod view;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use tsa_index::Index;
use tsa_lang::Language;

use crate::ToolError;
use crate::docrefs::{self, RefKind};

/// Definition kinds that are not drawn as nodes of their own (their calls count
/// for the nearest drawn ancestor, or the file).
const HIDDEN_KINDS: [&str; 3] = ["variable", "impl", "section"];

/// What a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// A folder holding indexed files or documents (`.` is the project root).
    Module,
    /// An indexed source file.
    File,
    /// A Markdown document.
    Doc,
    /// A definition (function, class, method, ...).
    Symbol,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Module => "module",
            NodeKind::File => "file",
            NodeKind::Doc => "doc",
            NodeKind::Symbol => "symbol",
        }
    }
}

/// What an edge says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// A file imports another file (weight: import statements).
    Imports,
    /// Resolved calls (weight: call sites); module-level code calls from its file.
    Calls,
    /// A type's resolved base.
    Inherits,
    /// A document mentions a file, folder or definition (weight: mentions).
    Documents,
    /// A document links to another document.
    Links,
    /// Folder -> sub-folder, file or document; file -> definition; definition ->
    /// nested definition.
    Contains,
}

impl LinkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Imports => "imports",
            LinkKind::Calls => "calls",
            LinkKind::Inherits => "inherits",
            LinkKind::Documents => "documents",
            LinkKind::Links => "links",
            LinkKind::Contains => "contains",
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One node of the knowledge graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// `module:<folder>`, `file:<path>`, `doc:<path>` or `symbol:<path>#<qualname>@<line>`.
    pub id: String,
    pub kind: NodeKind,
    pub label: String,
    /// The folder (module), the file (file, doc), or the defining file (symbol).
    pub path: String,
    /// The folder the node lives in (`.` for the root).
    pub module: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualname: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_test: bool,
}

/// One edge of the knowledge graph (parallel edges of one kind are merged; the
/// weight counts them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub source: String,
    pub target: String,
    pub kind: LinkKind,
    pub weight: u64,
}

/// What the documents contributed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocStats {
    pub documents: usize,
    /// References read (links, path spans, symbol spans, identifier spans).
    pub references: usize,
    /// References that became an edge.
    pub resolved: usize,
    /// Paths that lead nowhere in the project, and symbol spans no definition has.
    pub unresolved: usize,
    /// Names that several definitions carry (no edge: the document does not say which).
    pub ambiguous: usize,
    /// The walk stopped at `max_files` documents.
    pub truncated: bool,
}

/// The whole graph, nodes in keep order (folders, files, documents, then
/// definitions outermost first) and edges in kind order.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub docs: DocStats,
}

/// The folder of a project-relative path (`.` for the root).
pub fn folder_of(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some((d, _)) if !d.is_empty() => d,
        _ => ".",
    }
}

fn parent_folder(folder: &str) -> Option<&str> {
    (folder != ".").then(|| folder_of(folder))
}

/// The glob set of Markdown documents.
pub fn doc_globs() -> Result<GlobSet, ToolError> {
    let mut b = GlobSetBuilder::new();
    for p in ["**/*.md", "**/*.markdown"] {
        b.add(Glob::new(p).map_err(|e| ToolError::Internal(e.to_string()))?);
    }
    b.build().map_err(|e| ToolError::Internal(e.to_string()))
}

const CLASS_LIKE: [&str; 6] = ["class", "struct", "interface", "trait", "enum", "type"];

/// Builds the whole graph from the index (and, with `include_docs`, the documents,
/// at most `max_docs` of them).
pub fn build(
    index: &Index,
    root: &Path,
    include_docs: bool,
    max_docs: usize,
) -> Result<Graph, ToolError> {
    let files = index.dsl_files()?;
    let syms = index.dsl_symbols()?;
    let mut b = Builder::default();
    let file_path: HashMap<i64, &str> = files.iter().map(|f| (f.id, f.path.as_str())).collect();
    for f in &files {
        let m = b.module(folder_of(&f.path), root);
        let n = b.add(Node {
            id: format!("file:{}", f.path),
            kind: NodeKind::File,
            label: f.path.rsplit('/').next().unwrap_or(&f.path).to_owned(),
            path: f.path.clone(),
            module: folder_of(&f.path).to_owned(),
            symbol_kind: None,
            name: None,
            qualname: None,
            language: Some(f.language.clone()),
            line: None,
            is_test: f.is_test,
        });
        b.link(LinkKind::Contains, m, n);
    }
    // Definitions: drawn ones get a node; every one maps to the node that stands for it.
    let sym_at: HashMap<i64, usize> = syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
    let mut stands_for: HashMap<i64, usize> = HashMap::new();
    let mut depth: HashMap<i64, u32> = HashMap::new();
    // Parents come before children in (file, line) order except for oddities; resolve
    // through the parent chain explicitly.
    fn resolve_sym(
        id: i64,
        syms: &[tsa_index::DslSymbol],
        sym_at: &HashMap<i64, usize>,
        stands_for: &HashMap<i64, usize>,
    ) -> Option<usize> {
        let mut cur = id;
        for _ in 0..64 {
            if let Some(&n) = stands_for.get(&cur) {
                return Some(n);
            }
            cur = syms[*sym_at.get(&cur)?].parent?;
        }
        None
    }
    let mut order: Vec<usize> = (0..syms.len()).collect();
    let depth_of = |i: usize| {
        let mut d = 0u32;
        let mut cur = syms[i].parent;
        while let Some(p) = cur {
            d += 1;
            if d > 64 {
                break;
            }
            cur = sym_at.get(&p).and_then(|&j| syms[j].parent);
        }
        d
    };
    for (i, s) in syms.iter().enumerate() {
        depth.insert(s.id, depth_of(i));
    }
    order.sort_by_key(|&i| {
        (
            depth[&syms[i].id],
            syms[i].file_id,
            syms[i].line,
            syms[i].id,
        )
    });
    let mut sym_nodes: Vec<(i64, usize)> = Vec::new();
    for &i in &order {
        let s = &syms[i];
        if HIDDEN_KINDS.contains(&s.kind.as_str()) {
            continue;
        }
        let Some(path) = file_path.get(&s.file_id) else {
            continue;
        };
        let n = b.add(Node {
            id: format!("symbol:{path}#{}@{}", s.qualname, s.line),
            kind: NodeKind::Symbol,
            label: s.qualname.clone(),
            path: (*path).to_owned(),
            module: folder_of(path).to_owned(),
            symbol_kind: Some(s.kind.clone()),
            name: Some(s.name.clone()),
            qualname: Some(s.qualname.clone()),
            language: None,
            line: Some(s.line),
            is_test: s.is_test,
        });
        stands_for.insert(s.id, n);
        sym_nodes.push((s.id, n));
    }
    let file_node = |b: &Builder, file_id: i64| {
        file_path
            .get(&file_id)
            .and_then(|p| b.at.get(&format!("file:{p}")).copied())
    };
    for &(id, n) in &sym_nodes {
        let s = &syms[sym_at[&id]];
        let parent = s
            .parent
            .and_then(|p| resolve_sym(p, &syms, &sym_at, &stands_for))
            .or_else(|| file_node(&b, s.file_id));
        if let Some(p) = parent {
            b.link(LinkKind::Contains, p, n);
        }
    }
    let node_of_sym = |b: &Builder, id: i64| {
        resolve_sym(id, &syms, &sym_at, &stands_for)
            .or_else(|| sym_at.get(&id).and_then(|&i| file_node(b, syms[i].file_id)))
    };
    for e in index.health_edges()? {
        let from = match e.caller {
            Some(c) => node_of_sym(&b, c),
            None => file_node(&b, e.file_id),
        };
        if let (Some(f), Some(t)) = (from, node_of_sym(&b, e.target))
            && f != t
        {
            b.link(LinkKind::Calls, f, t);
        }
    }
    for i in index.health_imports()? {
        if let (Some(t), Some(f)) = (i.target_file_id, file_node(&b, i.file_id))
            && let Some(t) = file_node(&b, t)
            && f != t
        {
            b.link(LinkKind::Imports, f, t);
        }
    }
    for base in index.health_bases()? {
        if let (Some(s), Some(t)) = (
            node_of_sym(&b, base.symbol),
            base.target.and_then(|t| node_of_sym(&b, t)),
        ) && s != t
        {
            b.link(LinkKind::Inherits, s, t);
        }
    }
    if include_docs {
        b.docs(root, max_docs)?;
    }
    Ok(b.finish())
}

#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    at: HashMap<String, usize>,
    links: BTreeMap<(LinkKind, usize, usize), u64>,
    docs: DocStats,
}

impl Builder {
    fn add(&mut self, node: Node) -> usize {
        if let Some(&i) = self.at.get(&node.id) {
            return i;
        }
        let i = self.nodes.len();
        self.at.insert(node.id.clone(), i);
        self.nodes.push(node);
        i
    }

    fn link(&mut self, kind: LinkKind, from: usize, to: usize) {
        *self.links.entry((kind, from, to)).or_default() += 1;
    }

    /// The node of `folder`, with its ancestors up to the root.
    fn module(&mut self, folder: &str, root: &Path) -> usize {
        let id = format!("module:{folder}");
        if let Some(&i) = self.at.get(&id) {
            return i;
        }
        let label = if folder == "." {
            root.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| ".".to_owned())
        } else {
            folder.rsplit('/').next().unwrap_or(folder).to_owned()
        };
        let parent = parent_folder(folder).map(|p| self.module(p, root));
        let n = self.add(Node {
            id,
            kind: NodeKind::Module,
            label,
            path: folder.to_owned(),
            module: parent_folder(folder).unwrap_or(".").to_owned(),
            symbol_kind: None,
            name: None,
            qualname: None,
            language: None,
            line: None,
            is_test: false,
        });
        if let Some(p) = parent {
            self.link(LinkKind::Contains, p, n);
        }
        n
    }

    fn docs(&mut self, root: &Path, max_docs: usize) -> Result<(), ToolError> {
        let (docs, more) = docrefs::walk_docs(root, &doc_globs()?, max_docs);
        self.docs.truncated = more;
        self.docs.documents = docs.len();
        let mut doc_nodes = Vec::new();
        for d in &docs {
            let m = self.module(folder_of(d), root);
            let n = self.add(Node {
                id: format!("doc:{d}"),
                kind: NodeKind::Doc,
                label: d.rsplit('/').next().unwrap_or(d).to_owned(),
                path: d.clone(),
                module: folder_of(d).to_owned(),
                symbol_kind: None,
                name: None,
                qualname: None,
                language: Some("markdown".to_owned()),
                line: None,
                is_test: false,
            });
            self.link(LinkKind::Contains, m, n);
            doc_nodes.push(n);
        }
        // Drawn definitions by name, for symbol mentions.
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if let (NodeKind::Symbol, Some(name)) = (n.kind, n.name.as_deref()) {
                by_name.entry(name).or_default().push(i);
            }
        }
        let mut edges: Vec<(LinkKind, usize, usize)> = Vec::new();
        let mut stats = (0usize, 0usize, 0usize, 0usize);
        for (d, &dn) in docs.iter().zip(&doc_nodes) {
            let Ok(text) = crate::security::read_text_in_root(root, d) else {
                continue;
            };
            let dir = folder_of(d);
            let dir = if dir == "." { "" } else { dir };
            for r in docrefs::references(&text) {
                stats.0 += 1;
                match &r.kind {
                    RefKind::Path { .. } => {
                        let target = docrefs::resolve_path(root, dir, &r.text)
                            .and_then(|abs| tsa_index::relative(root, &abs))
                            .map(|rel| if rel.is_empty() { ".".to_owned() } else { rel });
                        let hit = target.and_then(|rel| {
                            [
                                (LinkKind::Documents, format!("file:{rel}")),
                                (LinkKind::Links, format!("doc:{rel}")),
                                (LinkKind::Documents, format!("module:{rel}")),
                            ]
                            .into_iter()
                            .find_map(|(k, id)| self.at.get(&id).map(|&n| (k, n)))
                        });
                        match hit {
                            Some((k, n)) if n != dn => {
                                edges.push((k, dn, n));
                                stats.1 += 1;
                            }
                            Some(_) => stats.1 += 1,
                            None => stats.2 += 1,
                        }
                    }
                    RefKind::Symbol { owner, name } => {
                        let found = self.match_symbol(&by_name, owner.as_deref(), name);
                        match found.as_slice() {
                            [n] => {
                                edges.push((LinkKind::Documents, dn, *n));
                                stats.1 += 1;
                            }
                            [] => stats.2 += 1,
                            _ => stats.3 += 1,
                        }
                    }
                    RefKind::Ident => {
                        if r.text.len() < 3 || Language::ALL.iter().any(|l| l.is_builtin(&r.text)) {
                            continue;
                        }
                        let found: Vec<usize> = self
                            .match_symbol(&by_name, None, &r.text)
                            .into_iter()
                            .filter(|&n| {
                                let k = self.nodes[n].symbol_kind.as_deref().unwrap_or("");
                                CLASS_LIKE.contains(&k) || k == "function"
                            })
                            .collect();
                        match found.as_slice() {
                            [n] => {
                                edges.push((LinkKind::Documents, dn, *n));
                                stats.1 += 1;
                            }
                            // A bare word no definition carries is prose, not a stale reference.
                            [] => {}
                            _ => stats.3 += 1,
                        }
                    }
                }
            }
        }
        for (k, a, z) in edges {
            self.link(k, a, z);
        }
        self.docs.references = stats.0;
        self.docs.resolved = stats.1;
        self.docs.unresolved = stats.2;
        self.docs.ambiguous = stats.3;
        Ok(())
    }

    /// Drawn definitions called `name` (on `owner` when given); production ones win
    /// over test-only ones.
    fn match_symbol(
        &self,
        by_name: &HashMap<&str, Vec<usize>>,
        owner: Option<&str>,
        name: &str,
    ) -> Vec<usize> {
        let Some(cands) = by_name.get(name) else {
            return Vec::new();
        };
        let on_owner: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&n| {
                owner.is_none_or(|o| {
                    self.nodes[n]
                        .qualname
                        .as_deref()
                        .is_some_and(|q| q.split(['.', ':']).rev().skip(1).any(|seg| seg == o))
                        || self.nodes[n].path.split('/').any(|seg| {
                            seg == o || seg.rsplit_once('.').is_some_and(|(stem, _)| stem == o)
                        })
                })
            })
            .collect();
        let prod: Vec<usize> = on_owner
            .iter()
            .copied()
            .filter(|&n| !self.nodes[n].is_test)
            .collect();
        if prod.is_empty() { on_owner } else { prod }
    }

    fn finish(self) -> Graph {
        let rank = |n: &Node| match n.kind {
            NodeKind::Module => 0,
            NodeKind::File => 1,
            NodeKind::Doc => 2,
            NodeKind::Symbol => 3,
        };
        // Keep order: folders, files, documents, then definitions in the order added
        // (outermost first).
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.nodes[a], &self.nodes[b]);
            rank(x).cmp(&rank(y)).then_with(|| {
                if x.kind == NodeKind::Symbol {
                    a.cmp(&b)
                } else {
                    x.path.cmp(&y.path)
                }
            })
        });
        let mut new_at = vec![0usize; self.nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_at[old] = new;
        }
        let mut links: Vec<(LinkKind, usize, usize, u64)> = self
            .links
            .into_iter()
            .map(|((k, a, z), w)| (k, new_at[a], new_at[z], w))
            .collect();
        links.sort();
        let mut slots: Vec<Option<Node>> = self.nodes.into_iter().map(Some).collect();
        let nodes: Vec<Node> = order.iter().filter_map(|&i| slots[i].take()).collect();
        let links = links
            .into_iter()
            .map(|(kind, a, z, weight)| Link {
                source: nodes[a].id.clone(),
                target: nodes[z].id.clone(),
                kind,
                weight,
            })
            .collect();
        Graph {
            nodes,
            links,
            docs: self.docs,
        }
    }
}

/// Counts per kind.
pub fn count_kinds<'a>(kinds: impl Iterator<Item = &'a str>) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for k in kinds {
        *m.entry(k.to_owned()).or_default() += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders() {
        assert_eq!(folder_of("a/b/c.py"), "a/b");
        assert_eq!(folder_of("c.py"), ".");
        assert_eq!(parent_folder("a/b"), Some("a"));
        assert_eq!(parent_folder("a"), Some("."));
        assert_eq!(parent_folder("."), None);
    }
}
