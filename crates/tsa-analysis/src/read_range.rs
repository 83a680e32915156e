//! Exact line ranges of project files (the engine of `structure read`): a file read
//! inside the root (source of a known language, or plain text), a 1-based inclusive
//! range checked against its line count (refused, never clamped silently, unless
//! the caller allows truncation), optional 0-based columns, and the batch form over
//! several files and sections with per-section errors.

use std::path::{Path, PathBuf};

use serde::Serialize;
use tsa_lang::Language;

use crate::ToolError;
use crate::security::{read_in_root, resolve_in_root};

/// Reads `input` inside the project root: exists, is a file, not binary, UTF-8,
/// of a known language (by extension, or `language` when given). Returns the
/// absolute path, the project-relative one, the language and the text.
pub fn read_text(
    root: &Path,
    input: &str,
    language: Option<Language>,
) -> Result<(PathBuf, String, Language, String), ToolError> {
    let (abs, rel) = resolve_in_root(root, input)?;
    if !abs.exists() {
        return Err(ToolError::NotFound(rel));
    }
    if abs.is_dir() {
        return Err(ToolError::Validation(format!(
            "file_path must be a file, got directory '{rel}'"
        )));
    }
    let lang = match language.or_else(|| Language::from_path(&rel)) {
        Some(l) => l,
        None => return Err(ToolError::Language(rel)),
    };
    let bytes = read_in_root(root, &rel)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary(rel));
    }
    let text = String::from_utf8(bytes).map_err(|_| ToolError::Encoding(rel.clone()))?;
    Ok((abs, rel, lang, text))
}

/// A file read for its lines.
#[derive(Clone, Debug)]
pub struct SourceText {
    /// Project-relative path.
    pub rel: String,
    /// Its language; `None` for plain text (no grammar).
    pub lang: Option<Language>,
    /// Its text.
    pub text: String,
}

/// A file with no grammar (plain text): same checks, no language.
fn read_plain(root: &Path, input: &str) -> Result<SourceText, ToolError> {
    let (_, rel) = resolve_in_root(root, input)?;
    let bytes = read_in_root(root, &rel)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary(rel));
    }
    let text = String::from_utf8(bytes).map_err(|_| ToolError::Encoding(rel.clone()))?;
    Ok(SourceText {
        rel,
        lang: None,
        text,
    })
}

/// Reads a source file of a known language, or else a plain text file.
pub fn read_any(root: &Path, input: &str) -> Result<SourceText, ToolError> {
    match read_text(root, input, None) {
        Ok((_, rel, lang, text)) => Ok(SourceText {
            rel,
            lang: Some(lang),
            text,
        }),
        Err(ToolError::Language(_)) => read_plain(root, input),
        Err(e) => Err(e),
    }
}

/// A checked, 1-based inclusive line range of a file with `count` lines, and the
/// warning of a truncated end.
pub fn check_range(
    rel: &str,
    count: usize,
    start: i64,
    end: Option<i64>,
    allow_truncate: bool,
) -> Result<(usize, usize, Option<String>), ToolError> {
    let count_i = count as i64;
    if start < 1 {
        return Err(ToolError::Validation(format!(
            "start_line must be >= 1 (lines are 1-based), got {start}; {rel} has {count} lines"
        )));
    }
    if start > count_i {
        return Err(ToolError::Validation(format!(
            "start_line {start} is past the end of {rel}, which has {count} lines"
        )));
    }
    let end = end.unwrap_or(count_i);
    if end < start {
        return Err(ToolError::Validation(format!(
            "end_line {end} is before start_line {start} ({rel} has {count} lines)"
        )));
    }
    if end > count_i {
        if allow_truncate {
            return Ok((
                start as usize,
                count,
                Some(format!(
                    "end_line {end} is past the end of {rel} ({count} lines): read to line {count} (allow_truncate)"
                )),
            ));
        }
        return Err(ToolError::Validation(format!(
            "end_line {end} is past the end of {rel}, which has {count} lines; pass end_line <= {count} or allow_truncate=true"
        )));
    }
    Ok((start as usize, end as usize, None))
}

fn char_slice(s: &str, from: usize, to: Option<usize>) -> String {
    let chars = s.chars().skip(from);
    match to {
        Some(t) => chars.take(t.saturating_sub(from)).collect(),
        None => chars.collect(),
    }
}

/// The asked range: 1-based lines, optional 0-based columns.
#[derive(Clone, Copy, Debug)]
pub struct Range {
    /// First line.
    pub start: i64,
    /// Last line, inclusive (default: the end of the file).
    pub end: Option<i64>,
    /// Column the first line starts at.
    pub start_column: Option<i64>,
    /// Column (exclusive) the last line ends at.
    pub end_column: Option<i64>,
    /// Clamp an end past the end of the file (with a warning).
    pub allow_truncate: bool,
}

