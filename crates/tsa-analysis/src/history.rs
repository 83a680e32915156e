//! Git history through `git2` (never a `git` child process): the files each recent
//! commit touched, as project-relative paths. `nav co_change` reads it; the
//! git-hotspot dimension of health counts commits per file from the same walk.

use std::path::Path;

use git2::{DiffOptions, Repository, Sort};

/// One non-merge commit and the project files it touched.
#[derive(Clone, Debug)]
pub struct Commit {
    pub id: String,
    /// Seconds since the epoch (committer time).
    pub time: i64,
    pub files: Vec<String>,
}

/// The newest commits reachable from HEAD, newest first.
#[derive(Clone, Debug, Default)]
pub struct History {
    pub commits: Vec<Commit>,
    /// Where the walk stopped short of `max_commits` because history ended.
    pub complete: bool,
}

/// Why there is no history to read.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("'{0}' is not inside a git repository")]
    NotARepo(String),
    #[error("git: {0}")]
    Git(#[from] git2::Error),
}

/// The project root's path inside the repository's work tree (`""` at the top),
/// with `/` separators and a trailing `/` when not empty.
pub(crate) fn prefix_in(repo: &Repository, root: &Path) -> Option<String> {
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    let rel = root.strip_prefix(&workdir).ok()?;
    let s = rel.to_string_lossy().replace('\\', "/");
    Some(if s.is_empty() { s } else { format!("{s}/") })
}

/// Walks up to `max_commits` non-merge commits from HEAD (merges are skipped, as
/// `git log --name-only` shows no files for them). Paths outside the project root
/// are dropped; a commit touching only such paths still counts with no files.
pub fn load(root: &Path, max_commits: usize) -> Result<History, HistoryError> {
    walk_commits(root, max_commits, i64::MIN)
}

/// The non-merge commits made at or after `since` (seconds since the epoch).
pub fn load_since(root: &Path, since: i64) -> Result<History, HistoryError> {
    walk_commits(root, usize::MAX, since)
}

/// The non-merge commits made at or after `since`, at most `max_commits` of them.
pub fn load_recent(root: &Path, since: i64, max_commits: usize) -> Result<History, HistoryError> {
    walk_commits(root, max_commits, since)
}

/// Files touched per commit, newest first, until `max_commits` or a commit older
/// than `since`.
fn walk_commits(root: &Path, max_commits: usize, since: i64) -> Result<History, HistoryError> {
    let repo = Repository::discover(root)
        .map_err(|_| HistoryError::NotARepo(root.display().to_string()))?;
    let Some(prefix) = prefix_in(&repo, root) else {
        return Err(HistoryError::NotARepo(root.display().to_string()));
    };
    let mut walk = repo.revwalk()?;
    if walk.push_head().is_err() {
        // A repository with no commit yet.
        return Ok(History {
            commits: Vec::new(),
            complete: true,
        });
    }
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    let mut out = Vec::new();
    let mut complete = true;
    for oid in walk {
        if out.len() >= max_commits {
            complete = false;
            break;
        }
        let commit = repo.find_commit(oid?)?;
        if commit.time().seconds() < since {
            break;
        }
        if commit.parent_count() > 1 {
            continue;
        }
        let tree = commit.tree()?;
        let parent = match commit.parent_count() {
            0 => None,
            _ => Some(commit.parent(0)?.tree()?),
        };
        let mut opts = DiffOptions::new();
        if !prefix.is_empty() {
            opts.pathspec(&prefix);
        }
        let diff = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), Some(&mut opts))?;
        let mut files = Vec::new();
        for delta in diff.deltas() {
            for f in [delta.new_file(), delta.old_file()] {
                if let Some(p) = f.path().and_then(|p| p.to_str())
                    && let Some(rel) = p.strip_prefix(prefix.as_str())
                    && !files.iter().any(|x: &String| x == rel)
                {
                    files.push(rel.to_owned());
                }
            }
        }
        out.push(Commit {
            id: commit.id().to_string(),
            time: commit.time().seconds(),
            files,
        });
    }
    Ok(History {
        commits: out,
        complete,
    })
}

/// Commits per file at or after `since`: the git-hotspot dimension of health.
pub fn commit_counts_since(
    root: &Path,
    since: i64,
) -> Result<std::collections::HashMap<String, u32>, HistoryError> {
    let mut counts = std::collections::HashMap::new();
    for c in load_since(root, since)?.commits {
        for f in c.files {
            *counts.entry(f).or_insert(0) += 1;
        }
    }
    Ok(counts)
}

/// A commit that last touched some line of a range (from `git blame`).
#[derive(Clone, Debug)]
pub struct LineCommit {
    pub id: String,
    pub time: i64,
    pub author: String,
    pub summary: String,
    /// How many lines of the range this commit is the last to have touched.
    pub lines: usize,
}

/// The commits that last touched lines `start..=end` (1-based) of project file
/// `rel`, newest first. Uncommitted lines are left out (`uncommitted` counts them).
pub fn blame_range(
    root: &Path,
    rel: &str,
    start: u32,
    end: u32,
) -> Result<(Vec<LineCommit>, usize), HistoryError> {
    let repo = Repository::discover(root)
        .map_err(|_| HistoryError::NotARepo(root.display().to_string()))?;
    let Some(prefix) = prefix_in(&repo, root) else {
        return Err(HistoryError::NotARepo(root.display().to_string()));
    };
    let mut opts = git2::BlameOptions::new();
    opts.min_line(start.max(1) as usize)
        .max_line(end.max(start).max(1) as usize);
    let blame = repo.blame_file(Path::new(&format!("{prefix}{rel}")), Some(&mut opts))?;
    let mut by_id: Vec<LineCommit> = Vec::new();
    let mut uncommitted = 0usize;
    for hunk in blame.iter() {
        let id = hunk.final_commit_id();
        if id.is_zero() {
            uncommitted += hunk.lines_in_hunk();
            continue;
        }
        if let Some(c) = by_id.iter_mut().find(|c| c.id == id.to_string()) {
            c.lines += hunk.lines_in_hunk();
            continue;
        }
        let commit = repo.find_commit(id)?;
        by_id.push(LineCommit {
            id: id.to_string(),
            time: commit.time().seconds(),
            author: commit.author().name().unwrap_or("").to_owned(),
            summary: commit.summary().ok().flatten().unwrap_or("").to_owned(),
            lines: hunk.lines_in_hunk(),
        });
    }
    // Newest first; commits made in the same second are ordered by ancestry.
    by_id.sort_by(|a, b| {
        b.time.cmp(&a.time).then_with(|| {
            let (Ok(x), Ok(y)) = (git2::Oid::from_str(&a.id), git2::Oid::from_str(&b.id)) else {
                return a.id.cmp(&b.id);
            };
            if repo.graph_descendant_of(x, y).unwrap_or(false) {
                std::cmp::Ordering::Less
            } else if repo.graph_descendant_of(y, x).unwrap_or(false) {
                std::cmp::Ordering::Greater
            } else {
                a.id.cmp(&b.id)
            }
        })
    });
    Ok((by_id, uncommitted))
}
