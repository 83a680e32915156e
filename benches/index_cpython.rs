//! Indexing benchmark on real code: the installed CPython standard library (or any
//! directory in `TSA_BENCH_CORPUS`), copied into a temp dir so nothing is written
//! outside it. Reports medians of cold builds, no-change and one-file incremental
//! builds, caller-query latency, the deep index check, files/s, index size and peak RSS.
//! The builds are the CLI's: health's tree measurements ride the extraction's walk.
//!
//! Run: `cargo bench --bench index_cpython` (`TSA_BENCH_RUNS` = 5,
//! `TSA_BENCH_SYNC_RUNS` for the one-file syncs, default the same). Each cold build
//! comes right after a raw parse of the same files, and one more raw parse follows the
//! last (a machine whose speed drifts moves both sides of the ratio alike), each in a
//! child process (its sources never count in the builds' peak RSS). The syncs
//! run in this process after its cold builds, as in a serving process (the MCP server,
//! the watcher): a sync of a few files starts from the skeleton the last build kept.
//!
//! Two floors, by hand: `TSA_BENCH_RAW_PARSE=<folder>` with `TSA_BENCH_RAW_WHAT=visit`
//! (parse, then a bare visit of every node: the least any extraction costs) prints
//! wall and CPU microseconds; `TSA_BENCH_WRITE_FLOOR=<folder>` (a folder indexed
//! before) writes that index's rows again from memory, SQLite's share alone.

use std::io::Write;
use std::time::{Duration, Instant};

use rayon::prelude::*;

#[path = "support/corpus.rs"]
mod corpus;
use corpus::{copy_tree, corpus};
use tsa_index::{BuildOptions, Index, build, index_dir};

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// CPU time (user + system) this process has used so far.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces): utime is the 14th
    // field of the line, stime the 15th, in clock ticks (100 per second here).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    Duration::from_millis(f.iter().sum::<u64>() * 10)
}

/// `f()`, its wall time and the CPU time the process spent meanwhile.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (t, c) = (Instant::now(), cpu_time());
    let out = f();
    (out, t.elapsed(), cpu_time().saturating_sub(c))
}

