//! `structure read`: exactly the asked line range of a file (single form), or
//! several ranges of several files (batch form `requests`). A range outside the
//! file is refused with the file's line count, never clamped silently.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::fixed_cap;
use crate::actions::structure::common::{read_text, write_output};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Most lines one answer lists (single form: lines; batch form: lines over all sections).
const MAX_LINES: usize = 2000;
/// Most sections one batch answer lists.
const MAX_SECTIONS: usize = 50;

/// Output shape of the read lines.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The lines as strings, with file metadata.
    #[default]
    Text,
    /// Each line as `{line, text}`.
    Json,
    /// The lines as strings, no metadata beyond the range.
    Raw,
}

/// One range of a batch request.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// First line (1-based; int, integral float or base-10 string).
    pub start_line: Value,
    /// Last line, inclusive (default: start_line).
    #[serde(default)]
    pub end_line: Option<Value>,
}

/// One file of a batch request.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Request {
    // A project path in the schema (its length limit), resolved by `run` request by
    // request.
    #[schemars(with = "crate::ProjectPath")]
    pub file_path: String,
    pub sections: Vec<Section>,
}

/// Arguments of `structure read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to read (single form).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// First line, 1-based (int, integral float or base-10 string). Required in the single form.
    #[serde(default)]
    pub start_line: Option<Value>,
    /// Last line, inclusive (default: the end of the file).
    #[serde(default)]
    pub end_line: Option<Value>,
    /// 0-based column the first line starts at.
    #[serde(default)]
    pub start_column: Option<Value>,
    /// 0-based column (exclusive) the last line ends at.
    #[serde(default)]
    pub end_column: Option<Value>,
    /// `text` (default), `json` (`{line, text}` rows) or `raw`.
    #[serde(default)]
    pub format: Option<Format>,
    /// Also write the read text to this file (inside the project root).
    #[serde(default)]
    pub output_file: Option<ProjectPath>,
    /// With output_file: leave the lines out of the answer.
    #[serde(default)]
    pub suppress_output: bool,
    /// Clamp an end_line past the end of the file to the last line (said in a warning).
    #[serde(default)]
    pub allow_truncate: bool,
    /// Batch form: stop at the first bad section with an error instead of reporting it per section.
    #[serde(default)]
    pub fail_fast: bool,
    /// Batch form: `[{file_path, sections: [{start_line, end_line}]}]`.
    #[serde(default)]
    pub requests: Option<Vec<Request>>,
}

pub struct Read;

/// A line/column bound: int, integral float or base-10 string; `None` when absent.
pub fn bound(v: Option<&Value>) -> Result<Option<i64>, ToolError> {
    let bad = |v: &Value| {
        ToolError::Validation(format!(
            "read action: line/column bounds must be integers, got {v}"
        ))
    };
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(i) = n.as_i64() {
                Ok(Some(i))
            } else if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9.0e15
            {
                Ok(Some(f as i64))
            } else {
                Err(bad(v.unwrap_or(&Value::Null)))
            }
        }
        Some(s @ Value::String(text)) => {
            let t = text.trim();
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                t.parse::<i64>().map(Some).map_err(|_| bad(s))
            } else {
                Err(bad(s))
            }
        }
        Some(other) => Err(bad(other)),
    }
}

