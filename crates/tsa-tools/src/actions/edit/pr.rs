//! `edit pr`: a structural review of a change set (by default the current branch
//! against its merge base with main/master): per file, the definitions changed and
//! how (the classification of `edit classify`), and the blast radius in the index —
//! callers of changed definitions and files depending on changed files.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::git::Repo;
use tsa_analysis::semdiff::{self, ChangeKind};
use tsa_analysis::trust::Completeness;
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, to_value, with_agent_fields, with_payload};
use crate::actions::edit::common::{Blast, FileAnalysis, analyse_file, blast, parse_mode};
use crate::actions::edit::impact::Base;
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

/// The payload of a change set with no change.
#[derive(Debug, Serialize)]
struct NoChanges<'a> {
    mode: &'static str,
    summary: &'static str,
    changed_count: usize,
    files: [Value; 0],
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<Base<'a>>,
}

/// The `agent_summary` additions of `edit pr`.
#[derive(Debug, Serialize)]
pub struct PrAgent {
    pub risk: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaking_change_count: Option<usize>,
}

/// The blast radius of the change in the index.
#[derive(Debug, Serialize)]
pub struct BlastRadius<'a> {
    pub callers: usize,
    pub affected_files: usize,
    pub changed_definitions_in_index: usize,
    pub callers_per_definition: &'a BTreeMap<&'a str, usize>,
}

/// The payload of `edit pr`, in answer order (its capped lists follow).
#[derive(Debug, Serialize)]
pub struct PrPayload<'a> {
    pub mode: &'static str,
    pub risk_level: &'static str,
    pub completeness: &'static str,
    pub verdict_basis: &'a [String],
    /// Changed definitions per change kind (`semdiff::counts_json`).
    pub counts: Value,
    pub semantic_change_count: usize,
    pub breaking_change_count: usize,
    pub callers_of_breaking_changes: usize,
    pub caller_count: usize,
    pub blast_radius: BlastRadius<'a>,
}

/// The merge base, after the lists.
#[derive(Debug, Serialize)]
struct BaseTail<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<Base<'a>>,
}

/// A changed file, as a row of `files`.
#[derive(Debug, Serialize)]
pub struct PrFileRow<'a> {
    pub file: &'a str,
    pub status: &'static str,
    pub language: Option<&'static str>,
    pub added_lines: usize,
    pub deleted_lines: usize,
    /// Changes per kind, `kind=n` space-separated (one string: the rows stay a TOON
    /// table).
    #[serde(serialize_with = "counts_text")]
    pub change_counts: BTreeMap<&'static str, usize>,
    pub direct_dependents: usize,
}

fn counts_text<S: serde::Serializer>(
    counts: &BTreeMap<&'static str, usize>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{k}={n}")).collect();
    s.serialize_str(&parts.join(" "))
}

/// A resolved call into a changed definition, as a row of `call_graph`.
#[derive(Debug, Serialize)]
pub struct CallEdgeRow<'a> {
    pub caller: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub calls: &'a str,
    pub is_test: bool,
}

fn is_breaking(k: ChangeKind) -> bool {
    matches!(
        k,
        ChangeKind::Removed | ChangeKind::Renamed | ChangeKind::SignatureChanged
    )
}

/// The review's figures: risk and what raised it.
struct Review<'a> {
    level: ImpactLevel,
    completeness: Completeness,
    basis: Vec<String>,
    semantic: usize,
    breaking: usize,
    broken_callers: usize,
    counts_by_target: BTreeMap<&'a str, usize>,
}

/// Risk from the affected files, at least medium when a breaking change has
/// callers, raised to each changed definition's trust floor (as in edit impact).
fn review<'a>(files: &[FileAnalysis], b: &'a Blast) -> Review<'a> {
    let all_changes: Vec<ChangeKind> = files
        .iter()
        .flat_map(|f| f.changes.iter().map(|c| c.kind))
        .collect();
    let breaking = all_changes.iter().filter(|k| is_breaking(**k)).count();
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
        .filter(|(_, k)| is_breaking(*k))
        .map(|(q, _)| counts_by_target.get(q.as_str()).copied().unwrap_or(0))
        .sum::<usize>();
    if broken_callers > 0 {
        level = level.max(ImpactLevel::Medium);
    }
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
    Review {
        level,
        completeness,
        basis,
        semantic,
        breaking,
        broken_callers,
        counts_by_target,
    }
}

