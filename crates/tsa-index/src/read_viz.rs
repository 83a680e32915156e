//! Read queries for pictures: every resolved call edge between definitions.

use crate::IndexError;
use crate::read::Index;
use crate::read_graph::Edge;
use crate::resolve::Resolution;

impl Index {
    /// Every resolved call edge whose caller is a definition, ordered by the
    /// caller's file and line (stable, so capped pictures are reproducible).
    pub fn all_edges(&self) -> Result<Vec<Edge>, IndexError> {
        let mut stmt = self.conn.prepare(
            "SELECT c.caller_id, c.target_id, c.line, c.resolution, c.confidence, s.is_test, t.is_test
             FROM calls c JOIN symbols s ON s.id = c.caller_id JOIN symbols t ON t.id = c.target_id
             WHERE c.target_id IS NOT NULL AND c.caller_id IS NOT NULL
             ORDER BY c.file_id, c.line, c.id",
        )?;
        let rows = stmt.query_map([], |r| {
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
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
