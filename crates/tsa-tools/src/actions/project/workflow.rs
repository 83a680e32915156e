//! `project workflow`: the SMART workflow pack for one target (a file, a folder or the
//! whole project): the ordered procedure an agent follows to work on it — Set (the
//! index is current), Map (what is there), Analyze (health and edit risk), Retrieve
//! (the code that matters), Trace (callers, tests, and the change's impact after the
//! edit) — with every tool call filled in with real names from the index, the
//! project's own test command, and the target's current risk.
//!
//! The figures are those of the actions that own them: a file's risk is `edit safe`'s
//! answer, a folder's is the grade spread of its files (`health project`'s rule) with
//! the files outside it that import or call into it; the focus functions are ranked by
//! resolved fan-in (`chain::fan_counts`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tsa_analysis::health::DepsMode;
use tsa_analysis::health::model::Scope;
use tsa_analysis::workflow::{
    FocusFunction, Target, files_in, focus_functions, stale_count, target_of,
};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_lang::Language;

use crate::action::Action;
use crate::actions::common::{
    cap, fixed_cap, open_index, to_value, with_agent_fields, with_payload,
};
use crate::actions::edit::safe::{
    self as edit_safe, EditType, RiskFactor, SafeReport, downstream, test_command,
};
use crate::actions::health::common::scoring;
use crate::actions::health::project::grade_risk;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `project workflow`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// A file or folder inside the project (default: the whole project).
    #[serde(default)]
    pub target_path: Option<ProjectPath>,
    /// Most focus functions listed (default 5).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Workflow;

/// The SMART phases, in order.
pub const PHASES: [(&str, &str); 5] = [
    (
        "set",
        "Set: make sure the index answers for the current code",
    ),
    (
        "map",
        "Map: see what the target holds and what depends on it",
    ),
    (
        "analyze",
        "Analyze: health and edit risk before touching anything",
    ),
    (
        "retrieve",
        "Retrieve: read the code that matters, not whole files",
    ),
    (
        "trace",
        "Trace: callers and tests before the edit, impact after it",
    ),
];

/// One tool call of the procedure, with the same call spelled for the CLI (its
/// number is set once the procedure is complete); `args` in the order given.
fn call(tool: &str, action: &str, args: &[(&str, Value)], why: &str) -> Step {
    let mut cli = format!("tsa {tool} {action}");
    for (k, v) in args {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Array(a) => a
                .iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        };
        let quoted = if text.is_empty() || text.contains([' ', '\'', '"', '$', '*', '|']) {
            format!("'{}'", text.replace('\'', "'\\''"))
        } else {
            text
        };
        cli.push_str(&format!(" --{} {quoted}", k.replace('_', "-")));
    }
    let mut mcp = Map::new();
    mcp.insert("action".into(), Value::from(action));
    for (k, v) in args {
        mcp.insert((*k).to_owned(), v.clone());
    }
    Step {
        tool: Some(tool.to_owned()),
        arguments: Some(mcp),
        cli: Some(cli),
        shell: None,
        why: why.to_owned(),
        step: 0,
    }
}

/// A string argument.
fn text(v: &str) -> Value {
    Value::from(v)
}

/// A shell command step (the project's own test runner).
fn shell(command: &str, why: &str) -> Step {
    Step {
        tool: None,
        arguments: None,
        cli: None,
        shell: Some(command.to_owned()),
        why: why.to_owned(),
        step: 0,
    }
}

/// The project's test command for the target's files: one per language, the run a
/// file of that language would get from `edit safe` with no test file named.
fn folder_test_command(root: &Path, files: &[String]) -> String {
    let mut by_lang: BTreeMap<&str, &String> = BTreeMap::new();
    for f in files {
        if let Some(l) = Language::from_path(f) {
            by_lang.entry(l.name()).or_insert(f);
        }
    }
    let cmds: BTreeSet<String> = by_lang
        .values()
        .map(|f| test_command(root, f, &[]))
        .collect();
    cmds.into_iter().collect::<Vec<_>>().join(" && ")
}