fn file_rows(files: &[FileAnalysis], b: &Blast) -> Vec<Value> {
    files
        .iter()
        .map(|f| {
            let mut per: BTreeMap<&'static str, usize> = BTreeMap::new();
            for c in &f.changes {
                *per.entry(c.kind.as_str()).or_default() += 1;
            }
            to_value(&PrFileRow {
                file: &f.change.path,
                status: f.change.status,
                language: f.language.map(|l| l.name()),
                added_lines: f.change.added_lines,
                deleted_lines: f.change.deleted_lines,
                change_counts: per,
                direct_dependents: b.direct.get(&f.change.path).map_or(0, Vec::len),
            })
        })
        .collect()
}

/// The answer with no change against the base.
fn no_changes(mode_name: &'static str, base: Option<Base<'_>>) -> Success {
    let payload = NoChanges {
        mode: mode_name,
        summary: "No changes detected",
        changed_count: 0,
        files: [],
        base,
    };
    with_agent_fields(
        with_payload(
            Success::new(
                Verdict::Safe,
                format!("pr_review mode={mode_name} changed=0"),
            ),
            &payload,
        ),
        &PrAgent {
            risk: "none",
            breaking_change_count: None,
        },
    )
    .with_next_step("No changes against the base: nothing to review")
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
        let base = || {
            set.base
                .as_ref()
                .map(|(branch, merge_base)| Base { branch, merge_base })
        };
        if set.files.is_empty() {
            return Ok(no_changes(mode_name, base()));
        }
        let opened = open_index(ctx)?;
        let files: Vec<FileAnalysis> = set
            .files
            .into_iter()
            .map(analyse_file)
            .collect::<Result<_, _>>()?;
        let b = blast(&opened.index, root, &files)?;
        let change_rows: Vec<Value> = files.iter().flat_map(|f| f.symbol_rows(false)).collect();
        let r = review(&files, &b);
        let verdict = Verdict::from_impact(r.level);
        let risk = level_name(r.level);
        let payload = PrPayload {
            mode: mode_name,
            risk_level: risk,
            completeness: r.completeness.as_str(),
            verdict_basis: &r.basis,
            counts: semdiff::counts_json(
                &files
                    .iter()
                    .flat_map(|f| f.changes.clone())
                    .collect::<Vec<_>>(),
            ),
            semantic_change_count: r.semantic,
            breaking_change_count: r.breaking,
            callers_of_breaking_changes: r.broken_callers,
            caller_count: b.callers.len(),
            blast_radius: BlastRadius {
                callers: b.callers.len(),
                affected_files: b.affected.len(),
                changed_definitions_in_index: b.targets.len(),
                callers_per_definition: &r.counts_by_target,
            },
        };
        let summary = format!(
            "pr_review mode={mode_name} changed={} definitions={} breaking={} callers={} affected={} risk={risk}",
            files.len(),
            change_rows.len(),
            r.breaking,
            b.callers.len(),
            b.affected.len()
        );
        let s = with_payload(Success::new(verdict, summary), &payload)
            .with_list(
                ListSpelling::new(
                    "files",
                    "changed_count",
                    "files_listed",
                    "files_cap",
                    "changed files",
                    "review with edit action=impact scope_paths=<dir>",
                ),
                Capped::collect(file_rows(&files, &b), fixed_cap(50)),
            )
            .with_list(
                ListSpelling::new(
                    "changes",
                    "change_count",
                    "changes_listed",
                    "changes_cap",
                    "changed definitions",
                    "edit action=classify file_path=<file> per file",
                ),
                Capped::collect(change_rows, fixed_cap(100)),
            )
            .with_list(
                ListSpelling::new(
                    "affected_files",
                    "affected_count",
                    "affected_files_listed",
                    "affected_files_cap",
                    "affected files",
                    "edit action=impact lists them with tests",
                ),
                Capped::collect(
                    b.affected.iter().map(|f| Value::from(f.as_str())),
                    fixed_cap(50),
                ),
            );
        let agent = PrAgent {
            risk,
            breaking_change_count: Some(r.breaking),
        };
        let mut s = with_payload(with_agent_fields(s, &agent), &BaseTail { base: base() });
        if a.include_call_graph.unwrap_or(true) {
            let rows: Vec<Value> = b
                .callers
                .iter()
                .map(|(c, t, line)| {
                    to_value(&CallEdgeRow {
                        caller: &c.qualname,
                        file: &c.file,
                        line: *line,
                        calls: t,
                        is_test: c.is_test,
                    })
                })
                .collect();
            s = s.with_list(
                ListSpelling::new(
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
        let step = if r.broken_callers > 0 {
            format!(
                "{} call site(s) reach removed/renamed/re-signed definitions: check them in call_graph before merging",
                r.broken_callers
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
