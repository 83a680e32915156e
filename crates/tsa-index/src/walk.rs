//! Walks the project with ripgrep's `ignore` walker: `.gitignore` applied as git
//! applies it (inside a git work tree; outside one only when asked), `.ignore` and
//! `.tsaignore` always, hidden and vendored folders skipped, files over the size
//! limit skipped; every skip counted by its reason, and the ignore rules that left
//! files out named with their counts.

use std::collections::HashMap;
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

/// The default cap on files indexed: a guard far above real trees (the Linux
/// kernel has about 75,000 files), never a silent cut: past it the files left out
/// are counted and the answer warns.
pub const MAX_FILES_GUARD: usize = 1_000_000;

/// Walk settings.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Files larger than this many bytes are skipped.
    pub max_file_size: u64,
    /// Index at most this many files; the rest are counted (`skipped_over_max_files`).
    pub max_files: usize,
    /// Only files under these project-relative folders (empty = the whole project).
    pub only: Vec<String>,
    /// Also walk hidden files and folders (default: skipped).
    pub include_hidden: bool,
    /// Ignore `.gitignore` / `.ignore` rules (default: honoured). `.tsaignore` always applies.
    pub no_ignore: bool,
    /// Apply `.gitignore` files outside a git work tree too (git itself does not:
    /// default false, as ripgrep).
    pub gitignore_outside_git: bool,
    /// Count the files the ignore rules left out, by rule (a second walk of the
    /// folders without the rules: for full builds and empty-project answers).
    pub count_ignored: bool,
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
            max_files: MAX_FILES_GUARD,
            only: Vec::new(),
            include_hidden: false,
            no_ignore: false,
            gitignore_outside_git: false,
            count_ignored: false,
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
    /// Source files past `max_files`, left out (counted, never listed).
    pub skipped_over_max_files: usize,
    /// Source files (of a supported language) the ignore rules left out, when
    /// `count_ignored` asked for them.
    pub skipped_ignored: usize,
    /// The rules that left them out, most files first: (rule, the ignore file that
    /// holds it, files).
    pub ignore_rules: Vec<IgnoreRule>,
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

/// An ignore rule that left source files out of the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreRule {
    /// The pattern as written (`/*`, `generated/`).
    pub pattern: String,
    /// The project-relative ignore file holding it (`.gitignore`, `web/.ignore`).
    pub file: String,
    /// Source files it left out.
    pub files: usize,
}

/// The ignore files the walker reads, in the order of their precedence (later
/// wins), and whether each is git's.
const IGNORE_FILES: [(&str, bool); 3] = [
    (".gitignore", true),
    (".ignore", false),
    (".tsaignore", false),
];

/// The walker every listing uses: gitignore / `.ignore` / `.tsaignore` rules, hidden
/// entries per the options, never following symlinks, and never the vendored and
/// generated folders, the index itself or `.git`.
fn walker(root: &Path, opts: &WalkOptions) -> ignore::Walk {
    walker_builder(root, opts).build()
}

/// The builder of [`walker`] (a parallel walk is built from it too).
fn walker_builder(root: &Path, opts: &WalkOptions) -> ignore::WalkBuilder {
    let mut b = ignore::WalkBuilder::new(root);
    b.hidden(!opts.include_hidden)
        .git_ignore(!opts.no_ignore)
        .git_global(false)
        .git_exclude(!opts.no_ignore)
        .ignore(!opts.no_ignore)
        // `.gitignore` applies inside a git work tree (as git and ripgrep apply it),
        // or everywhere when asked; `.ignore` and `.tsaignore` always.
        .require_git(!opts.gitignore_outside_git)
        .add_custom_ignore_filename(".tsaignore")
        .follow_links(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_some_and(|t| t.is_dir()) && is_skipped_dir(&name))
        });
    b
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

/// Walks `root` (never following symlinks out of it) on every core and sorts the
/// result by path.
pub fn walk(root: &Path, opts: &WalkOptions) -> WalkResult {
    let found = std::sync::Mutex::new(WalkResult::default());
    walker_builder(root, opts).build_parallel().run(|| {
        let found = &found;
        Box::new(move |entry| {
            if let Ok(entry) = entry {
                let seen = look_at(root, &entry, opts.max_file_size);
                let mut out = found.lock().unwrap_or_else(|e| e.into_inner());
                take(&mut out, seen, opts.max_files);
            }
            ignore::WalkState::Continue
        })
    });
    let mut out = found.into_inner().unwrap_or_else(|e| e.into_inner());
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.manifests.sort();
    out.too_large.sort();
    if opts.count_ignored && !opts.no_ignore {
        let walked: std::collections::HashSet<&str> =
            out.files.iter().map(|f| f.rel.as_str()).collect();
        let (count, rules) = ignored(root, opts, &walked, out.skipped_over_max_files > 0);
        out.skipped_ignored = count;
        out.ignore_rules = rules;
    }
    out
}

