//! Read queries behind the trust of caller-based answers (tsa-tools `trust.rs`):
//! the call sites of a name that the graph neither bound nor ruled out, which
//! languages the index holds, whether a path is indexed, the imports written in
//! package `__init__.py` files, and which indexed files changed on disk since the
//! build (checked for the files named only, never by a walk).

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{OptionalExtension, params_from_iter};

use crate::IndexError;
use crate::confine::{ConfineError, read_confined};
use crate::read::{CallRow, Index};
use crate::resolve::Resolution;

/// Most values bound in one statement.
const CHUNK: usize = 4000;

/// The resolution classes that settle a call site without a target: it goes to the
/// standard library, a builtin or a third-party package, or was bound in the project.
/// A site of any other class (`unknown`, and classes newer than this list) with no
/// target is open: it may call any definition of its name.
const SETTLED: [Resolution; 5] = [
    Resolution::Local,
    Resolution::Project,
    Resolution::Stdlib,
    Resolution::Builtin,
    Resolution::External,
];

/// The SQL condition for an open call site of `calls c`.
fn open_clause() -> String {
    let codes: Vec<String> = SETTLED.iter().map(|r| r.code().to_string()).collect();
    format!(
        "c.target_id IS NULL AND c.resolution NOT IN ({})",
        codes.join(",")
    )
}

/// Open call sites of one name: how many, and how many of them lie in test code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenSites {
    pub total: u64,
    pub in_tests: u64,
}

/// The open call sites of one name (see [`Index::open_call_sites`]).
#[derive(Clone, Debug, Default)]
pub struct OpenCallSites {
    pub counts: OpenSites,
    /// Every file holding one, in path order.
    pub files: Vec<String>,
    /// The first rows, by file and line.
    pub rows: Vec<CallRow>,
}

/// One import written in a package `__init__.py`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageImport {
    /// The `__init__.py` that holds the import.
    pub init_file: String,
    /// The imported name (`None` for a whole-module import).
    pub name: Option<String>,
    /// The file it resolved to, and the definition when it names one.
    pub target_file: Option<String>,
    pub target_id: Option<i64>,
}

fn marks(n: usize) -> String {
    vec!["?"; n].join(",")
}

