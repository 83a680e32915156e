//! `edit impact`: what a change set (unstaged, staged, or the branch against its
//! base) reaches, symbol by symbol. Changed files come from git (git2, in process);
//! their changed definitions from both versions parsed and compared within the diff
//! hunks; affected files are those reaching a changed definition over resolved
//! calls, importing a changed name, or importing a file whose module-level code
//! changed (`edit_common::blast`); risk follows analyses §8 through the one risk
//! order, raised by breaking changes with callers, by the trust of each changed
//! definition's callers, and by constraint violations touching the change.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;
use tsa_lang::{Language, is_test_path};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index, to_value, with_agent_fields, with_payload};
use crate::actions::edit::common::{
    Blast, FileAnalysis, analyse_file, blast, breaks_callers, parse_mode,
};
use crate::actions::nav::test_map::{Lines, is_entry, test_command};
use crate::actions::project::journal as project_journal;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};
use tsa_analysis::constraints::{self, Severity};
use tsa_analysis::git::{DiffMode, Repo};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::trust::Completeness;

/// Arguments of `edit impact`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `diff` (default: working tree vs index, untracked files included), `staged`
    /// (index vs HEAD), `branch` (HEAD vs its merge base with main/master), or `pr`
    /// (not available offline).
    #[serde(default)]
    pub mode: Option<String>,
    /// A GitHub pull request URL: needs gh and the network, refused offline.
    #[serde(default)]
    pub pr_url: Option<String>,
    /// Map the change to tests and a verification command (default true).
    #[serde(default)]
    pub include_tests: Option<bool>,
    /// Only consider changes under these files/folders (project-relative).
    #[serde(default)]
    pub scope_paths: Option<Vec<ProjectPath>>,
    /// `report` (default: changes outside scope_paths are counted) or `strict`
    /// (changes outside scope_paths raise the verdict to at least CAUTION).
    #[serde(default)]
    pub scope_mode: Option<String>,
    /// `default` or `local_low_impact` (commands that spare a shared machine).
    #[serde(default)]
    pub resource_profile: Option<String>,
    /// Only the compact decision surface (default false).
    #[serde(default)]
    pub agent_summary_only: Option<bool>,
}

pub struct Impact;

fn level_name(l: ImpactLevel) -> &'static str {
    match l {
        ImpactLevel::None => "none",
        ImpactLevel::Low => "low",
        ImpactLevel::Medium => "medium",
        ImpactLevel::High => "high",
    }
}

/// How `edit impact` chooses its verdict (the first line of `verdict_basis`).
const IMPACT_VERDICT_RULE: &str = "risk_level from affected files (0-2 low, 3-8 medium, more high; docs/data or tests only: low), where a file is affected when it calls a changed definition (directly or through calls), imports a changed name, or imports a file whose module-level code changed (an added definition reaches nobody); raised to medium by a changed definition with >= 5 callers or a removal/rename/signature change with callers; raised to each changed definition's trust floor (unresolved same-name call sites, unknown graph, public API); error constraint violations: high; journal decisions lift it; then Verdict::from_impact";

/// Risk from the number of affected files (analyses §8).
fn risk_of(changed: usize, affected: usize) -> ImpactLevel {
    match (changed, affected) {
        (0, _) => ImpactLevel::None,
        (_, 0..=2) => ImpactLevel::Low,
        (_, 3..=8) => ImpactLevel::Medium,
        _ => ImpactLevel::High,
    }
}

/// Whether `path` lies under one of `scopes` (an empty list holds nothing).
fn in_scope_given(path: &str, scopes: &[String]) -> bool {
    scopes.iter().any(|s| project_journal::covers(s, path))
}

/// The checked options of a call.
struct Options {
    mode: DiffMode,
    strict: bool,
    profile: &'static str,
    include_tests: bool,
    /// Existing scope paths, project-relative.
    scopes: Vec<String>,
    /// Scope paths that do not exist, as given.
    invalid: Vec<String>,
    scope_given: bool,
}

fn options(root: &Path, a: &Args) -> Result<Options, ToolError> {
    let mode = parse_mode(a.mode.as_deref(), a.pr_url.as_deref(), "diff")?;
    let strict = match a.scope_mode.as_deref().map(str::trim) {
        None | Some("") | Some("report") => false,
        Some("strict") => true,
        Some(o) => {
            return Err(ToolError::Validation(format!(
                "scope_mode must be report|strict, got '{o}'"
            )));
        }
    };
    let profile = match a.resource_profile.as_deref().map(str::trim) {
        None | Some("") | Some("default") => "default",
        Some("local_low_impact") => "local_low_impact",
        Some(o) => {
            return Err(ToolError::Validation(format!(
                "resource_profile must be default|local_low_impact, got '{o}'"
            )));
        }
    };
    let include_tests = a.include_tests.unwrap_or(true);
    let mut scopes = Vec::new();
    let mut invalid = Vec::new();
    let scope_given = a.scope_paths.as_ref().is_some_and(|v| !v.is_empty());
    for s in a.scope_paths.iter().flatten() {
        let (abs, rel) = resolve_in_root(root, s)?;
        if abs.exists() {
            scopes.push(rel);
        } else {
            invalid.push(s.as_str().to_owned());
        }
    }
    Ok(Options {
        mode,
        strict,
        profile,
        include_tests,
        scopes,
        invalid,
        scope_given,
    })
}

/// The merge base of a `branch` change set.
#[derive(Clone, Debug, Serialize)]
pub struct Base<'a> {
    /// The base branch.
    pub branch: &'a str,
    /// The merge base's commit id.
    pub merge_base: &'a str,
}

fn base_of(base: Option<&(String, String)>) -> Option<Base<'_>> {
    base.map(|(branch, merge_base)| Base { branch, merge_base })
}

/// The payload of an answer with no change in scope, before its (empty)
/// `changed_files` list.
#[derive(Debug, Serialize)]
struct NoChangesHead {
    mode: &'static str,
    summary: &'static str,
}

/// The payload of an answer with no change in scope, after its list.
#[derive(Debug, Serialize)]
struct NoChangesTail<'a> {
    changed_count: usize,
    affected_count: usize,
    risk_level: &'static str,
    tests_to_run_count: usize,
    scope_paths: &'a [String],
    scope_paths_invalid: &'a [String],
    out_of_scope_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<Base<'a>>,
}

