//! Git, read-only and in-process through `git2` (never a `git` child process):
//! the changed files of a mode (unstaged, staged, branch vs its base) with their
//! changed line ranges and both versions of each file, and file contents at a ref.

use std::path::Path;

use git2::{BranchType, Delta, DiffOptions, Oid, Repository};

use crate::ToolError;
use crate::security::read_in_root;

/// Which change set to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffMode {
    /// The working tree against the index (unstaged edits, untracked files included).
    Unstaged,
    /// The index against HEAD.
    Staged,
    /// HEAD against its merge base with `main` (else `master`).
    Branch,
}

impl DiffMode {
    pub fn name(self) -> &'static str {
        match self {
            DiffMode::Unstaged => "diff",
            DiffMode::Staged => "staged",
            DiffMode::Branch => "branch",
        }
    }
}

/// One changed file, its path relative to the project root (`/`-separated).
#[derive(Clone, Debug)]
pub struct FileChange {
    pub path: String,
    /// The path before a rename (same as `path` otherwise).
    pub old_path: String,
    /// `added`, `deleted`, `modified`, `renamed`, `typechange`.
    pub status: &'static str,
    /// Changed line ranges (1-based, inclusive) in the old version.
    pub old_ranges: Vec<(u32, u32)>,
    /// Changed line ranges (1-based, inclusive) in the new version.
    pub new_ranges: Vec<(u32, u32)>,
    pub added_lines: usize,
    pub deleted_lines: usize,
    /// The old text (None when added, binary or not UTF-8).
    pub old_text: Option<String>,
    /// The new text (None when deleted, binary or not UTF-8).
    pub new_text: Option<String>,
}

/// A change set of one mode.
#[derive(Debug)]
pub struct ChangeSet {
    pub files: Vec<FileChange>,
    /// `main`/`master` and the merge-base commit in branch mode.
    pub base: Option<(String, String)>,
    /// Changed working-tree files whose text was not read: each is a symlink (or
    /// lies below one) leading out of the project root.
    pub linked: Vec<String>,
}

/// The repository holding `root`, and `root`'s path inside its work tree
/// (`""` at the top, else `sub/dir/`).
pub struct Repo {
    pub repo: Repository,
    prefix: String,
    /// The project root: working-tree files are read only inside it.
    root: std::path::PathBuf,
}

fn git_err(e: git2::Error) -> ToolError {
    ToolError::Validation(format!("git: {}", e.message()))
}

impl Repo {
    /// Opens the repository that contains `root`; a project outside git is a
    /// validation error naming the fix.
    pub fn open(root: &Path) -> Result<Repo, ToolError> {
        let repo = Repository::discover(root).map_err(|_| {
            ToolError::Validation(format!(
                "not a git repository: '{}' (and none of its parents) holds a .git; run git init or point set_project_path at a repository",
                root.display()
            ))
        })?;
        if repo.workdir().is_none() {
            return Err(ToolError::Validation(
                "git repository is bare (no work tree)".into(),
            ));
        }
        let prefix = crate::history::prefix_in(&repo, root).ok_or_else(|| {
            ToolError::Validation("project root is not inside the repository work tree".into())
        })?;
        Ok(Repo {
            repo,
            prefix,
            root: root.to_path_buf(),
        })
    }

    /// A repository path as a project-relative path (None when outside the project).
    fn to_project(&self, p: &Path) -> Option<String> {
        let s = p.to_string_lossy().replace('\\', "/");
        s.strip_prefix(&self.prefix).map(str::to_owned)
    }

