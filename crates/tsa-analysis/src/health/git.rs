//! `git_hotspot` input: commits touching each file in the last N days, from the
//! same git2 history walk as `nav co_change` (`crate::history`).

use std::collections::HashMap;
use std::path::Path;

/// Commits in the last `days` days that touched each file, keyed by path relative
/// to `root` (`/`-separated). `None` when `root` is not inside a git repository or
/// git fails (the dimension is then unavailable).
pub fn commit_counts(root: &Path, days: u32, now_secs: i64) -> Option<HashMap<String, u32>> {
    crate::history::commit_counts_since(root, now_secs - i64::from(days) * 86_400).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::Repository;

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
