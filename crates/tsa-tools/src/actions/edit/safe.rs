//! `edit safe`: the pre-edit safety gate (analyses.md §6): downstream files, health
//! (fast dependency mode), nearby tests, an additive risk score, checklist and the
//! command that verifies the edit. Reads only; never writes project files.
//!
//! SAFE means the blast radius is empty: dependents are the union of files whose
//! imports resolve to this file and files whose resolved calls land in it; when that
//! set is non-empty (or the file is not in the index, so it is unknown) a SAFE risk
//! level is promoted to CAUTION. Test files that depend on the file are not its blast
//! radius but its verification: they are listed as `test_dependents`.

use std::collections::BTreeSet;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::Index;
use tsa_lang::{Language, TestExt, TestFiles, TestRunner};

use crate::action::Action;
use crate::actions::common::{fixed_cap, with_agent_fields, with_payload};
use crate::actions::health::common::{Scoring, scoring, with_warnings};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};
use tsa_analysis::constraints::{Severity, Violation};
use tsa_analysis::health::{DepsMode, FileScore};
use tsa_analysis::source::source_file;
use tsa_analysis::trust::{Assessor, Change, Completeness, Trust};

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EditType {
    AddFeature,
    BehaviorChange,
    Delete,
    FixBug,
    #[default]
    Refactor,
    Rename,
    SignatureChange,
}

