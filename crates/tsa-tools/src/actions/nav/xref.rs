//! `nav xref`: cross-references of a symbol (callers, callees, importers, caller
//! files) or of a file (its imports with resolved targets, the files importing it,
//! and the files it calls into / that call into it).

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::graph::load_symbols;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{FileDep, ImportRow};

use crate::action::Action;
use crate::actions::common::{
    Targets, callee_full, cap, definitions_json, find_targets, open_index,
};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Cross-reference a symbol or a file.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// `symbol` required (default).
    Symbol,
    /// `file_path` required.
    File,
}

/// Arguments of `nav xref`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `symbol` (default) or `file`.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Symbol to cross-reference (mode=symbol); `ClassName.method` narrows.
    #[serde(default)]
    pub symbol: Option<String>,
    /// File to cross-reference (mode=file), or the file defining the symbol (mode=symbol).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// Include callers (default true).
    #[serde(default)]
    pub include_callers: Option<bool>,
    /// Include callees (default true).
    #[serde(default)]
    pub include_callees: Option<bool>,
    /// Include imports (default true).
    #[serde(default)]
    pub include_imports: Option<bool>,
    /// Include file-level call dependencies (default true).
    #[serde(default)]
    pub include_file_deps: Option<bool>,
    /// Most rows per list (default 50). Exact totals are always reported.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Xref;

fn spelling(
    list: &'static str,
    total: &'static str,
    listed: &'static str,
    capk: &'static str,
    noun: &'static str,
) -> ListSpelling {
    ListSpelling {
        list_key: list,
        total_key: total,
        listed_key: listed,
        cap_key: capk,
        noun,
        remedy: "raise limit, or turn off the include_* lists you do not need".into(),
    }
}

fn import_json(i: &ImportRow) -> Value {
    json!({
        "file": i.file,
        "line": i.line,
        "module": i.module,
        "name": i.name,
        "alias": i.alias,
        "resolution": i.resolution.as_str(),
        "target_file": i.target_file,
        "target": i.target.as_ref().map(|t| t.qualname.clone()),
    })
}

fn dep_json(d: &FileDep) -> Value {
    json!({"file": d.file, "calls": d.calls})
}

