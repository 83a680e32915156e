//! The last parses of the files a process synced most recently, kept to parse
//! their next versions incrementally: an agent edits the same few files over and
//! over, and tree-sitter then reads again only around each edit (a third of a
//! one-file sync of a large C file is its parse). At most [`FILES`] parses, of
//! files of at most [`MAX_BYTES`] each: a few megabytes. Any earlier version is a
//! correct start (the edit is found by comparing the bytes), so nothing here is
//! ever stale, only slower to use.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tsa_lang::Prior;

/// Files whose last parse is kept.
const FILES: usize = 8;
/// The largest file whose parse is kept.
const MAX_BYTES: usize = 512 * 1024;

/// (index, project-relative path, its last parse), the most recent first.
static PRIORS: Mutex<VecDeque<(PathBuf, String, Prior)>> = Mutex::new(VecDeque::new());

/// The kept parse of `rel` in the project of index `db`, taken out.
pub(super) fn take(db: &Path, rel: &str) -> Option<Prior> {
    let mut priors = PRIORS.lock().unwrap_or_else(|p| p.into_inner());
    let at = priors.iter().position(|(d, r, _)| r == rel && d == db)?;
    priors.remove(at).map(|(_, _, p)| p)
}

/// Keeps `prior` as the last parse of `rel`, dropping the oldest past [`FILES`].
pub(super) fn keep(db: &Path, rel: &str, prior: Prior) {
    if prior.len() > MAX_BYTES {
        return;
    }
    let mut priors = PRIORS.lock().unwrap_or_else(|p| p.into_inner());
    priors.push_front((db.to_path_buf(), rel.to_owned(), prior));
    priors.truncate(FILES);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_parses_are_per_index_and_file_and_bounded() {
        let lang = tsa_lang::Language::from_name("python").unwrap();
        let parse = |src: &str| {
            tsa_lang::extract_again(lang, src.as_bytes(), None, None)
                .unwrap()
                .1
                .unwrap()
        };
        let (a, b) = (
            Path::new("/tmp/priors-test-a/index.db"),
            Path::new("/tmp/priors-test-b/index.db"),
        );
        keep(a, "m.py", parse("x = 1\n"));
        assert!(take(b, "m.py").is_none(), "another index's file");
        assert!(take(a, "n.py").is_none(), "another file");
        assert_eq!(take(a, "m.py").map(|p| p.len()), Some(6));
        assert!(take(a, "m.py").is_none(), "taken out");
        for i in 0..FILES + 1 {
            keep(b, &format!("f{i}.py"), parse("y = 2\n"));
        }
        assert!(take(b, "f0.py").is_none(), "the oldest went");
        assert!(take(b, &format!("f{FILES}.py")).is_some());
        keep(a, "big.py", parse(&"z = 3\n".repeat(MAX_BYTES / 6 + 1)));
        assert!(take(a, "big.py").is_none(), "too large to keep");
    }
}