/// The middle value (the mean of the two middle ones for an even count).
fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    let n = v.len();
    if n.is_multiple_of(2) {
        (v[n / 2 - 1] + v[n / 2]) / 2
    } else {
        v[n / 2]
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The file the one-file syncs change: `TSA_BENCH_VICTIM` (project-relative),
/// else json/__init__.py in CPython, mm/slab.c in the kernel, else the first Rust,
/// Python or C file.
fn victim(root: &std::path::Path, full: &BuildOptions) -> std::path::PathBuf {
    let named = std::env::var("TSA_BENCH_VICTIM").ok();
    for rel in named
        .iter()
        .map(String::as_str)
        .chain(["json/__init__.py", "mm/slab.c"])
    {
        if root.join(rel).is_file() {
            return root.join(rel);
        }
    }
    tsa_index::walk(root, &full.walk)
        .files
        .into_iter()
        .find(|f| [".rs", ".py", ".c"].iter().any(|e| f.rel.ends_with(e)))
        .map(|f| f.abs)
        .expect("a Rust, Python or C file in the corpus")
}

/// `runs` syncs of `root` with `opts`, each after appending a function (numbered
/// from `first`) to `victim`: their times and the last report.
fn one_file(
    root: &std::path::Path,
    victim: &std::path::Path,
    opts: &BuildOptions,
    runs: usize,
    first: usize,
) -> (Vec<Duration>, tsa_index::BuildReport) {
    let ext = victim.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut times = Vec::new();
    let mut last = None;
    for i in first..first + runs {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(victim)
            .unwrap();
        let added = match ext {
            "rs" => format!("\nfn _bench_added_{i}() -> usize {{ std::mem::size_of::<u8>() }}"),
            "c" => format!("\nstatic int _bench_added_{i}(void) {{ return (int)strlen(\"x\"); }}"),
            _ => format!("\ndef _bench_added_{i}():\n    return dumps({{}})\n"),
        };
        writeln!(f, "{added}").unwrap();
        let t = Instant::now();
        let n = build(root, opts).unwrap();
        times.push(t.elapsed());
        assert_eq!(n.indexed, 1);
        last = Some(n);
    }
    (times, last.expect("at least one run"))
}

/// A count from the environment, else `default`.
fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// The binary's allocator (crates/tsa-alloc): the bench measures what users run.
#[global_allocator]
static ALLOCATOR: tsa_alloc::MiMalloc = tsa_alloc::MiMalloc;

/// A parallel parse of `root`'s files (read first, untimed), the physical limit:
/// its wall and CPU times and the source bytes. It runs in a child process (this
/// bench again, told by `RAW_PARSE`), so the sources it holds never count in the
/// builds' peak RSS.
fn raw_parse(root: &std::path::Path) -> (Duration, Duration, usize) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env(RAW_PARSE, root)
        .output()
        .unwrap();
    assert!(out.status.success(), "the raw parse failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<u64> = text
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    assert_eq!(v.len(), 3, "the raw parse's answer: {text}");
    (
        Duration::from_micros(v[0]),
        Duration::from_micros(v[1]),
        v[2] as usize,
    )
}

/// The variable that makes this process the raw parse of the folder it names.
const RAW_PARSE: &str = "TSA_BENCH_RAW_PARSE";

/// The child's side of [`raw_parse`]: prints wall and CPU microseconds and bytes.
/// Run by hand with `TSA_BENCH_RAW_PARSE=<folder>`, `TSA_BENCH_RAW_WHAT=extract`
/// (parse and extract) or `facts` (and health's facts) times a build's parsing
/// workers without the writer and resolution: where the time beyond the parse goes;
/// `visit` (parse and a bare visit of every node) is the floor of any extraction.
fn raw_parse_here(root: &std::path::Path) {
    let files = tsa_index::walk(root, &BuildOptions::full().walk).files;
    let sources: Vec<(tsa_lang::Language, Vec<u8>)> = files
        .iter()
        .map(|f| (f.language, std::fs::read(&f.abs).unwrap()))
        .collect();
    let bytes: usize = sources.iter().map(|(_, b)| b.len()).sum();
    let what = std::env::var("TSA_BENCH_RAW_WHAT").unwrap_or_default();
    let hook = Some(tsa_analysis::health::facts_hook());
    let (n, wall, cpu) = timed(|| {
        sources
            .par_iter()
            .map(|(l, b)| match what.as_str() {
                "extract" => tsa_lang::extract_with(*l, b, None).map_or(0, |_| 1),
                "facts" => tsa_lang::extract_with(*l, b, hook.as_ref()).map_or(0, |_| 1),
                "visit" => tsa_lang::parse_and_visit(*l, b).unwrap().map_or(0, |_| 1),
                _ => tsa_lang::parse_only(*l, b).unwrap().map_or(0, |_| 1),
            })
            .sum::<usize>()
    });
    assert_eq!(n, sources.len());
    let _ = writeln!(
        std::io::stdout().lock(),
        "{} {} {bytes}",
        wall.as_micros(),
        cpu.as_micros()
    );
}

/// The floor of a cold build's writes: every row of the index under `root` (built
/// before), held in memory, then written again by one thread into a fresh file with
/// the same tables and a cold build's settings, through prepared statements, in one
/// transaction; then the secondary indexes and triggers; then the FTS rows (name,
/// its words, qualified name; name) and their merge, by the build's own FTS code
/// into a file of their own (as a cold build fills them). Nothing is parsed, bound or
/// resolved: only SQLite's share. Prints the CPU milliseconds of each step and
/// each table's rows and wall time (by hand: `TSA_BENCH_WRITE_FLOOR=<folder>`, with
/// `TSA_BENCH_WRITE_ROWS` rows to a statement, default 1).
fn write_floor(root: &std::path::Path) {
    use rusqlite::types::Value;
    let old = rusqlite::Connection::open(index_dir(root).join("index.db")).unwrap();
    let fts_like = |n: &str| n.starts_with("symbols_fts") || n.starts_with("symbols_trigram");
    // The rows of a three-column query.
    fn triples<
        A: rusqlite::types::FromSql,
        B: rusqlite::types::FromSql,
        C: rusqlite::types::FromSql,
    >(
        conn: &rusqlite::Connection,
        sql: &str,
    ) -> Vec<(A, B, C)> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }
    let master: Vec<(String, String, String)> = triples(
        &old,
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite%' ORDER BY rowid",
    );
    let tables: Vec<&(String, String, String)> = master
        .iter()
        .filter(|(t, n, _)| t == "table" && !fts_like(n))
        .collect();
    let rows: Vec<(String, usize, Vec<Value>)> = tables
        .iter()
        .map(|(_, name, _)| {
            let mut st = old.prepare(&format!("SELECT * FROM {name}")).unwrap();
            let cols = st.column_count();
            let mut flat = Vec::new();
            let mut q = st.query([]).unwrap();
            while let Some(r) = q.next().unwrap() {
                for c in 0..cols {
                    flat.push(r.get::<_, Value>(c).unwrap());
                }
            }
            (name.clone(), cols, flat)
        })
        .collect();
    let fts_rows: Vec<(i64, String, String)> = triples(
        &old,
        "SELECT s.id, n.name, s.qualname FROM symbols s JOIN names n ON n.id = s.name_id ORDER BY s.id",
    );
    drop(old);
    let dir = tempfile::tempdir().unwrap();
    // A cold build's connection: its bulk settings and page cache.
    let mut new = tsa_index::open_bulk(&dir.path().join("floor.db")).unwrap();
    new.pragma_update(None, "cache_size", -8_000).unwrap();
    for (_, _, sql) in &tables {
        new.execute_batch(sql).unwrap();
    }
    let tx = new.transaction().unwrap();
    let mut by_table = Vec::new();
    // Rows per statement (`TSA_BENCH_WRITE_ROWS`, default 1): many to a statement
    // share its per-call costs.
    let per = env_count("TSA_BENCH_WRITE_ROWS", 1).max(1);
    let ((), _, rows_cpu) = timed(|| {
        for (name, cols, flat) in &rows {
            let t = Instant::now();
            let marks = format!("({})", vec!["?"; *cols].join(","));
            let insert =
                |n: usize| format!("INSERT INTO {name} VALUES {}", vec![&*marks; n].join(","));
            let mut many = tx.prepare(&insert(per)).unwrap();
            let mut one = tx.prepare(&insert(1)).unwrap();
            let mut chunks = flat.chunks_exact(*cols * per);
            for batch in &mut chunks {
                many.execute(rusqlite::params_from_iter(batch.iter()))
                    .unwrap();
            }
            for row in chunks.remainder().chunks_exact(*cols) {
                one.execute(rusqlite::params_from_iter(row.iter())).unwrap();
            }
            by_table.push(format!(
                "{name} {} {:.0} ms",
                flat.len() / cols,
                ms(t.elapsed())
            ));
        }
    });
    let ((), _, index_cpu) = timed(|| {
        for (t, _, sql) in &master {
            if t == "index" || t == "trigger" {
                tx.execute_batch(sql).unwrap();
            }
        }
    });
    let ((), _, commit_cpu) = timed(|| tx.commit().unwrap());
    // The FTS rows in a file of their own, by the build's own code (its FTS thread).
    let ((), _, fts_cpu) = timed(|| {
        let rows = fts_rows
            .iter()
            .map(|(id, n, q)| (*id, n.as_str(), q.as_str()));
        tsa_index::write_fts_file(&dir.path().join("floor-fts.db"), rows).unwrap();
    });
    let n: usize = rows.iter().map(|(_, c, f)| f.len() / c).sum();
    let _ = writeln!(
        std::io::stdout().lock(),
        "write floor: {n} rows {:.0} ms CPU, indexes {:.0} ms, FTS ({} symbols) {:.0} ms, commit {:.0} ms",
        ms(rows_cpu),
        ms(index_cpu),
        fts_rows.len(),
        ms(fts_cpu),
        ms(commit_cpu)
    );
    let _ = writeln!(
        std::io::stdout().lock(),
        "  by table (rows, wall): {}",
        by_table.join(", ")
    );
}

