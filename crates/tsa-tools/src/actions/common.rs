//! Helpers shared by actions: opening (or first building) the index, limits,
//! symbol lookup with honest NOT_FOUND answers, and row rendering.

use std::num::NonZeroUsize;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use tsa_analysis::graph::{One, ambiguous, exact_pick};
use tsa_analysis::source::source_file;
use tsa_envelope::{Success, Verdict};
use tsa_index::{BuildOptions, CallRow, Index, SymbolRow};

use crate::heal::QUERY_BUILD_WAIT;
use crate::{Context, ToolError};

// Shared with the graph engine, which lists definitions and caps lists too.
pub use tsa_analysis::graph::{definitions_json, fixed_cap};

/// An open index, and a warning when this call had to build it first.
pub struct Opened {
    pub index: Index,
    pub built_now: Option<String>,
}

/// Opens the project's index, building it on first use. An index that cannot be
/// used (damaged, of a newer tsa, an empty file) is moved aside and rebuilt cold by
/// that build; while another build runs, this waits for it at most
/// [`QUERY_BUILD_WAIT`] (then the answer says the index is being built).
pub fn open_index(ctx: &Context) -> Result<Opened, ToolError> {
    let root = ctx.root()?;
    let damaged = match Index::open(root) {
        Ok(Some(index)) => match index.has_files() {
            Ok(true) => {
                return Ok(Opened {
                    index,
                    built_now: None,
                });
            }
            Ok(false) => return Err(crate::heal::empty_project(None)),
            Err(e) if tsa_index::is_damage(&e) => true,
            Err(e) => return Err(e.into()),
        },
        Ok(None) => false,
        Err(e) if tsa_index::is_damage(&e) => true,
        Err(e) => return Err(e.into()),
    };
    let opts = BuildOptions {
        // Damage seen outside the build lock is confirmed under it.
        verify: damaged,
        lock_wait: Some(QUERY_BUILD_WAIT),
        ..ctx.build_options()
    };
    let report = build_index(ctx, &opts)?;
    let index = Index::open(root)?
        .ok_or_else(|| ToolError::Internal("index missing right after build".into()))?;
    Ok(Opened {
        index,
        // A rebuild after damage is told by its own warning.
        built_now: report.healed.is_none().then(|| {
            format!(
                "index_built_on_first_use: indexed {} files in {} ms",
                report.indexed, report.elapsed_ms
            )
        }),
    })
}

/// Adds every field of a typed payload to `s` as an answer key, in the struct's
/// declaration order (`serde_json` is built with `preserve_order`, so the answer's
/// keys come out in that order). A payload that is not a JSON object adds nothing.
pub fn with_payload<T: serde::Serialize>(mut s: Success, payload: &T) -> Success {
    match serde_json::to_value(payload) {
        Ok(Value::Object(m)) => {
            for (k, v) in m {
                s.insert(&k, v);
            }
        }
        other => debug_assert!(false, "a payload serialises to an object, got {other:?}"),
    }
    s
}

/// Adds every field of a typed `agent_summary` addition to `s`, in declaration
/// order (see [`with_payload`]).
pub fn with_agent_fields<T: serde::Serialize>(mut s: Success, agent: &T) -> Success {
    match serde_json::to_value(agent) {
        Ok(Value::Object(m)) => {
            for (k, v) in m {
                s = s.with_agent(&k, v);
            }
        }
        other => debug_assert!(false, "agent fields serialise to an object, got {other:?}"),
    }
    s
}

/// A typed value as JSON (a row of a capped list, a nested object of an answer).
pub fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A `limit`-style parameter: absent -> default; 0 -> validation error.
pub fn cap(name: &str, value: Option<i64>, default: usize) -> Result<NonZeroUsize, ToolError> {
    match value {
        None => Ok(NonZeroUsize::new(default).unwrap_or(NonZeroUsize::MIN)),
        Some(v) if v >= 1 => Ok(NonZeroUsize::new(v as usize).unwrap_or(NonZeroUsize::MIN)),
        Some(v) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be >= 1, got {v}"
        ))),
    }
}

pub use crate::heal::build_index;

pub use tsa_analysis::signature::split_qualified;

/// The definitions a name refers to, or the NOT_FOUND answer to give instead.
pub enum Targets {
    Found(Vec<SymbolRow>),
    Missing(Success),
}

/// The definitions a name refers to, or why there are none, as typed data.
pub enum Lookup {
    /// The callable definitions the name (and file, when given) matched.
    Found(Vec<SymbolRow>),
    /// No definition matched.
    NotFound(Miss),
}

/// Why a name matched no definition: the payload of the NOT_FOUND answer.
#[derive(Clone, Debug, Serialize)]
pub struct Miss {
    /// The name as asked.
    pub function: String,
    /// The name is defined, but not in the file given.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub file_path_mismatch: bool,
    /// Files defining the name, when it is not in the file given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate_files: Option<Vec<String>>,
    /// Close names in the index (empty when none were looked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
    /// The answer's summary line.
    #[serde(skip)]
    pub summary: String,
    /// What to do next.
    #[serde(skip)]
    pub next_step: String,
}