impl EditType {
    fn as_str(self) -> &'static str {
        match self {
            EditType::AddFeature => "add_feature",
            EditType::BehaviorChange => "behavior_change",
            EditType::Delete => "delete",
            EditType::FixBug => "fix_bug",
            EditType::Refactor => "refactor",
            EditType::Rename => "rename",
            EditType::SignatureChange => "signature_change",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file about to be edited.
    pub file_path: ProjectPath,
    /// The kind of edit (default refactor).
    #[serde(default)]
    pub edit_type: EditType,
}

pub struct Safe;

/// How `edit safe` chooses its verdict (the first line of `verdict_basis`).
const SAFE_VERDICT_RULE: &str = "risk points (downstream files, health, tests, edit type, imports): >= 6 UNSAFE, >= 3 CAUTION, else SAFE; SAFE only for an empty blast radius of an indexed file; raised to the trust floor of the file's definitions (unresolved same-name call sites or an unknown graph: CAUTION; public API: CAUTION, REVIEW for rename/signature_change/delete) and by constraint violations";

/// The verdict floor from the constraint violations touching `file`, with the
/// violations themselves.
fn constraint_floor(
    root: &Path,
    index: &Index,
    file: &str,
) -> Result<(Option<Verdict>, Vec<Violation>), ToolError> {
    let rows = tsa_analysis::constraints::violations_touching(root, index, &[file])?;
    let floor = rows.iter().map(|v| v.severity).max().and_then(|s| match s {
        Severity::Error => Some(Verdict::Unsafe),
        Severity::Warn => Some(Verdict::Caution),
        Severity::Info => None,
    });
    Ok((floor, rows))
}

/// Test files associated with `rel` by naming convention / location.
pub fn nearby_tests(root: &Path, rel: &str, files: &[String]) -> Vec<String> {
    let rule = Language::from_path(rel)
        .and_then(|l| l.conventions().test_files.get())
        .unwrap_or(&TestFiles::GENERIC);
    let base = rel.rsplit('/').next().unwrap_or(rel);
    let (stem, ext) = base.rsplit_once('.').unwrap_or((base, ""));
    let stem = if stem == "__init__" || stem == "mod" || stem == "index" {
        rel.rsplit('/').nth(1).unwrap_or(stem)
    } else {
        stem
    };
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out: BTreeSet<String> = BTreeSet::new();
    for f in files {
        if f == rel {
            continue;
        }
        let fb = f.rsplit('/').next().unwrap_or(f);
        let (fs, fe) = fb.rsplit_once('.').unwrap_or((fb, ""));
        let fdir = f.rsplit_once('/').map_or("", |(d, _)| d);
        let named = rule.names.iter().any(|n| fs == n.replace("{stem}", stem));
        let ext_ok = match rule.ext {
            TestExt::Any => true,
            TestExt::Same => fe == ext,
            TestExt::Is(e) => fe == e,
        };
        let under = rule
            .under
            .is_none_or(|d| f.starts_with(&format!("{d}/")) || f.contains(&format!("/{d}/")));
        let hit = (named && ext_ok && (!rule.same_dir || fdir == dir) && under)
            || rule
                .stem_in
                .is_some_and(|d| fs == stem && f.contains(&format!("{d}/")));
        if hit {
            out.insert(f.clone());
        }
    }
    if let Some(marker) = rule.inline_marker
        && tsa_analysis::security::read_text_in_root(root, rel).is_ok_and(|t| t.contains(marker))
    {
        out.insert(rel.to_owned());
    }
    out.into_iter().collect()
}

fn cargo_package(root: &Path, rel: &str) -> Option<String> {
    let mut dir = root.join(rel);
    while dir.pop() {
        if !dir.starts_with(root) {
            return None;
        }
        let manifest = dir.join("Cargo.toml");
        let inside = std::fs::canonicalize(&manifest).is_ok_and(|m| m.starts_with(root));
        if let Some(t) = inside
            .then(|| std::fs::read_to_string(&manifest).ok())
            .flatten()
        {
            let mut in_pkg = false;
            for line in t.lines() {
                let l = line.trim();
                if l.starts_with('[') {
                    in_pkg = l == "[package]";
                } else if in_pkg && let Some(v) = l.strip_prefix("name") {
                    let v = v.trim_start().strip_prefix('=')?.trim().trim_matches('"');
                    return Some(v.to_owned());
                }
            }
        }
    }
    None
}

/// The command that runs `tests` (or the project's default test run when empty)
/// with the project's own runner.
pub fn test_command(root: &Path, rel: &str, tests: &[String]) -> String {
    let runner = Language::from_path(rel).and_then(|l| l.conventions().test_runner.get());
    let exists = |p: &str| root.join(p).exists();
    let files = tests.join(" ");
    match runner {
        Some(TestRunner::Pytest) => {
            let runner = if exists("uv.lock") {
                "uv run pytest"
            } else {
                "pytest"
            };
            if tests.is_empty() {
                format!("{runner} -q")
            } else {
                format!("{runner} {files} -q")
            }
        }
        Some(TestRunner::Cargo) => {
            let pkg = cargo_package(root, rel)
                .map(|p| format!(" -p {p}"))
                .unwrap_or_default();
            let mut parts = Vec::new();
            for t in tests {
                if t == rel {
                    let stem = rel
                        .rsplit('/')
                        .next()
                        .unwrap_or(rel)
                        .trim_end_matches(".rs");
                    parts.push(format!("cargo test{pkg} --lib {stem}::"));
                } else {
                    let stem = t.rsplit('/').next().unwrap_or(t).trim_end_matches(".rs");
                    parts.push(format!("cargo test{pkg} --test {stem}"));
                }
            }
            if parts.is_empty() {
                format!("cargo test{pkg}")
            } else {
                parts.join(" && ")
            }
        }
        Some(TestRunner::GoTest) => {
            let dir = rel
                .rsplit_once('/')
                .map_or(".".to_owned(), |(d, _)| format!("./{d}"));
            format!("go test {dir}/...")
        }
        Some(TestRunner::Node) => {
            let pkg = tsa_analysis::security::inside_root(root, "package.json")
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            let runner = if pkg.contains("vitest") {
                "npx vitest run"
            } else {
                "npx jest"
            };
            if tests.is_empty() {
                runner.to_owned()
            } else {
                format!("{runner} {files}")
            }
        }
        Some(TestRunner::MavenOrGradle) => {
            let classes: Vec<&str> = tests
                .iter()
                .map(|t| {
                    t.rsplit('/')
                        .next()
                        .unwrap_or(t)
                        .split('.')
                        .next()
                        .unwrap_or("")
                })
                .collect();
            if exists("pom.xml") {
                if classes.is_empty() {
                    "mvn test".into()
                } else {
                    format!("mvn test -Dtest={}", classes.join(","))
                }
            } else if classes.is_empty() {
                "./gradlew test".into()
            } else {
                format!("./gradlew test --tests {}", classes.join(" --tests "))
            }
        }
        None => {
            if tests.is_empty() {
                "run the project's test suite".into()
            } else {
                format!("run with the project's test runner: {files}")
            }
        }
    }
}

/// Files that depend on `rel`: importers and files with resolved calls into it.
pub(crate) fn downstream(index: &Index, rel: &str) -> Result<Vec<String>, ToolError> {
    let mut set: BTreeSet<String> = index
        .importers_of_file(rel)?
        .into_iter()
        .map(|r| r.file)
        .collect();
    let (_, incoming) = index.file_call_deps(rel)?;
    set.extend(incoming.into_iter().map(|d| d.file));
    set.remove(rel);
    Ok(set.into_iter().collect())
}

/// Splits dependents into production files and test files (tests exercising the file
/// are its verification, not its blast radius).
fn split_tests(files: Vec<String>, test_files: &BTreeSet<&str>) -> (Vec<String>, Vec<String>) {
    files
        .into_iter()
        .partition(|f| !(test_files.contains(f.as_str()) || tsa_lang::is_test_path(f)))
}

/// One additive risk factor of `edit safe`.
#[derive(Clone, Debug, Serialize)]
pub struct RiskFactor {
    /// The factor's name (`high_downstream`, `no_tests`, `public_api`, ...).
    pub factor: &'static str,
    /// What was measured, in words.
    pub detail: String,
    /// `dangerous`, `caution`, `info` or `good`.
    pub severity: &'static str,
    /// Risk points it adds (0 for a factor that only raises the verdict).
    pub points: u32,
}

fn factor(factor: &'static str, detail: String, severity: &'static str, points: u32) -> RiskFactor {
    RiskFactor {
        factor,
        detail,
        severity,
        points,
    }
}

fn numbered(items: Vec<String>) -> Vec<String> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {s}", i + 1))
        .collect()
}

