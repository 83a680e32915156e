//! `search grep`: two stages, fd-style file discovery (name pattern, globs, entry
//! types, extensions, size, modification time, a file limit) then the ripgrep
//! search of `search content` over the files found.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tsa_analysis::text_search::EntryKind;

use crate::action::Action;
use crate::actions::text_common::{
    Discovery, Flags, answer, discovery_filter, prepare, run, strings,
};
use crate::project_path::{ProjectPath, given_all};
use crate::{Context, ToolError};

/// Arguments of `search grep`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Regular expression (Rust regex syntax) or, with fixed_strings, literal text, searched in the files found.
    pub query: String,
    /// Directories to discover files in, relative to the project root (`.` = everything).
    pub roots: Vec<ProjectPath>,
    /// Discovery: a regex on the file name (or on the project-relative path with full_path_match); a glob with glob=true.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Discovery: read `pattern` as a glob (`*.py`) instead of a regex.
    #[serde(default)]
    pub glob: bool,
    /// Discovery: match `pattern` against the whole project-relative path, not just the file name.
    #[serde(default)]
    pub full_path_match: bool,
    /// Discovery: entry types f (file), l (symlink), x (executable), e (empty).
    #[serde(default)]
    pub types: Option<Vec<String>>,
    /// Discovery: only these extensions (`py`, `.rs`).
    #[serde(default)]
    pub extensions: Option<Vec<String>>,
    /// Discovery: skip files and folders matching these globs.
    #[serde(default)]
    pub exclude: Option<Vec<String>>,
    /// Discovery: descend at most this many folder levels.
    #[serde(default)]
    pub depth: Option<i64>,
    /// Discovery: size bounds, `+10k` (at least), `-1M` (at most), `500b` (exactly).
    #[serde(default)]
    pub size: Option<Vec<String>>,
    /// Discovery: modified within this time (`2d`, `3h`, `10min`, `1w`) or since a date (`2024-01-31`).
    #[serde(default)]
    pub changed_within: Option<String>,
    /// Discovery: modified before this time (`2d` ago) or date.
    #[serde(default)]
    pub changed_before: Option<String>,
    /// Discovery: search at most this many files (in path order); the number found is reported.
    #[serde(default)]
    pub file_limit: Option<i64>,
    /// smart (default: insensitive unless the query has an upper-case letter), insensitive or sensitive.
    #[serde(default)]
    pub case: Option<String>,
    /// Treat the query as literal text, not a regex.
    #[serde(default)]
    pub fixed_strings: bool,
    /// Match whole words only.
    #[serde(default)]
    pub word: bool,
    /// Let the pattern match across lines (`\n` in the query).
    #[serde(default)]
    pub multiline: bool,
    /// Text encoding of the files (utf-8 default; latin1, utf-16le, shift_jis, ... any WHATWG label).
    #[serde(default)]
    pub encoding: Option<String>,
    /// Follow symbolic links (never out of the project root).
    #[serde(default)]
    pub follow_symlinks: bool,
    /// Search hidden files and folders too.
    #[serde(default)]
    pub hidden: bool,
    /// Do not honour .gitignore / .ignore / .tsaignore.
    #[serde(default)]
    pub no_ignore: bool,
    /// Skip files larger than this (`10M` default, `500K`, `1G`).
    #[serde(default)]
    pub max_filesize: Option<String>,
    /// Lines of context before each match (max 20).
    #[serde(default)]
    pub context_before: Option<i64>,
    /// Lines of context after each match (max 20).
    #[serde(default)]
    pub context_after: Option<i64>,
    /// Lines of context before and after each match.
    #[serde(default)]
    pub context: Option<i64>,
    /// Most matches to list (default 50, clamped 1..2000). The exact total is always counted.
    #[serde(default)]
    pub max_count: Option<i64>,
    /// Time budget in milliseconds (default 4000); past it the total is a lower bound.
    #[serde(default)]
    pub timeout_ms: Option<i64>,
    /// Per-file match counts instead of lines.
    #[serde(default)]
    pub count_only_matches: bool,
    /// A digest: counts per file and directory with a sample line or two.
    #[serde(default)]
    pub summary_only: bool,
    /// Matches grouped per file.
    #[serde(default)]
    pub group_by_file: bool,
    /// Only the total match count (in a normal envelope: total_matches).
    #[serde(default)]
    pub total_only: bool,
    /// Search files on all cores (default true).
    #[serde(default)]
    pub enable_parallel: Option<bool>,
    /// Only the names of matching files.
    #[serde(default)]
    pub files_with_matches: bool,
    /// List each match alone instead of its whole line.
    #[serde(default)]
    pub only_matching: bool,
    /// File order: path (default), modified, accessed, created, none.
    #[serde(default)]
    pub sort: Option<String>,
    /// List lines that do NOT match.
    #[serde(default)]
    pub invert_match: bool,
    /// Add stats: files searched, bytes, elapsed time.
    #[serde(default)]
    pub include_stats: bool,
    /// Also write the full result (up to 10000 matches) as JSON to this project-relative file.
    #[serde(default)]
    pub output_file: Option<ProjectPath>,
    /// With output_file: answer with counts only, the rows are in the file.
    #[serde(default)]
    pub suppress_output: bool,
}

