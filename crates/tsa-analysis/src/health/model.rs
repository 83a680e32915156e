//! The in-memory project graph the graph-health actions share: every definition,
//! resolved call edge, import and base loaded once (one query each), the file import
//! graph with Tarjan's strongly connected components, path scopes on whole segments,
//! and an identifier scan over the project's text files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap, FxHashSet};
use tsa_index::{DslFile, HealthBase, HealthEdge, HealthImport, HealthSymbol, Index};

use crate::ToolError;

/// Kinds the dead-code and test-gap analyses treat as callable code.
pub const CALLABLE: &[&str] = &["function", "method"];

/// Everything the graph-health actions read, loaded set-at-a-time.
pub struct Model {
    pub files: Vec<DslFile>,
    pub file_at: FxHashMap<i64, usize>,
    pub syms: Vec<HealthSymbol>,
    pub sym_at: FxHashMap<i64, usize>,
    pub edges: Vec<HealthEdge>,
    pub imports: Vec<HealthImport>,
    pub bases: Vec<HealthBase>,
}

impl Model {
    pub fn load(index: &Index) -> Result<Model, ToolError> {
        let files = index.dsl_files()?;
        let syms = index.health_symbols()?;
        let file_at = files.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
        let sym_at = syms.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        Ok(Model {
            files,
            file_at,
            syms,
            sym_at,
            edges: index.health_edges()?,
            imports: index.health_imports()?,
            bases: index.health_bases()?,
        })
    }

    pub fn file(&self, id: i64) -> Option<&DslFile> {
        self.file_at.get(&id).map(|&i| &self.files[i])
    }

    pub fn path_of(&self, file_id: i64) -> &str {
        self.file(file_id).map_or("", |f| f.path.as_str())
    }

    pub fn sym(&self, id: i64) -> Option<&HealthSymbol> {
        self.sym_at.get(&id).map(|&i| &self.syms[i])
    }

    pub fn file_id_of(&self, path: &str) -> Option<i64> {
        self.files.iter().find(|f| f.path == path).map(|f| f.id)
    }

    /// The file import graph: importer -> imported files (other files only).
    pub fn file_graph(&self) -> FileGraph {
        let mut g = FileGraph::default();
        for f in &self.files {
            g.deps.entry(f.id).or_default();
            g.rdeps.entry(f.id).or_default();
        }
        for i in &self.imports {
            if let Some(t) = i.target_file_id
                && t != i.file_id
                && self.file_at.contains_key(&t)
            {
                g.deps.entry(i.file_id).or_default().insert(t);
                g.rdeps.entry(t).or_default().insert(i.file_id);
            }
        }
        g
    }

    /// Calls between files: (caller file, target file) -> call sites.
    pub fn file_call_counts(&self) -> FxHashMap<(i64, i64), u64> {
        let mut out: FxHashMap<(i64, i64), u64> = FxHashMap::default();
        for e in &self.edges {
            if let Some(t) = self.sym(e.target)
                && t.file_id != e.file_id
            {
                *out.entry((e.file_id, t.file_id)).or_default() += 1;
            }
        }
        out
    }
}

/// Directed file graph with both directions.
#[derive(Default)]
pub struct FileGraph {
    pub deps: BTreeMap<i64, BTreeSet<i64>>,
    pub rdeps: BTreeMap<i64, BTreeSet<i64>>,
}

impl FileGraph {
    pub fn edge_count(&self) -> usize {
        self.deps.values().map(BTreeSet::len).sum()
    }

