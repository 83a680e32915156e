//! `project files`: fd-style file listing (name regex or glob, entry types,
//! extensions, excludes, depth, size, change times), in process with the index
//! walk's ignore rules; the list is capped with its exact total.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tsa_analysis::text_search::list_files;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::cap;
use crate::actions::text_common::{Discovery, discovery_filter, strings};
use crate::project_path::{ProjectPath, given_all};
use crate::{Context, ToolError};

/// Arguments of `project files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Folders to list (default the project root).
    #[serde(default)]
    pub roots: Option<Vec<ProjectPath>>,
    /// One folder to list (same as roots=[path]).
    #[serde(default)]
    pub path: Option<ProjectPath>,
    /// A regex on file names (or globs with glob=true).
    #[serde(default)]
    pub pattern: Option<String>,
    /// Read `pattern` as a glob.
    #[serde(default)]
    pub glob: bool,
    /// Match `pattern` against the whole project-relative path.
    #[serde(default)]
    pub full_path_match: bool,
    /// Entry types: f (file), d (directory), l (symlink), x (executable), e (empty).
    #[serde(default)]
    pub types: Option<Vec<String>>,
    #[serde(default)]
    pub extensions: Option<Vec<String>>,
    /// Globs to leave out.
    #[serde(default)]
    pub exclude: Option<Vec<String>>,
    #[serde(default)]
    pub depth: Option<i64>,
    /// Size bounds like `+10k`, `-1M`.
    #[serde(default)]
    pub size: Option<Vec<String>>,
    /// Changed within a duration (`2d`, `3h`) or since a date.
    #[serde(default)]
    pub changed_within: Option<String>,
    #[serde(default)]
    pub changed_before: Option<String>,
    #[serde(default)]
    pub hidden: bool,
    #[serde(default)]
    pub no_ignore: bool,
    #[serde(default)]
    pub follow_symlinks: bool,
    /// Most files listed (default 200); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// Only the count.
    #[serde(default)]
    pub count_only: bool,
}

pub struct Files;

impl Action for Files {
    type Args = Args;
    const FACADE: &'static str = "project";
    const NAME: &'static str = "files";
    const SUMMARY: &'static str = "fd-style file listing (pattern, glob, types, extensions, exclude, depth, size, changed_within)";
    const BRIEF: &'static str = "list files fd-style";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let root = ctx.root()?;
        let limit = cap("limit", args.limit, 200)?;
        let mut roots = strings(args.roots.map(|r| given_all(&r)));
        roots.extend(args.path.as_deref().map(str::to_owned));
        let filter = discovery_filter(
            root,
            &Discovery {
                roots: &roots,
                pattern: args.pattern.as_deref(),
                glob: args.glob,
                full_path_match: args.full_path_match,
                types: strings(args.types),
                extensions: strings(args.extensions),
                exclude: strings(args.exclude),
                depth: args.depth,
                size: strings(args.size),
                changed_within: args.changed_within.as_deref(),
                changed_before: args.changed_before.as_deref(),
                hidden: args.hidden,
                no_ignore: args.no_ignore,
                follow_symlinks: args.follow_symlinks,
                parallel: true,
            },
        )?;
        let (files, total, timed_out) = list_files(
            root,
            &filter,
            None,
            Instant::now() + Duration::from_secs(10),
        )?;
        let verdict = if total == 0 {
            Verdict::NotFound
        } else {
            Verdict::Info
        };
        let mut s = Success::new(verdict, format!("files: {total} match(es)"))
            .with("count_only", args.count_only);
        if args.count_only {
            s = s.with("count", total);
        } else {
            s = s.with_list(
                ListSpelling {
                    list_key: "files",
                    total_key: "count",
                    listed_key: "files_listed",
                    cap_key: "limit",
                    noun: "files",
                    remedy: "raise limit, or narrow with pattern, extensions or roots".into(),
                },
                Capped::collect(files.into_iter().map(Value::from), limit),
            );
        }
        s = s.with_next_step(if total == 0 {
            "Nothing matched; loosen the pattern or pass hidden=true / no_ignore=true.".to_owned()
        } else {
            "structure action=outline file_path=<file> shows what a file defines.".to_owned()
        });
        if timed_out {
            s = s.with_warning(
                "deadline: the listing stopped after 10 s; the count is a lower bound",
            );
        }
        Ok(s)
    }
}
