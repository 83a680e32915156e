//! `health overview`: the project at a glance from the graph: entry points, hub
//! files (highest fan-in), the dead-code summary and the most coupled files.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::health::deadcode::{Alive, DeadOptions};
use tsa_analysis::health::files::{Files, attach_with};
use tsa_analysis::health::model::{Model, Scope};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index};
use crate::actions::health::dead::dead_report;
use crate::{Context, ToolError};

/// Arguments of `health overview`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Most entry points to list (default 30).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_entry_points: Option<i64>,
    /// Most hub files to list (default 20).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_hubs: Option<i64>,
    /// Most dead functions to list (default 20).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_dead: Option<i64>,
    /// Most coupled files to list (default 15).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_coupled_files: Option<i64>,
}

pub struct Overview;

impl Action for Overview {
    type Args = Args;
    const FACADE: &'static str = "health";
    const NAME: &'static str = "overview";
    const SUMMARY: &'static str =
        "entry points, hub files (fan-in), dead-code summary, most coupled files";
    const BRIEF: &'static str = "entry points, hubs, coupling";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let max_entry = cap("max_entry_points", args.max_entry_points, 30)?;
        let max_hubs = cap("max_hubs", args.max_hubs, 20)?;
        let max_dead = cap("max_dead", args.max_dead, 20)?;
        let max_coupled = cap("max_coupled_files", args.max_coupled_files, 15)?;
        let opened = open_index(ctx)?;
        let model = Model::load(&opened.index)?;
        let report = dead_report(
            ctx,
            &opened.index,
            &model,
            &Scope::default(),
            &DeadOptions {
                include_test_files: false,
                want_imports: false,
                want_variables: false,
            },
        )?;
        // Entry points: functions alive by their own rule (not merely reached).
        let entries: Vec<serde_json::Value> = model
            .syms
            .iter()
            .zip(&report.alive)
            .filter(|(_, a)| {
                matches!(
                    a,
                    Some(
                        Alive::EntryName
                            | Alive::RouteHandler
                            | Alive::Decorated
                            | Alive::ModuleCode
                    )
                )
            })
            .filter(|(s, _)| tsa_analysis::health::model::CALLABLE.contains(&s.kind.as_str()))
            .map(|(s, a)| {
                json!({
                    "name": s.qualname,
                    "file": model.path_of(s.file_id),
                    "line": s.line,
                    "kind": a.map_or("", Alive::as_str),
                })
            })
            .collect();
        let files = Files::new(&model);
        let calls = model.file_call_counts();
        // Hub files: importers plus files calling in.
        let mut fan_in: rustc_hash::FxHashMap<i64, (usize, u64)> = rustc_hash::FxHashMap::default();
        for (f, r) in &files.graph.rdeps {
            fan_in.entry(*f).or_default().0 = r.len();
        }
        let mut callers_in: rustc_hash::FxHashMap<i64, rustc_hash::FxHashSet<i64>> =
            Default::default();
        for ((cf, tf), n) in &calls {
            callers_in.entry(*tf).or_default().insert(*cf);
            fan_in.entry(*tf).or_default().1 += n;
        }
        let mut hubs: Vec<(usize, u64, &str, usize)> = fan_in
            .iter()
            .map(|(f, (importers, incoming))| {
                let mut dependents: rustc_hash::FxHashSet<i64> = files
                    .graph
                    .rdeps
                    .get(f)
                    .into_iter()
                    .flatten()
                    .copied()
                    .collect();
                dependents.extend(callers_in.get(f).into_iter().flatten().copied());
                dependents.remove(f);
                (dependents.len(), *incoming, model.path_of(*f), *importers)
            })
            .filter(|h| h.0 > 0)
            .collect();
        hubs.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
        let hub_rows = hubs
            .into_iter()
            .map(|(n, c, f, imp)| json!({"file": f, "dependent_files": n, "importers": imp, "incoming_calls": c}))
            .collect();
        let dead_prod: Vec<&tsa_analysis::health::deadcode::DeadFunction> = report
            .dead
            .iter()
            .filter(|d| {
                model
                    .file(model.syms[d.sym].file_id)
                    .is_some_and(|f| !f.is_test)
            })
            .collect();
        let dead_rows = dead_prod
            .iter()
            .map(|d| {
                let s = &model.syms[d.sym];
                json!({"name": s.qualname, "file": model.path_of(s.file_id), "line": s.line, "reason": d.reason})
            })
            .collect();
        let dead_n = dead_prod.len();
        let coupled = files.coupling_rows();
        let summary = json!({
            "total_files": model.files.len(),
            "total_functions": report.total_functions,
            "total_call_edges": report.total_call_edges,
            "file_import_edges": files.graph.edge_count(),
            "import_cycles": files.graph.cycles().len(),
            "entry_points": entries.len(),
            "dead_functions": dead_n,
            "dead_ratio": if report.total_functions == 0 { 0.0 } else { (dead_n as f64 / report.total_functions as f64 * 1000.0).round() / 1000.0 },
        });
        let verdict = if dead_n > 20 {
            Verdict::Review
        } else if dead_n > 0 {
            Verdict::Caution
        } else {
            Verdict::Info
        };
        let mut s = Success::new(
            verdict,
            format!(
                "overview: {} files, {} functions, {} entry point(s), {dead_n} dead function(s)",
                model.files.len(),
                report.total_functions,
                entries.len()
            ),
        )
        .with("summary", summary);
        s = attach_with(
            s,
            "entry_points",
            "entry points",
            entries,
            max_entry,
            "raise max_entry_points",
        );
        s = attach_with(
            s,
            "hub_files",
            "hub files",
            hub_rows,
            max_hubs,
            "raise max_hubs",
        );
        s = attach_with(
            s,
            "dead_functions",
            "dead functions",
            dead_rows,
            max_dead,
            "raise max_dead, or use health action=dead",
        );
        s = attach_with(
            s,
            "coupled_files",
            "coupled files",
            coupled,
            max_coupled,
            "raise max_coupled_files",
        );
        s = s.with_next_step("health action=dead explains each dead function; health action=imports mode=blast_radius on a hub file shows its reach.");
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
