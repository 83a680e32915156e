//! What `search content` and `search grep` share: turning ripgrep-style flags into a
//! search, and one answer per output mode with honest totals.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tsa_analysis::security::resolve_in_root;
use tsa_analysis::text_batch::MatchRow;
use tsa_analysis::text_search::{
    CaseMode, FileFilter, FileHits, Limits, MatchSpec, Outcome, Row, SortBy, parse_size, search,
};
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::actions::common::fixed_cap;
use crate::{Context, ToolError};

/// Default listed matches in normal mode.
pub const DEFAULT_CAP: usize = 50;
/// Ceiling of `max_count`.
pub const MAX_CAP: usize = 2000;
/// Rows written to an `output_file` at most.
pub const FILE_CEILING: usize = 10_000;
/// Matches shown per file in `group_by_file`.
const GROUP_ROWS: usize = 10;
/// Longest line text returned (bytes, cut at a char boundary).
/// The ripgrep flags both actions take (already read from their `Args`).
#[derive(Debug, Default)]
pub struct Flags {
    pub query: String,
    pub case: Option<String>,
    pub fixed_strings: bool,
    pub word: bool,
    pub multiline: bool,
    pub invert_match: bool,
    pub only_matching: bool,
    pub context_before: Option<i64>,
    pub context_after: Option<i64>,
    pub context: Option<i64>,
    pub max_count: Option<i64>,
    pub timeout_ms: Option<i64>,
    pub encoding: Option<String>,
    pub max_filesize: Option<String>,
    pub sort: Option<String>,
    pub total_only: bool,
    pub count_only_matches: bool,
    pub files_with_matches: bool,
    pub summary_only: bool,
    pub group_by_file: bool,
    pub include_stats: bool,
    pub output_file: Option<String>,
    pub suppress_output: bool,
}

/// The output mode (first one set wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    TotalOnly,
    CountOnly,
    FilesWithMatches,
    Summary,
    GroupByFile,
    Normal,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::TotalOnly => "total_only",
            Mode::CountOnly => "count_only_matches",
            Mode::FilesWithMatches => "files_with_matches",
            Mode::Summary => "summary_only",
            Mode::GroupByFile => "group_by_file",
            Mode::Normal => "normal",
        }
    }
}

/// A validated search, ready to run.
pub struct Prepared {
    pub spec: MatchSpec,
    pub mode: Mode,
    pub cap: usize,
    pub limits: Limits,
    pub timeout_ms: u64,
    pub include_stats: bool,
    /// (absolute, project-relative) output file.
    pub output_file: Option<(PathBuf, String)>,
    pub suppress_output: bool,
}

fn non_negative(name: &str, v: Option<i64>) -> Result<Option<usize>, ToolError> {
    match v {
        None => Ok(None),
        Some(n) if n >= 0 => Ok(Some(n as usize)),
        Some(n) => Err(ToolError::Validation(format!(
            "parameter '{name}' must be >= 0, got {n}"
        ))),
    }
}

/// Resolves `roots` (directories or files) inside the project.
pub fn resolve_roots(
    root: &Path,
    param: &str,
    roots: &[String],
) -> Result<Vec<PathBuf>, ToolError> {
    roots
        .iter()
        .map(|r| {
            let (abs, rel) = resolve_in_root(root, r)?;
            if !abs.exists() {
                return Err(ToolError::NotFound(if rel.is_empty() {
                    r.clone()
                } else {
                    rel
                }));
            }
            let _ = param;
            Ok(abs)
        })
        .collect()
}

