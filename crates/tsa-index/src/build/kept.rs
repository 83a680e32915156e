//! The skeleton of the last model this process built (files, imports, module maps,
//! include graph), kept for the next sync of the same index: a sync of a few files
//! then loads only what it changed instead of every file and import (about 300 ms
//! of a one-file sync on the kernel). A serving process (the MCP server, the
//! watcher) syncs again and again; a one-shot CLI process loads it once.
//!
//! The skeleton belongs to one state of one index: every build that writes or
//! deletes a file row writes a fresh stamp (meta [`STAMP`]) in the same
//! transaction, and a kept skeleton is used only while the index holds the stamp
//! it was kept with, so a change made by another process (or a failed commit)
//! never reaches a model through it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::resolve::Skeleton;

/// The meta key of the stamp.
pub(crate) const STAMP: &str = "skeleton";

/// A skeleton and the index state it belongs to.
pub(crate) struct Kept {
    pub skeleton: Skeleton,
    /// File id -> index into the skeleton's files.
    pub file_idx: Arc<HashMap<i64, usize>>,
}

struct Entry {
    db: PathBuf,
    stamp: String,
    layout: String,
    kept: Kept,
}

/// The skeletons kept: one (the last build's) in a program; in tests, one per
/// index, as the tests of a process build and sync many at once.
static KEPT: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
const KEEP: usize = if cfg!(test) { 64 } else { 1 };

/// A stamp no other write of any process has written.
pub(crate) fn new_stamp() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{nanos:x}-{:x}-{:x}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Takes the kept skeleton if it belongs to `db` as it is now (`stamp`, `layout`);
/// leaves nothing kept either way (a sync keeps its own when it commits).
pub(crate) fn take(db: &Path, stamp: Option<&str>, layout: &str) -> Option<Kept> {
    let mut slot = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let Some(at) = slot.iter().position(|e| e.db == db) else {
        // Another index's: a program keeps none past a build of another project.
        if KEEP == 1 {
            slot.clear();
        }
        return None;
    };
    let e = slot.remove(at);
    let fits = e.db == db && Some(e.stamp.as_str()) == stamp && e.layout == layout;
    #[cfg(test)]
    if fits {
        let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        match taken.iter_mut().find(|(d, _)| d == db) {
            Some((_, n)) => *n += 1,
            None => taken.push((db.to_path_buf(), 1)),
        }
    }
    fits.then_some(e.kept)
}

/// How many syncs of each index started from its kept skeleton (tests).
#[cfg(test)]
static TAKEN: Mutex<Vec<(PathBuf, u64)>> = Mutex::new(Vec::new());

/// How many syncs of the index at `db` started from its kept skeleton (tests).
#[cfg(test)]
pub(crate) fn taken(db: &Path) -> u64 {
    let taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
    taken.iter().find(|(d, _)| d == db).map_or(0, |(_, n)| *n)
}

/// Keeps `kept` as the skeleton of `db` at `stamp` (after the commit that wrote it).
pub(crate) fn keep(db: &Path, stamp: String, layout: &str, kept: Kept) {
    let mut slot = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    slot.retain(|e| e.db != db);
    if slot.len() >= KEEP {
        slot.remove(0);
    }
    slot.push(Entry {
        db: db.to_path_buf(),
        stamp,
        layout: layout.to_owned(),
        kept,
    });
}
