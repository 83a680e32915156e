//! Load: one MCP session (`tsa mcp` over stdio, rmcp's client) takes 1,000
//! concurrent tool calls of mixed actions in two waves of 500, while another task
//! edits files and runs `index sync`. Every answer must be a valid envelope, the
//! reads must keep answering while a sync runs, a read after a sync must see the
//! new code, and the server's peak RSS must stay bounded (no growth from the first
//! wave to the second). Latency percentiles and RSS are printed on stderr.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceError};
use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::support::{assert_envelope, bin, project};

/// Modules generated beside the python fixture, so a sync has real work to do.
const MODULES: usize = 120;
const WAVE: usize = 500;
/// Generous fixed cap on the server's peak RSS.
const RSS_CAP_KIB: u64 = 1024 * 1024;
/// The second wave may raise the peak by at most this much.
const GROWTH_MARGIN_KIB: u64 = 48 * 1024;

fn generate(root: &Path) {
    let dir = root.join("gen");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("__init__.py"), "").unwrap();
    for i in 0..MODULES {
        let mut src = String::from("\"\"\"Generated module.\"\"\"\n");
        if i > 0 {
            src.push_str(&format!("from gen.m{} import step_{}\n", i - 1, i - 1));
        }
        src.push_str("from app.core import build\n\n\n");
        src.push_str(&format!(
            "def step_{i}(x):\n    \"\"\"One step.\"\"\"\n    y = {}\n    return build(y)\n\n\n",
            if i > 0 {
                format!("step_{}(x) + 1", i - 1)
            } else {
                "x".into()
            }
        ));
        src.push_str(&format!(
            "class Worker{i}:\n    def run(self, n):\n        total = 0\n        for k in range(n):\n            if k % 2:\n                total += step_{i}(k)\n            else:\n                total -= k\n        return total\n"
        ));
        std::fs::write(dir.join(format!("m{i}.py")), src).unwrap();
    }
}

/// The mixed read calls of the load, by index.
fn read_call(i: usize) -> (&'static str, Value) {
    let m = i % MODULES;
    let (tool, mut args) = match i % 10 {
        0 => (
            "search",
            json!({"action": "symbol", "query": format!("step_{m}")}),
        ),
        1 => (
            "search",
            json!({"action": "content", "query": "return build", "max_count": 20}),
        ),
        2 => (
            "nav",
            json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 5}),
        ),
        3 => (
            "nav",
            json!({"action": "callees", "function_name": format!("step_{m}"), "file_path": format!("gen/m{m}.py")}),
        ),
        4 => (
            "nav",
            json!({"action": "impact", "function_name": format!("step_{m}"), "file_path": format!("gen/m{m}.py")}),
        ),
        5 => (
            "structure",
            json!({"action": "outline", "file_path": format!("gen/m{m}.py")}),
        ),
        6 => (
            "health",
            json!({"action": "file", "file_path": format!("gen/m{m}.py")}),
        ),
        7 => (
            "nav",
            json!({"action": "caller_tree", "symbol": format!("step_{m}"), "file_path": format!("gen/m{m}.py"), "max_depth": 3}),
        ),
        8 => ("index", json!({"action": "status"})),
        _ => (
            "search",
            json!({"action": "symbol", "query": format!("Worker{m}"), "kind": "class"}),
        ),
    };
    args["output_format"] = json!("json");
    (tool, args)
}