/// A checked, 1-based inclusive line range of a file with `count` lines.
fn check_range(
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

impl Read {
    fn single(&self, ctx: &Context, args: &Args, file: &str) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let start = bound(args.start_line.as_ref())?.ok_or_else(|| {
            ToolError::Validation("read action requires file_path and start_line".into())
        })?;
        let end = bound(args.end_line.as_ref())?;
        let start_col = bound(args.start_column.as_ref())?;
        let end_col = bound(args.end_column.as_ref())?;
        let (_, rel, lang, text) = read_text(root, file, None)
            .map(|(a, r, l, t)| (a, r, Some(l), t))
            .or_else(|e| match e {
                // Plain text files (no grammar) can be read too.
                ToolError::Language(_) => read_plain(root, file),
                e => Err(e),
            })?;
        let all: Vec<&str> = text.lines().collect();
        let count = all.len();
        if count == 0 {
            return Err(ToolError::Validation(format!(
                "{rel} is empty (0 lines): there is no line {start} to read"
            )));
        }
        let (first, last, clamp) = check_range(&rel, count, start, end, args.allow_truncate)?;
        let mut lines: Vec<String> = all[first - 1..last]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for (name, v) in [("start_column", start_col), ("end_column", end_col)] {
            if let Some(c) = v
                && c < 0
            {
                return Err(ToolError::Validation(format!(
                    "{name} must be >= 0 (columns are 0-based), got {c}"
                )));
            }
        }
        if let Some(ec) = end_col {
            let width = lines.last().map(|l| l.chars().count()).unwrap_or(0);
            if ec as usize > width {
                return Err(ToolError::Validation(format!(
                    "end_column {ec} is past the end of line {last} of {rel}, which has {width} characters"
                )));
            }
            if first == last && start_col.is_some_and(|sc| sc > ec) {
                return Err(ToolError::Validation(format!(
                    "end_column {ec} is before start_column {} on line {first}",
                    start_col.unwrap_or(0)
                )));
            }
            if let Some(l) = lines.last_mut() {
                *l = char_slice(l, 0, Some(ec as usize));
            }
        }
        if let Some(sc) = start_col {
            let width = all[first - 1].chars().count();
            if sc as usize > width {
                return Err(ToolError::Validation(format!(
                    "start_column {sc} is past the end of line {first} of {rel}, which has {width} characters"
                )));
            }
            if let Some(l) = lines.first_mut() {
                *l = char_slice(l, sc as usize, None);
            }
        }
        let format = args.format.unwrap_or_default();
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "read {rel}:{first}-{last} ({} lines of {count})",
                last - first + 1
            ),
        )
        .with("file_path", rel.clone())
        .with("start_line", first)
        .with("end_line", last);
        if format != Format::Raw {
            out = out
                .with("language", lang.map(|l| l.name()))
                .with("total_lines", count)
                .with(
                    "format",
                    match format {
                        Format::Json => "json",
                        _ => "text",
                    },
                );
            if let Some(c) = start_col {
                out = out.with("start_column", c);
            }
            if let Some(c) = end_col {
                out = out.with("end_column", c);
            }
        }
        if let Some(w) = clamp {
            out = out.with_warning(w).with("clamped", true);
        }
        if let Some(target) = &args.output_file {
            let mut body = lines.join("\n");
            body.push('\n');
            let written = write_output(root, target, &body)?;
            out = out.with("output_file", written);
        } else if args.suppress_output {
            return Err(ToolError::Validation(
                "suppress_output=true needs output_file (else nothing would be returned)".into(),
            ));
        }
        if args.suppress_output {
            return Ok(out.with("line_count", lines.len()).with("suppressed", true));
        }
        let rows: Vec<Value> = lines
            .into_iter()
            .enumerate()
            .map(|(k, l)| match format {
                Format::Json => json!({"line": first + k, "text": l}),
                _ => Value::String(l),
            })
            .collect();
        let step = if last < count {
            format!(
                "continue with start_line={} (the file has {count} lines); the outline: structure action=outline",
                last + 1
            )
        } else {
            "end of file reached; the outline: structure action=outline".to_owned()
        };
        Ok(out.with_next_step(step).with_list(
            ListSpelling {
                list_key: "lines",
                total_key: "line_count",
                listed_key: "lines_listed",
                cap_key: "listed_cap",
                noun: "lines",
                remedy: "read the rest with a start_line after the last listed line".into(),
            },
            Capped::collect(rows, fixed_cap(MAX_LINES)),
        ))
    }

    fn batch(
        &self,
        ctx: &Context,
        args: &Args,
        requests: &[Request],
    ) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        if requests.is_empty() {
            return Err(ToolError::Validation(
                "requests must hold at least one {file_path, sections} entry".into(),
            ));
        }
        let mut rows: Vec<Value> = Vec::new();
        let mut lines_left = MAX_LINES;
        let mut failed = 0usize;
        for req in requests {
            // Every batch path is checked against the root before anything is read.
            tsa_analysis::security::resolve_in_root(root, &req.file_path)?;
            if req.sections.is_empty() {
                return Err(ToolError::Validation(format!(
                    "requests entry for '{}' has no sections",
                    req.file_path
                )));
            }
            let loaded = read_text(root, &req.file_path, None)
                .map(|(a, r, l, t)| (a, r, Some(l), t))
                .or_else(|e| match e {
                    ToolError::Language(_) => read_plain(root, &req.file_path),
                    e => Err(e),
                });
            for sec in &req.sections {
                let start = bound(Some(&sec.start_line))?;
                let end = bound(sec.end_line.as_ref())?;
                let result =
                    loaded
                        .as_ref()
                        .map_err(|e| e.to_string())
                        .and_then(|(_, rel, _, text)| {
                            let all: Vec<&str> = text.lines().collect();
                            let start =
                                start.ok_or("read action requires file_path and start_line")?;
                            check_range(
                                rel,
                                all.len(),
                                start,
                                Some(end.unwrap_or(start)),
                                args.allow_truncate,
                            )
                            .map_err(|e| e.to_string())
                            .map(|(a, b, w)| (rel.clone(), all[a - 1..b].join("\n"), a, b, w))
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
                        let mut row = json!({
                            "file_path": rel, "start_line": a, "end_line": b,
                            "line_count": n, "content": content,
                        });
                        if shown < n {
                            row["content_truncated"] = json!(true);
                            row["lines_shown"] = json!(shown);
                        }
                        if let Some(w) = warning {
                            row["warning"] = json!(w);
                        }
                        rows.push(row);
                    }
                    Err(msg) => {
                        if args.fail_fast {
                            return Err(ToolError::Validation(format!(
                                "read batch stopped (fail_fast) at {}: {msg}",
                                req.file_path
                            )));
                        }
                        failed += 1;
                        rows.push(json!({
                            "file_path": req.file_path,
                            "start_line": start,
                            "end_line": end,
                            "error": msg,
                        }));
                    }
                }
            }
        }
        let n = rows.len();
        let verdict = if failed > 0 {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let mut out = Success::new(
            verdict,
            format!(
                "read batch: {} sections from {} files{}",
                n,
                requests.len(),
                if failed > 0 {
                    format!(", {failed} failed")
                } else {
                    String::new()
                }
            ),
        )
        .with("file_count", requests.len())
        .with("failed_count", failed)
        .with_list(
            ListSpelling {
                list_key: "sections",
                total_key: "section_count",
                listed_key: "sections_listed",
                cap_key: "listed_cap",
                noun: "sections",
                remedy: "split the requests into smaller batches".into(),
            },
            Capped::collect(rows, fixed_cap(MAX_SECTIONS)),
        );
        if failed > 0 {
            out = out.with_next_step("fix the sections that carry an `error` (each names the file's line count) and re-read them");
        }
        Ok(out)
    }
}

