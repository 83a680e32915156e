//! The rows of `nav xref`: a symbol's or a file's callers, callees, imports and
//! file-level call dependencies, as typed rows built from the index's records.

use std::collections::BTreeMap;

use serde::Serialize;
use tsa_index::{CallRow, Edge, FileDep, ImportRow, SymbolRow};

/// One import statement and what it resolved to.
#[derive(Clone, Debug, Serialize)]
pub struct ImportRef {
    /// File holding the statement.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The module as written.
    pub module: String,
    /// The imported name, if one.
    pub name: Option<String>,
    /// The name it is bound to locally.
    pub alias: String,
    /// Resolution class.
    pub resolution: &'static str,
    /// The file it resolved to.
    pub target_file: Option<String>,
    /// Qualified name of the definition it resolved to.
    pub target: Option<String>,
}

impl ImportRef {
    /// The row of an import record.
    pub fn of(i: &ImportRow) -> Self {
        ImportRef {
            file: i.file.clone(),
            line: i.line,
            module: i.module.clone(),
            name: i.name.clone(),
            alias: i.alias.clone(),
            resolution: i.resolution.as_str(),
            target_file: i.target_file.clone(),
            target: i.target.as_ref().map(|t| t.qualname.clone()),
        }
    }
}

/// Calls between a file and another, counted.
#[derive(Clone, Debug, Serialize)]
pub struct FileCalls {
    /// The other file.
    pub file: String,
    /// Number of calls.
    pub calls: u64,
}

impl FileCalls {
    /// The row of a file dependency record.
    pub fn of(d: &FileDep) -> Self {
        FileCalls {
            file: d.file.clone(),
            calls: d.calls,
        }
    }
}

/// A call site bound to the symbol.
#[derive(Clone, Debug, Serialize)]
pub struct CallerRef {
    /// Qualified name of the calling function, `<module>` for module-level code.
    pub caller: String,
    /// File of the call.
    pub file: String,
    /// Line of the call.
    pub line: u32,
    /// Resolution class.
    pub resolution: &'static str,
    /// Confidence of the binding.
    pub confidence: f64,
}

impl CallerRef {
    /// The row of a call record.
    pub fn of(r: &CallRow) -> Self {
        CallerRef {
            caller: r
                .caller
                .as_ref()
                .map_or("<module>".to_owned(), |c| c.qualname.clone()),
            file: r.file.clone(),
            line: r.line,
            resolution: r.resolution.as_str(),
            confidence: r.confidence,
        }
    }
}

/// A call the symbol makes.
#[derive(Clone, Debug, Serialize)]
pub struct CalleeRef {
    /// Qualified name of the callee, or the call as written when unbound.
    pub callee: String,
    /// File of the callee, when bound.
    pub callee_file: Option<String>,
    /// Line of the call.
    pub line: u32,
    /// Resolution class.
    pub resolution: &'static str,
    /// Confidence of the binding.
    pub confidence: f64,
}

impl CalleeRef {
    /// The row of a call record; `written` is the call as written.
    pub fn of(r: &CallRow, written: impl FnOnce() -> String) -> Self {
        CalleeRef {
            callee: r
                .target
                .as_ref()
                .map_or_else(written, |t| t.qualname.clone()),
            callee_file: r.target.as_ref().map(|t| t.file.clone()),
            line: r.line,
            resolution: r.resolution.as_str(),
            confidence: r.confidence,
        }
    }
}

/// A resolved call into or out of a file.
#[derive(Clone, Debug, Serialize)]
pub struct EdgeRef {
    /// Qualified name of the caller.
    pub caller: String,
    /// Its file.
    pub caller_file: String,
    /// Qualified name of the callee.
    pub callee: String,
    /// Its file.
    pub callee_file: String,
    /// Line of the call.
    pub line: u32,
    /// Resolution class.
    pub resolution: &'static str,
    /// Confidence of the binding.
    pub confidence: f64,
}

impl EdgeRef {
    /// The row of an edge between two loaded definitions.
    pub fn of(e: &Edge, caller: &SymbolRow, callee: &SymbolRow) -> Self {
        EdgeRef {
            caller: caller.qualname.clone(),
            caller_file: caller.file.clone(),
            callee: callee.qualname.clone(),
            callee_file: callee.file.clone(),
            line: e.line,
            resolution: e.resolution.as_str(),
            confidence: e.confidence,
        }
    }
}

/// Files counted by how often they occur, most first, then by name.
pub fn count_files<'a>(files: impl IntoIterator<Item = &'a str>) -> Vec<FileCalls> {
    let mut m: BTreeMap<&str, u64> = BTreeMap::new();
    for f in files {
        *m.entry(f).or_insert(0) += 1;
    }
    let mut v: Vec<(&str, u64)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.into_iter()
        .map(|(f, n)| FileCalls {
            file: f.to_owned(),
            calls: n,
        })
        .collect()
}
