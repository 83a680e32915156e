//! Per-symbol git activation, read by TQL's temporal pseudo-classes (`:hot`,
//! `:recently_modified`, `:stale`, `:hotspot`). `index action=full
//! include_activation=true` computes it: for every indexed file touched by a commit
//! in the window (365 days), changed in the work tree or untracked, `git blame`
//! (bounded to the window, against the file's current bytes) says which commit
//! last touched each line and when; lines older than the window are "before the
//! window". It is kept in `.tsa/activation.json`, per file with the content hash
//! it was computed for: a file whose hash no longer matches the index is stale
//! and is computed again (a few at query time) or refused, never guessed.
//!
//! A symbol's activation: the newest time any of its current lines was touched,
//! and how many distinct commits in the last 30 days still own one of its lines
//! (a lower bound of the commits that touched it: a line rewritten twice counts
//! its last commit only). Uncommitted lines count as one commit made when the
//! activation was computed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use git2::{BlameOptions, Oid, Repository, Sort, Status, StatusOptions};
use serde::{Deserialize, Serialize};
use tsa_index::Index;

use crate::ToolError;
use crate::history::prefix_in;

/// How far back activation looks.
pub const WINDOW_DAYS: i64 = 365;
/// Where it is kept (inside `.tsa/`).
const STORE: &str = "activation.json";
const DAY: i64 = 86_400;

/// One file's activation: the commits that own its lines (by time) and its line
/// hunks `[first line (1-based), line count, commit index]`; lines in no hunk are
/// older than the window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FileActivation {
    /// The index's BLAKE3 hash (hex) of the bytes this was computed for.
    pub hash: String,
    /// Commit times (seconds since the epoch), one per distinct commit.
    pub commits: Vec<i64>,
    pub hunks: Vec<[u32; 3]>,
}

/// Everything computed, per project-relative path.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Store {
    pub computed_at: i64,
    pub window_days: i64,
    pub files: BTreeMap<String, FileActivation>,
}

/// A symbol's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolActivation {
    /// The newest time one of its lines was touched; `None` when every line is
    /// older than the window.
    pub last_modified: Option<i64>,
    /// Distinct commits in the 30 days before `now` owning one of its lines.
    pub commits_30d: usize,
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn git_error(e: git2::Error) -> ToolError {
    ToolError::Internal(format!("git: {}", e.message()))
}

/// What a computation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Computed {
    /// Files with activation now (blamed or wholly before the window).
    pub files: usize,
    /// Files blamed line by line.
    pub blamed: usize,
    /// Files left without activation (the time budget ran out, or git failed on them).
    pub pending: Vec<String>,
}

/// The git side of a computation: the repository, where the project sits in it,
/// the window's start and the files touched since then.
struct Git {
    repo: Repository,
    prefix: String,
    since: i64,
    /// The newest commit older than the window: blame stops there.
    boundary: Option<Oid>,
    /// HEAD's tree: a file outside it (ignored, in a submodule) cannot be judged.
    head: Option<Oid>,
    /// Project files a commit in the window touched, with the newest such commit's
    /// time; `None` when only some files are computed (each is then blamed).
    touched: Option<HashMap<String, i64>>,
    /// Project files changed in the work tree or the index, and untracked ones.
    dirty: HashSet<String>,
    untracked: HashSet<String>,
    times: HashMap<Oid, i64>,
}

impl Git {
    /// `only`: the files about to be computed (a refresh), else every file.
    fn open(root: &Path, at: i64, only: Option<&[String]>) -> Result<Git, ToolError> {
        let repo = Repository::discover(root).map_err(|_| not_a_repo(root))?;
        let prefix = prefix_in(&repo, root).ok_or_else(|| not_a_repo(root))?;
        let since = at - WINDOW_DAYS * DAY;
        // A refresh of a few files blames each of them rather than walking a year
        // of history for the files it touched.
        let touched = match only {
            Some(_) => None,
            None => {
                let mut t: HashMap<String, i64> = HashMap::new();
                for c in crate::history::load_since(root, since)
                    .map_err(|e| ToolError::Internal(e.to_string()))?
                    .commits
                {
                    for f in c.files {
                        let e = t.entry(f).or_insert(c.time);
                        *e = (*e).max(c.time);
                    }
                }
                Some(t)
            }
        };
        let mut boundary = None;
        if let Ok(mut walk) = repo.revwalk()
            && walk.push_head().is_ok()
        {
            walk.set_sorting(Sort::TIME).map_err(git_error)?;
            for oid in walk.flatten() {
                if repo
                    .find_commit(oid)
                    .is_ok_and(|c| c.time().seconds() < since)
                {
                    boundary = Some(oid);
                    break;
                }
            }
        }
        let head = repo
            .head()
            .ok()
            .and_then(|h| h.peel_to_tree().ok())
            .map(|t| t.id());
        let mut dirty = HashSet::new();
        let mut untracked = HashSet::new();
        let mut opts = StatusOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        for f in only.unwrap_or_default() {
            opts.pathspec(format!("{prefix}{f}"));
        }
        if let Ok(statuses) = repo.statuses(Some(&mut opts)) {
            for s in statuses.iter() {
                let Some(rel) = s.path().ok().and_then(|p| p.strip_prefix(prefix.as_str())) else {
                    continue;
                };
                if s.status().contains(Status::WT_NEW) {
                    untracked.insert(rel.to_owned());
                } else if !s.status().is_empty() {
                    dirty.insert(rel.to_owned());
                }
            }
        }
        Ok(Git {
            repo,
            prefix,
            since,
            boundary,
            head,
            touched,
            dirty,
            untracked,
            times: HashMap::new(),
        })
    }

