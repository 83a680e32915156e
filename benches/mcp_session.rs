//! Query latency through one real MCP server session (`tsa mcp` over stdio, driven
//! by rmcp's client) on the index of the installed CPython standard library (or
//! `TSA_BENCH_CORPUS`), copied into a temp dir. For each of `nav callers`, `nav
//! impact`, `search symbol` and `search content`: `TSA_BENCH_CALLS` (1,000) calls with
//! names drawn from the index, p50/p99/max of the round trip, error count; then the
//! server's peak RSS.
//!
//! Run: `cargo bench --bench mcp_session`.

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

#[path = "support/corpus.rs"]
mod corpus;

/// Benchmarks report on stdout (stdout is not a protocol channel here).
fn say(line: String) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn peak_rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

/// Function and method names of the index, spread over the whole project
/// (a deterministic stride, so runs compare).
fn names(root: &std::path::Path, n: usize) -> Vec<String> {
    let index = tsa_index::Index::open(root).unwrap().unwrap();
    let mut all = Vec::new();
    for f in index.files().unwrap() {
        for s in index.symbols_in_file(&f).unwrap() {
            if matches!(s.kind.as_str(), "function" | "method") && s.name.len() > 3 {
                all.push(s.name);
            }
        }
    }
    let stride = (all.len() / n).max(1);
    all.into_iter().step_by(stride).take(n).collect()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let calls: usize = std::env::var("TSA_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let src = corpus::corpus();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("corpus");
    let bytes = corpus::copy_tree(&src, &root);
    let t = Instant::now();
    let report = tsa_index::build(&root, &tsa_index::BuildOptions::default()).unwrap();
    say(format!(
        "corpus: {} ({} files indexed, {:.1} MiB copied), cold index {:.0} ms",
        src.display(),
        report.indexed,
        bytes as f64 / 1048576.0,
        t.elapsed().as_secs_f64() * 1000.0
    ));
    let names = names(&root, calls);

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsa"));
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(&root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let transport = TokioChildProcess::new(cmd).unwrap();
    let pid = transport.id().unwrap();
    let client = ().serve(transport).await.unwrap();

    type Make = fn(&str) -> (&'static str, Value);
    let cases: [(&str, Make); 4] = [
        ("nav callers", |n| {
            (
                "nav",
                json!({"action": "callers", "function_name": n, "limit": 20}),
            )
        }),
        ("nav impact", |n| {
            ("nav", json!({"action": "impact", "function_name": n}))
        }),
        ("search symbol", |n| {
            ("search", json!({"action": "symbol", "query": n}))
        }),
        ("search content", |n| {
            (
                "search",
                json!({"action": "content", "query": n, "fixed_strings": true, "word": true}),
            )
        }),
    ];
    say(format!(
        "{} calls per action, one server session, client-side round trip",
        names.len()
    ));
    for (label, make) in cases {
        let mut times = Vec::with_capacity(names.len());
        let mut errors = 0usize;
        let mut chars = 0usize;
        for n in &names {
            let (tool, args) = make(n);
            let req =
                CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone());
            let t = Instant::now();
            let r = client.call_tool(req).await.unwrap();
            times.push(t.elapsed());
            if r.is_error == Some(true) {
                errors += 1;
            }
            chars += serde_json::to_value(&r.content[0]).unwrap()["text"]
                .as_str()
                .map_or(0, str::len);
        }
        times.sort();
        say(format!(
            "{label:<15} p50 {:>8.3} ms  p99 {:>8.3} ms  max {:>8.3} ms  errors {errors}  mean answer {:.0} chars",
            pct(&times, 0.5),
            pct(&times, 0.99),
            pct(&times, 1.0),
            chars as f64 / names.len() as f64
        ));
    }
    say(format!("server peak RSS: {:.1} MiB", peak_rss_mib(pid)));
    client.cancel().await.unwrap();
}
