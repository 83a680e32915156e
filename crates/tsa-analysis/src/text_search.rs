//! In-process text search (the ripgrep libraries): file discovery with ignore rules,
//! glob, type, size and time filters, then a regex search of every file on all
//! cores. Shared by `search content`, `search grep`, `search batch` and `nav trace`.
//!
//! Every match is counted, also past the listing cap, so totals are exact unless
//! the deadline stops the search (then `timed_out` says the total is a lower bound).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use globset::{Glob, GlobSet, GlobSetBuilder};
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Encoding, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind,
    SinkMatch,
};
use ignore::{DirEntry, WalkBuilder, WalkState};

use crate::ToolError;

/// How letter case is matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseMode {
    /// Insensitive unless the pattern has an upper-case letter.
    Smart,
    Insensitive,
    Sensitive,
}

impl CaseMode {
    pub fn parse(s: Option<&str>) -> Result<CaseMode, ToolError> {
        match s.map(str::to_ascii_lowercase).as_deref() {
            None | Some("smart") => Ok(CaseMode::Smart),
            Some("insensitive") | Some("ignore") => Ok(CaseMode::Insensitive),
            Some("sensitive") => Ok(CaseMode::Sensitive),
            Some(other) => Err(ToolError::Validation(format!(
                "parameter 'case' must be one of smart, insensitive, sensitive; got '{other}'"
            ))),
        }
    }

    /// Whether `pattern` is matched case-sensitively under this mode.
    pub fn is_sensitive(self, pattern: &str) -> bool {
        match self {
            CaseMode::Sensitive => true,
            CaseMode::Insensitive => false,
            CaseMode::Smart => has_uppercase_literal(pattern),
        }
    }
}

/// True when `pattern` has an upper-case letter outside escape sequences (`\S`, `\W`).
fn has_uppercase_literal(pattern: &str) -> bool {
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c.is_uppercase() {
            return true;
        }
    }
    false
}

/// What to look for in each file.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub pattern: String,
    pub fixed_strings: bool,
    pub word: bool,
    pub case: CaseMode,
    pub multiline: bool,
    pub invert: bool,
    pub only_matching: bool,
    pub context_before: usize,
    pub context_after: usize,
    /// An encoding label (`utf-8`, `latin1`, `utf-16le`, ...); `None` = UTF-8 with BOM sniffing.
    pub encoding: Option<String>,
}

impl MatchSpec {
    pub fn new(pattern: &str) -> MatchSpec {
        MatchSpec {
            pattern: pattern.to_owned(),
            fixed_strings: false,
            word: false,
            case: CaseMode::Smart,
            multiline: false,
            invert: false,
            only_matching: false,
            context_before: 0,
            context_after: 0,
            encoding: None,
        }
    }

    pub fn case_sensitive(&self) -> bool {
        self.case.is_sensitive(&self.pattern)
    }

    fn matcher(&self) -> Result<RegexMatcher, ToolError> {
        if self.pattern.is_empty() {
            return Err(ToolError::Validation(
                "the search pattern must be a non-empty string".into(),
            ));
        }
        let mut b = RegexMatcherBuilder::new();
        b.fixed_strings(self.fixed_strings)
            .word(self.word)
            .case_insensitive(!self.case_sensitive())
            .multi_line(self.multiline);
        if !self.multiline {
            b.line_terminator(Some(b'\n'));
        }
        b.build(&self.pattern).map_err(|e| {
            ToolError::Validation(format!(
                "invalid regex '{}': {}",
                self.pattern,
                e.to_string().trim()
            ))
        })
    }

    fn encoding(&self) -> Result<Option<Encoding>, ToolError> {
        match self.encoding.as_deref().map(str::trim) {
            None | Some("") | Some("auto") => Ok(None),
            Some(label) => Encoding::new(label).map(Some).map_err(|_| {
                ToolError::Validation(format!(
                    "parameter 'encoding': unknown encoding '{label}'; use a WHATWG label such as utf-8, latin1, windows-1252, utf-16le, shift_jis"
                ))
            }),
        }
    }
}

/// fd-style kinds of file system entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Symlink,
    Executable,
    Empty,
}

impl EntryKind {
    pub fn parse(s: &str) -> Result<EntryKind, ToolError> {
        match s.to_ascii_lowercase().as_str() {
            "f" | "file" => Ok(EntryKind::File),
            "l" | "symlink" => Ok(EntryKind::Symlink),
            "x" | "executable" => Ok(EntryKind::Executable),
            "e" | "empty" => Ok(EntryKind::Empty),
            "d" | "dir" | "directory" => Err(ToolError::Validation(
                "parameter 'types': directories hold no text to search; use f, l, x or e".into(),
            )),
            other => Err(ToolError::Validation(format!(
                "parameter 'types': unknown entry type '{other}'; use f (file), l (symlink), x (executable) or e (empty)"
            ))),
        }
    }
}

