//! `edit classify`: semantic classification of a change per definition — added,
//! removed, renamed, signature_changed, body_changed, moved,
//! whitespace_or_comment_only, docs_only — from two versions given as strings
//! (`classify_string`) or one file at two git revisions (`classify_file`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::git::Repo;
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::semdiff::{self, ChangeKind, Version};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::to_value;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `edit classify`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `classify_string` (old_source + new_source) or `classify_file` (file_path at
    /// old_ref and new_ref); inferred from the arguments when absent.
    #[serde(default)]
    pub mode: Option<String>,
    /// The old text (classify_string).
    #[serde(default)]
    pub old_source: Option<String>,
    /// The new text (classify_string).
    #[serde(default)]
    pub new_source: Option<String>,
    /// Language of the sources (python, rust, ...); inferred from file_path when absent.
    #[serde(default)]
    pub language: Option<String>,
    /// The file to classify between two git revisions (classify_file).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// The old revision (default `HEAD~1`).
    #[serde(default)]
    pub old_ref: Option<String>,
    /// The new revision (default `HEAD`; `WORKTREE` reads the file on disk).
    #[serde(default)]
    pub new_ref: Option<String>,
    /// Add the old/new text of each changed definition (default false).
    #[serde(default)]
    pub include_ast_nodes: Option<bool>,
    /// Most changes to list (default 50). All are counted.
    #[serde(default)]
    pub hunk_cap: Option<i64>,
}

pub struct Classify;

/// Two versions of one source, and where they came from.
pub struct Pair {
    pub language: Language,
    pub old: Version,
    pub new: Version,
    pub source: PairSource,
}

/// Where the two versions of a [`Pair`] came from.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum PairSource {
    /// A file at two git revisions.
    Git {
        file_path: String,
        old_ref: String,
        new_ref: String,
        old_exists: bool,
        new_exists: bool,
    },
    /// Two strings.
    Strings { old_chars: usize, new_chars: usize },
    /// Two project files.
    Files { old_file: String, new_file: String },
}

/// The language named by `language`, else the one of `path`.
pub fn language_of(language: Option<&str>, path: Option<&str>) -> Result<Language, ToolError> {
    if let Some(l) = language.map(str::trim).filter(|l| !l.is_empty()) {
        return Language::from_name(l).ok_or_else(|| ToolError::Language(l.to_owned()));
    }
    match path {
        Some(p) => Language::from_path(p).ok_or_else(|| ToolError::Language(p.to_owned())),
        None => Err(ToolError::Validation(
            "parameter 'language' is required when no file path names the language".into(),
        )),
    }
}

/// Both versions of `rel` at two revisions (a side where the file is missing is empty).
pub fn git_pair(
    ctx: &Context,
    file_path: &str,
    old_ref: Option<&str>,
    new_ref: Option<&str>,
    language: Option<&str>,
) -> Result<Pair, ToolError> {
    let root = ctx.root()?;
    let (_, rel) = resolve_in_root(root, file_path)?;
    let language = language_of(language, Some(&rel))?;
    let repo = Repo::open(root)?;
    let (o, n) = (old_ref.unwrap_or("HEAD~1"), new_ref.unwrap_or("HEAD"));
    let old_text = repo.file_at(root, o, &rel)?;
    let new_text = repo.file_at(root, n, &rel)?;
    if old_text.is_none() && new_text.is_none() {
        return Err(ToolError::NotFound(format!(
            "{rel} (at neither {o} nor {n})"
        )));
    }
    let parse = |t: &Option<String>| -> Result<Version, ToolError> {
        match t {
            Some(t) => semdiff::analyse(language, t),
            None => Ok(Version::empty()),
        }
    };
    Ok(Pair {
        language,
        old: parse(&old_text)?,
        new: parse(&new_text)?,
        source: PairSource::Git {
            file_path: rel.clone(),
            old_ref: o.to_owned(),
            new_ref: n.to_owned(),
            old_exists: old_text.is_some(),
            new_exists: new_text.is_some(),
        },
    })
}

/// Two versions given as strings.
pub fn string_pair(old: &str, new: &str, language: Language) -> Result<Pair, ToolError> {
    Ok(Pair {
        language,
        old: semdiff::analyse(language, old)?,
        new: semdiff::analyse(language, new)?,
        source: PairSource::Strings {
            old_chars: old.len(),
            new_chars: new.len(),
        },
    })
}

