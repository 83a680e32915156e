//! Index-free literal line search over the live files of a scope (`search text`):
//! complete or an error, never a silent part. Every budget but the per-file size
//! fails the whole scan with a stable code; a file over the size limit is skipped
//! and named, and the scan then says it is not complete.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use globset::{GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use regex::{Regex, RegexBuilder};

/// Most entries (files and folders) the walk may meet.
pub const MAX_ENTRIES: usize = 100_000;
/// Most bytes of paths the walk may collect.
pub const MAX_PATH_BYTES: usize = 16 << 20;
/// Files larger than this are skipped (and named), not read.
pub const MAX_FILE_BYTES: u64 = 10 << 20;
/// Most bytes read in all.
pub const MAX_TOTAL_BYTES: u64 = 512 << 20;
/// Most matching lines in all.
pub const MAX_HITS: usize = 100_000;
/// Wall-clock budget of one scan.
pub const DEADLINE: Duration = Duration::from_secs(5);
/// Folders never walked.
const PRUNED: [&str; 8] = [
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    "build",
    "dist",
    "target",
];

/// Why a scan failed, with its stable code.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {detail}")]
pub struct ScanError {
    /// UPPER_SNAKE code (`SOURCE_SCAN_BUDGET_EXCEEDED`, ...).
    pub code: &'static str,
    /// What happened, in words.
    pub detail: String,
}

fn fail(code: &'static str, detail: impl Into<String>) -> ScanError {
    ScanError {
        code,
        detail: detail.into(),
    }
}

/// What to look for.
#[derive(Debug, Clone)]
pub struct Literal {
    /// The text, taken literally.
    pub text: String,
    /// Case-sensitive match.
    pub case_sensitive: bool,
    /// Only where no word character precedes or follows the match.
    pub word: bool,
}

/// Where to look: a folder of the project, with optional globs relative to it.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The folder, absolute (inside the project, checked by the caller).
    pub dir: PathBuf,
    /// The project root, absolute: hits are named relative to it.
    pub root: PathBuf,
    /// Keep a file only if it matches one of these (when any).
    pub include: Vec<String>,
    /// Drop a file matching any of these.
    pub exclude: Vec<String>,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Hit {
    /// Project-relative path with `/`.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the first match, in characters.
    pub column: u32,
    /// The whole line.
    pub text: String,
}

/// The outcome of a complete scan.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Every matching line, sorted by (file, line, column).
    pub hits: Vec<Hit>,
    /// Distinct files with a hit.
    pub file_count: usize,
    /// Files read.
    pub files_scanned: usize,
    /// Bytes read.
    pub bytes_scanned: u64,
    /// Files skipped because they hold a NUL byte.
    pub binary_files_skipped: usize,
    /// Files over [`MAX_FILE_BYTES`], skipped (project-relative, sorted).
    pub large_files: Vec<String>,
}

/// Whether smart case means case-sensitive for this query.
pub fn smart_case_sensitive(query: &str) -> bool {
    query.chars().any(char::is_uppercase)
}

/// fnmatch-like globs: `*` also crosses `/`; `**/x` also matches `x`.
fn glob_set(globs: &[String]) -> Result<Option<GlobSet>, ScanError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let mut add = |p: &str| -> Result<(), ScanError> {
            let glob = globset::GlobBuilder::new(p)
                .literal_separator(false)
                .backslash_escape(true)
                .build()
                .map_err(|e| fail("INVALID_ARGUMENT", format!("bad glob '{g}': {e}")))?;
            b.add(glob);
            Ok(())
        };
        add(g)?;
        if let Some(rest) = g.strip_prefix("**/") {
            add(rest)?;
        }
    }
    b.build()
        .map(Some)
        .map_err(|e| fail("INVALID_ARGUMENT", format!("bad globs: {e}")))
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || matches!(c, '\u{200c}' | '\u{200d}')
}