    fn head_tree(&self) -> Result<Option<git2::Tree<'_>>, ToolError> {
        match self.repo.head() {
            Ok(h) => Ok(Some(h.peel_to_tree().map_err(git_err)?)),
            Err(e)
                if e.code() == git2::ErrorCode::UnbornBranch
                    || e.code() == git2::ErrorCode::NotFound =>
            {
                Ok(None)
            }
            Err(e) => Err(git_err(e)),
        }
    }

    /// The base branch name and the merge base of HEAD with it.
    fn merge_base(&self) -> Result<(String, Oid), ToolError> {
        let head = self
            .repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|_| ToolError::Validation("branch mode needs a commit on HEAD".into()))?;
        for name in ["main", "master", "origin/main", "origin/master"] {
            let kind = if name.starts_with("origin/") {
                BranchType::Remote
            } else {
                BranchType::Local
            };
            if let Ok(b) = self.repo.find_branch(name, kind)
                && let Ok(c) = b.get().peel_to_commit()
            {
                let base = self.repo.merge_base(head.id(), c.id()).map_err(git_err)?;
                return Ok((name.to_owned(), base));
            }
        }
        Err(ToolError::Validation(
            "branch mode needs a 'main' or 'master' branch to compare against".into(),
        ))
    }

    /// The changed files of `mode` (paths under the project root only).
    pub fn changes(&self, mode: DiffMode) -> Result<ChangeSet, ToolError> {
        let mut opts = DiffOptions::new();
        opts.context_lines(0).ignore_submodules(true);
        if !self.prefix.is_empty() {
            opts.pathspec(self.prefix.trim_end_matches('/'));
        }
        let mut base = None;
        let diff = match mode {
            DiffMode::Unstaged => {
                opts.include_untracked(true)
                    .recurse_untracked_dirs(true)
                    .show_untracked_content(true);
                self.repo
                    .diff_index_to_workdir(None, Some(&mut opts))
                    .map_err(git_err)?
            }
            DiffMode::Staged => {
                let tree = self.head_tree()?;
                self.repo
                    .diff_tree_to_index(tree.as_ref(), None, Some(&mut opts))
                    .map_err(git_err)?
            }
            DiffMode::Branch => {
                let (name, oid) = self.merge_base()?;
                let old = self
                    .repo
                    .find_commit(oid)
                    .and_then(|c| c.tree())
                    .map_err(git_err)?;
                let new = self.head_tree()?;
                base = Some((name, oid.to_string()));
                self.repo
                    .diff_tree_to_tree(Some(&old), new.as_ref(), Some(&mut opts))
                    .map_err(git_err)?
            }
        };
        let mut files = Vec::new();
        let mut linked = Vec::new();
        for (i, delta) in diff.deltas().enumerate() {
            let status = match delta.status() {
                Delta::Added | Delta::Untracked => "added",
                Delta::Deleted => "deleted",
                Delta::Modified => "modified",
                Delta::Renamed => "renamed",
                Delta::Typechange => "typechange",
                _ => continue,
            };
            let new_git = delta.new_file().path().map(Path::to_path_buf);
            let old_git = delta.old_file().path().map(Path::to_path_buf);
            let Some(path) = new_git
                .as_deref()
                .or(old_git.as_deref())
                .and_then(|p| self.to_project(p))
            else {
                continue;
            };
            if path.starts_with(".tsa/") || path == ".tsa" {
                continue;
            }
            let old_path = old_git
                .as_deref()
                .and_then(|p| self.to_project(p))
                .unwrap_or_else(|| path.clone());
            let read_blob = |id: Oid| -> Option<String> {
                if id.is_zero() {
                    return None;
                }
                let blob = self.repo.find_blob(id).ok()?;
                text_of(blob.content())
            };
            let old_text = if status == "added" {
                None
            } else {
                read_blob(delta.old_file().id())
            };
            let new_text = if status == "deleted" {
                None
            } else if mode == DiffMode::Unstaged {
                match new_git.as_deref().and_then(|p| self.to_project(p)) {
                    Some(rel) => match read_in_root(&self.root, &rel) {
                        Ok(b) => text_of(&b),
                        Err(ToolError::Linked(_)) => {
                            linked.push(rel);
                            None
                        }
                        Err(_) => None,
                    },
                    None => None,
                }
            } else {
                read_blob(delta.new_file().id())
            };
            let mut fc = FileChange {
                path,
                old_path,
                status,
                old_ranges: Vec::new(),
                new_ranges: Vec::new(),
                added_lines: 0,
                deleted_lines: 0,
                old_text,
                new_text,
            };
            if let Ok(Some(patch)) = git2::Patch::from_diff(&diff, i) {
                for h in 0..patch.num_hunks() {
                    if let Ok((hunk, _)) = patch.hunk(h) {
                        if hunk.old_lines() > 0 {
                            fc.old_ranges
                                .push((hunk.old_start(), hunk.old_start() + hunk.old_lines() - 1));
                            fc.deleted_lines += hunk.old_lines() as usize;
                        }
                        if hunk.new_lines() > 0 {
                            fc.new_ranges
                                .push((hunk.new_start(), hunk.new_start() + hunk.new_lines() - 1));
                            fc.added_lines += hunk.new_lines() as usize;
                        }
                    }
                }
            }
            files.push(fc);
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(ChangeSet {
            files,
            base,
            linked,
        })
    }

    /// The text of project file `rel` at `rev` (`HEAD`, `HEAD~1`, a branch, a sha);
    /// `WORKTREE` reads the working tree. None when the file does not exist there;
    /// a working-tree file that is a symlink leading out of the root is refused.
    pub fn file_at(&self, root: &Path, rev: &str, rel: &str) -> Result<Option<String>, ToolError> {
        if rev.eq_ignore_ascii_case("worktree") || rev.eq_ignore_ascii_case("working_tree") {
            return match read_in_root(root, rel) {
                Ok(b) => Ok(text_of(&b)),
                Err(e @ ToolError::Linked(_)) => Err(e),
                Err(_) => Ok(None),
            };
        }
        let obj = self.repo.revparse_single(rev).map_err(|e| {
            ToolError::Validation(format!("git: unknown revision '{rev}': {}", e.message()))
        })?;
        let tree = obj.peel_to_tree().map_err(git_err)?;
        let full = format!("{}{rel}", self.prefix);
        let Ok(entry) = tree.get_path(Path::new(&full)) else {
            return Ok(None);
        };
        let blob = self.repo.find_blob(entry.id()).map_err(git_err)?;
        Ok(text_of(blob.content()))
    }
}