    /// Whether HEAD holds `rel` as a file.
    fn in_head(&self, rel: &str) -> bool {
        let Some(tree) = self.head.and_then(|h| self.repo.find_tree(h).ok()) else {
            return false;
        };
        tree.get_path(Path::new(&format!("{}{rel}", self.prefix)))
            .is_ok_and(|e| e.kind() == Some(git2::ObjectType::Blob))
    }

    /// One file's activation (its bytes as they are now, `at` the computation time).
    fn file(
        &mut self,
        root: &Path,
        rel: &str,
        hash: &str,
        at: i64,
    ) -> Result<FileActivation, ToolError> {
        let mut out = FileActivation {
            hash: hash.to_owned(),
            ..FileActivation::default()
        };
        let bytes = tsa_index::read_confined(root, rel)
            .map_err(|e| ToolError::Internal(format!("{rel}: {e}")))?;
        let lines = (bytes.split(|b| *b == b'\n').count() as u32).max(1);
        let all_new = |mut out: FileActivation| {
            out.commits.push(at);
            out.hunks.push([1, lines, 0]);
            Ok(out)
        };
        let dirty = self.dirty.contains(rel);
        if self.untracked.contains(rel) {
            return all_new(out);
        }
        if !self.in_head(rel) {
            // Added to the index only: new. Otherwise (ignored, in a submodule)
            // git says nothing of it: not judged.
            return if dirty {
                all_new(out)
            } else {
                Err(ToolError::Internal(format!("{rel}: not in HEAD")))
            };
        }
        let touched = self.touched.as_ref().map(|t| t.get(rel).copied());
        if bytes.is_empty() {
            // No line to blame (git refuses an empty buffer): the newest commit
            // that touched it, when a history walk says.
            return match touched {
                _ if dirty => all_new(out),
                Some(Some(t)) => {
                    out.commits.push(t);
                    out.hunks.push([1, 1, 0]);
                    Ok(out)
                }
                Some(None) => Ok(out),
                None => Err(ToolError::Internal(format!(
                    "{rel}: empty, its history not read"
                ))),
            };
        }
        if touched == Some(None) && !dirty {
            // Unchanged since before the window.
            return Ok(out);
        }
        let mut opts = BlameOptions::new();
        if let Some(b) = self.boundary {
            opts.oldest_commit(b);
        }
        let path = format!("{}{rel}", self.prefix);
        let blame = self
            .repo
            .blame_file(Path::new(&path), Some(&mut opts))
            .map_err(git_error)?;
        // Only a changed file is blamed against its bytes: a clean one's bytes may
        // differ from the blob by checkout filters (line endings) alone.
        let blame = if dirty {
            blame.blame_buffer(&bytes).map_err(git_error)?
        } else {
            blame
        };
        let mut index_of: HashMap<Oid, u32> = HashMap::new();
        for hunk in blame.iter() {
            let id = hunk.final_commit_id();
            let time = if id.is_zero() {
                at
            } else if let Some(t) = self.times.get(&id) {
                *t
            } else {
                let t = self
                    .repo
                    .find_commit(id)
                    .map(|c| c.time().seconds())
                    .map_err(git_error)?;
                self.times.insert(id, t);
                t
            };
            if time < self.since {
                continue;
            }
            let idx = *index_of.entry(id).or_insert_with(|| {
                out.commits.push(time);
                (out.commits.len() - 1) as u32
            });
            out.hunks.push([
                hunk.final_start_line() as u32,
                hunk.lines_in_hunk() as u32,
                idx,
            ]);
        }
        out.hunks.sort_unstable();
        Ok(out)
    }
}

fn not_a_repo(root: &Path) -> ToolError {
    ToolError::Coded(Box::new(
        tsa_envelope::Failure::new(
            tsa_envelope::ErrorType::Validation,
            format!(
                "'{}' is not inside a git repository: there is no history to compute activation from",
                root.display()
            ),
        )
        .with_hint("Temporal selectors need git history; run tsa inside a git work tree.")
        .with("error_code", "TEMPORAL_INDEX_UNAVAILABLE"),
    ))
}

