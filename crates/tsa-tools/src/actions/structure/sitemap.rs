//! `structure sitemap`: the symbol map of a directory (or the project) from the
//! index — files with their counts and their definitions, capped honestly.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::sitemap::{modules, sitemap};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
use crate::actions::structure::common::language_arg;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// What the map shows.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Files with counts, and every definition (nesting depth, signature).
    #[default]
    Full,
    /// Files, and only the public, non-test definitions (top level and members).
    Api,
    /// Modules (directories) and files with counts, no definitions.
    Module,
    /// One flat list of definitions by qualified name.
    Flat,
}

/// Arguments of `structure sitemap`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Directory (or file) to map; default the whole project.
    #[serde(default)]
    pub directory: Option<ProjectPath>,
    /// Only files of this language.
    #[serde(default)]
    pub language: Option<String>,
    /// `full` (default), `api`, `module` or `flat`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Most files (or modules) to list (>= 1, default 200).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_files: Option<i64>,
    /// Most definitions to list (>= 1, default 500).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_symbols: Option<i64>,
}

pub struct Sitemap;

/// The payload of `structure sitemap`, in answer order (modules, files and
/// definitions follow as lists, as the mode asks).
#[derive(Clone, Debug, Serialize)]
pub struct SitemapPayload<'a> {
    /// The folder mapped (`.` for the project).
    pub directory: &'a str,
    /// The mode.
    pub mode: &'static str,
    /// The language asked for, if any.
    pub language: Option<&'static str>,
}

/// The payload of `structure sitemap` when no indexed file is under the folder.
#[derive(Clone, Debug, Serialize)]
pub struct MissPayload<'a> {
    /// The folder asked.
    pub directory: &'a str,
    /// The mode.
    pub mode: &'static str,
}

impl Action for Sitemap {
    type Args = Args;
    const FACADE: &'static str = "structure";
    const NAME: &'static str = "sitemap";
    const SUMMARY: &'static str = "symbol map of a directory from the index: files, modules and definitions (mode full|api|module|flat, max_files, max_symbols)";
    const BRIEF: &'static str = "symbol map of a folder";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_files = cap("max_files", args.max_files, 200)?;
        let max_symbols = cap("max_symbols", args.max_symbols, 500)?;
        let mode = args.mode.unwrap_or_default();
        let language = language_arg(args.language.as_deref())?.map(|l| l.name());
        let root = ctx.root()?;
        let prefix = match args.directory.as_deref().map(str::trim) {
            None | Some("") | Some(".") => String::new(),
            Some(d) => {
                let (abs, rel) = resolve_in_root(root, d)?;
                if !abs.exists() {
                    return Err(ToolError::NotFound(rel));
                }
                rel
            }
        };
        let shown_dir = if prefix.is_empty() {
            ".".to_owned()
        } else {
            prefix.clone()
        };
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let map = sitemap(index, &prefix, language, mode == Mode::Api)?;
        let mode_name = match mode {
            Mode::Full => "full",
            Mode::Api => "api",
            Mode::Module => "module",
            Mode::Flat => "flat",
        };
        if map.files.is_empty() {
            let mut miss = with_payload(
                Success::new(
                    Verdict::NotFound,
                    format!("sitemap {shown_dir}: no indexed source files"),
                ),
                &MissPayload {
                    directory: &shown_dir,
                    mode: mode_name,
                },
            )
            .with_next_step(
                "only indexed languages are mapped (structure-tier files such as HTML, CSS, Markdown, SQL, YAML, JSON are not); outline those with structure action=outline, or widen directory/language",
            );
            if let Some(w) = opened.built_now {
                miss = miss.with_warning(w);
            }
            return Ok(miss);
        }
        let mut out = with_payload(
            Success::new(
                Verdict::Info,
                format!(
                    "sitemap {shown_dir} ({mode_name}): {} files, {} definitions",
                    map.files.len(),
                    map.symbols.len()
                ),
            ),
            &SitemapPayload {
                directory: &shown_dir,
                mode: mode_name,
                language,
            },
        );
        if mode == Mode::Module {
            out = out.with_list(
                ListSpelling {
                    list_key: "modules",
                    total_key: "module_count",
                    listed_key: "modules_listed",
                    cap_key: "modules_cap",
                    noun: "modules",
                    remedy: "raise max_files, or narrow directory".into(),
                },
                Capped::collect(modules(&map.files).iter().map(to_value), max_files),
            );
        }
        if mode != Mode::Flat {
            out = out.with_list(
                ListSpelling {
                    list_key: "files",
                    total_key: "file_count",
                    listed_key: "files_listed",
                    cap_key: "files_cap",
                    noun: "files",
                    remedy: "raise max_files, or narrow directory/language".into(),
                },
                Capped::collect(map.files.iter().map(to_value), max_files),
            );
        }
        if mode != Mode::Module {
            let rows = map.symbols.iter().map(|p| match mode {
                Mode::Flat => to_value(&p.flat()),
                _ => to_value(&p.full()),
            });
            out = out.with_list(
                ListSpelling {
                    list_key: "symbols",
                    total_key: "symbol_count",
                    listed_key: "symbols_listed",
                    cap_key: "symbols_cap",
                    noun: "definitions",
                    remedy: "raise max_symbols, narrow directory, or use mode=api / mode=module"
                        .into(),
                },
                Capped::collect(rows, max_symbols),
            );
        }
        out = out.with_next_step("outline one file with structure action=outline, or read a type with action=class_detail");
        if let Some(w) = opened.built_now {
            out = out.with_warning(w);
        }
        Ok(out)
    }
}
