//! `project journal`: decisions recorded, searched and superseded, persisted in the
//! index folder (`.tsa/journal.json`, written whole to a temp file and renamed, so a
//! crash never leaves half a journal).

use std::num::NonZeroUsize;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
pub use tsa_analysis::journal::{Entry, covers, load, related};
use tsa_analysis::journal::{Search, save, search};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, to_value, with_payload};
use crate::project_path::ProjectPath;
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
    pub scope_paths: Option<Vec<ProjectPath>>,
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
    pub path_scope: Option<ProjectPath>,
    /// Most decisions listed (1..100, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<i64>,
}

/// A decision with its status.
#[derive(Debug, Serialize)]
pub struct EntryView<'a> {
    #[serde(flatten)]
    pub entry: &'a Entry,
    /// `active` or `superseded`.
    pub status: &'static str,
}

fn view(e: &Entry) -> EntryView<'_> {
    EntryView {
        entry: e,
        status: if e.superseded_by.is_some() {
            "superseded"
        } else {
            "active"
        },
    }
}

/// The payload of every mode (fields a mode lacks are left out).
#[derive(Debug, Default, Serialize)]
struct JournalPayload<'a> {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<EntryView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestions: Option<Vec<&'a str>>,
}

/// `entry_count` after the search's list.
#[derive(Debug, Serialize)]
struct EntryCount {
    entry_count: usize,
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

fn record(root: &Path, args: Args, mut entries: Vec<Entry>) -> Result<Success, ToolError> {
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
        scope.push(tsa_analysis::security::resolve_in_root(root, &p)?.1);
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
    let payload = JournalPayload {
        mode: "record",
        entry: Some(view(&entry)),
        entry_count: Some(entries.len()),
        ..JournalPayload::default()
    };
    Ok(with_payload(Success::new(Verdict::Info, format!("journal: recorded {id}")), &payload)
            .with_next_step(format!(
                "Find it later with project action=journal mode=search; replace it with mode=supersede id={id} new_id=<newer>."
            )))
}

fn get(args: &Args, entries: &[Entry]) -> Result<Success, ToolError> {
    let id = required(&args.id, "id", "get")?;
    match entries.iter().find(|e| e.id == id) {
        Some(e) => Ok(with_payload(
            Success::new(Verdict::Info, format!("journal: {id} {}", e.title)),
            &JournalPayload {
                mode: "get",
                entry: Some(view(e)),
                ..JournalPayload::default()
            },
        )),
        None => Ok(with_payload(
            Success::new(Verdict::NotFound, format!("journal: no decision '{id}'")),
            &JournalPayload {
                mode: "get",
                suggestions: Some(
                    entries
                        .iter()
                        .rev()
                        .take(5)
                        .map(|e| e.id.as_str())
                        .collect(),
                ),
                ..JournalPayload::default()
            },
        )
        .with_next_step("List decisions with project action=journal mode=search.")),
    }
}

fn supersede(root: &Path, args: &Args, mut entries: Vec<Entry>) -> Result<Success, ToolError> {
    let id = required(&args.id, "id", "supersede")?.to_owned();
    let new_id = required(&args.new_id, "new_id", "supersede")?.to_owned();
    if id == new_id {
        return Err(ToolError::Validation(
            "a decision cannot supersede itself".into(),
        ));
    }
    if !entries.iter().any(|e| e.id == new_id) {
        return Ok(with_payload(
            Success::new(
                Verdict::NotFound,
                format!("journal: no decision '{new_id}' to supersede with"),
            ),
            &JournalPayload {
                mode: "supersede",
                ..JournalPayload::default()
            },
        )
        .with_next_step(format!(
            "Record '{new_id}' first (mode=record id={new_id})."
        )));
    }
    let Some(old) = entries.iter_mut().find(|e| e.id == id) else {
        return Ok(with_payload(
            Success::new(Verdict::NotFound, format!("journal: no decision '{id}'")),
            &JournalPayload {
                mode: "supersede",
                ..JournalPayload::default()
            },
        )
        .with_next_step("List decisions with project action=journal mode=search."));
    };
    old.superseded_by = Some(new_id.clone());
    let old = old.clone();
    save(root, &entries)?;
    Ok(with_payload(
        Success::new(
            Verdict::Info,
            format!("journal: {id} superseded by {new_id}"),
        ),
        &JournalPayload {
            mode: "supersede",
            entry: Some(view(&old)),
            ..JournalPayload::default()
        },
    ))
}

fn search_mode(
    root: &Path,
    args: Args,
    entries: &[Entry],
    limit: NonZeroUsize,
) -> Result<Success, ToolError> {
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
        Some(p) => Some(tsa_analysis::security::resolve_in_root(root, p)?.1),
        None => None,
    };
    let hits = search(
        entries,
        &Search {
            words,
            verdict: filter.as_deref(),
            scope: scope.as_deref(),
        },
    );
    let listed = Capped::collect(hits.into_iter().map(|e| to_value(&view(e))), limit);
    let total = listed.total();
    let s = with_payload(
        Success::new(
            if total == 0 {
                Verdict::NotFound
            } else {
                Verdict::Info
            },
            format!("journal: {total} decision(s) of {}", entries.len()),
        ),
        &JournalPayload {
            mode: "search",
            ..JournalPayload::default()
        },
    );
    Ok(with_payload(
        s.with_list(
            ListSpelling {
                list_key: "entries",
                total_key: "match_count",
                listed_key: "entries_listed",
                cap_key: "limit",
                noun: "decisions",
                remedy: "raise limit, or narrow with query, verdict_filter or path_scope".into(),
            },
            listed,
        ),
        &EntryCount {
            entry_count: entries.len(),
        },
    )
    .with_next_step(if total == 0 {
        "No decision matches; record one with mode=record title=... rationale=...".to_owned()
    } else {
        "Newest first; superseded decisions say status=superseded and superseded_by.".to_owned()
    }))
}

impl Action for Journal {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "journal";
    const SUMMARY: &'static str =
        "decision journal: record, get, search and supersede decisions (persisted in .tsa/)";
    const BRIEF: &'static str = "decision journal";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("limit", args.limit.map(|l| l.min(100)), 20)?;
        let entries = load(root)?;
        match args.mode.unwrap_or_default() {
            Mode::Record => record(root, args, entries),
            Mode::Get => get(&args, &entries),
            Mode::Supersede => supersede(root, &args, entries),
            Mode::Search => search_mode(root, args, &entries, limit),
        }
    }
}