/// The `agent_summary` additions of an answer with no change in scope.
#[derive(Debug, Serialize)]
struct NoChangesAgent {
    risk: &'static str,
    scope: &'static str,
    changed_count: usize,
    affected_count: usize,
    tests_to_run_count: usize,
}

/// The answer when nothing (in scope) changed.
fn no_changes(o: &Options, base: Option<&(String, String)>, outside: usize) -> Success {
    let mode_name = o.mode.name();
    let scope = if o.scope_given { "scoped" } else { "workspace" };
    let invalid = &o.invalid;
    let verdict = if invalid.is_empty() {
        Verdict::Safe
    } else {
        Verdict::Warn
    };
    let summary = format!(
        "change_impact changed=0 risk=none mode={mode_name}{}",
        if invalid.is_empty() {
            String::new()
        } else {
            format!(" scope_invalid={}", invalid.len())
        }
    );
    let head = NoChangesHead {
        mode: mode_name,
        summary: "No changes detected",
    };
    let s = with_payload(Success::new(verdict, summary), &head).with_list(
        ListSpelling::new(
            "changed_files",
            "changed_files_total",
            "changed_files_listed",
            "changed_files_cap",
            "changed files",
            "narrow with scope_paths",
        ),
        Capped::collect(Vec::new(), fixed_cap(50)),
    );
    let tail = NoChangesTail {
        changed_count: 0,
        affected_count: 0,
        risk_level: "none",
        tests_to_run_count: 0,
        scope_paths: &o.scopes,
        scope_paths_invalid: invalid,
        out_of_scope_count: outside,
        base: base_of(base),
    };
    let agent = NoChangesAgent {
        risk: "none",
        scope,
        changed_count: 0,
        affected_count: 0,
        tests_to_run_count: 0,
    };
    let step = if invalid.is_empty() {
        "No changes detected; no verification needed.".to_owned()
    } else {
        format!("scope path(s) do not exist: {invalid:?} — did you typo?")
    };
    with_agent_fields(with_payload(s, &tail), &agent).with_next_step(step)
}

/// One factor behind the risk level or the verdict.
#[derive(Clone, Debug, Serialize)]
pub struct ImpactFactor {
    /// The factor's name (`affected_files`, `caller_trust`, ...).
    pub factor: &'static str,
    /// What was found, in words.
    pub detail: String,
}

fn factor(factor: &'static str, detail: impl Into<String>) -> ImpactFactor {
    ImpactFactor {
        factor,
        detail: detail.into(),
    }
}

/// The risk level with the factors that set it.
struct Risk {
    level: ImpactLevel,
    factors: Vec<ImpactFactor>,
    /// Resolved callers per changed definition.
    per_target: BTreeMap<String, usize>,
    completeness: Completeness,
    trust_basis: Vec<String>,
}

/// The level from the affected files, raised by hot definitions and breaking changes
/// with callers.
fn base_risk(files: &[FileAnalysis], b: &Blast, code_changed: bool, tests_only: bool) -> Risk {
    let mut level = if !code_changed || tests_only {
        ImpactLevel::Low
    } else {
        risk_of(files.len(), b.affected.len())
    };
    let mut risk_factors = Vec::new();
    if !code_changed {
        risk_factors.push(factor(
            "docs_or_data_only",
            "no changed file is source code of a known language",
        ));
    } else if tests_only {
        risk_factors.push(factor("tests_only", "every changed file is test code"));
    }
    risk_factors.push(factor("affected_files", format!("{} file(s) call a changed definition (directly or through calls), import a changed name, or import a file whose module-level code changed", b.affected.len())));
    if !b.module_changed.is_empty() {
        risk_factors.push(factor(
            "module_level_code",
            format!(
                "module-level code changed in {}: every importer is affected",
                b.module_changed.join(", ")
            ),
        ));
    }
    // Call-graph: a changed definition with many callers raises low to medium.
    let mut per_target: BTreeMap<String, usize> = BTreeMap::new();
    for (_, t, _) in &b.callers {
        *per_target.entry(t.clone()).or_default() += 1;
    }
    let hot: Vec<&str> = per_target
        .iter()
        .filter(|(_, n)| **n >= 5)
        .map(|(t, _)| t.as_str())
        .collect();
    if !hot.is_empty() && level == ImpactLevel::Low {
        level = ImpactLevel::Medium;
        risk_factors.push(factor(
            "call_graph",
            format!(
                "changed definition(s) with >= 5 callers: {}",
                hot.join(", ")
            ),
        ));
    }
    // A removal, rename or signature change breaks the callers it has.
    let broken: Vec<String> = b
        .defs
        .iter()
        .filter(|d| breaks_callers(d.kind) && d.callers > 0)
        .map(|d| {
            format!(
                "{} ({}, {} caller(s))",
                d.symbol,
                d.kind.as_str(),
                d.callers
            )
        })
        .collect();
    if !broken.is_empty() && level < ImpactLevel::Medium {
        level = ImpactLevel::Medium;
        risk_factors.push(factor(
            "breaking_change_with_callers",
            format!("callers must follow: {}", broken.join(", ")),
        ));
    }
    Risk {
        level,
        factors: risk_factors,
        per_target,
        completeness: Completeness::Complete,
        trust_basis: Vec::new(),
    }
}

/// The trust of each changed definition's callers: unresolved same-name call sites,
/// an unknown graph and public API raise the level (trust floors).
fn apply_trust(risk: &mut Risk, b: &Blast) {
    for d in &b.defs {
        risk.completeness = risk.completeness.max(d.trust.completeness);
        let floor = d.trust.floor(d.change());
        if floor > risk.level {
            risk.factors.push(factor(
                "caller_trust",
                format!(
                    "{} {}: {}",
                    d.symbol,
                    d.kind.as_str(),
                    d.trust.basis().join("; ")
                ),
            ));
            risk.trust_basis.push(format!(
                "raised to {} by {} ({}): {}",
                level_name(floor),
                d.symbol,
                d.kind.as_str(),
                d.trust.basis().join("; ")
            ));
            risk.level = floor;
        } else if !d.trust.settled() {
            risk.trust_basis.push(format!(
                "{} ({}): {}",
                d.symbol,
                d.kind.as_str(),
                d.trust.basis().join("; ")
            ));
        }
    }
}