/// The stored activation (`None` when never computed or unreadable).
pub fn load(root: &Path) -> Option<Store> {
    let path = tsa_index::state_path(root, STORE).ok()?;
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn save(root: &Path, store: &Store) -> Result<(), ToolError> {
    let body = serde_json::to_vec(store).map_err(|e| ToolError::Internal(e.to_string()))?;
    crate::state::write(root, STORE, &body)
}

/// Computes activation for `files` (path, index hash) within `budget`, merged into
/// what is stored (entries of files no longer indexed are dropped) and saved.
pub fn compute(
    root: &Path,
    index: &Index,
    only: Option<&[String]>,
    budget: Duration,
) -> Result<Computed, ToolError> {
    let started = Instant::now();
    let at = now();
    let hashes = index.file_hashes()?;
    let mut store = load(root).unwrap_or_default();
    let indexed: HashSet<&str> = hashes.iter().map(|(p, _)| p.as_str()).collect();
    store.files.retain(|p, _| indexed.contains(p.as_str()));
    let mut git = Git::open(root, at, only)?;
    let wanted: Option<HashSet<&str>> = only.map(|o| o.iter().map(String::as_str).collect());
    let mut done = Computed::default();
    for (path, hash) in &hashes {
        if wanted.as_ref().is_some_and(|w| !w.contains(path.as_str())) {
            continue;
        }
        if started.elapsed() > budget {
            store.files.remove(path);
            done.pending.push(path.clone());
            continue;
        }
        let blamed = git.touched.as_ref().is_none_or(|t| t.contains_key(path))
            || git.dirty.contains(path)
            || git.untracked.contains(path);
        match git.file(root, path, hash, at) {
            Ok(a) => {
                store.files.insert(path.clone(), a);
                done.files += 1;
                done.blamed += usize::from(blamed);
            }
            Err(_) => {
                store.files.remove(path);
                done.pending.push(path.clone());
            }
        }
    }
    store.computed_at = at;
    store.window_days = WINDOW_DAYS;
    save(root, &store)?;
    Ok(done)
}

impl FileActivation {
    /// The activation of lines `start..=end` at time `now`.
    pub fn of_lines(&self, start: u32, end: u32, now: i64) -> SymbolActivation {
        let mut last = None;
        let mut recent: Vec<u32> = Vec::new();
        for h in &self.hunks {
            if h[1] == 0 {
                continue;
            }
            let (first, last_line) = (h[0], h[0].saturating_add(h[1] - 1));
            if last_line < start || first > end {
                continue;
            }
            let Some(t) = self.commits.get(h[2] as usize).copied() else {
                continue;
            };
            last = Some(last.map_or(t, |l: i64| l.max(t)));
            if t >= now - 30 * DAY && !recent.contains(&h[2]) {
                recent.push(h[2]);
            }
        }
        SymbolActivation {
            last_modified: last,
            commits_30d: recent.len(),
        }
    }
}

/// Whether the stored activation covers every indexed file at its current hash
/// (`None` when none is stored).
pub fn ready(root: &Path, index: &Index) -> Result<Option<bool>, ToolError> {
    let Some(store) = load(root) else {
        return Ok(None);
    };
    let hashes = index.file_hashes()?;
    Ok(Some(hashes.iter().all(|(p, h)| {
        store.files.get(p).is_some_and(|a| a.hash == *h)
    })))
}

/// The commits of the last 30 days owning a line of each symbol `(file, first
/// line, last line)`, when the stored activation is fresh for every one of their
/// files (computed for the indexed bytes, unchanged on disk); `None` otherwise.
pub fn heat_of(root: &Path, index: &Index, symbols: &[(&str, u32, u32)]) -> Option<Vec<usize>> {
    let store = load(root)?;
    let mut files: Vec<&str> = symbols.iter().map(|s| s.0).collect();
    files.sort_unstable();
    files.dedup();
    if !index.changed_on_disk(&files).ok()?.is_empty() {
        return None;
    }
    let hashes: HashMap<String, String> = index.file_hashes().ok()?.into_iter().collect();
    let at = now();
    symbols
        .iter()
        .map(|(f, first, last)| {
            let a = store.files.get(*f)?;
            (hashes.get(*f) == Some(&a.hash)).then(|| a.of_lines(*first, *last, at).commits_30d)
        })
        .collect()
}

/// The seconds in `days`.
pub fn days(days: i64) -> i64 {
    days * DAY
}

/// The current time, as activation reads it.
pub fn current_time() -> i64 {
    now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_takes_its_newest_line_and_counts_recent_commits_once() {
        let now = 1_000 * DAY;
        let a = FileActivation {
            hash: String::new(),
            commits: vec![now - 2 * DAY, now - 100 * DAY, now - DAY],
            hunks: vec![[1, 3, 0], [4, 2, 1], [8, 1, 0], [12, 1, 2]],
        };
        assert_eq!(
            a.of_lines(1, 9, now),
            SymbolActivation {
                last_modified: Some(now - 2 * DAY),
                commits_30d: 1
            }
        );
        assert_eq!(
            a.of_lines(4, 5, now),
            SymbolActivation {
                last_modified: Some(now - 100 * DAY),
                commits_30d: 0
            }
        );
        assert_eq!(a.of_lines(9, 11, now).last_modified, None);
        assert_eq!(a.of_lines(1, 20, now).commits_30d, 2);
    }
}
