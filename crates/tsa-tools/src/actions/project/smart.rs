//! `project smart`: one call that orients an agent in a file: its health, what it
//! exports, who depends on it, and the risk of editing it (with the command that
//! runs its tests). Composed from `health file` and `edit safe`, so the numbers are
//! the same as theirs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_envelope::{Capped, ListSpelling, Success};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_agent_fields};
use crate::actions::edit::safe::{self as edit_safe, EditType, RiskFactor, SafeReport};
use crate::actions::health::file as health_file;
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};
use tsa_analysis::health::FileScore;
use tsa_analysis::source::source_file;

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

/// A file's health as `project smart` shows it (the figures of `health file`).
#[derive(Clone, Debug, Serialize)]
pub struct HealthDigest {
    /// Grade A-F.
    pub grade: String,
    /// The score after the smell penalty.
    pub total_score: f64,
    /// The health signal.
    pub signal: &'static str,
    /// The lowest-scoring dimension.
    pub weakest_dimension: &'static str,
    /// `{dimension: score}` of the available dimensions.
    pub dimensions: Value,
    /// How many smells were found.
    pub smell_count: usize,
    /// Line count.
    pub lines: u32,
    /// The file's language, when known.
    pub language: Option<String>,
}

impl HealthDigest {
    fn of(s: &FileScore) -> Self {
        HealthDigest {
            grade: s.grade.to_string(),
            total_score: s.total_score,
            signal: s.signal,
            weakest_dimension: s.weakest_name(),
            dimensions: s.dimensions_json(),
            smell_count: s.smells.len(),
            lines: s.lines,
            language: s.language.clone(),
        }
    }
}

/// A file's edit risk as `project smart` shows it (the figures of `edit safe`; a
/// file that does not parse has only the risk level and `has_tests`).
#[derive(Clone, Debug, Serialize)]
pub struct EditRisk {
    /// `safe`, `caution` or `dangerous`.
    pub risk_level: &'static str,
    /// The factors behind the risk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk_factors: Option<Vec<RiskFactor>>,
    /// How many production files depend on the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downstream_count: Option<usize>,
    /// Whether any nearby test file was found.
    pub has_tests: bool,
    /// The nearby test files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_files_nearby: Option<Vec<String>>,
    /// Architectural-constraint violations touching the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint_violations: Option<Vec<Value>>,
}

impl EditRisk {
    fn of(r: &SafeReport) -> Self {
        match r {
            SafeReport::SyntaxError(e) => EditRisk {
                risk_level: e.risk_level,
                risk_factors: None,
                downstream_count: None,
                has_tests: e.has_tests,
                test_files_nearby: None,
                constraint_violations: None,
            },
            SafeReport::Assessed(a) => EditRisk {
                risk_level: a.risk_level,
                risk_factors: Some(a.risk_factors.clone()),
                downstream_count: Some(a.downstream.total()),
                has_tests: a.has_tests,
                test_files_nearby: Some(a.test_files_nearby.clone()),
                constraint_violations: Some(a.constraint_violations.clone()),
            },
        }
    }
}

/// A definition the file exports.
#[derive(Clone, Debug, Serialize)]
pub struct Export {
    /// Qualified name.
    pub name: String,
    /// Definition kind.
    pub kind: String,
    /// First line.
    pub line: u32,
    /// Signature as written (empty when none was extracted).
    pub signature: String,
}

/// The `agent_summary` additions of `project smart` (those of `edit safe`).
#[derive(Clone, Debug, Serialize)]
pub struct SmartAgent {
    /// The command that runs the file's tests.
    pub verification_command: String,
    /// How to edit, when the file parses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit_strategy: Option<&'static str>,
    /// When to stop.
    pub stop_condition: &'static str,
}

impl Action for Smart {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "smart";
    const SUMMARY: &'static str =
        "one call to orient in a file: health, exports, dependents, edit risk and its test command";
    const BRIEF: &'static str = "orient in a file in one call";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let limit = cap("limit", args.limit, 20)?;
        let rel = source_file(ctx.root()?, &args.file_path)?;
        let health = health_file::assess(ctx, &rel)?;
        let safe = edit_safe::assess(ctx, &rel, EditType::default())?;
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let exports: Vec<Export> = index
            .symbols_in_file(&rel)?
            .into_iter()
            .filter(|s| s.owner.is_none() && !s.is_test && !s.name.starts_with('_'))
            .filter(|s| !matches!(s.kind.as_str(), "impl" | "module" | "section"))
            .map(|s| Export {
                name: s.qualname,
                kind: s.kind,
                line: s.line,
                signature: s.signature,
            })
            .collect();
        let mut dependents: Vec<String> = index
            .importers_of_file(&rel)?
            .into_iter()
            .map(|i| i.file)
            .collect();
        dependents.sort();
        dependents.dedup();
        let digest = HealthDigest::of(&health.score);
        let risk = EditRisk::of(&safe);
        let downstream = risk.downstream_count.unwrap_or(0);
        let s = Success::new(
            safe.verdict(),
            format!(
                "{rel} health={} risk={} downstream={downstream} exports={}",
                digest.grade,
                risk.risk_level,
                exports.len()
            ),
        )
        .with("file_path", rel.as_str())
        .with("health", to_value(&digest))
        .with("edit_risk", to_value(&risk))
        .with_list(
            ListSpelling {
                list_key: "exports",
                total_key: "export_count",
                listed_key: "exports_listed",
                cap_key: "limit",
                noun: "exports",
                remedy: "raise limit, or structure action=outline for every definition".into(),
            },
            Capped::collect(exports.iter().map(to_value), limit),
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
        .with_next_step(safe.next_step());
        let agent = safe.agent();
        let smart_agent = SmartAgent {
            verification_command: agent.verification_command.clone(),
            edit_strategy: agent.edit_strategy,
            stop_condition: agent.stop_condition,
        };
        Ok(with_agent_fields(s, &smart_agent)
            .with("verification_command", agent.verification_command.as_str()))
    }
}
