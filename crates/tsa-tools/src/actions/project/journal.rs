//! `project journal`: decisions recorded, searched and superseded, persisted in the
//! index folder (`.tsa/journal.json`, written whole to a temp file and renamed, so a
//! crash never leaves half a journal).

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::cap;
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

/// Whether the project path `scope` covers `file`: the file itself, a folder above
/// it, or the whole project (`.` or empty).
pub fn covers(scope: &str, file: &str) -> bool {
    let scope = scope.trim_end_matches('/');
    scope.is_empty()
        || scope == "."
        || file == scope
        || (file.starts_with(scope) && file.as_bytes().get(scope.len()) == Some(&b'/'))
}

/// How a decision relates to a change set.
#[derive(Clone, Debug, PartialEq)]
pub struct Related<'a> {
    pub entry: &'a Entry,
    pub verdict: Verdict,
    /// `changed_file`, `affected_file` or `symbol`.
    pub matched_by: &'static str,
    /// The changed/affected file its scope covers, or the changed symbol it names.
    pub matched: String,
}

impl Related<'_> {
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({
            "id": self.entry.id,
            "title": self.entry.title,
            "verdict": self.verdict,
            "matched_by": self.matched_by,
            "recorded_at": self.entry.recorded_at,
        });
        v[if self.matched_by == "symbol" {
            "matched_symbol"
        } else {
            "matched_path"
        }] = json!(self.matched);
        v
    }
}

/// The active (not superseded) decisions whose `scope_paths` cover a changed or an
/// affected file, or whose `related_symbols` name a changed symbol (`(qualified
/// name, name)` pairs; `Type::m` and `Type.m` are the same name). Most severe first
/// in the change-impact order, then by id; the first match of each decision is kept
/// (changed files before affected files before symbols).
pub fn related<'a>(
    entries: &'a [Entry],
    changed: &[&str],
    affected: &[&str],
    symbols: &[(String, String)],
) -> Vec<Related<'a>> {
    let norm = |s: &str| s.trim().replace("::", ".");
    let mut out: Vec<Related<'a>> = entries
        .iter()
        .filter(|e| e.superseded_by.is_none())
        .filter_map(|e| {
            let path_hit = |files: &[&str]| {
                files
                    .iter()
                    .find(|f| e.scope_paths.iter().any(|p| covers(p, f)))
                    .map(|f| (*f).to_owned())
            };
            let (by, matched) = if let Some(f) = path_hit(changed) {
                ("changed_file", f)
            } else if let Some(f) = path_hit(affected) {
                ("affected_file", f)
            } else {
                let hit = symbols.iter().find(|(q, n)| {
                    e.related_symbols.iter().any(|r| {
                        let r = norm(r);
                        !r.is_empty() && (r == norm(q) || r == *n)
                    })
                })?;
                ("symbol", hit.0.clone())
            };
            Some(Related {
                entry: e,
                verdict: Verdict::parse_canonical(&e.verdict).unwrap_or(Verdict::Info),
                matched_by: by,
                matched,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.verdict
            .change_impact_rank()
            .cmp(&a.verdict.change_impact_rank())
            .then_with(|| a.entry.id.cmp(&b.entry.id))
    });
    out
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
    const BRIEF: &'static str = "decision journal";

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
                    Some(p) => Some(tsa_analysis::security::resolve_in_root(root, p)?.1),
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
                                || e.scope_paths.iter().any(|p| covers(s, p) || covers(p, s))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, verdict: &str, scope: &[&str], symbols: &[&str]) -> Entry {
        Entry {
            id: id.into(),
            title: format!("decision {id}"),
            rationale: String::new(),
            verdict: verdict.into(),
            scope_paths: scope.iter().map(|s| (*s).to_owned()).collect(),
            alternatives: Vec::new(),
            related_symbols: symbols.iter().map(|s| (*s).to_owned()).collect(),
            tags: Vec::new(),
            recorded_at: 0,
            superseded_by: None,
        }
    }

    #[test]
    fn scopes_cover_whole_segments() {
        assert!(covers("app", "app/core.py"));
        assert!(covers("app/", "app/core.py"));
        assert!(covers("app/core.py", "app/core.py"));
        assert!(covers(".", "x.py"));
        assert!(!covers("app", "apps/core.py"));
        assert!(!covers("app/core.py", "app/core.pyc"));
    }

    #[test]
    fn related_decisions_match_paths_and_symbols_most_severe_first() {
        let mut old = entry("D-0001", "UNSAFE", &["app"], &[]);
        old.superseded_by = Some("D-0002".into());
        let entries = vec![
            old,
            entry("D-0002", "CAUTION", &["app/core.py"], &[]),
            entry("D-0003", "WARN", &["lib"], &[]),
            entry("D-0004", "REVIEW", &["docs"], &["Engine::run"]),
            entry("D-0005", "UNSAFE", &["other"], &["nothing"]),
        ];
        let symbols = vec![("Engine.run".to_owned(), "run".to_owned())];
        let r = related(&entries, &["app/core.py"], &["lib/x.py"], &symbols);
        let got: Vec<(&str, &str, &str)> = r
            .iter()
            .map(|x| (x.entry.id.as_str(), x.matched_by, x.matched.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("D-0003", "affected_file", "lib/x.py"),
                ("D-0004", "symbol", "Engine.run"),
                ("D-0002", "changed_file", "app/core.py"),
            ]
        );
        assert_eq!(r[0].to_json()["matched_path"], "lib/x.py");
        assert_eq!(r[1].to_json()["matched_symbol"], "Engine.run");
    }
}
