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

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(repo: &Repository, file: &str, text: &str, when: i64) {
        let root = repo.workdir().unwrap().to_path_buf();
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::write(root.join(file), text).unwrap();
        let mut idx = repo.index().unwrap();
        idx.add_path(Path::new(file)).unwrap();
        idx.write().unwrap();
        let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(when, 0)).unwrap();
        let parents: Vec<git2::Commit<'_>> = repo
            .head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok())
            .into_iter()
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, "c", &tree, &refs)
            .unwrap();
    }

    #[test]
    fn counts_recent_commits_per_file_relative_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let now = 1_800_000_000;
        let old = now - 200 * 86_400;
        commit(&repo, "proj/a.py", "1", old);
        commit(&repo, "proj/a.py", "2", now - 10);
        commit(&repo, "proj/a.py", "3", now - 5);
        commit(&repo, "proj/b.py", "x", now - 1);
        let counts = commit_counts(&dir.path().join("proj"), 90, now).unwrap();
        assert_eq!(counts.get("a.py"), Some(&2));
        assert_eq!(counts.get("b.py"), Some(&1));
        let plain = tempfile::tempdir().unwrap();
        assert!(commit_counts(plain.path(), 90, now).is_none());
    }
}
