//! `health overview`: the project at a glance from the graph: entry points, hub
//! files (highest fan-in), the dead-code summary and the most coupled files.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::health::dead::dead_report;
use tsa_analysis::health::deadcode::DeadOptions;
use tsa_analysis::health::files::{Files, attach_with};
use tsa_analysis::health::model::{Model, Scope};
use tsa_analysis::health::overview::{dead_production, dead_ratio, entry_points, hub_files};
use tsa_envelope::{Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
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

/// The project's figures.
#[derive(Debug, Serialize)]
pub struct OverviewFigures {
    pub total_files: usize,
    pub total_functions: usize,
    pub total_call_edges: usize,
    pub file_import_edges: usize,
    pub import_cycles: usize,
    pub entry_points: usize,
    pub dead_functions: usize,
    pub dead_ratio: f64,
}

/// The payload of `health overview` before its capped lists.
#[derive(Debug, Serialize)]
struct OverviewPayload {
    summary: OverviewFigures,
}

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
            ctx.root()?,
            &opened.index,
            &model,
            &Scope::default(),
            &DeadOptions {
                include_test_files: false,
                want_imports: false,
                want_variables: false,
            },
        )?;
        let entries = entry_points(&model, &report);
        let files = Files::new(&model);
        let hubs = hub_files(&model, &files);
        let dead = dead_production(&model, &report);
        let dead_n = dead.len();
        let figures = OverviewFigures {
            total_files: model.files.len(),
            total_functions: report.total_functions,
            total_call_edges: report.total_call_edges,
            file_import_edges: files.graph.edge_count(),
            import_cycles: files.graph.cycles().len(),
            entry_points: entries.len(),
            dead_functions: dead_n,
            dead_ratio: dead_ratio(dead_n, report.total_functions),
        };
        let verdict = if dead_n > 20 {
            Verdict::Review
        } else if dead_n > 0 {
            Verdict::Caution
        } else {
            Verdict::Info
        };
        let summary = format!(
            "overview: {} files, {} functions, {} entry point(s), {dead_n} dead function(s)",
            model.files.len(),
            report.total_functions,
            entries.len()
        );
        let mut s = with_payload(
            Success::new(verdict, summary),
            &OverviewPayload { summary: figures },
        );
        s = attach_with(
            s,
            "entry_points",
            "entry points",
            entries.iter().map(to_value).collect(),
            max_entry,
            "raise max_entry_points",
        );
        s = attach_with(
            s,
            "hub_files",
            "hub files",
            hubs.iter().map(to_value).collect(),
            max_hubs,
            "raise max_hubs",
        );
        s = attach_with(
            s,
            "dead_functions",
            "dead functions",
            dead.iter().map(to_value).collect(),
            max_dead,
            "raise max_dead, or use health action=dead",
        );
        s = attach_with(
            s,
            "coupled_files",
            "coupled files",
            files.coupling_rows(),
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
