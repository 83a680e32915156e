//! "Did you mean": defined names close to a name that is not in the index, found
//! through the index (trigrams and word prefixes), never by comparing the input
//! with every name. The work is bounded by the first [`PROBE_CHARS`] characters of
//! the input and by [`CANDIDATES`] rows per lookup, whatever the input's length.

use rusqlite::params;

use crate::IndexError;
use crate::read::Index;
use crate::store::identifier_words;

/// How much of a name the search looks at: its first 64 characters.
pub const PROBE_CHARS: usize = 64;
/// Names each lookup hands to the final ranking.
pub const CANDIDATES: usize = 64;
/// How much of a candidate the final ranking compares.
const COMPARE_CHARS: usize = 128;
/// The lowest Jaro-Winkler similarity a suggestion may have.
const MIN_SCORE: f64 = 0.8;

impl Index {
    /// Up to `n` defined names close to `name`, best first (for NOT_FOUND
    /// suggestions).
    ///
    /// Candidates come from two index lookups on the input's first 64 characters,
    /// at most 64 distinct names each: the trigram index `symbols_trigram` (names
    /// sharing three-character runs with the input, best BM25 first; a typo
    /// anywhere leaves the other runs intact) and the word index `symbols_fts`
    /// (names whose first word starts with the input's first two letters, also
    /// with its first or second pair of letters swapped, closest length first;
    /// catches transpositions in short names, `biuld` -> `build`).
    /// The at most 128 candidates are ranked by Jaro-Winkler on their lower-case
    /// forms. Cost: the postings of at most 62 trigrams and three prefix ranges,
    /// then 128 comparisons of at most 64 x 128 characters; none of it grows with
    /// the input past 64 characters.
    pub fn suggest(&self, name: &str, n: usize) -> Result<Vec<String>, IndexError> {
        let probe: String = name
            .trim()
            .chars()
            .take(PROBE_CHARS)
            .collect::<String>()
            .to_lowercase();
        if probe.is_empty() || n == 0 {
            return Ok(Vec::new());
        }
        let mut candidates = self.trigram_candidates(&probe)?;
        candidates.extend(self.prefix_candidates(&probe)?);
        candidates.sort_unstable();
        candidates.dedup();
        let mut scored: Vec<(f64, String)> = candidates
            .into_iter()
            .filter_map(|cand| {
                let c: String = cand.chars().take(COMPARE_CHARS).collect::<String>();
                let c = c.to_lowercase();
                let mut score = strsim::jaro_winkler(&probe, &c);
                if c.contains(&probe) || probe.contains(&c) {
                    score = score.max(0.85);
                }
                (score >= MIN_SCORE).then_some((score, cand))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        Ok(scored.into_iter().take(n).map(|(_, s)| s).collect())
    }

    /// Names sharing three-character runs with `probe`, best BM25 first.
    fn trigram_candidates(&self, probe: &str) -> Result<Vec<String>, IndexError> {
        let chars: Vec<char> = probe.chars().collect();
        let mut grams: Vec<String> = chars
            .windows(3)
            .map(|w| w.iter().collect::<String>())
            .filter(|g| !g.trim().is_empty())
            .collect();
        grams.sort_unstable();
        grams.dedup();
        if grams.is_empty() {
            return Ok(Vec::new());
        }
        let expr = grams
            .iter()
            .map(|g| format!("\"{}\"", g.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let mut stmt = self.conn.prepare_cached(
            // Materialised: bm25 may only run in the FTS table's own query.
            "WITH t AS MATERIALIZED (
                 SELECT rowid AS id, bm25(symbols_trigram) AS score
                 FROM symbols_trigram WHERE symbols_trigram MATCH ?1)
             SELECT n.name, min(t.score) AS best
             FROM t JOIN symbols s ON s.id = t.id JOIN names n ON n.id = s.name_id
             GROUP BY n.name ORDER BY best, n.name LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![expr, CANDIDATES as i64], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Names whose first word starts with the first two letters of `probe`'s first
    /// word, or with them after swapping its first or second pair of neighbours
    /// (`biuld` -> `bi`, `ib`, `bu`: a swap there breaks every trigram of a short
    /// name), those closest to its length first.
    fn prefix_candidates(&self, probe: &str) -> Result<Vec<String>, IndexError> {
        let words = identifier_words(probe);
        let Some(word) = words.split_whitespace().next() else {
            return Ok(Vec::new());
        };
        let head: Vec<char> = word.chars().take(3).collect();
        let mut prefixes: Vec<String> = vec![head.iter().take(2).collect()];
        for i in 0..head.len().saturating_sub(1) {
            let mut swapped = head.clone();
            swapped.swap(i, i + 1);
            prefixes.push(swapped.iter().take(2).collect());
        }
        prefixes.sort_unstable();
        prefixes.dedup();
        let expr = prefixes
            .iter()
            .map(|p| format!("name : ^ \"{}\" *", p.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let mut stmt = self.conn.prepare_cached(
            "SELECT n.name FROM symbols_fts f
             JOIN symbols s ON s.id = f.rowid JOIN names n ON n.id = s.name_id
             WHERE symbols_fts MATCH ?1
             GROUP BY n.name ORDER BY abs(length(n.name) - ?2), n.name LIMIT ?3",
        )?;
        let rows = stmt.query_map(
            params![expr, probe.chars().count() as i64, CANDIDATES as i64],
            |r| r.get(0),
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use crate::{BuildOptions, Index, build};

    fn index_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        build(dir.path(), &BuildOptions::default()).unwrap();
        let index = Index::open(dir.path()).unwrap().unwrap();
        (dir, index)
    }

    #[test]
    fn suggestions_come_from_the_trigram_and_prefix_indexes() {
        let (_dir, index) = index_of(&[(
            "app.py",
            "def jsonify(x):\n    return x\n\n\ndef build():\n    pass\n\n\n\
             class RequestParser:\n    def parse_headers(self):\n        pass\n\n\n\
             def unrelated_thing():\n    pass\n",
        )]);
        // A typo in the middle, at the start, a transposition, a case change.
        assert_eq!(index.suggest("jsonfy", 5).unwrap()[0], "jsonify");
        assert_eq!(index.suggest("xsonify", 5).unwrap()[0], "jsonify");
        assert_eq!(index.suggest("bulid", 5).unwrap(), ["build"]);
        assert_eq!(index.suggest("biuld", 5).unwrap(), ["build"]);
        assert_eq!(index.suggest("ubild", 5).unwrap(), ["build"]);
        assert_eq!(
            index.suggest("requestparser", 5).unwrap()[0],
            "RequestParser"
        );
        assert_eq!(
            index.suggest("parse_header", 5).unwrap()[0],
            "parse_headers"
        );
        assert!(index.suggest("zzzzqqq", 5).unwrap().is_empty());
        assert!(index.suggest("", 5).unwrap().is_empty());
        assert!(index.suggest("  ", 5).unwrap().is_empty());
        // Quotes, FTS operators and lone letters are plain text.
        for odd in ["\"", "a\"b\"c", "NOT x", "*", "^", "j", "(a OR b)", "名前"] {
            index.suggest(odd, 5).unwrap();
        }
    }

    #[test]
    fn a_long_input_costs_what_its_first_64_characters_cost() {
        let (_dir, index) = index_of(&[("app.py", "def jsonify(x):\n    return x\n")]);
        let long = format!("jsonify{}", "q".repeat(1_000_000));
        let started = std::time::Instant::now();
        index.suggest(&long, 5).unwrap();
        // Generous for a debug build on a loaded machine; a scan of the input
        // would take far longer than this.
        assert!(started.elapsed() < std::time::Duration::from_millis(500));
    }
}