impl Index {
    /// Call sites named `name` in any of `languages` that no resolution bound or
    /// ruled out: their counts, the files holding them, and the first `cap` of them
    /// by file and line.
    pub fn open_call_sites(
        &self,
        name: &str,
        languages: &[&str],
        cap: usize,
    ) -> Result<OpenCallSites, IndexError> {
        if languages.is_empty() {
            return Ok(OpenCallSites::default());
        }
        let sql = format!(
            "SELECT c.id, COALESCE(s.is_test, f.is_test), f.path FROM names n
             JOIN calls_by_callee k ON k.callee_id = n.id
             JOIN calls c ON c.id = k.id
             JOIN files f ON f.id = c.file_id
             LEFT JOIN symbols s ON s.id = c.caller_id
             WHERE n.name = ? AND {} AND f.language IN ({})
             ORDER BY f.path, c.line, c.id",
            open_clause(),
            marks(languages.len())
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut params: Vec<rusqlite::types::Value> = vec![name.to_owned().into()];
        params.extend(languages.iter().map(|l| (*l).to_owned().into()));
        let rows: Vec<(i64, bool, String)> = stmt
            .query_map(params_from_iter(params.iter()), |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<Result<_, _>>()?;
        let counts = OpenSites {
            total: rows.len() as u64,
            in_tests: rows.iter().filter(|(_, t, _)| *t).count() as u64,
        };
        let mut files: Vec<String> = rows.iter().map(|(_, _, f)| f.clone()).collect();
        files.dedup();
        let ids: Vec<i64> = rows.iter().take(cap).map(|(id, _, _)| *id).collect();
        Ok(OpenCallSites {
            counts,
            files,
            rows: self.calls_where("c.id", &ids)?,
        })
    }

    /// Open call sites (see [`Index::open_call_sites`]) per (name, language), for
    /// every name of `names` that has any: one query per batch of names.
    pub fn open_call_site_counts(
        &self,
        names: &[&str],
    ) -> Result<HashMap<(String, String), OpenSites>, IndexError> {
        let mut out: HashMap<(String, String), OpenSites> = HashMap::new();
        for chunk in names.chunks(CHUNK) {
            let sql = format!(
                "SELECT n.name, f.language, COALESCE(s.is_test, f.is_test), count(*) FROM names n
                 JOIN calls_by_callee k ON k.callee_id = n.id
                 JOIN calls c ON c.id = k.id
                 JOIN files f ON f.id = c.file_id
                 LEFT JOIN symbols s ON s.id = c.caller_id
                 WHERE n.name IN ({}) AND {}
                 GROUP BY n.name, f.language, COALESCE(s.is_test, f.is_test)",
                marks(chunk.len()),
                open_clause()
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter()), |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, i64>(3)? as u64,
                ))
            })?;
            for row in rows {
                let (name, lang, test, n) = row?;
                let e = out.entry((name, lang)).or_default();
                e.total += n;
                if test {
                    e.in_tests += n;
                }
            }
        }
        Ok(out)
    }

    /// The languages of the indexed files.
    pub fn indexed_languages(&self) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT language FROM files ORDER BY language")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether `path` (project-relative) is an indexed file.
    pub fn is_indexed(&self, path: &str) -> Result<bool, IndexError> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM files WHERE path = ?1")?
            .query_row([path], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Every import written in a production `__init__.py` (a package's face: what it
    /// re-exports), with what it resolved to.
    pub fn package_imports(&self) -> Result<Vec<PackageImport>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.path, i.name, tf.path, i.target_id FROM imports i
             JOIN files f ON f.id = i.file_id
             LEFT JOIN files tf ON tf.id = i.target_file_id
             WHERE (f.path = '__init__.py' OR f.path LIKE '%/__init__.py') AND f.is_test = 0
             ORDER BY f.path, i.line, i.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(PackageImport {
                init_file: r.get(0)?,
                name: r.get(1)?,
                target_file: r.get(2)?,
                target_id: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The indexed files among `paths` whose content on disk is no longer what was
    /// indexed (changed, gone, or swapped for a link). Size and mtime equal to the
    /// stored ones mean unchanged; otherwise the BLAKE3 hash of the bytes decides, as
    /// in a build. Paths that are not indexed are left out.
    pub fn changed_on_disk(&self, paths: &[&str]) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT hash, size, mtime_ns FROM files WHERE path = ?1")?;
        let mut out = Vec::new();
        for p in paths {
            let stored: Option<(Vec<u8>, i64, i64)> = stmt
                .query_row([p], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .optional()?;
            let Some((hash, size, mtime)) = stored else {
                continue;
            };
            if !same_content(&self.root, p, &hash, size, mtime) {
                out.push((*p).to_owned());
            }
        }
        Ok(out)
    }
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn same_content(root: &Path, rel: &str, hash: &[u8], size: i64, mtime: i64) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(root.join(rel)) else {
        return false;
    };
    if meta.file_type().is_symlink() {
        return false;
    }
    if meta.len() as i64 == size && mtime_ns(&meta) == mtime {
        return true;
    }
    match read_confined(root, rel) {
        Ok(bytes) => blake3::hash(&bytes).as_bytes()[..] == *hash,
        Err(ConfineError::NotFound(_) | ConfineError::Outside(_) | ConfineError::Io(..)) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildOptions, build};

    #[test]
    fn open_sites_changed_files_and_package_imports() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/__init__.py"), "from .m import f\n").unwrap();
        std::fs::write(
            root.join("pkg/m.py"),
            "def f():\n    return 1\n\n\ndef g(x):\n    return x.f() + f() + len([])\n",
        )
        .unwrap();
        std::fs::write(root.join("test_m.py"), "def test_f(o):\n    o.f()\n").unwrap();
        build(root, &BuildOptions::default()).unwrap();
        let index = Index::open(root).unwrap().unwrap();
        // `x.f()` and `o.f()` are open; `f()` is bound, `len` is a builtin.
        let open = index.open_call_sites("f", &["python"], 1).unwrap();
        assert_eq!(
            open.counts,
            OpenSites {
                total: 2,
                in_tests: 1
            }
        );
        assert_eq!(open.files, ["pkg/m.py", "test_m.py"]);
        assert_eq!(open.rows.len(), 1);
        let len = index.open_call_sites("len", &["python"], 9).unwrap();
        assert_eq!(len.counts.total, 0);
        let counts = index.open_call_site_counts(&["f", "len"]).unwrap();
        assert_eq!(counts.len(), 1);
        assert_eq!(counts[&("f".to_owned(), "python".to_owned())].total, 2);
        assert!(index.is_indexed("pkg/m.py").unwrap());
        assert!(!index.is_indexed("pkg/none.py").unwrap());
        assert_eq!(index.indexed_languages().unwrap(), ["python"]);
        let pkg = index.package_imports().unwrap();
        assert_eq!(pkg.len(), 1);
        assert_eq!(pkg[0].init_file, "pkg/__init__.py");
        assert_eq!(pkg[0].name.as_deref(), Some("f"));
        assert!(pkg[0].target_id.is_some());
        assert!(
            index
                .changed_on_disk(&["pkg/m.py", "test_m.py", "nope.py"])
                .unwrap()
                .is_empty()
        );
        std::fs::write(root.join("pkg/m.py"), "def f():\n    return 2\n").unwrap();
        std::fs::remove_file(root.join("test_m.py")).unwrap();
        assert_eq!(
            index
                .changed_on_disk(&["pkg/m.py", "test_m.py", "pkg/__init__.py"])
                .unwrap(),
            ["pkg/m.py", "test_m.py"]
        );
    }
}
