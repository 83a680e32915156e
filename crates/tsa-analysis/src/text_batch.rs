//! Several text searches in one call (the engine of `search batch`), and the one
//! way a text match is listed (`MatchRow`, shared with `search content` and
//! `grep`): each search's exact total and first rows, under one deadline.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::ToolError;
use crate::text_search::{FileFilter, Limits, MatchSpec, Row, search};

/// Longest match line listed (bytes); longer lines are cut.
const MAX_TEXT: usize = 1000;

fn clip(text: &str) -> (String, bool) {
    if text.len() <= MAX_TEXT {
        return (text.to_owned(), false);
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_owned(), true)
}

/// The byte ranges of a row's matches as one string (`16-21 58-63`), so rows keep
/// primitive values (one TOON table).
pub fn ranges_text(matches: &[[usize; 2]]) -> String {
    matches
        .iter()
        .map(|[a, b]| format!("{a}-{b}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One match as listed: `file`, `line`, `text`, `matches` (byte ranges in `text`,
/// `start-end` separated by spaces), `text_truncated`, context when asked.
#[derive(Clone, Debug, Serialize)]
pub struct MatchRow {
    /// Project-relative file.
    pub file: String,
    /// 1-based line.
    pub line: u64,
    /// The line (cut at 1000 bytes).
    pub text: String,
    /// Byte ranges of the matches in `text`.
    pub matches: String,
    /// Whether `text` was cut.
    pub text_truncated: bool,
    /// Lines before, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_before: Option<Vec<String>>,
    /// Lines after, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_after: Option<Vec<String>>,
}

impl MatchRow {
    /// The row of match `r` of `file`.
    pub fn of(file: &str, r: &Row) -> Self {
        let (text, cut) = clip(&r.text);
        MatchRow {
            file: file.to_owned(),
            line: r.line,
            text,
            matches: ranges_text(&r.matches),
            text_truncated: cut,
            context_before: (!r.before.is_empty()).then(|| r.before.clone()),
            context_after: (!r.after.is_empty()).then(|| r.after.clone()),
        }
    }
}

/// One search of a batch, checked.
#[derive(Clone, Debug)]
pub struct BatchSearch {
    /// Its label (given, or `q<n>`).
    pub label: String,
    /// What to match.
    pub spec: MatchSpec,
    /// Where to look.
    pub filter: FileFilter,
    /// Most rows to list.
    pub cap: usize,
}

/// A listed match of a batch.
#[derive(Clone, Debug, Serialize)]
pub struct BatchRow {
    /// The match.
    #[serde(flatten)]
    pub row: MatchRow,
    /// The label of its search.
    pub label: String,
    /// The index of its search.
    pub query_index: usize,
}

/// What one search of a batch found.
#[derive(Clone, Debug, Serialize)]
pub struct SearchSummary {
    /// Its label.
    pub label: String,
    /// Its pattern.
    pub pattern: String,
    /// Whether it matched case exactly.
    pub case_sensitive: bool,
    /// Every match counted.
    pub total_matches: usize,
    /// Rows listed.
    pub count: usize,
    /// Its row cap.
    pub listed_cap: usize,
    /// Whether rows were left out.
    pub truncated: bool,
    /// Files with a match.
    pub file_count: usize,
    /// False when the deadline stopped it.
    pub total_count_known: bool,
    /// Its duration.
    pub elapsed_ms: u64,
    /// With total_count_known=false: the total is at least this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_count_at_least: Option<usize>,
}

/// What a batch found.
#[derive(Clone, Debug, Default)]
pub struct BatchReport {
    /// One per search, in order.
    pub summaries: Vec<SearchSummary>,
    /// The listed rows of every search, in order.
    pub rows: Vec<BatchRow>,
    /// Matches over all searches.
    pub grand_total: usize,
    /// The sum of the row caps.
    pub cap_sum: usize,
    /// Some search left rows out.
    pub any_truncated: bool,
    /// Every total is exact.
    pub all_known: bool,
}

/// Runs `searches` in order under one `deadline`; a search's validation error
/// names it (`queries[i] ('label'): ...`).
pub fn run_batch(
    root: &Path,
    searches: &[BatchSearch],
    deadline: Instant,
) -> Result<BatchReport, ToolError> {
    let mut r = BatchReport {
        all_known: true,
        ..BatchReport::default()
    };
    for (i, q) in searches.iter().enumerate() {
        let out = search(
            root,
            &q.filter,
            &q.spec,
            Limits {
                rows_per_file: q.cap,
                deadline,
                file_limit: None,
            },
        )
        .map_err(|e| match e {
            ToolError::Validation(m) => {
                ToolError::Validation(format!("queries[{i}] ('{}'): {m}", q.label))
            }
            other => other,
        })?;
        let listed: Vec<BatchRow> = out
            .files
            .iter()
            .flat_map(|f| f.rows.iter().map(move |row| (f, row)))
            .take(q.cap)
            .map(|(f, row)| BatchRow {
                row: MatchRow::of(&f.file, row),
                label: q.label.clone(),
                query_index: i,
            })
            .collect();
        let truncated = out.total > listed.len();
        r.any_truncated |= truncated;
        r.all_known &= !out.timed_out;
        r.grand_total += out.total;
        r.cap_sum += q.cap;
        r.summaries.push(SearchSummary {
            label: q.label.clone(),
            pattern: q.spec.pattern.clone(),
            case_sensitive: q.spec.case_sensitive(),
            total_matches: out.total,
            count: listed.len(),
            listed_cap: q.cap,
            truncated,
            file_count: out.files.len(),
            total_count_known: !out.timed_out,
            elapsed_ms: out.elapsed_ms,
            total_count_at_least: out.timed_out.then_some(out.total),
        });
        r.rows.extend(listed);
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rows_are_cut_and_ranged() {
        let row = Row {
            line: 3,
            text: "x".repeat(1200),
            matches: vec![[0, 1], [5, 6]],
            before: Vec::new(),
            after: vec!["next".into()],
        };
        let m = MatchRow::of("a.py", &row);
        assert_eq!(m.text.len(), 1000);
        assert!(m.text_truncated);
        assert_eq!(m.matches, "0-1 5-6");
        assert!(m.context_before.is_none());
        assert_eq!(m.context_after.as_deref(), Some(&["next".to_owned()][..]));
    }

    #[test]
    fn a_batch_counts_every_search() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "build\nbuild()\nhelper\n").unwrap();
        let search = |label: &str, pattern: &str, cap: usize| BatchSearch {
            label: label.into(),
            spec: MatchSpec::new(pattern),
            filter: FileFilter::default(),
            cap,
        };
        let r = run_batch(
            dir.path(),
            &[search("b", "build", 1), search("z", "zzq", 5)],
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(r.grand_total, 2);
        assert_eq!(r.cap_sum, 6);
        assert!(r.any_truncated && r.all_known);
        assert_eq!(r.rows.len(), 1);
        assert_eq!(r.rows[0].label, "b");
        assert_eq!(r.summaries[1].total_matches, 0);
    }
}