/// The `agent_summary` additions of `edit safe`, in answer order.
#[derive(Clone, Debug, Serialize)]
pub struct SafeAgent {
    /// The risk level (`safe`, `caution`, `dangerous`).
    pub risk: &'static str,
    /// How to edit: `direct_focused_edit`, `incremental_edit_with_tests` or
    /// `staged_edit_with_review` (absent for a file that does not parse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit_strategy: Option<&'static str>,
    /// The command that verifies the edit.
    pub verification_command: String,
    /// The command to run before the edit (absent for a file that does not parse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preflight_command: Option<String>,
    /// Rules to keep while editing (absent for a file that does not parse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guardrails: Option<Vec<String>>,
    /// When to stop.
    pub stop_condition: &'static str,
}

/// The commands and rules of the edit, as `agent_workflow`.
#[derive(Clone, Debug, Serialize)]
pub struct AgentWorkflow {
    /// Run before the edit.
    pub before_edit_commands: Vec<String>,
    /// Run after the edit.
    pub after_edit_commands: Vec<String>,
    /// Run at each queue boundary (this gate again).
    pub queue_boundary_commands: Vec<String>,
    /// How to edit (see [`SafeAgent::edit_strategy`]).
    pub edit_strategy: &'static str,
    /// Rules to keep while editing.
    pub guardrails: Vec<String>,
}

/// `edit safe` on a file that does not parse: its payload, in answer order.
#[derive(Clone, Debug, Serialize)]
pub struct SyntaxErrorReport {
    /// The one-line summary.
    #[serde(skip)]
    pub summary: String,
    /// The `agent_summary` additions.
    #[serde(skip)]
    pub agent: SafeAgent,
    /// The recommended next action.
    #[serde(skip)]
    pub next_step: String,
    /// Warnings of the scoring run.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// The file, project-relative.
    pub file_path: String,
    /// The kind of edit assessed.
    pub edit_type: &'static str,
    /// The file's language, when known.
    pub language: Option<&'static str>,
    /// Always `dangerous`.
    pub risk_level: &'static str,
    /// Always `dangerous` (alias of `risk_level`).
    pub risk: &'static str,
    /// Always `syntax_error`.
    pub signal: &'static str,
    /// Unknown while the file does not parse: empty.
    pub downstream_dependents: Vec<String>,
    /// Unknown while the file does not parse: empty.
    pub dependencies: Vec<String>,
    /// Unknown while the file does not parse: empty.
    pub test_files: Vec<String>,
    /// Always false.
    pub has_tests: bool,
    /// What to do, numbered.
    pub pre_edit_checklist: Vec<String>,
    /// The advice in one sentence.
    pub recommendation: String,
}

