//! `edit guard`: before modifying a symbol, how much depends on it. Callers come
//! from the resolved call graph (`total_callers`), text usages from the in-process
//! usage trace (`ripgrep_occurrences`: comments, imports and strings filtered out);
//! the impact level takes the larger of the two (analyses §7), and maps to the
//! verdict through the one risk order.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::source::source_file;
use tsa_analysis::text_search::{CaseMode, FileFilter, Limits, MatchSpec, search};
use tsa_analysis::trust::{Assessor, Change, Trust};
use tsa_envelope::{Capped, ImpactLevel, ListSpelling, Success, Verdict};
use tsa_index::SymbolRow;
use tsa_lang::{Language, Tier};

use crate::action::Action;
use crate::actions::common::{
    fixed_cap, open_index, split_qualified, to_value, with_agent_fields, with_payload,
};
use crate::actions::nav::trace::{Occurrence, classify, syntax};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// The kinds of edit the edit actions know.
pub const EDIT_TYPES: [&str; 7] = [
    "add_feature",
    "behavior_change",
    "delete",
    "fix_bug",
    "refactor",
    "rename",
    "signature_change",
];

/// Arguments of `edit guard`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The symbol about to change (`build`, or qualified `Engine.run`).
    pub symbol: String,
    /// The planned change: add_feature | behavior_change | delete | fix_bug | refactor | rename | signature_change.
    pub modification_type: String,
    /// The file that defines the symbol (narrows which definition is meant).
    #[serde(default)]
    pub file_path: Option<ProjectPath>,
}

pub struct Guard;

fn level_of(n: usize) -> ImpactLevel {
    match n {
        0 => ImpactLevel::None,
        1..=5 => ImpactLevel::Low,
        6..=20 => ImpactLevel::Medium,
        _ => ImpactLevel::High,
    }
}

fn level_name(l: ImpactLevel) -> &'static str {
    match l {
        ImpactLevel::None => "none",
        ImpactLevel::Low => "low",
        ImpactLevel::Medium => "medium",
        ImpactLevel::High => "high",
    }
}

/// How `edit guard` chooses its verdict (the first line of `verdict_basis`).
const GUARD_VERDICT_RULE: &str = "impact_level from the larger of resolved callers and text occurrences (0 none, 1-5 low, 6-20 medium, >20 high), raised to the trust floor (unresolved same-name call sites or an unknown graph: at least low; public API: low, medium for rename/signature_change/delete); then Verdict::from_impact";

/// What to do before and after the change, by impact and modification type.
fn required_actions(level: ImpactLevel, kind: &str, symbol: &str, n: usize) -> Vec<String> {
    if level == ImpactLevel::None {
        return vec!["No callers found — safe to proceed.".to_owned()];
    }
    let mut v = vec![
        format!(
            "Review all {n} usage site(s) of '{symbol}' listed in occurrences and callers_by_file."
        ),
        format!(
            "Batch-check them: search action=batch with the listed files, or nav action=callers function_name={symbol}."
        ),
    ];
    match kind {
        "rename" | "signature_change" => v.push(format!(
            "Update every call site of '{symbol}' in the same change (callers_by_file lists them per file)."
        )),
        "delete" => v.push(format!(
            "Confirm no caller still needs '{symbol}'; remove or redirect every call site first."
        )),
        "behavior_change" => v.push(format!(
            "Audit each caller of '{symbol}' for reliance on the current behaviour; add a test pinning the new one."
        )),
        "fix_bug" => v.push("Add a regression test reproducing the bug before the fix.".to_owned()),
        "add_feature" => v.push(
            "Keep the existing behaviour for current callers (additive parameters with defaults).".to_owned(),
        ),
        _ => v.push("Keep the public behaviour identical; run the callers' tests after the refactor.".to_owned()),
    }
    if level == ImpactLevel::High {
        v.push(format!(
            "High impact: deprecate-and-migrate (keep the old '{symbol}' delegating to the new one) instead of a breaking change."
        ));
        v.push("If a breaking change is unavoidable, update all sites atomically in one commit and run the full test suite.".to_owned());
    }
    v
}

/// A code-text use of the symbol, as a row of `occurrences`.
#[derive(Debug, Serialize)]
pub struct OccurrenceRow {
    pub file: String,
    pub line: u64,
    pub column: usize,
    pub text: String,
}

/// The symbol's code-text uses (comments, imports and strings filtered out).
struct Occurrences {
    rows: Vec<OccurrenceRow>,
    /// Definitions of the name found in the text.
    text_defs: usize,
    by_file: BTreeMap<String, usize>,
    timed_out: bool,
}

