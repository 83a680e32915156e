//! `git_hotspot` input: commits touching each file in the last N days, via git2.

use std::collections::HashMap;
use std::path::Path;

use git2::{DiffOptions, Repository, Sort};

/// Commits in the last `days` days that touched each file, keyed by path relative
/// to `root` (`/`-separated). `None` when `root` is not inside a git repository or
/// git fails (the dimension is then unavailable).
pub fn commit_counts(root: &Path, days: u32, now_secs: i64) -> Option<HashMap<String, u32>> {
    let repo = Repository::discover(root).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let root = root.canonicalize().ok()?;
    let prefix = root
        .strip_prefix(&workdir)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut walk = repo.revwalk().ok()?;
    if walk.push_head().is_err() {
        // A repository without commits: nothing touched anything.
        return Some(counts);
    }
    walk.set_sorting(Sort::TIME).ok()?;
    let cutoff = now_secs - i64::from(days) * 86_400;
    for oid in walk {
        let commit = repo.find_commit(oid.ok()?).ok()?;
        if commit.time().seconds() < cutoff {
            break;
        }
        let tree = commit.tree().ok()?;
        let parent_tree = match commit.parent(0) {
            Ok(p) => Some(p.tree().ok()?),
            Err(_) => None,
        };
        let mut opts = DiffOptions::new();
        let diff = repo
            .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), Some(&mut opts))
            .ok()?;
        let mut seen: Vec<String> = Vec::new();
        for delta in diff.deltas() {
            for p in [delta.new_file().path(), delta.old_file().path()]
                .into_iter()
                .flatten()
            {
                let p = p.to_string_lossy().replace('\\', "/");
                if let Some(rel) = p.strip_prefix(&prefix)
                    && !seen.iter().any(|s| s == rel)
                {
                    seen.push(rel.to_owned());
                }
            }
        }
        for rel in seen {
            *counts.entry(rel).or_default() += 1;
        }
    }
    Some(counts)
}