/// `edit safe` on a file that parses: its payload in answer order, then the lists,
/// agent additions and trust assessment the envelope is made of.
#[derive(Clone, Debug, Serialize)]
pub struct SafeAssessment {
    /// The verdict (risk level raised by the trust floor and constraint violations).
    #[serde(skip)]
    pub verdict: Verdict,
    /// The one-line summary.
    #[serde(skip)]
    pub summary: String,
    /// The files that depend on the file (production files only), capped at 20.
    #[serde(skip)]
    pub downstream: Capped<String>,
    /// The files the file imports, capped at 10.
    #[serde(skip)]
    pub dependencies: Capped<String>,
    /// The `agent_summary` additions.
    #[serde(skip)]
    pub agent: SafeAgent,
    /// The recommended next action (after any truncation sentence).
    #[serde(skip)]
    pub follow_up: String,
    /// Warnings of the scoring run and of the assessment.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Who calls the file's definitions: completeness, public API, open call sites.
    #[serde(skip)]
    pub trust: Trust,
    /// How the verdict was chosen, rule first.
    pub verdict_basis: Vec<String>,
    /// The file, project-relative.
    pub file_path: String,
    /// The kind of edit assessed.
    pub edit_type: &'static str,
    /// `safe`, `caution` or `dangerous`, from the risk points.
    pub risk_level: &'static str,
    /// The sum of the factors' points.
    pub risk_score: u32,
    /// The advice in one sentence.
    pub recommendation: String,
    /// The factors behind the score and the verdict.
    pub risk_factors: Vec<RiskFactor>,
    /// The file's health grade (fast dependency mode).
    pub health_grade: String,
    /// The file's health score.
    pub health_score: f64,
    /// The file's health signal.
    pub health_signal: &'static str,
    /// Test files associated with the file by naming convention or location.
    pub test_files_nearby: Vec<String>,
    /// Test files that import or call the file (its verification, not its blast radius).
    pub test_dependents: Vec<String>,
    /// Whether any nearby test file was found.
    pub has_tests: bool,
    /// What to do before and after the edit, numbered.
    pub pre_edit_checklist: Vec<String>,
    /// Always true: the constraint rules were evaluated.
    pub constraints_checked: bool,
    /// The architectural-constraint violations touching the file.
    pub constraint_violations: Vec<Value>,
    /// Commands, strategy and guardrails for an agent.
    pub agent_workflow: AgentWorkflow,
    /// The file's language, when known.
    pub language: Option<&'static str>,
}

/// What `edit safe` found for one file.
#[derive(Clone, Debug)]
pub enum SafeReport {
    /// The file does not parse: nothing past that can be analysed.
    SyntaxError(Box<SyntaxErrorReport>),
    /// The file parsed and was assessed.
    Assessed(Box<SafeAssessment>),
}

fn downstream_spelling() -> ListSpelling {
    ListSpelling {
        list_key: "downstream_files",
        total_key: "downstream_count",
        listed_key: "downstream_listed",
        cap_key: "downstream_cap",
        noun: "downstream files",
        remedy: "use health action=imports mode=dependents for the full list".into(),
    }
}

fn dependencies_spelling() -> ListSpelling {
    ListSpelling {
        list_key: "dependencies",
        total_key: "dependency_count",
        listed_key: "dependencies_listed",
        cap_key: "dependencies_cap",
        noun: "dependencies",
        remedy: "use health action=imports mode=deps for the full list".into(),
    }
}

impl SafeReport {
    /// The verdict of the answer.
    pub fn verdict(&self) -> Verdict {
        match self {
            SafeReport::SyntaxError(_) => Verdict::Unsafe,
            SafeReport::Assessed(a) => a.verdict,
        }
    }

    /// The `agent_summary` additions.
    pub fn agent(&self) -> &SafeAgent {
        match self {
            SafeReport::SyntaxError(r) => &r.agent,
            SafeReport::Assessed(a) => &a.agent,
        }
    }

    /// The answer's `next_step`: truncation sentences first, then the follow-up.
    pub fn next_step(&self) -> String {
        match self {
            SafeReport::SyntaxError(r) => r.next_step.clone(),
            SafeReport::Assessed(a) => {
                let mut parts: Vec<String> = [
                    (downstream_spelling(), &a.downstream),
                    (dependencies_spelling(), &a.dependencies),
                ]
                .iter()
                .filter(|(_, c)| c.truncated())
                .map(|(s, c)| s.next_step(c))
                .collect();
                if !a.follow_up.is_empty() {
                    parts.push(a.follow_up.clone());
                }
                parts.join(". ")
            }
        }
    }

    /// The answer of `edit safe`.
    pub fn into_success(self) -> Success {
        match self {
            SafeReport::SyntaxError(r) => with_warnings(
                with_agent_fields(
                    with_payload(Success::new(Verdict::Unsafe, r.summary.as_str()), &r),
                    &r.agent,
                )
                .with_next_step(r.next_step.as_str()),
                &r.warnings,
            ),
            SafeReport::Assessed(a) => {
                let ok = with_agent_fields(
                    with_payload(Success::new(a.verdict, a.summary.as_str()), &a),
                    &a.agent,
                )
                .with_list(downstream_spelling(), a.downstream.clone().map(Value::from))
                .with_list(
                    dependencies_spelling(),
                    a.dependencies.clone().map(Value::from),
                )
                .with_next_step(a.follow_up.as_str());
                with_warnings(a.trust.annotate(ok), &a.warnings)
            }
        }
    }
}

