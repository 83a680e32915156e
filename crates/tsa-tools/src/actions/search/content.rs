//! `search content`: ripgrep text search, in process (the ripgrep libraries), with
//! exact totals.

use schemars::JsonSchema;
use serde::Deserialize;
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::text_search::FileFilter;

use crate::action::Action;
use crate::actions::text_common::{Flags, answer, prepare, resolve_roots, run};
use crate::project_path::{ProjectPath, given_all};
use crate::{Context, ToolError};

/// Arguments of `search content`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Regular expression (Rust regex syntax) or, with fixed_strings, literal text.
    pub query: String,
    /// Directories (or files) to search, relative to the project root. Default: the whole project.
    #[serde(default)]
    pub roots: Option<Vec<ProjectPath>>,
    /// Explicit files to search (instead of, or besides, roots).
    #[serde(default)]
    pub files: Option<Vec<ProjectPath>>,
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
    /// Only files matching these globs (`*.py`, `src/**`).
    #[serde(default)]
    pub include_globs: Option<Vec<String>>,
    /// Skip files and folders matching these globs.
    #[serde(default)]
    pub exclude_globs: Option<Vec<String>>,
    /// Only files with these extensions (`py`, `.rs`).
    #[serde(default)]
    pub extensions: Option<Vec<String>>,
    /// Only these ripgrep file types (py, rust, js, ts, go, java, c, cpp, md, ...).
    #[serde(default)]
    pub file_types: Option<Vec<String>>,
    /// Skip these ripgrep file types.
    #[serde(default)]
    pub exclude_types: Option<Vec<String>>,
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
    /// Accepted for compatibility; paths are always project-relative.
    #[serde(default)]
    pub optimize_paths: bool,
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
    /// Descend at most this many folder levels.
    #[serde(default)]
    pub max_depth: Option<i64>,
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

pub struct Content;

impl Action for Content {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "content";
    const SUMMARY: &'static str = "ripgrep text search over the project (regex or literal), exact total_matches, modes total_only/count_only_matches/files_with_matches/summary_only/group_by_file; alias action=text";
    const BRIEF: &'static str = "ripgrep text search";

    fn run(&self, ctx: &Context, a: Args) -> Result<tsa_envelope::Success, ToolError> {
        let root = ctx.root()?;
        // Paths are always project-relative, so there is nothing to optimise.
        let _ = a.optimize_paths;
        let mut filter = FileFilter {
            roots: resolve_roots(
                root,
                "roots",
                &given_all(a.roots.as_deref().unwrap_or_default()),
            )?,
            hidden: a.hidden,
            no_ignore: a.no_ignore,
            follow_symlinks: a.follow_symlinks,
            max_depth: match a.max_depth {
                None => None,
                Some(d) if d >= 0 => Some(d as usize),
                Some(d) => {
                    return Err(ToolError::Validation(format!(
                        "parameter 'max_depth' must be >= 0, got {d}"
                    )));
                }
            },
            include_globs: a.include_globs.unwrap_or_default(),
            exclude_globs: a.exclude_globs.unwrap_or_default(),
            extensions: a.extensions.unwrap_or_default(),
            file_types: a.file_types.unwrap_or_default(),
            exclude_types: a.exclude_types.unwrap_or_default(),
            parallel: a.enable_parallel.unwrap_or(true),
            ..FileFilter::default()
        };
        for f in a.files.as_deref().unwrap_or_default() {
            let (abs, rel) = resolve_in_root(root, f)?;
            if abs.is_dir() {
                filter.roots.push(abs);
            } else if abs.is_file() {
                filter.files.push(abs);
            } else {
                return Err(ToolError::NotFound(rel));
            }
        }
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
        let prepared = prepare(root, &flags, &mut filter)?;
        let out = run(ctx, &filter, &prepared)?;
        answer("search_content", &prepared, out, &serde_json::Map::new())
    }
}
