//! `nav pulse`: one symbol's context card. Identity and docstring, callers (one row
//! per calling definition, with its call-site count), callees (one per name and
//! resolved file), the file's imports and importers, git heat, sibling definitions
//! and the comments inside its body; lists cut to the caps asked, then whole fields
//! dropped (comments first, callers last) until the card fits its token budget.
//!
//! The card is built from the index, plus one parse of the target's file (comments,
//! docstring) and git (`git2`, never a child process) when the project has history.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;
use tsa_index::{CallRow, Index, SymbolRow};
use tsa_lang::Language;

use crate::ToolError;

/// Most rows of `imports` and `imported_by` (they have no cap parameter).
pub const FILE_LIST_CAP: usize = 20;
/// Longest docstring kept, in characters.
const DOC_CHARS: usize = 200;
/// Longest comment kept, in characters.
const COMMENT_CHARS: usize = 80;
/// Commits read from history for the heat of files (newest first).
const HEAT_COMMITS: usize = 2_000;

/// How many rows each list may keep.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub callers: usize,
    pub callees: usize,
    pub siblings: usize,
    pub comments: usize,
}

/// Which card to render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Skeletal,
    Compact,
    Verbose,
}

/// A caller: one calling definition (or one file's module-level code).
#[derive(Clone, Debug, Serialize)]
pub struct Caller {
    pub name: String,
    pub file: String,
    /// The caller's definition line (the first call's line for module-level code).
    pub line: u32,
    /// Commits touching the caller's file in the last 30 days (None without git).
    pub hot30: Option<u32>,
    /// Call sites of the target in this caller.
    pub sites: u32,
}

/// A callee: one name and resolved file.
#[derive(Clone, Debug, Serialize)]
pub struct Callee {
    pub name: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub resolution: &'static str,
}

/// One import of the target's file.
#[derive(Clone, Debug, Serialize)]
pub struct Import {
    pub module: String,
    /// The project file it resolves to, when known.
    pub file: Option<String>,
}

/// A sibling definition of the same file.
#[derive(Clone, Debug, Serialize)]
pub struct Sibling {
    pub name: String,
    pub kind: String,
    pub line: u32,
}

/// A comment inside the body.
#[derive(Clone, Debug, Serialize)]
pub struct Comment {
    pub line: u32,
    pub text: String,
    /// `block` or `inline`.
    pub kind: &'static str,
}

/// Git heat of the symbol.
#[derive(Clone, Debug, Serialize)]
pub struct Heat {
    /// The newest commit owning one of its current lines (blame).
    pub commit: String,
    pub commit_msg: String,
    /// Its time, seconds since the epoch.
    pub at: i64,
    /// Commits touching its file in the last 30 and 90 days.
    pub mod_30d: u32,
    pub mod_90d: u32,
    /// Distinct commits owning its current lines.
    pub mod_all: u32,
    /// `committed`, or `uncommitted` when some of its lines are not committed yet.
    pub state: &'static str,
}

/// A list cut to its cap: the kept rows and the exact total.
#[derive(Clone, Debug)]
pub struct Cut<T> {
    pub rows: Vec<T>,
    pub total: usize,
}

impl<T> Cut<T> {
    fn of(mut all: Vec<T>, cap: usize) -> Cut<T> {
        let total = all.len();
        all.truncate(cap);
        Cut { rows: all, total }
    }
}

/// Everything a card is made of, before its view and budget.
#[derive(Clone, Debug)]
pub struct Pulse {
    pub symbol: SymbolRow,
    pub docstring: Option<String>,
    pub callers: Cut<Caller>,
    pub callees: Cut<Callee>,
    pub imports: Cut<Import>,
    pub imported_by: Cut<String>,
    pub git_heat: Option<Heat>,
    pub siblings: Cut<Sibling>,
    pub comments: Cut<Comment>,
    /// Whether the symbol's language has a call graph, and why not.
    pub call_graph: bool,
    pub call_graph_reason: Option<String>,
    /// Whether imports resolve to files in this language.
    pub imports_graph: bool,
    /// The files the card was built from (target, callers, callees, importers).
    pub files: Vec<String>,
}

/// How a name in a file was looked up.
pub enum Lookup {
    Found(Box<SymbolRow>),
    /// Several definitions: pass `line` or `Class.method`.
    Ambiguous(Vec<SymbolRow>),
    /// None: the closest names defined in the file.
    Missing(Vec<String>),
}

/// Kinds listed as siblings (definitions an agent navigates to).
fn navigable(kind: &str) -> bool {
    !matches!(
        kind,
        "variable" | "constant" | "field" | "section" | "module"
    )
}