/// The report on a file that does not parse.
fn syntax_error_report(
    root: &Path,
    rel: &str,
    edit_type: EditType,
    language: Option<&'static str>,
    warnings: Vec<String>,
) -> SyntaxErrorReport {
    SyntaxErrorReport {
        summary: format!("{rel} signal=syntax_error verdict=UNSAFE"),
        agent: SafeAgent {
            risk: "dangerous",
            edit_strategy: None,
            verification_command: test_command(root, rel, &[]),
            preflight_command: None,
            guardrails: None,
            stop_condition: "the file parses without errors",
        },
        next_step: format!("Fix the syntax error in {rel}, then run edit action=safe again."),
        warnings,
        file_path: rel.to_owned(),
        edit_type: edit_type.as_str(),
        language,
        risk_level: "dangerous",
        risk: "dangerous",
        signal: "syntax_error",
        downstream_dependents: Vec::new(),
        dependencies: Vec::new(),
        test_files: Vec::new(),
        has_tests: false,
        pre_edit_checklist: numbered(vec![
            "Fix the syntax error first: the file does not parse, so its dependents and risk cannot be analysed".into(),
            format!("Re-run edit action=safe on {rel} once it parses"),
        ]),
        recommendation: format!(
            "UNSAFE to edit: {rel} has a syntax error; fix it before any other change."
        ),
    }
}

/// What the index and the file system say about a file that parses.
struct Surroundings {
    score: FileScore,
    indexed: bool,
    down: Vec<String>,
    test_dependents: Vec<String>,
    deps: BTreeSet<String>,
    tests: Vec<String>,
    cmd: String,
}

fn surroundings(root: &Path, sc: &Scoring, rel: &str) -> Result<Surroundings, ToolError> {
    let score = sc.scorer.score(rel)?;
    let files = sc.index.files()?;
    let indexed = files.iter().any(|f| f == rel);
    let test_set: BTreeSet<&str> = sc
        .scorer
        .indexed_files()
        .into_iter()
        .filter(|f| f.is_test)
        .map(|f| f.path.as_str())
        .collect();
    let (down, test_dependents) = split_tests(downstream(&sc.index, rel)?, &test_set);
    let deps: BTreeSet<String> = sc
        .index
        .imports_of_file(rel)?
        .into_iter()
        .filter_map(|r| r.target_file)
        .filter(|f| f != rel)
        .collect();
    let tests = nearby_tests(root, rel, &files);
    let cmd = test_command(root, rel, &tests);
    Ok(Surroundings {
        score,
        indexed,
        down,
        test_dependents,
        deps,
        tests,
        cmd,
    })
}

/// The point-scoring factors: downstream files, health, tests, `__init__.py`, the
/// edit type and the import count.
fn risk_factors(rel: &str, edit_type: EditType, s: &Surroundings) -> Vec<RiskFactor> {
    let n = s.down.len();
    let grade = s.score.grade;
    let mut factors: Vec<RiskFactor> = Vec::new();
    if n > 20 {
        factors.push(factor(
            "high_downstream",
            format!("{n} files depend on this file"),
            "dangerous",
            3,
        ));
    } else if n >= 6 {
        factors.push(factor(
            "moderate_downstream",
            format!("{n} files depend on this file"),
            "caution",
            2,
        ));
    } else if n >= 1 {
        factors.push(factor(
            "low_downstream",
            format!("{n} file(s) depend on this file"),
            "info",
            1,
        ));
    }
    match grade {
        'D' | 'F' => factors.push(factor(
            "poor_health",
            format!("health grade {grade}"),
            "caution",
            2,
        )),
        'C' => factors.push(factor(
            "fair_health",
            format!("health grade {grade}"),
            "info",
            1,
        )),
        _ => {}
    }
    if s.tests.is_empty() {
        factors.push(factor(
            "no_tests",
            "no nearby test files found".into(),
            "caution",
            2,
        ));
    } else {
        factors.push(factor(
            "has_tests",
            format!("{} nearby test file(s)", s.tests.len()),
            "good",
            0,
        ));
    }
    if rel.ends_with("__init__.py") {
        factors.push(factor(
            "init_file",
            "package __init__.py: re-exports reach every importer of the package".into(),
            "caution",
            2,
        ));
    }
    match edit_type {
        EditType::Rename => factors.push(factor(
            "rename_risk",
            "renames break every reference".into(),
            "caution",
            2,
        )),
        EditType::Delete => factors.push(factor(
            "delete_risk",
            "deletions break every reference".into(),
            "caution",
            2,
        )),
        EditType::SignatureChange => factors.push(factor(
            "signature_change_risk",
            "signature changes break callers".into(),
            "caution",
            2,
        )),
        EditType::BehaviorChange => factors.push(factor(
            "behavior_change_risk",
            "callers may rely on current behaviour".into(),
            "caution",
            1,
        )),
        EditType::Refactor if n > 5 => factors.push(factor(
            "refactor_risk",
            format!("refactor with {n} dependents"),
            "caution",
            1,
        )),
        _ => {}
    }
    let import_count = s.score.imports.non_stdlib.max(s.deps.len() as u32);
    if import_count > 10 {
        factors.push(factor(
            "high_dependencies",
            format!("imports {import_count} modules"),
            "info",
            1,
        ));
    }
    factors
}