/// One step of the procedure: a tool call (spelled for MCP and the CLI) or a shell
/// command.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// The tool (`null` for a shell command).
    pub tool: Option<String>,
    /// The MCP arguments, `action` first (tool calls only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// The same call for the CLI (tool calls only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cli: Option<String>,
    /// The shell command (shell steps only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// Why the step is there.
    pub why: String,
    /// The step's number over the whole procedure, from 1.
    pub step: usize,
}

/// One SMART phase with its steps.
#[derive(Clone, Debug, Serialize)]
pub struct Phase {
    /// `set`, `map`, `analyze`, `retrieve` or `trace`.
    pub phase: &'static str,
    /// What the phase is for.
    pub goal: &'static str,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

/// A file target's risk: the figures of `edit safe` (a file that does not parse has
/// only the risk level and `has_tests`), its verdict and where they come from.
#[derive(Clone, Debug, Serialize)]
pub struct FileRisk {
    /// `safe`, `caution` or `dangerous`.
    pub risk_level: &'static str,
    /// The sum of the risk factors' points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk_score: Option<u32>,
    /// The factors behind the risk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk_factors: Option<Vec<RiskFactor>>,
    /// The file's health grade.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_grade: Option<String>,
    /// The file's health score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_score: Option<f64>,
    /// The file's health signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_signal: Option<&'static str>,
    /// How many production files depend on the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downstream_count: Option<usize>,
    /// The nearby test files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_files_nearby: Option<Vec<String>>,
    /// Whether any nearby test file was found.
    pub has_tests: bool,
    /// Architectural-constraint violations touching the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint_violations: Option<Vec<Value>>,
    /// The verdict of `edit safe`.
    pub verdict: Verdict,
    /// The call the figures come from.
    pub basis: String,
}

/// One of the lowest-graded files of a folder target.
#[derive(Clone, Debug, Serialize)]
pub struct WeakFile {
    /// The file, project-relative.
    pub file: String,
    /// Grade A-F.
    pub grade: String,
    /// Its health score.
    pub total_score: f64,
    /// Its lowest-scoring dimension.
    pub weakest_dimension: &'static str,
}

/// A folder's (or the project's) risk: the grade spread of its files and the files
/// outside it that depend on it.
#[derive(Clone, Debug, Serialize)]
pub struct FolderRisk {
    /// The verdict of the grade spread (`health project`'s rule).
    pub verdict: Verdict,
    /// `low`, `medium`, `high` or `critical`.
    pub risk_level: &'static str,
    /// Files per grade, A to F.
    pub grade_distribution: BTreeMap<String, usize>,
    /// How many files were scored.
    pub files_scored: usize,
    /// The three lowest-graded files, worst first.
    pub lowest_graded_files: Vec<WeakFile>,
    /// How many files outside the target import or call into it.
    pub external_dependent_count: usize,
    /// The first 20 of them.
    pub external_dependents: Vec<String>,
    /// Where the figures come from.
    pub basis: String,
}

/// The target's current risk.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum TargetRisk {
    /// A file: `edit safe`'s figures.
    File(FileRisk),
    /// A folder or the project: the grade spread.
    Folder(FolderRisk),
}

impl TargetRisk {
    fn risk_level(&self) -> &'static str {
        match self {
            TargetRisk::File(f) => f.risk_level,
            TargetRisk::Folder(f) => f.risk_level,
        }
    }

    fn lowest_graded_file(&self) -> Option<&str> {
        match self {
            TargetRisk::File(_) => None,
            TargetRisk::Folder(f) => f.lowest_graded_files.first().map(|w| w.file.as_str()),
        }
    }
}

/// A file's risk and test command, from `edit safe`'s engine.
fn file_risk(ctx: &Context, rel: &str) -> Result<(Verdict, TargetRisk, String), ToolError> {
    let safe = edit_safe::assess(ctx, rel, EditType::default())?;
    let verdict = safe.verdict();
    let cmd = safe.agent().verification_command.clone();
    let basis = format!("edit action=safe file_path={rel}");
    let risk = match &safe {
        SafeReport::SyntaxError(e) => FileRisk {
            risk_level: e.risk_level,
            risk_score: None,
            risk_factors: None,
            health_grade: None,
            health_score: None,
            health_signal: None,
            downstream_count: None,
            test_files_nearby: None,
            has_tests: e.has_tests,
            constraint_violations: None,
            verdict,
            basis,
        },
        SafeReport::Assessed(a) => FileRisk {
            risk_level: a.risk_level,
            risk_score: Some(a.risk_score),
            risk_factors: Some(a.risk_factors.clone()),
            health_grade: Some(a.health_grade.clone()),
            health_score: Some(a.health_score),
            health_signal: Some(a.health_signal),
            downstream_count: Some(a.downstream.total()),
            test_files_nearby: Some(a.test_files_nearby.clone()),
            has_tests: a.has_tests,
            constraint_violations: Some(a.constraint_violations.clone()),
            verdict,
            basis,
        },
    };
    Ok((verdict, TargetRisk::File(risk), cmd))
}