/// Validates the flags and fills the match part of `filter`.
pub fn prepare(root: &Path, flags: &Flags, filter: &mut FileFilter) -> Result<Prepared, ToolError> {
    if flags.query.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'query' must be a non-empty string".into(),
        ));
    }
    let case = CaseMode::parse(flags.case.as_deref())?;
    let both = non_negative("context", flags.context)?;
    let mut spec = MatchSpec::new(&flags.query);
    spec.case = case;
    spec.fixed_strings = flags.fixed_strings;
    spec.word = flags.word;
    spec.multiline = flags.multiline;
    spec.invert = flags.invert_match;
    spec.only_matching = flags.only_matching;
    spec.context_before = non_negative("context_before", flags.context_before)?
        .or(both)
        .unwrap_or(0)
        .min(20);
    spec.context_after = non_negative("context_after", flags.context_after)?
        .or(both)
        .unwrap_or(0)
        .min(20);
    spec.encoding = flags.encoding.clone();
    filter.max_filesize = Some(match &flags.max_filesize {
        Some(s) => parse_size(s)
            .map_err(|e| ToolError::Validation(format!("parameter 'max_filesize': {e}")))?,
        None => 10_000_000,
    });
    filter.sort = SortBy::parse(flags.sort.as_deref())?;
    let cap = match flags.max_count {
        None => DEFAULT_CAP,
        Some(n) => (n.max(1) as usize).min(MAX_CAP),
    };
    let timeout_ms = match flags.timeout_ms {
        None => 4000,
        Some(n) if n >= 1 => n as u64,
        Some(n) => {
            return Err(ToolError::Validation(format!(
                "parameter 'timeout_ms' must be >= 1, got {n}"
            )));
        }
    };
    let mode = if flags.total_only {
        Mode::TotalOnly
    } else if flags.count_only_matches {
        Mode::CountOnly
    } else if flags.files_with_matches {
        Mode::FilesWithMatches
    } else if flags.summary_only {
        Mode::Summary
    } else if flags.group_by_file {
        Mode::GroupByFile
    } else {
        Mode::Normal
    };
    let output_file = match &flags.output_file {
        None => None,
        Some(p) => Some(tsa_analysis::security::output_target(root, p)?),
    };
    if flags.suppress_output && output_file.is_none() {
        return Err(ToolError::Validation(
            "suppress_output needs output_file (the full result is written there)".into(),
        ));
    }
    let rows_per_file = match mode {
        _ if output_file.is_some() => FILE_CEILING,
        Mode::Normal => cap,
        Mode::GroupByFile => GROUP_ROWS,
        Mode::Summary => 2,
        _ => 0,
    };
    Ok(Prepared {
        spec,
        mode,
        cap,
        limits: Limits {
            rows_per_file,
            deadline: Instant::now() + Duration::from_millis(timeout_ms),
            file_limit: None,
        },
        timeout_ms,
        include_stats: flags.include_stats,
        output_file,
        suppress_output: flags.suppress_output,
    })
}

/// Runs the prepared search.
pub fn run(ctx: &Context, filter: &FileFilter, p: &Prepared) -> Result<Outcome, ToolError> {
    search(ctx.root()?, filter, &p.spec, p.limits)
}

/// One match as listed: `file`, `line`, `text`, `matches` (byte ranges in `text`,
/// `start-end` separated by spaces), `text_truncated`, context when asked.
pub fn row_json(file: &str, r: &Row) -> Value {
    crate::actions::common::to_value(&MatchRow::of(file, r))
}

/// Every listed row of the outcome, in file order.
pub fn rows(files: &[FileHits]) -> impl Iterator<Item = Value> + '_ {
    files
        .iter()
        .flat_map(|f| f.rows.iter().map(move |r| row_json(&f.file, r)))
}