/// Raw parses and cold builds of `root`, alternating (`runs` builds, one raw parse
/// before each and one after the last): their wall and CPU times, the source bytes,
/// the last build's report, and the peak RSS of the first build alone (what one
/// `tsa index full --mode full` process holds).
struct Runs {
    raw: Vec<Duration>,
    raw_cpu: Vec<Duration>,
    cold: Vec<Duration>,
    cold_cpu: Vec<Duration>,
    source_bytes: usize,
    report: tsa_index::BuildReport,
    first_peak: f64,
}

fn cold_builds(root: &std::path::Path, full: &BuildOptions, runs: usize) -> Runs {
    let (mut raw, mut raw_cpu, mut cold, mut cold_cpu) = (vec![], vec![], vec![], vec![]);
    let (mut report, mut first_peak, mut source_bytes) = (None, f64::NAN, 0);
    for run in 0..=runs {
        let (wall, cpu, bytes) = raw_parse(root);
        raw.push(wall);
        raw_cpu.push(cpu);
        source_bytes = bytes;
        if run == runs {
            break;
        }
        let _ = std::fs::remove_dir_all(index_dir(root));
        let (r, wall, cpu) = timed(|| build(root, full).unwrap());
        cold.push(wall);
        cold_cpu.push(cpu);
        if run == 0 {
            first_peak = peak_rss_mib();
        }
        report = Some(r);
    }
    Runs {
        raw,
        raw_cpu,
        cold,
        cold_cpu,
        source_bytes,
        report: report.expect("at least one run"),
        first_peak,
    }
}

