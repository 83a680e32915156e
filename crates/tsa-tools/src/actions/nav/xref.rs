//! `nav xref`: cross-references of a symbol (callers, callees, importers, caller
//! files) or of a file (its imports with resolved targets, the files importing it,
//! and the files it calls into / that call into it).

use std::collections::HashMap;
use std::num::NonZeroUsize;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::graph::{Definition, definitions, load_symbols};
use tsa_analysis::source::source_file;
use tsa_analysis::xref::{CalleeRef, CallerRef, EdgeRef, FileCalls, ImportRef, count_files};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{Index, SymbolRow};

use crate::action::Action;
use crate::actions::common::{
    Targets, callee_full, cap, find_targets, open_index, to_value, with_payload,
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
    ListSpelling::new(
        list,
        total,
        listed,
        capk,
        noun,
        "raise limit, or turn off the include_* lists you do not need",
    )
}

/// The keys of a symbol cross-reference before its lists.
#[derive(Serialize)]
pub struct SymbolHead<'a> {
    /// Always `symbol`.
    pub mode: &'static str,
    /// The name as asked.
    pub symbol: &'a str,
    /// The definitions it resolved to.
    pub definitions: Vec<Definition>,
}

/// The keys of a file cross-reference before its lists.
#[derive(Serialize)]
pub struct FileHead<'a> {
    /// Always `file`.
    pub mode: &'static str,
    /// Project-relative file.
    pub file: &'a str,
    /// Definitions in it.
    pub definition_count: usize,
}

/// The answer for a file that is not in the index.
#[derive(Serialize)]
struct FileMiss<'a> {
    /// The file as asked.
    file: &'a str,
    /// Indexed files with the same name.
    suggestions: Vec<String>,
}

/// Which lists to build.
#[derive(Clone, Copy)]
struct Lists {
    callers: bool,
    callees: bool,
    imports: bool,
    deps: bool,
}

fn rows<T: Serialize>(v: impl IntoIterator<Item = T>) -> Vec<Value> {
    v.into_iter().map(|r| to_value(&r)).collect()
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
        let on = Lists {
            callers: callers_on,
            callees: callees_on,
            imports: imports_on,
            deps: deps_on,
        };
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
                symbol_xref(ctx, index, symbol, &defs, on, limit)?
            }
            Mode::File => {
                let Some(fp) = args.file_path.as_deref() else {
                    return Err(ToolError::Validation(
                        "parameter 'file_path' is required for mode=file".into(),
                    ));
                };
                let file = source_file(ctx.root()?, fp)?;
                file_xref(index, &file, on, limit)?
            }
        };
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}

/// The cross-references of a symbol's definitions.
fn symbol_xref(
    ctx: &Context,
    index: &Index,
    symbol: &str,
    defs: &[SymbolRow],
    on: Lists,
    limit: NonZeroUsize,
) -> Result<Success, ToolError> {
    let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
    let head = SymbolHead {
        mode: "symbol",
        symbol,
        definitions: definitions(defs),
    };
    let mut s = with_payload(
        Success::new(
            Verdict::Info,
            format!("xref: '{symbol}' ({} definition(s))", defs.len()),
        ),
        &head,
    );
    let callers = if on.callers || on.deps {
        index.callers(&ids)?
    } else {
        Vec::new()
    };
    if on.callers {
        // How far the callers listed here are all of them.
        s = tsa_analysis::trust::Assessor::new(index, ctx.root()?)
            .assess(defs, 0)?
            .annotate(s);
        s = s.with_list(
            spelling(
                "callers",
                "caller_count",
                "callers_listed",
                "callers_cap",
                "callers",
            ),
            Capped::collect(rows(callers.iter().map(CallerRef::of)), limit),
        );
    }
    let callees = if on.callees || on.deps {
        index.callees(&ids)?
    } else {
        Vec::new()
    };
    if on.callees {
        s = s.with_list(
            spelling(
                "callees",
                "callee_count",
                "callees_listed",
                "callees_cap",
                "callees",
            ),
            Capped::collect(
                rows(callees.iter().map(|r| CalleeRef::of(r, || callee_full(r)))),
                limit,
            ),
        );
    }
    if on.imports {
        let mut imports = Vec::new();
        for d in defs {
            imports.extend(index.importers_of_symbol(d.id)?.iter().map(ImportRef::of));
        }
        s = s.with_list(
            spelling(
                "imported_by",
                "imported_by_count",
                "imported_by_listed",
                "imported_by_cap",
                "importing statements",
            ),
            Capped::collect(rows(imports), limit),
        );
    }
    if on.deps {
        let from = count_files(callers.iter().map(|r| r.file.as_str()));
        let into = count_files(
            callees
                .iter()
                .filter_map(|r| r.target.as_ref().map(|t| t.file.as_str())),
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
                Capped::collect(rows(from), limit),
            )
            .with_list(
                spelling(
                    "calls_into_files",
                    "calls_into_file_count",
                    "calls_into_files_listed",
                    "calls_into_files_cap",
                    "called files",
                ),
                Capped::collect(rows(into), limit),
            );
    }
    Ok(s.with_next_step(if defs.len() > 1 {
        "Several definitions: narrow with file_path or ClassName.method."
    } else {
        "nav action=xref mode=file file_path=<file> shows the file-level picture."
    }))
}

