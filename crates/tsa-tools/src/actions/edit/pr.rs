//! `edit pr`: a structural review of a change set (by default the current branch
//! against its merge base with main/master): per file, the definitions changed and
//! how (the classification of `edit classify`), and the blast radius in the index —
//! callers of changed definitions and files depending on changed files.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::git::Repo;
use tsa_analysis::semdiff::{self, ChangeKind};
use tsa_analysis::trust::Completeness;
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index};
use crate::actions::edit::common::{FileAnalysis, analyse_file, blast, parse_mode};
use crate::{Context, ToolError};

/// Arguments of `edit pr`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `branch` (default: HEAD vs its merge base with main/master), `diff`
    /// (unstaged), `staged`, or `pr` (a GitHub PR: not available offline).
    #[serde(default)]
    pub mode: Option<String>,
    /// A GitHub pull request URL: needs gh and the network, refused offline.
    #[serde(default)]
    pub pr_url: Option<String>,
    /// List the resolved callers of changed definitions (default true).
    #[serde(default)]
    pub include_call_graph: Option<bool>,
}

pub struct Pr;

/// How `edit pr` chooses its verdict (the first line of `verdict_basis`).
const PR_VERDICT_RULE: &str = "risk_level from affected files (0-2 low, 3-8 medium, more high; no semantic change: low), at least medium when a removal/rename/signature change has callers, raised to each changed definition's trust floor (unresolved same-name call sites, unknown graph, public API); then Verdict::from_impact";

fn level_name(l: ImpactLevel) -> &'static str {
    match l {
        ImpactLevel::None => "none",
        ImpactLevel::Low => "low",
        ImpactLevel::Medium => "medium",
        ImpactLevel::High => "high",
    }
}

