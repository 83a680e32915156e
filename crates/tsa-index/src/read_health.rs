//! Whole-project loads for the health analyses (dead code, import graph, coupling,
//! test gaps): each is one query that returns every row of its kind, so an analysis
//! holds the graph in memory and walks it there instead of asking per node.

use crate::IndexError;
use crate::read::Index;

/// One definition with what the health analyses need (signature and parent included).
#[derive(Clone, Debug, PartialEq)]
pub struct HealthSymbol {
    pub id: i64,
    pub name_id: i64,
    pub name: String,
    pub kind: String,
    pub qualname: String,
    pub parent: Option<i64>,
    pub file_id: i64,
    pub line: u32,
    pub end_line: u32,
    pub signature: String,
    pub is_test: bool,
}

/// One resolved call edge (`caller` is `None` for module-level code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HealthEdge {
    pub caller: Option<i64>,
    pub target: i64,
    pub file_id: i64,
    pub line: u32,
    /// Interned name of the called identifier.
    pub callee_name_id: i64,
}

/// One import statement, with what it resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HealthImport {
    pub file_id: i64,
    pub line: u32,
    pub module: String,
    pub name: Option<String>,
    pub alias: String,
    pub target_file_id: Option<i64>,
    pub target_id: Option<i64>,
}

/// One declared base of a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HealthBase {
    pub symbol: i64,
    pub base_name: String,
    pub target: Option<i64>,
}

impl Index {
    /// Every definition, in file and line order.
    pub fn health_symbols(&self) -> Result<Vec<HealthSymbol>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT s.id, s.name_id, n.name, s.kind, s.qualname, s.parent_id, s.file_id, s.line, s.end_line, s.signature, s.is_test
             FROM symbols s JOIN names n ON n.id = s.name_id
             ORDER BY s.file_id, s.line, s.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(HealthSymbol {
                id: r.get(0)?,
                name_id: r.get(1)?,
                name: r.get(2)?,
                kind: r.get(3)?,
                qualname: r.get(4)?,
                parent: r.get(5)?,
                file_id: r.get(6)?,
                line: r.get(7)?,
                end_line: r.get(8)?,
                signature: r.get(9)?,
                is_test: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every resolved call edge.
    pub fn health_edges(&self) -> Result<Vec<HealthEdge>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT caller_id, target_id, file_id, line, callee_id FROM calls WHERE target_id IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(HealthEdge {
                caller: r.get(0)?,
                target: r.get(1)?,
                file_id: r.get(2)?,
                line: r.get(3)?,
                callee_name_id: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every import statement.
    pub fn health_imports(&self) -> Result<Vec<HealthImport>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT file_id, line, module, name, alias, target_file_id, target_id FROM imports ORDER BY file_id, line, id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(HealthImport {
                file_id: r.get(0)?,
                line: r.get(1)?,
                module: r.get(2)?,
                name: r.get(3)?,
                alias: r.get(4)?,
                target_file_id: r.get(5)?,
                target_id: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every declared base (`inherits` rows).
    pub fn health_bases(&self) -> Result<Vec<HealthBase>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT i.symbol_id, n.name, i.target_id FROM inherits i JOIN names n ON n.id = i.base_id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(HealthBase {
                symbol: r.get(0)?,
                base_name: r.get(1)?,
                target: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The number of call sites the resolver could not bind, per calling definition.
    pub fn health_unresolved_by_caller(&self) -> Result<Vec<(i64, u64)>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT caller_id, count(*) FROM calls WHERE target_id IS NULL AND caller_id IS NOT NULL GROUP BY caller_id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