/// The definition named `symbol` (`name` or `Owner.name`) in `file`.
pub fn lookup(
    index: &Index,
    file: &str,
    symbol: &str,
    line: Option<u32>,
) -> Result<Lookup, ToolError> {
    let rows = index.symbols_in_file(file)?;
    let (owner, name) = match symbol.rsplit_once(['.', ':']) {
        Some((o, n)) if !n.is_empty() => (Some(o.trim_end_matches(':')), n),
        _ => (None, symbol),
    };
    let mut hits: Vec<SymbolRow> = rows
        .iter()
        .filter(|r| r.name == name)
        .filter(|r| owner.is_none_or(|o| r.owner.as_deref() == Some(o) || r.qualname == symbol))
        .filter(|r| line.is_none_or(|l| r.line == l))
        .cloned()
        .collect();
    match hits.len() {
        1 => Ok(Lookup::Found(Box::new(hits.remove(0)))),
        0 => {
            let mut near: Vec<(f64, String)> = rows
                .iter()
                .map(|r| (strsim::jaro_winkler(&r.name, name), r.name.clone()))
                .filter(|(s, _)| *s >= 0.7)
                .collect();
            near.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            near.dedup_by(|a, b| a.1 == b.1);
            Ok(Lookup::Missing(
                near.into_iter().take(5).map(|(_, n)| n).collect(),
            ))
        }
        _ => Ok(Lookup::Ambiguous(hits)),
    }
}

/// File heat from recent history: commits per file in the last 30 and 90 days.
struct FileHeat {
    d30: HashMap<String, u32>,
    d90: HashMap<String, u32>,
}

fn file_heat(root: &Path) -> Option<FileHeat> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs() as i64;
    let h = crate::history::load_recent(root, now - 90 * 86_400, HEAT_COMMITS).ok()?;
    let mut heat = FileHeat {
        d30: HashMap::new(),
        d90: HashMap::new(),
    };
    for c in h.commits {
        for f in c.files {
            if c.time >= now - 30 * 86_400 {
                *heat.d30.entry(f.clone()).or_insert(0) += 1;
            }
            *heat.d90.entry(f).or_insert(0) += 1;
        }
    }
    Some(heat)
}

/// Builds the card of `target` with lists cut to `caps`.
pub fn gather(
    index: &Index,
    root: &Path,
    target: SymbolRow,
    caps: Caps,
) -> Result<Pulse, ToolError> {
    let lang = Language::from_name(&target.language);
    let full = lang.is_some_and(|l| l.tier() == tsa_lang::Tier::Full);
    let heat = file_heat(root);
    let hot30 = |f: &str| heat.as_ref().map(|h| h.d30.get(f).copied().unwrap_or(0));

    let callers = if full {
        group_callers(index.callers(&[target.id])?, &hot30)
    } else {
        Vec::new()
    };
    let callees = if full {
        group_callees(index.callees(&[target.id])?)
    } else {
        Vec::new()
    };
    let mut imports: Vec<Import> = Vec::new();
    for r in index.imports_of_file(&target.file)? {
        if !imports
            .iter()
            .any(|i| i.module == r.module && i.file == r.target_file)
        {
            imports.push(Import {
                module: r.module,
                file: r.target_file,
            });
        }
    }
    let mut importers: Vec<String> = index
        .importers_of_file(&target.file)?
        .into_iter()
        .map(|r| r.file)
        .collect();
    importers.sort();
    importers.dedup();
    let siblings: Vec<Sibling> = index
        .symbols_in_file(&target.file)?
        .into_iter()
        .filter(|s| s.id != target.id && navigable(&s.kind))
        .map(|s| Sibling {
            name: s.qualname,
            kind: s.kind,
            line: s.line,
        })
        .collect();
    let text = std::fs::read(root.join(&target.file)).ok();
    let (docstring, comments) = match (&text, lang) {
        (Some(t), Some(l)) => read_body(l, t, &target, caps.comments > 0),
        _ => (None, Vec::new()),
    };
    let git_heat = heat.as_ref().and_then(|h| symbol_heat(root, &target, h));

    let mut files: Vec<String> = vec![target.file.clone()];
    files.extend(callers.iter().map(|c| c.file.clone()));
    files.extend(callees.iter().filter_map(|c| c.file.clone()));
    files.extend(importers.iter().take(FILE_LIST_CAP).cloned());
    files.sort();
    files.dedup();
    Ok(Pulse {
        docstring,
        callers: Cut::of(callers, caps.callers),
        callees: Cut::of(callees, caps.callees),
        imports: Cut::of(imports, FILE_LIST_CAP),
        imported_by: Cut::of(importers, FILE_LIST_CAP),
        git_heat,
        siblings: Cut::of(siblings, caps.siblings),
        comments: Cut::of(comments, caps.comments),
        call_graph: full,
        call_graph_reason: (!full)
            .then(|| format!("{}: call-graph not supported", target.language)),
        // Imports resolve to project files in the languages with a call graph.
        imports_graph: full,
        files,
        symbol: target,
    })
}

