//! `project journal`: decisions recorded, searched and superseded, persisted in the
//! index folder (`.tsa/journal.json`, written whole to a temp file and renamed, so a
//! crash never leaves half a journal).

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use super::common::cap;
use crate::action::Action;
use crate::{Context, ToolError};

/// What to do.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Record,
    Get,
    #[default]
    Search,
    Supersede,
}

/// Arguments of `project journal`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Decision id (record: optional, else `D-0001`...; get/supersede: required).
    #[serde(default)]
    pub id: Option<String>,
    /// Supersede: the decision that replaces `id`.
    #[serde(default)]
    pub new_id: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub rationale: Option<String>,
    /// The verdict the decision carries (SAFE, CAUTION, REVIEW, UNSAFE, INFO, WARN).
    #[serde(default)]
    pub verdict: Option<String>,
    /// Project paths the decision is about.
    #[serde(default)]
    pub scope_paths: Option<Vec<String>>,
    #[serde(default)]
    pub alternatives: Option<Vec<String>>,
    #[serde(default)]
    pub related_symbols: Option<Vec<String>>,
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Search: words that must all appear (title, rationale, tags, symbols, paths).
    #[serde(default)]
    pub query: Option<String>,
    /// Search: only decisions with this verdict.
    #[serde(default)]
    pub verdict_filter: Option<String>,
    /// Search: only decisions whose scope touches this path prefix.
    #[serde(default)]
    pub path_scope: Option<String>,
    /// Most decisions listed (1..100, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<i64>,
}

/// One recorded decision.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub rationale: String,
    pub verdict: String,
    pub scope_paths: Vec<String>,
    pub alternatives: Vec<String>,
    pub related_symbols: Vec<String>,
    pub tags: Vec<String>,
    pub recorded_at: u64,
    pub superseded_by: Option<String>,
}

fn journal_path(root: &Path) -> Result<std::path::PathBuf, ToolError> {
    Ok(tsa_index::state_path(root, "journal.json")?)
}

/// The recorded decisions (none when the journal does not exist yet).
pub fn load(root: &Path) -> Result<Vec<Entry>, ToolError> {
    match std::fs::read(journal_path(root)?) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| ToolError::Internal(format!("journal.json is unreadable: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(ToolError::Internal(format!("reading journal.json: {e}"))),
    }
}

fn save(root: &Path, entries: &[Entry]) -> Result<(), ToolError> {
    let path = journal_path(root)?;
    let io = |e: std::io::Error| ToolError::Internal(format!("writing journal.json: {e}"));
    std::fs::create_dir_all(tsa_index::state_path(root, "")?).map_err(io)?;
    let tmp = tsa_index::state_path(root, "journal.json.tmp")?;
    let bytes =
        serde_json::to_vec_pretty(entries).map_err(|e| ToolError::Internal(e.to_string()))?;
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)
}

fn entry_json(e: &Entry) -> serde_json::Value {
    let mut v = serde_json::to_value(e).unwrap_or_default();
    v["status"] = json!(if e.superseded_by.is_some() {
        "superseded"
    } else {
        "active"
    });
    v
}

fn canonical_verdict(v: &str) -> Result<String, ToolError> {
    let up = v.trim().to_uppercase();
    match Verdict::parse_canonical(&up) {
        Some(Verdict::Error) | Some(Verdict::NotFound) | None => Err(ToolError::Validation(
            format!("verdict must be one of SAFE, CAUTION, REVIEW, UNSAFE, INFO, WARN; got '{v}'"),
        )),
        Some(x) => Ok(x.as_str().to_owned()),
    }
}

fn required<'a>(v: &'a Option<String>, name: &str, mode: &str) -> Result<&'a str, ToolError> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ToolError::Validation(format!("journal mode={mode} needs '{name}'")))
}

pub struct Journal;