impl Action for Pr {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "pr";
    const SUMMARY: &'static str = "structural review of the branch vs its base (or staged/unstaged): changed definitions classified per file, callers and dependents of the change";
    const BRIEF: &'static str = "structural review of a branch";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let mode = parse_mode(a.mode.as_deref(), a.pr_url.as_deref(), "branch")?;
        let repo = Repo::open(root)?;
        let set = repo.changes(mode)?;
        let linked = set.linked.clone();
        let mode_name = mode.name();
        let base = set
            .base
            .as_ref()
            .map(|(b, sha)| json!({"branch": b, "merge_base": sha}));
        if set.files.is_empty() {
            let mut s = Success::new(
                Verdict::Safe,
                format!("pr_review mode={mode_name} changed=0"),
            )
            .with("mode", mode_name)
            .with("summary", "No changes detected")
            .with("changed_count", 0)
            .with("files", json!([]))
            .with_agent("risk", "none");
            if let Some(b) = base {
                s = s.with("base", b);
            }
            return Ok(s.with_next_step("No changes against the base: nothing to review"));
        }
        let opened = open_index(ctx)?;
        let files: Vec<FileAnalysis> = set
            .files
            .into_iter()
            .map(analyse_file)
            .collect::<Result<_, _>>()?;
        let b = blast(&opened.index, ctx.root()?, &files)?;
        let mut all_changes = Vec::new();
        let file_rows: Vec<Value> = files
            .iter()
            .map(|f| {
                all_changes.extend(f.changes.iter().map(|c| c.kind));
                let mut per: BTreeMap<&str, usize> = BTreeMap::new();
                for c in &f.changes {
                    *per.entry(c.kind.as_str()).or_default() += 1;
                }
                json!({
                    "file": f.change.path,
                    "status": f.change.status,
                    "language": f.language.map(|l| l.name()),
                    "added_lines": f.change.added_lines,
                    "deleted_lines": f.change.deleted_lines,
                    "change_counts": per,
                    "direct_dependents": b.direct.get(&f.change.path).map_or(0, Vec::len),
                })
            })
            .collect();
        let change_rows: Vec<Value> = files.iter().flat_map(|f| f.symbol_rows(false)).collect();
        let breaking = all_changes
            .iter()
            .filter(|k| {
                matches!(
                    k,
                    ChangeKind::Removed | ChangeKind::Renamed | ChangeKind::SignatureChanged
                )
            })
            .count();
        let semantic = all_changes.iter().filter(|k| k.is_semantic()).count();
        let mut level = match b.affected.len() {
            0..=2 => ImpactLevel::Low,
            3..=8 => ImpactLevel::Medium,
            _ => ImpactLevel::High,
        };
        if semantic == 0 {
            level = ImpactLevel::Low;
        }
        let mut counts_by_target: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, t, _) in &b.callers {
            *counts_by_target.entry(t.as_str()).or_default() += 1;
        }
        let broken_callers = files
            .iter()
            .flat_map(|f| f.caller_relevant())
            .filter(|(_, k)| {
                matches!(
                    k,
                    ChangeKind::Removed | ChangeKind::Renamed | ChangeKind::SignatureChanged
                )
            })
            .map(|(q, _)| counts_by_target.get(q.as_str()).copied().unwrap_or(0))
            .sum::<usize>();
        if broken_callers > 0 {
            level = level.max(ImpactLevel::Medium);
        }
        // The trust of each changed definition's callers (unresolved same-name call
        // sites, unknown graph, public API) is a floor, as in edit impact.
        let mut completeness = Completeness::Complete;
        let mut basis = vec![PR_VERDICT_RULE.to_owned()];
        for d in &b.defs {
            completeness = completeness.max(d.trust.completeness);
            let floor = d.trust.floor(d.change());
            if floor > level {
                level = floor;
            }
            if !d.trust.settled() {
                basis.push(format!(
                    "{} ({}): {}",
                    d.symbol,
                    d.kind.as_str(),
                    d.trust.basis().join("; ")
                ));
            }
        }
        basis.truncate(11);
        let verdict = Verdict::from_impact(level);
        let risk = level_name(level);
        let spelling = |key: &'static str,
                        total: &'static str,
                        listed: &'static str,
                        cap: &'static str,
                        noun: &'static str,
                        remedy: &str| ListSpelling {
            list_key: key,
            total_key: total,
            listed_key: listed,
            cap_key: cap,
            noun,
            remedy: remedy.to_owned(),
        };
        let mut s = Success::new(
            verdict,
            format!(
                "pr_review mode={mode_name} changed={} definitions={} breaking={breaking} callers={} affected={} risk={risk}",
                files.len(),
                change_rows.len(),
                b.callers.len(),
                b.affected.len()
            ),
        )
        .with("mode", mode_name)
        .with("risk_level", risk)
        .with("completeness", completeness.as_str())
        .with("verdict_basis", json!(basis))
        .with("counts", semdiff::counts_json(&files.iter().flat_map(|f| f.changes.clone()).collect::<Vec<_>>()))
        .with("semantic_change_count", semantic)
        .with("breaking_change_count", breaking)
        .with("callers_of_breaking_changes", broken_callers)
        .with("caller_count", b.callers.len())
        .with(
            "blast_radius",
            json!({"callers": b.callers.len(), "affected_files": b.affected.len(), "changed_definitions_in_index": b.targets.len(), "callers_per_definition": counts_by_target}),
        )
        .with_list(spelling("files", "changed_count", "files_listed", "files_cap", "changed files", "review with edit action=impact scope_paths=<dir>"), Capped::collect(file_rows, fixed_cap(50)))
        .with_list(spelling("changes", "change_count", "changes_listed", "changes_cap", "changed definitions", "edit action=classify file_path=<file> per file"), Capped::collect(change_rows, fixed_cap(100)))
        .with_list(spelling("affected_files", "affected_count", "affected_files_listed", "affected_files_cap", "affected files", "edit action=impact lists them with tests"), Capped::collect(b.affected.iter().map(|f| json!(f)), fixed_cap(50)))
        .with_agent("risk", risk)
        .with_agent("breaking_change_count", breaking);
        if let Some(bv) = base {
            s = s.with("base", bv);
        }
        if a.include_call_graph.unwrap_or(true) {
            let rows: Vec<Value> = b
                .callers
                .iter()
                .map(|(c, t, line)| json!({"caller": c.qualname, "file": c.file, "line": line, "calls": t, "is_test": c.is_test}))
                .collect();
            s = s.with_list(
                spelling(
                    "call_graph",
                    "call_edge_count",
                    "call_edges_listed",
                    "call_edges_cap",
                    "call edges",
                    "nav action=callers function_name=<changed symbol>",
                ),
                Capped::collect(rows, fixed_cap(100)),
            );
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        let step = if broken_callers > 0 {
            format!(
                "{broken_callers} call site(s) reach removed/renamed/re-signed definitions: check them in call_graph before merging"
            )
        } else {
            "Run edit action=impact mode=branch for the tests to run".to_owned()
        };
        Ok(tsa_analysis::security::warn_linked(
            s.with_next_step(step),
            &linked,
        ))
    }
}