/// A file with no grammar (plain text): same checks, no language.
fn read_plain(
    root: &std::path::Path,
    input: &str,
) -> Result<
    (
        std::path::PathBuf,
        String,
        Option<tsa_lang::Language>,
        String,
    ),
    ToolError,
> {
    let (abs, rel) = tsa_analysis::security::resolve_in_root(root, input)?;
    let bytes = tsa_analysis::security::read_in_root(root, &rel)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary(rel));
    }
    let text = String::from_utf8(bytes).map_err(|_| ToolError::Encoding(rel.clone()))?;
    Ok((abs, rel, None, text))
}

impl Action for Read {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "read";
    const SUMMARY: &'static str = "exactly the asked line range of a file (file_path, start_line, end_line, columns, format text|json|raw), or batch requests=[{file_path, sections}]; out-of-range is refused with the line count";
    const BRIEF: &'static str = "read a line range";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        match (&args.requests, &args.file_path) {
            (Some(_), Some(_)) => Err(ToolError::Validation(
                "pass either file_path + start_line (single form) or requests (batch form), not both".into(),
            )),
            (Some(reqs), None) => self.batch(ctx, &args, reqs),
            (None, Some(f)) if args.start_line.is_some() => self.single(ctx, &args, f),
            _ => Err(ToolError::Validation(
                "read action requires file_path and start_line".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_accept_ints_integral_floats_and_strings() {
        assert_eq!(bound(Some(&json!(3))).unwrap(), Some(3));
        assert_eq!(bound(Some(&json!(3.0))).unwrap(), Some(3));
        assert_eq!(bound(Some(&json!(" 12 "))).unwrap(), Some(12));
        assert_eq!(bound(None).unwrap(), None);
        for bad in [
            json!(3.5),
            json!("3a"),
            json!("0x10"),
            json!(true),
            json!([1]),
        ] {
            let e = bound(Some(&bad)).unwrap_err().to_string();
            assert!(
                e.starts_with("read action: line/column bounds must be integers, got"),
                "{e}"
            );
        }
    }

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
}