/// A size bound like fd's `+10k` (at least) or `-1M` (at most).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeBound {
    AtLeast(u64),
    AtMost(u64),
    Exactly(u64),
}

impl SizeBound {
    pub fn parse(s: &str) -> Result<SizeBound, ToolError> {
        let t = s.trim();
        let (kind, rest) = match t.chars().next() {
            Some('+') => ('+', &t[1..]),
            Some('-') => ('-', &t[1..]),
            _ => ('=', t),
        };
        let n = parse_size(rest).map_err(|_| {
            ToolError::Validation(format!(
                "parameter 'size': cannot read '{s}'; use e.g. +10k (at least), -1M (at most), 500b"
            ))
        })?;
        Ok(match kind {
            '+' => SizeBound::AtLeast(n),
            '-' => SizeBound::AtMost(n),
            _ => SizeBound::Exactly(n),
        })
    }

    fn admits(self, len: u64) -> bool {
        match self {
            SizeBound::AtLeast(n) => len >= n,
            SizeBound::AtMost(n) => len <= n,
            SizeBound::Exactly(n) => len == n,
        }
    }
}

/// `10M`, `500k`, `1G`, `2kib`, `123` (bytes).
pub fn parse_size(s: &str) -> Result<u64, ToolError> {
    let t = s.trim().to_ascii_lowercase();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || ToolError::Validation(format!("cannot read size '{s}'; use e.g. 10M, 500K, 1G"));
    let n: u64 = num.parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "ki" | "kib" => 1 << 10,
        "m" | "mb" => 1_000_000,
        "mi" | "mib" => 1 << 20,
        "g" | "gb" => 1_000_000_000,
        "gi" | "gib" => 1 << 30,
        _ => return Err(bad()),
    };
    n.checked_mul(mult).ok_or_else(bad)
}

/// `2d`, `3h`, `10min`, `1w`, `30s` ago, or a date `2024-01-31` / `2024-01-31 12:00:00`.
pub fn parse_time_point(s: &str, now: SystemTime) -> Result<SystemTime, ToolError> {
    let t = s.trim().to_ascii_lowercase();
    let bad = || {
        ToolError::Validation(format!(
            "cannot read time '{s}'; use a duration like 2d, 3h, 10min, 1w or a date like 2024-01-31"
        ))
    };
    if let Some((date, time)) = parse_date(&t) {
        let secs = date * 86_400 + time;
        return if secs >= 0 {
            Ok(SystemTime::UNIX_EPOCH + Duration::from_secs(secs as u64))
        } else {
            Err(bad())
        };
    }
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| bad())?;
    let secs = match unit.trim() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hour" | "hours" => 3_600,
        "d" | "day" | "days" => 86_400,
        "w" | "week" | "weeks" => 7 * 86_400,
        "y" | "year" | "years" => 365 * 86_400,
        _ => return Err(bad()),
    };
    now.checked_sub(Duration::from_secs(n.saturating_mul(secs)))
        .ok_or_else(bad)
}

/// (days since 1970-01-01, seconds into the day) of `YYYY-MM-DD[ HH:MM[:SS]]`.
fn parse_date(t: &str) -> Option<(i64, i64)> {
    let (d, rest) = t.split_at(t.find([' ', 't']).unwrap_or(t.len()));
    let mut parts = d.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let rest = rest.trim_start_matches([' ', 't']).trim_end_matches('z');
    let mut secs = 0i64;
    if !rest.is_empty() {
        let mut hms = rest.split(':');
        let h: i64 = hms.next()?.parse().ok()?;
        let mi: i64 = hms.next().unwrap_or("0").parse().ok()?;
        let s: i64 = hms.next().unwrap_or("0").parse().ok()?;
        secs = h * 3600 + mi * 60 + s;
    }
    // Days from civil (proleptic Gregorian).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468, secs))
}

/// Which files to search.
#[derive(Clone, Debug, Default)]
pub struct FileFilter {
    /// Absolute directories (or files) to walk; empty = the project root.
    pub roots: Vec<PathBuf>,
    /// Absolute explicit files, searched as given (no ignore rules).
    pub files: Vec<PathBuf>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub follow_symlinks: bool,
    pub max_depth: Option<usize>,
    pub max_filesize: Option<u64>,
    pub include_globs: Vec<String>,
    pub exclude_globs: Vec<String>,
    pub extensions: Vec<String>,
    pub file_types: Vec<String>,
    pub exclude_types: Vec<String>,
    pub parallel: bool,
    /// fd-style discovery filters (`search grep`).
    pub name_pattern: Option<NameMatcher>,
    pub full_path_match: bool,
    pub kinds: Vec<EntryKind>,
    pub sizes: Vec<SizeBound>,
    pub changed_after: Option<SystemTime>,
    pub changed_before: Option<SystemTime>,
    /// Sort order of files (and so of matches).
    pub sort: SortBy,
}