/// The usage trace's engine and filters over the project's code files.
fn occurrences(root: &Path, name: &str) -> Result<Occurrences, ToolError> {
    let mut spec = MatchSpec::new(name);
    spec.fixed_strings = true;
    spec.word = true;
    spec.case = CaseMode::Sensitive;
    let out = search(
        root,
        &FileFilter {
            max_filesize: Some(10_000_000),
            parallel: true,
            ..FileFilter::default()
        },
        &spec,
        Limits {
            rows_per_file: 100_000,
            deadline: Instant::now() + Duration::from_millis(8000),
            file_limit: None,
        },
    )?;
    let mut o = Occurrences {
        rows: Vec::new(),
        text_defs: 0,
        by_file: BTreeMap::new(),
        timed_out: out.timed_out,
    };
    for f in &out.files {
        let Some(lang) = Language::from_path(&f.file).filter(|l| l.tier() != Tier::Structure)
        else {
            continue;
        };
        let syn = syntax(lang);
        for r in &f.rows {
            for [s, e] in &r.matches {
                match classify(&r.text, *s, *e, &syn) {
                    Occurrence::Call | Occurrence::Reference => {
                        *o.by_file.entry(f.file.clone()).or_default() += 1;
                        o.rows.push(OccurrenceRow {
                            file: f.file.clone(),
                            line: r.line,
                            column: s + 1,
                            text: r.text.trim().to_owned(),
                        });
                    }
                    Occurrence::Definition => o.text_defs += 1,
                    _ => {}
                }
            }
        }
    }
    Ok(o)
}

/// The payload of a symbol found nowhere.
#[derive(Debug, Serialize)]
struct NotFound<'a> {
    symbol: &'a str,
    modification_type: &'a str,
    safety_verdict: &'static str,
    impact_level: &'static str,
    total_callers: usize,
    ripgrep_occurrences: usize,
    suggestions: Vec<String>,
}

/// The `agent_summary` additions of a symbol found nowhere.
#[derive(Debug, Serialize)]
struct NotFoundAgent<'a> {
    risk: &'static str,
    symbol: &'a str,
}

fn not_found(symbol: &str, kind: &str, suggestions: Vec<String>) -> Success {
    let step = match suggestions.first() {
        Some(s) => {
            format!("'{symbol}' does not exist. Did you mean '{s}'? Re-run with the exact name")
        }
        None => format!(
            "'{symbol}' does not exist in the project. Check spelling with search action=symbol"
        ),
    };
    let payload = NotFound {
        symbol,
        modification_type: kind,
        safety_verdict: "NOT_FOUND",
        impact_level: "unknown",
        total_callers: 0,
        ripgrep_occurrences: 0,
        suggestions,
    };
    with_agent_fields(
        with_payload(
            Success::new(Verdict::NotFound, format!("guard: '{symbol}' not found")),
            &payload,
        ),
        &NotFoundAgent {
            risk: "unknown",
            symbol,
        },
    )
    .with_next_step(step)
}

/// The payload of `edit guard`, in answer order (its capped lists follow).
#[derive(Debug, Serialize)]
pub struct GuardPayload<'a> {
    pub symbol: &'a str,
    pub modification_type: &'a str,
    pub impact_level: &'static str,
    pub impact_badge: String,
    pub impact_guidance: &'static str,
    pub total_callers: usize,
    pub ripgrep_occurrences: usize,
    pub count_unit: &'static str,
    pub count_caveat: &'static str,
    pub verdict_basis: &'a [String],
    pub callers_by_file: &'a BTreeMap<String, usize>,
    pub occurrences_by_file: &'a BTreeMap<String, usize>,
    pub safety_verdict: &'static str,
    pub required_actions: Vec<String>,
    pub proceed_recommendation: &'static str,
    pub recommendation: &'a str,
}

/// The `agent_summary` additions of `edit guard`.
#[derive(Debug, Serialize)]
pub struct GuardAgent<'a> {
    pub risk: &'static str,
    pub symbol: &'a str,
    pub modification_type: &'a str,
    pub total_callers: usize,
    pub ripgrep_occurrences: usize,
    pub count_unit: &'static str,
    pub recommendation: &'a str,
    pub stop_condition: &'static str,
}

/// After the lists: the resolved callers when a file narrowed the definition, and
/// the trust fields when no definition is in the index.
#[derive(Debug, Serialize)]
struct Tail {
    #[serde(skip_serializing_if = "Option::is_none")]
    ast_caller_count: Option<usize>,
}

#[derive(Debug, Serialize)]
struct NoTrust {
    completeness: &'static str,
    public_api: bool,
}

const COUNT_CAVEAT: &str = "ripgrep_occurrences counts code-text uses (comments, imports and strings filtered out); total_callers counts resolved call edges; the impact level takes the larger";