/// A folder's (or the project's) risk and test command: the grade spread of its
/// files (`health project`'s rule) and the files outside it that depend on it.
fn folder_risk(
    ctx: &Context,
    files: &[String],
    tpath: &str,
    warnings: &mut Vec<String>,
) -> Result<(Verdict, TargetRisk, String), ToolError> {
    let root = ctx.root()?;
    let sc = scoring(ctx, DepsMode::Full)?;
    warnings.extend(sc.warnings.iter().cloned());
    let mut dist: BTreeMap<String, usize> = ["A", "B", "C", "D", "F"]
        .iter()
        .map(|g| ((*g).to_owned(), 0))
        .collect();
    let mut scored = Vec::new();
    for (_, r) in sc.scorer.score_all(files) {
        if let Ok(s) = r {
            *dist.entry(s.grade.to_string()).or_default() += 1;
            scored.push(s);
        }
    }
    scored.sort_by(|a, b| {
        a.total_score
            .total_cmp(&b.total_score)
            .then_with(|| a.file.cmp(&b.file))
    });
    let (word, v) = grade_risk(&dist);
    let inside: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    let mut outside: BTreeSet<String> = BTreeSet::new();
    for f in files {
        outside.extend(
            downstream(&sc.index, f)?
                .into_iter()
                .filter(|d| !inside.contains(d.as_str())),
        );
    }
    let risk = FolderRisk {
        verdict: v,
        risk_level: word,
        grade_distribution: dist,
        files_scored: scored.len(),
        lowest_graded_files: scored
            .iter()
            .take(3)
            .map(|s| WeakFile {
                file: s.file.clone(),
                grade: s.grade.to_string(),
                total_score: s.total_score,
                weakest_dimension: s.weakest_name(),
            })
            .collect(),
        external_dependent_count: outside.len(),
        external_dependents: outside.iter().take(20).cloned().collect(),
        basis: format!(
            "health grades of the {} indexed file(s) under {tpath} (health action=project's rule)",
            scored.len()
        ),
    };
    Ok((
        v,
        TargetRisk::Folder(risk),
        folder_test_command(root, files),
    ))
}

/// What the procedure is built from.
struct Plan<'a> {
    target: &'a Target,
    tpath: &'a str,
    files: &'a [String],
    stale: usize,
    top: Option<&'a FocusFunction>,
    risk: &'a TargetRisk,
    test_cmd: &'a str,
    in_git: bool,
}