impl Miss {
    /// The NOT_FOUND answer for this miss.
    pub fn into_success(self) -> Success {
        let s = Success::new(Verdict::NotFound, self.summary.clone());
        with_payload(s, &self).with_next_step(self.next_step)
    }
}

impl From<Lookup> for Targets {
    fn from(l: Lookup) -> Self {
        match l {
            Lookup::Found(d) => Targets::Found(d),
            Lookup::NotFound(m) => Targets::Missing(m.into_success()),
        }
    }
}

/// Missing names of one request that get close names as suggestions (each is an
/// index lookup; a request may name up to 256).
pub const SUGGESTED_MISSES: usize = 8;

/// Looks up `function_name` (optionally qualified) in `file_path`, keeping the
/// kinds that can be called. Never answers for another symbol: a miss is NOT_FOUND
/// with close names as suggestions.
pub fn find_targets(
    ctx: &Context,
    index: &Index,
    tool_label: &str,
    function_name: &str,
    file_path: Option<&str>,
) -> Result<Targets, ToolError> {
    lookup(ctx, index, tool_label, function_name, file_path, true).map(Targets::from)
}

/// Resolves `name` (+ `file_path`) to exactly one callable definition.
pub fn find_one(
    ctx: &Context,
    index: &Index,
    label: &str,
    name: &str,
    file_path: Option<&str>,
) -> Result<One, ToolError> {
    match find_targets(ctx, index, label, name, file_path)? {
        Targets::Missing(s) => Ok(One::Answer(s)),
        Targets::Found(mut defs) if defs.len() == 1 => Ok(One::Found(defs.remove(0), None)),
        Targets::Found(defs) => Ok(match exact_pick(name, &defs) {
            Some((d, w)) => One::Found(d, Some(w)),
            None => One::Answer(ambiguous(label, name, &defs)),
        }),
    }
}

/// [`find_targets`] as typed data, looking for close names on a miss only when
/// `suggest`.
pub fn lookup(
    ctx: &Context,
    index: &Index,
    tool_label: &str,
    function_name: &str,
    file_path: Option<&str>,
    suggest: bool,
) -> Result<Lookup, ToolError> {
    let root: &Path = ctx.root()?;
    if function_name.trim().is_empty() {
        return Err(ToolError::Validation(
            "parameter 'function_name' must be a non-empty string".into(),
        ));
    }
    let file = match file_path {
        Some(p) => Some(source_file(root, p)?),
        None => None,
    };
    let (owner, name) = split_qualified(function_name);
    let defs: Vec<SymbolRow> = index
        .find_symbols(name, owner, file.as_deref())?
        .into_iter()
        .filter(|s| !matches!(s.kind.as_str(), "impl" | "module"))
        .collect();
    if !defs.is_empty() {
        return Ok(Lookup::Found(defs));
    }
    // `gin.Default`, `helpers.url_for`, `store::open`: a qualifier that names no
    // type may name the function's package or module.
    if owner.is_some() {
        let in_module = in_named_module(index, function_name, name, file.as_deref())?;
        if !in_module.is_empty() {
            return Ok(Lookup::Found(in_module));
        }
    }
    let mut miss = Miss {
        function: function_name.to_owned(),
        file_path_mismatch: false,
        candidate_files: None,
        suggestions: None,
        summary: format!("{tool_label}: '{function_name}' not found"),
        next_step: String::new(),
    };
    if let Some(f) = &file {
        let elsewhere: Vec<String> = index
            .find_symbols(name, owner, None)?
            .into_iter()
            .map(|s| s.file)
            .collect();
        if !elsewhere.is_empty() {
            miss.file_path_mismatch = true;
            miss.candidate_files = Some(elsewhere);
            miss.next_step = format!(
                "'{function_name}' is not defined in {f}; re-run with file_path set to one of candidate_files"
            );
            return Ok(Lookup::NotFound(miss));
        }
    }
    let suggestions = if suggest {
        index.suggest(name, 5)?
    } else {
        Vec::new()
    };
    miss.next_step = if !index.has_calls()? {
        "Call-graph index is empty or has not been built yet. Run `index action=full` first, then retry.".to_owned()
    } else if let Some(s) = suggestions.first() {
        format!(
            "Symbol '{function_name}' not in the index. Did you mean '{s}'? Check spelling or qualify as ClassName.method."
        )
    } else {
        format!(
            "Symbol '{function_name}' not in the index. Check spelling, or search with search action=symbol."
        )
    };
    miss.suggestions = Some(suggestions);
    Ok(Lookup::NotFound(miss))
}