    /// Files reachable from `start` along `dir` within `max_depth` levels, with the
    /// depth each was first reached at (`start` excluded).
    pub fn reach(&self, start: i64, upstream: bool, max_depth: usize) -> Vec<(i64, usize)> {
        let adj = if upstream { &self.rdeps } else { &self.deps };
        let mut seen: FxHashSet<i64> = FxHashSet::default();
        seen.insert(start);
        let mut out = Vec::new();
        let mut frontier = vec![start];
        for depth in 1..=max_depth {
            let mut next = Vec::new();
            for f in frontier {
                for &n in adj.get(&f).into_iter().flatten() {
                    if seen.insert(n) {
                        out.push((n, depth));
                        next.push(n);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        out
    }

    /// Import cycles: strongly connected components with more than one file,
    /// each sorted, largest first.
    pub fn cycles(&self) -> Vec<Vec<i64>> {
        let nodes: Vec<i64> = self.deps.keys().copied().collect();
        let adj: Vec<Vec<usize>> = {
            let at: FxHashMap<i64, usize> =
                nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
            nodes
                .iter()
                .map(|n| {
                    self.deps[n]
                        .iter()
                        .filter_map(|t| at.get(t).copied())
                        .collect()
                })
                .collect()
        };
        let mut sccs: Vec<Vec<i64>> = tarjan(&adj)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut v: Vec<i64> = c.into_iter().map(|i| nodes[i]).collect();
                v.sort_unstable();
                v
            })
            .collect();
        sccs.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        sccs
    }
}

/// Tarjan's strongly connected components, iterative (no recursion limit).
pub fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const NONE: usize = usize::MAX;
    let n = adj.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0usize;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (node, next child position)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < adj[v].len() {
                let w = adj[v][*pos];
                *pos += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

/// A `path` scope: a project-relative prefix matched on whole segments
/// (`src/a` holds `src/a/x.py` and `src/a`, not `src/ab.py`); empty = everything.
#[derive(Clone, Debug, Default)]
pub struct Scope(String);

impl Scope {
    pub fn new(root: &Path, input: Option<&str>) -> Result<Scope, ToolError> {
        let raw = input.unwrap_or("").trim();
        if raw.is_empty() || raw == "." || raw == "./" {
            return Ok(Scope(String::new()));
        }
        let (_, rel) = crate::security::resolve_in_root(root, raw)?;
        let rel = rel.trim_end_matches('/').to_owned();
        Ok(Scope(if rel == "." { String::new() } else { rel }))
    }

    pub fn holds(&self, file: &str) -> bool {
        self.0.is_empty()
            || file == self.0
            || (file.starts_with(&self.0) && file.as_bytes().get(self.0.len()) == Some(&b'/'))
    }

    pub fn as_str(&self) -> &str {
        if self.0.is_empty() { "." } else { &self.0 }
    }
}

/// The directory ("module") of a file; `.` for the root.
pub fn module_of(file: &str) -> &str {
    file.rsplit_once('/').map_or(".", |(d, _)| d)
}

pub fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

pub fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Calls `f(identifier, line)` for every identifier-like token of `text` (1-based lines).
pub fn scan_identifiers(text: &[u8], mut f: impl FnMut(&[u8], u32)) {
    let mut line = 1u32;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b == b'\n' {
            line += 1;
            i += 1;
        } else if is_ident_start(b) {
            let start = i;
            while i < text.len() && is_ident(text[i]) {
                i += 1;
            }
            f(&text[start..i], line);
        } else if b.is_ascii_digit() {
            while i < text.len() && is_ident(text[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
}

/// Text files of the project (gitignore and `.tsaignore` respected, hidden folders
/// skipped, at most 2 MiB each), as (absolute, project-relative) paths.
pub fn project_text_files(root: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .add_custom_ignore_filename(".tsaignore")
        .max_filesize(Some(2 * 1024 * 1024))
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let abs = entry.path().to_path_buf();
        let Ok(rel) = abs.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if tsa_index::SKIPPED_DIRS
            .iter()
            .any(|d| rel.split('/').any(|seg| seg == *d))
        {
            continue;
        }
        out.push((abs, rel));
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// Reads project file `rel`; `None` for unreadable or binary content, and for a
/// symlink leading out of the root (never followed).
pub fn read_text(root: &Path, rel: &str) -> Option<Vec<u8>> {
    let bytes = crate::security::read_in_root(root, rel).ok()?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return None;
    }
    Some(bytes)
}

/// Runs `f` over `items` on all cores (scoped threads, contiguous chunks), keeping order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    if threads == 1 || items.len() < 64 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| {
                let f = &f;
                s.spawn(move || c.iter().map(f).collect::<Vec<R>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tarjan_finds_cycles_and_singletons() {
        // 0 -> 1 -> 2 -> 0 (cycle of 3), 2 -> 3, 3 -> 4 -> 3 (cycle of 2), 5 alone.
        let adj = vec![vec![1], vec![2], vec![0, 3], vec![4], vec![3], vec![]];
        let mut sccs: Vec<Vec<usize>> = tarjan(&adj)
            .into_iter()
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect();
        sccs.sort();
        assert_eq!(sccs, vec![vec![0, 1, 2], vec![3, 4], vec![5]]);
    }

    #[test]
    fn tarjan_handles_deep_chains_without_recursion() {
        let n = 200_000;
        let adj: Vec<Vec<usize>> = (0..n).map(|i| vec![(i + 1) % n]).collect();
        let sccs = tarjan(&adj);
        assert_eq!(sccs.len(), 1);
        assert_eq!(sccs[0].len(), n);
    }

    #[test]
    fn file_graph_cycles_and_reach() {
        let mut g = FileGraph::default();
        for (a, b) in [(1, 2), (2, 3), (3, 1), (4, 1)] {
            g.deps.entry(a).or_default().insert(b);
            g.rdeps.entry(b).or_default().insert(a);
        }
        for n in 1..=4 {
            g.deps.entry(n).or_default();
            g.rdeps.entry(n).or_default();
        }
        assert_eq!(g.cycles(), vec![vec![1, 2, 3]]);
        let up: Vec<i64> = g.reach(1, true, 10).into_iter().map(|(f, _)| f).collect();
        assert_eq!(up, vec![3, 4, 2]);
        assert_eq!(g.reach(4, false, 1), vec![(1, 1)]);
    }

    #[test]
    fn scopes_match_whole_segments() {
        let s = Scope("src/a".into());
        assert!(s.holds("src/a/x.py"));
        assert!(s.holds("src/a"));
        assert!(!s.holds("src/ab.py"));
        assert!(Scope::default().holds("anything"));
    }

    #[test]
    fn identifiers_are_scanned_with_lines() {
        let mut seen = Vec::new();
        scan_identifiers(b"a = b1(c)\n 2x $d", |t, l| {
            seen.push((String::from_utf8_lossy(t).into_owned(), l))
        });
        let names: Vec<(&str, u32)> = seen.iter().map(|(s, l)| (s.as_str(), *l)).collect();
        assert_eq!(names, vec![("a", 1), ("b1", 1), ("c", 1), ("$d", 2)]);
    }
}
