//! `project overview`: one look at a project from the index: languages, folder
//! structure, entry points, size of the graph, and (on request) the grade spread.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::project::{entry_points, folders, grade_distribution};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, open_index, to_value, with_payload};
use crate::{Context, ToolError};

/// Arguments of `project overview`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Also grade every file (health project's distribution).
    #[serde(default)]
    pub include_health: bool,
    /// Folder levels shown in `structure` (default 5).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_depth: Option<i64>,
}

pub struct Overview;

/// The call graph's size.
#[derive(Debug, Serialize)]
pub struct CallGraphSize<'a> {
    pub call_edges: u64,
    pub by_resolution: &'a BTreeMap<String, u64>,
}

/// The payload of `project overview` before its capped lists.
#[derive(Debug, Serialize)]
pub struct OverviewPayload<'a> {
    pub files_by_language: &'a BTreeMap<String, u64>,
    pub symbols_by_kind: &'a BTreeMap<String, u64>,
    pub call_graph: CallGraphSize<'a>,
}

/// The payload after the lists.
#[derive(Debug, Serialize)]
pub struct OverviewTail {
    pub max_depth: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grade_distribution: Option<BTreeMap<String, usize>>,
}

impl Action for Overview {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "overview";
    const SUMMARY: &'static str = "languages, folder structure, entry points and graph size of the project (health on request)";
    const BRIEF: &'static str = "languages, layout, entry points";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let depth = cap("max_depth", args.max_depth, 5)?.get();
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let st = index.status()?;
        let files = index.files()?;
        let entries = entry_points(index, &files)?;
        let payload = OverviewPayload {
            files_by_language: &st.files_by_language,
            symbols_by_kind: &st.symbols_by_kind,
            call_graph: CallGraphSize {
                call_edges: st.calls,
                by_resolution: &st.calls_by_resolution,
            },
        };
        let summary = format!(
            "overview: {} files, {} symbols, {} call edges ({} languages)",
            st.files,
            st.symbols,
            st.calls,
            st.files_by_language.len()
        );
        let s = with_payload(Success::new(Verdict::Info, summary), &payload)
            .with_list(
                ListSpelling {
                    list_key: "structure",
                    total_key: "folder_count",
                    listed_key: "folders_listed",
                    cap_key: "folders_cap",
                    noun: "folders",
                    remedy: "lower max_depth".into(),
                },
                Capped::collect(folders(&files, depth).iter().map(to_value), fixed_cap(200)),
            )
            .with_list(
                ListSpelling {
                    list_key: "entry_points",
                    total_key: "entry_point_count",
                    listed_key: "entry_points_listed",
                    cap_key: "entry_points_cap",
                    noun: "entry points",
                    remedy: "health action=overview lists entry points with more rules".into(),
                },
                Capped::collect(entries.iter().map(to_value), fixed_cap(30)),
            );
        let tail = OverviewTail {
            max_depth: depth,
            grade_distribution: if args.include_health {
                Some(grade_distribution(ctx.root()?, index, &files)?)
            } else {
                None
            },
        };
        let mut s = with_payload(s, &tail).with_next_step(
            "health action=project grades the files; nav action=callers on an entry point starts a trace.",
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
