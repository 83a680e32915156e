//! `edit verify`: runs the verification plan an `edit impact` answer bound in its
//! `verification_request`, after re-deriving that plan from the working tree and
//! proving it unchanged (root, changed files and steps, by digest). Nothing in the
//! request is executed: only the steps tsa derives again. Each step runs as a
//! process tree tsa owns and kills on timeout; failing tests are an answer
//! (UNSAFE), not a tool error.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tsa_analysis::run_tree::{self, Status};
use tsa_envelope::{ErrorType, Failure, Success, Verdict};

use crate::action::Action;
use crate::actions::edit::impact::{self, REQUEST_MAX, VERIFY_TIMEOUT, verify_plan};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `edit verify`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The verification_request of an edit impact answer.
    #[schemars(length(max = 5800))]
    pub request: String,
}

pub struct Verify;

fn invalid(code: &str, error: impl Into<String>) -> ToolError {
    ToolError::Coded(Box::new(
        Failure::new(ErrorType::Validation, error)
            .with_hint("Re-run edit action=impact and pass its new verification_request.")
            .with("error_code", code),
    ))
}

/// The request, decoded and checked field by field.
struct Request {
    root: String,
    changed: String,
    plan: String,
    args: impact::Args,
    timeout: u64,
}

fn hex64(v: &Value) -> Option<String> {
    let s = v.as_str()?;
    (s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
    .then(|| s.to_owned())
}

fn decode(ctx: &Context, text: &str) -> Result<Request, ToolError> {
    use base64::Engine;
    let bad = |why: &str| {
        invalid(
            "VERIFICATION_REQUEST_INVALID",
            format!("verification_request is not valid: {why}"),
        )
    };
    if text.len() > REQUEST_MAX {
        return Err(bad("longer than 5800 characters"));
    }
    let bytes = base64::engine::general_purpose::URL_SAFE
        .decode(text.trim())
        .map_err(|_| bad("not base64url"))?;
    let v: Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|_| bad("not a JSON object"))?;
    let keys: Vec<&str> = {
        let mut k: Vec<&str> = v.keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    };
    if keys
        != [
            "changed",
            "plan",
            "pr_identity",
            "request",
            "root",
            "stage",
            "timeout",
            "version",
        ]
    {
        return Err(bad("unexpected fields"));
    }
    if v["version"] != json!(1)
        || v["stage"] != json!("verification")
        || !v["pr_identity"].is_null()
    {
        return Err(bad("version, stage or pr_identity"));
    }
    let timeout = v["timeout"]
        .as_u64()
        .filter(|t| (1..=VERIFY_TIMEOUT).contains(t))
        .ok_or_else(|| bad("timeout must be 1-900"))?;
    let (Some(root), Some(changed), Some(plan)) =
        (hex64(&v["root"]), hex64(&v["changed"]), hex64(&v["plan"]))
    else {
        return Err(bad("digests must be 64 lower-case hex characters"));
    };
    let r = v["request"].as_object().ok_or_else(|| bad("request"))?;
    let mut rk: Vec<&str> = r.keys().map(String::as_str).collect();
    rk.sort_unstable();
    if rk
        != [
            "include_tests",
            "mode",
            "pr_url",
            "resource_profile",
            "scope_paths",
        ]
    {
        return Err(bad("unexpected request fields"));
    }
    let mode = r["mode"]
        .as_str()
        .filter(|m| matches!(*m, "diff" | "staged" | "branch"))
        .ok_or_else(|| bad("mode"))?;
    let profile = r["resource_profile"]
        .as_str()
        .filter(|m| matches!(*m, "default" | "local_low_impact"))
        .ok_or_else(|| bad("resource_profile"))?;
    if r["pr_url"] != json!("") {
        return Err(bad("pr_url"));
    }
    let include_tests = r["include_tests"]
        .as_bool()
        .ok_or_else(|| bad("include_tests"))?;
    let root_dir = ctx.root()?;
    let mut scopes = Vec::new();
    for s in r["scope_paths"]
        .as_array()
        .ok_or_else(|| bad("scope_paths"))?
    {
        let s = s.as_str().ok_or_else(|| bad("scope_paths"))?;
        scopes.push(
            ProjectPath::confine(root_dir, s)
                .map_err(|_| bad("a scope path leaves the project"))?,
        );
    }
    Ok(Request {
        root,
        changed,
        plan,
        timeout,
        args: impact::Args {
            mode: Some(mode.to_owned()),
            pr_url: None,
            include_tests: Some(include_tests),
            scope_paths: (!scopes.is_empty()).then_some(scopes),
            scope_mode: None,
            resource_profile: Some(profile.to_owned()),
            agent_summary_only: None,
        },
    })
}

/// Whether a passing runner's output says it ran no test (cargo, pytest, go, jest).
fn ran_no_test(out: &str) -> bool {
    let counts: Vec<u64> = out
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("running ")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    if !counts.is_empty() {
        return counts.iter().all(|n| *n == 0);
    }
    out.contains("collected 0 items")
        || out.contains("no tests ran")
        || (out.contains("[no tests to run]") && !out.contains("=== RUN"))
        || out.contains("No tests found")
}