/// A file-name (or path) filter: a regex or a glob.
#[derive(Clone, Debug)]
pub enum NameMatcher {
    Regex(regex::Regex),
    Glob(globset::GlobMatcher),
}

impl NameMatcher {
    fn is_match(&self, subject: &str) -> bool {
        match self {
            NameMatcher::Regex(r) => r.is_match(subject),
            NameMatcher::Glob(g) => g.is_match(subject),
        }
    }
}

/// Order of files in the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortBy {
    #[default]
    Path,
    Modified,
    Accessed,
    Created,
}

impl SortBy {
    pub fn parse(s: Option<&str>) -> Result<SortBy, ToolError> {
        match s.map(str::to_ascii_lowercase).as_deref() {
            // `none` still answers in path order: deterministic output costs nothing here.
            None | Some("path") | Some("none") => Ok(SortBy::Path),
            Some("modified") => Ok(SortBy::Modified),
            Some("accessed") => Ok(SortBy::Accessed),
            Some("created") => Ok(SortBy::Created),
            Some(other) => Err(ToolError::Validation(format!(
                "parameter 'sort' must be one of path, modified, accessed, created, none; got '{other}'"
            ))),
        }
    }
}

/// Common names for ripgrep's type names: a language name gives its `ripgrep_type`
/// convention; a few other spellings are mapped here.
fn type_alias(t: &str) -> &str {
    if let Some(rg) =
        tsa_lang::Language::from_name(t).and_then(|l| l.conventions().ripgrep_type.get())
    {
        return rg;
    }
    match t {
        "rs" => "rust",
        "golang" => "go",
        "c++" => "cpp",
        "c#" => "csharp",
        "shell" => "sh",
        "yml" => "yaml",
        other => other,
    }
}

/// A set of globs matched against a file's name and its project-relative path.
#[derive(Clone, Debug)]
struct Globs(Option<GlobSet>);

impl Globs {
    fn new(param: &str, globs: &[String]) -> Result<Globs, ToolError> {
        if globs.is_empty() {
            return Ok(Globs(None));
        }
        let mut b = GlobSetBuilder::new();
        for g in globs {
            let g = g.trim().trim_start_matches("./");
            let glob = Glob::new(g).map_err(|e| {
                ToolError::Validation(format!("parameter '{param}': invalid glob '{g}': {e}"))
            })?;
            b.add(glob);
            // `dir/` and `dir` also mean everything below it.
            let below = format!("{}/**", g.trim_end_matches('/'));
            if let Ok(glob) = Glob::new(&below) {
                b.add(glob);
            }
        }
        b.build()
            .map(|s| Globs(Some(s)))
            .map_err(|e| ToolError::Validation(format!("parameter '{param}': {e}")))
    }

    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn matches(&self, rel: &str) -> bool {
        let Some(set) = &self.0 else { return false };
        let name = rel.rsplit('/').next().unwrap_or(rel);
        set.is_match(rel) || set.is_match(name)
    }
}

/// One matching line (or block, in multiline mode; or one match with only_matching).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number.
    pub line: u64,
    pub text: String,
    /// Byte ranges of the matches within `text`.
    pub matches: Vec<[usize; 2]>,
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// The matches of one file.
#[derive(Clone, Debug)]
pub struct FileHits {
    /// Project-relative path with `/`.
    pub file: String,
    /// Every match in the file (lines; submatches with only_matching).
    pub count: usize,
    /// The first rows, up to the row cap.
    pub rows: Vec<Row>,
}

/// The result of one search.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Files with at least one match, in the requested order.
    pub files: Vec<FileHits>,
    /// Every match counted (exact unless `timed_out`).
    pub total: usize,
    pub files_searched: usize,
    /// Files found by discovery (before `file_limit`).
    pub files_discovered: usize,
    pub bytes_searched: u64,
    pub timed_out: bool,
    pub elapsed_ms: u64,
}

/// Limits of one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Rows kept per file (0 = count only). Files beyond the first rows are counted.
    pub rows_per_file: usize,
    pub deadline: Instant,
    /// Keep only the first `file_limit` discovered files (`search grep`).
    pub file_limit: Option<usize>,
}

/// (match count, kept rows, file size) of one searched file.
type Searched = (usize, Vec<Row>, u64);

struct Candidate {
    abs: PathBuf,
    rel: String,
    time: Option<SystemTime>,
}

