//! `nav lineage`: where a symbol comes from — its inheritance and override lineage
//! (bases, subtypes, the methods it overrides and that override it) from the index,
//! and its history: the commits that last touched its lines (git blame via git2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::graph::{ambiguous, depth_param};
use tsa_analysis::hierarchy::{Hierarchy, hierarchy};
use tsa_analysis::history::{self, HistoryError};
use tsa_analysis::security::resolve_in_root;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{Targets, cap, find_targets, open_index, to_value, with_payload};
use crate::project_path::ProjectPath;
use crate::{Context, ToolError};

/// Arguments of `nav lineage`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Class, method or function; `ClassName.method` narrows.
    pub symbol: String,
    /// Project-relative files to look for its definition in (default: everywhere).
    #[serde(default)]
    pub file_paths: Option<Vec<ProjectPath>>,
    /// Levels of bases and subtypes to follow (default 3, at most 10).
    #[serde(default)]
    pub max_depth: Option<i64>,
    /// Most history commits to list (default 20); the total is always exact.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_commits: Option<i64>,
}

pub struct Lineage;

/// The definition a lineage is about.
#[derive(Serialize)]
pub struct LineageDefinition {
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Definition kind.
    pub kind: String,
    /// Project-relative file.
    pub file: String,
    /// First line.
    pub line: u32,
    /// Last line.
    pub end_line: u32,
    /// Language of the file.
    pub language: String,
}

/// A commit behind the definition's lines.
#[derive(Serialize)]
pub struct LineageCommit {
    /// Commit id, first 12 characters.
    pub commit: String,
    /// Commit time, seconds since the epoch.
    pub time: i64,
    /// Author name.
    pub author: String,
    /// First line of the message.
    pub summary: String,
    /// Lines of the definition it last touched.
    pub lines: usize,
}

/// The keys of a `nav lineage` answer before its commits.
#[derive(Serialize)]
pub struct LineagePayload {
    /// The name as asked.
    pub symbol: String,
    /// The definition.
    pub definition: LineageDefinition,
    /// Its type hierarchy.
    pub hierarchy: Hierarchy,
    /// Levels of bases and subtypes followed.
    pub max_depth: u32,
    /// The project is in a git repository.
    pub git_available: bool,
    /// Lines of the definition not committed yet.
    pub uncommitted_lines: usize,
    /// Time of the latest commit behind its lines.
    pub last_changed_at: Option<i64>,
}

/// The answer when `file_paths` define none of the definitions.
#[derive(Serialize)]
struct NotInFiles {
    /// The name as asked.
    symbol: String,
    /// Always true.
    file_path_mismatch: bool,
}

impl Action for Lineage {
    type Args = Args;
    const FACADE: &'static str = "nav";
    const NAME: &'static str = "lineage";
    const SUMMARY: &'static str =
        "inheritance/override lineage of a symbol, and the commits that shaped its lines";
    const BRIEF: &'static str = "overrides and git history";
    const ALIASES: &'static [(&'static str, &'static str)] = &[("function_name", "symbol")];

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let (depth, depth_warning) = depth_param("max_depth", args.max_depth, 3, 10)?;
        let max_commits = cap("max_commits", args.max_commits, 20)?;
        let root = ctx.root()?;
        let files: Vec<String> = match &args.file_paths {
            Some(list) => list
                .iter()
                .map(|f| resolve_in_root(root, f).map(|(_, rel)| rel))
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        let opened = open_index(ctx)?;
        let index = &opened.index;
        let defs = match find_targets(ctx, index, "lineage", &args.symbol, None)? {
            Targets::Missing(s) => return Ok(s),
            Targets::Found(d) => d,
        };
        let defs: Vec<_> = defs
            .into_iter()
            .filter(|d| files.is_empty() || files.contains(&d.file))
            .collect();
        let def = match defs.as_slice() {
            [] => {
                let s = Success::new(
                    Verdict::NotFound,
                    format!(
                        "lineage: '{}' is not defined in {}",
                        args.symbol,
                        files.join(", ")
                    ),
                );
                let miss = NotInFiles {
                    symbol: args.symbol.clone(),
                    file_path_mismatch: true,
                };
                return Ok(with_payload(s, &miss).with_next_step(
                    "Drop file_paths, or pass the files that define it (see nav action=resolve).",
                ));
            }
            [one] => one.clone(),
            many => return Ok(ambiguous("lineage", &args.symbol, many)),
        };
        let tree = hierarchy(index, &def, depth)?;
        let (commits, uncommitted, git) =
            match history::blame_range(root, &def.file, def.line, def.end_line) {
                Ok((c, u)) => (c, u, true),
                Err(HistoryError::NotARepo(_)) => (Vec::new(), 0, false),
                // A file git does not track yet has no history: say so, do not fail.
                Err(HistoryError::Git(_)) => {
                    (Vec::new(), (def.end_line - def.line + 1) as usize, true)
                }
            };
        let last_changed = commits.first().map(|c| c.time);
        let listed = Capped::collect(
            commits.into_iter().map(|c| {
                to_value(&LineageCommit {
                    commit: c.id[..c.id.len().min(12)].to_owned(),
                    time: c.time,
                    author: c.author,
                    summary: c.summary,
                    lines: c.lines,
                })
            }),
            max_commits,
        );
        let s = Success::new(
            Verdict::Info,
            format!(
                "lineage {}: {} base(s), {} subtype(s), {} commit(s) behind its lines",
                def.qualname,
                tree.base_count(),
                tree.subtype_count(),
                listed.total()
            ),
        );
        let payload = LineagePayload {
            symbol: args.symbol.clone(),
            definition: LineageDefinition {
                name: def.name.clone(),
                qualified_name: def.qualname.clone(),
                kind: def.kind.clone(),
                file: def.file.clone(),
                line: def.line,
                end_line: def.end_line,
                language: def.language.clone(),
            },
            hierarchy: tree,
            max_depth: depth,
            git_available: git,
            uncommitted_lines: uncommitted,
            last_changed_at: last_changed,
        };
        let mut s = with_payload(s, &payload)
        .with_list(
            ListSpelling {
                list_key: "commits",
                total_key: "commit_count",
                listed_key: "commits_listed",
                cap_key: "max_commits",
                noun: "commits",
                remedy: "raise max_commits".into(),
            },
            listed,
        )
        .with_next_step(
            "Review the overrides and subtypes before changing behaviour; nav action=co_change shows files that change with this one.",
        );
        if !git {
            s = s.with_warning(
                "git_unavailable: the project root is not inside a git repository; no history",
            );
        }
        if let Some(w) = depth_warning {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
