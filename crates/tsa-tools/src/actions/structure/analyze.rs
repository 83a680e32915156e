//! `structure analyze`: the structure table of one file (every definition with its
//! kind, range, visibility, parameters and return type) as `full`, `compact` or `csv`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::file_table::{CSV_HEADER, Statistics, TableRow, statistics};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, to_value, with_payload};
use crate::actions::structure::common::{load, tier_name, write_output};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Most table rows one answer lists.
const MAX_ROWS: usize = 200;

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

/// The payload of `structure analyze`, in answer order (the table follows as a list).
#[derive(Clone, Debug, Serialize)]
pub struct AnalyzePayload<'a> {
    /// The file, project-relative.
    pub file_path: &'a str,
    /// The language it was parsed as.
    pub language: &'static str,
    /// The language's support tier.
    pub tier: &'static str,
    /// `full`, `compact` or `csv`.
    pub format_type: &'static str,
    /// Definition counts.
    pub statistics: Statistics,
    /// With csv: the columns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csv_header: Option<&'static str>,
    /// The file written, with output_file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_file: Option<String>,
    /// With suppress_output: the rows written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_count: Option<usize>,
    /// With suppress_output: true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<bool>,
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
        let x = &f.extract;
        let full: Vec<TableRow> = f
            .ordered()
            .into_iter()
            .map(|i| TableRow::of(f.lang, x, i))
            .collect();
        let rows: Vec<Value> = match format {
            FormatType::Full => full.iter().map(to_value).collect(),
            FormatType::Compact => full.iter().map(|r| to_value(&r.compact())).collect(),
            FormatType::Csv => full.iter().map(|r| Value::String(r.csv())).collect(),
        };
        let mut payload = AnalyzePayload {
            file_path: &f.rel,
            language: f.lang.name(),
            tier: tier_name(f.lang),
            format_type: match format {
                FormatType::Full => "full",
                FormatType::Compact => "compact",
                FormatType::Csv => "csv",
            },
            statistics: statistics(x, f.line_count()),
            csv_header: (format == FormatType::Csv).then_some(CSV_HEADER),
            output_file: None,
            row_count: None,
            suppressed: None,
        };
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
            payload.output_file = Some(write_output(ctx.root()?, target, &body)?);
        } else if args.suppress_output {
            return Err(ToolError::Validation(
                "suppress_output=true needs output_file (else nothing would be returned)".into(),
            ));
        }
        if args.suppress_output {
            payload.row_count = Some(rows.len());
            payload.suppressed = Some(true);
        }
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "analyze {}: {} definitions in {} lines ({})",
                    f.rel,
                    x.defs.len(),
                    f.line_count(),
                    f.lang.name()
                ),
            ),
            &payload,
        );
        if args.suppress_output {
            return Ok(out);
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