fn hunk_cap(v: Option<i64>) -> Result<std::num::NonZeroUsize, ToolError> {
    crate::actions::common::cap("hunk_cap", v, 50)
}

impl Action for Classify {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "classify";
    const SUMMARY: &'static str = "semantic change classification per definition (added/removed/renamed/signature_changed/body_changed/moved/whitespace_or_comment_only/docs_only) from two strings or a file at two git revisions";
    const BRIEF: &'static str = "classify changes per definition";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let mode = match a.mode.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            Some(m @ ("classify_string" | "classify_file")) => m,
            Some(m) => {
                return Err(ToolError::Validation(format!(
                    "mode must be classify_string|classify_file, got '{m}'"
                )));
            }
            None if a.old_source.is_some() || a.new_source.is_some() => "classify_string",
            None if a.file_path.is_some() => "classify_file",
            None => {
                return Err(ToolError::Validation(
                    "give old_source and new_source (with language), or file_path (with old_ref/new_ref)".into(),
                ));
            }
        };
        let cap = hunk_cap(a.hunk_cap)?;
        let pair = if mode == "classify_string" {
            let (Some(o), Some(n)) = (a.old_source.as_deref(), a.new_source.as_deref()) else {
                return Err(ToolError::Validation(
                    "classify_string needs both old_source and new_source".into(),
                ));
            };
            let lang = language_of(a.language.as_deref(), a.file_path.as_deref())?;
            string_pair(o, n, lang)?
        } else {
            let Some(f) = a.file_path.as_deref() else {
                return Err(ToolError::Validation(
                    "classify_file needs file_path".into(),
                ));
            };
            git_pair(
                ctx,
                f,
                a.old_ref.as_deref(),
                a.new_ref.as_deref(),
                a.language.as_deref(),
            )?
        };
        let changes = semdiff::compare(&pair.old, &pair.new);
        let bodies = a.include_ast_nodes.unwrap_or(false);
        let semantic = changes.iter().filter(|c| c.kind.is_semantic()).count();
        let breaking = changes
            .iter()
            .filter(|c| {
                matches!(
                    c.kind,
                    ChangeKind::Removed | ChangeKind::Renamed | ChangeKind::SignatureChanged
                )
            })
            .count();
        let overall = if changes.is_empty() {
            "no_change"
        } else if breaking > 0 {
            "api_change"
        } else if semantic > 0 {
            "behavior_change"
        } else if changes.iter().all(|c| c.kind == ChangeKind::DocsOnly) {
            "docs_only"
        } else {
            "cosmetic"
        };
        let verdict = if changes.is_empty() {
            Verdict::Info
        } else if breaking > 0 {
            Verdict::Review
        } else if semantic > 0 {
            Verdict::Caution
        } else {
            Verdict::Safe
        };
        let rows: Vec<Value> = changes
            .iter()
            .map(|c| semdiff::change_json(c, &pair.old, &pair.new, bodies))
            .collect();
        let mut s = Success::new(
            verdict,
            format!(
                "classify: {} change(s), {semantic} semantic, {breaking} API-affecting ({overall})",
                changes.len()
            ),
        )
        .with("mode", mode)
        .with("language", pair.language.name())
        .with("source", to_value(&pair.source))
        .with("classification", overall)
        .with("counts", semdiff::counts_json(&changes))
        .with("semantic_change_count", semantic)
        .with("breaking_change_count", breaking)
        .with("old_definition_count", pair.old.defs.len())
        .with("new_definition_count", pair.new.defs.len())
        .with_list(
            ListSpelling {
                list_key: "changes",
                total_key: "change_count",
                listed_key: "changes_listed",
                cap_key: "hunk_cap",
                noun: "changes",
                remedy: "raise hunk_cap".into(),
            },
            Capped::collect(rows, cap),
        )
        .with_agent("classification", overall);
        if pair.old.parse_errors > 0 || pair.new.parse_errors > 0 {
            s = s.with_warning("a version has syntax errors: definitions inside broken regions may be misclassified");
        }
        let step = if breaking > 0 {
            "API-affecting changes: check callers with edit action=guard symbol=<changed symbol> modification_type=signature_change"
        } else if semantic > 0 {
            "Behaviour changed: run the tests of the changed definitions (nav action=test_map)"
        } else {
            "No behaviour change detected"
        };
        Ok(s.with_next_step(step))
    }
}
