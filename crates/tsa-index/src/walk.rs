//! Walks the project with ripgrep's `ignore` walker: gitignore-aware, hidden and
//! vendored folders skipped, files over the size limit skipped and counted.

use std::path::{Path, PathBuf};

use tsa_lang::{Language, Tier};

/// Folders never indexed, wherever they sit (besides hidden ones and .gitignore).
pub const SKIPPED_DIRS: [&str; 10] = [
    "node_modules",
    "target",
    "vendor",
    "venv",
    "__pycache__",
    "site-packages",
    "bin",
    "obj",
    "Pods",
    "third_party",
];

/// Walk settings.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Files larger than this many bytes are skipped.
    pub max_file_size: u64,
    /// Stop after this many candidate files.
    pub max_files: usize,
    /// Only files under these project-relative folders (empty = the whole project).
    pub only: Vec<String>,
    /// Also walk hidden files and folders (default: skipped).
    pub include_hidden: bool,
    /// Ignore `.gitignore` / `.ignore` rules (default: honoured). `.tsaignore` always applies.
    pub no_ignore: bool,
}

impl WalkOptions {
    /// Whether a project-relative path is inside the walk's scope.
    pub fn in_scope(&self, rel: &str) -> bool {
        self.only.is_empty()
            || self.only.iter().any(|p| {
                let p = p.trim_end_matches('/');
                p.is_empty() || p == "." || rel == p || rel.starts_with(&format!("{p}/"))
            })
    }
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            max_file_size: 2 * 1024 * 1024,
            max_files: 200_000,
            only: Vec::new(),
            include_hidden: false,
            no_ignore: false,
        }
    }
}

/// A candidate source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Project-relative, `/`-separated.
    pub rel: String,
    pub abs: PathBuf,
    pub language: Language,
    pub size: u64,
    pub mtime_ns: i64,
}

/// What the walk found and what it skipped.
#[derive(Clone, Debug, Default)]
pub struct WalkResult {
    pub files: Vec<SourceFile>,
    pub skipped_unknown_extension: usize,
    pub skipped_too_large: usize,
    /// The files over the size limit, with their sizes.
    pub too_large: Vec<(String, u64)>,
    /// Files of structure-tier languages (HTML, CSS, ...): outlined on demand, not indexed.
    pub skipped_structure_only: usize,
    pub truncated_by_max_files: bool,
    /// Project-relative paths of the manifests the layout is read from
    /// (`pyproject.toml`, `go.mod`, `Cargo.toml`, ...), sorted.
    pub manifests: Vec<String>,
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Project-relative `/` path of `abs` under `root`.
pub fn relative(root: &Path, abs: &Path) -> Option<String> {
    let rel = abs.strip_prefix(root).ok()?;
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// The walker every listing uses: gitignore / `.ignore` / `.tsaignore` rules, hidden
/// entries per the options, never following symlinks, and never the vendored and
/// generated folders, the index itself or `.git`.
fn walker(root: &Path, opts: &WalkOptions) -> ignore::Walk {
    ignore::WalkBuilder::new(root)
        .hidden(!opts.include_hidden)
        .git_ignore(!opts.no_ignore)
        .git_global(false)
        .git_exclude(!opts.no_ignore)
        .ignore(!opts.no_ignore)
        .require_git(false)
        .add_custom_ignore_filename(".tsaignore")
        .follow_links(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_some_and(|t| t.is_dir()) && is_skipped_dir(&name))
        })
        .build()
}

/// Folders no walk enters: vendored and generated code, the index, `.git`.
pub fn is_skipped_dir(name: &str) -> bool {
    SKIPPED_DIRS.contains(&name) || name == ".tsa" || name == ".git"
}

/// Every folder the walk would enter (the root first), for a file watcher.
pub fn walk_dirs(root: &Path, opts: &WalkOptions) -> Vec<PathBuf> {
    walker(root, opts)
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_dir()))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// Walks `root` (never following symlinks out of it) and sorts the result by path.
pub fn walk(root: &Path, opts: &WalkOptions) -> WalkResult {
    let mut out = WalkResult::default();
    let walker = walker(root, opts);
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        if crate::layout::MANIFESTS.contains(&rel.rsplit('/').next().unwrap_or(&rel)) {
            out.manifests.push(rel.clone());
        }
        let Some(language) = Language::from_path(&rel) else {
            out.skipped_unknown_extension += 1;
            continue;
        };
        if language.tier() == Tier::Structure {
            out.skipped_structure_only += 1;
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.len() > opts.max_file_size {
            out.skipped_too_large += 1;
            out.too_large.push((rel, meta.len()));
            continue;
        }
        if out.files.len() >= opts.max_files {
            out.truncated_by_max_files = true;
            break;
        }
        out.files.push(SourceFile {
            rel,
            abs: entry.path().to_path_buf(),
            language,
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
        });
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.manifests.sort();
    out
}
