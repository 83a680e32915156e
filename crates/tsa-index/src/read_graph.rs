//! Read queries for graph walks: resolved call edges by id sets (one query per
//! frontier, not per node), symbols by id, inheritance, imports and file-level
//! dependencies. Every query takes id batches so a walk costs one round trip per level.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params_from_iter};

use crate::IndexError;
use crate::read::{Index, SYMBOL_COLS, SYMBOL_FROM, SymbolRow, opt_symbol_at, symbol_at};
use crate::resolve::Resolution;

/// Most ids bound in one statement (SQLite allows 32766 variables).
const CHUNK: usize = 4000;

/// One resolved call edge: `caller` calls `target` at `line` of the caller's file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub caller: i64,
    pub target: i64,
    pub line: u32,
    pub resolution: Resolution,
    pub confidence: f64,
    /// Whether the calling definition is test code (test file or test attribute).
    pub caller_is_test: bool,
    /// Whether the called definition is test code.
    pub target_is_test: bool,
}

/// One base of a type: `symbol` extends/implements `base_name` (bound to `target`
/// when the resolver found it).
#[derive(Clone, Debug)]
pub struct InheritRow {
    pub symbol: SymbolRow,
    pub base_name: String,
    /// `extends` or `implements`.
    pub kind: &'static str,
    pub target: Option<SymbolRow>,
    pub resolution: Resolution,
}

/// One import statement of a file, with what it resolved to.
#[derive(Clone, Debug)]
pub struct ImportRow {
    pub file: String,
    pub line: u32,
    pub module: String,
    pub name: Option<String>,
    pub alias: String,
    pub target_file: Option<String>,
    pub target: Option<SymbolRow>,
    pub resolution: Resolution,
}

/// Calls from one file into another, counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDep {
    pub file: String,
    pub calls: u64,
}

fn marks(n: usize) -> String {
    vec!["?"; n].join(",")
}

