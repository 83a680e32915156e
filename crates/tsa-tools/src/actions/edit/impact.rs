//! `edit impact`: what a change set (unstaged, staged, or the branch against its
//! base) reaches, symbol by symbol. Changed files come from git (git2, in process);
//! their changed definitions from both versions parsed and compared within the diff
//! hunks; affected files are those reaching a changed definition over resolved
//! calls, importing a changed name, or importing a file whose module-level code
//! changed (`edit_common::blast`); risk follows analyses §8 through the one risk
//! order, raised by breaking changes with callers, by the trust of each changed
//! definition's callers, and by constraint violations touching the change.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::constraints::{self, Severity};
use tsa_analysis::git::Repo;
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::trust::Completeness;
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;
use tsa_lang::{Language, is_test_path};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index};
use crate::actions::edit::common::{FileAnalysis, analyse_file, blast, breaks_callers, parse_mode};
use crate::actions::nav::test_map::{Lines, is_entry, test_command};
use crate::actions::project::journal as project_journal;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

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

fn list(
    key: &'static str,
    total: &'static str,
    listed: &'static str,
    cap: &'static str,
    noun: &'static str,
    remedy: &str,
) -> ListSpelling {
    ListSpelling {
        list_key: key,
        total_key: total,
        listed_key: listed,
        cap_key: cap,
        noun,
        remedy: remedy.to_owned(),
    }
}