async fn call(peer: &Peer<RoleClient>, tool: &str, args: Value) -> Result<Value, String> {
    let r = peer
        .call_tool(
            CallToolRequestParams::new(tool.to_owned())
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .map_err(|e: ServiceError| format!("{tool}: protocol error {e}"))?;
    let block = serde_json::to_value(&r.content[0]).map_err(|e| e.to_string())?;
    let text = block["text"].as_str().ok_or("no text block")?;
    let v: Value = serde_json::from_str(text).map_err(|e| format!("{tool}: not JSON: {e}"))?;
    if r.is_error == Some(true) {
        return Err(format!("{tool} {}: {}", args, v["error"]));
    }
    Ok(v)
}

fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// One read's outcome: when it finished and how long it took.
struct Done {
    at: Instant,
    took: Duration,
}

/// Runs `n` concurrent mixed reads starting at call number `from`.
async fn wave(peer: &Peer<RoleClient>, from: usize, n: usize) -> Vec<Done> {
    let mut set = JoinSet::new();
    for i in from..from + n {
        let peer = peer.clone();
        set.spawn(async move {
            let (tool, args) = read_call(i);
            let t = Instant::now();
            let v = call(&peer, tool, args).await?;
            let took = t.elapsed();
            if std::panic::catch_unwind(|| assert_envelope(&v)).is_err() {
                return Err(format!("{tool}: invalid envelope {v}"));
            }
            Ok::<_, String>(Done {
                at: Instant::now(),
                took,
            })
        });
    }
    let mut out = Vec::new();
    let mut errors = Vec::new();
    while let Some(r) = set.join_next().await {
        match r.expect("task") {
            Ok(d) => out.push(d),
            Err(e) => errors.push(e),
        }
    }
    assert!(
        errors.is_empty(),
        "{} errors, first: {}",
        errors.len(),
        errors[0]
    );
    out
}

/// Edits the project and syncs, `rounds` times; returns each sync's (start, end).
/// After each sync a read must find the function the edit added.
async fn writer(
    peer: Peer<RoleClient>,
    root: std::path::PathBuf,
    rounds: usize,
) -> Vec<(Instant, Instant)> {
    let mut spans = Vec::new();
    for k in 0..rounds {
        // Alternate: append a function to an existing module (scoped
        // re-resolution), or add a new module (module maps change: everything
        // is re-resolved).
        let marker = format!("fresh_marker_{k}");
        if k % 2 == 0 {
            let f = root.join(format!("gen/m{}.py", k % MODULES));
            let mut src = std::fs::read_to_string(&f).unwrap();
            src.push_str(&format!(
                "\n\ndef {marker}():\n    return step_{}(1)\n",
                k % MODULES
            ));
            std::fs::write(&f, src).unwrap();
        } else {
            std::fs::write(
                root.join(format!("gen/extra{k}.py")),
                format!("from app.core import build\n\n\ndef {marker}():\n    return build(2)\n"),
            )
            .unwrap();
        }
        let start = Instant::now();
        let v = call(
            &peer,
            "index",
            json!({"action": "sync", "output_format": "json"}),
        )
        .await
        .unwrap_or_else(|e| panic!("sync {k}: {e}"));
        let end = Instant::now();
        assert_envelope(&v);
        spans.push((start, end));
        let found = call(
            &peer,
            "search",
            json!({"action": "symbol", "query": marker, "output_format": "json"}),
        )
        .await
        .unwrap();
        assert_eq!(
            found["match_count"], 1,
            "read after sync {k} sees {marker}: {found}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    spans
}

/// Edits every generated module (so the sync re-parses them all), starts `index
/// sync`, and once it runs issues `n` quick reads. Returns (reads answered before
/// the sync ended, sync ms, p50 of those reads in ms).
async fn probe(peer: &Peer<RoleClient>, root: &Path, n: usize) -> (usize, f64, f64) {
    for i in 0..MODULES {
        let f = root.join(format!("gen/m{i}.py"));
        let mut src = std::fs::read_to_string(&f).unwrap();
        src.push_str(&format!("\n\ndef probe_{i}():\n    return step_{i}(3)\n"));
        std::fs::write(&f, src).unwrap();
    }
    let syncing = {
        let peer = peer.clone();
        tokio::spawn(async move {
            let start = Instant::now();
            let v = call(
                &peer,
                "index",
                json!({"action": "sync", "output_format": "json"}),
            )
            .await
            .unwrap();
            assert_envelope(&v);
            assert_eq!(v["updated_files"], MODULES, "{v}");
            (start, Instant::now())
        })
    };
    tokio::time::sleep(Duration::from_millis(15)).await;
    let mut set = JoinSet::new();
    for i in 0..n {
        let peer = peer.clone();
        set.spawn(async move {
            let (tool, args) = match i % 3 {
                0 => ("index", json!({"action": "status", "output_format": "json"})),
                1 => ("search", json!({"action": "symbol", "query": "build", "output_format": "json"})),
                _ => ("structure", json!({"action": "outline", "file_path": "app/core.py", "output_format": "json"})),
            };
            let t = Instant::now();
            let v = call(&peer, tool, args).await.unwrap();
            assert_envelope(&v);
            (Instant::now(), t.elapsed())
        });
    }
    let mut reads = Vec::new();
    while let Some(r) = set.join_next().await {
        reads.push(r.expect("read task"));
    }
    let (start, end) = syncing.await.expect("sync task");
    let during = reads.iter().filter(|(at, _)| *at < end).count();
    let mut took: Vec<Duration> = reads.iter().map(|(_, d)| *d).collect();
    took.sort();
    (
        (during),
        (end - start).as_secs_f64() * 1000.0,
        pct(&took, 0.5),
    )
}

async fn server(root: &Path) -> (RunningService<RoleClient, ()>, u32) {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .arg("--project-root")
        .arg(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let transport = TokioChildProcess::new(cmd).unwrap();
    let pid = transport.id().expect("server pid");
    (().serve(transport).await.unwrap(), pid)
}

fn report(label: &str, done: &mut [Done]) -> (f64, f64) {
    done.sort_by_key(|d| d.took);
    let took: Vec<Duration> = done.iter().map(|d| d.took).collect();
    let (p50, p99) = (pct(&took, 0.5), pct(&took, 0.99));
    eprintln!(
        "load {label}: {} calls, p50 {p50:.1} ms, p99 {p99:.1} ms, max {:.1} ms",
        took.len(),
        took.last().unwrap().as_secs_f64() * 1000.0
    );
    (p50, p99)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_session_serves_1000_concurrent_mixed_calls_while_syncing() {
    let p = project("python");
    generate(&p.root);
    let (client, pid) = server(&p.root).await;
    let peer = client.peer().clone();
    let built = call(
        &peer,
        "index",
        json!({"action": "full", "output_format": "json"}),
    )
    .await
    .unwrap();
    assert_envelope(&built);
    let base_rss = peak_rss_kib(pid);

    // Wave 1, with a writer editing and syncing while the reads run.
    let started = Instant::now();
    let writing = tokio::spawn(writer(peer.clone(), p.root.clone(), 6));
    let mut first = wave(&peer, 0, WAVE).await;
    let spans = writing.await.expect("writer");
    let wall1 = started.elapsed();
    let rss1 = peak_rss_kib(pid);
    // Reads that finished while some sync call was open (queueing included).
    let during = first
        .iter()
        .filter(|d| spans.iter().any(|(s, e)| d.at > *s && d.at < *e))
        .count();
    let sync_ms: Vec<f64> = spans
        .iter()
        .map(|(s, e)| (*e - *s).as_secs_f64() * 1000.0)
        .collect();
    eprintln!(
        "load: wave 1 wall {:.0} ms; syncs (ms) {sync_ms:.1?}; reads finished during a sync: {during}",
        wall1.as_secs_f64() * 1000.0
    );
    let (p50_1, p99_1) = report("wave 1 (with syncs)", &mut first);

    // Wave 2: reads only.
    let started = Instant::now();
    let mut second = wave(&peer, WAVE, WAVE).await;
    let wall2 = started.elapsed();
    let rss2 = peak_rss_kib(pid);
    let (p50_2, p99_2) = report("wave 2", &mut second);
    eprintln!(
        "load: wave 2 wall {:.0} ms; server VmHWM: after build {} KiB, after wave 1 {} KiB, after wave 2 {} KiB",
        wall2.as_secs_f64() * 1000.0,
        base_rss,
        rss1,
        rss2
    );
    let mut all: Vec<Done> = first.into_iter().chain(second).collect();
    report("all 1000", &mut all);
    let _ = (p50_1, p99_1, p50_2, p99_2);

    assert!(rss1 > 0, "VmHWM readable");
    assert!(rss2 < RSS_CAP_KIB, "peak RSS {rss2} KiB under the cap");
    assert!(
        rss2 <= rss1 + GROWTH_MARGIN_KIB,
        "no growth trend: wave 2 raised VmHWM from {rss1} to {rss2} KiB"
    );

    // Reads issued while a long sync runs answer before it ends.
    let (answered, sync_took, read_p50) = probe(&peer, &p.root, 30).await;
    eprintln!(
        "load: probe: sync of {MODULES} edited files took {sync_took:.0} ms; {answered} of 30 reads issued during it answered before it ended (p50 {read_p50:.1} ms)"
    );
    // Serialised behind the sync, reads would answer after it (a few may slip in
    // while its answer is on the way).
    assert!(
        answered * 2 > 30,
        "reads are not serialised behind a sync ({sync_took:.0} ms sync, {answered} of 30 reads answered during it)"
    );
    client.cancel().await.unwrap();
}