/// The impact level and why: the larger of callers and occurrences, raised to the
/// trust floor (no definition in the index: at least low).
fn impact(
    trust: Option<&Trust>,
    kind: &str,
    count: usize,
) -> (ImpactLevel, ImpactLevel, Vec<String>) {
    let from_uses = level_of(count);
    let floor = match trust {
        Some(t) => t.floor(Change::of_edit(kind)),
        None => ImpactLevel::Low,
    };
    let level = from_uses.max(floor);
    let mut basis = vec![GUARD_VERDICT_RULE.to_owned()];
    match trust {
        Some(t) => basis.extend(t.basis()),
        None => basis.push(
            "completeness unknown: no definition of it in the index, so its callers cannot be resolved".to_owned(),
        ),
    }
    if level > from_uses {
        basis.push(format!(
            "impact_level raised from {} to {} by the floor of completeness and public API ({kind})",
            level_name(from_uses),
            level_name(level)
        ));
    }
    (level, from_uses, basis)
}

fn guidance(level: ImpactLevel, from_uses: ImpactLevel) -> &'static str {
    match level {
        _ if level > from_uses => {
            "Its callers are not all known (see verdict_basis): check its uses before changing it, and keep public API compatible."
        }
        ImpactLevel::None => {
            "Nothing calls or references it in code text; dynamic uses remain possible."
        }
        ImpactLevel::Low => "Few uses: change it and update the listed sites.",
        ImpactLevel::Medium => {
            "Several uses: review every site before changing signature or behaviour."
        }
        ImpactLevel::High => "Many uses: prefer an additive change and run the full test suite.",
    }
}

fn badge(level: ImpactLevel, n_occ: usize) -> String {
    match level {
        ImpactLevel::High => format!("🚨 HIGH IMPACT — {n_occ} RIPGREP OCCURRENCES"),
        ImpactLevel::Medium => "🟡 MEDIUM IMPACT".to_owned(),
        ImpactLevel::Low => "🟢 LOW IMPACT".to_owned(),
        ImpactLevel::None => "⚪ NO KNOWN USES".to_owned(),
    }
}

fn proceed(level: ImpactLevel) -> &'static str {
    match level {
        ImpactLevel::None => "PROCEED",
        ImpactLevel::Low => "PROCEED_WITH_CAUTION",
        ImpactLevel::Medium => "REVIEW_FIRST",
        ImpactLevel::High => "DO_NOT_PROCEED_WITHOUT_PLAN",
    }
}

/// The occurrence and definition lists.
fn with_lists(s: Success, occ: &Occurrences, defs: &[SymbolRow]) -> Success {
    s.with_list(
        ListSpelling {
            list_key: "occurrences",
            total_key: "count",
            listed_key: "occurrences_listed",
            cap_key: "listed_cap",
            noun: "occurrences",
            remedy: "use nav action=trace with max_results for the full list".into(),
        },
        Capped::collect(occ.rows.iter().map(to_value), fixed_cap(50)),
    )
    .with_list(
        ListSpelling {
            list_key: "definitions",
            total_key: "definition_count",
            listed_key: "definitions_listed",
            cap_key: "definitions_cap",
            noun: "definitions",
            remedy: "pass file_path or qualify the symbol (Class.method)".into(),
        },
        Capped::collect(
            crate::actions::common::definitions_json(defs)
                .as_array()
                .cloned()
                .unwrap_or_default(),
            fixed_cap(20),
        ),
    )
}

/// The checked name, owner and modification type of a call.
fn checked(a: &Args) -> Result<(Option<&str>, &str, &str), ToolError> {
    let (owner, name) = split_qualified(&a.symbol);
    let name = name.trim();
    if name.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'symbol' must be a non-empty identifier".into(),
        ));
    }
    let kind = a.modification_type.trim();
    if !EDIT_TYPES.contains(&kind) {
        return Err(ToolError::Validation(format!(
            "modification_type must be {}, got '{kind}'",
            EDIT_TYPES.join("|")
        )));
    }
    Ok((owner, name, kind))
}

