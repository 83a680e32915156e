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
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tsa_analysis::chain::fan_counts;
use tsa_analysis::health::DepsMode;
use tsa_analysis::health::model::{CALLABLE, Scope};
use tsa_analysis::hyphae::Universe;
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};
use tsa_index::{WalkOptions, pending_changes};
use tsa_lang::{Language, is_test_path};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, open_index, pick};
use crate::actions::edit::safe::{self as edit_safe, downstream, test_command};
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

/// One tool call of the procedure, with the same call spelled for the CLI.
fn call(tool: &str, action: &str, args: Value, why: &str) -> Value {
    let mut cli = format!("tsa {tool} {action}");
    if let Value::Object(m) = &args {
        for (k, v) in m {
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
    }
    let mut mcp = Map::new();
    mcp.insert("action".into(), json!(action));
    if let Value::Object(m) = args {
        mcp.extend(m);
    }
    json!({"tool": tool, "arguments": mcp, "cli": cli, "why": why})
}

/// A shell command step (the project's own test runner).
fn shell(command: &str, why: &str) -> Value {
    json!({"tool": Value::Null, "shell": command, "why": why})
}

/// What the target is.
enum Target {
    Project,
    Folder(String),
    File(String),
}

impl Target {
    fn path(&self) -> &str {
        match self {
            Target::Project => ".",
            Target::Folder(p) | Target::File(p) => p,
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Target::Project => "project",
            Target::Folder(_) => "folder",
            Target::File(_) => "file",
        }
    }
}

fn target_of(root: &Path, input: Option<&str>) -> Result<Target, ToolError> {
    let raw = input.map(str::trim).unwrap_or("");
    if raw.is_empty() || raw == "." || raw == "./" {
        return Ok(Target::Project);
    }
    let (abs, rel) = resolve_in_root(root, raw)?;
    if !abs.exists() {
        return Err(ToolError::NotFound(rel));
    }
    if abs.is_dir() {
        let rel = rel.trim_end_matches('/').to_owned();
        return Ok(if rel.is_empty() || rel == "." {
            Target::Project
        } else {
            Target::Folder(rel)
        });
    }
    Ok(Target::File(source_file(root, raw)?))
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

impl Action for Workflow {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "workflow";
    const SUMMARY: &'static str = "SMART workflow pack for a file or folder: Set, Map, Analyze, Retrieve, Trace steps with real tool calls, its test command and current risk";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("limit", args.limit, 5)?;
        let target = target_of(root, args.target_path.as_deref())?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let scope = Scope::new(root, Some(target.path()))?;
        let files: Vec<String> = index
            .files()?
            .into_iter()
            .filter(|f| scope.holds(f))
            .collect();
        let tpath = target.path().to_owned();
        let mut warnings: Vec<String> = opened.built_now.into_iter().collect();
        if files.is_empty() {
            return Ok(Success::new(
                Verdict::NotFound,
                format!("workflow {tpath}: no indexed source file"),
            )
            .with("target_path", tpath.as_str())
            .with("target_kind", target.kind())
            .with_next_step(format!(
                "Nothing under '{tpath}' is in the index: check the path with project action=files path={tpath}, or refresh with index action=sync."
            )));
        }

        // Set: is the index current for the target?
        let pending = pending_changes(root, &WalkOptions::default())?;
        let stale: Vec<&String> = pending
            .new
            .iter()
            .chain(&pending.modified)
            .chain(&pending.deleted)
            .filter(|f| scope.holds(f))
            .collect();

        // Focus functions: the target's production callables, most called first.
        let universe = Universe::load(index)?;
        let in_target: Vec<i64> = universe
            .syms
            .iter()
            .filter(|s| CALLABLE.contains(&s.kind.as_str()) && !s.is_test)
            .filter(|s| {
                universe
                    .file_of(s)
                    .is_some_and(|f| scope.holds(&f.path) && !is_test_path(&f.path))
            })
            .map(|s| s.id)
            .collect();
        let fans = fan_counts(index, &universe, &in_target)?;
        let mut ranked: Vec<(usize, usize, i64)> = in_target
            .iter()
            .map(|id| {
                let f = fans.get(id).copied().unwrap_or_default();
                (f.fan_in, f.fan_out, *id)
            })
            .collect();
        let name_line = |id: i64| {
            universe.get(id).map_or((String::new(), 0), |s| {
                (
                    universe
                        .file_of(s)
                        .map(|f| f.path.clone())
                        .unwrap_or_default(),
                    s.line,
                )
            })
        };
        ranked.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| b.1.cmp(&a.1))
                .then_with(|| name_line(a.2).cmp(&name_line(b.2)))
        });
        let focus: Vec<Value> = ranked
            .iter()
            .filter_map(|(fan_in, fan_out, id)| {
                let s = universe.get(*id)?;
                let file = universe.file_of(s)?;
                Some(json!({
                    "name": s.qualname, "kind": s.kind, "file": file.path,
                    "line": s.line, "end_line": s.end_line,
                    "fan_in": fan_in, "fan_out": fan_out,
                }))
            })
            .collect();
        let top = focus.first().cloned();

        // Analyze: the target's current risk, from the action that owns it.
        let (verdict, risk, test_cmd) = match &target {
            Target::File(rel) => {
                let safe = edit_safe::answer(ctx, rel)?;
                let v = Verdict::normalize(safe.get("verdict").unwrap_or(&Value::Null));
                let mut risk = Value::Object(pick(
                    &safe,
                    &[
                        "risk_level",
                        "risk_score",
                        "risk_factors",
                        "health_grade",
                        "health_score",
                        "health_signal",
                        "downstream_count",
                        "test_files_nearby",
                        "has_tests",
                        "constraint_violations",
                    ],
                ));
                risk["verdict"] = json!(v);
                risk["basis"] = json!(format!("edit action=safe file_path={rel}"));
                let cmd = safe
                    .get("agent_summary")
                    .and_then(|a| a.get("verification_command"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                (v, risk, cmd)
            }
            Target::Folder(_) | Target::Project => {
                let sc = scoring(ctx, DepsMode::Full)?;
                warnings.extend(sc.warnings.iter().cloned());
                let mut dist: BTreeMap<String, usize> = ["A", "B", "C", "D", "F"]
                    .iter()
                    .map(|g| ((*g).to_owned(), 0))
                    .collect();
                let mut scored = Vec::new();
                for (_, r) in sc.scorer.score_all(&files) {
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
                for f in &files {
                    outside.extend(
                        downstream(&sc.index, f)?
                            .into_iter()
                            .filter(|d| !inside.contains(d.as_str())),
                    );
                }
                let weakest: Vec<Value> = scored
                    .iter()
                    .take(3)
                    .map(|s| json!({"file": s.file, "grade": s.grade.to_string(), "total_score": s.total_score, "weakest_dimension": s.weakest_name()}))
                    .collect();
                let risk = json!({
                    "verdict": v,
                    "risk_level": word,
                    "grade_distribution": dist,
                    "files_scored": scored.len(),
                    "lowest_graded_files": weakest,
                    "external_dependent_count": outside.len(),
                    "external_dependents": outside.iter().take(20).collect::<Vec<_>>(),
                    "basis": format!("health grades of the {} indexed file(s) under {tpath} (health action=project's rule)", scored.len()),
                });
                (v, risk, folder_test_command(root, &files))
            }
        };

        // The procedure.
        let in_git = tsa_analysis::git::Repo::open(root).is_ok();
        let is_file = matches!(target, Target::File(_));
        let fn_args = |extra: Value| -> Option<Value> {
            let t = top.as_ref()?;
            let mut m = json!({"function_name": t["name"], "file_path": t["file"]});
            if let (Value::Object(a), Value::Object(b)) = (&mut m, extra) {
                a.extend(b);
            }
            Some(m)
        };
        // Folder-wide calls take the folder as `directory`.
        let with_dir = |mode: &str| {
            let mut a = json!({"mode": mode});
            if let Target::Folder(d) = &target {
                a["directory"] = json!(d);
            }
            a
        };
        let top_name = top
            .as_ref()
            .and_then(|t| t["name"].as_str())
            .unwrap_or("")
            .to_owned();
        let mut phases: Vec<Value> = Vec::new();
        for (phase, goal) in PHASES {
            let mut steps: Vec<Value> = Vec::new();
            match phase {
                "set" => {
                    steps.push(call(
                        "index",
                        "status",
                        json!({}),
                        "up_to_date must be true before any answer is trusted",
                    ));
                    if !stale.is_empty() {
                        steps.push(call(
                            "index",
                            "sync",
                            json!({}),
                            &format!(
                                "{} file(s) under the target changed since the last build",
                                stale.len()
                            ),
                        ));
                    }
                }
                "map" => {
                    if let Target::File(rel) = &target {
                        steps.push(call(
                            "structure",
                            "outline",
                            json!({"file_path": rel}),
                            "every definition of the file with its lines",
                        ));
                        steps.push(call(
                            "health",
                            "imports",
                            json!({"mode": "dependents", "file_path": rel}),
                            "the files that import it: they break if its API changes",
                        ));
                    } else {
                        steps.push(call(
                            "structure",
                            "sitemap",
                            with_dir("summary"),
                            &format!("{} indexed file(s) and their top definitions", files.len()),
                        ));
                    }
                }
                "analyze" => {
                    if let Target::File(rel) = &target {
                        steps.push(call(
                            "edit",
                            "safe",
                            json!({"file_path": rel, "edit_type": "refactor"}),
                            "the pre-edit gate: risk factors, downstream files, checklist (set edit_type to the planned edit)",
                        ));
                        steps.push(call(
                            "health",
                            "file",
                            json!({"file_path": rel}),
                            "the grade and the dimension that loses points",
                        ));
                    } else {
                        steps.push(call(
                            "health",
                            "heatmap",
                            with_dir("project"),
                            "the most complex files of the target",
                        ));
                        if let Some(w) = risk["lowest_graded_files"][0]["file"].as_str() {
                            steps.push(call(
                                "edit",
                                "safe",
                                json!({"file_path": w, "edit_type": "refactor"}),
                                "the lowest-graded file is where an edit is riskiest",
                            ));
                        }
                    }
                    if let Some(a) = fn_args(json!({})) {
                        steps.push(call(
                            "nav",
                            "impact",
                            a,
                            &format!(
                                "blast radius of {top_name}, the most called function of the target"
                            ),
                        ));
                    }
                }
                "retrieve" => {
                    if let Some(t) = &top {
                        steps.push(call(
                            "structure",
                            "read",
                            json!({"file_path": t["file"], "start_line": t["line"], "end_line": t["end_line"]}),
                            &format!("the body of {top_name} only"),
                        ));
                    }
                    let calls_out = top
                        .as_ref()
                        .is_some_and(|t| t["fan_out"].as_u64() > Some(0));
                    if let Some(a) = fn_args(json!({})).filter(|_| calls_out) {
                        steps.push(call(
                            "nav",
                            "callees",
                            a,
                            &format!("what {top_name} relies on"),
                        ));
                    }
                    if top.is_none() && is_file {
                        steps.push(call(
                            "structure",
                            "read",
                            json!({"file_path": tpath}),
                            "the file defines no function: read it whole",
                        ));
                    }
                }
                _ => {
                    if let Some(a) = fn_args(json!({})) {
                        steps.push(call(
                            "nav",
                            "callers",
                            a,
                            &format!("every caller of {top_name} must still work after the edit"),
                        ));
                    }
                    if let Some(t) = &top {
                        steps.push(call(
                            "nav",
                            "test_map",
                            json!({"symbol": t["name"], "file_path": t["file"]}),
                            &format!("the tests that reach {top_name}"),
                        ));
                    }
                    if !test_cmd.is_empty() {
                        steps.push(shell(
                            &test_cmd,
                            "run BEFORE the edit (must pass) and again after it",
                        ));
                    }
                    if in_git {
                        steps.push(call(
                            "edit",
                            "impact",
                            json!({"mode": "diff", "scope_paths": [tpath]}),
                            "after the edit: changed symbols, affected files, tests to run and the verification command",
                        ));
                    } else {
                        // edit impact reads the change from git; without it, refresh
                        // the index so callers and tests answer for the edited code.
                        steps.push(call(
                            "index",
                            "sync",
                            json!({}),
                            "after the edit (no git repository, so no edit action=impact): refresh the index, then repeat the callers step",
                        ));
                    }
                }
            }
            phases.push(json!({"phase": phase, "goal": goal, "steps": steps}));
        }
        let mut n = 0usize;
        for p in &mut phases {
            if let Some(steps) = p["steps"].as_array_mut() {
                for s in steps {
                    n += 1;
                    s["step"] = json!(n);
                }
            }
        }
        let risk_word = risk["risk_level"].as_str().unwrap_or("unknown").to_owned();
        let skills: Vec<&str> = crate::skills::BUILTIN
            .iter()
            .map(|(name, _)| *name)
            .filter(|n| ["safe-edit", "trace-call-chain", "score-health"].contains(n))
            .collect();
        let first = phases
            .first()
            .and_then(|p| p["steps"][0]["cli"].as_str())
            .unwrap_or("tsa index status")
            .to_owned();
        let stop = if in_git {
            "stop when the test command passes after the edit and edit action=impact shows no unexpected affected files"
        } else {
            "stop when the test command passes after the edit and every caller of the focus functions still works"
        };
        let mut s = Success::new(
            verdict,
            format!(
                "workflow {tpath} ({}) files={} risk={risk_word} verdict={} steps={n}{}",
                target.kind(),
                files.len(),
                verdict.as_str(),
                if stale.is_empty() { "" } else { " index=stale" }
            ),
        )
        .with("target_path", tpath.as_str())
        .with("target_kind", target.kind())
        .with("workflow", "SMART")
        .with(
            "phase_names",
            json!(PHASES.iter().map(|p| p.0).collect::<Vec<_>>()),
        )
        .with("file_count", files.len())
        .with("index_up_to_date_for_target", stale.is_empty())
        .with("stale_file_count", stale.len())
        .with("git_repository", in_git)
        .with("risk", risk)
        .with("test_command", test_cmd.as_str())
        .with("phases", json!(phases))
        .with("step_count", n)
        .with("related_skills", json!(skills))
        .with("stop_condition", stop)
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
            Capped::collect(focus, limit),
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
            Capped::collect(files.iter().map(|f| json!(f)), fixed_cap(50)),
        )
        .with_agent("risk", risk_word.as_str())
        .with_agent("verification_command", test_cmd.as_str())
        .with_agent("stop_condition", stop)
        .with_next_step(format!("Follow the phases in order; first: {first}"));
        if !stale.is_empty() {
            warnings.push(format!(
                "stale_index: {} file(s) under {tpath} changed since the last build",
                stale.len()
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
            json!({"mode": "diff", "scope_paths": ["a b", "c"]}),
            "why",
        );
        assert_eq!(c["arguments"]["action"], "impact");
        assert_eq!(c["arguments"]["scope_paths"], json!(["a b", "c"]));
        assert_eq!(
            c["cli"],
            "tsa edit impact --mode diff --scope-paths 'a b,c'"
        );
        let r = call(
            "structure",
            "read",
            json!({"file_path": "x.py", "start_line": 3}),
            "",
        );
        assert_eq!(
            r["cli"],
            "tsa structure read --file-path x.py --start-line 3"
        );
    }
}
