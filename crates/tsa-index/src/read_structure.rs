//! Read queries for the `structure` actions: symbols and files under a directory,
//! every declared base (for inheritance summaries) and the members of a type
//! (methods declared in the type, in `impl` blocks, or outside it with an owner).

use rusqlite::params_from_iter;

use crate::IndexError;
use crate::read::{Index, SYMBOL_COLS, SYMBOL_FROM, SymbolRow, symbol_at};
use crate::read_graph::InheritRow;

/// A symbol with its enclosing definition's id (`None` at top level).
#[derive(Clone, Debug)]
pub struct NestedSymbol {
    pub symbol: SymbolRow,
    pub parent: Option<i64>,
}

/// `path = prefix OR path LIKE 'prefix/%'` (every file for an empty prefix).
fn under(prefix: &str, args: &mut Vec<String>) -> String {
    if prefix.is_empty() {
        return "1".into();
    }
    args.push(prefix.to_owned());
    let a = args.len();
    args.push(format!(
        "{}/%",
        prefix
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    ));
    let b = args.len();
    format!("(f.path = ?{a} OR f.path LIKE ?{b} ESCAPE '\\')")
}

impl Index {
    /// Indexed files (path, language) under `prefix`, optionally of one language.
    pub fn files_under(
        &self,
        prefix: &str,
        language: Option<&str>,
    ) -> Result<Vec<(String, String)>, IndexError> {
        let mut args = Vec::new();
        let mut sql = format!(
            "SELECT f.path, f.language FROM files f WHERE {}",
            under(prefix, &mut args)
        );
        if let Some(l) = language {
            args.push(l.to_owned());
            sql.push_str(&format!(" AND f.language = ?{}", args.len()));
        }
        sql.push_str(" ORDER BY f.path");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every definition under `prefix` in file and source order, with its parent id.
    pub fn symbols_under(
        &self,
        prefix: &str,
        language: Option<&str>,
    ) -> Result<Vec<NestedSymbol>, IndexError> {
        let mut args = Vec::new();
        let mut sql = format!(
            "SELECT {SYMBOL_COLS}, s.parent_id FROM {SYMBOL_FROM} WHERE {}",
            under(prefix, &mut args)
        );
        if let Some(l) = language {
            args.push(l.to_owned());
            sql.push_str(&format!(" AND f.language = ?{}", args.len()));
        }
        sql.push_str(" ORDER BY f.path, s.line, s.id");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args.iter()), |r| {
            Ok(NestedSymbol {
                symbol: symbol_at(r, 0)?,
                parent: r.get(11)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every declared base in the project (resolved or not).
    pub fn all_bases(&self) -> Result<Vec<InheritRow>, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT symbol_id FROM inherits ORDER BY symbol_id")?;
        let ids: Vec<i64> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        self.bases_of(&ids)
    }

    /// The members of a type: definitions nested in it, and same-language definitions
    /// owned by its name that sit at top level or in an `impl` block (Go receivers,
    /// Rust impls), in file and source order.
    pub fn members_of(&self, ty: &SymbolRow) -> Result<Vec<SymbolRow>, IndexError> {
        let sql = format!(
            "SELECT {SYMBOL_COLS} FROM {SYMBOL_FROM} LEFT JOIN symbols p ON p.id = s.parent_id
             WHERE s.id <> ?1 AND (s.parent_id = ?1
                OR (o.name = ?2 AND f.language = ?3 AND s.kind <> 'impl'
                    AND (s.parent_id IS NULL OR p.kind = 'impl')))
             ORDER BY f.path <> ?4, f.path, s.line, s.id"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(
            rusqlite::params![ty.id, ty.name, ty.language, ty.file],
            |r| symbol_at(r, 0),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl Index {
    /// Declared bases named `base` that the resolver could not bind (a type whose
    /// base is written `Shape` while `Shape` was not placed): candidates for a
    /// name-only subtype answer, to be labelled as such.
    pub fn unresolved_subtypes_named(&self, base: &str) -> Result<Vec<InheritRow>, IndexError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT i.symbol_id FROM inherits i JOIN names bn ON bn.id = i.base_id
             WHERE bn.name = ?1 AND i.target_id IS NULL",
        )?;
        let ids: Vec<i64> = stmt
            .query_map([base], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(self
            .bases_of(&ids)?
            .into_iter()
            .filter(|r| r.target.is_none() && r.base_name == base)
            .collect())
    }
}