/// The files a filter selects, project-relative, in the filter's order: (files,
/// total discovered before `limit`, whether the deadline cut the walk short).
pub fn list_files(
    root: &Path,
    filter: &FileFilter,
    limit: Option<usize>,
    deadline: Instant,
) -> Result<(Vec<String>, usize, bool), ToolError> {
    let limits = Limits {
        rows_per_file: 0,
        deadline,
        file_limit: limit,
    };
    let (found, total, timed_out) = discover(root, filter, &limits)?;
    Ok((found.into_iter().map(|c| c.rel).collect(), total, timed_out))
}

/// Finds the files to search: the explicit files plus the walk of every root.
/// Returns (files in order, total discovered before `file_limit`, timed out).
fn discover(
    root: &Path,
    filter: &FileFilter,
    limits: &Limits,
) -> Result<(Vec<Candidate>, usize, bool), ToolError> {
    let include = Globs::new("include_globs", &filter.include_globs)?;
    let exclude = Globs::new("exclude_globs", &filter.exclude_globs)?;
    let mut types = ignore::types::TypesBuilder::new();
    types.add_defaults();
    for t in &filter.file_types {
        types.select(type_alias(&t.to_ascii_lowercase()));
    }
    for t in &filter.exclude_types {
        types.negate(type_alias(&t.to_ascii_lowercase()));
    }
    let types = types.build().map_err(|e| {
        ToolError::Validation(format!(
            "parameter 'file_types'/'exclude_types': {e}; common types: py, rust, js, ts, go, java, c, cpp, cs, rb, php, sh, md, json, yaml, toml, html, css, sql"
        ))
    })?;
    let extensions: Vec<String> = filter
        .extensions
        .iter()
        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    let rel_of = |p: &Path| -> Option<String> {
        let rel = p.strip_prefix(root).ok()?;
        Some(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        )
    };
    let want_time = filter.sort != SortBy::Path;
    let sort = filter.sort;
    let timed_out = AtomicBool::new(false);
    // Whether a file passes every filter; `Some(candidate)` when it does.
    let accept =
        |abs: &Path, meta: Option<std::fs::Metadata>, is_symlink: bool| -> Option<Candidate> {
            let rel = rel_of(abs)?;
            if exclude.matches(&rel) || (!include.is_empty() && !include.matches(&rel)) {
                return None;
            }
            if !extensions.is_empty() {
                let ext = rel
                    .rsplit('/')
                    .next()?
                    .rsplit_once('.')?
                    .1
                    .to_ascii_lowercase();
                if !extensions.contains(&ext) {
                    return None;
                }
            }
            if let Some(re) = &filter.name_pattern {
                let subject = if filter.full_path_match {
                    rel.as_str()
                } else {
                    rel.rsplit('/').next().unwrap_or(&rel)
                };
                if !re.is_match(subject) {
                    return None;
                }
            }
            let needs_meta = !filter.kinds.is_empty()
                || !filter.sizes.is_empty()
                || filter.changed_after.is_some()
                || filter.changed_before.is_some()
                || filter.max_filesize.is_some()
                || want_time;
            let mut time = None;
            if needs_meta {
                let meta = meta.or_else(|| std::fs::metadata(abs).ok())?;
                let len = meta.len();
                if filter.max_filesize.is_some_and(|m| len > m) {
                    return None;
                }
                if !filter.sizes.iter().all(|b| b.admits(len)) {
                    return None;
                }
                if !filter.kinds.is_empty()
                    && !filter.kinds.iter().any(|k| match k {
                        EntryKind::File => true,
                        EntryKind::Symlink => is_symlink,
                        EntryKind::Empty => len == 0,
                        EntryKind::Executable => is_executable(&meta),
                    })
                {
                    return None;
                }
                let modified = meta.modified().ok();
                if let Some(after) = filter.changed_after
                    && modified.is_none_or(|m| m < after)
                {
                    return None;
                }
                if let Some(before) = filter.changed_before
                    && modified.is_none_or(|m| m > before)
                {
                    return None;
                }
                time = match sort {
                    SortBy::Path => None,
                    SortBy::Modified => modified,
                    SortBy::Accessed => meta.accessed().ok(),
                    SortBy::Created => meta.created().ok(),
                };
            }
            Some(Candidate {
                abs: abs.to_path_buf(),
                rel,
                time,
            })
        };

    let mut found: Vec<Candidate> = Vec::new();
    for f in &filter.files {
        if f.is_file()
            && let Some(c) = accept(f, None, false)
        {
            found.push(c);
        }
    }
    let roots: Vec<PathBuf> = if filter.roots.is_empty() && filter.files.is_empty() {
        vec![root.to_path_buf()]
    } else {
        filter.roots.clone()
    };
    if let Some((first, rest)) = roots.split_first() {
        let mut wb = WalkBuilder::new(first);
        for r in rest {
            wb.add(r);
        }
        wb.hidden(!filter.hidden)
            .follow_links(filter.follow_symlinks)
            .max_depth(filter.max_depth)
            .max_filesize(filter.max_filesize)
            .types(types)
            .require_git(false)
            .add_custom_ignore_filename(".tsaignore");
        if filter.no_ignore {
            wb.ignore(false)
                .git_ignore(false)
                .git_global(false)
                .git_exclude(false)
                .parents(false);
        }
        let root_owned = root.to_path_buf();
        let exclude_dirs = exclude.clone();
        wb.filter_entry(move |e: &DirEntry| {
            let name = e.file_name();
            if e.depth() > 0 && (name == ".git" || name == ".tsa") {
                return false;
            }
            // A followed symlink must stay inside the project.
            if e.path_is_symlink() {
                match std::fs::canonicalize(e.path()) {
                    Ok(target) if target.starts_with(&root_owned) => {}
                    _ => return false,
                }
            }
            if e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && let Ok(rel) = e.path().strip_prefix(&root_owned)
            {
                let rel = rel.to_string_lossy().replace('\\', "/");
                if exclude_dirs.matches(&rel) {
                    return false;
                }
            }
            true
        });
        let visit = |entry: DirEntry| -> Option<Candidate> {
            let ft = entry.file_type()?;
            if ft.is_dir() {
                return None;
            }
            let is_symlink = entry.path_is_symlink();
            if !ft.is_file() && (!is_symlink || !entry.path().is_file()) {
                return None;
            }
            accept(entry.path(), entry.metadata().ok(), is_symlink)
        };
        if filter.parallel {
            let out: Mutex<Vec<Candidate>> = Mutex::new(Vec::new());
            wb.threads(threads()).build_parallel().run(|| {
                Box::new(|r| {
                    if Instant::now() >= limits.deadline {
                        timed_out.store(true, Ordering::Relaxed);
                        return WalkState::Quit;
                    }
                    if let Ok(entry) = r
                        && let Some(c) = visit(entry)
                        && let Ok(mut v) = out.lock()
                    {
                        v.push(c);
                    }
                    WalkState::Continue
                })
            });
            found.extend(out.into_inner().unwrap_or_default());
        } else {
            for r in wb.build() {
                if Instant::now() >= limits.deadline {
                    timed_out.store(true, Ordering::Relaxed);
                    break;
                }
                if let Ok(entry) = r
                    && let Some(c) = visit(entry)
                {
                    found.push(c);
                }
            }
        }
    }
    found.sort_by(|a, b| a.rel.cmp(&b.rel));
    found.dedup_by(|a, b| a.rel == b.rel);
    if sort != SortBy::Path {
        found.sort_by(|a, b| a.time.cmp(&b.time).then_with(|| a.rel.cmp(&b.rel)));
    }
    let discovered = found.len();
    if let Some(n) = limits.file_limit {
        found.truncate(n);
    }
    Ok((found, discovered, timed_out.load(Ordering::Relaxed)))
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(12)
}