/// One row per calling definition (module-level code: one per file), hottest first.
fn group_callers(rows: Vec<CallRow>, hot30: &dyn Fn(&str) -> Option<u32>) -> Vec<Caller> {
    let mut slot: HashMap<Result<i64, String>, usize> = HashMap::new();
    let mut out: Vec<Caller> = Vec::new();
    for r in rows {
        let key = r
            .caller
            .as_ref()
            .map(|c| c.id)
            .ok_or_else(|| r.file.clone());
        if let Some(&i) = slot.get(&key) {
            out[i].sites += 1;
            continue;
        }
        slot.insert(key, out.len());
        let (name, line) = match &r.caller {
            Some(c) => (c.qualname.clone(), c.line),
            None => ("<module>".to_owned(), r.line),
        };
        out.push(Caller {
            name,
            hot30: hot30(&r.file),
            file: r.file,
            line,
            sites: 1,
        });
    }
    out.sort_by(|a, b| {
        b.hot30
            .cmp(&a.hot30)
            .then_with(|| a.file.cmp(&b.file))
            .then(a.line.cmp(&b.line))
    });
    out
}

/// One row per (name, resolved file); resolved rows first, then by name.
fn group_callees(rows: Vec<CallRow>) -> Vec<Callee> {
    let mut seen: BTreeMap<(bool, String, Option<String>), Callee> = BTreeMap::new();
    for r in rows {
        let name = match &r.target {
            Some(t) => t.qualname.clone(),
            None => match &r.receiver {
                Some(recv) if recv == "." => format!(".{}", r.callee_name),
                Some(recv) => format!("{recv}.{}", r.callee_name),
                None => r.callee_name.clone(),
            },
        };
        let file = r.target.as_ref().map(|t| t.file.clone());
        let key = (file.is_none(), name.clone(), file.clone());
        seen.entry(key).or_insert_with(|| Callee {
            line: r.target.as_ref().map(|t| t.line),
            name,
            file,
            resolution: r.resolution.as_str(),
        });
    }
    seen.into_values().collect()
}

/// The heat of the symbol's current lines (blame) and of its file (history).
fn symbol_heat(root: &Path, s: &SymbolRow, h: &FileHeat) -> Option<Heat> {
    let (commits, uncommitted) =
        crate::history::blame_range(root, &s.file, s.line, s.end_line).ok()?;
    let newest = commits.first()?;
    Some(Heat {
        commit: newest.id.chars().take(12).collect(),
        commit_msg: newest.summary.chars().take(80).collect(),
        at: newest.time,
        mod_30d: h.d30.get(&s.file).copied().unwrap_or(0),
        mod_90d: h.d90.get(&s.file).copied().unwrap_or(0),
        mod_all: commits.len() as u32,
        state: if uncommitted > 0 {
            "uncommitted"
        } else {
            "committed"
        },
    })
}

/// The docstring and the comments inside the body of `s`, from one parse of its file.
fn read_body(
    lang: Language,
    text: &[u8],
    s: &SymbolRow,
    want_comments: bool,
) -> (Option<String>, Vec<Comment>) {
    let Some(tree) = crate::complexity::parse(lang, text) else {
        return (None, Vec::new());
    };
    let (first, last) = (s.line as usize, s.end_line as usize);
    let mut comments = Vec::new();
    let mut doc = None;
    let mut cursor = tree.walk();
    let mut stack_done = false;
    while !stack_done {
        let node = cursor.node();
        let (a, b) = (node.start_position().row + 1, node.end_position().row + 1);
        let inside = b >= first && a <= last;
        if inside {
            let kind = node.kind();
            if want_comments
                && kind.contains("comment")
                && a >= first
                && let Some(c) = comment_of(node, text)
            {
                comments.push(c);
            }
            if doc.is_none() && lang == Language::Python && a >= first {
                doc = tsa_lang::docs::python_docstring(node, text, DOC_CHARS);
            }
        }
        if inside && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                stack_done = true;
                break;
            }
        }
    }
    if doc.is_none() {
        // The start of line `first`, where the comment block above ends.
        let start = text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(first.saturating_sub(2))
            .map_or(0, |(i, _)| i + 1);
        doc = tsa_lang::docs::comment_above(
            lang,
            text,
            if first <= 1 { 0 } else { start },
            DOC_CHARS,
        );
    }
    (doc, comments)
}

