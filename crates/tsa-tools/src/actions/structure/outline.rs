//! `structure outline`: the nested outline of one file (types with their members,
//! line ranges, signatures), parsed directly — every language, structure tier included.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_payload};
use crate::actions::structure::common::{
    kind_counts, load, outline_row, shown_in_outline, tier_name,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `structure outline`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to outline (project-relative or absolute inside the root).
    pub file_path: ProjectPath,
    /// Parse as this language instead of the one its extension names.
    #[serde(default)]
    pub language: Option<String>,
    /// Also list fields (variables declared directly in a type). Default false.
    #[serde(default)]
    pub include_fields: bool,
    /// Also list the file's imports. Default false.
    #[serde(default)]
    pub include_imports: bool,
    /// Most outline entries to list (>= 1, default 50); the exact total is always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub listed_cap: Option<i64>,
}

pub struct Outline;

/// The payload of `structure outline`, in answer order (the outline and imports
/// follow as lists).
#[derive(Clone, Debug, Serialize)]
pub struct OutlinePayload {
    /// The file, project-relative.
    pub file_path: String,
    /// The language it was parsed as.
    pub language: &'static str,
    /// The language's support tier.
    pub tier: &'static str,
    /// Line count.
    pub line_count: usize,
    /// Top-level entries shown.
    pub top_level_count: usize,
    /// Definitions per kind.
    pub kinds: BTreeMap<&'static str, usize>,
    /// Parse errors in the file.
    pub parse_errors: u32,
}

/// One import of the file (with include_imports).
#[derive(Clone, Debug, Serialize)]
pub struct ImportRow<'a> {
    /// The module path as written.
    pub module: &'a str,
    /// The imported item, when the statement names one.
    pub name: Option<&'a str>,
    /// The local name the statement binds.
    pub alias: &'a str,
    /// Its line.
    pub line: u32,
}

impl Action for Outline {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "outline";
    const SUMMARY: &'static str = "outline of one file: types with their methods, functions, sections, line ranges and signatures (include_fields, include_imports, listed_cap)";
    const BRIEF: &'static str = "outline of a file";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("listed_cap", args.listed_cap, 50)?;
        let f = load(ctx, &args.file_path, args.language.as_deref())?;
        let x = &f.extract;
        let rows: Vec<_> = f
            .ordered()
            .into_iter()
            .filter(|&i| shown_in_outline(f.lang, x, &x.defs[i], args.include_fields))
            .map(|i| to_value(&outline_row(&f, i)))
            .collect();
        let rows = crate::actions::common::uniform_rows(rows);
        let top_level = rows.iter().filter(|r| r["depth"] == 0).count();
        let entries = Capped::collect(rows, limit);
        let total = entries.total();
        let payload = OutlinePayload {
            file_path: f.rel.clone(),
            language: f.lang.name(),
            tier: tier_name(f.lang),
            line_count: f.line_count(),
            top_level_count: top_level,
            kinds: kind_counts(x),
            parse_errors: x.parse_errors,
        };
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "outline {}: {} entries ({} top-level), {} lines, {}",
                    f.rel,
                    total,
                    top_level,
                    f.line_count(),
                    f.lang.name()
                ),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "outline",
                total_key: "entry_count",
                listed_key: "entries_listed",
                cap_key: "listed_cap",
                noun: "outline entries",
                remedy: "raise listed_cap, or read one type with structure action=class_detail"
                    .into(),
            },
            entries,
        );
        if args.include_imports {
            let imports = x.imports.iter().map(|i| {
                to_value(&ImportRow {
                    module: &i.module,
                    name: i.name.as_deref(),
                    alias: &i.alias,
                    line: i.line,
                })
            });
            out = out.with_list(
                ListSpelling {
                    list_key: "imports",
                    total_key: "import_count",
                    listed_key: "imports_listed",
                    cap_key: "imports_cap",
                    noun: "imports",
                    remedy: "raise listed_cap".into(),
                },
                Capped::collect(imports, limit),
            );
        }
        if x.parse_errors > 0 {
            out = out.with_warning(format!(
                "{} has syntax errors: the outline holds what parsed",
                f.rel
            ));
        }
        if total == 0 {
            out = out.with_next_step(format!(
                "{} declares no definitions the {} outline knows; read it with structure action=read",
                f.rel,
                f.lang.name()
            ));
        } else {
            out = out.with_next_step(
                "read a range with structure action=read, or one type with action=class_detail",
            );
        }
        Ok(out)
    }
}