fn main() {
    // SAFETY: the first thing the process does: no tree-sitter object exists yet.
    #[allow(unsafe_code)]
    unsafe {
        tsa_alloc::install()
    };
    if let Some(root) = std::env::var_os(RAW_PARSE) {
        raw_parse_here(std::path::Path::new(&root));
        return;
    }
    if let Some(root) = std::env::var_os("TSA_BENCH_WRITE_FLOOR") {
        write_floor(std::path::Path::new(&root));
        return;
    }
    let runs = env_count("TSA_BENCH_RUNS", 5);
    let src = corpus();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("corpus");
    let bytes = copy_tree(&src, &root);
    // The CLI's builds: health's measurements taken on the extraction's walk.
    let facts = Some(tsa_analysis::health::facts_hook());
    let full = BuildOptions {
        facts: facts.clone(),
        ..BuildOptions::full()
    };
    let incr = BuildOptions {
        facts,
        ..BuildOptions::default()
    };

    let Runs {
        raw,
        raw_cpu,
        cold,
        cold_cpu,
        source_bytes,
        report: r,
        first_peak,
    } = cold_builds(&root, &full, runs.max(1));
    let mut noop = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let n = build(&root, &incr).unwrap();
        noop.push(t.elapsed());
        assert_eq!(n.indexed, 0);
    }
    // One changed file: append a function to it every run; the sync walks the
    // tree, then (told) looks at that path alone, as `index sync --paths` and the
    // watcher do.
    let victim = victim(&root, &full);
    let rel = victim
        .strip_prefix(&root)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let told = BuildOptions {
        changed: Some(vec![rel.clone()]),
        facts: Some(tsa_analysis::health::facts_hook()),
        ..BuildOptions::default()
    };
    // (`TSA_BENCH_SYNC_RUNS`: more samples of the syncs than of the cold builds.)
    let sync_runs = env_count("TSA_BENCH_SYNC_RUNS", runs);
    let (one, last_one) = one_file(&root, &victim, &incr, sync_runs, 0);
    let (one_told, last_told) = one_file(&root, &victim, &told, sync_runs, sync_runs);
    let index = Index::open(&root).unwrap().unwrap();
    let st = index.status().unwrap();
    let targets: Vec<i64> = index
        .find_symbols("dumps", None, Some("json/__init__.py"))
        .unwrap()
        .iter()
        .map(|s| s.id)
        .collect();
    let mut query = Vec::new();
    let mut callers = 0;
    for _ in 0..(runs * 20) {
        let t = Instant::now();
        callers = index.callers(&targets).unwrap().len();
        query.push(t.elapsed());
    }
    // The deep check the MCP server runs once at start and `index full`/`index build`
    // before they sync (cheap checks and PRAGMA quick_check, under the build lock).
    let mut checks = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        assert!(tsa_index::check_and_quarantine(&root).unwrap().is_none());
        checks.push(t.elapsed());
    }
    // Each cold build against the mean of the raw parses just before and after it:
    // a machine whose speed drifts across the runs moves both sides alike.
    let mut paired: Vec<f64> = cold
        .iter()
        .enumerate()
        .map(|(i, c)| 2.0 * c.as_secs_f64() / (raw[i] + raw[i + 1]).as_secs_f64())
        .collect();
    paired.sort_by(f64::total_cmp);
    let paired_med = if paired.len().is_multiple_of(2) {
        (paired[paired.len() / 2 - 1] + paired[paired.len() / 2]) / 2.0
    } else {
        paired[paired.len() / 2]
    };
    let cold_med = median(cold);
    let raw_med = median(raw);
    let files = r.total_files;
    let unknown = st.calls_by_resolution.get("unknown").copied().unwrap_or(0);
    let mut out = std::io::stderr().lock();
    let _ = writeln!(
        out,
        "corpus: {} ({} files indexed, {:.1} MiB copied)",
        src.display(),
        files,
        bytes as f64 / 1048576.0
    );
    let _ = writeln!(out, "workers: {}  runs: {runs}", r.workers);
    let (raw_cpu, cold_cpu) = (median(raw_cpu), median(cold_cpu));
    let _ = writeln!(
        out,
        "raw parallel parse (parse only) median {:8.1} ms  ({:.1} MiB of source; CPU {:.0} ms)",
        ms(raw_med),
        source_bytes as f64 / 1048576.0,
        ms(raw_cpu)
    );
    let _ = writeln!(
        out,
        "cold build      median {:8.1} ms  ({:.0} files/s)  = {:.2}x the raw parse (CPU {:.0} ms = {:.2}x)",
        ms(cold_med),
        files as f64 / cold_med.as_secs_f64(),
        cold_med.as_secs_f64() / raw_med.as_secs_f64(),
        ms(cold_cpu),
        cold_cpu.as_secs_f64() / raw_cpu.as_secs_f64().max(1e-9)
    );
    let _ = writeln!(
        out,
        "  each cold build / the raw parses around it: {} (median {paired_med:.2}x)",
        paired
            .iter()
            .map(|r| format!("{r:.2}x"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = writeln!(
        out,
        "  last cold build phases: walk {} ms, parse+extract {} ms, write {} ms, resolve {} ms",
        r.walk_ms, r.parse_ms, r.write_ms, r.resolve_ms
    );
    let _ = writeln!(out, "no-change sync  median {:8.1} ms", ms(median(noop)));
    for (how, times, n) in [("walking", one, last_one), ("told", one_told, last_told)] {
        let _ = writeln!(
            out,
            "one-file change median {:8.1} ms ({rel}, {how}); last sync's phases: walk {} ms, stat+hash+parse {} ms, write {} ms, resolve {} ms",
            ms(median(times)),
            n.walk_ms,
            n.parse_ms,
            n.write_ms,
            n.resolve_ms
        );
    }
    let _ = writeln!(
        out,
        "callers(json.dumps) median {:6.3} ms  ({callers} callers)",
        ms(median(query))
    );
    let _ = writeln!(
        out,
        "index check (PRAGMA quick_check) median {:6.1} ms on {:.1} MiB",
        ms(median(checks)),
        st.index_bytes as f64 / 1048576.0
    );
    let _ = writeln!(
        out,
        "index: {} symbols, {} call sites ({:.1}% resolved), {} parse-error files, {:.1} MiB ({:.2}x the source bytes)",
        st.symbols,
        st.calls,
        100.0 * (st.calls - unknown) as f64 / st.calls.max(1) as f64,
        st.parse_error_files.len(),
        st.index_bytes as f64 / 1048576.0,
        st.index_bytes as f64 / source_bytes as f64
    );
    let _ = writeln!(out, "edges by kind: {:?}", st.edges_by_kind);
    let _ = writeln!(out, "calls by resolution: {:?}", st.calls_by_resolution);
    let _ = writeln!(
        out,
        "peak RSS of one cold build: {first_peak:.1} MiB (this process after {runs} builds and the syncs: {:.1} MiB; the raw parses run in a child process)",
        peak_rss_mib()
    );
}