pub struct Grep;

/// The keys `search grep` adds to a text search's payload (after its common keys).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GrepFiles {
    /// Files discovery found.
    pub files_discovered: usize,
    /// Files searched (at most file_limit).
    pub files_searched: usize,
    /// The file_limit given.
    pub file_limit: Option<usize>,
    /// Whether file_limit left discovered files unsearched.
    pub files_truncated: bool,
}

impl Action for Grep {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "grep";
    const SUMMARY: &'static str = "two-stage search: find files fd-style (pattern, glob, types, extensions, exclude, depth, size, changed_within/changed_before, file_limit), then ripgrep them like action=content";
    const BRIEF: &'static str = "find files, then search them";

    fn run(&self, ctx: &Context, a: Args) -> Result<tsa_envelope::Success, ToolError> {
        let root = ctx.root()?;
        if a.roots.is_empty() {
            return Err(ToolError::Validation(
                "parameter 'roots' must list at least one directory ('.' for the whole project)"
                    .into(),
            ));
        }
        let mut filter = discovery_filter(
            root,
            &Discovery {
                roots: &given_all(&a.roots),
                pattern: a.pattern.as_deref(),
                glob: a.glob,
                full_path_match: a.full_path_match,
                types: strings(a.types),
                extensions: strings(a.extensions),
                exclude: strings(a.exclude),
                depth: a.depth,
                size: strings(a.size),
                changed_within: a.changed_within.as_deref(),
                changed_before: a.changed_before.as_deref(),
                hidden: a.hidden,
                no_ignore: a.no_ignore,
                follow_symlinks: a.follow_symlinks,
                parallel: a.enable_parallel.unwrap_or(true),
            },
        )?;
        if filter.kinds.contains(&EntryKind::Symlink) {
            filter.follow_symlinks = true;
        }
        let file_limit = match a.file_limit {
            None => None,
            Some(n) if n >= 1 => Some(n as usize),
            Some(n) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'file_limit' must be >= 1, got {n}"
                )));
            }
        };
        let flags = Flags {
            query: a.query,
            case: a.case,
            fixed_strings: a.fixed_strings,
            word: a.word,
            multiline: a.multiline,
            invert_match: a.invert_match,
            only_matching: a.only_matching,
            context_before: a.context_before,
            context_after: a.context_after,
            context: a.context,
            max_count: a.max_count,
            timeout_ms: a.timeout_ms,
            encoding: a.encoding,
            max_filesize: a.max_filesize,
            sort: a.sort,
            total_only: a.total_only,
            count_only_matches: a.count_only_matches,
            files_with_matches: a.files_with_matches,
            summary_only: a.summary_only,
            group_by_file: a.group_by_file,
            include_stats: a.include_stats,
            output_file: a.output_file.map(|p| p.to_string()),
            suppress_output: a.suppress_output,
        };
        let mut prepared = prepare(root, &flags, &mut filter)?;
        prepared.limits.file_limit = file_limit;
        let out = run(ctx, &filter, &prepared)?;
        let discovered = out.files_discovered;
        let searched = out.files_searched;
        let files_truncated = file_limit.is_some_and(|n| discovered > n);
        let mut s = answer(
            "search_grep",
            &prepared,
            out,
            &GrepFiles {
                files_discovered: discovered,
                files_searched: searched,
                file_limit,
                files_truncated,
            },
        )?;
        if files_truncated {
            s = s.with_warning(format!(
                "file_limit: searched {searched} of {discovered} discovered files; totals cover the searched files only. Raise file_limit or narrow pattern/roots"
            ));
        }
        Ok(s)
    }
}
