//! `structure analyze`: the structure table of one file (every definition with its
//! kind, range, visibility, parameters and return type) as `full`, `compact` or `csv`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::DefKind;

use crate::action::Action;
use crate::actions::common::fixed_cap;
use crate::actions::structure::common::{
    Loaded, is_field, kind_counts, load, param_count, params_of, tier_name, visibility,
    write_output,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Most table rows one answer lists.
const MAX_ROWS: usize = 200;
const CSV_HEADER: &str =
    "type,name,qualified_name,parent,start_line,end_line,lines,visibility,params,return_type";

/// Table layout.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FormatType {
    /// Every column.
    #[default]
    Full,
    /// Type, name, range and visibility.
    Compact,
    /// One CSV line per definition (header in `csv_header`).
    Csv,
}

/// Arguments of `structure analyze`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to analyse.
    pub file_path: ProjectPath,
    /// `full` (default), `compact` or `csv`.
    #[serde(default)]
    pub format_type: Option<FormatType>,
    /// Parse as this language instead of the one its extension names.
    #[serde(default)]
    pub language: Option<String>,
    /// Also write the whole table (every row) to this file inside the project root.
    #[serde(default)]
    pub output_file: Option<ProjectPath>,
    /// With output_file: leave the rows out of the answer.
    #[serde(default)]
    pub suppress_output: bool,
}

pub struct Analyze;

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The full row of definition `i`.
pub fn table_row(f: &Loaded, i: usize) -> Value {
    let d = &f.extract.defs[i];
    let callable = d.kind.is_callable();
    let params = if callable {
        params_of(&d.name, &d.signature)
    } else {
        None
    };
    let kind = if is_field(&f.extract, d) {
        "field"
    } else {
        d.kind.as_str()
    };
    json!({
        "type": kind,
        "name": d.name,
        "qualified_name": d.qualname,
        "parent": f.parent_name(i),
        "start_line": d.line,
        "end_line": d.end_line,
        "lines": d.end_line.saturating_sub(d.line) + 1,
        "visibility": if d.kind == DefKind::Section { "n/a" } else { visibility(f.lang.name(), &d.name, &d.signature) },
        "params": params.as_deref().map(param_count),
        "return_type": if callable { tsa_lang::return_type(f.lang, &d.name, &d.signature) } else { None },
        "signature": d.signature,
    })
}

fn csv_line(r: &Value) -> String {
    let s = |k: &str| match &r[k] {
        Value::Null => String::new(),
        Value::String(s) => csv_field(s),
        other => other.to_string(),
    };
    [
        "type",
        "name",
        "qualified_name",
        "parent",
        "start_line",
        "end_line",
        "lines",
        "visibility",
        "params",
        "return_type",
    ]
    .iter()
    .map(|k| s(k))
    .collect::<Vec<_>>()
    .join(",")
}

impl Action for Analyze {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "analyze";
    const SUMMARY: &'static str = "structure table of one file: every definition with kind, range, visibility, parameter count and return type (format_type full|compact|csv, output_file)";
    const BRIEF: &'static str = "definition table of a file";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let f = load(ctx, &args.file_path, args.language.as_deref())?;
        let format = args.format_type.unwrap_or_default();
        let full: Vec<Value> = f.ordered().into_iter().map(|i| table_row(&f, i)).collect();
        let rows: Vec<Value> = match format {
            FormatType::Full => full.clone(),
            FormatType::Compact => full
                .iter()
                .map(|r| {
                    json!({
                        "type": r["type"],
                        "name": r["qualified_name"],
                        "lines": format!("{}-{}", r["start_line"], r["end_line"]),
                        "visibility": r["visibility"],
                    })
                })
                .collect(),
            FormatType::Csv => full.iter().map(|r| Value::String(csv_line(r))).collect(),
        };
        let x = &f.extract;
        let count = |k: DefKind| x.defs.iter().filter(|d| d.kind == k).count();
        let fields = x.defs.iter().filter(|d| is_field(x, d)).count();
        let stats = json!({
            "line_count": f.line_count(),
            "definitions": x.defs.len(),
            "classes": x.defs.iter().filter(|d| d.kind.is_type() && d.kind != DefKind::Impl).count(),
            "methods": count(DefKind::Method),
            "functions": count(DefKind::Function),
            "fields": fields,
            "sections": count(DefKind::Section),
            "imports": x.imports.len(),
            "call_sites": x.calls.len(),
            "parse_errors": x.parse_errors,
            "kinds": kind_counts(x),
        });
        let format_name = match format {
            FormatType::Full => "full",
            FormatType::Compact => "compact",
            FormatType::Csv => "csv",
        };
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "analyze {}: {} definitions in {} lines ({})",
                f.rel,
                x.defs.len(),
                f.line_count(),
                f.lang.name()
            ),
        )
        .with("file_path", f.rel.clone())
        .with("language", f.lang.name())
        .with("tier", tier_name(f.lang))
        .with("format_type", format_name)
        .with("statistics", stats);
        if format == FormatType::Csv {
            out = out.with("csv_header", CSV_HEADER);
        }
        if let Some(target) = &args.output_file {
            let body = match format {
                FormatType::Csv => {
                    let mut s = String::from(CSV_HEADER);
                    for r in &rows {
                        s.push('\n');
                        s.push_str(r.as_str().unwrap_or_default());
                    }
                    s + "\n"
                }
                _ => serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n",
            };
            out = out.with("output_file", write_output(ctx.root()?, target, &body)?);
        } else if args.suppress_output {
            return Err(ToolError::Validation(
                "suppress_output=true needs output_file (else nothing would be returned)".into(),
            ));
        }
        if args.suppress_output {
            return Ok(out.with("row_count", rows.len()).with("suppressed", true));
        }
        if x.parse_errors > 0 {
            out = out.with_warning(format!(
                "{} has syntax errors: the table holds what parsed",
                f.rel
            ));
        }
        Ok(out.with_next_step("read one definition with structure action=read (start_line/end_line from the table)").with_list(
            ListSpelling {
                list_key: "elements",
                total_key: "element_count",
                listed_key: "elements_listed",
                cap_key: "listed_cap",
                noun: "definitions",
                remedy: "write the whole table with output_file, or page with structure action=outline listed_cap".into(),
            },
            Capped::collect(rows, fixed_cap(MAX_ROWS)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
        let r = json!({"type": "method", "name": "f", "qualified_name": "A.f", "parent": "A",
            "start_line": 1, "end_line": 3, "lines": 3, "visibility": "public",
            "params": 2, "return_type": null});
        assert_eq!(csv_line(&r), "method,f,A.f,A,1,3,3,public,2,");
    }
}
