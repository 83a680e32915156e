//! `project card`: the project's summary card (languages, layout, key files, entry
//! points, the files most depended on by PageRank over resolved imports, README
//! excerpt, folder descriptions), computed from the index and kept in
//! `.tsa/card.json` until the index changes or it is a day old.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use tsa_index::Index;

use crate::ToolError;
use crate::project::{EntryPoint, entry_points};

/// Bump when the card's shape changes: an older stored card is rebuilt.
pub const CARD_SCHEMA: u32 = 2;
/// A stored card older than this is rebuilt.
pub const MAX_AGE_SECS: u64 = 24 * 3600;
/// Files listed as critical.
const CRITICAL: usize = 10;
/// Languages that are not code (kept out of the top language).
const NOT_CODE: [&str; 9] = [
    "other", "markdown", "json", "yaml", "toml", "xml", "rst", "latex", "html",
];
/// Files that tell how a project is built or configured, first found first.
const KEY_FILES: [&str; 16] = [
    "README.md",
    "README.rst",
    "README",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "tsconfig.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "CMakeLists.txt",
    "Makefile",
    "Dockerfile",
    "compile_commands.json",
];

/// A top-level entry of the tree.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TopLevel {
    pub name: String,
    /// `directory` or `file`.
    #[serde(rename = "type")]
    pub kind: String,
    pub file_count: usize,
    /// Its largest subfolders (at most [`SUBDIRS`], by file count).
    pub subdirectories: Vec<SubDir>,
    /// All its subfolders.
    pub subdirectory_count: usize,
}

/// Subfolders listed per top-level folder (the rest are counted).
pub const SUBDIRS: usize = 8;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SubDir {
    pub name: String,
    pub file_count: usize,
}

/// A file many others depend on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Critical {
    pub rank: usize,
    pub name: String,
    pub file: String,
    /// Its most-called definition, if any is called from other files.
    pub symbol: Option<String>,
    pub pagerank: f64,
    /// Files importing it.
    pub inbound_refs: usize,
}

/// The card as stored and served.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Card {
    pub schema: u32,
    /// When the index it was made from was built (seconds since the epoch).
    pub index_built_at: u64,
    /// The content fingerprint of that index (paths and hashes of its files).
    pub index_fingerprint: String,
    /// When the card was made.
    pub created_at: u64,
    pub project_name: String,
    pub file_count: u64,
    pub language_distribution: BTreeMap<String, u64>,
    pub top_language: Option<String>,
    pub top_language_share: f64,
    pub top_level_structure: Vec<TopLevel>,
    pub key_files: Vec<String>,
    pub entry_points: Vec<EntryPoint>,
    pub critical_nodes: Vec<Critical>,
    pub quick_start: String,
    pub readme_excerpt: Option<String>,
    pub module_descriptions: BTreeMap<String, String>,
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The stored card, when it is of this schema, of the current index and young.
pub fn load(root: &Path, index: &Index) -> Option<Card> {
    let path = tsa_index::state_path(root, "card.json").ok()?;
    let card: Card = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let fingerprint = index.content_fingerprint().ok()?;
    (card.schema == CARD_SCHEMA
        && card.index_fingerprint == fingerprint
        && now().saturating_sub(card.created_at) < MAX_AGE_SECS)
        .then_some(card)
}

/// Stores `card` (best effort: a read-only `.tsa` keeps the answer correct).
pub fn store(root: &Path, card: &Card) -> bool {
    let Ok(path) = tsa_index::state_path(root, "card.json") else {
        return false;
    };
    serde_json::to_vec(card)
        .ok()
        .is_some_and(|b| std::fs::write(path, b).is_ok())
}

/// The top code language and its share of files: non-code languages and languages
/// with fewer than 10 files and under 2% of the files left out.
fn top_language(dist: &BTreeMap<String, u64>, total: u64) -> (Option<String>, f64) {
    let code = dist.iter().filter(|(l, n)| {
        !NOT_CODE.contains(&l.as_str()) && (**n >= 10 || (**n as f64) >= 0.02 * total as f64)
    });
    match code.max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0))) {
        Some((l, n)) if total > 0 => (Some(l.clone()), *n as f64 / total as f64),
        _ => (None, 0.0),
    }
}