/// Constraint violations touching the change: error raises to high, warn to low.
fn apply_constraints(
    risk: &mut Risk,
    violations: &[constraints::Violation],
    strict: bool,
    outside: usize,
) {
    if violations.iter().any(|v| v.severity == Severity::Error) {
        risk.level = ImpactLevel::High;
        risk.factors.push(factor(
            "constraint_violation",
            "an error-severity architectural constraint is violated by changed or affected files",
        ));
    } else if violations.iter().any(|v| v.severity == Severity::Warn) {
        risk.level = risk.level.max(ImpactLevel::Low);
        risk.factors.push(factor(
            "constraint_violation",
            "a warn-severity architectural constraint is violated by changed or affected files",
        ));
    }
    if strict && outside > 0 {
        risk.level = risk.level.max(ImpactLevel::Low);
        risk.factors.push(factor(
            "out_of_scope_changes",
            format!("{outside} changed file(s) outside scope_paths"),
        ));
    }
}

/// The journal's decisions about the changed or affected code, as rows; a stronger
/// verdict lifts `verdict` (change-impact order, never lowered). Returns the rows
/// and the id of the lifting decision.
#[allow(clippy::too_many_arguments)]
fn apply_journal(
    root: &Path,
    files: &[FileAnalysis],
    changed_paths: &[String],
    b: &Blast,
    verdict: &mut Verdict,
    risk_factors: &mut Vec<ImpactFactor>,
    verdict_basis: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> (Vec<Value>, Option<String>) {
    let entries = match project_journal::load(root) {
        Ok(e) => e,
        Err(e) => {
            warnings.push(format!("decision journal not read: {e}"));
            Vec::new()
        }
    };
    let changed_syms: Vec<(String, String)> = files
        .iter()
        .flat_map(|f| f.symbol_rows(false))
        .flat_map(|r| {
            let name = r["name"].as_str().unwrap_or("").to_owned();
            let mut v = vec![(r["symbol"].as_str().unwrap_or("").to_owned(), name.clone())];
            if let Some(old) = r["old_name"].as_str() {
                let old_name = old.rsplit(['.', ':']).next().unwrap_or(old).to_owned();
                v.push((old.to_owned(), old_name));
            }
            v
        })
        .collect();
    let changed_refs: Vec<&str> = changed_paths
        .iter()
        .chain(files.iter().map(|f| &f.change.old_path))
        .map(String::as_str)
        .collect();
    let affected_refs: Vec<&str> = b.affected.iter().map(String::as_str).collect();
    let decisions =
        project_journal::related(&entries, &changed_refs, &affected_refs, &changed_syms);
    let mut lifted_by = None;
    if let Some(top) = decisions.first()
        && top.verdict.change_impact_rank() > verdict.change_impact_rank()
    {
        let basis = format!(
            "lifted from {} to {} by decision {} '{}' ({} {})",
            verdict.as_str(),
            top.verdict.as_str(),
            top.entry.id,
            top.entry.title,
            top.matched_by.replace('_', " "),
            top.matched
        );
        *verdict = top.verdict;
        lifted_by = Some(top.entry.id.clone());
        risk_factors.push(factor("journal_decision", basis.clone()));
        verdict_basis.push(basis);
    }
    if !decisions.is_empty() {
        verdict_basis.push(format!(
            "{} related decision(s) in the journal",
            decisions.len()
        ));
    }
    (decisions.iter().map(|d| d.to_json()).collect(), lifted_by)
}

/// The tests the change reaches.
struct Tests {
    test_files: BTreeSet<String>,
    /// Test functions calling a changed definition, entry points only.
    test_entries: Vec<SymbolRow>,
    /// Per changed file (the first 50), the test files that reach it.
    mapping: BTreeMap<String, BTreeSet<String>>,
    /// Tests close to the change.
    direct_tests: BTreeSet<String>,
}

fn tests_of(
    root: &Path,
    files: &[FileAnalysis],
    changed_paths: &[String],
    b: &Blast,
    wanted: bool,
) -> Tests {
    let mut test_files: BTreeSet<String> = BTreeSet::new();
    let mut test_entries: Vec<SymbolRow> = Vec::new();
    let mut mapping: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    if wanted {
        for f in changed_paths.iter().chain(b.affected.iter()) {
            if is_test_path(f) && Language::from_path(f).is_some() {
                test_files.insert(f.clone());
            }
        }
        for (c, _, _) in &b.callers {
            if c.is_test {
                test_files.insert(c.file.clone());
                test_entries.push(c.clone());
            }
        }
        for fa in files.iter().take(50) {
            let p = fa.change.path.as_str();
            let mut tests: BTreeSet<String> = b
                .by_changed
                .get(p)
                .into_iter()
                .flatten()
                .filter(|d| is_test_path(d))
                .cloned()
                .collect();
            if is_test_path(p) {
                tests.insert(p.to_owned());
            }
            let quals: BTreeSet<String> =
                fa.caller_relevant().into_iter().map(|(q, _)| q).collect();
            for (c, t, _) in &b.callers {
                if c.is_test && quals.contains(t) {
                    tests.insert(c.file.clone());
                }
            }
            // Rust unit tests live beside the code.
            if fa.language.is_some_and(|l| l.name() == "rust")
                && fa.new.defs.iter().any(|d| d.qualname.starts_with("tests"))
            {
                tests.insert(p.to_owned());
                test_files.insert(p.to_owned());
            }
            mapping.insert(p.to_owned(), tests);
        }
    }
    let mut lines = Lines::new(root);
    test_entries.retain(|s| is_entry(s, &mut lines));
    test_entries.sort_by(|x, y| x.qualname.cmp(&y.qualname));
    test_entries.dedup_by(|x, y| x.id == y.id);
    // Tests close to the change: changed test files, test callers of changed
    // definitions, and test files importing a changed file directly.
    let mut direct_tests: BTreeSet<String> = test_entries.iter().map(|t| t.file.clone()).collect();
    for f in changed_paths.iter().chain(b.direct.values().flatten()) {
        if test_files.contains(f) {
            direct_tests.insert(f.clone());
        }
    }
    Tests {
        test_files,
        test_entries,
        mapping,
        direct_tests,
    }
}

/// Past this many test files of one language, its command runs the whole suite.
const MAX_LISTED_TESTS: usize = 30;

/// One test command per language for `set`.
fn commands_for(root: &Path, set: &BTreeSet<String>, entries: &[SymbolRow]) -> Vec<String> {
    let mut grouped: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for t in set {
        if let Some(l) = Language::from_path(t) {
            grouped.entry(l.name()).or_default().push(t.clone());
        }
    }
    grouped
        .iter()
        .filter_map(|(lang, fs)| {
            let names: Vec<&SymbolRow> = entries.iter().filter(|s| s.language == *lang).collect();
            if fs.len() > MAX_LISTED_TESTS {
                test_command(root, lang, &[], &[]).map(|c| c.trim().to_owned())
            } else {
                test_command(root, lang, fs, &names)
            }
        })
        .collect()
}

/// A command made gentler on a shared machine (one job, one test thread, no cache).
fn low_impact(c: &str) -> String {
    if c.starts_with("cargo test") {
        c.replacen("cargo test", "cargo test -j 1", 1)
            + if c.contains(" -- ") {
                " --test-threads=1"
            } else {
                " -- --test-threads=1"
            }
    } else if c.starts_with("pytest") {
        c.replacen("pytest", "pytest -p no:cacheprovider -x", 1)
    } else {
        c.to_owned()
    }
}

/// How the change is verified.
struct Verification {
    commands: Vec<String>,
    focused: String,
    runners: Vec<String>,
    command: String,
    local_command: String,
    reason: String,
}

fn verification(
    root: &Path,
    files: &[FileAnalysis],
    t: &Tests,
    code_changed: bool,
) -> Verification {
    let commands = commands_for(root, &t.test_files, &t.test_entries);
    let focused_commands = commands_for(root, &t.direct_tests, &t.test_entries);
    let runners: Vec<String> = commands
        .iter()
        .map(|cmd| {
            cmd.split_whitespace()
                .take(if cmd.starts_with("npx") { 2 } else { 1 })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let command = if commands.is_empty() {
        if !code_changed {
            String::new()
        } else {
            let langs: BTreeSet<&str> = files
                .iter()
                .filter_map(|f| f.language.map(|l| l.name()))
                .collect();
            if langs.contains("rust") {
                "cargo test".to_owned()
            } else if langs.contains("python") {
                "pytest".to_owned()
            } else {
                String::new()
            }
        }
    } else {
        commands.join(" && ")
    };
    let local_command = command
        .split(" && ")
        .map(low_impact)
        .collect::<Vec<_>>()
        .join(" && ");
    let reason = if !code_changed {
        "docs/data-only change: no tests needed".to_owned()
    } else if t.test_files.is_empty() {
        "no test file imports or calls the changed code: run the whole suite".to_owned()
    } else {
        format!(
            "{} test file(s) import or call the changed/affected code",
            t.test_files.len()
        )
    };
    Verification {
        focused: focused_commands.join(" && "),
        commands,
        runners,
        command,
        local_command,
        reason,
    }
}

/// A changed file as a row of `changed_files`.
#[derive(Clone, Debug, Serialize)]
pub struct ChangedFile<'a> {
    /// The file (new path), project-relative.
    pub file: &'a str,
    /// `added`, `modified`, `deleted`, `renamed`, ...
    pub status: &'static str,
    /// Lines added.
    pub added_lines: usize,
    /// Lines deleted.
    pub deleted_lines: usize,
    /// Its language, when it is source code.
    pub language: Option<&'static str>,
    /// Definitions that changed in it.
    pub changed_symbol_count: usize,
    /// The old path of a renamed file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<&'a String>,
}

/// A resolved caller of a changed definition, as a row of `affected_symbols`.
#[derive(Clone, Debug, Serialize)]
pub struct AffectedCaller<'a> {
    /// The caller's qualified name.
    pub symbol: &'a str,
    /// Its file.
    pub file: &'a str,
    /// The call's line.
    pub line: u32,
    /// The changed definition it calls.
    pub calls: &'a str,
    /// Whether the caller is test code.
    pub is_test: bool,
}

/// What one changed file reaches, as a row of `file_impacts`.
#[derive(Clone, Debug, Serialize)]
pub struct FileImpact<'a> {
    /// The changed file.
    pub file: &'a str,
    /// Files importing or calling it directly.
    pub direct_dependent_count: usize,
    /// The first 20 of them.
    pub direct_dependents: Vec<String>,
    /// Files it affects, directly or not.
    pub total_affected: usize,
}