/// The verdict after the floors, with its basis, the zero-point factors that raised
/// it, the trust assessment and the constraint violation rows.
struct Floors {
    verdict: Verdict,
    basis: Vec<String>,
    factors: Vec<RiskFactor>,
    trust: Trust,
    violations: Vec<Value>,
}

/// Raises `verdict` to the trust floor of the file's definitions (unresolved
/// same-name call sites, an unknown graph, public API) and to the floor of the
/// constraint violations touching the file.
fn apply_floors(
    root: &Path,
    index: &Index,
    rel: &str,
    edit_type: EditType,
    mut verdict: Verdict,
) -> Result<Floors, ToolError> {
    let file_defs: Vec<tsa_index::SymbolRow> = index
        .symbols_in_file(rel)?
        .into_iter()
        .filter(|d| !matches!(d.kind.as_str(), "module" | "impl" | "variable"))
        .collect();
    let trust = Assessor::new(index, root).assess(&file_defs, 0)?;
    let floor = Verdict::from_impact(trust.file_floor(Change::of_edit(edit_type.as_str())));
    let mut basis = vec![SAFE_VERDICT_RULE.to_owned()];
    basis.extend(trust.basis());
    if floor > verdict {
        basis.push(format!(
            "verdict raised from {} to {} by the trust floor ({})",
            verdict.as_str(),
            floor.as_str(),
            edit_type.as_str()
        ));
        verdict = floor;
    }
    let mut factors = Vec::new();
    if trust.open.total > 0 {
        factors.push(factor(
            "unresolved_call_sites",
            format!(
                "{} call site(s) named like a definition of this file are unresolved: its callers are a lower bound",
                trust.open.total
            ),
            "caution",
            0,
        ));
    }
    if trust.completeness == Completeness::Unknown {
        factors.push(factor(
            "call_graph_unknown",
            "no call graph for a language that can call it, or the index is stale".into(),
            "caution",
            0,
        ));
    }
    if !trust.public_api.is_empty() {
        factors.push(factor(
            "public_api",
            format!(
                "{} definition(s) are public API ({}): callers outside the project cannot be counted",
                trust.public_api.len(),
                trust.public_api[0].reason
            ),
            "caution",
            0,
        ));
    }
    let (constraint, violations) = constraint_floor(root, index, rel)?;
    if let Some(v) = constraint
        && v > verdict
    {
        verdict = v;
    }
    for v in &violations {
        factors.push(factor(
            "constraint_violation",
            format!(
                "rule {}: {} -> {} ({})",
                v.rule_id,
                v.caller_file,
                v.callee_file,
                v.severity.as_str()
            ),
            if v.severity == Severity::Error {
                "dangerous"
            } else {
                "caution"
            },
            0,
        ));
    }
    Ok(Floors {
        verdict,
        basis,
        factors,
        trust,
        violations: violations.iter().map(Violation::to_json).collect(),
    })
}

/// The advice of the answer: recommendation, checklist, strategy and guardrails.
struct Guidance {
    strategy: &'static str,
    guardrails: Vec<String>,
    recommendation: String,
    checklist: Vec<String>,
}