/// Collects the rows of one file.
struct Collect<'a> {
    matcher: &'a RegexMatcher,
    only_matching: bool,
    invert: bool,
    keep: usize,
    count: usize,
    rows: Vec<Row>,
    pending_before: Vec<String>,
    deadline: Instant,
    timed_out: bool,
}

fn line_text(bytes: &[u8]) -> String {
    let mut end = bytes.len();
    while end > 0 && (bytes[end - 1] == b'\n' || bytes[end - 1] == b'\r') {
        end -= 1;
    }
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let line = m.line_number().unwrap_or(0);
        let bytes = m.bytes();
        let text = line_text(bytes);
        let mut spans: Vec<[usize; 2]> = Vec::new();
        if !self.invert {
            let text_bytes = text.as_bytes();
            let _ = self.matcher.find_iter(text_bytes, |mm| {
                if mm.start() < mm.end() || spans.is_empty() {
                    spans.push([mm.start(), mm.end()]);
                }
                true
            });
        }
        let before = std::mem::take(&mut self.pending_before);
        if self.only_matching && !self.invert {
            for [s, e] in spans.iter().copied().filter(|[s, e]| s < e) {
                self.count += 1;
                if self.rows.len() < self.keep {
                    // Line of the submatch within a multi-line block.
                    let extra = text.as_bytes()[..s].iter().filter(|&&b| b == b'\n').count();
                    self.rows.push(Row {
                        line: line + extra as u64,
                        text: text[s..e].to_owned(),
                        matches: vec![[0, e - s]],
                        before: Vec::new(),
                        after: Vec::new(),
                    });
                }
            }
        } else {
            self.count += 1;
            if self.rows.len() < self.keep {
                self.rows.push(Row {
                    line,
                    text,
                    matches: spans,
                    before,
                    after: Vec::new(),
                });
            }
        }
        if self.count.is_multiple_of(64) && Instant::now() >= self.deadline {
            self.timed_out = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let text = line_text(c.bytes());
        match c.kind() {
            SinkContextKind::After => {
                if let Some(last) = self.rows.last_mut() {
                    last.after.push(text);
                }
            }
            _ => self.pending_before.push(text),
        }
        Ok(true)
    }

    fn context_break(&mut self, _s: &Searcher) -> Result<bool, Self::Error> {
        self.pending_before.clear();
        Ok(true)
    }
}