impl Action for Verify {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "verify";
    const SUMMARY: &'static str = "run the verification plan edit impact bound in verification_request, once re-derived and proven unchanged; each step a process tree killed on timeout; failing tests answer UNSAFE";
    const BRIEF: &'static str = "run impact's verification plan";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let req = decode(ctx, &args.request)?;
        let changed = || {
            invalid(
                "VERIFICATION_PLAN_CHANGED",
                "the verification plan changed since edit impact made the request (root, changed files or steps); nothing was run",
            )
        };
        let Some(plan) = verify_plan(ctx, &req.args)? else {
            return Err(changed());
        };
        if plan.root != req.root || plan.changed != req.changed || plan.plan != req.plan {
            return Err(changed());
        }
        let root = ctx.root()?;
        let deadline = Instant::now() + Duration::from_secs(req.timeout);
        let mut executed = Vec::new();
        let mut status = Status::Passed;
        // Steps that passed without running a single test prove nothing.
        let mut empty: Vec<usize> = Vec::new();
        let total = plan.steps.len();
        for (i, step) in plan.steps.iter().enumerate() {
            ctx.report("verify", i, total);
            let run = run_tree::run_until(&step.argv, root, deadline, &|| ctx.cancelled());
            // A runner that is not installed is no failing test.
            let missing =
                run.exit_code == Some(127) || run.output.contains("No module named pytest");
            status = if run.status == Status::Failed && missing {
                Status::Error
            } else {
                run.status
            };
            if status == Status::Passed && ran_no_test(&run.output) {
                empty.push(i);
            }
            executed.push(json!({
                "index": i,
                "role": step.role,
                "argv": step.argv,
                "status": status,
                "exit_code": run.exit_code,
                "elapsed_ms": run.elapsed_ms,
                "cleanup_complete": run.cleanup_complete,
                "output_truncated": run.output_truncated,
                "output_bytes_total": run.output_bytes_total,
                "output": run.output,
            }));
            if status != Status::Passed {
                break;
            }
        }
        ctx.report("verify", executed.len(), total);
        let ran = executed.len();
        let status_name = match status {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Timeout => "timeout",
            Status::Cancelled => "cancelled",
            Status::Error => "error",
        };
        if status == Status::Error {
            return Err(ToolError::Coded(Box::new(
                Failure::new(
                    ErrorType::Internal,
                    format!(
                        "step {} could not run or its processes could not be cleaned up",
                        ran - 1
                    ),
                )
                .with_hint(
                    "Check that the test runner is installed (its output is in executed_steps).",
                )
                .with("error_code", "VERIFICATION_STEP_ERROR")
                .with("status", status_name)
                .with("executed_steps", Value::Array(executed)),
            )));
        }
        let verdict = match status {
            Status::Passed if !empty.is_empty() => Verdict::Warn,
            Status::Passed => Verdict::Safe,
            Status::Failed => Verdict::Unsafe,
            _ => Verdict::Warn,
        };
        let mut s = Success::new(
            verdict,
            format!("verify: {status_name}, {ran} of {total} step(s) run"),
        );
        for (k, v) in [
            ("status", json!(status_name)),
            ("stage", json!("verification")),
            ("plan_digest", json!(plan.plan)),
            ("total_steps", json!(total)),
            ("unexecuted_steps", json!(total - ran)),
            (
                "first_failed_step",
                if status == Status::Passed {
                    Value::Null
                } else {
                    json!(ran - 1)
                },
            ),
            ("executed_steps", Value::Array(executed)),
            ("steps_without_tests", json!(empty)),
        ] {
            s.insert(k, v);
        }
        if !empty.is_empty() {
            s = s.with_warning(format!(
                "step(s) {empty:?} passed without running any test: they verified nothing"
            ));
        }
        Ok(s.with_next_step(match status {
            Status::Passed => "Every step passed: the change is verified.".to_owned(),
            Status::Failed => format!("Step {} failed: read its output in executed_steps, fix the code, then run edit action=impact and verify again.", ran - 1),
            Status::Cancelled => format!("Cancelled during step {}: its processes were stopped; nothing is verified.", ran - 1),
            _ => format!("Step {} ran out of time ({} s) and was stopped; narrow the change or run the command yourself.", ran - 1, req.timeout),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::ran_no_test;

    #[test]
    fn a_run_of_no_test_is_seen() {
        assert!(ran_no_test(
            "running 0 tests\ntest result: ok. 0 passed\n   Doc-tests x\nrunning 0 tests\n"
        ));
        assert!(!ran_no_test(
            "running 1 test\ntest a ... ok\nrunning 0 tests\n"
        ));
        assert!(ran_no_test(
            "ok  \texample.com/m\t0.01s [no tests to run]\n"
        ));
        assert!(ran_no_test("collected 0 items\n"));
        assert!(!ran_no_test("1 passed in 0.01s\n"));
    }
}