/// UTF-8 text, or None for binary (a NUL in the first 8 KiB) or invalid UTF-8.
fn text_of(bytes: &[u8]) -> Option<String> {
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return None;
    }
    String::from_utf8(bytes.to_vec()).ok()
}

#[cfg(any(test, feature = "test-support"))]
pub mod testrepo {
    //! Repositories created with git2 for tests.
    use std::path::Path;

    use git2::{Repository, Signature};

    pub fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Stages every file under the work tree (`git add -A` for adds and edits).
    pub fn add_all(repo: &Repository) {
        let mut idx = repo.index().unwrap();
        idx.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        idx.update_all(["*"].iter(), None).unwrap();
        idx.write().unwrap();
    }

    /// Commits the index on HEAD.
    pub fn commit(repo: &Repository, msg: &str) -> git2::Oid {
        let mut idx = repo.index().unwrap();
        let tree_id = idx.write_tree().unwrap();
        let tree = repo.find_tree(tree_id).unwrap();
        let sig = Signature::now("t", "t@example.com").unwrap();
        let parents: Vec<git2::Commit<'_>> = match repo.head() {
            Ok(h) => vec![h.peel_to_commit().unwrap()],
            Err(_) => vec![],
        };
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &refs)
            .unwrap()
    }

    /// A fresh repository whose first branch is `main`.
    pub fn init(root: &Path) -> Repository {
        let mut o = git2::RepositoryInitOptions::new();
        o.initial_head("main");
        Repository::init_opts(root, &o).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::testrepo::*;
    use super::*;

    #[test]
    fn modes_read_the_right_change_sets() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let repo = init(root);
        write(
            root,
            "a.py",
            "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
        );
        write(root, "b.py", "x = 1\n");
        add_all(&repo);
        commit(&repo, "one");
        let r = Repo::open(root).unwrap();
        assert!(r.changes(DiffMode::Unstaged).unwrap().files.is_empty());
        // Unstaged edit of g (line 6), and a new untracked file.
        write(
            root,
            "a.py",
            "def f():\n    return 1\n\n\ndef g():\n    return 3\n",
        );
        write(root, "c.py", "y = 2\n");
        let cs = r.changes(DiffMode::Unstaged).unwrap();
        let names: Vec<_> = cs
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.status))
            .collect();
        assert_eq!(names, [("a.py", "modified"), ("c.py", "added")]);
        assert_eq!(cs.files[0].new_ranges, [(6, 6)]);
        assert_eq!(cs.files[0].old_ranges, [(6, 6)]);
        assert!(
            cs.files[0]
                .old_text
                .as_deref()
                .unwrap()
                .contains("return 2")
        );
        assert!(
            cs.files[0]
                .new_text
                .as_deref()
                .unwrap()
                .contains("return 3")
        );
        assert!(r.changes(DiffMode::Staged).unwrap().files.is_empty());
        // Stage it: staged mode sees it, unstaged no longer does for a.py.
        add_all(&repo);
        let st = r.changes(DiffMode::Staged).unwrap();
        assert_eq!(st.files.len(), 2);
        assert!(r.changes(DiffMode::Unstaged).unwrap().files.is_empty());
        // Branch mode: commit on a feature branch; compare against main.
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        repo.branch("feature", &head, false).unwrap();
        repo.set_head("refs/heads/feature").unwrap();
        commit(&repo, "two");
        let br = r.changes(DiffMode::Branch).unwrap();
        assert_eq!(br.base.as_ref().unwrap().0, "main");
        assert_eq!(br.files.len(), 2);
        assert_eq!(
            r.file_at(root, "HEAD~1", "a.py").unwrap().unwrap(),
            "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
        );
        assert!(r.file_at(root, "HEAD~1", "c.py").unwrap().is_none());
        assert!(r.file_at(root, "nope", "a.py").is_err());
    }

    #[test]
    fn outside_git_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = Repo::open(dir.path()).err().unwrap();
        assert!(e.to_string().contains("not a git repository"));
    }
}
