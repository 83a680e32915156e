//! `structure explore`: a source bundle for one or more symbols (or a free-text
//! query): their definitions (code of the first 3), caller counts and callees, by file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::explore::{ExploreLookup, MissingName, explore};
use tsa_analysis::source::Bodies;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{
    IncludeBodies, SUGGESTED_MISSES, fixed_cap, open_index, to_value, with_payload,
};
use crate::{Context, ToolError};

/// Arguments of `structure explore` (camelCase limits, as in the reference).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Free-text query over symbol names (BM25), when no symbol is named.
    #[serde(default)]
    pub query: Option<String>,
    /// One symbol name (`Class.method` qualifies).
    #[serde(default)]
    pub symbol: Option<String>,
    /// Several symbol names.
    #[serde(default)]
    pub symbols: Option<Vec<String>>,
    /// Most files in the bundle (1..30, default 12).
    #[serde(default, rename = "maxFiles")]
    #[schemars(range(min = 1, max = 30))]
    pub max_files: Option<i64>,
    /// Most definitions in the bundle (1..50, default 20).
    #[serde(default, rename = "maxSymbols")]
    #[schemars(range(min = 1, max = 50))]
    pub max_symbols: Option<i64>,
    /// Inline the definitions' source (default true).
    #[serde(default, rename = "includeCode")]
    pub include_code: Option<bool>,
    /// Which definitions get their source inlined: `none`, `top` (default: the first 3), `all`; each body at most 40 lines (includeCode=false is `none`).
    #[serde(default)]
    pub include_bodies: Option<IncludeBodies>,
}

pub struct Explore;

fn ranged(name: &str, v: Option<i64>, default: i64, max: i64) -> Result<usize, ToolError> {
    match v {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(n) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be between 1 and {max}, got {n}"
        ))),
    }
}

/// The payload of `structure explore`, in answer order (the symbols and files
/// follow as lists, then `missing` when some names matched nothing).
#[derive(Clone, Debug, Serialize)]
pub struct ExplorePayload<'a> {
    /// The names or the query (first 64 characters).
    pub query: &'a str,
    /// Whether code is inlined.
    pub include_code: bool,
}

/// The payload of `structure explore` when nothing matched.
#[derive(Clone, Debug, Serialize)]
pub struct NothingPayload<'a> {
    /// The names or the query (first 64 characters).
    pub query: &'a str,
    /// Close names, over every miss.
    pub suggestions: Vec<String>,
}

/// The NOT_FOUND answer, with the close names of every miss.
fn nothing_found(subject: &str, missing: Vec<MissingName>) -> Success {
    let suggestions: Vec<String> = missing.into_iter().flat_map(|m| m.suggestions).collect();
    let step = match suggestions.first() {
        Some(s) => format!("no definition matches '{subject}'. Did you mean '{s}'?"),
        None => format!(
            "no definition matches '{subject}'; try search action=symbol or search action=content"
        ),
    };
    let payload = NothingPayload {
        query: subject,
        suggestions,
    };
    with_payload(
        Success::new(
            Verdict::NotFound,
            format!("explore '{subject}': nothing found"),
        ),
        &payload,
    )
    .with_next_step(step)
}

impl Action for Explore {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "explore";
    const SUMMARY: &'static str = "source bundle for symbols (symbol, symbols[] or query): definitions (bodies of the first 3), callers and callees, by file (maxFiles, maxSymbols, includeCode)";
    const BRIEF: &'static str = "source bundle for symbols";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_files = ranged("maxFiles", args.max_files, 12, 30)?;
        let max_symbols = ranged("maxSymbols", args.max_symbols, 20, 50)?;
        let include_code = args.include_code.unwrap_or(true);
        let mut names: Vec<String> = Vec::new();
        if let Some(s) = &args.symbol {
            names.push(s.trim().to_owned());
        }
        for s in args.symbols.iter().flatten() {
            names.push(s.trim().to_owned());
        }
        names.retain(|n| !n.is_empty());
        names.dedup();
        let query = args
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        if names.is_empty() && query.is_none() {
            return Err(ToolError::Validation(
                "explore needs query, symbol or symbols (a non-empty name)".into(),
            ));
        }
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let subject = if names.is_empty() {
            query.unwrap_or_default().to_owned()
        } else {
            names.join(", ")
        };
        // Summary lines and next steps show its first 64 characters.
        let subject = match tsa_analysis::suggest::clip(&subject) {
            head if head.len() < subject.len() => format!("{head}…"),
            _ => subject,
        };
        let include = if include_code {
            args.include_bodies.unwrap_or_default()
        } else {
            IncludeBodies::None
        };
        let mut bodies = Bodies::new(ctx.root()?, include.rows().definition_budget());
        let b = match explore(
            index,
            &names,
            query.unwrap_or_default(),
            max_files,
            max_symbols,
            SUGGESTED_MISSES,
            &mut bodies,
        )? {
            ExploreLookup::Found(b) => b,
            ExploreLookup::Missing(missing) => return Ok(nothing_found(&subject, missing)),
        };
        let payload = ExplorePayload {
            query: &subject,
            include_code,
        };
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "explore '{subject}': {} definitions in {} files ({} in the bundle)",
                    b.total,
                    b.files.len(),
                    b.rows.len()
                ),
            ),
            &payload,
        )
        .with_list(
            ListSpelling {
                list_key: "symbols",
                total_key: "symbol_count",
                listed_key: "symbols_listed",
                cap_key: "max_symbols",
                noun: "definitions",
                remedy:
                    "raise maxSymbols (<= 50) or maxFiles (<= 30), or name the symbols you need"
                        .into(),
            },
            Capped::counted(
                b.rows.iter().map(to_value).collect(),
                b.total,
                fixed_cap(max_symbols),
            ),
        )
        .with_list(
            ListSpelling {
                list_key: "files",
                total_key: "file_count",
                listed_key: "files_listed",
                cap_key: "max_files",
                noun: "files",
                remedy: "raise maxFiles (<= 30)".into(),
            },
            Capped::collect(b.files.iter().map(to_value), fixed_cap(max_files)),
        );
        if !b.missing.is_empty() {
            out = out
                .with("missing", to_value(&b.missing))
                .with_warning("some names were not found: see `missing` (each with suggestions)");
        }
        out = out.with_next_step(if bodies.any() && include != IncludeBodies::All {
            "callers of one of them: nav action=callers function_name=<qualified_name>. Code is inlined for the first 3 definitions (each capped at 40 lines, cut lines in code_cut_lines): include_bodies=all inlines every one, structure action=read shows one file's lines."
        } else {
            "callers of one of them: nav action=callers function_name=<qualified_name>"
        });
        if let Some(w) = opened.built_now {
            out = out.with_warning(w);
        }
        Ok(bodies.warn(out))
    }
}