impl Plan<'_> {
    /// `{function_name, file_path}` of the top focus function.
    fn fn_args(&self) -> Option<[(&'static str, Value); 2]> {
        let t = self.top?;
        Some([
            ("function_name", text(&t.name)),
            ("file_path", text(&t.file)),
        ])
    }

    fn top_name(&self) -> &str {
        self.top.map_or("", |t| t.name.as_str())
    }

    /// Folder-wide calls take the folder as `directory`.
    fn with_dir(&self, mode: &str) -> Vec<(&'static str, Value)> {
        let mut a = vec![("mode", text(mode))];
        if let Target::Folder(d) = self.target {
            a.push(("directory", text(d)));
        }
        a
    }

    fn set(&self, steps: &mut Vec<Step>) {
        steps.push(call(
            "index",
            "status",
            &[],
            "up_to_date must be true before any answer is trusted",
        ));
        if self.stale > 0 {
            steps.push(call(
                "index",
                "sync",
                &[],
                &format!(
                    "{} file(s) under the target changed since the last build",
                    self.stale
                ),
            ));
        }
    }

    fn map(&self, steps: &mut Vec<Step>) {
        if let Target::File(rel) = self.target {
            steps.push(call(
                "structure",
                "outline",
                &[("file_path", text(rel))],
                "every definition of the file with its lines",
            ));
            steps.push(call(
                "health",
                "imports",
                &[("mode", text("dependents")), ("file_path", text(rel))],
                "the files that import it: they break if its API changes",
            ));
        } else {
            steps.push(call(
                "structure",
                "sitemap",
                &self.with_dir("summary"),
                &format!(
                    "{} indexed file(s) and their top definitions",
                    self.files.len()
                ),
            ));
        }
    }

    fn analyze(&self, steps: &mut Vec<Step>) {
        if let Target::File(rel) = self.target {
            steps.push(call(
                "edit",
                "safe",
                &[("file_path", text(rel)), ("edit_type", text("refactor"))],
                "the pre-edit gate: risk factors, downstream files, checklist (set edit_type to the planned edit)",
            ));
            steps.push(call(
                "health",
                "file",
                &[("file_path", text(rel))],
                "the grade and the dimension that loses points",
            ));
        } else {
            steps.push(call(
                "health",
                "heatmap",
                &self.with_dir("project"),
                "the most complex files of the target",
            ));
            if let Some(w) = self.risk.lowest_graded_file() {
                steps.push(call(
                    "edit",
                    "safe",
                    &[("file_path", text(w)), ("edit_type", text("refactor"))],
                    "the lowest-graded file is where an edit is riskiest",
                ));
            }
        }
        if let Some(a) = self.fn_args() {
            steps.push(call(
                "nav",
                "impact",
                &a,
                &format!(
                    "blast radius of {}, the most called function of the target",
                    self.top_name()
                ),
            ));
        }
    }

    fn retrieve(&self, steps: &mut Vec<Step>) {
        let top_name = self.top_name();
        if let Some(t) = self.top {
            steps.push(call(
                "structure",
                "read",
                &[
                    ("file_path", text(&t.file)),
                    ("start_line", Value::from(t.line)),
                    ("end_line", Value::from(t.end_line)),
                ],
                &format!("the body of {top_name} only"),
            ));
        }
        let calls_out = self.top.is_some_and(|t| t.fan_out > 0);
        if let Some(a) = self.fn_args().filter(|_| calls_out) {
            steps.push(call(
                "nav",
                "callees",
                &a,
                &format!("what {top_name} relies on"),
            ));
        }
        if self.top.is_none() && matches!(self.target, Target::File(_)) {
            steps.push(call(
                "structure",
                "read",
                &[("file_path", text(self.tpath))],
                "the file defines no function: read it whole",
            ));
        }
    }

    fn trace(&self, steps: &mut Vec<Step>) {
        let top_name = self.top_name();
        if let Some(a) = self.fn_args() {
            steps.push(call(
                "nav",
                "callers",
                &a,
                &format!("every caller of {top_name} must still work after the edit"),
            ));
        }
        if let Some(t) = self.top {
            steps.push(call(
                "nav",
                "test_map",
                &[("symbol", text(&t.name)), ("file_path", text(&t.file))],
                &format!("the tests that reach {top_name}"),
            ));
        }
        if !self.test_cmd.is_empty() {
            steps.push(shell(
                self.test_cmd,
                "run BEFORE the edit (must pass) and again after it",
            ));
        }
        if self.in_git {
            steps.push(call(
                "edit",
                "impact",
                &[
                    ("mode", text("diff")),
                    ("scope_paths", Value::from(vec![self.tpath])),
                ],
                "after the edit: changed symbols, affected files, tests to run and the verification command",
            ));
        } else {
            // edit impact reads the change from git; without it, refresh
            // the index so callers and tests answer for the edited code.
            steps.push(call(
                "index",
                "sync",
                &[],
                "after the edit (no git repository, so no edit action=impact): refresh the index, then repeat the callers step",
            ));
        }
    }

    /// The phases in order, their steps numbered over the whole procedure.
    fn phases(&self) -> Vec<Phase> {
        let mut phases: Vec<Phase> = Vec::new();
        for (phase, goal) in PHASES {
            let mut steps: Vec<Step> = Vec::new();
            match phase {
                "set" => self.set(&mut steps),
                "map" => self.map(&mut steps),
                "analyze" => self.analyze(&mut steps),
                "retrieve" => self.retrieve(&mut steps),
                _ => self.trace(&mut steps),
            }
            phases.push(Phase { phase, goal, steps });
        }
        let mut n = 0usize;
        for s in phases.iter_mut().flat_map(|p| p.steps.iter_mut()) {
            n += 1;
            s.step = n;
        }
        phases
    }
}

