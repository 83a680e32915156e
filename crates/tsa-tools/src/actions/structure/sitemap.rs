//! `structure sitemap`: the symbol map of a directory (or the project) from the
//! index — files with their counts and their definitions, capped honestly.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::is_test_path;

use crate::action::Action;
use crate::actions::common::{cap, open_index};
use crate::actions::structure::common::{language_arg, visibility};
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
        let files = index.files_under(&prefix, language)?;
        let mode_name = match mode {
            Mode::Full => "full",
            Mode::Api => "api",
            Mode::Module => "module",
            Mode::Flat => "flat",
        };
        if files.is_empty() {
            let mut miss = Success::new(
                Verdict::NotFound,
                format!("sitemap {shown_dir}: no indexed source files"),
            )
            .with("directory", shown_dir.clone())
            .with("mode", mode_name)
            .with_next_step(
                "only indexed languages are mapped (structure-tier files such as HTML, CSS, Markdown, SQL, YAML, JSON are not); outline those with structure action=outline, or widen directory/language",
            );
            if let Some(w) = opened.built_now {
                miss = miss.with_warning(w);
            }
            return Ok(miss);
        }
        let symbols = index.symbols_under(&prefix, language)?;
        let parents: HashMap<i64, Option<i64>> =
            symbols.iter().map(|s| (s.symbol.id, s.parent)).collect();
        let depth = |mut id: i64| {
            let mut d = 0usize;
            while let Some(Some(p)) = parents.get(&id) {
                d += 1;
                id = *p;
                if d > 64 {
                    break;
                }
            }
            d
        };
        let mut per_file: HashMap<&str, (usize, usize, usize)> = HashMap::new();
        for s in &symbols {
            let e = per_file.entry(s.symbol.file.as_str()).or_default();
            e.0 += 1;
            if matches!(
                s.symbol.kind.as_str(),
                "class" | "struct" | "enum" | "trait" | "interface" | "type"
            ) {
                e.1 += 1;
            }
            if matches!(s.symbol.kind.as_str(), "function" | "method") {
                e.2 += 1;
            }
        }
        let kept: Vec<&tsa_index::NestedSymbol> = symbols
            .iter()
            .filter(|s| s.symbol.kind != "impl")
            .filter(|s| match mode {
                Mode::Api => {
                    !s.symbol.is_test
                        && !is_test_path(&s.symbol.file)
                        && depth(s.symbol.id) <= 1
                        && visibility(&s.symbol.language, &s.symbol.name, &s.symbol.signature)
                            == "public"
                }
                _ => true,
            })
            .collect();
        let mut out = Success::new(
            Verdict::Info,
            format!(
                "sitemap {shown_dir} ({mode_name}): {} files, {} definitions",
                files.len(),
                kept.len()
            ),
        )
        .with("directory", shown_dir.clone())
        .with("mode", mode_name)
        .with("language", language);
        if mode == Mode::Module {
            let mut modules: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
            for (path, lang) in &files {
                let dir = path
                    .rsplit_once('/')
                    .map(|(d, _)| d)
                    .unwrap_or(".")
                    .to_owned();
                let m = modules.entry(dir).or_default();
                m.0 += 1;
                m.1 += per_file.get(path.as_str()).map(|c| c.0).unwrap_or(0);
                if !m.2.contains(lang) {
                    m.2.push(lang.clone());
                }
            }
            let rows = modules.into_iter().map(
                |(m, (f, s, l))| json!({"module": m, "files": f, "definitions": s, "languages": l}),
            );
            out = out.with_list(
                ListSpelling {
                    list_key: "modules",
                    total_key: "module_count",
                    listed_key: "modules_listed",
                    cap_key: "modules_cap",
                    noun: "modules",
                    remedy: "raise max_files, or narrow directory".into(),
                },
                Capped::collect(rows, max_files),
            );
        }
        if mode != Mode::Flat {
            let rows = files.iter().map(|(path, lang)| {
                let (n, t, f) = per_file.get(path.as_str()).copied().unwrap_or_default();
                json!({"file": path, "language": lang, "definitions": n, "types": t, "functions": f})
            });
            out = out.with_list(
                ListSpelling {
                    list_key: "files",
                    total_key: "file_count",
                    listed_key: "files_listed",
                    cap_key: "files_cap",
                    noun: "files",
                    remedy: "raise max_files, or narrow directory/language".into(),
                },
                Capped::collect(rows, max_files),
            );
        }
        if mode != Mode::Module {
            let rows = kept.iter().map(|s| {
                let y = &s.symbol;
                match mode {
                    Mode::Flat => json!({
                        "qualified_name": y.qualname, "kind": y.kind,
                        "file": y.file, "line": y.line,
                    }),
                    _ => {
                        let mut r: Value = json!({
                            "file": y.file, "name": y.name, "qualified_name": y.qualname,
                            "kind": y.kind, "line": y.line, "end_line": y.end_line,
                            "depth": depth(y.id), "signature": y.signature,
                        });
                        if y.is_test {
                            r["is_test"] = json!(true);
                        }
                        r
                    }
                }
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
