//! The decision journal of `project journal` (and the decisions `edit impact`
//! weighs): decisions persisted in the index folder (`.tsa/journal.json`, written
//! whole to a temp file and renamed, so a crash never leaves half a journal), the
//! decisions a change set touches, and the journal's search.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tsa_envelope::Verdict;

use crate::error::ToolError;

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

pub fn save(root: &Path, entries: &[Entry]) -> Result<(), ToolError> {
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

/// A related decision as a row of an answer.
#[derive(Clone, Debug, Serialize)]
pub struct RelatedRow<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub verdict: Verdict,
    /// `changed_file`, `affected_file` or `symbol`.
    pub matched_by: &'static str,
    pub recorded_at: u64,
    /// The file its scope covers (path matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_path: Option<&'a str>,
    /// The changed symbol it names (symbol matches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_symbol: Option<&'a str>,
}

impl Related<'_> {
    /// The decision as a row.
    pub fn row(&self) -> RelatedRow<'_> {
        let symbol = self.matched_by == "symbol";
        RelatedRow {
            id: &self.entry.id,
            title: &self.entry.title,
            verdict: self.verdict,
            matched_by: self.matched_by,
            recorded_at: self.entry.recorded_at,
            matched_path: (!symbol).then_some(self.matched.as_str()),
            matched_symbol: symbol.then_some(self.matched.as_str()),
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.row()).unwrap_or_default()
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

/// What a journal search asks for.
#[derive(Clone, Debug, Default)]
pub struct Search<'a> {
    /// Every word must occur (lower case) in the id, title, rationale, tags,
    /// related symbols or scope paths.
    pub words: Vec<String>,
    /// Only this canonical verdict.
    pub verdict: Option<&'a str>,
    /// Only decisions whose scope touches this path (either covers the other).
    pub scope: Option<&'a str>,
}

/// The entries matching `q`, newest first.
pub fn search<'a>(entries: &'a [Entry], q: &Search<'_>) -> Vec<&'a Entry> {
    entries
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
            q.words.iter().all(|w| hay.contains(w.as_str()))
        })
        .filter(|e| q.verdict.is_none_or(|v| e.verdict == v))
        .filter(|e| {
            q.scope.is_none_or(|s| {
                s.is_empty() || e.scope_paths.iter().any(|p| covers(s, p) || covers(p, s))
            })
        })
        .collect()
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
        assert!(r[1].to_json().get("matched_path").is_none());
    }

    #[test]
    fn search_is_newest_first_by_words_verdict_and_scope() {
        let entries = vec![
            entry("D-1", "CAUTION", &["app"], &["build"]),
            entry("D-2", "REVIEW", &["lib/x.py"], &[]),
        ];
        let ids = |q: &Search<'_>| -> Vec<String> {
            search(&entries, q).iter().map(|e| e.id.clone()).collect()
        };
        assert_eq!(ids(&Search::default()), ["D-2", "D-1"]);
        let words = Search {
            words: vec!["build".into()],
            ..Search::default()
        };
        assert_eq!(ids(&words), ["D-1"]);
        let verdict = Search {
            verdict: Some("REVIEW"),
            ..Search::default()
        };
        assert_eq!(ids(&verdict), ["D-2"]);
        let scope = Search {
            scope: Some("app/core.py"),
            ..Search::default()
        };
        assert_eq!(ids(&scope), ["D-1"]);
    }
}
