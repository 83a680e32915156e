//! `structure read`: exactly the asked line range of a file (single form), or
//! several ranges of several files (batch form `requests`). A range outside the
//! file is refused with the file's line count, never clamped silently.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::read_range::{Batch, BatchFile, Range, RangeRead, read_batch, read_range};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, to_value, with_payload};
use crate::actions::structure::common::write_output;
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

/// The metadata of a `text` or `json` read (a `raw` read has none).
#[derive(Clone, Debug, Serialize)]
pub struct ReadMeta {
    /// The language the file was read as (null for plain text).
    pub language: Option<&'static str>,
    /// Lines in the file.
    pub total_lines: usize,
    /// `text` or `json`.
    pub format: &'static str,
    /// The first line's starting column, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_column: Option<i64>,
    /// The last line's ending column, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<i64>,
}

/// The payload of `structure read` (single form), in answer order (the lines
/// follow as a list unless suppressed).
#[derive(Clone, Debug, Serialize)]
pub struct ReadPayload {
    /// The file, project-relative.
    pub file_path: String,
    /// First line read.
    pub start_line: usize,
    /// Last line read.
    pub end_line: usize,
    /// Metadata, except with format=raw.
    #[serde(flatten)]
    pub meta: Option<ReadMeta>,
    /// Present (true) when end_line was clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clamped: Option<bool>,
    /// The file written, with output_file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_file: Option<String>,
    /// With suppress_output: the lines written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_count: Option<usize>,
    /// With suppress_output: true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<bool>,
}

/// One line with format=json.
#[derive(Clone, Debug, Serialize)]
pub struct LineRow {
    /// Its number.
    pub line: usize,
    /// Its text.
    pub text: String,
}

/// The payload of `structure read` (batch form; the sections follow as a list).
#[derive(Clone, Debug, Serialize)]
pub struct BatchPayload {
    /// Files asked.
    pub file_count: usize,
    /// Sections that could not be read.
    pub failed_count: usize,
}

impl Read {
    fn single(&self, ctx: &Context, args: &Args, file: &str) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let start = bound(args.start_line.as_ref())?.ok_or_else(|| {
            ToolError::Validation("read action requires file_path and start_line".into())
        })?;
        let range = Range {
            start,
            end: bound(args.end_line.as_ref())?,
            start_column: bound(args.start_column.as_ref())?,
            end_column: bound(args.end_column.as_ref())?,
            allow_truncate: args.allow_truncate,
        };
        let RangeRead {
            rel,
            lang,
            total_lines: count,
            first,
            last,
            lines,
            clamp,
        } = read_range(root, file, &range)?;
        let format = args.format.unwrap_or_default();
        let mut payload = ReadPayload {
            file_path: rel.clone(),
            start_line: first,
            end_line: last,
            meta: (format != Format::Raw).then(|| ReadMeta {
                language: lang.map(|l| l.name()),
                total_lines: count,
                format: match format {
                    Format::Json => "json",
                    _ => "text",
                },
                start_column: range.start_column,
                end_column: range.end_column,
            }),
            clamped: clamp.is_some().then_some(true),
            output_file: None,
            line_count: None,
            suppressed: None,
        };
        if let Some(target) = &args.output_file {
            let mut body = lines.join("\n");
            body.push('\n');
            payload.output_file = Some(write_output(root, target, &body)?);
        } else if args.suppress_output {
            return Err(ToolError::Validation(
                "suppress_output=true needs output_file (else nothing would be returned)".into(),
            ));
        }
        if args.suppress_output {
            payload.line_count = Some(lines.len());
            payload.suppressed = Some(true);
        }
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "read {rel}:{first}-{last} ({} lines of {count})",
                    last - first + 1
                ),
            ),
            &payload,
        );
        if let Some(w) = clamp {
            out = out.with_warning(w);
        }
        if args.suppress_output {
            return Ok(out);
        }
        let rows: Vec<Value> = lines
            .into_iter()
            .enumerate()
            .map(|(k, l)| match format {
                Format::Json => to_value(&LineRow {
                    line: first + k,
                    text: l,
                }),
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
        let files: Vec<BatchFile<'_, Section>> = requests
            .iter()
            .map(|r| BatchFile {
                file_path: &r.file_path,
                sections: &r.sections,
            })
            .collect();
        let Batch { sections, failed } = read_batch(
            root,
            &files,
            |sec: &Section| Ok((bound(Some(&sec.start_line))?, bound(sec.end_line.as_ref())?)),
            args.allow_truncate,
            args.fail_fast,
            MAX_LINES,
        )?;
        let n = sections.len();
        let verdict = if failed > 0 {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        let payload = BatchPayload {
            file_count: requests.len(),
            failed_count: failed,
        };
        let mut out = with_payload(
            Success::new(
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
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "sections",
                total_key: "section_count",
                listed_key: "sections_listed",
                cap_key: "listed_cap",
                noun: "sections",
                remedy: "split the requests into smaller batches".into(),
            },
            Capped::collect(sections.iter().map(to_value), fixed_cap(MAX_SECTIONS)),
        );
        if failed > 0 {
            out = out.with_next_step("fix the sections that carry an `error` (each names the file's line count) and re-read them");
        }
        Ok(out)
    }
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
        assert_eq!(bound(Some(&Value::from(3))).unwrap(), Some(3));
        assert_eq!(bound(Some(&Value::from(3.0))).unwrap(), Some(3));
        assert_eq!(bound(Some(&Value::from(" 12 "))).unwrap(), Some(12));
        assert_eq!(bound(None).unwrap(), None);
        for bad in [
            Value::from(3.5),
            Value::from("3a"),
            Value::from("0x10"),
            Value::from(true),
            Value::from(vec![1]),
        ] {
            let e = bound(Some(&bad)).unwrap_err().to_string();
            assert!(
                e.starts_with("read action: line/column bounds must be integers, got"),
                "{e}"
            );
        }
    }
}