/// The call-graph figures of the change.
#[derive(Clone, Debug, Serialize)]
pub struct CallGraphImpact<'a> {
    /// Changed definitions found in the index.
    pub changed_definitions_in_index: usize,
    /// Their resolved callers.
    pub caller_count: usize,
    /// Callers reached through calls.
    pub transitive_caller_count: usize,
    /// Resolved callers per changed definition.
    pub callers_per_definition: &'a BTreeMap<String, usize>,
}

/// A changed definition as a row of `changed_symbols`: `semdiff`'s row of the change
/// and, when callers can feel it, its callers and their trust.
#[derive(Clone, Debug, Serialize)]
pub struct ChangedSymbol {
    /// `symbol`, `name`, `kind`, `change`, lines, signatures and `file`.
    #[serde(flatten)]
    pub row: Map<String, Value>,
    /// Whether callers can feel the change.
    pub affects_callers: bool,
    /// Its resolved callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller_count: Option<usize>,
    /// Unresolved call sites of its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved_call_sites: Option<u64>,
    /// How complete its callers are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completeness: Option<&'static str>,
    /// Whether it is public API.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_api: Option<bool>,
    /// Why it is public API.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_api_reason: Option<String>,
}

/// The rows of the answer's lists and the diff stat.
struct Rows<'a> {
    changed: Vec<ChangedFile<'a>>,
    symbols: Vec<ChangedSymbol>,
    affected: Vec<AffectedCaller<'a>>,
    file_impacts: Vec<FileImpact<'a>>,
    diff_stat: String,
}