/// The matcher of one query.
struct Matcher {
    re: Regex,
    word: bool,
}

impl Matcher {
    fn new(l: &Literal) -> Result<Self, ScanError> {
        let re = RegexBuilder::new(&regex::escape(&l.text))
            .case_insensitive(!l.case_sensitive)
            .unicode(true)
            .build()
            .map_err(|e| fail("INVALID_ARGUMENT", format!("query: {e}")))?;
        Ok(Matcher { re, word: l.word })
    }

    /// Byte offset of the first acceptable match in `line`.
    fn first(&self, line: &str) -> Option<usize> {
        let mut from = 0;
        while from <= line.len() {
            let m = self.re.find_at(line, from)?;
            if !self.word || self.bounded(line, m.start(), m.end()) {
                return Some(m.start());
            }
            // Retry one character later (matches may overlap).
            let step = line[m.start()..].chars().next().map_or(1, char::len_utf8);
            from = m.start() + step;
        }
        None
    }

    fn bounded(&self, line: &str, start: usize, end: usize) -> bool {
        let before = line[..start].chars().next_back();
        let after = line[end..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    }
}

/// The files of the scope (absolute, relative to the scope, relative to the root),
/// sorted by path.
fn discover(
    scope: &Scope,
    include: Option<&GlobSet>,
    exclude: Option<&GlobSet>,
    deadline: Instant,
) -> Result<Vec<(PathBuf, String)>, ScanError> {
    let mut b = ignore::WalkBuilder::new(&scope.dir);
    b.hidden(true)
        .follow_links(false)
        .add_custom_ignore_filename(".tsaignore")
        .filter_entry(|e| {
            e.depth() == 0
                || !e
                    .file_name()
                    .to_str()
                    .is_some_and(|n| PRUNED.contains(&n) || n == ".tsa")
        });
    let mut entries = 0usize;
    let mut path_bytes = 0usize;
    let mut out = Vec::new();
    for r in b.build() {
        if Instant::now() >= deadline {
            return Err(fail(
                "SOURCE_SCAN_BUDGET_EXCEEDED",
                format!("the walk took over {} s", DEADLINE.as_secs()),
            ));
        }
        let e = r.map_err(|e| fail("SOURCE_DISCOVERY_FAILED", e.to_string()))?;
        if e.depth() == 0 {
            continue;
        }
        entries += 1;
        if entries > MAX_ENTRIES {
            return Err(fail(
                "SOURCE_DISCOVERY_BUDGET_EXCEEDED",
                format!("more than {MAX_ENTRIES} files and folders in scope; narrow root"),
            ));
        }
        // Symlinks and anything but regular files are never read.
        if !e.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let in_scope = rel(e.path(), &scope.dir);
        path_bytes += in_scope.len();
        if path_bytes > MAX_PATH_BYTES {
            return Err(fail(
                "SOURCE_DISCOVERY_BUDGET_EXCEEDED",
                "more than 16 MiB of paths in scope; narrow root",
            ));
        }
        if include.is_some_and(|g| !g.is_match(&in_scope))
            || exclude.is_some_and(|g| g.is_match(&in_scope))
        {
            continue;
        }
        out.push((e.into_path(), String::new()));
    }
    for (abs, r) in &mut out {
        *r = rel(abs, &scope.root);
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

fn rel(p: &Path, base: &Path) -> String {
    p.strip_prefix(base)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// One file's outcome.
enum Read {
    Text(Vec<Hit>, u64),
    Binary(u64),
    Large,
}

/// Scans the scope for `lit`: every matching line, or the budget that stopped it.
pub fn scan(lit: &Literal, scope: &Scope) -> Result<Scan, ScanError> {
    let deadline = Instant::now() + DEADLINE;
    let include = glob_set(&scope.include)?;
    let exclude = glob_set(&scope.exclude)?;
    let matcher = Matcher::new(lit)?;
    let files = discover(scope, include.as_ref(), exclude.as_ref(), deadline)?;
    let total_bytes = AtomicU64::new(0);
    let hits_seen = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Vec<Result<Read, ScanError>> = files
        .par_iter()
        .map(|(abs, rel)| {
            if stop.load(Ordering::Relaxed) {
                return Err(fail("SOURCE_SCAN_BUDGET_EXCEEDED", "stopped"));
            }
            if Instant::now() >= deadline {
                stop.store(true, Ordering::Relaxed);
                return Err(fail(
                    "SOURCE_SCAN_BUDGET_EXCEEDED",
                    format!(
                        "the scan took over {} s; narrow root or globs",
                        DEADLINE.as_secs()
                    ),
                ));
            }
            let r = read_one(abs, rel, &matcher, &total_bytes, &hits_seen);
            if r.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            r
        })
        .collect();
    let mut out = Scan::default();
    let mut first_error = None;
    for (r, (_, rel)) in results.into_iter().zip(&files) {
        match r {
            // The first real failure wins over the "stopped" ones it caused.
            Err(e) if e.detail == "stopped" => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
            Ok(Read::Large) => out.large_files.push(rel.clone()),
            Ok(Read::Binary(n)) => {
                out.binary_files_skipped += 1;
                out.files_scanned += 1;
                out.bytes_scanned += n;
            }
            Ok(Read::Text(h, n)) => {
                out.files_scanned += 1;
                out.bytes_scanned += n;
                if !h.is_empty() {
                    out.file_count += 1;
                }
                out.hits.extend(h);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(fail("SOURCE_SCAN_BUDGET_EXCEEDED", "the scan was stopped"));
    }
    Ok(out)
}

fn read_one(
    abs: &Path,
    rel: &str,
    m: &Matcher,
    total_bytes: &AtomicU64,
    hits_seen: &AtomicUsize,
) -> Result<Read, ScanError> {
    let meta = std::fs::symlink_metadata(abs)
        .map_err(|e| fail("SOURCE_FILE_UNAVAILABLE", format!("{rel}: {e}")))?;
    if !meta.is_file() {
        return Err(fail(
            "SOURCE_FILE_CHANGED",
            format!("{rel} is no longer a regular file"),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Ok(Read::Large);
    }
    let bytes =
        std::fs::read(abs).map_err(|e| fail("SOURCE_FILE_UNAVAILABLE", format!("{rel}: {e}")))?;
    if bytes.len() as u64 != meta.len() {
        return Err(fail(
            "SOURCE_FILE_CHANGED",
            format!("{rel} changed while it was read"),
        ));
    }
    let n = bytes.len() as u64;
    if total_bytes.fetch_add(n, Ordering::Relaxed) + n > MAX_TOTAL_BYTES {
        return Err(fail(
            "SOURCE_SCAN_BUDGET_EXCEEDED",
            "more than 512 MiB to read in scope; narrow root or globs",
        ));
    }
    if memchr_nul(&bytes) {
        return Ok(Read::Binary(n));
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let text = String::from_utf8_lossy(body);
    let mut hits = Vec::new();
    for (i, line) in lines(&text).enumerate() {
        if let Some(at) = m.first(line) {
            if hits_seen.fetch_add(1, Ordering::Relaxed) + 1 > MAX_HITS {
                return Err(fail(
                    "SOURCE_MATCH_BUDGET_EXCEEDED",
                    format!("more than {MAX_HITS} matching lines; narrow the query, root or globs"),
                ));
            }
            hits.push(Hit {
                file: rel.to_owned(),
                line: i as u32 + 1,
                column: line[..at].chars().count() as u32 + 1,
                text: line.to_owned(),
            });
        }
    }
    Ok(Read::Text(hits, n))
}

fn memchr_nul(b: &[u8]) -> bool {
    b.contains(&0)
}

/// Lines split on LF after CRLF and CR are read as LF (a final newline ends the
/// last line, it does not start another).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        if t.is_empty() {
            rest = None;
            return None;
        }
        match t.find(['\n', '\r']) {
            Some(i) => {
                let skip = if t[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&t[i + skip..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                Some(t)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(t: &str, cs: bool, word: bool) -> Literal {
        Literal {
            text: t.into(),
            case_sensitive: cs,
            word,
        }
    }

    #[test]
    fn lines_split_on_lf_cr_and_crlf_only() {
        let t = "a\r\nb\rc\nd\u{c}e\u{2028}f\n";
        let v: Vec<&str> = lines(t).collect();
        assert_eq!(v, vec!["a", "b", "c", "d\u{c}e\u{2028}f"]);
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n\n").collect::<Vec<_>>(), vec!["", ""]);
    }

    #[test]
    fn word_match_retries_past_a_glued_occurrence() {
        let m = Matcher::new(&lit("foo", true, true)).unwrap();
        assert_eq!(m.first("foobar foo"), Some(7));
        assert_eq!(m.first("foo_"), None);
        assert_eq!(m.first("(foo)"), Some(1));
        assert_eq!(m.first("éfoo"), None);
        let m = Matcher::new(&lit("a.b", false, false)).unwrap();
        assert_eq!(m.first("xA.Bx"), Some(1));
        assert_eq!(m.first("axb"), None, "the query is literal");
    }

    #[test]
    fn smart_case_follows_an_upper_case_letter() {
        assert!(smart_case_sensitive("Foo"));
        assert!(!smart_case_sensitive("foo_1"));
    }

    #[test]
    fn globs_cross_slashes_and_a_leading_double_star_matches_at_the_top() {
        let g = glob_set(&["*.py".into(), "**/x.rs".into()])
            .unwrap()
            .unwrap();
        assert!(g.is_match("a/b/c.py"));
        assert!(g.is_match("x.rs"));
        assert!(g.is_match("a/x.rs"));
        assert!(!g.is_match("a/y.rs"));
    }

    #[test]
    fn a_scan_is_sorted_skips_binaries_large_files_and_pruned_folders() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("src")).unwrap();
        std::fs::create_dir_all(r.join("node_modules")).unwrap();
        std::fs::create_dir_all(r.join(".hidden")).unwrap();
        std::fs::write(r.join("src/b.txt"), "x Needle\r\nneedle needle\n").unwrap();
        std::fs::write(r.join("src/a.txt"), "\u{feff}\u{e9}needle\n").unwrap();
        std::fs::write(r.join("node_modules/c.txt"), "needle\n").unwrap();
        std::fs::write(r.join(".hidden/d.txt"), "needle\n").unwrap();
        std::fs::write(r.join("bin.dat"), b"needle\0").unwrap();
        let big = vec![b'n'; (MAX_FILE_BYTES + 1) as usize];
        std::fs::write(r.join("big.txt"), big).unwrap();
        let scope = Scope {
            dir: r.to_path_buf(),
            root: r.to_path_buf(),
            include: vec![],
            exclude: vec![],
        };
        let s = scan(&lit("needle", false, false), &scope).unwrap();
        let got: Vec<(String, u32, u32)> = s
            .hits
            .iter()
            .map(|h| (h.file.clone(), h.line, h.column))
            .collect();
        assert_eq!(
            got,
            vec![
                ("src/a.txt".into(), 1, 2),
                ("src/b.txt".into(), 1, 3),
                ("src/b.txt".into(), 2, 1),
            ]
        );
        assert_eq!(s.file_count, 2);
        assert_eq!(s.binary_files_skipped, 1);
        assert_eq!(s.large_files, vec!["big.txt".to_owned()]);
        let scope = Scope {
            exclude: vec!["a.*".into()],
            ..scope
        };
        let s = scan(&lit("Needle", true, false), &scope).unwrap();
        assert_eq!(s.hits.len(), 1);
        assert_eq!(s.hits[0].text, "x Needle");
    }
}