/// Module-level definitions of `name` in a package or module that the qualifier of
/// `function_name` names.
fn in_named_module(
    index: &Index,
    function_name: &str,
    name: &str,
    file: Option<&str>,
) -> Result<Vec<SymbolRow>, ToolError> {
    let qualifier = function_name.trim();
    let qualifier = &qualifier[..qualifier.len() - name.len()];
    let qualifier = qualifier.trim_end_matches(['.', ':']);
    let layout = tsa_index::Layout::from_json(index.build_record("layout")?.as_deref());
    Ok(index
        .find_symbols(name, None, file)?
        .into_iter()
        .filter(|s| s.owner.is_none() && !matches!(s.kind.as_str(), "impl" | "module"))
        .filter(|s| module_named(&s.file, qualifier, &layout))
        .collect())
}

/// Whether `qualifier` (`gin`, `flask.helpers`, `crate::store`) names the package
/// or module that `file` is part of: the trailing segments of its path (file stem,
/// then folders; `__init__`, `index`, `mod`, `lib` stand for their folder), or, for
/// a file at a Go module's root, the package its module path declares.
pub(crate) fn module_named(file: &str, qualifier: &str, layout: &tsa_index::Layout) -> bool {
    let q: Vec<&str> = qualifier
        .split(['.', ':', '/'])
        .filter(|p| !p.is_empty() && *p != "crate" && *p != "self" && *p != "super")
        .collect();
    if q.is_empty() {
        return false;
    }
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let base = file.rsplit('/').next().unwrap_or(file);
    let stem = base.split('.').next().unwrap_or(base);
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    if !matches!(stem, "__init__" | "index" | "mod" | "lib" | "main") {
        parts.push(stem);
    }
    let suffix = |parts: &[&str]| parts.len() >= q.len() && parts[parts.len() - q.len()..] == q[..];
    if suffix(&parts) {
        return true;
    }
    // Go: one folder is one package, whatever the file is called; a module root's
    // package is named after its module path.
    if file.ends_with(".go") {
        let folder: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        if suffix(&folder) {
            return true;
        }
        if let [one] = q[..]
            && layout.go_modules.iter().any(|m| {
                m.dir == dir
                    && m.path
                        .rsplit('/')
                        .next()
                        .is_some_and(|last| last.trim_start_matches("go-") == one)
            })
        {
            return true;
        }
    }
    false
}

/// `callee_full`: the call as written, receiver included.
pub fn callee_full(row: &CallRow) -> String {
    match &row.receiver {
        Some(r) if row.path_call => format!("{r}::{}", row.callee_name),
        // Swift's implicit member (`.delay(1)`): the receiver is the bare `.`.
        Some(r) if r == "." => format!(".{}", row.callee_name),
        Some(r) => format!("{r}.{}", row.callee_name),
        None => row.callee_name.clone(),
    }
}

#[cfg(test)]
mod payload_tests {
    use serde::Serialize;
    use tsa_envelope::{Envelope, Success, Verdict};

    use super::{with_agent_fields, with_payload};

    #[derive(Serialize)]
    struct Payload {
        zeta: u32,
        alpha: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        absent: Option<u32>,
        null: Option<u32>,
    }

    #[test]
    fn payload_keys_keep_declaration_order_and_omissions() {
        let p = Payload {
            zeta: 1,
            alpha: "a",
            absent: None,
            null: None,
        };
        let s = with_agent_fields(with_payload(Success::new(Verdict::Info, "x"), &p), &p);
        let keys: Vec<&str> = s.payload().keys().map(String::as_str).collect();
        assert_eq!(keys, ["zeta", "alpha", "null"]);
        let json = Envelope::from(s).to_json();
        let agent: Vec<&str> = json["agent_summary"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            agent,
            [
                "summary_line",
                "verdict",
                "next_step",
                "zeta",
                "alpha",
                "null"
            ]
        );
    }
}

/// `include_bodies`: which listed rows get their source inlined (lean rows: every
/// row names its coordinates; bodies cost the most).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IncludeBodies {
    /// No body; rows are coordinates only.
    None,
    /// The first 3 rows (the default).
    #[default]
    Top,
    /// Every listed row.
    All,
}

impl IncludeBodies {
    /// The rows to inline, as the body reader counts them.
    pub fn rows(self) -> tsa_analysis::source::BodyRows {
        use tsa_analysis::source::BodyRows;
        match self {
            IncludeBodies::None => BodyRows::None,
            IncludeBodies::Top => BodyRows::Top,
            IncludeBodies::All => BodyRows::All,
        }
    }
}

/// The sentence of a next step that says how to get the bodies not inlined.
pub const MORE_BODIES: &str = "include_bodies=all inlines every row's body (up to 40 lines each).";

/// Rows with the same keys in the same order: a key some rows lack is added to them
/// as null. Rows of primitives with one key set are one TOON table (a header, then a
/// line of values per row) instead of a key per value.
pub fn uniform_rows(rows: Vec<Value>) -> Vec<Value> {
    let mut keys: Vec<String> = Vec::new();
    for r in &rows {
        if let Value::Object(m) = r {
            for k in m.keys() {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    }
    rows.into_iter()
        .map(|r| match r {
            Value::Object(mut m) => Value::Object(
                keys.iter()
                    .map(|k| (k.clone(), m.remove(k).unwrap_or(Value::Null)))
                    .collect(),
            ),
            other => other,
        })
        .collect()
}