fn changed_symbol(r: Value, b: &Blast) -> ChangedSymbol {
    let d = b.defs.iter().find(|d| {
        r["file"] == d.file.as_str()
            && (r["symbol"] == d.symbol.as_str() || r["old_name"] == d.symbol.as_str())
    });
    let row = match r {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    ChangedSymbol {
        row,
        affects_callers: d.is_some(),
        caller_count: d.map(|d| d.callers),
        unresolved_call_sites: d.map(|d| d.trust.open.total),
        completeness: d.map(|d| d.trust.completeness.as_str()),
        public_api: d.map(|d| !d.trust.public_api.is_empty()),
        public_api_reason: d.and_then(|d| d.trust.public_api.first().map(|p| p.reason.clone())),
    }
}

fn rows<'a>(files: &'a [FileAnalysis], b: &'a Blast) -> Rows<'a> {
    let changed = files
        .iter()
        .map(|f| ChangedFile {
            file: &f.change.path,
            status: f.change.status,
            added_lines: f.change.added_lines,
            deleted_lines: f.change.deleted_lines,
            language: f.language.map(|l| l.name()),
            changed_symbol_count: f.changes.len(),
            old_path: (f.change.old_path != f.change.path).then_some(&f.change.old_path),
        })
        .collect();
    let symbols = files
        .iter()
        .flat_map(|f| f.symbol_rows(false))
        .map(|r| changed_symbol(r, b))
        .collect();
    let affected = b
        .callers
        .iter()
        .map(|(c, t, line)| AffectedCaller {
            symbol: &c.qualname,
            file: &c.file,
            line: *line,
            calls: t,
            is_test: c.is_test,
        })
        .collect();
    let file_impacts = files
        .iter()
        .map(|f| {
            let direct = b.direct.get(&f.change.path).cloned().unwrap_or_default();
            FileImpact {
                file: &f.change.path,
                direct_dependent_count: direct.len(),
                direct_dependents: direct.into_iter().take(20).collect(),
                total_affected: b.by_changed.get(&f.change.path).map_or(0, BTreeSet::len),
            }
        })
        .take(20)
        .collect();
    Rows {
        changed,
        symbols,
        affected,
        file_impacts,
        diff_stat: diff_stat(files),
    }
}

/// `N file(s) changed, A insertion(s)(+), D deletion(s)(-)` and per file, within
/// about 480 characters.
fn diff_stat(files: &[FileAnalysis]) -> String {
    let (adds, dels): (usize, usize) = files.iter().fold((0, 0), |(x, y), f| {
        (x + f.change.added_lines, y + f.change.deleted_lines)
    });
    let mut diff_stat = format!(
        "{} file(s) changed, {adds} insertion(s)(+), {dels} deletion(s)(-)",
        files.len()
    );
    for f in files {
        let line = format!(
            "; {} +{} -{}",
            f.change.path, f.change.added_lines, f.change.deleted_lines
        );
        if diff_stat.len() + line.len() > 480 {
            diff_stat.push_str("; …");
            break;
        }
        diff_stat.push_str(&line);
    }
    diff_stat
}

/// Everything the answer of a change is made of.
struct Report<'a> {
    o: &'a Options,
    base: Option<&'a (String, String)>,
    outside: usize,
    total_changed: usize,
    code_changed: bool,
    files: &'a [FileAnalysis],
    b: &'a Blast,
    risk: Risk,
    verdict: Verdict,
    verdict_basis: Vec<String>,
    violations: Vec<Value>,
    decisions: Vec<Value>,
    tests: Tests,
    v: Verification,
    rows: Rows<'a>,
    next_step: String,
}

const STOP: &str =
    "stop if a listed test fails or an affected caller's contract changed without updating it";

/// The full answer's payload, in answer order (its capped lists follow it).
#[derive(Debug, Serialize)]
pub struct ImpactPayload<'a> {
    pub mode: &'static str,
    pub scope_paths: &'a [String],
    pub scope_filtered: bool,
    pub scope_paths_invalid: &'a [String],
    pub out_of_scope_count: usize,
    pub total_changed_count: usize,
    pub changed_count: usize,
    pub affected_count: usize,
    pub risk_level: &'static str,
    pub risk_factors: &'a [ImpactFactor],
    pub verdict_basis: &'a [String],
    pub test_required: bool,
    pub test_runner: String,
    pub default_test_command: &'a str,
    pub test_command: &'a str,
    pub pytest_required: bool,
    pub pytest_command: String,
    pub verification_command: &'a str,
    pub verification_reason: &'a str,
    pub focused_test_command: &'a str,
    pub verification_strategy: &'static str,
    pub verification_steps: &'a [String],
    pub direct_test_count: usize,
    /// Per changed file (the first 50), the test files that reach it.
    pub test_mapping: &'a BTreeMap<String, BTreeSet<String>>,
    pub diff_stat: &'a str,
    pub resource_profile: &'static str,
    pub local_verification_command: &'a str,
    pub low_impact_focused_test_command: String,
    pub ci_verification_command: &'a str,
    pub call_graph_impact: CallGraphImpact<'a>,
    pub completeness: &'static str,
    pub public_api: bool,
    pub module_level_changes: &'a [String],
    /// Per affected file (the first 50), up to 3 reasons.
    pub affected_reasons: BTreeMap<&'a str, Vec<&'a String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Base<'a>>,
}

/// The full answer's `agent_summary` additions.
#[derive(Debug, Serialize)]
pub struct ImpactAgent<'a> {
    pub risk: &'static str,
    pub scope: &'static str,
    pub changed_count: usize,
    pub affected_count: usize,
    pub tests_to_run_count: usize,
    pub verification_command: &'a str,
    pub verification_strategy: &'static str,
    pub stop_condition: &'static str,
    pub changed_preview: Vec<&'a str>,
    pub preview_limit: usize,
    pub preview_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused_test_command: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_hint: Option<&'static str>,
}

/// The compact answer's payload (`agent_summary_only`).
#[derive(Debug, Serialize)]
pub struct CompactPayload<'a> {
    pub mode: &'static str,
    pub changed_count: usize,
    pub affected_count: usize,
    pub risk_level: &'static str,
    pub tests_to_run_count: usize,
    pub verification_command: &'a str,
    pub agent_summary_only: bool,
    pub verdict_basis: &'a [String],
    pub related_decision_count: usize,
}

/// The compact answer's `agent_summary` additions.
#[derive(Debug, Serialize)]
pub struct CompactAgent<'a> {
    pub risk: &'static str,
    pub scope: &'static str,
    pub changed_count: usize,
    pub affected_count: usize,
    pub tests_to_run_count: usize,
    pub verification_command: &'a str,
    pub stop_condition: &'static str,
    pub changed_preview: Vec<&'a str>,
}

/// The count of tests past the `tests_to_run` cap.
#[derive(Debug, Serialize)]
struct Omitted {
    tests_to_run_omitted_count: usize,
}

