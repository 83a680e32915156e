//! Set-at-a-time queries for the selector and chain DSLs: every query takes a whole
//! set of symbol ids (bound as one JSON array through `json_each`) and answers with
//! a set, so an evaluator never loops over symbols issuing one query each.

use rusqlite::params;

use crate::IndexError;
use crate::read::Index;
use crate::resolve::Resolution;
use crate::store::calls_of_callers;

/// The ids of the call sites inside the definitions of the JSON list `?1`.
fn calls_of_json_callers() -> &'static str {
    static SQL: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| calls_of_callers("SELECT value FROM json_each(?1)"));
    &SQL
}

/// One definition in the compact form the DSL evaluators hold in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct DslSymbol {
    pub id: i64,
    pub name: String,
    pub kind: String,
    pub qualname: String,
    /// The containing type's name, if any.
    pub owner: Option<String>,
    /// The containing definition (`contains` edge), if any.
    pub parent: Option<i64>,
    pub file_id: i64,
    pub line: u32,
    pub end_line: u32,
    pub is_test: bool,
}

/// One indexed file.
#[derive(Clone, Debug, PartialEq)]
pub struct DslFile {
    pub id: i64,
    pub path: String,
    pub language: String,
    pub is_test: bool,
}

fn ids_json(ids: &[i64]) -> String {
    let mut s = String::with_capacity(ids.len() * 7 + 2);
    s.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&id.to_string());
    }
    s.push(']');
    s
}

fn strings_json(names: &[String]) -> String {
    let mut s = String::from("[");
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push('"');
        for c in n.chars() {
            match c {
                '"' => s.push_str("\\\""),
                '\\' => s.push_str("\\\\"),
                c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
                c => s.push(c),
            }
        }
        s.push('"');
    }
    s.push(']');
    s
}

