//! Read queries for the `edit` actions: every cross-file resolved call edge and
//! every resolved file import, each in one query (architectural constraints and the
//! dependents of a change set walk them in memory).

use crate::IndexError;
use crate::read::Index;

/// One resolved call from a definition in one file to a definition in another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCallEdge {
    pub caller_file: String,
    /// Qualified name of the calling definition (`<module>` for top-level code).
    pub caller_name: String,
    pub line: u32,
    pub callee_file: String,
    pub callee_name: String,
}

/// One resolved import: `file` imports (something in) `target_file`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileImportEdge {
    pub file: String,
    pub line: u32,
    pub module: String,
    pub target_file: String,
}

impl Index {
    /// Every resolved call edge whose caller and callee live in different files.
    pub fn cross_file_calls(&self) -> Result<Vec<FileCallEdge>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT cf.path, s.qualname, c.line, tf.path, t.qualname
             FROM calls c
             JOIN files cf ON cf.id = c.file_id
             JOIN symbols t ON t.id = c.target_id
             JOIN files tf ON tf.id = t.file_id
             LEFT JOIN symbols s ON s.id = c.caller_id
             WHERE c.target_id IS NOT NULL AND t.file_id != c.file_id
             ORDER BY cf.path, c.line, c.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(FileCallEdge {
                caller_file: r.get(0)?,
                caller_name: r
                    .get::<_, Option<String>>(1)?
                    .unwrap_or_else(|| "<module>".to_owned()),
                line: r.get(2)?,
                callee_file: r.get(3)?,
                callee_name: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every import resolved to another file of the project.
    pub fn file_imports(&self) -> Result<Vec<FileImportEdge>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.path, i.line, i.module, tf.path
             FROM imports i
             JOIN files f ON f.id = i.file_id
             JOIN files tf ON tf.id = i.target_file_id
             WHERE i.target_file_id IS NOT NULL AND i.target_file_id != i.file_id
             ORDER BY f.path, i.line, i.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(FileImportEdge {
                file: r.get(0)?,
                line: r.get(1)?,
                module: r.get(2)?,
                target_file: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether the index holds any resolved call edge.
    pub fn has_resolved_calls(&self) -> Result<bool, IndexError> {
        Ok(self
            .conn
            .query_row("SELECT EXISTS(SELECT 1 FROM calls_by_target)", [], |r| {
                r.get(0)
            })?)
    }
}