/// The verdict of a text search: REVIEW when truncated (or stopped early) or >= 500
/// matches, CAUTION from 50, NOT_FOUND for none, WARN for none seen before the
/// deadline, else INFO.
pub fn verdict(total: usize, truncated: bool, known: bool) -> (Verdict, &'static str) {
    if total == 0 && !known {
        // Stopped before anything matched: absence is not shown.
        (Verdict::Warn, "unknown")
    } else if total == 0 {
        (Verdict::NotFound, "none")
    } else if truncated || total >= 500 {
        (Verdict::Review, "high")
    } else if total >= 50 {
        (Verdict::Caution, "medium")
    } else {
        (Verdict::Info, "low")
    }
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The envelope of a text search in any mode. `label` is `search_content` or
/// `search_grep`; `extra` (a struct, or an empty map) adds action-specific payload
/// keys after the common ones.
pub fn answer(
    label: &str,
    p: &Prepared,
    out: Outcome,
    extra: &impl serde::Serialize,
) -> Result<Success, ToolError> {
    let total = out.total;
    let file_count = out.files.len();
    let known = !out.timed_out;
    let cap = fixed_cap(p.cap);
    let remedy = format!(
        "narrow with roots=[], include_globs=['*.py'], or file_types=['py'] to reduce scope; raise max_count above {} for a deeper sweep",
        p.cap
    );
    let mode = p.mode;
    let mut saved: Option<String> = None;
    if let Some((abs, rel)) = &p.output_file {
        let full = json!({
            "query": p.spec.pattern,
            "mode": mode.name(),
            "total_matches": total,
            "total_count_known": known,
            "file_count": file_count,
            "file_counts": out.files.iter().map(|f| json!({"file": f.file, "count": f.count})).collect::<Vec<_>>(),
            "results": rows(&out.files).collect::<Vec<_>>(),
            "results_cap": FILE_CEILING,
        });
        if let Some(parent) = abs.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| ToolError::Internal(format!("cannot create '{rel}': {e}")))?;
        }
        let text =
            serde_json::to_string_pretty(&full).map_err(|e| ToolError::Internal(e.to_string()))?;
        std::fs::write(abs, text)
            .map_err(|e| ToolError::Internal(format!("cannot write '{rel}': {e}")))?;
        saved = Some(rel.clone());
    }
    let mut lists: Vec<(ListSpelling, Capped<Value>)> = Vec::new();
    let mut truncated = false;
    let mut keys: Vec<(&str, Value)> = vec![
        ("query", json!(p.spec.pattern)),
        ("mode", json!(mode.name())),
        ("case_sensitive", json!(p.spec.case_sensitive())),
        ("elapsed_ms", json!(out.elapsed_ms)),
        ("file_count", json!(file_count)),
        ("total_count", json!(total)),
        ("total_count_known", json!(known)),
    ];
    if !known {
        keys.push(("total_count_at_least", json!(total)));
    }
    let suppress = p.suppress_output;
    if suppress {
        keys.push(("total_matches", json!(total)));
        keys.push(("suppress_output", json!(true)));
    } else {
        match mode {
            Mode::TotalOnly => {
                keys.push(("total_matches", json!(total)));
                keys.push(("count_only", json!(true)));
            }
            Mode::CountOnly => {
                keys.push(("total_matches", json!(total)));
                keys.push(("count", json!(total)));
                keys.push(("count_only", json!(true)));
                let list = Capped::collect(
                    out.files
                        .iter()
                        .map(|f| json!({"file": f.file, "count": f.count})),
                    fixed_cap(p.cap.max(500)),
                );
                truncated |= list.truncated();
                lists.push((
                    ListSpelling {
                        list_key: "file_counts",
                        total_key: "files_matched",
                        listed_key: "file_counts_listed",
                        cap_key: "file_counts_cap",
                        noun: "files",
                        remedy: "narrow with roots=[] or include_globs=[]".into(),
                    },
                    list,
                ));
            }
            Mode::FilesWithMatches => {
                keys.push(("total_matches", json!(total)));
                let list = Capped::collect(out.files.iter().map(|f| json!(f.file)), cap);
                truncated |= list.truncated();
                lists.push((
                    ListSpelling {
                        list_key: "files",
                        total_key: "files_matched",
                        listed_key: "count",
                        cap_key: "listed_cap",
                        noun: "files",
                        remedy: format!(
                            "narrow with roots=[] or include_globs=[]; raise max_count above {}",
                            p.cap
                        ),
                    },
                    list,
                ));
            }
            Mode::Summary | Mode::GroupByFile => {
                keys.push(("total_matches", json!(total)));
                keys.push(("count", json!(total)));
                let mut files: Vec<&FileHits> = out.files.iter().collect();
                if mode == Mode::Summary {
                    files.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.file.cmp(&b.file)));
                    let mut dirs: std::collections::BTreeMap<&str, usize> = Default::default();
                    for f in &out.files {
                        let d = f.file.rsplit_once('/').map(|(d, _)| d).unwrap_or(".");
                        *dirs.entry(d).or_default() += f.count;
                    }
                    let mut dirs: Vec<(&str, usize)> = dirs.into_iter().collect();
                    dirs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                    dirs.truncate(10);
                    keys.push((
                        "summary",
                        json!({
                            "total_matches": total,
                            "file_count": file_count,
                            "top_directories": dirs.iter().map(|(d, n)| json!({"directory": d, "count": n})).collect::<Vec<_>>(),
                        }),
                    ));
                }
                let list = Capped::collect(
                    files.into_iter().map(|f| {
                        let shown: Vec<Value> = f
                            .rows
                            .iter()
                            .map(|r| {
                                let mut v = row_json(&f.file, r);
                                if let Some(o) = v.as_object_mut() {
                                    o.remove("file");
                                }
                                v
                            })
                            .collect();
                        json!({
                            "file": f.file,
                            "match_count": f.count,
                            "matches": shown,
                            "matches_truncated": f.count > f.rows.len(),
                        })
                    }),
                    cap,
                );
                truncated |= list.truncated();
                lists.push((
                    ListSpelling {
                        list_key: "files",
                        total_key: "files_matched",
                        listed_key: "files_listed",
                        cap_key: "listed_cap",
                        noun: "files",
                        remedy: format!(
                            "narrow with roots=[] or include_globs=[]; raise max_count above {}",
                            p.cap
                        ),
                    },
                    list,
                ));
            }
            Mode::Normal => {
                let ranked: Vec<Value> = rows(&out.files).take(p.cap).collect();
                let list = Capped::counted(ranked, total, cap);
                truncated |= list.truncated();
                lists.push((
                    ListSpelling {
                        list_key: "results",
                        total_key: "total_matches",
                        listed_key: "count",
                        cap_key: "listed_cap",
                        noun: "matches",
                        remedy: remedy.clone(),
                    },
                    list,
                ));
            }
        }
    }
    let (verdict, risk) = if mode == Mode::FilesWithMatches {
        // Spec: this mode answers INFO or NOT_FOUND (WARN when stopped before any match).
        match verdict(total, false, known) {
            (v @ (Verdict::NotFound | Verdict::Warn), r) => (v, r),
            _ => (Verdict::Info, "low"),
        }
    } else {
        verdict(total, truncated || !known, known)
    };
    let total_text = if known {
        format!("{total}")
    } else {
        format!(">={total}")
    };
    let files_text = if file_count > 0 {
        format!(" in {file_count} files")
    } else {
        String::new()
    };
    let trunc_text = if truncated { " (truncated)" } else { "" };
    let line = format!(
        "{label} '{}': {total_text} matches{files_text}{trunc_text}",
        short(&p.spec.pattern, 60)
    );
    let mut s = Success::new(verdict, line);
    for (spelling, list) in lists {
        s = s.with_list(spelling, list);
    }
    s = keys.into_iter().fold(s, |s, (k, v)| s.with(k, v));
    s = crate::actions::common::with_payload(s, extra);
    if let Some(rel) = &saved {
        s = s
            .with("output_saved", rel.as_str())
            .with("output_file", rel.as_str());
    }
    if p.include_stats {
        s = s.with(
            "stats",
            json!({
                "files_searched": out.files_searched,
                "files_discovered": out.files_discovered,
                "files_with_matches": file_count,
                "bytes_searched": out.bytes_searched,
                "elapsed_ms": out.elapsed_ms,
                "timeout_ms": p.timeout_ms,
            }),
        );
    }
    if !known {
        s = s.with_warning(format!(
            "search stopped at timeout_ms={} after {} files: the total is a lower bound (total_count_at_least); narrow roots or raise timeout_ms",
            p.timeout_ms, out.files_searched
        ));
    }
    let first_file = out.files.first().map(|f| f.file.clone());
    let step = match (verdict, &first_file) {
        (Verdict::Warn, _) => format!(
            "No match seen within timeout_ms={}; raise timeout_ms or narrow roots/include_globs and retry",
            p.timeout_ms
        ),
        (Verdict::NotFound, _) => format!(
            "No match for '{}'; loosen it (case='insensitive', no word=true, fewer characters) or widen roots, globs and file_types",
            short(&p.spec.pattern, 60)
        ),
        (_, Some(f)) if mode == Mode::Normal && !truncated => {
            format!("Read the matches in context: structure action=read file_path={f}")
        }
        (_, Some(_)) if mode != Mode::Normal => {
            "Run again without the aggregate flag to list the matching lines".to_owned()
        }
        _ => String::new(),
    };
    s = s
        .with_next_step(step)
        .with_agent("risk", risk)
        .with_agent("mode", mode.name())
        .with_agent("query", short(&p.spec.pattern, 120))
        .with_agent("total_matches", total)
        .with_agent("truncated", truncated)
        .with_agent("elapsed_ms", out.elapsed_ms)
        .with_agent("file_count", file_count)
        .with_agent(
            "suggested_tool",
            if truncated {
                "search action=content with narrower roots or include_globs"
            } else {
                "structure action=read"
            },
        )
        .with_agent(
            "stop_condition",
            "stop when the listed matches answer the question; every match is counted in total_matches",
        );
    if let Some(rel) = saved {
        s = s.with_agent("output_saved", rel);
    }
    if suppress {
        s = s.with_agent("suppress_output", true);
    }
    Ok(s)
}

