//! `project smart`: one call that orients an agent in a file: its health, what it
//! exports, who depends on it, and the risk of editing it (with the command that
//! runs its tests). Composed from `health file` and `edit safe`, so the numbers are
//! the same as theirs.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tsa_analysis::source::source_file;
use tsa_envelope::{Capped, Envelope, ListSpelling, Success};

use crate::action::Action;
use crate::actions::common::{cap, open_index, pick};
use crate::actions::edit::safe as edit_safe;
use crate::actions::health::file as health_file;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `project smart`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The file to orient in.
    pub file_path: ProjectPath,
    /// Most exports and dependents listed (default 20 each).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

pub struct Smart;

impl Action for Smart {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "smart";
    const SUMMARY: &'static str =
        "one call to orient in a file: health, exports, dependents, edit risk and its test command";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 20)?;
        let rel = source_file(ctx.root()?, &args.file_path)?;
        let health = Envelope::from(health_file::FileHealth.run(
            ctx,
            health_file::Args {
                file_path: ProjectPath::confine(ctx.root()?, &rel)?,
                language: None,
                limit: Some(5),
            },
        )?)
        .to_json();
        let safe = edit_safe::answer(ctx, &rel)?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let exports: Vec<Value> = index
            .symbols_in_file(&rel)?
            .into_iter()
            .filter(|s| s.owner.is_none() && !s.is_test && !s.name.starts_with('_'))
            .filter(|s| !matches!(s.kind.as_str(), "impl" | "module" | "section"))
            .map(|s| json!({"name": s.qualname, "kind": s.kind, "line": s.line, "signature": s.signature}))
            .collect();
        let mut dependents: Vec<String> = index
            .importers_of_file(&rel)?
            .into_iter()
            .map(|i| i.file)
            .collect();
        dependents.sort();
        dependents.dedup();
        let verdict = tsa_envelope::Verdict::normalize(safe.get("verdict").unwrap_or(&Value::Null));
        let agent = safe
            .get("agent_summary")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let grade = health
            .get("grade")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let risk = safe
            .get("risk_level")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned();
        let downstream = safe.get("downstream_count").cloned().unwrap_or(json!(0));
        let mut s = Success::new(
            verdict,
            format!(
                "{rel} health={grade} risk={risk} downstream={downstream} exports={}",
                exports.len()
            ),
        )
        .with("file_path", rel.as_str())
        .with(
            "health",
            Value::Object(pick(
                &health,
                &[
                    "grade",
                    "total_score",
                    "signal",
                    "weakest_dimension",
                    "dimensions",
                    "smell_count",
                    "lines",
                    "language",
                ],
            )),
        )
        .with(
            "edit_risk",
            Value::Object(pick(
                &safe,
                &[
                    "risk_level",
                    "risk_factors",
                    "downstream_count",
                    "has_tests",
                    "test_files_nearby",
                    "constraint_violations",
                ],
            )),
        )
        .with_list(
            ListSpelling {
                list_key: "exports",
                total_key: "export_count",
                listed_key: "exports_listed",
                cap_key: "limit",
                noun: "exports",
                remedy: "raise limit, or structure action=outline for every definition".into(),
            },
            Capped::collect(exports, limit),
        )
        .with_list(
            ListSpelling {
                list_key: "dependents",
                total_key: "dependent_count",
                listed_key: "dependents_listed",
                cap_key: "dependents_cap",
                noun: "importing files",
                remedy: "raise limit, or health action=imports mode=dependents".into(),
            },
            Capped::collect(dependents.into_iter().map(Value::from), limit),
        )
        .with_next_step(
            agent
                .get("next_step")
                .and_then(Value::as_str)
                .unwrap_or("edit action=safe gives the full pre-edit checklist.")
                .to_owned(),
        );
        for k in ["verification_command", "edit_strategy", "stop_condition"] {
            if let Some(v) = agent.get(k) {
                s = s.with_agent(k, v.clone());
            }
        }
        if let Some(cmd) = agent.get("verification_command") {
            s = s.with("verification_command", cmd.clone());
        }
        Ok(s)
    }
}
