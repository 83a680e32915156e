//! `project overview`: one look at a project from the index: languages, folder
//! structure, entry points, size of the graph, and (on request) the grade spread.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::health::{DepsMode, Scorer};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, fixed_cap, open_index};
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

/// Names that start a program.
const ENTRY_NAMES: [&str; 4] = ["main", "__main__", "create_app", "run_server"];

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
        // Folder -> indexed files below it, to `depth` levels.
        let mut folders: BTreeMap<String, usize> = BTreeMap::new();
        for f in &files {
            let parts: Vec<&str> = f.split('/').collect();
            for n in 1..parts.len().min(depth + 1) {
                *folders.entry(parts[..n].join("/")).or_default() += 1;
            }
        }
        let mut entries = Vec::new();
        for f in &files {
            let base = f.rsplit('/').next().unwrap_or(f);
            let stem = base.split('.').next().unwrap_or(base);
            let main_file = matches!(
                stem,
                "main" | "__main__" | "manage" | "app" | "server" | "cli"
            );
            for s in index.symbols_in_file(f)? {
                let entry = matches!(s.kind.as_str(), "function" | "method")
                    && s.owner.is_none()
                    && ENTRY_NAMES.contains(&s.name.as_str());
                if entry || (main_file && s.kind == "function" && s.name == "main") {
                    entries.push(json!({"name": s.qualname, "file": s.file, "line": s.line, "language": s.language}));
                }
            }
            if base == "__main__.py" {
                entries
                    .push(json!({"name": "__main__", "file": f, "line": 1, "language": "python"}));
            }
        }
        let structure = Capped::collect(
            folders
                .into_iter()
                .map(|(folder, n)| json!({"folder": folder, "files": n})),
            fixed_cap(200),
        );
        let mut s = Success::new(
            Verdict::Info,
            format!(
                "overview: {} files, {} symbols, {} call edges ({} languages)",
                st.files,
                st.symbols,
                st.calls,
                st.files_by_language.len()
            ),
        )
        .with("files_by_language", json!(st.files_by_language))
        .with("symbols_by_kind", json!(st.symbols_by_kind))
        .with(
            "call_graph",
            json!({"call_edges": st.calls, "by_resolution": st.calls_by_resolution}),
        )
        .with_list(
            ListSpelling {
                list_key: "structure",
                total_key: "folder_count",
                listed_key: "folders_listed",
                cap_key: "folders_cap",
                noun: "folders",
                remedy: "lower max_depth".into(),
            },
            structure,
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
            Capped::collect(entries, fixed_cap(30)),
        )
        .with("max_depth", depth);
        if args.include_health {
            let scorer = Scorer::new(ctx.root()?, index, DepsMode::Full)?;
            let mut dist: BTreeMap<String, usize> = BTreeMap::new();
            for (_, r) in scorer.score_all(&files) {
                if let Ok(score) = r {
                    *dist.entry(score.grade.to_string()).or_default() += 1;
                }
            }
            s = s.with("grade_distribution", json!(dist));
        }
        s = s.with_next_step(
            "health action=project grades the files; nav action=callers on an entry point starts a trace.",
        );
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