/// The lines of one range.
#[derive(Clone, Debug)]
pub struct RangeRead {
    /// Project-relative path.
    pub rel: String,
    /// Its language; `None` for plain text.
    pub lang: Option<Language>,
    /// Lines in the file.
    pub total_lines: usize,
    /// First line read.
    pub first: usize,
    /// Last line read.
    pub last: usize,
    /// The lines, cut at the columns.
    pub lines: Vec<String>,
    /// The warning of a clamped end.
    pub clamp: Option<String>,
}

fn check_columns(
    r: &Range,
    rel: &str,
    all: &[&str],
    read: &mut RangeRead,
) -> Result<(), ToolError> {
    for (name, v) in [
        ("start_column", r.start_column),
        ("end_column", r.end_column),
    ] {
        if let Some(c) = v
            && c < 0
        {
            return Err(ToolError::Validation(format!(
                "{name} must be >= 0 (columns are 0-based), got {c}"
            )));
        }
    }
    let (first, last) = (read.first, read.last);
    if let Some(ec) = r.end_column {
        let width = read.lines.last().map(|l| l.chars().count()).unwrap_or(0);
        if ec as usize > width {
            return Err(ToolError::Validation(format!(
                "end_column {ec} is past the end of line {last} of {rel}, which has {width} characters"
            )));
        }
        if first == last && r.start_column.is_some_and(|sc| sc > ec) {
            return Err(ToolError::Validation(format!(
                "end_column {ec} is before start_column {} on line {first}",
                r.start_column.unwrap_or(0)
            )));
        }
        if let Some(l) = read.lines.last_mut() {
            *l = char_slice(l, 0, Some(ec as usize));
        }
    }
    if let Some(sc) = r.start_column {
        let width = all[first - 1].chars().count();
        if sc as usize > width {
            return Err(ToolError::Validation(format!(
                "start_column {sc} is past the end of line {first} of {rel}, which has {width} characters"
            )));
        }
        if let Some(l) = read.lines.first_mut() {
            *l = char_slice(l, sc as usize, None);
        }
    }
    Ok(())
}

/// Reads one range of `file` (a source or plain text file inside `root`).
pub fn read_range(root: &Path, file: &str, r: &Range) -> Result<RangeRead, ToolError> {
    let SourceText { rel, lang, text } = read_any(root, file)?;
    let all: Vec<&str> = text.lines().collect();
    let count = all.len();
    if count == 0 {
        return Err(ToolError::Validation(format!(
            "{rel} is empty (0 lines): there is no line {} to read",
            r.start
        )));
    }
    let (first, last, clamp) = check_range(&rel, count, r.start, r.end, r.allow_truncate)?;
    let mut read = RangeRead {
        lines: all[first - 1..last]
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        rel: String::new(),
        lang,
        total_lines: count,
        first,
        last,
        clamp,
    };
    check_columns(r, &rel, &all, &mut read)?;
    read.rel = rel;
    Ok(read)
}

/// One section of a batch, read.
#[derive(Clone, Debug, Serialize)]
pub struct SectionRead {
    /// Project-relative path.
    pub file_path: String,
    /// First line.
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
    /// Lines in the range.
    pub line_count: usize,
    /// The lines, joined.
    pub content: String,
    /// Present (true) when the batch's line budget cut the content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_truncated: Option<bool>,
    /// With content_truncated: the lines shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_shown: Option<usize>,
    /// The warning of a clamped end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// One section of a batch that could not be read.
#[derive(Clone, Debug, Serialize)]
pub struct SectionError {
    /// The path as asked.
    pub file_path: String,
    /// The first line as asked.
    pub start_line: Option<i64>,
    /// The last line as asked.
    pub end_line: Option<i64>,
    /// Why it could not be read.
    pub error: String,
}

/// One section of a batch.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Section {
    /// Read.
    Read(SectionRead),
    /// Refused.
    Failed(SectionError),
}

/// A batch of sections over several files.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Every section, in request order.
    pub sections: Vec<Section>,
    /// Sections that could not be read.
    pub failed: usize,
}

/// One file of a batch and its sections (`(start, end)` each, parsed by `bounds`
/// when the loop reaches it, so a bad bound stops the batch where it stands).
pub struct BatchFile<'a, S> {
    /// The path as asked.
    pub file_path: &'a str,
    /// The sections as asked.
    pub sections: &'a [S],
}

type Bounds = (Option<i64>, Option<i64>);