impl Index {
    fn edges_by(&self, column: &str, ids: &[i64]) -> Result<Vec<Edge>, IndexError> {
        let mut out = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT c.caller_id, c.target_id, c.line, c.resolution, c.confidence, s.is_test, t.is_test
                 FROM calls c JOIN symbols s ON s.id = c.caller_id JOIN symbols t ON t.id = c.target_id
                 WHERE {} AND c.target_id IS NOT NULL AND c.caller_id IS NOT NULL
                 ORDER BY c.{column}, c.file_id, c.line, c.id",
                crate::store::calls_keyed(&format!("c.{column}"), &marks(chunk.len()))
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter()), |r| {
                Ok(Edge {
                    caller: r.get(0)?,
                    target: r.get(1)?,
                    line: r.get(2)?,
                    resolution: Resolution::from_code(r.get(3)?),
                    confidence: r.get(4)?,
                    caller_is_test: r.get(5)?,
                    target_is_test: r.get(6)?,
                })
            })?;
            for row in rows {
                out.push(row?);
            }
        }
        Ok(out)
    }

    /// Resolved call edges leaving any of `callers` (what they call).
    pub fn edges_from(&self, callers: &[i64]) -> Result<Vec<Edge>, IndexError> {
        self.edges_by("caller_id", callers)
    }

    /// Resolved call edges reaching any of `targets` (who calls them).
    pub fn edges_to(&self, targets: &[i64]) -> Result<Vec<Edge>, IndexError> {
        self.edges_by("target_id", targets)
    }

    /// The definitions with these ids (any order; unknown ids are skipped).
    pub fn symbols_by_id(&self, ids: &[i64]) -> Result<HashMap<i64, SymbolRow>, IndexError> {
        let mut out = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT {SYMBOL_COLS} FROM {SYMBOL_FROM} WHERE s.id IN ({})",
                marks(chunk.len())
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter()), |r| symbol_at(r, 0))?;
            for row in rows {
                let row = row?;
                out.insert(row.id, row);
            }
        }
        Ok(out)
    }

    /// The enclosing definition (`contains` parent) of each id that has one.
    pub fn parents_of(&self, ids: &[i64]) -> Result<HashMap<i64, i64>, IndexError> {
        let mut out = HashMap::new();
        for chunk in ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT id, parent_id FROM symbols WHERE id IN ({}) AND parent_id IS NOT NULL",
                marks(chunk.len())
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter()), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
            })?;
            for row in rows {
                let (a, b) = row?;
                out.insert(a, b);
            }
        }
        Ok(out)
    }

    /// Definitions directly inside any of `parents` (methods of a class), in source order.
    pub fn children_of(&self, parents: &[i64]) -> Result<Vec<SymbolRow>, IndexError> {
        let mut out = Vec::new();
        for chunk in parents.chunks(CHUNK) {
            let sql = format!(
                "SELECT {SYMBOL_COLS} FROM {SYMBOL_FROM} WHERE s.parent_id IN ({}) ORDER BY f.path, s.line",
                marks(chunk.len())
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter()), |r| symbol_at(r, 0))?;
            for row in rows {
                out.push(row?);
            }
        }
        Ok(out)
    }

    fn inherits_by(&self, column: &str, ids: &[i64]) -> Result<Vec<InheritRow>, IndexError> {
        let mut out = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT bn.name, i.kind, i.resolution,
                        s.id, n.name, s.kind, s.qualname, o.name, f.path, f.language, s.line, s.end_line, s.signature, s.is_test,
                        t.id, tn.name, t.kind, t.qualname, tow.name, tf.path, tf.language, t.line, t.end_line, t.signature, t.is_test
                 FROM inherits i
                 JOIN names bn ON bn.id = i.base_id
                 JOIN symbols s ON s.id = i.symbol_id
                 JOIN names n ON n.id = s.name_id
                 JOIN files f ON f.id = s.file_id
                 LEFT JOIN names o ON o.id = s.owner_id
                 LEFT JOIN symbols t ON t.id = i.target_id
                 LEFT JOIN names tn ON tn.id = t.name_id
                 LEFT JOIN names tow ON tow.id = t.owner_id
                 LEFT JOIN files tf ON tf.id = t.file_id
                 WHERE i.{column} IN ({})
                 ORDER BY f.path, s.line, i.id",
                marks(chunk.len())
            );
            let mut stmt = self.conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(params_from_iter(chunk.iter()), |r| {
                Ok(InheritRow {
                    base_name: r.get(0)?,
                    kind: if r.get::<_, i64>(1)? == 0 {
                        "extends"
                    } else {
                        "implements"
                    },
                    resolution: Resolution::from_code(r.get(2)?),
                    symbol: symbol_at(r, 3)?,
                    target: opt_symbol_at(r, 14)?,
                })
            })?;
            for row in rows {
                out.push(row?);
            }
        }
        Ok(out)
    }

    /// The bases each of `types` declares (resolved or not).
    pub fn bases_of(&self, types: &[i64]) -> Result<Vec<InheritRow>, IndexError> {
        self.inherits_by("symbol_id", types)
    }

    /// The types that declare any of `types` as a resolved base.
    pub fn subtypes_of(&self, types: &[i64]) -> Result<Vec<InheritRow>, IndexError> {
        self.inherits_by("target_id", types)
    }

    fn imports_where(&self, clause: &str, arg: i64) -> Result<Vec<ImportRow>, IndexError> {
        let sql = format!(
            "SELECT f.path, i.line, i.module, i.name, i.alias, tf.path, i.resolution,
                    t.id, tn.name, t.kind, t.qualname, tow.name, sf.path, sf.language, t.line, t.end_line, t.signature, t.is_test
             FROM imports i
             JOIN files f ON f.id = i.file_id
             LEFT JOIN files tf ON tf.id = i.target_file_id
             LEFT JOIN symbols t ON t.id = i.target_id
             LEFT JOIN names tn ON tn.id = t.name_id
             LEFT JOIN names tow ON tow.id = t.owner_id
             LEFT JOIN files sf ON sf.id = t.file_id
             WHERE {clause} = ?1
             ORDER BY f.path, i.line, i.id"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map([arg], |r| {
            Ok(ImportRow {
                file: r.get(0)?,
                line: r.get(1)?,
                module: r.get(2)?,
                name: r.get(3)?,
                alias: r.get(4)?,
                target_file: r.get(5)?,
                resolution: Resolution::from_code(r.get(6)?),
                target: opt_symbol_at(r, 7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn file_id(&self, path: &str) -> Result<Option<i64>, IndexError> {
        Ok(self
            .conn
            .query_row("SELECT id FROM files WHERE path = ?1", [path], |r| r.get(0))
            .optional()?)
    }

    /// The imports written in `file`, each with its resolved target file/symbol.
    pub fn imports_of_file(&self, file: &str) -> Result<Vec<ImportRow>, IndexError> {
        match self.file_id(file)? {
            Some(id) => self.imports_where("i.file_id", id),
            None => Ok(Vec::new()),
        }
    }

    /// Imports in other files that resolve to `file` (or to a symbol in it).
    pub fn importers_of_file(&self, file: &str) -> Result<Vec<ImportRow>, IndexError> {
        let Some(id) = self.file_id(file)? else {
            return Ok(Vec::new());
        };
        let mut rows = self.imports_where("i.target_file_id", id)?;
        rows.retain(|r| r.file != file);
        Ok(rows)
    }

    /// Imports that resolve to the definition `symbol`.
    pub fn importers_of_symbol(&self, symbol: i64) -> Result<Vec<ImportRow>, IndexError> {
        self.imports_where("i.target_id", symbol)
    }

    /// Files `file` calls into (resolved edges to definitions in other files), and files
    /// whose code calls into `file`; each with its call-site count, most first.
    pub fn file_call_deps(&self, file: &str) -> Result<(Vec<FileDep>, Vec<FileDep>), IndexError> {
        let Some(id) = self.file_id(file)? else {
            return Ok((Vec::new(), Vec::new()));
        };
        let run = |sql: &str| -> Result<Vec<FileDep>, IndexError> {
            let mut stmt = self.conn.prepare_cached(sql)?;
            let rows = stmt.query_map([id], |r| {
                Ok(FileDep {
                    file: r.get(0)?,
                    calls: r.get::<_, i64>(1)? as u64,
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        };
        let outgoing = run("SELECT tf.path, count(*) AS n FROM calls c
             JOIN symbols t ON t.id = c.target_id JOIN files tf ON tf.id = t.file_id
             WHERE c.file_id = ?1 AND c.target_id IS NOT NULL AND t.file_id != ?1
             GROUP BY tf.path ORDER BY n DESC, tf.path")?;
        let incoming = run("SELECT cf.path, count(*) AS n FROM symbols t
             JOIN calls_by_target k ON k.target_id = t.id JOIN calls c ON c.id = k.id
             JOIN files cf ON cf.id = c.file_id
             WHERE t.file_id = ?1 AND c.target_id IS NOT NULL AND c.file_id != ?1
             GROUP BY cf.path ORDER BY n DESC, cf.path")?;
        Ok((outgoing, incoming))
    }
}

#[cfg(test)]
mod tests {
    use crate::{BuildOptions, CallRow, Index, Resolution, build};

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, t).unwrap();
        };
        w("pkg/__init__.py", "");
        w(
            "pkg/a.py",
            "class Base:\n    def run(self):\n        return helper()\n\n\ndef helper():\n    return 1\n",
        );
        w(
            "pkg/b.py",
            "from .a import Base, helper\n\n\nclass Child(Base):\n    def go(self):\n        return helper() + helper()\n",
        );
        w(
            "tests/test_b.py",
            "from pkg.a import helper\n\n\ndef test_helper():\n    assert helper()\n",
        );
        build(dir.path(), &BuildOptions::default()).unwrap();
        dir
    }

    #[test]
    fn callers_of_more_ids_than_one_statement_binds_come_back_whole_and_in_order() {
        let dir = project();
        let index = Index::open(dir.path()).unwrap().unwrap();
        let helper = &index.find_symbols("helper", None, None).unwrap()[0];
        let alone = index.callers(&[helper.id]).unwrap();
        assert_eq!(alone.len(), 4);
        // 40,000 ids, more than SQLite binds in one statement (32,766; most of them no
        // symbol), the real one in a middle chunk.
        let mut ids: Vec<i64> = (1_000_000..1_040_000).collect();
        ids[20_000] = helper.id;
        let many = index.callers(&ids).unwrap();
        let key = |r: &CallRow| (r.file.clone(), r.line, r.callee_name.clone());
        assert_eq!(
            many.iter().map(key).collect::<Vec<_>>(),
            alone.iter().map(key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn graph_queries_answer_by_id_batches() {
        let dir = project();
        let index = Index::open(dir.path()).unwrap().unwrap();
        let helper = &index.find_symbols("helper", None, None).unwrap()[0];
        let go = &index.find_symbols("go", None, None).unwrap()[0];
        let run = &index.find_symbols("run", None, None).unwrap()[0];
        let to = index.edges_to(&[helper.id]).unwrap();
        // Base.run (local), Child.go twice (project), test_helper (test caller).
        assert_eq!(to.len(), 4);
        assert!(to.iter().all(|e| e.target == helper.id));
        let local = to.iter().find(|e| e.caller == run.id).unwrap();
        assert_eq!(local.resolution, Resolution::Local);
        assert_eq!(to.iter().filter(|e| e.caller == go.id).count(), 2);
        assert_eq!(to.iter().filter(|e| e.caller_is_test).count(), 1);
        let from = index.edges_from(&[go.id, run.id]).unwrap();
        assert_eq!(from.len(), 3);
        let syms = index.symbols_by_id(&[helper.id, go.id, 999_999]).unwrap();
        assert_eq!(syms.len(), 2);
        assert_eq!(syms[&go.id].qualname, "Child.go");
        let parents = index.parents_of(&[go.id, helper.id]).unwrap();
        assert_eq!(parents.len(), 1);
        let child_methods = index.children_of(&[parents[&go.id]]).unwrap();
        assert_eq!(child_methods[0].name, "go");
        let child = &index.find_symbols("Child", None, None).unwrap()[0];
        let base = &index.find_symbols("Base", None, None).unwrap()[0];
        let bases = index.bases_of(&[child.id]).unwrap();
        assert_eq!(bases[0].base_name, "Base");
        assert_eq!(bases[0].kind, "extends");
        assert_eq!(bases[0].target.as_ref().map(|t| t.id), Some(base.id));
        let subs = index.subtypes_of(&[base.id]).unwrap();
        assert_eq!(subs[0].symbol.id, child.id);
        let imports = index.imports_of_file("pkg/b.py").unwrap();
        assert!(
            imports
                .iter()
                .all(|i| i.target_file.as_deref() == Some("pkg/a.py"))
        );
        let importers = index.importers_of_file("pkg/a.py").unwrap();
        let files: Vec<&str> = importers.iter().map(|i| i.file.as_str()).collect();
        assert!(files.contains(&"pkg/b.py") && files.contains(&"tests/test_b.py"));
        assert!(!index.importers_of_symbol(helper.id).unwrap().is_empty());
        let (out, inc) = index.file_call_deps("pkg/a.py").unwrap();
        assert!(out.is_empty());
        assert_eq!(inc[0].file, "pkg/b.py");
        assert_eq!(inc[0].calls, 2);
        assert_eq!(
            index.file_call_deps("nope.py").unwrap(),
            (Vec::new(), Vec::new())
        );
    }
}
