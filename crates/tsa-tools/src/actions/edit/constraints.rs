//! `edit constraints`: evaluates the project's architectural `forbid` rules
//! (analyses §12) over the resolved cross-file call edges and file imports, and
//! persists the violations for `edit safe` / `edit impact`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::constraints::{self, Rule, Severity};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, with_agent_fields, with_payload};
use crate::{Context, ToolError};

/// Arguments of `edit constraints`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Lowest severity to list: `info`, `warn` (default) or `error`. The verdict
    /// counts every violation regardless.
    #[serde(default)]
    pub severity_min: Option<String>,
    /// Only list violations whose caller or callee file matches this glob
    /// (`src/api/**`); empty lists all.
    #[serde(default)]
    pub path_filter: Option<String>,
    /// Most violations to list (default 100). All are counted.
    #[serde(default)]
    pub limit: Option<i64>,
}

pub struct Constraints;

fn spelling() -> ListSpelling {
    ListSpelling {
        list_key: "violations",
        total_key: "violation_count",
        listed_key: "violations_listed",
        cap_key: "listed_cap",
        noun: "violations",
        remedy: "raise limit, or narrow with path_filter / severity_min=error".into(),
    }
}

/// A rule of the constraint file.
#[derive(Debug, Serialize)]
pub struct RuleRow<'a> {
    pub id: &'a str,
    pub severity: &'static str,
    pub from: &'a str,
    pub to: &'a str,
    pub reason: &'a str,
}

impl<'a> RuleRow<'a> {
    fn of(r: &'a Rule) -> RuleRow<'a> {
        RuleRow {
            id: &r.id,
            severity: r.severity.as_str(),
            from: &r.from,
            to: &r.to,
            reason: &r.reason,
        }
    }
}

/// Violations per severity.
#[derive(Debug, Serialize)]
pub struct SeverityCounts {
    pub error: usize,
    pub warn: usize,
    pub info: usize,
}

/// The payload of `edit constraints` before its list.
#[derive(Debug, Serialize)]
pub struct ConstraintsPayload<'a> {
    pub constraint_file: &'a str,
    pub rule_count: usize,
    pub rules: Vec<RuleRow<'a>>,
    pub evaluated_edge_count: usize,
    pub severity_min: &'static str,
    pub severity_counts: SeverityCounts,
    pub total_violation_count: usize,
}

/// The `agent_summary` additions of `edit constraints`.
#[derive(Debug, Serialize)]
pub struct ConstraintsAgent {
    pub rule_count: usize,
    pub violation_count: usize,
}

/// Said when the index has nothing to judge.
#[derive(Debug, Serialize)]
struct Note {
    note: &'static str,
}

impl Action for Constraints {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "constraints";
    const SUMMARY: &'static str = "architectural forbid rules (architectural-constraints.yml) checked against resolved calls and imports; error->UNSAFE, warn->CAUTION";
    const BRIEF: &'static str = "check architecture rules";

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let min = match a.severity_min.as_deref().map(str::trim) {
            None | Some("") => Severity::Warn,
            Some(s) => Severity::parse(s).ok_or_else(|| {
                ToolError::Validation(format!("severity_min must be info|warn|error, got '{s}'"))
            })?,
        };
        let filter = match a.path_filter.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(p) => Some(constraints::glob(p).map_err(|e| {
                ToolError::Validation(format!("path_filter is not a valid glob: {e}"))
            })?),
        };
        let limit = cap("limit", a.limit, 100)?;
        let set = constraints::load(root)?;
        let Some(file) = set.file.clone() else {
            return Ok(Success::new(
                Verdict::Safe,
                "constraints: no constraint file, 0 rules",
            )
            .with("rule_count", 0)
            .with("evaluated_edge_count", 0)
            .with_list(spelling(), Capped::collect(Vec::new(), limit))
            .with(
                "note",
                format!(
                    "no {} (or {}) in the project: no rules to check",
                    constraints::FILES[0],
                    constraints::FILES[1]
                ),
            )
            .with_next_step(format!(
                "Write {} with version: 1 and a constraints list of forbid rules (id, severity, rule, from, to, reason)",
                constraints::FILES[0]
            )));
        };
        let opened = open_index(ctx)?;
        let eval = set.evaluate(&opened.index)?;
        constraints::persist(root, &eval)?;
        let errors = eval
            .violations
            .iter()
            .filter(|v| v.severity == Severity::Error)
            .count();
        let warns = eval
            .violations
            .iter()
            .filter(|v| v.severity == Severity::Warn)
            .count();
        let verdict = if errors > 0 {
            Verdict::Unsafe
        } else if warns > 0 {
            Verdict::Caution
        } else {
            Verdict::Safe
        };
        let rows: Vec<_> = eval
            .violations
            .iter()
            .filter(|v| v.severity >= min)
            .filter(|v| {
                filter
                    .as_ref()
                    .is_none_or(|g| g.is_match(&v.caller_file) || g.is_match(&v.callee_file))
            })
            .map(|v| v.to_json())
            .collect();
        let payload = ConstraintsPayload {
            constraint_file: &file,
            rule_count: set.rules.len(),
            rules: set.rules.iter().map(RuleRow::of).collect(),
            evaluated_edge_count: eval.evaluated_edge_count,
            severity_min: min.as_str(),
            severity_counts: SeverityCounts {
                error: errors,
                warn: warns,
                info: eval.violations.len() - errors - warns,
            },
            total_violation_count: eval.violations.len(),
        };
        let agent = ConstraintsAgent {
            rule_count: set.rules.len(),
            violation_count: eval.violations.len(),
        };
        let summary = format!(
            "constraints: {} rules, {} violations ({errors} error, {warns} warn) over {} edges",
            set.rules.len(),
            eval.violations.len(),
            eval.evaluated_edge_count
        );
        let mut s = with_agent_fields(
            with_payload(Success::new(verdict, summary), &payload)
                .with_list(spelling(), Capped::collect(rows, limit)),
            &agent,
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        for w in &set.warnings {
            s = s.with_warning(w.clone());
        }
        if eval.evaluated_edge_count == 0 {
            s = with_payload(
                s,
                &Note {
                    note: "the index has no resolved cross-file calls or imports: nothing to judge (persisted violations kept)",
                },
            );
        }
        let step = if errors > 0 {
            "Fix the error-severity violations (or add a justified exception glob) before merging; then re-run edit action=constraints"
        } else if warns > 0 {
            "Review the warn-severity violations; re-run edit action=constraints after the fix"
        } else {
            "No violation: the layering holds. Re-run after structural edits"
        };
        Ok(s.with_next_step(step))
    }
}