/// The walk of a sync told which project-relative `paths` changed (a watcher's
/// burst, `index sync paths`): what [`walk`] would find at those paths, without
/// walking the tree, or `None` when only a walk can tell: a folder among them, a
/// manifest or an ignore file (the layout or the rules may change), a path that
/// is not plain (`..`, empty parts), or a scope the options already narrow. A path
/// the walk would not list (gone, ignored, inside a hidden or skipped folder or
/// behind a symlinked one) is simply not in the result: a sync then drops its rows.
pub fn walk_paths(root: &Path, opts: &WalkOptions, paths: &[String]) -> Option<WalkResult> {
    if !opts.only.is_empty() || paths.is_empty() {
        return None;
    }
    // Each folder's entries as the walk lists them (ignore rules, hidden and
    // skipped folders, links never followed), read once.
    let mut listed: HashMap<PathBuf, Vec<ignore::DirEntry>> = HashMap::new();
    fn list<'a>(
        listed: &'a mut HashMap<PathBuf, Vec<ignore::DirEntry>>,
        dir: &Path,
        opts: &WalkOptions,
    ) -> &'a [ignore::DirEntry] {
        listed.entry(dir.to_path_buf()).or_insert_with(|| {
            walker_builder(dir, opts)
                .max_depth(Some(1))
                .build()
                .flatten()
                .filter(|e| e.depth() == 1)
                .collect()
        })
    }
    let mut out = WalkResult::default();
    for rel in paths {
        let parts: Vec<&str> = rel.split('/').collect();
        if parts
            .iter()
            .any(|c| c.is_empty() || *c == "." || *c == "..")
        {
            return None;
        }
        let name = parts[parts.len() - 1];
        if crate::layout::MANIFESTS.contains(&name)
            || IGNORE_FILES.iter().any(|(f, _)| *f == name)
            || name == "tsa.toml"
            || root.join(rel).is_dir()
        {
            return None;
        }
        // Every folder on the way must be one the walk enters.
        let mut dir = root.to_path_buf();
        let mut entered = true;
        for d in &parts[..parts.len() - 1] {
            entered = list(&mut listed, &dir, opts)
                .iter()
                .any(|e| e.file_name() == *d && e.file_type().is_some_and(|t| t.is_dir()));
            if !entered {
                break;
            }
            dir.push(d);
        }
        if !entered {
            continue;
        }
        if let Some(e) = list(&mut listed, &dir, opts)
            .iter()
            .find(|e| e.file_name() == name)
        {
            let seen = look_at(root, e, opts.max_file_size);
            take(&mut out, seen, opts.max_files);
        }
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.files.dedup_by(|a, b| a.rel == b.rel);
    out.too_large.sort();
    out.too_large.dedup();
    Some(out)
}

/// What the walk makes of one entry (besides its being a manifest).
enum Seen {
    Nothing,
    Unknown,
    StructureOnly,
    TooLarge(String, u64),
    Source(SourceFile),
}

/// Reads one walked entry (a file's metadata only): its path when it is a
/// manifest, and what it is.
fn look_at(root: &Path, entry: &ignore::DirEntry, max_size: u64) -> (Option<String>, Seen) {
    if !entry.file_type().is_some_and(|t| t.is_file()) {
        return (None, Seen::Nothing);
    }
    let Some(rel) = relative(root, entry.path()) else {
        return (None, Seen::Nothing);
    };
    let manifest = crate::layout::MANIFESTS
        .contains(&rel.rsplit('/').next().unwrap_or(&rel))
        .then(|| rel.clone());
    let Some(language) = Language::from_path(&rel) else {
        return (manifest, Seen::Unknown);
    };
    if language.tier() == Tier::Structure {
        return (manifest, Seen::StructureOnly);
    }
    let Ok(meta) = entry.metadata() else {
        return (manifest, Seen::Nothing);
    };
    if meta.len() > max_size {
        return (manifest, Seen::TooLarge(rel, meta.len()));
    }
    let file = SourceFile {
        rel,
        abs: entry.path().to_path_buf(),
        language,
        size: meta.len(),
        mtime_ns: mtime_ns(&meta),
    };
    (manifest, Seen::Source(file))
}