/// Reads every section of every file; a bad file or range is an error row (or,
/// with `fail_fast`, the error of the whole batch). At most `max_lines` lines over
/// all sections are kept.
pub fn read_batch<S>(
    root: &Path,
    files: &[BatchFile<'_, S>],
    bounds: impl Fn(&S) -> Result<Bounds, ToolError>,
    allow_truncate: bool,
    fail_fast: bool,
    max_lines: usize,
) -> Result<Batch, ToolError> {
    let mut batch = Batch::default();
    let mut lines_left = max_lines;
    for req in files {
        // Every batch path is checked against the root before anything is read.
        resolve_in_root(root, req.file_path)?;
        if req.sections.is_empty() {
            return Err(ToolError::Validation(format!(
                "requests entry for '{}' has no sections",
                req.file_path
            )));
        }
        let loaded = read_any(root, req.file_path);
        for sec in req.sections {
            let (start, end) = bounds(sec)?;
            let result = loaded.as_ref().map_err(|e| e.to_string()).and_then(|src| {
                let all: Vec<&str> = src.text.lines().collect();
                let start = start.ok_or("read action requires file_path and start_line")?;
                check_range(
                    &src.rel,
                    all.len(),
                    start,
                    Some(end.unwrap_or(start)),
                    allow_truncate,
                )
                .map_err(|e| e.to_string())
                .map(|(a, b, w)| (src.rel.clone(), all[a - 1..b].join("\n"), a, b, w))
            });
            match result {
                Ok((rel, content, a, b, warning)) => {
                    let n = b - a + 1;
                    let shown = n.min(lines_left);
                    let content = if shown < n {
                        content.lines().take(shown).collect::<Vec<_>>().join("\n")
                    } else {
                        content
                    };
                    lines_left -= shown;
                    batch.sections.push(Section::Read(SectionRead {
                        file_path: rel,
                        start_line: a,
                        end_line: b,
                        line_count: n,
                        content,
                        content_truncated: (shown < n).then_some(true),
                        lines_shown: (shown < n).then_some(shown),
                        warning,
                    }));
                }
                Err(msg) => {
                    if fail_fast {
                        return Err(ToolError::Validation(format!(
                            "read batch stopped (fail_fast) at {}: {msg}",
                            req.file_path
                        )));
                    }
                    batch.failed += 1;
                    batch.sections.push(Section::Failed(SectionError {
                        file_path: req.file_path.to_owned(),
                        start_line: start,
                        end_line: end,
                        error: msg,
                    }));
                }
            }
        }
    }
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_refused_not_clamped() {
        assert_eq!(check_range("a", 10, 2, Some(4), false).unwrap().0, 2);
        let e = check_range("a", 10, 11, None, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("10 lines"), "{e}");
        assert!(check_range("a", 10, 0, None, false).is_err());
        assert!(check_range("a", 10, 5, Some(4), false).is_err());
        assert!(check_range("a", 10, 5, Some(40), false).is_err());
        let (a, b, w) = check_range("a", 10, 5, Some(40), true).unwrap();
        assert_eq!((a, b), (5, 10));
        assert!(w.unwrap().contains("allow_truncate"));
        assert_eq!(check_range("a", 10, 3, None, false).unwrap().1, 10);
    }

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n\nx = 2\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n").unwrap();
        dir
    }

    #[test]
    fn a_range_with_columns_and_plain_text() {
        let dir = project();
        let r = Range {
            start: 1,
            end: Some(2),
            start_column: Some(4),
            end_column: Some(10),
            allow_truncate: false,
        };
        let read = read_range(dir.path(), "a.py", &r).unwrap();
        assert_eq!(read.lines, ["f():", "    return"]);
        assert_eq!((read.first, read.last, read.total_lines), (1, 2, 4));
        assert!(read.lang.is_some());
        let plain = Range {
            start: 2,
            end: None,
            start_column: None,
            end_column: None,
            allow_truncate: false,
        };
        let read = read_range(dir.path(), "notes.txt", &plain).unwrap();
        assert_eq!(read.lines, ["two"]);
        assert!(read.lang.is_none());
        let bad = Range {
            end_column: Some(99),
            ..r
        };
        assert!(read_range(dir.path(), "a.py", &bad).is_err());
    }

    #[test]
    fn a_batch_reports_bad_sections_per_row() {
        let dir = project();
        let secs = [(Some(1), Some(2)), (Some(9), None)];
        let files = [BatchFile {
            file_path: "a.py",
            sections: &secs[..],
        }];
        let b = read_batch(dir.path(), &files, |s| Ok(*s), false, false, 1).unwrap();
        assert_eq!(b.failed, 1);
        let Section::Read(first) = &b.sections[0] else {
            panic!("read")
        };
        assert_eq!(first.content, "def f():");
        assert_eq!(first.lines_shown, Some(1));
        assert!(matches!(&b.sections[1], Section::Failed(e) if e.error.contains("past the end")));
        assert!(read_batch(dir.path(), &files, |s| Ok(*s), false, true, 10).is_err());
    }
}