impl Action for Impact {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "impact";
    const SUMMARY: &'static str = "after editing: changed files and symbols (git diff/staged/branch), affected files and callers, risk, tests to run and the verification command";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
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
        for s in a.scope_paths.unwrap_or_default() {
            let (abs, rel) = resolve_in_root(root, &s)?;
            if abs.exists() {
                scopes.push(rel);
            } else {
                invalid.push(s);
            }
        }
        let repo = Repo::open(root)?;
        let set = repo.changes(mode)?;
        let linked = tsa_analysis::security::linked_warning(&set.linked);
        let total_changed = set.files.len();
        let (scoped, outside): (Vec<_>, Vec<_>) = set.files.into_iter().partition(|f| {
            !scope_given || in_scope_given(&f.path, &scopes) || in_scope_given(&f.old_path, &scopes)
        });
        let scope = if scope_given { "scoped" } else { "workspace" };
        let mode_name = mode.name();
        if scoped.is_empty() {
            let verdict = if invalid.is_empty() {
                Verdict::Safe
            } else {
                Verdict::Warn
            };
            let mut s = Success::new(
                verdict,
                format!(
                    "change_impact changed=0 risk=none mode={mode_name}{}",
                    if invalid.is_empty() {
                        String::new()
                    } else {
                        format!(" scope_invalid={}", invalid.len())
                    }
                ),
            )
            .with("mode", mode_name)
            .with("summary", "No changes detected")
            .with_list(
                list(
                    "changed_files",
                    "changed_files_total",
                    "changed_files_listed",
                    "changed_files_cap",
                    "changed files",
                    "narrow with scope_paths",
                ),
                Capped::collect(Vec::new(), fixed_cap(50)),
            )
            .with("changed_count", 0)
            .with("affected_count", 0)
            .with("risk_level", "none")
            .with("tests_to_run_count", 0)
            .with("scope_paths", json!(scopes))
            .with("scope_paths_invalid", json!(invalid))
            .with("out_of_scope_count", outside.len())
            .with_agent("risk", "none")
            .with_agent("scope", scope)
            .with_agent("changed_count", 0)
            .with_agent("affected_count", 0)
            .with_agent("tests_to_run_count", 0);
            if let Some((b, sha)) = &set.base {
                s = s.with("base", json!({"branch": b, "merge_base": sha}));
            }
            let step = if invalid.is_empty() {
                "No changes detected; no verification needed.".to_owned()
            } else {
                format!("scope path(s) do not exist: {invalid:?} — did you typo?")
            };
            return Ok(s.with_next_step(step));
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
        let mut level = if !code_changed || tests_only {
            ImpactLevel::Low
        } else {
            risk_of(files.len(), b.affected.len())
        };
        let mut risk_factors = Vec::new();
        if !code_changed {
            risk_factors.push(json!({"factor": "docs_or_data_only", "detail": "no changed file is source code of a known language"}));
        } else if tests_only {
            risk_factors
                .push(json!({"factor": "tests_only", "detail": "every changed file is test code"}));
        }
        risk_factors.push(json!({"factor": "affected_files", "detail": format!("{} file(s) call a changed definition (directly or through calls), import a changed name, or import a file whose module-level code changed", b.affected.len())}));
        if !b.module_changed.is_empty() {
            risk_factors.push(json!({"factor": "module_level_code", "detail": format!("module-level code changed in {}: every importer is affected", b.module_changed.join(", "))}));
        }
        // Call-graph: a changed definition with many callers raises low to medium.
        let mut per_target: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, t, _) in &b.callers {
            *per_target.entry(t.as_str()).or_default() += 1;
        }
        let hot: Vec<&str> = per_target
            .iter()
            .filter(|(_, n)| **n >= 5)
            .map(|(t, _)| *t)
            .collect();
        if !hot.is_empty() && level == ImpactLevel::Low {
            level = ImpactLevel::Medium;
            risk_factors.push(json!({"factor": "call_graph", "detail": format!("changed definition(s) with >= 5 callers: {}", hot.join(", "))}));
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
            risk_factors.push(json!({"factor": "breaking_change_with_callers", "detail": format!("callers must follow: {}", broken.join(", "))}));
        }
        // The trust of each changed definition's callers: unresolved same-name call
        // sites, an unknown graph and public API raise the level (trust floors).
        let mut trust_basis: Vec<String> = Vec::new();
        let mut completeness = Completeness::Complete;
        for d in &b.defs {
            completeness = completeness.max(d.trust.completeness);
            let floor = d.trust.floor(d.change());
            if floor > level {
                risk_factors.push(json!({"factor": "caller_trust", "detail": format!("{} {}: {}", d.symbol, d.kind.as_str(), d.trust.basis().join("; "))}));
                trust_basis.push(format!(
                    "raised to {} by {} ({}): {}",
                    level_name(floor),
                    d.symbol,
                    d.kind.as_str(),
                    d.trust.basis().join("; ")
                ));
                level = floor;
            } else if !d.trust.settled() {
                trust_basis.push(format!(
                    "{} ({}): {}",
                    d.symbol,
                    d.kind.as_str(),
                    d.trust.basis().join("; ")
                ));
            }
        }
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
        if violations.iter().any(|v| v.severity == Severity::Error) {
            level = ImpactLevel::High;
            risk_factors.push(json!({"factor": "constraint_violation", "detail": "an error-severity architectural constraint is violated by changed or affected files"}));
        } else if violations.iter().any(|v| v.severity == Severity::Warn) {
            level = level.max(ImpactLevel::Low);
            risk_factors.push(json!({"factor": "constraint_violation", "detail": "a warn-severity architectural constraint is violated by changed or affected files"}));
        }
        if strict && !outside.is_empty() {
            level = level.max(ImpactLevel::Low);
            risk_factors.push(json!({"factor": "out_of_scope_changes", "detail": format!("{} changed file(s) outside scope_paths", outside.len())}));
        }
        let risk = level_name(level);
        let mut verdict = Verdict::from_impact(level);
        let mut verdict_basis = vec![
            IMPACT_VERDICT_RULE.to_owned(),
            format!(
                "risk_level {risk}: {} changed file(s), {} affected, {} changed definition(s) callers can feel ({} resolved caller(s), {} through calls)",
                files.len(),
                b.affected.len(),
                b.defs.len(),
                b.callers.len(),
                b.transitive_callers
            ),
        ];
        verdict_basis.extend(trust_basis.iter().take(10).cloned());
        // Decisions of the journal about the changed or affected code: a stronger
        // verdict lifts this one (change-impact order, never lowered).
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
            verdict = top.verdict;
            lifted_by = Some(top.entry.id.clone());
            risk_factors.push(json!({"factor": "journal_decision", "detail": basis}));
            verdict_basis.push(basis);
        }
        if !decisions.is_empty() {
            verdict_basis.push(format!(
                "{} related decision(s) in the journal",
                decisions.len()
            ));
        }
        let decision_rows: Vec<Value> = decisions.iter().map(|d| d.to_json()).collect();
        // Tests.
        let mut test_files: BTreeSet<String> = BTreeSet::new();
        let mut test_entries: Vec<SymbolRow> = Vec::new();
        let mut mapping: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        if include_tests && code_changed {
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
        let mut direct_tests: BTreeSet<String> =
            test_entries.iter().map(|t| t.file.clone()).collect();
        for f in changed_paths.iter().chain(b.direct.values().flatten()) {
            if test_files.contains(f) {
                direct_tests.insert(f.clone());
            }
        }
        let mut by_lang: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        for t in &test_files {
            if let Some(l) = Language::from_path(t) {
                by_lang.entry(l.name()).or_default().push(t.clone());
            }
        }
        // One command per language; past MAX_LISTED_TESTS files the whole suite.
        const MAX_LISTED_TESTS: usize = 30;
        let commands_for = |set: &BTreeSet<String>| -> Vec<String> {
            let mut grouped: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
            for t in set {
                if let Some(l) = Language::from_path(t) {
                    grouped.entry(l.name()).or_default().push(t.clone());
                }
            }
            grouped
                .iter()
                .filter_map(|(lang, fs)| {
                    let names: Vec<&SymbolRow> = test_entries
                        .iter()
                        .filter(|s| s.language == *lang)
                        .collect();
                    if fs.len() > MAX_LISTED_TESTS {
                        test_command(root, lang, &[], &[]).map(|c| c.trim().to_owned())
                    } else {
                        test_command(root, lang, fs, &names)
                    }
                })
                .collect()
        };
        let commands = commands_for(&test_files);
        let focused_commands = commands_for(&direct_tests);
        let mut runners = Vec::new();
        for cmd in &commands {
            runners.push(
                cmd.split_whitespace()
                    .take(if cmd.starts_with("npx") { 2 } else { 1 })
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
        let test_required = code_changed && include_tests;
        let verification_command = if commands.is_empty() {
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
        let low = |c: &str| -> String {
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
        };
        let local_cmd = verification_command
            .split(" && ")
            .map(low)
            .collect::<Vec<_>>()
            .join(" && ");
        let verification_reason = if !code_changed {
            "docs/data-only change: no tests needed".to_owned()
        } else if test_files.is_empty() {
            "no test file imports or calls the changed code: run the whole suite".to_owned()
        } else {
            format!(
                "{} test file(s) import or call the changed/affected code",
                test_files.len()
            )
        };
        // Rows.
        let changed_rows: Vec<Value> = files
            .iter()
            .map(|f| {
                let mut v = json!({
                    "file": f.change.path,
                    "status": f.change.status,
                    "added_lines": f.change.added_lines,
                    "deleted_lines": f.change.deleted_lines,
                    "language": f.language.map(|l| l.name()),
                    "changed_symbol_count": f.changes.len(),
                });
                if f.change.old_path != f.change.path {
                    v["old_path"] = json!(f.change.old_path);
                }
                v
            })
            .collect();
        // Each changed definition with how it changed and, when callers can feel it,
        // its callers and their trust.
        let symbol_rows: Vec<Value> = files
            .iter()
            .flat_map(|f| f.symbol_rows(false))
            .map(|mut r| {
                let d = b.defs.iter().find(|d| {
                    r["file"] == d.file.as_str()
                        && (r["symbol"] == d.symbol.as_str() || r["old_name"] == d.symbol.as_str())
                });
                r["affects_callers"] = json!(d.is_some());
                if let Some(d) = d {
                    r["caller_count"] = json!(d.callers);
                    r["unresolved_call_sites"] = json!(d.trust.open.total);
                    r["completeness"] = json!(d.trust.completeness.as_str());
                    r["public_api"] = json!(!d.trust.public_api.is_empty());
                    if let Some(p) = d.trust.public_api.first() {
                        r["public_api_reason"] = json!(p.reason);
                    }
                }
                r
            })
            .collect();
        let affected_rows: Vec<Value> = b
            .callers
            .iter()
            .map(|(c, t, line)| json!({"symbol": c.qualname, "file": c.file, "line": line, "calls": t, "is_test": c.is_test}))
            .collect();
        let file_impacts: Vec<Value> = files
            .iter()
            .map(|f| {
                let direct = b.direct.get(&f.change.path).cloned().unwrap_or_default();
                let total = b.by_changed.get(&f.change.path).map_or(0, BTreeSet::len);
                json!({
                    "file": f.change.path,
                    "direct_dependent_count": direct.len(),
                    "direct_dependents": direct.into_iter().take(20).collect::<Vec<_>>(),
                    "total_affected": total,
                })
            })
            .take(20)
            .collect();
        let (adds, dels): (usize, usize) = files.iter().fold((0, 0), |(x, y), f| {
            (x + f.change.added_lines, y + f.change.deleted_lines)
        });
        let mut diff_stat = format!(
            "{} file(s) changed, {adds} insertion(s)(+), {dels} deletion(s)(-)",
            files.len()
        );
        for f in &files {
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
        let mapping_json: BTreeMap<String, Vec<String>> = mapping
            .into_iter()
            .map(|(k, v)| (k, v.into_iter().collect()))
            .collect();
        let violation_rows: Vec<Value> = violations.iter().map(|v| v.to_json()).collect();
        let preview: Vec<&str> = changed_paths.iter().take(5).map(String::as_str).collect();
        let focused = focused_commands.join(" && ");
        let summary_line = format!(
            "change_impact mode={mode_name} changed={} affected={} risk={risk} tests={} symbols={}",
            files.len(),
            b.affected.len(),
            test_files.len(),
            symbol_rows.len()
        );
        let next_step = if violations.iter().any(|v| v.severity == Severity::Error) {
            "Fix the error-severity constraint violations (constraint_violations) before merging"
                .to_owned()
        } else if verification_command.is_empty() {
            "No code changed: no verification needed".to_owned()
        } else {
            format!("Run: {verification_command}")
        };
        let next_step = match &lifted_by {
            Some(id) => format!(
                "Decision {id} of the journal covers this change ({}): read it first (project action=journal mode=get id={id}). {next_step}",
                verdict.as_str()
            ),
            None => next_step,
        };
        let stop = "stop if a listed test fails or an affected caller's contract changed without updating it";
        let mut s = Success::new(verdict, summary_line)
            .with("mode", mode_name)
            .with("scope_paths", json!(scopes))
            .with("scope_filtered", !scopes.is_empty())
            .with("scope_paths_invalid", json!(invalid))
            .with("out_of_scope_count", outside.len())
            .with("total_changed_count", total_changed)
            .with("changed_count", files.len())
            .with("affected_count", b.affected.len())
            .with("risk_level", risk)
            .with("risk_factors", json!(risk_factors))
            .with("verdict_basis", json!(verdict_basis))
            .with("test_required", test_required)
            .with("test_runner", runners.join(", "))
            .with("default_test_command", verification_command.as_str())
            .with("test_command", verification_command.as_str())
            .with("pytest_required", by_lang.contains_key("python"))
            .with("pytest_command", commands.iter().find(|c| c.starts_with("pytest")).cloned().unwrap_or_default())
            .with("verification_command", verification_command.as_str())
            .with("verification_reason", verification_reason.as_str())
            .with("focused_test_command", focused.as_str())
            .with("verification_strategy", if test_files.is_empty() { "full_suite" } else { "focused_then_full" })
            .with("verification_steps", json!(commands))
            .with("direct_test_count", direct_tests.len())
            .with("test_mapping", json!(mapping_json))
            .with("diff_stat", diff_stat)
            .with("resource_profile", profile)
            .with("local_verification_command", local_cmd.as_str())
            .with("low_impact_focused_test_command", low(&focused))
            .with("ci_verification_command", verification_command.as_str())
            .with(
                "call_graph_impact",
                json!({"changed_definitions_in_index": b.targets.len(), "caller_count": b.callers.len(), "transitive_caller_count": b.transitive_callers, "callers_per_definition": per_target}),
            )
            .with("completeness", completeness.as_str())
            .with("public_api", b.defs.iter().any(|d| !d.trust.public_api.is_empty()))
            .with("module_level_changes", json!(b.module_changed))
            .with(
                "affected_reasons",
                json!(
                    b.reasons
                        .iter()
                        .take(50)
                        .map(|(f, why)| (f.clone(), why.iter().take(3).cloned().collect::<Vec<_>>()))
                        .collect::<BTreeMap<String, Vec<String>>>()
                ),
            );
        if let Some((br, sha)) = &set.base {
            s = s.with("base", json!({"branch": br, "merge_base": sha}));
        }
        s = s
            .with_list(
                list(
                    "changed_files",
                    "changed_files_total",
                    "changed_files_listed",
                    "changed_files_cap",
                    "changed files",
                    "narrow with scope_paths",
                ),
                Capped::collect(changed_rows, fixed_cap(50)),
            )
            .with_list(
                list(
                    "affected_files",
                    "affected_files_total",
                    "affected_files_listed",
                    "affected_files_cap",
                    "affected files",
                    "narrow with scope_paths",
                ),
                Capped::collect(b.affected.iter().map(|f| json!(f)), fixed_cap(50)),
            )
            .with_list(
                list(
                    "file_impacts",
                    "file_impact_count",
                    "file_impacts_listed",
                    "file_impacts_cap",
                    "file impacts",
                    "narrow with scope_paths",
                ),
                Capped::counted(file_impacts, files.len(), fixed_cap(20)),
            )
            .with_list(
                list(
                    "tests_to_run",
                    "tests_to_run_count",
                    "tests_to_run_listed",
                    "tests_to_run_cap",
                    "test files",
                    "run verification_command, which covers them all",
                ),
                Capped::collect(test_files.iter().map(|t| json!(t)), fixed_cap(30)),
            )
            .with_list(
                list(
                    "changed_symbols",
                    "changed_symbol_count",
                    "changed_symbols_listed",
                    "changed_symbols_cap",
                    "changed symbols",
                    "narrow with scope_paths, or edit action=classify per file",
                ),
                Capped::collect(symbol_rows, fixed_cap(50)),
            )
            .with_list(
                list(
                    "affected_symbols",
                    "affected_symbol_count",
                    "affected_symbols_listed",
                    "affected_symbols_cap",
                    "affected callers",
                    "nav action=callers per changed symbol",
                ),
                Capped::collect(affected_rows, fixed_cap(50)),
            )
            .with_list(
                list(
                    "constraint_violations",
                    "constraint_violation_count",
                    "constraint_violations_listed",
                    "constraint_violations_cap",
                    "constraint violations",
                    "edit action=constraints path_filter=<file>",
                ),
                Capped::collect(violation_rows, fixed_cap(20)),
            )
            .with_list(
                list(
                    "related_decisions",
                    "related_decision_count",
                    "related_decisions_listed",
                    "related_decisions_cap",
                    "related decisions",
                    "project action=journal mode=search path_scope=<file>",
                ),
                Capped::collect(decision_rows, fixed_cap(20)),
            );
        let omitted = test_files.len().saturating_sub(30);
        s = s
            .with("tests_to_run_omitted_count", omitted)
            .with_agent("risk", risk)
            .with_agent("scope", scope)
            .with_agent("changed_count", files.len())
            .with_agent("affected_count", b.affected.len())
            .with_agent("tests_to_run_count", test_files.len())
            .with_agent("verification_command", verification_command.as_str())
            .with_agent(
                "verification_strategy",
                if test_files.is_empty() {
                    "full_suite"
                } else {
                    "focused_then_full"
                },
            )
            .with_agent("stop_condition", stop)
            .with_agent("changed_preview", json!(preview))
            .with_agent("preview_limit", 5)
            .with_agent("preview_truncated", files.len() > 5);
        if !focused.is_empty() {
            s = s.with_agent("focused_test_command", focused.as_str());
        }
        if scopes.is_empty() && files.len() > 50 {
            s = s.with_agent(
                "scope_hint",
                "large dirty worktree: pass scope_paths to focus the analysis",
            );
        }
        if !invalid.is_empty() {
            s = s.with_warning(format!(
                "scope path(s) do not exist: {invalid:?} — did you typo?"
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
        if a.agent_summary_only.unwrap_or(false) {
            // Only the decision surface: drop the payload lists and details.
            let mut c = Success::new(verdict, s.summary_line().to_owned())
                .with("mode", mode_name)
                .with("changed_count", files.len())
                .with("affected_count", b.affected.len())
                .with("risk_level", risk)
                .with("tests_to_run_count", test_files.len())
                .with("verification_command", verification_command.as_str())
                .with("agent_summary_only", true)
                .with("verdict_basis", json!(verdict_basis))
                .with("related_decision_count", decisions.len())
                .with_agent("risk", risk)
                .with_agent("scope", scope)
                .with_agent("changed_count", files.len())
                .with_agent("affected_count", b.affected.len())
                .with_agent("tests_to_run_count", test_files.len())
                .with_agent("verification_command", verification_command.as_str())
                .with_agent("stop_condition", stop)
                .with_agent("changed_preview", json!(preview));
            c = c.with_next_step(next_step);
            return Ok(c);
        }
        Ok(s.with_next_step(next_step))
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