impl Index {
    fn id_column(&self, sql: &str, arg: &str) -> Result<Vec<i64>, IndexError> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let rows = stmt.query_map([arg], |r| r.get::<_, i64>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every definition, in file and line order.
    pub fn dsl_symbols(&self) -> Result<Vec<DslSymbol>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT s.id, n.name, s.kind, s.qualname, o.name, s.parent_id, s.file_id, s.line, s.end_line, s.is_test
             FROM symbols s JOIN names n ON n.id = s.name_id LEFT JOIN names o ON o.id = s.owner_id
             ORDER BY s.file_id, s.line, s.id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(DslSymbol {
                id: r.get(0)?,
                name: r.get(1)?,
                kind: r.get(2)?,
                qualname: r.get(3)?,
                owner: r.get(4)?,
                parent: r.get(5)?,
                file_id: r.get(6)?,
                line: r.get(7)?,
                end_line: r.get(8)?,
                is_test: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every indexed file.
    pub fn dsl_files(&self) -> Result<Vec<DslFile>, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, path, language, is_test FROM files ORDER BY path")?;
        let rows = stmt.query_map([], |r| {
            Ok(DslFile {
                id: r.get(0)?,
                path: r.get(1)?,
                language: r.get(2)?,
                is_test: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Definitions with a call site bound (resolved) to any of `targets`.
    pub fn dsl_callers_of(&self, targets: &[i64]) -> Result<Vec<i64>, IndexError> {
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        self.id_column(
            "SELECT DISTINCT caller_id FROM calls WHERE caller_id IS NOT NULL AND id IN
             (SELECT id FROM calls_by_target WHERE target_id IN (SELECT value FROM json_each(?1)))",
            &ids_json(targets),
        )
    }

    /// Definitions with a call site bound to no project definition whose callee name
    /// is one of `names`. `unknown`: `Some(true)` keeps only sites the resolver could
    /// not classify, `Some(false)` only those classified builtin, stdlib or external,
    /// `None` both.
    pub fn dsl_unresolved_callers_of_names(
        &self,
        names: &[String],
        unknown: Option<bool>,
    ) -> Result<Vec<i64>, IndexError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT c.caller_id FROM names n JOIN calls_by_callee k ON k.callee_id = n.id JOIN calls c ON c.id = k.id
             WHERE c.caller_id IS NOT NULL AND c.target_id IS NULL AND (?2 IS NULL OR (c.resolution = ?3) = ?2)
               AND n.name IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map(
            params![strings_json(names), unknown, Resolution::Unknown.code()],
            |r| r.get::<_, i64>(0),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Those of `targets` that some resolved call site inside a branch of `branch`
    /// ([`tsa_lang::BranchKind::code`]) is bound to.
    pub fn dsl_called_in_branch(
        &self,
        targets: &[i64],
        branch: i64,
    ) -> Result<Vec<i64>, IndexError> {
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT target_id FROM calls WHERE branch = ?2 AND id IN
             (SELECT id FROM calls_by_target WHERE target_id IN (SELECT value FROM json_each(?1)))",
        )?;
        let rows = stmt.query_map(params![ids_json(targets), branch], |r| r.get::<_, i64>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Callee names of the unresolved (`unknown`) call sites inside a branch of `branch`.
    pub fn dsl_unresolved_names_in_branch(&self, branch: i64) -> Result<Vec<String>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT n.name FROM calls c JOIN names n ON n.id = c.callee_id
             WHERE c.target_id IS NULL AND c.resolution = ?2 AND c.branch = ?1",
        )?;
        let rows = stmt.query_map(params![branch, Resolution::Unknown.code()], |r| {
            r.get::<_, String>(0)
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many call sites bound to one of `targets` carry no branch (a language
    /// without branch rules, or a macro-generated call).
    pub fn dsl_unbranched_calls_to(&self, targets: &[i64]) -> Result<i64, IndexError> {
        if targets.is_empty() {
            return Ok(0);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT count(*) FROM calls WHERE branch IS NULL AND id IN
             (SELECT id FROM calls_by_target WHERE target_id IN (SELECT value FROM json_each(?1)))",
        )?;
        Ok(stmt.query_row(params![ids_json(targets)], |r| r.get(0))?)
    }

    /// Definitions that call sites inside any of `callers` are bound to.
    pub fn dsl_callees_of(&self, callers: &[i64]) -> Result<Vec<i64>, IndexError> {
        if callers.is_empty() {
            return Ok(Vec::new());
        }
        self.id_column(
            &format!(
                "SELECT DISTINCT target_id FROM calls WHERE target_id IS NOT NULL AND id IN ({})",
                calls_of_json_callers()
            ),
            &ids_json(callers),
        )
    }

    /// Callee names of the unresolved (`unknown`) call sites inside any of `callers`.
    pub fn dsl_unresolved_callee_names(&self, callers: &[i64]) -> Result<Vec<String>, IndexError> {
        if callers.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT DISTINCT n.name FROM calls c JOIN names n ON n.id = c.callee_id
             WHERE c.target_id IS NULL AND c.resolution = ?2 AND c.id IN ({})",
            calls_of_json_callers()
        ))?;
        let rows = stmt.query_map(
            params![ids_json(callers), Resolution::Unknown.code()],
            |r| r.get::<_, String>(0),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Resolved call edges (caller, target) with both ends in `ids`, one per pair.
    pub fn dsl_edges_within(&self, ids: &[i64]) -> Result<Vec<(i64, i64)>, IndexError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT DISTINCT caller_id, target_id FROM calls
             WHERE id IN ({})
               AND target_id IN (SELECT value FROM json_each(?1))
             ORDER BY caller_id, target_id",
            calls_of_json_callers()
        ))?;
        let rows = stmt.query_map([ids_json(ids)], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Resolved call edges (caller, target) touching `ids` on either end.
    pub fn dsl_edges_touching(&self, ids: &[i64]) -> Result<Vec<(i64, i64)>, IndexError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT DISTINCT caller_id, target_id FROM calls
             WHERE caller_id IS NOT NULL AND target_id IS NOT NULL
               AND id IN ({}
                          UNION SELECT id FROM calls_by_target WHERE target_id IN (SELECT value FROM json_each(?1)))
             ORDER BY caller_id, target_id",
            calls_of_json_callers()
        ))?;
        let rows = stmt.query_map([ids_json(ids)], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Types whose inheritance edge (`extends` = kind 0, `implements` = kind 1, any
    /// when `kind` is `None`) is resolved to one of `targets`.
    pub fn dsl_subtypes_of(
        &self,
        targets: &[i64],
        kind: Option<i64>,
    ) -> Result<Vec<i64>, IndexError> {
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT symbol_id FROM inherits
             WHERE target_id IN (SELECT value FROM json_each(?1)) AND (?2 IS NULL OR kind = ?2)",
        )?;
        let rows = stmt.query_map(params![ids_json(targets), kind], |r| r.get::<_, i64>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Types with an inheritance edge bound to no project type that names one of
    /// `names` (`unknown` as in [`Index::dsl_unresolved_callers_of_names`]).
    pub fn dsl_unresolved_subtypes_of_names(
        &self,
        names: &[String],
        kind: Option<i64>,
        unknown: Option<bool>,
    ) -> Result<Vec<i64>, IndexError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT i.symbol_id FROM inherits i JOIN names n ON n.id = i.base_id
             WHERE i.target_id IS NULL AND (?2 IS NULL OR i.kind = ?2)
               AND (?3 IS NULL OR (i.resolution = ?4) = ?3)
               AND n.name IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map(
            params![
                strings_json(names),
                kind,
                unknown,
                Resolution::Unknown.code()
            ],
            |r| r.get::<_, i64>(0),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files with an import whose module (or imported name) contains `fragment`.
    pub fn dsl_files_importing(&self, fragment: &str) -> Result<Vec<i64>, IndexError> {
        self.id_column(
            "SELECT DISTINCT file_id FROM imports
             WHERE instr(module, ?1) > 0 OR instr(module || '.' || coalesce(name, ''), ?1) > 0",
            fragment,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{ids_json, strings_json};

    #[test]
    fn json_arrays_are_well_formed() {
        assert_eq!(ids_json(&[]), "[]");
        assert_eq!(ids_json(&[1, 22]), "[1,22]");
        assert_eq!(
            strings_json(&["a\"b".into(), "c\\".into()]),
            r#"["a\"b","c\\"]"#
        );
    }
}