impl Action for Guard {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "guard";
    const SUMMARY: &'static str = "before modifying a symbol: resolved callers + filtered text occurrences, impact level, required actions per modification type";
    const BRIEF: &'static str = "before changing a symbol";
    const ALIASES: &'static [(&'static str, &'static str)] = &[
        ("function_name", "symbol"),
        ("edit_type", "modification_type"),
    ];

    fn run(&self, ctx: &Context, a: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let (owner, name, kind) = checked(&a)?;
        let file = match &a.file_path {
            Some(p) => Some(source_file(root, p)?),
            None => None,
        };
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs: Vec<_> = index
            .find_symbols(name, owner, file.as_deref())?
            .into_iter()
            .filter(|s| !matches!(s.kind.as_str(), "impl" | "module"))
            .collect();
        // Resolved callers of every matching definition.
        let ids: Vec<i64> = defs.iter().map(|d| d.id).collect();
        let edges = index.edges_to(&ids)?;
        let caller_ids: Vec<i64> = edges.iter().map(|e| e.caller).collect();
        let callers = index.symbols_by_id(&caller_ids)?;
        let mut callers_by_file: BTreeMap<String, usize> = BTreeMap::new();
        for e in &edges {
            if let Some(c) = callers.get(&e.caller) {
                *callers_by_file.entry(c.file.clone()).or_default() += 1;
            }
        }
        let total_callers = edges.len();
        let occ = occurrences(root, name)?;
        let n_occ = occ.rows.len();
        if defs.is_empty() && n_occ == 0 && occ.text_defs == 0 {
            return Ok(not_found(&a.symbol, kind, index.suggest(name, 5)?));
        }
        let count = n_occ.max(total_callers);
        // Unresolved same-name sites, an unknown graph (or no definition in the
        // index) and public API raise the level: never SAFE when unsure.
        let trust = if defs.is_empty() {
            None
        } else {
            Some(Assessor::new(index, root).assess(&defs, 0)?)
        };
        let (level, from_uses, basis) = impact(trust.as_ref(), kind, count);
        let verdict = Verdict::from_impact(level);
        let lname = level_name(level);
        let guidance = guidance(level, from_uses);
        let recommendation = format!(
            "{}: {} '{}' — {total_callers} resolved caller(s), {n_occ} text occurrence(s); {guidance}",
            verdict.as_str(),
            kind,
            a.symbol
        );
        let payload = GuardPayload {
            symbol: &a.symbol,
            modification_type: kind,
            impact_level: lname,
            impact_badge: badge(level, n_occ),
            impact_guidance: guidance,
            total_callers,
            ripgrep_occurrences: n_occ,
            count_unit: "ripgrep_occurrences",
            count_caveat: COUNT_CAVEAT,
            verdict_basis: &basis,
            callers_by_file: &callers_by_file,
            occurrences_by_file: &occ.by_file,
            safety_verdict: verdict.as_str(),
            required_actions: required_actions(level, kind, &a.symbol, count),
            proceed_recommendation: proceed(level),
            recommendation: &recommendation,
        };
        let agent = GuardAgent {
            risk: lname,
            symbol: &a.symbol,
            modification_type: kind,
            total_callers,
            ripgrep_occurrences: n_occ,
            count_unit: "ripgrep_occurrences",
            recommendation: &recommendation,
            stop_condition: "stop if a caller outside callers_by_file appears or tests of a listed caller fail",
        };
        let summary = format!(
            "guard: '{}' {kind} impact={lname} callers={total_callers} occurrences={n_occ}",
            a.symbol
        );
        let s = with_lists(
            with_payload(Success::new(verdict, summary), &payload),
            &occ,
            &defs,
        );
        let tail = Tail {
            ast_caller_count: file.as_ref().map(|_| total_callers),
        };
        let mut s = with_payload(with_agent_fields(s, &agent), &tail);
        s = match &trust {
            Some(t) => t.annotate(s),
            None => with_payload(
                s,
                &NoTrust {
                    completeness: "unknown",
                    public_api: false,
                },
            ),
        };
        if defs.is_empty() {
            s = s.with_warning(format!(
                "no definition of '{}' in the index: total_callers is 0 and only text occurrences count",
                a.symbol
            ));
        }
        if occ.timed_out {
            s = s
                .with_warning("the text search hit its time budget: occurrences are a lower bound");
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        let step = if level == ImpactLevel::None {
            format!(
                "Proceed with the {kind}; run the tests of {}",
                defs.first().map_or("the file", |d| d.file.as_str())
            )
        } else {
            format!(
                "Follow required_actions; see every caller with nav action=callers function_name={}",
                a.symbol
            )
        };
        Ok(s.with_next_step(step))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_actions() {
        assert_eq!(level_of(0), ImpactLevel::None);
        assert_eq!(level_of(5), ImpactLevel::Low);
        assert_eq!(level_of(6), ImpactLevel::Medium);
        assert_eq!(level_of(21), ImpactLevel::High);
        assert_eq!(
            required_actions(ImpactLevel::None, "rename", "f", 0).len(),
            1
        );
        let high = required_actions(ImpactLevel::High, "delete", "f", 30);
        assert!(high.iter().any(|s| s.contains("deprecate-and-migrate")));
        assert!(high.iter().any(|s| s.contains("Confirm no caller")));
    }
}