impl Report<'_> {
    fn scope(&self) -> &'static str {
        if self.o.scope_given {
            "scoped"
        } else {
            "workspace"
        }
    }

    fn strategy(&self) -> &'static str {
        if self.tests.test_files.is_empty() {
            "full_suite"
        } else {
            "focused_then_full"
        }
    }

    fn summary_line(&self) -> String {
        format!(
            "change_impact mode={} changed={} affected={} risk={} tests={} symbols={}",
            self.o.mode.name(),
            self.files.len(),
            self.b.affected.len(),
            level_name(self.risk.level),
            self.tests.test_files.len(),
            self.rows.symbols.len()
        )
    }

    /// The full answer's payload keys, in answer order.
    fn payload(&self) -> ImpactPayload<'_> {
        let (o, b, v) = (self.o, self.b, &self.v);
        ImpactPayload {
            mode: o.mode.name(),
            scope_paths: &o.scopes,
            scope_filtered: !o.scopes.is_empty(),
            scope_paths_invalid: &o.invalid,
            out_of_scope_count: self.outside,
            total_changed_count: self.total_changed,
            changed_count: self.files.len(),
            affected_count: b.affected.len(),
            risk_level: level_name(self.risk.level),
            risk_factors: &self.risk.factors,
            verdict_basis: &self.verdict_basis,
            test_required: self.code_changed && o.include_tests,
            test_runner: v.runners.join(", "),
            default_test_command: &v.command,
            test_command: &v.command,
            pytest_required: self
                .tests
                .test_files
                .iter()
                .any(|t| Language::from_path(t).is_some_and(|l| l.name() == "python")),
            pytest_command: v
                .commands
                .iter()
                .find(|c| c.starts_with("pytest"))
                .cloned()
                .unwrap_or_default(),
            verification_command: &v.command,
            verification_reason: &v.reason,
            focused_test_command: &v.focused,
            verification_strategy: self.strategy(),
            verification_steps: &v.commands,
            direct_test_count: self.tests.direct_tests.len(),
            test_mapping: &self.tests.mapping,
            diff_stat: &self.rows.diff_stat,
            resource_profile: o.profile,
            local_verification_command: &v.local_command,
            low_impact_focused_test_command: low_impact(&v.focused),
            ci_verification_command: &v.command,
            call_graph_impact: CallGraphImpact {
                changed_definitions_in_index: b.targets.len(),
                caller_count: b.callers.len(),
                transitive_caller_count: b.transitive_callers,
                callers_per_definition: &self.risk.per_target,
            },
            completeness: self.risk.completeness.as_str(),
            public_api: b.defs.iter().any(|d| !d.trust.public_api.is_empty()),
            module_level_changes: &b.module_changed,
            affected_reasons: b
                .reasons
                .iter()
                .take(50)
                .map(|(f, why)| (f.as_str(), why.iter().take(3).collect()))
                .collect(),
            base: base_of(self.base),
        }
    }

    /// The full answer's capped lists.
    fn lists(&self, s: Success) -> Success {
        let narrow = "narrow with scope_paths";
        let r = &self.rows;
        s.with_list(
            ListSpelling::new(
                "changed_files",
                "changed_files_total",
                "changed_files_listed",
                "changed_files_cap",
                "changed files",
                narrow,
            ),
            Capped::collect(r.changed.iter().map(to_value), fixed_cap(50)),
        )
        .with_list(
            ListSpelling::new(
                "affected_files",
                "affected_files_total",
                "affected_files_listed",
                "affected_files_cap",
                "affected files",
                narrow,
            ),
            Capped::collect(
                self.b.affected.iter().map(|f| Value::from(f.as_str())),
                fixed_cap(50),
            ),
        )
        .with_list(
            ListSpelling::new(
                "file_impacts",
                "file_impact_count",
                "file_impacts_listed",
                "file_impacts_cap",
                "file impacts",
                narrow,
            ),
            Capped::counted(
                r.file_impacts.iter().map(to_value).collect(),
                self.files.len(),
                fixed_cap(20),
            ),
        )
        .with_list(
            ListSpelling::new(
                "tests_to_run",
                "tests_to_run_count",
                "tests_to_run_listed",
                "tests_to_run_cap",
                "test files",
                "run verification_command, which covers them all",
            ),
            Capped::collect(
                self.tests
                    .test_files
                    .iter()
                    .map(|t| Value::from(t.as_str())),
                fixed_cap(30),
            ),
        )
        .with_list(
            ListSpelling::new(
                "changed_symbols",
                "changed_symbol_count",
                "changed_symbols_listed",
                "changed_symbols_cap",
                "changed symbols",
                "narrow with scope_paths, or edit action=classify per file",
            ),
            Capped::collect(r.symbols.iter().map(to_value), fixed_cap(50)),
        )
        .with_list(
            ListSpelling::new(
                "affected_symbols",
                "affected_symbol_count",
                "affected_symbols_listed",
                "affected_symbols_cap",
                "affected callers",
                "nav action=callers per changed symbol",
            ),
            Capped::collect(r.affected.iter().map(to_value), fixed_cap(50)),
        )
        .with_list(
            ListSpelling::new(
                "constraint_violations",
                "constraint_violation_count",
                "constraint_violations_listed",
                "constraint_violations_cap",
                "constraint violations",
                "edit action=constraints path_filter=<file>",
            ),
            Capped::collect(self.violations.clone(), fixed_cap(20)),
        )
        .with_list(
            ListSpelling::new(
                "related_decisions",
                "related_decision_count",
                "related_decisions_listed",
                "related_decisions_cap",
                "related decisions",
                "project action=journal mode=search path_scope=<file>",
            ),
            Capped::collect(self.decisions.clone(), fixed_cap(20)),
        )
    }

    fn preview(&self) -> Vec<&str> {
        self.files
            .iter()
            .take(5)
            .map(|f| f.change.path.as_str())
            .collect()
    }

    /// The full answer (warnings are added by the caller).
    fn full(&self) -> Success {
        let n = self.files.len();
        let tests = self.tests.test_files.len();
        let v = &self.v;
        let s = with_payload(
            Success::new(self.verdict, self.summary_line()),
            &self.payload(),
        );
        let s = with_payload(
            self.lists(s),
            &Omitted {
                tests_to_run_omitted_count: tests.saturating_sub(30),
            },
        );
        let agent = ImpactAgent {
            risk: level_name(self.risk.level),
            scope: self.scope(),
            changed_count: n,
            affected_count: self.b.affected.len(),
            tests_to_run_count: tests,
            verification_command: &v.command,
            verification_strategy: self.strategy(),
            stop_condition: STOP,
            changed_preview: self.preview(),
            preview_limit: 5,
            preview_truncated: n > 5,
            focused_test_command: (!v.focused.is_empty()).then_some(v.focused.as_str()),
            scope_hint: (self.o.scopes.is_empty() && n > 50)
                .then_some("large dirty worktree: pass scope_paths to focus the analysis"),
        };
        with_agent_fields(s, &agent)
    }

    /// Only the decision surface: no lists and details.
    fn compact(&self) -> Success {
        let risk = level_name(self.risk.level);
        let tests = self.tests.test_files.len();
        let v = &self.v;
        let payload = CompactPayload {
            mode: self.o.mode.name(),
            changed_count: self.files.len(),
            affected_count: self.b.affected.len(),
            risk_level: risk,
            tests_to_run_count: tests,
            verification_command: &v.command,
            agent_summary_only: true,
            verdict_basis: &self.verdict_basis,
            related_decision_count: self.decisions.len(),
        };
        let agent = CompactAgent {
            risk,
            scope: self.scope(),
            changed_count: self.files.len(),
            affected_count: self.b.affected.len(),
            tests_to_run_count: tests,
            verification_command: &v.command,
            stop_condition: STOP,
            changed_preview: self.preview(),
        };
        with_agent_fields(
            with_payload(Success::new(self.verdict, self.summary_line()), &payload),
            &agent,
        )
        .with_next_step(self.next_step.as_str())
    }
}

