//! Read queries for health scoring: every file with its content hash and stat, and
//! the file-level import graph in one pass (fan-in / fan-out / non-stdlib imports).

use std::collections::HashMap;

use crate::IndexError;
use crate::read::Index;
use crate::resolve::Resolution;

/// One indexed file as health scoring sees it.
#[derive(Clone, Debug)]
pub struct FileFacts {
    pub path: String,
    pub language: String,
    /// BLAKE3 of the raw bytes when indexed.
    pub hash: Vec<u8>,
    pub size: u64,
    pub mtime_ns: i64,
    pub parse_errors: u32,
    pub is_test: bool,
    /// What the build's facts hook measured from the same parse, if one ran.
    pub facts: Option<String>,
}

/// File-level import counts of one file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportCounts {
    /// Distinct project files this file imports.
    pub fan_out: u32,
    /// Distinct project files importing this file.
    pub fan_in: u32,
    /// Distinct imported modules not classed stdlib or builtin.
    pub non_stdlib: u32,
}

impl Index {
    /// Every indexed file, ordered by path.
    pub fn file_facts(&self) -> Result<Vec<FileFacts>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT path, language, hash, size, mtime_ns, parse_errors, is_test, facts FROM files ORDER BY path",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(FileFacts {
                path: r.get(0)?,
                language: r.get(1)?,
                hash: r.get(2)?,
                size: r.get::<_, i64>(3)? as u64,
                mtime_ns: r.get(4)?,
                parse_errors: r.get::<_, i64>(5)? as u32,
                is_test: r.get(6)?,
                facts: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Import counts of every file that imports or is imported (absent = all zero).
    pub fn import_counts(&self) -> Result<HashMap<String, ImportCounts>, IndexError> {
        let mut out: HashMap<String, ImportCounts> = HashMap::new();
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT f.path, tf.path FROM imports i
             JOIN files f ON f.id = i.file_id JOIN files tf ON tf.id = i.target_file_id
             WHERE i.target_file_id IS NOT NULL AND i.target_file_id != i.file_id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (from, to) = row?;
            out.entry(from).or_default().fan_out += 1;
            out.entry(to).or_default().fan_in += 1;
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.path, count(DISTINCT i.module) FROM imports i JOIN files f ON f.id = i.file_id
             WHERE i.resolution NOT IN (?1, ?2) GROUP BY f.path",
        )?;
        let rows = stmt.query_map(
            [Resolution::Stdlib.code(), Resolution::Builtin.code()],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
        )?;
        for row in rows {
            let (path, n) = row?;
            out.entry(path).or_default().non_stdlib = n as u32;
        }
        Ok(out)
    }
}
