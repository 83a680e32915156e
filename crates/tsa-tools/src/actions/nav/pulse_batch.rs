//! `nav pulse_batch`: `nav pulse` for several symbols in one call, results in input
//! order (a card, or that target's own error); targets past `max_symbols` are
//! counted and named in next_step, never folded into the results.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::num::NonZeroUsize;
use tsa_analysis::pulse::{self, Caps};

use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{build_index, open_index};
use crate::actions::nav::pulse::{Card, Format, budget, card, evidence, refresh};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// One symbol to describe.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    // A project path in the schema (its length limit), resolved target by target.
    #[schemars(with = "crate::ProjectPath")]
    pub file: String,
    pub symbol: String,
}

/// Arguments of `nav pulse_batch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The symbols: `[{file, symbol}]`.
    pub targets: Vec<Target>,
    /// skeletal or compact (default).
    #[serde(default)]
    pub format: Option<Format>,
    /// Token budget of each card (default 400).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub token_budget_per_symbol: Option<i64>,
    /// Most targets answered (1-1000, default 10); the rest are counted.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1000))]
    pub max_symbols: Option<i64>,
}

pub struct PulseBatch;

const CAPS: Caps = Caps {
    callers: 10,
    callees: 10,
    siblings: 15,
    comments: 10,
};

fn failed(file: &str, symbol: &str, code: &str, error: String) -> Value {
    json!({"file": file, "symbol": symbol, "error_code": code, "error": error})
}

/// One target's row: its card (true), or its own error (false).
fn row(t: &Target, c: Result<Card, Value>, format: Format, per: usize) -> (Value, bool) {
    let err = match c {
        Err(v) => v,
        Ok(Card::Found(p)) => {
            let mut v = pulse::render(&p, format.view(), per);
            v["file"] = json!(p.symbol.file);
            v["symbol"] = json!(t.symbol);
            return (v, true);
        }
        Ok(Card::NotIndexed) => failed(
            &t.file,
            &t.symbol,
            "FILE_NOT_INDEXED",
            format!("{} is not an indexed file", t.file),
        ),
        Ok(Card::Missing(_)) => failed(
            &t.file,
            &t.symbol,
            "SYMBOL_NOT_FOUND",
            format!("{} defines no '{}'", t.file, t.symbol),
        ),
        Ok(Card::Ambiguous(rows)) => failed(
            &t.file,
            &t.symbol,
            "AMBIGUOUS_SYMBOL",
            format!(
                "{} defines '{}' {} times; use Class.method or nav pulse with line=",
                t.file,
                t.symbol,
                rows.len()
            ),
        ),
    };
    (err, false)
}

impl Action for PulseBatch {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "pulse_batch";
    const SUMMARY: &'static str = "nav pulse for several {file, symbol} targets, in input order; one target's failure is its own row";
    const BRIEF: &'static str = "pulse for several symbols";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let format = args.format.unwrap_or_default();
        if format == Format::Verbose {
            return Err(ToolError::Validation(
                "parameter 'format' must be skeletal or compact for pulse_batch".into(),
            ));
        }
        let per = budget("token_budget_per_symbol", args.token_budget_per_symbol, 400)?;
        let max = match args.max_symbols {
            None => 10,
            Some(n) if (1..=1000).contains(&n) => n as usize,
            Some(n) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'max_symbols' must be 1-1000, got {n}"
                )));
            }
        };
        let root = ctx.root()?;
        let run = &args.targets[..args.targets.len().min(max)];
        let rest = args.targets.len() - run.len();
        let mut index = open_index(ctx)?.index;
        // Each target's path confined to the root, or its own error.
        let resolved: Vec<Result<String, Value>> = run
            .iter()
            .map(|t| {
                if t.file.trim().is_empty() || t.symbol.trim().is_empty() {
                    return Err(failed(
                        &t.file,
                        &t.symbol,
                        "INVALID_ARGUMENT",
                        "file and symbol must be non-empty strings".into(),
                    ));
                }
                ProjectPath::confine(root, &t.file)
                    .map(|p| p.relative().to_owned())
                    .map_err(|e| failed(&t.file, &t.symbol, "INVALID_ARGUMENT", e.to_string()))
            })
            .collect();
        let cards = |index: &tsa_index::Index| -> Result<Vec<Result<Card, Value>>, ToolError> {
            run.iter()
                .zip(&resolved)
                .map(|(t, r)| match r {
                    Err(v) => Ok(Err(v.clone())),
                    Ok(f) => card(index, root, f, t.symbol.trim(), None, CAPS).map(Ok),
                })
                .collect()
        };
        // Files written or changed since the last build are indexed first.
        let mut unindexed = false;
        for f in resolved.iter().flatten() {
            unindexed |= !index.is_indexed(f)? && root.join(f).is_file();
        }
        let asked: Vec<&str> = resolved.iter().flatten().map(String::as_str).collect();
        unindexed |= !index.changed_on_disk(&asked)?.is_empty();
        if unindexed {
            build_index(ctx, &ctx.build_options())?;
            index = open_index(ctx)?.index;
        }
        let mut got = cards(&index)?;
        let mut files: Vec<String> = got
            .iter()
            .filter_map(|c| match c {
                Ok(Card::Found(p)) => Some(p.files.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        files.sort();
        files.dedup();
        let (mut stale, synced) = refresh(ctx, &index, &files)?;
        if synced {
            index = open_index(ctx)?.index;
            got = cards(&index)?;
            let ask: Vec<&str> = files.iter().map(String::as_str).collect();
            stale = index.changed_on_disk(&ask)?;
        }
        let rows: Vec<(Value, bool)> = run
            .iter()
            .zip(got)
            .map(|(t, c)| row(t, c, format, per))
            .collect();
        let ok = rows.iter().filter(|r| r.1).count();
        let bad = rows.len() - ok;
        let results: Vec<Value> = rows.into_iter().map(|r| r.0).collect();
        let verdict = if !stale.is_empty() || (bad > 0 && ok > 0) {
            Verdict::Warn
        } else if ok == 0 && bad > 0 {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let mut s = Success::new(
            verdict,
            format!("pulse_batch: {ok} card(s), {bad} failed, {rest} not run"),
        );
        s.insert("count", json!(ok));
        s.insert("error_count", json!(bad));
        s.insert("truncated_count", json!(rest));
        s.insert(
            "source_evidence",
            serde_json::to_value(evidence(&index, &files, &stale)?).unwrap_or_default(),
        );
        for f in &stale {
            s = s.with_warning(format!(
                "stale: {f} changed on disk since the index was built"
            ));
        }
        let total = args.targets.len();
        let s = s.with_list(
            ListSpelling {
                list_key: "results",
                total_key: "target_count",
                listed_key: "listed_count",
                cap_key: "listed_cap",
                noun: "targets",
                remedy: format!(
                    "send the remaining {rest} targets in another call (or raise max_symbols)"
                ),
            },
            Capped::counted(
                results,
                total,
                NonZeroUsize::new(max).unwrap_or(NonZeroUsize::MIN),
            ),
        );
        Ok(if rest > 0 {
            s
        } else if bad > 0 {
            s.with_next_step("Fix the failed targets (error_code per row): list a file's definitions with structure action=outline.")
        } else {
            s.with_next_step("Pick a symbol to change and run edit action=impact on it.")
        })
    }
}
