//! The on-disk index of one project: walk -> parse in parallel -> extract -> store
//! in one transaction -> resolve calls; and the read queries every action uses.
//!
//! This is the only crate that opens SQLite. It knows nothing about envelopes,
//! MCP or the CLI.

mod build;
mod confine;
mod fault;
mod heal;
pub mod layout;
mod read;
mod read_dsl;
mod read_edit;
mod read_graph;
mod read_health;
mod read_scores;
mod read_structure;
mod read_suggest;
mod read_trust;
mod read_viz;
pub mod resolve;
mod scip_import;
mod store;
mod walk;

use std::path::Path;

pub use build::{
    BuildMode, BuildOptions, BuildReport, FileStatus, Pending, Progress, ProgressSink, build,
    import_scip, pending_changes,
};
pub use confine::{ConfineError, confined, read_confined, read_confined_capped};
pub use fault::fails as injected_failure;
pub use heal::{DAMAGED_PREFIX, Quarantined, check_and_quarantine, is_damage};
pub use layout::Layout;
pub use read::{CallRow, Index, Status, SymbolRow};
pub use read_dsl::{DslFile, DslSymbol};
pub use read_edit::{FileCallEdge, FileImportEdge};
pub use read_graph::{Edge, FileDep, ImportRow, InheritRow};
pub use read_health::{HealthBase, HealthEdge, HealthImport, HealthSymbol};
pub use read_scores::{FileFacts, ImportCounts};
pub use read_structure::NestedSymbol;
pub use read_trust::{OpenCallSites, OpenSites, PackageImport};
pub use resolve::Resolution;
pub use scip_import::{DEFAULT_SCIP, ScipReport};
pub use store::{
    SCHEMA_VERSION, identifier_words, index_dir, index_path, lock_builds_within, open_bulk,
    state_path, write_fts_file,
};
pub use tsa_lang::BranchKind;
pub use walk::{
    IgnoreRule, MAX_FILES_GUARD, SKIPPED_DIRS, SourceFile, WalkOptions, WalkResult, is_skipped_dir,
    relative, walk, walk_dirs, walk_paths,
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
    #[error("index busy: another process is reading the index; the new index was not put in place")]
    Busy,
    /// A SCIP file that cannot be read as a SCIP index (corrupt, truncated, not SCIP).
    #[error("SCIP file {0}")]
    Scip(String),
    /// Another build holds the index's build lock past the wait a query allows.
    #[error("the index is being built by another process or call (waited {waited_ms} ms)")]
    Building { waited_ms: u64 },
}

/// SQLite's extended code for a failed write (`SQLITE_IOERR | 3 << 8`).
const SQLITE_IOERR_WRITE: std::ffi::c_int = 10 | (3 << 8);

/// What kind of environment failure an [`IndexError`] is, for a precise hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No space left (or the file size limit reached) where the index lives.
    DiskFull,
    /// The project folder (or its `.tsa`) cannot be written.
    ReadOnly,
    /// Another process holds the index.
    Busy,
    /// The index file is damaged or not a database.
    Corrupt,
    Other,
}

impl IndexError {
    /// The kind of failure, read from the SQLite code or the OS error.
    pub fn fault(&self) -> Fault {
        use rusqlite::ErrorCode as C;
        use std::io::ErrorKind as K;
        match self {
            IndexError::Busy | IndexError::Building { .. } => Fault::Busy,
            IndexError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => match e.code {
                C::DiskFull => Fault::DiskFull,
                // A write refused by a file size limit (EFBIG) is SQLITE_IOERR_WRITE.
                C::SystemIoFailure if e.extended_code == SQLITE_IOERR_WRITE => Fault::DiskFull,
                C::ReadOnly | C::CannotOpen | C::PermissionDenied => Fault::ReadOnly,
                C::DatabaseBusy | C::DatabaseLocked => Fault::Busy,
                C::DatabaseCorrupt | C::NotADatabase => Fault::Corrupt,
                _ => Fault::Other,
            },
            IndexError::Io(e) => match e.kind() {
                K::StorageFull | K::FileTooLarge | K::QuotaExceeded => Fault::DiskFull,
                K::ReadOnlyFilesystem | K::PermissionDenied => Fault::ReadOnly,
                _ => Fault::Other,
            },
            _ => Fault::Other,
        }
    }
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
    // Files went: a skeleton kept of the index before no longer fits it.
    store::set_meta(&tx, build::kept::STAMP, &build::kept::new_stamp())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_read_from_sqlite_codes_and_os_errors() {
        let sqlite = |code: std::ffi::c_int| {
            IndexError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(code),
                None,
            ))
        };
        assert_eq!(sqlite(rusqlite::ffi::SQLITE_FULL).fault(), Fault::DiskFull);
        assert_eq!(sqlite(SQLITE_IOERR_WRITE).fault(), Fault::DiskFull);
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_READONLY).fault(),
            Fault::ReadOnly
        );
        assert_eq!(
            sqlite(rusqlite::ffi::SQLITE_CANTOPEN).fault(),
            Fault::ReadOnly
        );
        assert_eq!(sqlite(rusqlite::ffi::SQLITE_BUSY).fault(), Fault::Busy);
        assert_eq!(sqlite(rusqlite::ffi::SQLITE_NOTADB).fault(), Fault::Corrupt);
        assert_eq!(sqlite(rusqlite::ffi::SQLITE_IOERR).fault(), Fault::Other);
        let io = |k| IndexError::Io(std::io::Error::from(k));
        assert_eq!(io(std::io::ErrorKind::StorageFull).fault(), Fault::DiskFull);
        assert_eq!(
            io(std::io::ErrorKind::ReadOnlyFilesystem).fault(),
            Fault::ReadOnly
        );
        assert_eq!(
            io(std::io::ErrorKind::PermissionDenied).fault(),
            Fault::ReadOnly
        );
        assert_eq!(io(std::io::ErrorKind::NotFound).fault(), Fault::Other);
        assert_eq!(IndexError::Busy.fault(), Fault::Busy);
    }
}