impl Action for Xref {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "xref";
    const SUMMARY: &'static str = "cross-references of a symbol (callers, callees, importers) or a file (imports, importers, call dependencies)";
    const BRIEF: &'static str = "cross-references of a symbol or file";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 50)?;
        let callers_on = args.include_callers.unwrap_or(true);
        let callees_on = args.include_callees.unwrap_or(true);
        let imports_on = args.include_imports.unwrap_or(true);
        let deps_on = args.include_file_deps.unwrap_or(true);
        let mode = args.mode.unwrap_or(Mode::Symbol);
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let mut s = match mode {
            Mode::Symbol => {
                let Some(symbol) = args.symbol.as_deref() else {
                    return Err(ToolError::Validation(
                        "parameter 'symbol' is required for mode=symbol (or use mode=file with file_path)".into(),
                    ));
                };
                let defs =
                    match find_targets(ctx, index, "xref", symbol, args.file_path.as_deref())? {
                        Targets::Found(d) => d,
                        Targets::Missing(s) => return Ok(s.with("symbol", symbol)),
                    };
                let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
                let mut s = Success::new(
                    Verdict::Info,
                    format!("xref: '{symbol}' ({} definition(s))", defs.len()),
                )
                .with("mode", "symbol")
                .with("symbol", symbol)
                .with("definitions", definitions_json(&defs));
                let callers = if callers_on || deps_on {
                    index.callers(&ids)?
                } else {
                    Vec::new()
                };
                if callers_on {
                    // How far the callers listed here are all of them.
                    s = tsa_analysis::trust::Assessor::new(index, ctx.root()?)
                        .assess(&defs, 0)?
                        .annotate(s);
                }
                if callers_on {
                    let rows: Vec<Value> = callers
                        .iter()
                        .map(|r| {
                            json!({
                                "caller": r.caller.as_ref().map_or("<module>".to_owned(), |c| c.qualname.clone()),
                                "file": r.file, "line": r.line,
                                "resolution": r.resolution.as_str(), "confidence": r.confidence,
                            })
                        })
                        .collect();
                    s = s.with_list(
                        spelling(
                            "callers",
                            "caller_count",
                            "callers_listed",
                            "callers_cap",
                            "callers",
                        ),
                        Capped::collect(rows, limit),
                    );
                }
                let callees = if callees_on || deps_on {
                    index.callees(&ids)?
                } else {
                    Vec::new()
                };
                if callees_on {
                    let rows: Vec<Value> = callees
                        .iter()
                        .map(|r| {
                            json!({
                                "callee": r.target.as_ref().map_or_else(|| callee_full(r), |t| t.qualname.clone()),
                                "callee_file": r.target.as_ref().map(|t| t.file.clone()),
                                "line": r.line,
                                "resolution": r.resolution.as_str(), "confidence": r.confidence,
                            })
                        })
                        .collect();
                    s = s.with_list(
                        spelling(
                            "callees",
                            "callee_count",
                            "callees_listed",
                            "callees_cap",
                            "callees",
                        ),
                        Capped::collect(rows, limit),
                    );
                }
                if imports_on {
                    let mut rows = Vec::new();
                    for d in &defs {
                        rows.extend(index.importers_of_symbol(d.id)?.iter().map(import_json));
                    }
                    s = s.with_list(
                        spelling(
                            "imported_by",
                            "imported_by_count",
                            "imported_by_listed",
                            "imported_by_cap",
                            "importing statements",
                        ),
                        Capped::collect(rows, limit),
                    );
                }
                if deps_on {
                    let count = |files: Vec<&str>| -> Vec<Value> {
                        let mut m: BTreeMap<&str, u64> = BTreeMap::new();
                        for f in files {
                            *m.entry(f).or_insert(0) += 1;
                        }
                        let mut v: Vec<(&str, u64)> = m.into_iter().collect();
                        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                        v.into_iter()
                            .map(|(f, n)| json!({"file": f, "calls": n}))
                            .collect()
                    };
                    let from = count(callers.iter().map(|r| r.file.as_str()).collect());
                    let into = count(
                        callees
                            .iter()
                            .filter_map(|r| r.target.as_ref().map(|t| t.file.as_str()))
                            .collect(),
                    );
                    s = s
                        .with_list(
                            spelling(
                                "called_from_files",
                                "called_from_file_count",
                                "called_from_files_listed",
                                "called_from_files_cap",
                                "calling files",
                            ),
                            Capped::collect(from, limit),
                        )
                        .with_list(
                            spelling(
                                "calls_into_files",
                                "calls_into_file_count",
                                "calls_into_files_listed",
                                "calls_into_files_cap",
                                "called files",
                            ),
                            Capped::collect(into, limit),
                        );
                }
                s.with_next_step(if defs.len() > 1 {
                    "Several definitions: narrow with file_path or ClassName.method."
                } else {
                    "nav action=xref mode=file file_path=<file> shows the file-level picture."
                })
            }
            Mode::File => {
                let Some(fp) = args.file_path.as_deref() else {
                    return Err(ToolError::Validation(
                        "parameter 'file_path' is required for mode=file".into(),
                    ));
                };
                let file = source_file(ctx.root()?, fp)?;
                if !index.files()?.iter().any(|f| f == &file) {
                    let suggestions = index
                        .files()?
                        .into_iter()
                        .filter(|f| f.ends_with(file.rsplit('/').next().unwrap_or(&file)))
                        .take(5)
                        .collect::<Vec<_>>();
                    return Ok(Success::new(Verdict::NotFound, format!("xref: '{file}' is not in the index"))
                        .with("file", file.as_str())
                        .with("suggestions", json!(suggestions))
                        .with_next_step("The file is not indexed (ignored, or added after the last build): run index action=sync, then retry."));
                }
                let symbols = index.symbols_in_file(&file)?;
                let mut s = Success::new(
                    Verdict::Info,
                    format!("xref: file '{file}' ({} definition(s))", symbols.len()),
                )
                .with("mode", "file")
                .with("file", file.as_str())
                .with("definition_count", symbols.len());
                if imports_on {
                    let imports: Vec<Value> = index
                        .imports_of_file(&file)?
                        .iter()
                        .map(import_json)
                        .collect();
                    let importers = index.importers_of_file(&file)?;
                    let mut importer_files: Vec<String> =
                        importers.iter().map(|i| i.file.clone()).collect();
                    importer_files.dedup();
                    s = s
                        .with_list(
                            spelling(
                                "imports",
                                "import_count",
                                "imports_listed",
                                "imports_cap",
                                "imports",
                            ),
                            Capped::collect(imports, limit),
                        )
                        .with_list(
                            spelling(
                                "imported_by",
                                "imported_by_count",
                                "imported_by_listed",
                                "imported_by_cap",
                                "importing statements",
                            ),
                            Capped::collect(importers.iter().map(import_json), limit),
                        )
                        .with("importing_file_count", importer_files.len());
                }
                if deps_on {
                    let (out, inc) = index.file_call_deps(&file)?;
                    s = s
                        .with_list(
                            spelling(
                                "calls_into_files",
                                "calls_into_file_count",
                                "calls_into_files_listed",
                                "calls_into_files_cap",
                                "called files",
                            ),
                            Capped::collect(out.iter().map(dep_json), limit),
                        )
                        .with_list(
                            spelling(
                                "called_from_files",
                                "called_from_file_count",
                                "called_from_files_listed",
                                "called_from_files_cap",
                                "calling files",
                            ),
                            Capped::collect(inc.iter().map(dep_json), limit),
                        );
                }
                if callers_on || callees_on {
                    let ids: Vec<i64> = symbols.iter().map(|d| d.id).collect();
                    let mut syms = HashMap::new();
                    let incoming = if callers_on {
                        index.edges_to(&ids)?
                    } else {
                        Vec::new()
                    };
                    let outgoing = if callees_on {
                        index.edges_from(&ids)?
                    } else {
                        Vec::new()
                    };
                    load_symbols(
                        index,
                        &mut syms,
                        incoming
                            .iter()
                            .flat_map(|e| [e.caller, e.target])
                            .chain(outgoing.iter().flat_map(|e| [e.caller, e.target])),
                    )?;
                    let row = |e: &tsa_index::Edge| -> Option<Value> {
                        let (c, t) = (syms.get(&e.caller)?, syms.get(&e.target)?);
                        Some(json!({
                            "caller": c.qualname, "caller_file": c.file, "callee": t.qualname, "callee_file": t.file,
                            "line": e.line, "resolution": e.resolution.as_str(), "confidence": e.confidence,
                        }))
                    };
                    if callers_on {
                        let rows: Vec<Value> = incoming
                            .iter()
                            .filter(|e| syms.get(&e.caller).is_some_and(|c| c.file != file))
                            .filter_map(row)
                            .collect();
                        s = s.with_list(
                            spelling(
                                "callers",
                                "caller_count",
                                "callers_listed",
                                "callers_cap",
                                "incoming calls",
                            ),
                            Capped::collect(rows, limit),
                        );
                    }
                    if callees_on {
                        let rows: Vec<Value> = outgoing
                            .iter()
                            .filter(|e| syms.get(&e.target).is_some_and(|t| t.file != file))
                            .filter_map(row)
                            .collect();
                        s = s.with_list(
                            spelling(
                                "callees",
                                "callee_count",
                                "callees_listed",
                                "callees_cap",
                                "outgoing calls",
                            ),
                            Capped::collect(rows, limit),
                        );
                    }
                }
                s.with_next_step("nav action=xref symbol=<name> narrows to one definition; nav action=navigate symbol=<name> opens a definition.")
            }
        };
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