/// Counts or keeps what [`look_at`] saw.
fn take(out: &mut WalkResult, (manifest, seen): (Option<String>, Seen), max_files: usize) {
    out.manifests.extend(manifest);
    match seen {
        Seen::Nothing => {}
        Seen::Unknown => out.skipped_unknown_extension += 1,
        Seen::StructureOnly => out.skipped_structure_only += 1,
        Seen::TooLarge(rel, len) => {
            out.skipped_too_large += 1;
            out.too_large.push((rel, len));
        }
        Seen::Source(file) if out.files.len() >= max_files => {
            drop(file);
            out.truncated_by_max_files = true;
            out.skipped_over_max_files += 1;
        }
        Seen::Source(file) => out.files.push(file),
    }
}

/// The source files the ignore rules left out, and the rules that did it: a walk of
/// the same folders without the rules, each file missing from `walked` matched
/// against the ignore files of its folders (deepest first, the last matching line
/// of a file wins, as in git). Files past `max_files` (`over_cap`) are not the
/// rules' doing and are not counted here.
fn ignored(
    root: &Path,
    opts: &WalkOptions,
    walked: &std::collections::HashSet<&str>,
    over_cap: bool,
) -> (usize, Vec<IgnoreRule>) {
    let all = ignore::WalkBuilder::new(root)
        .hidden(!opts.include_hidden)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .ignore(false)
        .parents(false)
        .follow_links(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.file_type().is_some_and(|t| t.is_dir()) && is_skipped_dir(&name))
        })
        .build();
    let in_git = !opts.gitignore_outside_git && in_git_work_tree(root);
    let mut matchers: HashMap<PathBuf, Vec<(String, ignore::gitignore::Gitignore)>> =
        HashMap::new();
    let mut by_rule: HashMap<(String, String), usize> = HashMap::new();
    let mut count = 0usize;
    for entry in all.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative(root, entry.path()) else {
            continue;
        };
        if walked.contains(rel.as_str()) || over_cap {
            continue;
        }
        let Some(language) = Language::from_path(&rel) else {
            continue;
        };
        if language.tier() == Tier::Structure || !opts.in_scope(&rel) {
            continue;
        }
        count += 1;
        let rule = rule_for(
            root,
            entry.path(),
            in_git || opts.gitignore_outside_git,
            &mut matchers,
        );
        *by_rule.entry(rule).or_default() += 1;
    }
    let mut rules: Vec<IgnoreRule> = by_rule
        .into_iter()
        .map(|((pattern, file), files)| IgnoreRule {
            pattern,
            file,
            files,
        })
        .collect();
    rules.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.file.cmp(&b.file)));
    rules.truncate(5);
    (count, rules)
}

/// Whether `root` is inside a git work tree (a `.git` in it or above it).
fn in_git_work_tree(root: &Path) -> bool {
    root.ancestors().any(|d| d.join(".git").exists())
}

/// The (pattern, ignore file) that leaves `path` out: the ignore files of its
/// folders from the deepest up, `.tsaignore` before `.ignore` before `.gitignore`
/// (their precedence), git's only when `git_applies`.
fn rule_for(
    root: &Path,
    path: &Path,
    git_applies: bool,
    matchers: &mut HashMap<PathBuf, Vec<(String, ignore::gitignore::Gitignore)>>,
) -> (String, String) {
    for dir in path.ancestors().skip(1) {
        if !dir.starts_with(root) {
            break;
        }
        let here = matchers.entry(dir.to_path_buf()).or_insert_with(|| {
            IGNORE_FILES
                .iter()
                .rev()
                .filter(|(_, git)| git_applies || !git)
                .filter_map(|(name, _)| {
                    let file = dir.join(name);
                    file.is_file().then(|| {
                        let (g, _) = ignore::gitignore::Gitignore::new(&file);
                        (relative(root, &file).unwrap_or_default(), g)
                    })
                })
                .collect()
        });
        for (file, g) in here.iter() {
            if let ignore::Match::Ignore(glob) = g.matched_path_or_any_parents(path, false) {
                return (glob.original().to_owned(), file.clone());
            }
        }
    }
    (
        "(git's info/exclude or a parent folder's ignore file)".to_owned(),
        String::new(),
    )
}
