//! `edit ast_diff`: a structural diff of two versions of a source file — which
//! definitions were added, removed or changed, with their old and new line ranges —
//! from two files, two strings, or one file at two git revisions.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tsa_analysis::semdiff::{self, ChangeKind};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, to_value};
use crate::actions::edit::classify::{Pair, PairSource, git_pair, language_of, string_pair};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `edit ast_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `diff_files` (old_file + new_file), `diff_strings` (old_source + new_source) or
    /// `diff_git` (file_path at old_ref and new_ref); inferred when absent.
    #[serde(default)]
    pub mode: Option<String>,
    /// The old file (diff_files).
    #[serde(default)]
    pub old_file: Option<ProjectPath>,
    /// The new file (diff_files).
    #[serde(default)]
    pub new_file: Option<ProjectPath>,
    /// The old text (diff_strings).
    #[serde(default)]
    pub old_source: Option<String>,
    /// The new text (diff_strings).
    #[serde(default)]
    pub new_source: Option<String>,
    /// The file to diff between two git revisions (diff_git).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
    /// The old revision (default `HEAD~1`).
    #[serde(default)]
    pub old_ref: Option<String>,
    /// The new revision (default `HEAD`; `WORKTREE` reads the file on disk).
    #[serde(default)]
    pub new_ref: Option<String>,
    /// Language (inferred from the file names when absent).
    #[serde(default)]
    pub language: Option<String>,
    /// Add the old/new text of each changed definition (default false).
    #[serde(default)]
    pub include_node_bodies: Option<bool>,
}

pub struct AstDiff;

impl Action for AstDiff {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "ast_diff";
    const SUMMARY: &'static str = "structural diff of two versions (files, strings or git revisions): definitions added/removed/changed with line ranges";
    const BRIEF: &'static str = "structural diff of two versions";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let mode = match a.mode.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            Some(m @ ("diff_files" | "diff_strings" | "diff_git")) => m,
            Some(m) => {
                return Err(ToolError::Validation(format!(
                    "mode must be diff_files|diff_strings|diff_git, got '{m}'"
                )));
            }
            None if a.old_file.is_some() || a.new_file.is_some() => "diff_files",
            None if a.old_source.is_some() || a.new_source.is_some() => "diff_strings",
            None if a.file_path.is_some() => "diff_git",
            None => {
                return Err(ToolError::Validation(
                    "give old_file + new_file, old_source + new_source (with language), or file_path (with old_ref/new_ref)".into(),
                ));
            }
        };
        let pair: Pair = match mode {
            "diff_files" => {
                let (Some(o), Some(n)) = (a.old_file.as_deref(), a.new_file.as_deref()) else {
                    return Err(ToolError::Validation(
                        "diff_files needs both old_file and new_file".into(),
                    ));
                };
                let (o, n) = (source_file(root, o)?, source_file(root, n)?);
                let lang = language_of(a.language.as_deref(), Some(&n))?;
                let read = |p: &str| tsa_analysis::security::read_text_in_root(root, p);
                let mut p = string_pair(&read(&o)?, &read(&n)?, lang)?;
                p.source = PairSource::Files {
                    old_file: o,
                    new_file: n,
                };
                p
            }
            "diff_strings" => {
                let (Some(o), Some(n)) = (a.old_source.as_deref(), a.new_source.as_deref()) else {
                    return Err(ToolError::Validation(
                        "diff_strings needs both old_source and new_source".into(),
                    ));
                };
                string_pair(
                    o,
                    n,
                    language_of(a.language.as_deref(), a.file_path.as_deref())?,
                )?
            }
            _ => {
                let Some(f) = a.file_path.as_deref() else {
                    return Err(ToolError::Validation("diff_git needs file_path".into()));
                };
                git_pair(
                    ctx,
                    f,
                    a.old_ref.as_deref(),
                    a.new_ref.as_deref(),
                    a.language.as_deref(),
                )?
            }
        };
        let bodies = a.include_node_bodies.unwrap_or(false);
        let changes = semdiff::compare(&pair.old, &pair.new);
        let rows = |pick: &dyn Fn(ChangeKind) -> bool| -> Vec<Value> {
            changes
                .iter()
                .filter(|c| pick(c.kind))
                .map(|c| semdiff::change_json(c, &pair.old, &pair.new, bodies))
                .collect()
        };
        let added = rows(&|k| k == ChangeKind::Added);
        let removed = rows(&|k| k == ChangeKind::Removed);
        let changed = rows(&|k| !matches!(k, ChangeKind::Added | ChangeKind::Removed));
        let (na, nr, nc) = (added.len(), removed.len(), changed.len());
        let verdict = if changes.is_empty() {
            Verdict::Info
        } else {
            Verdict::Review
        };
        let spelling = |key: &'static str,
                        total: &'static str,
                        listed: &'static str,
                        cap: &'static str,
                        noun: &'static str| ListSpelling {
            list_key: key,
            total_key: total,
            listed_key: listed,
            cap_key: cap,
            noun,
            remedy: "use edit action=classify with hunk_cap for a longer list".into(),
        };
        let mut s = Success::new(
            verdict,
            format!("ast_diff: +{na} -{nr} ~{nc} definitions ({mode})"),
        )
        .with("mode", mode)
        .with("language", pair.language.name())
        .with("source", to_value(&pair.source))
        .with("old_definition_count", pair.old.defs.len())
        .with("new_definition_count", pair.new.defs.len())
        .with("identical", changes.is_empty())
        .with("counts", semdiff::counts_json(&changes))
        .with_list(
            spelling(
                "added",
                "added_count",
                "added_listed",
                "added_cap",
                "added definitions",
            ),
            Capped::collect(added, fixed_cap(100)),
        )
        .with_list(
            spelling(
                "removed",
                "removed_count",
                "removed_listed",
                "removed_cap",
                "removed definitions",
            ),
            Capped::collect(removed, fixed_cap(100)),
        )
        .with_list(
            spelling(
                "changed",
                "changed_count",
                "changed_listed",
                "changed_cap",
                "changed definitions",
            ),
            Capped::collect(changed, fixed_cap(100)),
        );
        if pair.old.parse_errors > 0 || pair.new.parse_errors > 0 {
            s = s.with_warning(
                "a version has syntax errors: the structure inside broken regions is partial",
            );
        }
        let step = if changes.is_empty() {
            "No structural difference"
        } else {
            "Classify the changes semantically with edit action=classify, or check callers with edit action=guard"
        };
        Ok(s.with_next_step(step))
    }
}
