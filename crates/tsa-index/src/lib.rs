//! The on-disk index of one project: walk -> parse in parallel -> extract -> store
//! in one transaction -> resolve calls; and the read queries every action uses.
//!
//! This is the only crate that opens SQLite. It knows nothing about envelopes,
//! MCP or the CLI.

mod build;
mod read;
mod read_dsl;
mod read_edit;
mod read_graph;
mod read_health;
mod read_scores;
mod read_structure;
mod read_viz;
pub mod resolve;
mod store;
mod walk;

use std::path::Path;

pub use build::{
    BuildMode, BuildOptions, BuildReport, FileStatus, Pending, Progress, ProgressSink, build,
    pending_changes,
};
pub use read::{CallRow, Index, Status, SymbolRow};
pub use read_dsl::{DslFile, DslSymbol};
pub use read_edit::{FileCallEdge, FileImportEdge};
pub use read_graph::{Edge, FileDep, ImportRow, InheritRow};
pub use read_health::{HealthBase, HealthEdge, HealthImport, HealthSymbol};
pub use read_scores::{FileFacts, ImportCounts};
pub use read_structure::NestedSymbol;
pub use resolve::Resolution;
pub use store::{SCHEMA_VERSION, identifier_words, index_dir, index_path, state_path};
pub use walk::{
    SKIPPED_DIRS, SourceFile, WalkOptions, WalkResult, is_skipped_dir, relative, walk, walk_dirs,
};

/// Index failures: storage or filesystem.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("index database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("index io: {0}")]
    Io(#[from] std::io::Error),
    #[error("query file: {0}")]
    Extract(#[from] tsa_lang::ExtractError),
    /// The index folder (or a file in it) is a symlink, so writing it could leave
    /// the project.
    #[error("refusing to use the index: {0}")]
    Unsafe(String),
}

/// Stores a note (e.g. architecture notes) in the index of `root`.
pub fn set_note(root: &Path, key: &str, value: &str) -> Result<(), IndexError> {
    let mut conn = store::open_for_write(root)?;
    let tx = conn.transaction()?;
    store::set_meta(&tx, &format!("note:{key}"), value)?;
    tx.commit()?;
    Ok(())
}

/// Drops the rows of one file (or of every file) so the next sync re-parses it.
/// Returns how many files were dropped.
pub fn invalidate(root: &Path, file: Option<&str>) -> Result<usize, IndexError> {
    if read::Index::open(root)?.is_none() {
        return Ok(0);
    }
    let mut conn = store::open_for_write(root)?;
    let tx = conn.transaction()?;
    let paths: Vec<String> = match file {
        Some(f) => vec![f.to_owned()],
        None => {
            let mut stmt = tx.prepare("SELECT path FROM files")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            rows.collect::<Result<_, _>>()?
        }
    };
    let mut w = store::Writer::new(&tx);
    let mut n = 0;
    for p in &paths {
        if w.delete_file(p)?.is_some() {
            n += 1;
        }
    }
    drop(w);
    tx.commit()?;
    Ok(n)
}

/// True when `root` holds an index of the current schema.
pub fn exists(root: &Path) -> bool {
    matches!(store::open_for_read(root), Ok(Some(_)))
}

/// The version of the SQLite library compiled in.
pub fn sqlite_version() -> &'static str {
    rusqlite::version()
}