/// The payload of a target with no indexed source file.
#[derive(Debug, Serialize)]
struct NothingIndexed<'a> {
    target_path: &'a str,
    target_kind: &'static str,
}

/// The answer for a target with no indexed source file.
fn nothing_indexed(target: &Target) -> Success {
    let tpath = target.path();
    let payload = NothingIndexed {
        target_path: tpath,
        target_kind: target.kind(),
    };
    with_payload(
        Success::new(
            Verdict::NotFound,
            format!("workflow {tpath}: no indexed source file"),
        ),
        &payload,
    )
    .with_next_step(format!(
        "Nothing under '{tpath}' is in the index: check the path with project action=files path={tpath}, or refresh with index action=sync."
    ))
}

/// The payload of `project workflow`, in answer order (the capped lists
/// `focus_functions` and `files` follow it).
#[derive(Debug, Serialize)]
pub struct WorkflowPayload<'a> {
    /// The target, `.` for the project.
    pub target_path: &'a str,
    /// `project`, `folder` or `file`.
    pub target_kind: &'static str,
    /// Always `SMART`.
    pub workflow: &'static str,
    /// The phases' names, in order.
    pub phase_names: Vec<&'static str>,
    /// Indexed files under the target.
    pub file_count: usize,
    /// Whether no file under the target changed since the last build.
    pub index_up_to_date_for_target: bool,
    /// Files under the target changed since the last build.
    pub stale_file_count: usize,
    /// Whether the project is a git repository.
    pub git_repository: bool,
    /// The target's current risk.
    pub risk: &'a TargetRisk,
    /// The project's test command for the target.
    pub test_command: &'a str,
    /// The procedure.
    pub phases: &'a [Phase],
    /// Steps over all phases.
    pub step_count: usize,
    /// Built-in skills that fit the procedure.
    pub related_skills: Vec<&'static str>,
    /// When the work is done.
    pub stop_condition: &'static str,
}

/// The `agent_summary` additions of `project workflow`.
#[derive(Debug, Serialize)]
pub struct WorkflowAgent<'a> {
    /// The target's risk level.
    pub risk: &'static str,
    /// The test command.
    pub verification_command: &'a str,
    /// When the work is done.
    pub stop_condition: &'static str,
}

/// The target's facts from the index: its files, stale count and focus functions.
struct Facts {
    files: Vec<String>,
    stale: usize,
    focus: Vec<FocusFunction>,
}