/// The next step: error constraint violations first, then the verification, behind
/// the journal decision that lifted the verdict.
fn next_step_of(
    errors: bool,
    verification_command: &str,
    lifted_by: Option<&str>,
    verdict: Verdict,
) -> String {
    let next_step = if errors {
        "Fix the error-severity constraint violations (constraint_violations) before merging"
            .to_owned()
    } else if verification_command.is_empty() {
        "No code changed: no verification needed".to_owned()
    } else {
        format!("Run: {verification_command}")
    };
    match lifted_by {
        Some(id) => format!(
            "Decision {id} of the journal covers this change ({}): read it first (project action=journal mode=get id={id}). {next_step}",
            verdict.as_str()
        ),
        None => next_step,
    }
}

/// One step of a verification plan: its role and the exact argv tsa runs.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Step {
    pub role: &'static str,
    pub argv: Vec<String>,
}

/// What `edit verify` re-derives and compares: the request's echo, the digests of
/// the root, the changed files and the steps, and the steps themselves.
pub(crate) struct VerifyPlan {
    pub request: Value,
    pub root: String,
    pub changed: String,
    pub plan: String,
    pub steps: Vec<Step>,
}

/// SHA-256 hex of `v` as JSON with sorted keys and no spaces.
pub(crate) fn digest(v: &Value) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(tsa_analysis::rename::canonical(v).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The words of a command line as a POSIX shell splits them: whitespace separates,
/// single quotes keep everything, double quotes keep all but `\"` and `\\`, a
/// backslash outside quotes keeps the next character.
pub(crate) fn shell_words(c: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut started = false;
    let mut chars = c.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\'' => {
                started = true;
                cur.extend(chars.by_ref().take_while(|&x| x != '\''));
            }
            '"' => {
                started = true;
                while let Some(x) = chars.next() {
                    match x {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        x => cur.push(x),
                    }
                }
            }
            '\\' => {
                started = true;
                cur.extend(chars.next());
            }
            w if w.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            x => {
                started = true;
                cur.push(x);
            }
        }
    }
    if started {
        out.push(cur);
    }
    out
}

/// The interpreter of a Python project: its virtualenv's (relative: the steps run
/// in the root), else `python3`.
fn python(root: &Path) -> String {
    for v in [".venv/bin/python", "venv/bin/python"] {
        if root.join(v).is_file() {
            return v.to_owned();
        }
    }
    if let Ok(env) = std::env::var("VIRTUAL_ENV") {
        let p = Path::new(&env).join("bin/python");
        if p.is_file() {
            return p.to_string_lossy().into_owned();
        }
    }
    "python3".to_owned()
}

/// The steps of a verification command (`a && b`): each an argv; `pytest` run as
/// the project's interpreter's module, no cache written.
fn steps_of(root: &Path, command: &str, code_changed: bool) -> Vec<Step> {
    if command.trim().is_empty() {
        return if code_changed {
            Vec::new()
        } else {
            vec![Step {
                role: "non_test_check",
                argv: ["git", "diff", "--check"]
                    .iter()
                    .map(|s| (*s).to_owned())
                    .collect(),
            }]
        };
    }
    command
        .split(" && ")
        .map(|c| {
            let mut argv: Vec<String> = shell_words(c);
            if argv.first().is_some_and(|a| a == "pytest") {
                argv.splice(
                    0..1,
                    [
                        python(root),
                        "-m".into(),
                        "pytest".into(),
                        "-p".into(),
                        "no:cacheprovider".into(),
                    ],
                );
            }
            Step {
                role: "verification",
                argv,
            }
        })
        .filter(|s| !s.argv.is_empty())
        .collect()
}

/// The plan `edit verify` compares with its request: the change set of these
/// arguments, its tests and commands. `None`: nothing changed, or no command.
pub(crate) fn verify_plan(ctx: &Context, a: &Args) -> Result<Option<VerifyPlan>, ToolError> {
    let root = ctx.root()?;
    let o = options(root, a)?;
    let set = Repo::open(root)?.changes(o.mode)?;
    let scoped: Vec<_> = set
        .files
        .into_iter()
        .filter(|f| {
            !o.scope_given
                || in_scope_given(&f.path, &o.scopes)
                || in_scope_given(&f.old_path, &o.scopes)
        })
        .collect();
    if scoped.is_empty() {
        return Ok(None);
    }
    let opened = open_index(ctx)?;
    let files: Vec<FileAnalysis> = scoped
        .into_iter()
        .map(analyse_file)
        .collect::<Result<_, _>>()?;
    let b = blast(&opened.index, root, &files)?;
    let changed: Vec<String> = files.iter().map(|f| f.change.path.clone()).collect();
    let code_changed = files.iter().any(|f| f.language.is_some());
    let tests = tests_of(root, &files, &changed, &b, o.include_tests && code_changed);
    let v = verification(root, &files, &tests, code_changed);
    Ok(plan_of(root, &o, &changed, &v, code_changed))
}