impl Action for Journal {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "journal";
    const SUMMARY: &'static str =
        "decision journal: record, get, search and supersede decisions (persisted in .tsa/)";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("limit", args.limit.map(|l| l.min(100)), 20)?;
        let mut entries = load(root)?;
        match args.mode.unwrap_or_default() {
            Mode::Record => {
                let title = required(&args.title, "title", "record")?.to_owned();
                let rationale = required(&args.rationale, "rationale", "record")?.to_owned();
                let id = match args.id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                    Some(id) => id.to_owned(),
                    None => format!("D-{:04}", entries.len() + 1),
                };
                if entries.iter().any(|e| e.id == id) {
                    return Err(ToolError::Validation(format!(
                        "decision '{id}' exists already; record under a new id, then supersede '{id}'"
                    )));
                }
                let mut scope = Vec::new();
                for p in args.scope_paths.unwrap_or_default() {
                    scope.push(crate::security::resolve_in_root(root, &p)?.1);
                }
                let entry = Entry {
                    id: id.clone(),
                    title,
                    rationale,
                    verdict: canonical_verdict(args.verdict.as_deref().unwrap_or("INFO"))?,
                    scope_paths: scope,
                    alternatives: args.alternatives.unwrap_or_default(),
                    related_symbols: args.related_symbols.unwrap_or_default(),
                    tags: args.tags.unwrap_or_default(),
                    recorded_at: std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs()),
                    superseded_by: None,
                };
                entries.push(entry.clone());
                save(root, &entries)?;
                Ok(Success::new(Verdict::Info, format!("journal: recorded {id}"))
                    .with("mode", "record")
                    .with("entry", entry_json(&entry))
                    .with("entry_count", entries.len())
                    .with_next_step(format!(
                        "Find it later with project action=journal mode=search; replace it with mode=supersede id={id} new_id=<newer>."
                    )))
            }
            Mode::Get => {
                let id = required(&args.id, "id", "get")?;
                match entries.iter().find(|e| e.id == id) {
                    Some(e) => Ok(Success::new(
                        Verdict::Info,
                        format!("journal: {id} {}", e.title),
                    )
                    .with("mode", "get")
                    .with("entry", entry_json(e))),
                    None => Ok(Success::new(
                        Verdict::NotFound,
                        format!("journal: no decision '{id}'"),
                    )
                    .with("mode", "get")
                    .with(
                        "suggestions",
                        json!(
                            entries
                                .iter()
                                .rev()
                                .take(5)
                                .map(|e| e.id.clone())
                                .collect::<Vec<_>>()
                        ),
                    )
                    .with_next_step("List decisions with project action=journal mode=search.")),
                }
            }
            Mode::Supersede => {
                let id = required(&args.id, "id", "supersede")?.to_owned();
                let new_id = required(&args.new_id, "new_id", "supersede")?.to_owned();
                if id == new_id {
                    return Err(ToolError::Validation(
                        "a decision cannot supersede itself".into(),
                    ));
                }
                if !entries.iter().any(|e| e.id == new_id) {
                    return Ok(Success::new(
                        Verdict::NotFound,
                        format!("journal: no decision '{new_id}' to supersede with"),
                    )
                    .with("mode", "supersede")
                    .with_next_step(format!(
                        "Record '{new_id}' first (mode=record id={new_id})."
                    )));
                }
                let Some(old) = entries.iter_mut().find(|e| e.id == id) else {
                    return Ok(Success::new(
                        Verdict::NotFound,
                        format!("journal: no decision '{id}'"),
                    )
                    .with("mode", "supersede")
                    .with_next_step("List decisions with project action=journal mode=search."));
                };
                old.superseded_by = Some(new_id.clone());
                let old = old.clone();
                save(root, &entries)?;
                Ok(Success::new(
                    Verdict::Info,
                    format!("journal: {id} superseded by {new_id}"),
                )
                .with("mode", "supersede")
                .with("entry", entry_json(&old)))
            }
            Mode::Search => {
                let words: Vec<String> = args
                    .query
                    .as_deref()
                    .unwrap_or("")
                    .split_whitespace()
                    .map(str::to_lowercase)
                    .collect();
                let filter = match args.verdict_filter.as_deref() {
                    Some(v) => Some(canonical_verdict(v)?),
                    None => None,
                };
                let scope = match args.path_scope.as_deref() {
                    Some(p) => Some(crate::security::resolve_in_root(root, p)?.1),
                    None => None,
                };
                let hits: Vec<&Entry> = entries
                    .iter()
                    .rev()
                    .filter(|e| {
                        let hay = format!(
                            "{} {} {} {} {} {}",
                            e.id,
                            e.title,
                            e.rationale,
                            e.tags.join(" "),
                            e.related_symbols.join(" "),
                            e.scope_paths.join(" ")
                        )
                        .to_lowercase();
                        words.iter().all(|w| hay.contains(w.as_str()))
                    })
                    .filter(|e| filter.as_ref().is_none_or(|v| &e.verdict == v))
                    .filter(|e| {
                        scope.as_ref().is_none_or(|s| {
                            s.is_empty()
                                || e.scope_paths.iter().any(|p| {
                                    p == s
                                        || p.starts_with(&format!("{s}/"))
                                        || s.starts_with(&format!("{p}/"))
                                })
                        })
                    })
                    .collect();
                let listed = Capped::collect(hits.into_iter().map(entry_json), limit);
                let total = listed.total();
                Ok(Success::new(
                    if total == 0 {
                        Verdict::NotFound
                    } else {
                        Verdict::Info
                    },
                    format!("journal: {total} decision(s) of {}", entries.len()),
                )
                .with("mode", "search")
                .with_list(
                    ListSpelling {
                        list_key: "entries",
                        total_key: "match_count",
                        listed_key: "entries_listed",
                        cap_key: "limit",
                        noun: "decisions",
                        remedy: "raise limit, or narrow with query, verdict_filter or path_scope"
                            .into(),
                    },
                    listed,
                )
                .with("entry_count", entries.len())
                .with_next_step(if total == 0 {
                    "No decision matches; record one with mode=record title=... rationale=..."
                        .to_owned()
                } else {
                    "Newest first; superseded decisions say status=superseded and superseded_by."
                        .to_owned()
                }))
            }
        }
    }
}