/// The answer for a target with indexed files.
fn answer(
    target: &Target,
    facts: &Facts,
    verdict: Verdict,
    risk: &TargetRisk,
    test_cmd: &str,
    in_git: bool,
    limit: std::num::NonZeroUsize,
) -> Success {
    let tpath = target.path();
    let (files, stale) = (&facts.files, facts.stale);
    let phases = Plan {
        target,
        tpath,
        files,
        stale,
        top: facts.focus.first(),
        risk,
        test_cmd,
        in_git,
    }
    .phases();
    let n: usize = phases.iter().map(|p| p.steps.len()).sum();
    let risk_word = risk.risk_level();
    let first = phases
        .first()
        .and_then(|p| p.steps.first())
        .and_then(|s| s.cli.clone())
        .unwrap_or_else(|| "tsa index status".to_owned());
    let stop = if in_git {
        "stop when the test command passes after the edit and edit action=impact shows no unexpected affected files"
    } else {
        "stop when the test command passes after the edit and every caller of the focus functions still works"
    };
    let payload = WorkflowPayload {
        target_path: tpath,
        target_kind: target.kind(),
        workflow: "SMART",
        phase_names: PHASES.iter().map(|p| p.0).collect(),
        file_count: files.len(),
        index_up_to_date_for_target: stale == 0,
        stale_file_count: stale,
        git_repository: in_git,
        risk,
        test_command: test_cmd,
        phases: &phases,
        step_count: n,
        related_skills: crate::skills::BUILTIN
            .iter()
            .map(|(name, _)| *name)
            .filter(|n| ["safe-edit", "trace-call-chain", "score-health"].contains(n))
            .collect(),
        stop_condition: stop,
    };
    let summary = format!(
        "workflow {tpath} ({}) files={} risk={risk_word} verdict={} steps={n}{}",
        target.kind(),
        files.len(),
        verdict.as_str(),
        if stale == 0 { "" } else { " index=stale" }
    );
    let s = with_payload(Success::new(verdict, summary), &payload)
        .with_list(
            ListSpelling {
                list_key: "focus_functions",
                total_key: "focus_function_count",
                listed_key: "focus_functions_listed",
                cap_key: "limit",
                noun: "functions",
                remedy: "raise limit, or health action=dead / nav action=impact per function"
                    .into(),
            },
            Capped::collect(facts.focus.iter().map(to_value), limit),
        )
        .with_list(
            ListSpelling {
                list_key: "files",
                total_key: "target_file_count",
                listed_key: "files_listed",
                cap_key: "files_cap",
                noun: "indexed files",
                remedy: "project action=files path=<target> lists them all".into(),
            },
            Capped::collect(files.iter().map(|f| text(f)), fixed_cap(50)),
        );
    with_agent_fields(
        s,
        &WorkflowAgent {
            risk: risk_word,
            verification_command: test_cmd,
            stop_condition: stop,
        },
    )
    .with_next_step(format!("Follow the phases in order; first: {first}"))
}

impl Action for Workflow {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "workflow";
    const SUMMARY: &'static str = "SMART workflow pack for a file or folder: Set, Map, Analyze, Retrieve, Trace steps with real tool calls, its test command and current risk";
    const BRIEF: &'static str = "SMART workflow pack";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("limit", args.limit, 5)?;
        let target = target_of(root, args.target_path.as_deref())?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let scope = Scope::new(root, Some(target.path()))?;
        let files = files_in(index, &scope)?;
        let tpath = target.path().to_owned();
        let mut warnings: Vec<String> = opened.built_now.into_iter().collect();
        if files.is_empty() {
            return Ok(nothing_indexed(&target));
        }
        // Set: is the index current for the target?
        let stale = stale_count(root, &scope)?;
        // Focus functions: the target's production callables, most called first.
        let focus = focus_functions(index, &scope)?;
        // Analyze: the target's current risk, from the engine that owns it.
        let (verdict, risk, test_cmd) = match &target {
            Target::File(rel) => file_risk(ctx, rel)?,
            Target::Folder(_) | Target::Project => folder_risk(ctx, &files, &tpath, &mut warnings)?,
        };
        let in_git = tsa_analysis::git::Repo::open(root).is_ok();
        let facts = Facts {
            files,
            stale,
            focus,
        };
        let mut s = answer(&target, &facts, verdict, &risk, &test_cmd, in_git, limit);
        if stale > 0 {
            warnings.push(format!(
                "stale_index: {stale} file(s) under {tpath} changed since the last build"
            ));
        }
        for w in warnings {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_spelled_for_mcp_and_the_cli() {
        let c = call(
            "edit",
            "impact",
            &[
                ("mode", text("diff")),
                ("scope_paths", Value::from(vec!["a b", "c"])),
            ],
            "why",
        );
        let arguments = c.arguments.unwrap_or_default();
        assert_eq!(arguments["action"], "impact");
        assert_eq!(arguments["scope_paths"], Value::from(vec!["a b", "c"]));
        assert_eq!(
            c.cli.as_deref(),
            Some("tsa edit impact --mode diff --scope-paths 'a b,c'")
        );
        let r = call(
            "structure",
            "read",
            &[("file_path", text("x.py")), ("start_line", Value::from(3))],
            "",
        );
        assert_eq!(
            r.cli.as_deref(),
            Some("tsa structure read --file-path x.py --start-line 3")
        );
    }
}