/// Searches the project: discovery, then every file on all cores.
pub fn search(
    root: &Path,
    filter: &FileFilter,
    spec: &MatchSpec,
    limits: Limits,
) -> Result<Outcome, ToolError> {
    let started = Instant::now();
    let matcher = spec.matcher()?;
    let encoding = spec.encoding()?;
    let (candidates, discovered, walk_timed_out) = discover(root, filter, &limits)?;
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(true)
        .multi_line(spec.multiline)
        .invert_match(spec.invert)
        .before_context(spec.context_before)
        .after_context(spec.context_after)
        .binary_detection(BinaryDetection::quit(0))
        .encoding(encoding)
        .bom_sniffing(true);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<Searched>>> = candidates.iter().map(|_| Mutex::new(None)).collect();
    let workers = if filter.parallel {
        threads().min(candidates.len().max(1))
    } else {
        1
    };
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut searcher = builder.build();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= candidates.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if Instant::now() >= limits.deadline {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                    let mut sink = Collect {
                        matcher: &matcher,
                        only_matching: spec.only_matching,
                        invert: spec.invert,
                        keep: limits.rows_per_file,
                        count: 0,
                        rows: Vec::new(),
                        pending_before: Vec::new(),
                        deadline: limits.deadline,
                        timed_out: false,
                    };
                    let bytes = std::fs::metadata(&candidates[i].abs)
                        .map(|m| m.len())
                        .unwrap_or(0);
                    // Unreadable files are skipped, as ripgrep does.
                    let _ = searcher.search_path(&matcher, &candidates[i].abs, &mut sink);
                    if sink.timed_out {
                        stop.store(true, Ordering::Relaxed);
                    }
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some((sink.count, sink.rows, bytes));
                    }
                }
            });
        }
    });
    let mut out = Outcome {
        files_discovered: discovered,
        timed_out: walk_timed_out || stop.load(Ordering::Relaxed),
        ..Outcome::default()
    };
    for (c, slot) in candidates.into_iter().zip(slots) {
        let Some((count, rows, bytes)) = slot.into_inner().ok().flatten() else {
            continue;
        };
        out.files_searched += 1;
        out.bytes_searched += bytes;
        if count > 0 {
            out.total += count;
            out.files.push(FileHits {
                file: c.rel,
                count,
                rows,
            });
        }
    }
    out.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src/sub")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(
            root.join("src/a.py"),
            "def Alpha():\n    return alpha_beta\n# alpha comment\nalphabet = 1\n",
        )
        .unwrap();
        std::fs::write(
            root.join("src/sub/b.rs"),
            "fn alpha() {}\nlet x = alpha();\n",
        )
        .unwrap();
        std::fs::write(root.join("docs/readme.md"), "Alpha and alpha\n").unwrap();
        std::fs::write(root.join("big.txt"), "alpha\n".repeat(5000)).unwrap();
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        std::fs::create_dir_all(root.join("ignored")).unwrap();
        std::fs::write(root.join("ignored/c.py"), "alpha\n").unwrap();
        (dir, root)
    }

    fn limits(rows: usize) -> Limits {
        Limits {
            rows_per_file: rows,
            deadline: Instant::now() + Duration::from_secs(30),
            file_limit: None,
        }
    }

    fn filter() -> FileFilter {
        FileFilter {
            parallel: true,
            ..FileFilter::default()
        }
    }

    fn run(root: &Path, f: &FileFilter, s: &MatchSpec) -> Outcome {
        search(root, f, s, limits(100)).unwrap()
    }

    fn files(o: &Outcome) -> Vec<&str> {
        o.files.iter().map(|f| f.file.as_str()).collect()
    }

    #[test]
    fn smart_case_and_exact_totals() {
        let (_d, root) = tree();
        let lower = run(&root, &filter(), &MatchSpec::new("alpha"));
        // big.txt alone has 5000 matching lines; all counted although 100 are kept.
        assert_eq!(
            lower
                .files
                .iter()
                .find(|f| f.file == "big.txt")
                .unwrap()
                .count,
            5000
        );
        assert_eq!(
            lower
                .files
                .iter()
                .find(|f| f.file == "big.txt")
                .unwrap()
                .rows
                .len(),
            100
        );
        assert_eq!(lower.total, 5000 + 4 + 2 + 1);
        // Upper case in the pattern makes smart case sensitive.
        let upper = run(&root, &filter(), &MatchSpec::new("Alpha"));
        assert_eq!(files(&upper), ["docs/readme.md", "src/a.py"]);
        assert_eq!(upper.total, 2);
        let mut insensitive = MatchSpec::new("Alpha");
        insensitive.case = CaseMode::Insensitive;
        assert_eq!(run(&root, &filter(), &insensitive).total, lower.total);
        // Ignored folders stay out.
        assert!(!files(&lower).contains(&"ignored/c.py"));
        let mut all = filter();
        all.no_ignore = true;
        assert!(files(&run(&root, &all, &MatchSpec::new("alpha"))).contains(&"ignored/c.py"));
    }

    #[test]
    fn word_fixed_and_submatch_offsets() {
        let (_d, root) = tree();
        let mut s = MatchSpec::new("alpha");
        s.word = true;
        let mut f = filter();
        f.include_globs = vec!["*.py".into()];
        let o = run(&root, &f, &s);
        // `alpha_beta` and `alphabet` are not the word `alpha`; `Alpha` and the comment are.
        let rows: Vec<u64> = o.files[0].rows.iter().map(|r| r.line).collect();
        assert_eq!(rows, [1, 3]);
        assert_eq!(o.files[0].rows[1].matches, vec![[2, 7]]);
        let mut fixed = MatchSpec::new("alpha()");
        fixed.fixed_strings = true;
        fixed.case = CaseMode::Sensitive;
        let o = run(&root, &filter(), &fixed);
        assert_eq!(files(&o), ["src/sub/b.rs"]);
        assert_eq!(o.total, 2);
        assert_eq!(o.files[0].rows[1].matches, vec![[8, 15]]);
    }

    #[test]
    fn globs_types_extensions_and_filesize() {
        let (_d, root) = tree();
        let s = MatchSpec::new("alpha");
        let mut f = filter();
        f.exclude_globs = vec!["docs".into(), "*.txt".into()];
        assert_eq!(files(&run(&root, &f, &s)), ["src/a.py", "src/sub/b.rs"]);
        let mut f = filter();
        f.file_types = vec!["rust".into()];
        assert_eq!(files(&run(&root, &f, &s)), ["src/sub/b.rs"]);
        let mut f = filter();
        f.exclude_types = vec!["python".into(), "md".into()];
        assert_eq!(files(&run(&root, &f, &s)), ["big.txt", "src/sub/b.rs"]);
        let mut f = filter();
        f.extensions = vec![".md".into()];
        assert_eq!(files(&run(&root, &f, &s)), ["docs/readme.md"]);
        let mut f = filter();
        f.max_filesize = Some(parse_size("1K").unwrap());
        assert!(!files(&run(&root, &f, &s)).contains(&"big.txt"));
        let mut f = filter();
        f.file_types = vec!["nosuchtype".into()];
        assert!(matches!(
            search(&root, &f, &s, limits(1)),
            Err(ToolError::Validation(_))
        ));
    }

    #[test]
    fn context_invert_only_matching_and_multiline() {
        let (_d, root) = tree();
        let mut f = filter();
        f.include_globs = vec!["src/a.py".into()];
        let mut s = MatchSpec::new("comment");
        s.context_before = 1;
        s.context_after = 1;
        let o = run(&root, &f, &s);
        let r = &o.files[0].rows[0];
        assert_eq!(
            (r.line, r.before.clone(), r.after.clone()),
            (
                3,
                vec!["    return alpha_beta".to_owned()],
                vec!["alphabet = 1".to_owned()]
            )
        );
        let mut inv = MatchSpec::new("alpha");
        inv.invert = true;
        inv.case = CaseMode::Sensitive;
        let o = run(&root, &f, &inv);
        assert_eq!(o.total, 1); // only `def Alpha():` lacks lower-case alpha
        let mut om = MatchSpec::new(r"alpha\w*");
        om.only_matching = true;
        let o = run(&root, &f, &om);
        let texts: Vec<&str> = o.files[0].rows.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["Alpha", "alpha_beta", "alpha", "alphabet"]);
        let mut ml = MatchSpec::new(r"Alpha\(\):\n\s+return");
        ml.multiline = true;
        let o = run(&root, &f, &ml);
        assert_eq!(o.total, 1);
        assert_eq!(o.files[0].rows[0].line, 1);
    }

    #[test]
    fn bad_regex_and_encoding_are_validation_errors() {
        let (_d, root) = tree();
        let e = search(&root, &filter(), &MatchSpec::new("foo("), limits(1)).unwrap_err();
        assert!(e.to_string().contains("invalid regex 'foo('"), "{e}");
        let mut s = MatchSpec::new("x");
        s.encoding = Some("klingon".into());
        assert!(matches!(
            search(&root, &filter(), &s, limits(1)),
            Err(ToolError::Validation(_))
        ));
        s.encoding = Some("latin1".into());
        assert!(search(&root, &filter(), &s, limits(1)).is_ok());
    }

    #[test]
    fn latin1_files_decode() {
        let (_d, root) = tree();
        std::fs::write(root.join("l1.txt"), b"caf\xe9 cr\xe8me\n").unwrap();
        let mut s = MatchSpec::new("café");
        s.encoding = Some("latin1".into());
        let o = run(&root, &filter(), &s);
        assert_eq!(files(&o), ["l1.txt"]);
    }

    #[test]
    fn deadline_in_the_past_reports_a_timeout() {
        let (_d, root) = tree();
        let l = Limits {
            rows_per_file: 10,
            deadline: Instant::now(),
            file_limit: None,
        };
        let o = search(&root, &filter(), &MatchSpec::new("alpha"), l).unwrap();
        assert!(o.timed_out);
        assert!(o.total < 5007);
    }

    #[test]
    fn discovery_filters_and_file_limit() {
        let (_d, root) = tree();
        let s = MatchSpec::new("alpha");
        let mut f = filter();
        f.name_pattern = Some(NameMatcher::Regex(regex::Regex::new(r"^[ab]\.").unwrap()));
        assert_eq!(files(&run(&root, &f, &s)), ["src/a.py", "src/sub/b.rs"]);
        f.full_path_match = true;
        f.name_pattern = Some(NameMatcher::Glob(
            Glob::new("src/sub/*").unwrap().compile_matcher(),
        ));
        assert_eq!(files(&run(&root, &f, &s)), ["src/sub/b.rs"]);
        let mut f = filter();
        f.sizes = vec![SizeBound::parse("+1k").unwrap()];
        assert_eq!(files(&run(&root, &f, &s)), ["big.txt"]);
        let mut f = filter();
        f.changed_after = Some(parse_time_point("1h", SystemTime::now()).unwrap());
        assert_eq!(run(&root, &f, &s).files.len(), 4);
        f.changed_after = None;
        f.changed_before = Some(parse_time_point("2001-01-01", SystemTime::now()).unwrap());
        assert_eq!(run(&root, &f, &s).files.len(), 0);
        let f = filter();
        let l = Limits {
            file_limit: Some(2),
            ..limits(10)
        };
        let o = search(&root, &f, &s, l).unwrap();
        assert_eq!(o.files_searched, 2);
        assert_eq!(o.files_discovered, 4);
    }

    #[test]
    fn sequential_walk_gives_the_same_answer() {
        let (_d, root) = tree();
        let s = MatchSpec::new("alpha");
        let mut f = filter();
        let par = run(&root, &f, &s);
        f.parallel = false;
        let seq = run(&root, &f, &s);
        assert_eq!(files(&par), files(&seq));
        assert_eq!(par.total, seq.total);
    }

    #[cfg(unix)]
    #[test]
    fn followed_symlinks_never_leave_the_root() {
        let (_d, root) = tree();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.py"), "alpha secret\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out_link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), root.join("file_link.py"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("src"), root.join("in_link")).unwrap();
        let mut f = filter();
        f.follow_symlinks = true;
        let o = run(&root, &f, &MatchSpec::new("alpha"));
        let found = files(&o);
        assert!(found.contains(&"in_link/a.py"), "{found:?}");
        assert!(
            found
                .iter()
                .all(|p| !p.starts_with("out_link") && *p != "file_link.py"),
            "{found:?}"
        );
        // Without following, links are not searched at all.
        let o = run(&root, &filter(), &MatchSpec::new("secret"));
        assert_eq!(o.total, 0);
    }

    #[test]
    fn parses_sizes_and_dates() {
        assert_eq!(parse_size("10M").unwrap(), 10_000_000);
        assert_eq!(parse_size("2kib").unwrap(), 2048);
        assert!(parse_size("ten").is_err());
        let t = parse_time_point("1970-01-02", SystemTime::now()).unwrap();
        assert_eq!(t, SystemTime::UNIX_EPOCH + Duration::from_secs(86_400));
        let t = parse_time_point("2000-03-01 01:00", SystemTime::now()).unwrap();
        assert_eq!(
            t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs(),
            951_872_400
        );
        assert!(parse_time_point("soon", SystemTime::now()).is_err());
        assert_eq!(
            SizeBound::parse("-1M").unwrap(),
            SizeBound::AtMost(1_000_000)
        );
    }
}