/// The cross-references of one indexed file.
fn file_xref(
    index: &Index,
    file: &str,
    on: Lists,
    limit: NonZeroUsize,
) -> Result<Success, ToolError> {
    if !index.files()?.iter().any(|f| f == file) {
        let suggestions = index
            .files()?
            .into_iter()
            .filter(|f| f.ends_with(file.rsplit('/').next().unwrap_or(file)))
            .take(5)
            .collect::<Vec<_>>();
        let s = Success::new(
            Verdict::NotFound,
            format!("xref: '{file}' is not in the index"),
        );
        return Ok(with_payload(s, &FileMiss { file, suggestions })
            .with_next_step("The file is not indexed (ignored, or added after the last build): run index action=sync, then retry."));
    }
    let symbols = index.symbols_in_file(file)?;
    let head = FileHead {
        mode: "file",
        file,
        definition_count: symbols.len(),
    };
    let mut s = with_payload(
        Success::new(
            Verdict::Info,
            format!("xref: file '{file}' ({} definition(s))", symbols.len()),
        ),
        &head,
    );
    if on.imports {
        let imports = rows(index.imports_of_file(file)?.iter().map(ImportRef::of));
        let importers = index.importers_of_file(file)?;
        let mut importer_files: Vec<String> = importers.iter().map(|i| i.file.clone()).collect();
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
                Capped::collect(rows(importers.iter().map(ImportRef::of)), limit),
            )
            .with("importing_file_count", importer_files.len());
    }
    if on.deps {
        let (out, inc) = index.file_call_deps(file)?;
        s = s
            .with_list(
                spelling(
                    "calls_into_files",
                    "calls_into_file_count",
                    "calls_into_files_listed",
                    "calls_into_files_cap",
                    "called files",
                ),
                Capped::collect(rows(out.iter().map(FileCalls::of)), limit),
            )
            .with_list(
                spelling(
                    "called_from_files",
                    "called_from_file_count",
                    "called_from_files_listed",
                    "called_from_files_cap",
                    "calling files",
                ),
                Capped::collect(rows(inc.iter().map(FileCalls::of)), limit),
            );
    }
    if on.callers || on.callees {
        s = with_file_edges(index, s, file, &symbols, on, limit)?;
    }
    Ok(s.with_next_step("nav action=xref symbol=<name> narrows to one definition; nav action=navigate symbol=<name> opens a definition."))
}

/// The resolved calls into and out of a file's definitions, from other files.
fn with_file_edges(
    index: &Index,
    mut s: Success,
    file: &str,
    symbols: &[SymbolRow],
    on: Lists,
    limit: NonZeroUsize,
) -> Result<Success, ToolError> {
    let ids: Vec<i64> = symbols.iter().map(|d| d.id).collect();
    let mut syms = HashMap::new();
    let incoming = if on.callers {
        index.edges_to(&ids)?
    } else {
        Vec::new()
    };
    let outgoing = if on.callees {
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
    let row = |e: &tsa_index::Edge| -> Option<EdgeRef> {
        Some(EdgeRef::of(e, syms.get(&e.caller)?, syms.get(&e.target)?))
    };
    if on.callers {
        let list = incoming
            .iter()
            .filter(|e| syms.get(&e.caller).is_some_and(|c| c.file != file))
            .filter_map(row);
        s = s.with_list(
            spelling(
                "callers",
                "caller_count",
                "callers_listed",
                "callers_cap",
                "incoming calls",
            ),
            Capped::collect(rows(list), limit),
        );
    }
    if on.callees {
        let list = outgoing
            .iter()
            .filter(|e| syms.get(&e.target).is_some_and(|t| t.file != file))
            .filter_map(row);
        s = s.with_list(
            spelling(
                "callees",
                "callee_count",
                "callees_listed",
                "callees_cap",
                "outgoing calls",
            ),
            Capped::collect(rows(list), limit),
        );
    }
    Ok(s)
}