fn structure(files: &[String]) -> Vec<TopLevel> {
    let mut top: BTreeMap<String, (usize, BTreeMap<String, usize>, bool)> = BTreeMap::new();
    for f in files {
        let mut parts = f.splitn(3, '/');
        let first = parts.next().unwrap_or_default().to_owned();
        let second = parts.next();
        let is_dir = second.is_some();
        let e = top.entry(first).or_insert((0, BTreeMap::new(), is_dir));
        e.0 += 1;
        if let (Some(s), Some(_)) = (second, parts.next()) {
            *e.1.entry(s.to_owned()).or_insert(0) += 1;
        }
    }
    top.into_iter()
        .map(|(name, (n, subs, dir))| {
            let subdirectory_count = subs.len();
            let mut subdirectories: Vec<SubDir> = subs
                .into_iter()
                .map(|(name, file_count)| SubDir { name, file_count })
                .collect();
            subdirectories.sort_by(|a, b| {
                b.file_count
                    .cmp(&a.file_count)
                    .then_with(|| a.name.cmp(&b.name))
            });
            subdirectories.truncate(SUBDIRS);
            TopLevel {
                name,
                kind: if dir { "directory" } else { "file" }.to_owned(),
                file_count: n,
                subdirectories,
                subdirectory_count,
            }
        })
        .collect()
}

/// PageRank (damping 0.85, 30 rounds) over resolved file imports, tests left out.
fn critical(index: &Index) -> Result<Vec<Critical>, ToolError> {
    let edges: Vec<(String, String)> = index
        .file_imports()?
        .into_iter()
        .filter(|e| e.file != e.target_file)
        .filter(|e| !tsa_lang::is_test_path(&e.file) && !tsa_lang::is_test_path(&e.target_file))
        .map(|e| (e.file, e.target_file))
        .collect();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    for (a, b) in &edges {
        for f in [a.as_str(), b.as_str()] {
            if !ids.contains_key(f) {
                ids.insert(f, names.len());
                names.push(f);
            }
        }
    }
    let n = names.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut inbound: Vec<std::collections::HashSet<usize>> = vec![Default::default(); n];
    for (a, b) in &edges {
        let (a, b) = (ids[a.as_str()], ids[b.as_str()]);
        if !out_edges[a].contains(&b) {
            out_edges[a].push(b);
        }
        inbound[b].insert(a);
    }
    let d = 0.85;
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..30 {
        let dangling: f64 = (0..n)
            .filter(|&i| out_edges[i].is_empty())
            .map(|i| rank[i])
            .sum();
        let mut next = vec![(1.0 - d) / n as f64 + d * dangling / n as f64; n];
        for i in 0..n {
            let share = rank[i] / out_edges[i].len().max(1) as f64;
            for &j in &out_edges[i] {
                next[j] += d * share;
            }
        }
        rank = next;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        rank[b]
            .total_cmp(&rank[a])
            .then_with(|| names[a].cmp(names[b]))
    });
    let called = most_called(index)?;
    Ok(order
        .into_iter()
        .take(CRITICAL)
        .enumerate()
        .map(|(i, k)| Critical {
            rank: i + 1,
            name: names[k].rsplit('/').next().unwrap_or(names[k]).to_owned(),
            file: names[k].to_owned(),
            symbol: called.get(names[k]).cloned(),
            pagerank: (rank[k] * 10_000.0).round() / 10_000.0,
            inbound_refs: inbound[k].len(),
        })
        .collect())
}

/// Per file, its definition most called from other files.
fn most_called(index: &Index) -> Result<HashMap<String, String>, ToolError> {
    let mut counts: HashMap<(String, String), usize> = HashMap::new();
    for e in index.cross_file_calls()? {
        *counts.entry((e.callee_file, e.callee_name)).or_insert(0) += 1;
    }
    let mut best: HashMap<String, (usize, String)> = HashMap::new();
    for ((file, name), c) in counts {
        let e = best.entry(file).or_insert((0, String::new()));
        if c > e.0 || (c == e.0 && name < e.1) {
            *e = (c, name);
        }
    }
    Ok(best.into_iter().map(|(f, (_, n))| (f, n)).collect())
}

/// A small project text file (at most 64 KiB), never through a link out of the root.
fn read_small(root: &Path, rel: &str) -> Option<String> {
    match tsa_index::read_confined_capped(root, rel, 64 << 10) {
        Ok(Ok(bytes)) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    }
}

/// The first paragraph of the README, at most 400 characters.
fn readme(root: &Path) -> Option<String> {
    let text = ["README.md", "README.rst", "README.txt", "README"]
        .iter()
        .find_map(|f| read_small(root, f))?;
    let para: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| {
            l.is_empty()
                || l.starts_with('#')
                || l.starts_with('=')
                || l.starts_with("[!")
                || l.starts_with("<")
        })
        .take_while(|l| !l.is_empty())
        .collect();
    let joined = para.join(" ");
    (!joined.is_empty()).then(|| joined.chars().take(400).collect())
}

