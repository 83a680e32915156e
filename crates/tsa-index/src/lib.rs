//! The on-disk index of one project: walk -> parse in parallel -> extract -> store
//! in one transaction -> resolve calls; and the read queries every action uses.
//!
//! This is the only crate that opens SQLite. It knows nothing about envelopes,
//! MCP or the CLI.

mod build;
mod read;
pub mod resolve;
mod store;
mod walk;

use std::path::Path;

pub use build::{
    BuildMode, BuildOptions, BuildReport, FileStatus, Pending, build, pending_changes,
};
pub use read::{CallRow, Index, Status, SymbolRow};
pub use resolve::Resolution;
pub use store::{identifier_words, index_dir, index_path};
pub use walk::{SKIPPED_DIRS, SourceFile, WalkOptions, WalkResult, relative, walk};

/// Index failures: storage or filesystem.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("index database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("index io: {0}")]
    Io(#[from] std::io::Error),
    #[error("query file: {0}")]
    Extract(#[from] tsa_lang::ExtractError),
}

/// True when `root` holds an index of the current schema.
pub fn exists(root: &Path) -> bool {
    matches!(store::open_for_read(root), Ok(Some(_)))
}