fn guidance(
    s: &Surroundings,
    edit_type: EditType,
    verdict: Verdict,
    risk_level: &'static str,
    points: u32,
    trust: &Trust,
) -> Guidance {
    let n = s.down.len();
    let grade = s.score.grade;
    let cmd = &s.cmd;
    let strategy = match verdict {
        Verdict::Safe => "direct_focused_edit",
        Verdict::Caution => "incremental_edit_with_tests",
        _ => "staged_edit_with_review",
    };
    let mut guardrails = vec!["preserve public API signatures".to_owned()];
    if n > 0 {
        guardrails.push(format!(
            "keep the {n} downstream file(s) working; re-check them after the edit"
        ));
    }
    if s.tests.is_empty() {
        guardrails.push("add a test that covers the changed behaviour".into());
    }
    let recommendation = match verdict {
        Verdict::Safe => format!(
            "SAFE to edit (health {grade}, {n} downstream). Standard test pass after the edit is sufficient."
        ),
        Verdict::Caution => format!(
            "CAUTION: {n} downstream file(s), health {grade}, risk {risk_level}; edit incrementally and run the tests after each change."
        ),
        Verdict::Review => format!(
            "REVIEW before a {}: the file defines public API ({}) whose callers outside the project cannot be counted; keep it compatible (deprecate, then migrate) or treat the change as breaking.",
            edit_type.as_str(),
            trust.public_api.first().map_or("", |p| p.reason.as_str())
        ),
        _ => format!(
            "UNSAFE to edit: risk {risk_level} ({points} points, {n} downstream, health {grade}); split the change into small atomic edits and verify each."
        ),
    };
    let mut checklist = vec![match risk_level {
        "dangerous" => {
            "HIGH RISK - consider breaking changes into smaller, atomic edits".to_owned()
        }
        "caution" => "MODERATE RISK - proceed with caution, test after each change".to_owned(),
        _ => "LOW RISK - file is relatively safe to edit".to_owned(),
    }];
    if s.tests.is_empty() {
        checklist.push("No tests found nearby - write tests BEFORE editing (TDD)".into());
        checklist.push(format!("Run default test command after editing: {cmd}"));
    } else {
        checklist.push(format!("Run existing tests FIRST: {cmd}"));
        checklist.push(format!("Run same verification AFTER editing: {cmd}"));
    }
    if n > 0 {
        checklist.push(format!(
            "Check the {n} downstream file(s) for breakage (listed in downstream_files)"
        ));
    }
    if edit_type == EditType::Rename {
        checklist.push(
            "Update every reference to the renamed names (edit action=guard lists them)".into(),
        );
    }
    if edit_type == EditType::Refactor {
        checklist
            .push("Keep behaviour identical: refactor in steps, tests green after each".into());
    }
    if matches!(grade, 'D' | 'F') {
        checklist.push(format!(
            "Health grade {grade}: avoid growing the file; prefer extracting (edit action=refactor)"
        ));
    }
    Guidance {
        strategy,
        guardrails,
        recommendation,
        checklist: numbered(checklist),
    }
}

/// The engine of `edit safe`: the assessment of editing `rel` (a project-relative
/// source file) with an edit of `edit_type`. Reads only.
pub fn assess(ctx: &Context, rel: &str, edit_type: EditType) -> Result<SafeReport, ToolError> {
    let root = ctx.root()?;
    let text = tsa_analysis::security::read_text_in_root(root, rel)?;
    let language = Language::from_path(rel).map(|l| l.name());
    let sc = scoring(ctx, DepsMode::Fast)?;
    let facts = tsa_analysis::health::facts_of(rel, &text, &sc.scorer.config);
    if facts.syntax_error {
        let report = syntax_error_report(root, rel, edit_type, language, sc.warnings.clone());
        return Ok(SafeReport::SyntaxError(Box::new(report)));
    }
    let s = surroundings(root, &sc, rel)?;
    let n = s.down.len();
    let grade = s.score.grade;
    let mut factors = risk_factors(rel, edit_type, &s);
    let points: u32 = factors.iter().map(|f| f.points).sum();
    let risk_level = if points >= 6 {
        "dangerous"
    } else if points >= 3 {
        "caution"
    } else {
        "safe"
    };
    let mut verdict = match risk_level {
        "dangerous" => Verdict::Unsafe,
        "caution" => Verdict::Caution,
        _ => Verdict::Safe,
    };
    let mut warnings = sc.warnings.clone();
    // SAFE means an empty blast radius.
    if verdict == Verdict::Safe && (n > 0 || !s.indexed) {
        verdict = Verdict::Caution;
        if !s.indexed {
            warnings.push(format!(
                "{rel} is not in the index: its dependents are unknown"
            ));
        }
    }
    // Who calls the file's definitions: unresolved same-name sites, an unknown
    // graph and public API keep SAFE away (public API with a breaking edit: REVIEW).
    let floors = apply_floors(root, &sc.index, rel, edit_type, verdict)?;
    let verdict = floors.verdict;
    factors.extend(floors.factors);
    let g = guidance(&s, edit_type, verdict, risk_level, points, &floors.trust);
    let tests_flag = if s.tests.is_empty() { "no" } else { "yes" };
    let cmd = s.cmd.clone();
    let follow_up = if s.tests.is_empty() {
        format!("Write a test for the behaviour you will change, then run: {cmd}")
    } else {
        format!("Run pre-edit verification first: {cmd}")
    };
    Ok(SafeReport::Assessed(Box::new(SafeAssessment {
        verdict,
        summary: format!(
            "{rel} risk={risk_level} verdict={} health={grade} tests={tests_flag}",
            verdict.as_str()
        ),
        downstream: Capped::collect(s.down, fixed_cap(20)),
        dependencies: Capped::collect(s.deps, fixed_cap(10)),
        agent: SafeAgent {
            risk: risk_level,
            edit_strategy: Some(g.strategy),
            verification_command: cmd.clone(),
            preflight_command: Some(cmd.clone()),
            guardrails: Some(g.guardrails.clone()),
            stop_condition: "stop if the verification command fails before the edit, or a downstream file breaks after it",
        },
        follow_up,
        warnings,
        trust: floors.trust,
        verdict_basis: floors.basis,
        file_path: rel.to_owned(),
        edit_type: edit_type.as_str(),
        risk_level,
        risk_score: points,
        recommendation: g.recommendation,
        risk_factors: factors,
        health_grade: grade.to_string(),
        health_score: s.score.total_score,
        health_signal: s.score.signal,
        has_tests: !s.tests.is_empty(),
        test_files_nearby: s.tests,
        test_dependents: s.test_dependents,
        pre_edit_checklist: g.checklist,
        constraints_checked: true,
        constraint_violations: floors.violations,
        agent_workflow: AgentWorkflow {
            before_edit_commands: vec![cmd.clone()],
            after_edit_commands: vec![cmd, format!("tsa health file --file-path {rel}")],
            queue_boundary_commands: vec![format!("tsa edit safe --file-path {rel}")],
            edit_strategy: g.strategy,
            guardrails: g.guardrails,
        },
        language,
    })))
}