/// A comment node as a row: markers stripped, one line, clipped.
fn comment_of(node: tree_sitter::Node<'_>, text: &[u8]) -> Option<Comment> {
    let t = node.utf8_text(text).ok()?;
    let cleaned = tsa_lang::docs::strip_markers(t);
    if cleaned.is_empty() {
        return None;
    }
    Some(Comment {
        line: node.start_position().row as u32 + 1,
        text: cleaned.chars().take(COMMENT_CHARS).collect(),
        kind: if node.kind().contains("block") || t.trim_start().starts_with("/*") {
            "block"
        } else {
            "inline"
        },
    })
}

/// The compact card (short keys, as 3.0 clients read them).
#[derive(Clone, Debug, Serialize)]
pub struct CompactCard {
    pub sym: CompactSym,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cr: Option<Vec<CompactCaller>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ce: Option<Vec<CompactCallee>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gh: Option<Option<CompactHeat>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub im: Option<Vec<CompactImport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ib: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sib: Option<Vec<CompactSibling>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmt: Option<Vec<CompactComment>>,
    pub tok: usize,
    pub trunc: Vec<&'static str>,
    pub ftr: BTreeMap<&'static str, FieldCut>,
    pub cg: bool,
    pub iga: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgr: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactSym {
    pub n: String,
    pub k: String,
    pub f: String,
    pub l: u32,
    pub el: u32,
    pub lang: String,
    pub cls: Option<String>,
    pub doc: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactCaller {
    pub n: String,
    pub f: String,
    pub l: u32,
    pub h: Option<u32>,
    pub sites: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactCallee {
    pub n: String,
    pub f: Option<String>,
    pub l: Option<u32>,
    pub r: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactHeat {
    pub sha: String,
    pub m: String,
    pub at: i64,
    pub m30: u32,
    pub m90: u32,
    pub mall: u32,
    pub s: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactImport {
    pub m: String,
    pub f: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactSibling {
    pub n: String,
    pub k: String,
    pub l: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompactComment {
    pub l: u32,
    pub t: String,
    pub k: &'static str,
}

/// A list cut by its cap: rows kept, the exact total, and the proven lower bound.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FieldCut {
    pub kept: usize,
    pub total: usize,
    pub at_least: usize,
}

/// The fields in the order the budget drops them.
const DROP_ORDER: [&str; 7] = [
    "comments",
    "siblings",
    "imported_by",
    "imports",
    "git_heat",
    "callees",
    "callers",
];

/// The card in `view`, within `budget` tokens (ceil(minified JSON chars / 4)):
/// whole fields dropped in [`DROP_ORDER`] while over it (the symbol always stays).
pub fn render(p: &Pulse, view: View, budget: usize) -> serde_json::Value {
    if view == View::Skeletal {
        return serde_json::json!({
            "n": p.symbol.qualname,
            "k": p.symbol.kind,
            "f": format!("{}:{}", p.symbol.file, p.symbol.line),
            "callers": p.callers.total,
            "callees": p.callees.total,
            "hot30": p.git_heat.as_ref().map(|h| h.mod_30d),
            "call_graph": p.call_graph,
        });
    }
    let mut dropped: Vec<&'static str> = Vec::new();
    loop {
        let mut v = match view {
            View::Verbose => verbose(p, &dropped),
            _ => serde_json::to_value(compact(p, &dropped)).unwrap_or_default(),
        };
        let tok = v.to_string().chars().count().div_ceil(4);
        let over = tok > budget;
        match DROP_ORDER.iter().find(|f| !dropped.contains(f)) {
            Some(next) if over => dropped.push(next),
            _ => {
                let key = if view == View::Verbose {
                    "token_estimate"
                } else {
                    "tok"
                };
                v[key] = serde_json::json!(tok);
                return v;
            }
        }
    }
}

fn cuts(p: &Pulse) -> BTreeMap<&'static str, FieldCut> {
    let mut m = BTreeMap::new();
    let mut add = |k: &'static str, kept: usize, total: usize| {
        if kept < total {
            m.insert(
                k,
                FieldCut {
                    kept,
                    total,
                    at_least: total,
                },
            );
        }
    };
    add("callers", p.callers.rows.len(), p.callers.total);
    add("callees", p.callees.rows.len(), p.callees.total);
    add("imports", p.imports.rows.len(), p.imports.total);
    add("imported_by", p.imported_by.rows.len(), p.imported_by.total);
    add("siblings", p.siblings.rows.len(), p.siblings.total);
    add("comments", p.comments.rows.len(), p.comments.total);
    m
}

fn keep<T>(dropped: &[&str], field: &str, v: T) -> Option<T> {
    (!dropped.contains(&field)).then_some(v)
}

fn compact(p: &Pulse, dropped: &[&'static str]) -> CompactCard {
    let s = &p.symbol;
    CompactCard {
        sym: CompactSym {
            n: s.name.clone(),
            k: s.kind.clone(),
            f: s.file.clone(),
            l: s.line,
            el: s.end_line,
            lang: s.language.clone(),
            cls: s.owner.clone(),
            doc: p.docstring.clone(),
        },
        cr: keep(dropped, "callers", ()).map(|_| {
            p.callers
                .rows
                .iter()
                .map(|c| CompactCaller {
                    n: c.name.clone(),
                    f: c.file.clone(),
                    l: c.line,
                    h: c.hot30,
                    sites: c.sites,
                })
                .collect()
        }),
        ce: keep(dropped, "callees", ()).map(|_| {
            p.callees
                .rows
                .iter()
                .map(|c| CompactCallee {
                    n: c.name.clone(),
                    f: c.file.clone(),
                    l: c.line,
                    r: c.resolution,
                })
                .collect()
        }),
        gh: keep(dropped, "git_heat", ()).map(|_| {
            p.git_heat.as_ref().map(|h| CompactHeat {
                sha: h.commit.clone(),
                m: h.commit_msg.clone(),
                at: h.at,
                m30: h.mod_30d,
                m90: h.mod_90d,
                mall: h.mod_all,
                s: h.state,
            })
        }),
        im: keep(dropped, "imports", ()).map(|_| {
            p.imports
                .rows
                .iter()
                .map(|i| CompactImport {
                    m: i.module.clone(),
                    f: i.file.clone(),
                })
                .collect()
        }),
        ib: keep(dropped, "imported_by", ()).map(|_| p.imported_by.rows.clone()),
        sib: keep(dropped, "siblings", ()).map(|_| {
            p.siblings
                .rows
                .iter()
                .map(|s| CompactSibling {
                    n: s.name.clone(),
                    k: s.kind.clone(),
                    l: s.line,
                })
                .collect()
        }),
        cmt: keep(dropped, "comments", ()).map(|_| {
            p.comments
                .rows
                .iter()
                .map(|c| CompactComment {
                    l: c.line,
                    t: c.text.clone(),
                    k: c.kind,
                })
                .collect()
        }),
        tok: 0,
        trunc: dropped.to_vec(),
        ftr: cuts(p),
        cg: p.call_graph,
        iga: p.imports_graph,
        cgr: p.call_graph_reason.clone(),
    }
}

fn verbose(p: &Pulse, dropped: &[&'static str]) -> serde_json::Value {
    let s = &p.symbol;
    let mut v = serde_json::json!({
        "symbol": {
            "name": s.name, "kind": s.kind, "file": s.file, "line": s.line,
            "end_line": s.end_line, "language": s.language, "class_name": s.owner,
            "docstring": p.docstring,
        },
    });
    let m = v.as_object_mut().expect("an object");
    let mut put = |k: &'static str, val: serde_json::Value| {
        if !dropped.contains(&k) {
            m.insert(k.into(), val);
        }
    };
    put(
        "callers",
        serde_json::to_value(&p.callers.rows).unwrap_or_default(),
    );
    put(
        "callees",
        serde_json::to_value(&p.callees.rows).unwrap_or_default(),
    );
    put(
        "git_heat",
        serde_json::to_value(&p.git_heat).unwrap_or_default(),
    );
    put(
        "imports",
        serde_json::to_value(&p.imports.rows).unwrap_or_default(),
    );
    put(
        "imported_by",
        serde_json::to_value(&p.imported_by.rows).unwrap_or_default(),
    );
    put(
        "siblings",
        serde_json::to_value(&p.siblings.rows).unwrap_or_default(),
    );
    put(
        "comments",
        serde_json::to_value(&p.comments.rows).unwrap_or_default(),
    );
    m.insert("token_estimate".into(), serde_json::json!(0));
    m.insert("truncated_fields".into(), serde_json::json!(dropped));
    m.insert(
        "field_truncation".into(),
        serde_json::to_value(cuts(p)).unwrap_or_default(),
    );
    m.insert(
        "call_graph_available".into(),
        serde_json::json!(p.call_graph),
    );
    if let Some(r) = &p.call_graph_reason {
        m.insert("call_graph_reason".into(), serde_json::json!(r));
    }
    m.insert(
        "imports_graph_available".into(),
        serde_json::json!(p.imports_graph),
    );
    v
}
