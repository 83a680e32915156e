//! `viz similarity`: clone groups of functions (analyses §13), from
//! `tsa_analysis::similarity`: by parse-tree structure and by token text (names
//! ignored); equal fingerprints make a group.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsa_analysis::similarity::{CloneGroup, CloneOptions, clone_groups, path_filter};
use tsa_analysis::source::{Bodies, BodyBudget};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{cap, open_index, to_value, with_payload};
use crate::{Context, ToolError};

/// Which fingerprints to compare.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    All,
    Structural,
    Textual,
}

/// Arguments of `viz similarity`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Shortest function body compared, in lines (default 5).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub min_lines: Option<i64>,
    /// Fewest functions that make a group (default 2).
    #[serde(default)]
    #[schemars(range(min = 2))]
    pub min_group_size: Option<i64>,
    /// Most groups listed (default 20); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_groups: Option<i64>,
    /// Accepted for compatibility: candidates always come from the index.
    #[serde(default)]
    pub use_cache: Option<bool>,
    /// Inline the functions' bodies (default false: up to 3 sample files per group).
    #[serde(default)]
    pub include_bodies: Option<bool>,
    /// Comma-separated globs of files to compare (default: all).
    #[serde(default)]
    pub path_filter: Option<String>,
}

pub struct Similarity;

/// A function of a group (with `include_bodies`).
#[derive(Debug, Serialize)]
pub struct GroupFunction<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// A clone group, as a row of `groups`.
#[derive(Debug, Serialize)]
pub struct GroupRow<'a> {
    pub fingerprint: &'a str,
    pub method: &'static str,
    pub similarity: f64,
    pub function_count: usize,
    pub lines: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<GroupFunction<'a>>>,
    /// Up to 3 files of the group (without bodies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_files: Option<Vec<&'a str>>,
    /// Up to 3 `file:line name` (without bodies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample_functions: Option<Vec<String>>,
}

/// The figures of `viz similarity`.
#[derive(Debug, Serialize)]
pub struct SimilarityStats {
    pub candidates: usize,
    pub total_clone_instances: usize,
    pub min_lines: u32,
    pub min_group_size: usize,
    pub mode: &'static str,
}

/// The payload of `viz similarity` before its capped list.
#[derive(Debug, Serialize)]
pub struct SimilarityPayload {
    pub project_root: &'static str,
    pub stats: SimilarityStats,
}

fn group_row<'a>(g: &'a CloneGroup, bodies: Option<&mut Bodies>) -> GroupRow<'a> {
    let funcs = &g.functions;
    let mut row = GroupRow {
        fingerprint: &g.fingerprint,
        method: g.method,
        similarity: 1.0,
        function_count: funcs.len(),
        lines: g.lines(),
        functions: None,
        sample_files: None,
        sample_functions: None,
    };
    match bodies {
        Some(bodies) => {
            row.functions = Some(
                funcs
                    .iter()
                    .map(|f| GroupFunction {
                        name: &f.qualname,
                        file: &f.file,
                        line: f.line,
                        end_line: f.end_line,
                        body: bodies.body(&f.qualname, &f.file, f.line, f.end_line),
                    })
                    .collect(),
            );
        }
        None => {
            let mut files: Vec<&str> = funcs.iter().map(|f| f.file.as_str()).collect();
            files.dedup();
            files.truncate(3);
            row.sample_files = Some(files);
            row.sample_functions = Some(
                funcs
                    .iter()
                    .take(3)
                    .map(|f| format!("{}:{} {}", f.file, f.line, f.qualname))
                    .collect(),
            );
        }
    }
    row
}

impl Action for Similarity {
    type Args = Args;
    const FACADE: &'static str = "viz";
    const NAME: &'static str = "similarity";
    const SUMMARY: &'static str =
        "clone groups of functions by parse-tree structure and by token text (names ignored)";
    const BRIEF: &'static str = "clone groups";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let mode = args.mode.unwrap_or_default();
        let min_lines = cap("min_lines", args.min_lines, 5)?.get() as u32;
        let min_group = cap("min_group_size", args.min_group_size, 2)?.get().max(2);
        let max_groups = cap("max_groups", args.max_groups, 20)?;
        let include_bodies = args.include_bodies.unwrap_or(false);
        let filter = path_filter(args.path_filter.as_deref())?;
        let opened = open_index(ctx)?;
        let root = ctx.root()?;
        let options = CloneOptions {
            structural: mode != Mode::Textual,
            textual: mode != Mode::Structural,
            min_lines,
            min_group,
            filter,
        };
        let clones = clone_groups(root, &opened.index, &options)?;
        let instances = clones.instances();
        let listed = Capped::collect(clones.groups.iter(), max_groups);
        let mut bodies = Bodies::new(
            root,
            BodyBudget {
                rows: 40,
                lines_each: 60,
                lines_total: 600,
            },
        );
        let rows = listed.map(|g| to_value(&group_row(g, include_bodies.then_some(&mut bodies))));
        let verdict = if rows.total() == 0 {
            Verdict::Info
        } else if instances > 50 {
            Verdict::Review
        } else {
            Verdict::Caution
        };
        let payload = SimilarityPayload {
            project_root: ".",
            stats: SimilarityStats {
                candidates: clones.candidates,
                total_clone_instances: instances,
                min_lines,
                min_group_size: min_group,
                mode: match mode {
                    Mode::All => "all",
                    Mode::Structural => "structural",
                    Mode::Textual => "textual",
                },
            },
        };
        let summary = format!(
            "similarity: {} clone group(s), {instances} function(s) in them, of {} compared",
            rows.total(),
            clones.candidates
        );
        let mut s = with_payload(Success::new(verdict, summary), &payload)
            .with_list(
                ListSpelling {
                    list_key: "groups",
                    total_key: "group_count",
                    listed_key: "groups_listed",
                    cap_key: "max_groups",
                    noun: "clone groups",
                    remedy: "raise max_groups, or path_filter to one area".into(),
                },
                rows,
            )
            .with_next_step(if instances == 0 {
                "No clones at this size; lower min_lines to look for smaller ones."
            } else {
                "Read a group with include_bodies=true, then extract the shared logic once."
            });
        if args.use_cache == Some(false) {
            s = s.with_warning(
                "use_cache=false: candidates still come from the index, which is kept in sync by content hash",
            );
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(bodies.warn(s))
    }
}