/// A folder's own description: its `__init__.py` docstring, `//!` lines of its
/// `mod.rs`/`lib.rs`, or its README's first line.
fn describe(root: &Path, dir: &str) -> Option<String> {
    let first = |t: &str| -> Option<String> {
        let line = t
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))?;
        Some(line.chars().take(120).collect())
    };
    if let Some(t) = read_small(root, &format!("{dir}/__init__.py")) {
        let t = t.trim_start();
        for q in ["\"\"\"", "'''"] {
            if let Some(rest) = t.strip_prefix(q) {
                return first(rest.split(q).next().unwrap_or_default());
            }
        }
    }
    for f in ["src/lib.rs", "lib.rs", "mod.rs", "src/main.rs"] {
        if let Some(t) = read_small(root, &format!("{dir}/{f}")) {
            let doc: Vec<&str> = t
                .lines()
                .map_while(|l| l.trim().strip_prefix("//!"))
                .collect();
            if let Some(s) = first(&doc.join("\n")) {
                return Some(s);
            }
        }
    }
    read_small(root, &format!("{dir}/README.md")).and_then(|t| first(&t))
}

/// Builds the card of the indexed project.
pub fn build(root: &Path, index: &Index) -> Result<Card, ToolError> {
    let st = index.status()?;
    let files = index.files()?;
    let (top, share) = top_language(&st.files_by_language, st.files);
    let key_files: Vec<String> = KEY_FILES
        .iter()
        .filter(|f| root.join(f).is_file())
        .map(|f| (*f).to_owned())
        .collect();
    let entries = entry_points(index, &files)?;
    let structure = structure(&files);
    let tests = structure
        .iter()
        .find(|t| {
            t.kind == "directory"
                && ["tests", "test", "spec", "specs", "__tests__"].contains(&t.name.as_str())
        })
        .map(|t| format!("{}/", t.name));
    let config = [
        "pyproject.toml",
        "package.json",
        "Cargo.toml",
        "go.mod",
        "Makefile",
    ]
    .iter()
    .find(|f| key_files.iter().any(|k| k == *f));
    let lang = top
        .as_deref()
        .map(title)
        .unwrap_or_else(|| "Mixed".to_owned());
    let mut quick_start = format!(
        "{lang} project. Entry: {}. Tests: {}. Config: {}.",
        entries.first().map_or("n/a", |e| e.file.as_str()),
        tests.as_deref().unwrap_or("n/a"),
        config.map_or("n/a", |c| c)
    );
    if quick_start.chars().count() > 100 {
        quick_start = quick_start.chars().take(99).collect::<String>() + "\u{2026}";
    }
    let module_descriptions = structure
        .iter()
        .filter(|t| t.kind == "directory")
        .filter_map(|t| describe(root, &t.name).map(|d| (t.name.clone(), d)))
        .collect();
    Ok(Card {
        schema: CARD_SCHEMA,
        index_built_at: index.built_at()?.unwrap_or(0),
        index_fingerprint: index.content_fingerprint()?,
        created_at: now(),
        project_name: root
            .file_name()
            .map_or_else(|| ".".to_owned(), |n| n.to_string_lossy().into_owned()),
        file_count: st.files,
        language_distribution: st.files_by_language.clone(),
        top_language: top,
        top_language_share: (share * 1000.0).round() / 1000.0,
        top_level_structure: structure,
        key_files,
        entry_points: entries,
        critical_nodes: critical(index)?,
        quick_start,
        readme_excerpt: readme(root),
        module_descriptions,
    })
}

fn title(lang: &str) -> String {
    match lang {
        "javascript" => "JavaScript".to_owned(),
        "typescript" => "TypeScript".to_owned(),
        "cpp" => "C++".to_owned(),
        "csharp" => "C#".to_owned(),
        "php" => "PHP".to_owned(),
        l => {
            let mut c = l.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_language_leaves_out_docs_and_rare_languages() {
        let d: BTreeMap<String, u64> = [("markdown", 50), ("python", 40), ("rust", 3)]
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect();
        let (l, share) = top_language(&d, 93);
        assert_eq!(l.as_deref(), Some("python"));
        assert!((share - 40.0 / 93.0).abs() < 1e-9);
    }

    #[test]
    fn structure_counts_files_per_top_folder_and_its_subfolders() {
        let files: Vec<String> = ["src/a/x.py", "src/a/y.py", "src/b.py", "setup.py"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let s = structure(&files);
        assert_eq!(s[0].name, "setup.py");
        assert_eq!(s[0].kind, "file");
        assert_eq!(s[1].file_count, 3);
        assert_eq!(s[1].subdirectories[0].name, "a");
        assert_eq!(s[1].subdirectories[0].file_count, 2);
    }
}