fn plan_of(
    root: &Path,
    o: &Options,
    changed: &[String],
    v: &Verification,
    code_changed: bool,
) -> Option<VerifyPlan> {
    let command = if o.profile == "local_low_impact" {
        &v.local_command
    } else {
        &v.command
    };
    let steps = steps_of(root, command, code_changed);
    if steps.is_empty() {
        return None;
    }
    let mut sorted = changed.to_vec();
    sorted.sort();
    Some(VerifyPlan {
        request: json!({
            "mode": o.mode.name(),
            "scope_paths": o.scopes,
            "include_tests": o.include_tests,
            "resource_profile": o.profile,
            "pr_url": "",
        }),
        root: digest(&json!(root.to_string_lossy())),
        changed: digest(&json!(sorted)),
        plan: digest(&serde_json::to_value(&steps).unwrap_or_default()),
        steps,
    })
}

/// The longest request `edit verify` accepts.
pub(crate) const REQUEST_MAX: usize = 5800;
/// The default (and longest) run of a verification, seconds.
pub(crate) const VERIFY_TIMEOUT: u64 = 900;

/// The `verification_request` of a plan: base64url (padded) of its canonical JSON.
pub(crate) fn request_of(p: &VerifyPlan) -> Option<String> {
    use base64::Engine;
    let v = json!({
        "version": 1,
        "root": p.root,
        "request": p.request,
        "changed": p.changed,
        "plan": p.plan,
        "stage": "verification",
        "pr_identity": null,
        "timeout": VERIFY_TIMEOUT,
    });
    let text = base64::engine::general_purpose::URL_SAFE.encode(v.to_string());
    (text.len() <= REQUEST_MAX).then_some(text)
}

impl Action for Impact {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "impact";
    const SUMMARY: &'static str = "after editing: changed files and symbols (git diff/staged/branch), affected files and callers, risk, tests to run and the verification command";
    const BRIEF: &'static str = "after editing: impact and tests";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let o = options(root, &a)?;
        let repo = Repo::open(root)?;
        let set = repo.changes(o.mode)?;
        let linked = tsa_analysis::security::linked_warning(&set.linked);
        let total_changed = set.files.len();
        let (scoped, outside): (Vec<_>, Vec<_>) = set.files.into_iter().partition(|f| {
            !o.scope_given
                || in_scope_given(&f.path, &o.scopes)
                || in_scope_given(&f.old_path, &o.scopes)
        });
        if scoped.is_empty() {
            return Ok(no_changes(&o, set.base.as_ref(), outside.len()));
        }
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let files: Vec<FileAnalysis> = scoped
            .into_iter()
            .map(analyse_file)
            .collect::<Result<_, _>>()?;
        let b = blast(index, root, &files)?;
        let changed_paths: Vec<String> = files.iter().map(|f| f.change.path.clone()).collect();
        let code_changed = files.iter().any(|f| f.language.is_some());
        let tests_only = files
            .iter()
            .all(|f| f.language.is_some() && is_test_path(&f.change.path));
        let mut risk = base_risk(&files, &b, code_changed, tests_only);
        apply_trust(&mut risk, &b);
        // Constraint violations touching the change.
        let mut touched: Vec<&str> = changed_paths.iter().map(String::as_str).collect();
        touched.extend(b.affected.iter().map(String::as_str));
        let mut warnings = Vec::new();
        let violations = match constraints::violations_touching(root, index, &touched) {
            Ok(v) => v,
            Err(e) => {
                warnings.push(format!("constraints not checked: {e}"));
                Vec::new()
            }
        };
        apply_constraints(&mut risk, &violations, o.strict, outside.len());
        let mut verdict = Verdict::from_impact(risk.level);
        let mut verdict_basis = vec![
            IMPACT_VERDICT_RULE.to_owned(),
            format!(
                "risk_level {}: {} changed file(s), {} affected, {} changed definition(s) callers can feel ({} resolved caller(s), {} through calls)",
                level_name(risk.level),
                files.len(),
                b.affected.len(),
                b.defs.len(),
                b.callers.len(),
                b.transitive_callers
            ),
        ];
        verdict_basis.extend(risk.trust_basis.iter().take(10).cloned());
        // Decisions of the journal about the changed or affected code.
        let (decisions, lifted_by) = apply_journal(
            root,
            &files,
            &changed_paths,
            &b,
            &mut verdict,
            &mut risk.factors,
            &mut verdict_basis,
            &mut warnings,
        );
        let tests = tests_of(
            root,
            &files,
            &changed_paths,
            &b,
            o.include_tests && code_changed,
        );
        let v = verification(root, &files, &tests, code_changed);
        let request = plan_of(root, &o, &changed_paths, &v, code_changed)
            .as_ref()
            .and_then(request_of);
        let next_step = next_step_of(
            violations.iter().any(|v| v.severity == Severity::Error),
            &v.command,
            lifted_by.as_deref(),
            verdict,
        );
        let report = Report {
            o: &o,
            base: set.base.as_ref(),
            outside: outside.len(),
            total_changed,
            code_changed,
            files: &files,
            b: &b,
            risk,
            verdict,
            verdict_basis,
            violations: violations.iter().map(|v| v.to_json()).collect(),
            decisions,
            tests,
            v,
            rows: rows(&files, &b),
            next_step,
        };
        if a.agent_summary_only.unwrap_or(false) {
            let mut s = report.compact();
            s.insert("verification_request", json!(request));
            return Ok(s);
        }
        let mut s = report.full();
        s.insert("verification_request", json!(request));
        if !o.invalid.is_empty() {
            s = s.with_warning(format!(
                "scope path(s) do not exist: {:?} — did you typo?",
                o.invalid
            ));
        }
        for w in warnings {
            s = s.with_warning(w);
        }
        if let Some(w) = linked {
            s = s.with_warning(w);
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s.with_next_step(report.next_step))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_and_scope() {
        assert_eq!(risk_of(0, 10), ImpactLevel::None);
        assert_eq!(risk_of(1, 2), ImpactLevel::Low);
        assert_eq!(risk_of(1, 8), ImpactLevel::Medium);
        assert_eq!(risk_of(1, 9), ImpactLevel::High);
        assert!(in_scope_given("src/a.py", &["src".into()]));
        assert!(!in_scope_given("srcx/a.py", &["src".into()]));
        assert!(!in_scope_given("x.py", &[]));
        assert!(in_scope_given("x.py", &[".".into()]));
    }
}