/// A list parameter with blanks dropped.
pub fn strings(v: Option<Vec<String>>) -> Vec<String> {
    v.unwrap_or_default()
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// fd-style discovery parameters shared by `search grep` and `project files`.
pub struct Discovery<'a> {
    pub roots: &'a [String],
    pub pattern: Option<&'a str>,
    pub glob: bool,
    pub full_path_match: bool,
    pub types: Vec<String>,
    pub extensions: Vec<String>,
    pub exclude: Vec<String>,
    pub depth: Option<i64>,
    pub size: Vec<String>,
    pub changed_within: Option<&'a str>,
    pub changed_before: Option<&'a str>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub follow_symlinks: bool,
    pub parallel: bool,
}

/// The file filter of fd-style discovery parameters (name regex or glob, entry
/// types, extensions, excludes, depth, size bounds, change times), roots checked
/// against the project boundary.
pub fn discovery_filter(root: &Path, d: &Discovery<'_>) -> Result<FileFilter, ToolError> {
    use tsa_analysis::text_search::{EntryKind, NameMatcher, SizeBound, parse_time_point};
    let name_pattern = match d.pattern.filter(|p| !p.is_empty()) {
        None => None,
        Some(p) if d.glob => Some(NameMatcher::Glob(
            globset::GlobBuilder::new(p)
                .literal_separator(d.full_path_match)
                .build()
                .map_err(|e| {
                    ToolError::Validation(format!("parameter 'pattern': invalid glob '{p}': {e}"))
                })?
                .compile_matcher(),
        )),
        Some(p) => Some(NameMatcher::Regex(regex::Regex::new(p).map_err(|e| {
            ToolError::Validation(format!("parameter 'pattern': invalid regex '{p}': {e}"))
        })?)),
    };
    let now = std::time::SystemTime::now();
    let time = |name: &str, v: Option<&str>| -> Result<Option<std::time::SystemTime>, ToolError> {
        v.map(|s| {
            parse_time_point(s, now)
                .map_err(|e| ToolError::Validation(format!("parameter '{name}': {e}")))
        })
        .transpose()
    };
    let roots: Vec<String> = if d.roots.is_empty() {
        vec![".".to_owned()]
    } else {
        d.roots.to_vec()
    };
    Ok(FileFilter {
        roots: resolve_roots(root, "roots", &roots)?,
        hidden: d.hidden,
        no_ignore: d.no_ignore,
        follow_symlinks: d.follow_symlinks,
        max_depth: match d.depth {
            None => None,
            Some(x) if x >= 0 => Some(x as usize),
            Some(x) => {
                return Err(ToolError::Validation(format!(
                    "parameter 'depth' must be >= 0, got {x}"
                )));
            }
        },
        exclude_globs: d.exclude.clone(),
        extensions: d.extensions.clone(),
        parallel: d.parallel,
        name_pattern,
        full_path_match: d.full_path_match,
        kinds: d
            .types
            .iter()
            .map(|t| EntryKind::parse(t))
            .collect::<Result<_, _>>()?,
        sizes: d
            .size
            .iter()
            .map(|s| SizeBound::parse(s))
            .collect::<Result<_, _>>()?,
        changed_after: time("changed_within", d.changed_within)?,
        changed_before: time("changed_before", d.changed_before)?,
        ..FileFilter::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(q: &str) -> Flags {
        Flags {
            query: q.into(),
            ..Flags::default()
        }
    }

    #[test]
    fn verdict_thresholds() {
        assert_eq!(verdict(0, false, true).0, Verdict::NotFound);
        assert_eq!(verdict(0, false, false).0, Verdict::Warn);
        assert_eq!(verdict(49, false, true).0, Verdict::Info);
        assert_eq!(verdict(50, false, true).0, Verdict::Caution);
        assert_eq!(verdict(499, false, true).0, Verdict::Caution);
        assert_eq!(verdict(500, false, true).0, Verdict::Review);
        assert_eq!(verdict(3, true, true).0, Verdict::Review);
    }

    #[test]
    fn mode_order_caps_and_validation() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let mut f = FileFilter::default();
        let mut fl = flags("x");
        fl.total_only = true;
        fl.count_only_matches = true;
        fl.group_by_file = true;
        assert_eq!(prepare(&root, &fl, &mut f).unwrap().mode, Mode::TotalOnly);
        let mut fl = flags("x");
        fl.files_with_matches = true;
        fl.summary_only = true;
        assert_eq!(
            prepare(&root, &fl, &mut f).unwrap().mode,
            Mode::FilesWithMatches
        );
        let mut fl = flags("x");
        fl.max_count = Some(99_999);
        let p = prepare(&root, &fl, &mut f).unwrap();
        assert_eq!((p.cap, p.mode), (MAX_CAP, Mode::Normal));
        assert_eq!(f.max_filesize, Some(10_000_000));
        fl.max_count = Some(0);
        assert_eq!(prepare(&root, &fl, &mut f).unwrap().cap, 1);
        let mut fl = flags("x");
        fl.case = Some("loud".into());
        assert!(prepare(&root, &fl, &mut f).is_err());
        let mut fl = flags("x");
        fl.suppress_output = true;
        assert!(prepare(&root, &fl, &mut f).is_err());
        let mut fl = flags("x");
        fl.output_file = Some("../escape.json".into());
        assert!(matches!(
            prepare(&root, &fl, &mut f),
            Err(ToolError::Outside(_))
        ));
        assert!(prepare(&root, &flags(""), &mut f).is_err());
    }
}
