//! `edit mutation_probe`: does this pytest test constrain this line? One mutation
//! at the line, served in memory to the test (the working tree is never written),
//! baseline and mutated runs under one budget: constrains (SAFE), does not
//! constrain (CAUTION), or unknown with its reason (WARN).

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use tsa_analysis::mutation;
use tsa_envelope::{ErrorType, Failure, Success, Verdict};

use crate::action::Action;
use crate::actions::common::with_payload;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `edit mutation_probe`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The pytest node id (`tests/test_x.py::test_y`).
    #[schemars(length(max = 1000))]
    pub test_node_id: String,
    /// `path/to/file.py:N` (1-based line, project-relative).
    #[serde(default)]
    #[schemars(length(max = 4096))]
    pub code_location: Option<String>,
    /// The file, instead of code_location (with target_line).
    #[serde(default)]
    pub source_path: Option<ProjectPath>,
    /// The line, with source_path.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub target_line: Option<i64>,
    /// Budget of both runs in seconds (default 60, at most 900).
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Same as timeout.
    #[serde(default)]
    pub timeout_seconds: Option<f64>,
}

pub struct MutationProbe;

fn refuse(t: ErrorType, code: &str, error: impl Into<String>) -> ToolError {
    ToolError::Coded(Box::new(
        Failure::new(t, error)
            .with_hint("Pass test_node_id and code_location=path/to/file.py:LINE (a line of a project Python file).")
            .with("error_code", code),
    ))
}

impl Action for MutationProbe {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "mutation_probe";
    const SUMMARY: &'static str = "does this pytest test constrain this line? one in-memory mutation, baseline and mutated runs; constrains SAFE, does not CAUTION, unknown WARN";
    const BRIEF: &'static str = "does a test constrain a line";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let node = args.test_node_id.trim();
        if node.is_empty() || node.starts_with('-') {
            return Err(refuse(
                ErrorType::Validation,
                "INVALID_ARGUMENT",
                "test_node_id must be a pytest node id, not empty and not starting with '-'",
            ));
        }
        let (path, line) = match (
            args.code_location.as_deref(),
            &args.source_path,
            args.target_line,
        ) {
            (Some(loc), None, None) => {
                let (p, l) = loc.rsplit_once(':').ok_or_else(|| {
                    refuse(
                        ErrorType::Validation,
                        "INVALID_LOCATION",
                        "code_location must be path/to/file.py:LINE",
                    )
                })?;
                let l: u32 = l.parse().ok().filter(|l| *l >= 1).ok_or_else(|| {
                    refuse(
                        ErrorType::Validation,
                        "INVALID_LOCATION",
                        "the line of code_location must be a number >= 1",
                    )
                })?;
                if p.split(['/', '\\']).any(|c| c == "..") {
                    return Err(refuse(
                        ErrorType::Validation,
                        "INVALID_LOCATION",
                        "code_location must not contain '..'",
                    ));
                }
                (ProjectPath::confine(root, p)?, l)
            }
            (None, Some(p), Some(l)) if l >= 1 => (p.clone(), l as u32),
            _ => {
                return Err(refuse(
                    ErrorType::Validation,
                    "INVALID_LOCATION",
                    "pass code_location, or source_path with target_line",
                ));
            }
        };
        let rel = path.relative().to_owned();
        if !rel.ends_with(".py") {
            return Err(refuse(
                ErrorType::LanguageUnsupported,
                "LANGUAGE_UNSUPPORTED",
                format!("mutation_probe mutates Python only; '{rel}' is not a .py file"),
            ));
        }
        if !path.absolute().is_file() {
            return Err(refuse(
                ErrorType::FileNotFound,
                "FILE_NOT_FOUND",
                format!("'{rel}' is not a file of the project"),
            ));
        }
        let secs = args.timeout.or(args.timeout_seconds).unwrap_or(60.0);
        if !(secs > 0.0 && secs <= 900.0) {
            return Err(refuse(
                ErrorType::Validation,
                "INVALID_ARGUMENT",
                "timeout must be > 0 and at most 900 seconds",
            ));
        }
        let cancelled = || ctx.cancelled();
        let p = match mutation::probe(
            root,
            &rel,
            line,
            node,
            Duration::from_secs_f64(secs),
            &cancelled,
        ) {
            Ok(p) => p,
            Err("NO_INVERTIBLE_BRANCH") => {
                let mut s = Success::new(
                    Verdict::Warn,
                    format!("mutation_probe: unknown (NO_INVERTIBLE_BRANCH at {rel}:{line})"),
                );
                s.insert("probe_verdict", serde_json::json!("unknown"));
                s.insert("reason", serde_json::json!("NO_INVERTIBLE_BRANCH"));
                return Ok(s.with_next_step("No mutation applies to that line (a condition, a comparison, return True/False, a literal keyword argument, or the head of a with/try body): pick another line."));
            }
            Err(code) => {
                return Err(refuse(
                    ErrorType::Internal,
                    code,
                    format!("the probe could not run: {code}"),
                ));
            }
        };
        let (verdict, step) = match p.probe_verdict {
            "constrains" => (
                Verdict::Safe,
                "The test fails when the line changes: it constrains it.",
            ),
            "does_not_constrain" => (
                Verdict::Caution,
                "The test still passes with the line mutated: strengthen it before relying on it for this line.",
            ),
            _ => (
                Verdict::Warn,
                "Unknown: read reason and the runs' output tails (is pytest installed for this project's interpreter?).",
            ),
        };
        let summary = match (p.probe_verdict, p.reason, &p.mutation) {
            (v, None, Some(m)) => format!("mutation_probe: {v} — {m}"),
            (v, Some(r), _) => format!("mutation_probe: {v} ({r})"),
            (v, None, None) => format!("mutation_probe: {v}"),
        };
        Ok(with_payload(Success::new(verdict, summary), &p).with_next_step(step))
    }
}