impl Action for Safe {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "safe";
    const SUMMARY: &'static str = "pre-edit safety gate: downstream files, health, nearby tests, risk factors, verification command";
    const BRIEF: &'static str = "pre-edit safety gate for a file";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        if args.file_path.trim().is_empty() {
            return Err(ToolError::Validation("file_path must not be empty".into()));
        }
        let rel = source_file(root, &args.file_path)?;
        Ok(assess(ctx, &rel, args.edit_type)?.into_success())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn nearby_tests_follow_each_language_convention() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let all = files(&[
            "pkg/fmt.py",
            "tests/unit/test_fmt.py",
            "tests/test_other.py",
            "store/db.go",
            "store/db_test.go",
            "other/db_test.go",
            "web/app.ts",
            "web/app.test.ts",
            "src/Main.java",
            "test/MainTest.java",
            "src/lib.rs",
            "tests/lib.rs",
        ]);
        assert_eq!(
            nearby_tests(root, "pkg/fmt.py", &all),
            ["tests/unit/test_fmt.py"]
        );
        assert_eq!(
            nearby_tests(root, "store/db.go", &all),
            ["store/db_test.go"]
        );
        assert_eq!(nearby_tests(root, "web/app.ts", &all), ["web/app.test.ts"]);
        assert_eq!(
            nearby_tests(root, "src/Main.java", &all),
            ["test/MainTest.java"]
        );
        assert_eq!(nearby_tests(root, "src/lib.rs", &all), ["tests/lib.rs"]);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/util.rs"),
            "fn a() {}\n#[cfg(test)]\nmod tests {}\n",
        )
        .unwrap();
        assert_eq!(nearby_tests(root, "src/util.rs", &all), ["src/util.rs"]);
    }

    #[test]
    fn test_commands_use_the_project_runner() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(
            test_command(root, "a.py", &files(&["tests/test_a.py"])),
            "pytest tests/test_a.py -q"
        );
        std::fs::write(root.join("uv.lock"), "").unwrap();
        assert_eq!(test_command(root, "a.py", &[]), "uv run pytest -q");
        assert_eq!(
            test_command(root, "store/db.go", &files(&["store/db_test.go"])),
            "go test ./store/..."
        );
        assert_eq!(
            test_command(root, "web/app.ts", &files(&["web/app.test.ts"])),
            "npx jest web/app.test.ts"
        );
        std::fs::write(
            root.join("package.json"),
            r#"{"devDependencies": {"vitest": "1"}}"#,
        )
        .unwrap();
        assert_eq!(test_command(root, "web/app.ts", &[]), "npx vitest run");
        std::fs::create_dir_all(root.join("crates/x/src")).unwrap();
        std::fs::write(
            root.join("crates/x/Cargo.toml"),
            "[package]\nname = \"xcrate\"\n",
        )
        .unwrap();
        assert_eq!(
            test_command(
                root,
                "crates/x/src/util.rs",
                &files(&["crates/x/src/util.rs", "crates/x/tests/util.rs"])
            ),
            "cargo test -p xcrate --lib util:: && cargo test -p xcrate --test util"
        );
        std::fs::write(root.join("pom.xml"), "").unwrap();
        assert_eq!(
            test_command(root, "src/Main.java", &files(&["test/MainTest.java"])),
            "mvn test -Dtest=MainTest"
        );
    }
}
