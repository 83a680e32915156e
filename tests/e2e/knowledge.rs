//! `index knowledge` (the `.tsa/knowledge.json` sidecar) and `viz knowledge`
//! (Graphology JSON, and the self-contained HTML page, drawn in headless Chromium)
//! over the CLI and MCP.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    Project, assert_envelope, cli_words, json as cli_json, mcp, mcp_call, project,
};

const DESIGN: &str = "# Design\n\n\
The [core](../app/core.py) module holds `Engine.run` and `TurboEngine`.\n\
`helper()` is defined twice; see the [readme](../README.md) and [the app](../app/).\n\
`Engine.step` is called by `Engine.run`; `nothing_here()` is gone.\n\
```\n`Engine.__init__` in a fence is not a mention\n```\n";

/// The Python fixture with one more document that mentions files, folders,
/// definitions, an ambiguous name and a stale one.
fn docs_project() -> Project {
    let p = project("python");
    std::fs::create_dir_all(p.root.join("docs")).unwrap();
    std::fs::write(p.root.join("docs/design.md"), DESIGN).unwrap();
    p
}

fn call(root: &Path, tool: &str, args: Value) -> Value {
    let words = cli_words(tool, &args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_envelope(&v);
    assert_eq!(code != 0, v["success"] == false, "{v}");
    v
}

fn sidecar(root: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(root.join(".tsa/knowledge.json")).unwrap()).unwrap()
}

fn has_edge(g: &Value, kind: &str, source: &str, target: &str) -> bool {
    g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["kind"] == kind && e["source"] == source && e["target"] == target)
}

/// Drops what legitimately differs between two calls made a moment apart.
fn stable(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("age_seconds");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_knowledge_builds_updates_and_reports_status() {
    let p = docs_project();
    let missing = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "status"}),
    );
    assert_eq!(missing["verdict"], "NOT_FOUND");
    assert_eq!(missing["knowledge_state"], "missing");
    assert!(
        !p.root.join(".tsa/knowledge.json").exists(),
        "status writes nothing"
    );

    let built = call(&p.root, "index", json!({"action": "knowledge"}));
    assert_eq!(built["verdict"], "INFO", "{built}");
    assert_eq!(built["rebuilt"], true);
    assert_eq!(built["reason"], "missing");
    assert_eq!(built["knowledge_path"], ".tsa/knowledge.json");
    let g = sidecar(&p.root);
    assert_eq!(g["format"], "tsa-knowledge/1");
    assert_eq!(g["node_total"], built["node_count"]);
    assert_eq!(
        g["nodes"].as_array().unwrap().len() as u64,
        built["nodes_stored"].as_u64().unwrap()
    );
    let ids: Vec<&str> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    for id in [
        "module:.",
        "module:app",
        "file:app/core.py",
        "doc:docs/design.md",
        "doc:README.md",
        "symbol:app/core.py#Engine.run@17",
        "symbol:app/core.py#TurboEngine@25",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    // Code edges from the index.
    assert!(has_edge(
        &g,
        "imports",
        "file:app/cli.py",
        "file:app/util.py"
    ));
    assert!(has_edge(
        &g,
        "calls",
        "symbol:app/core.py#Engine.run@17",
        "symbol:app/core.py#build@5"
    ));
    assert!(
        has_edge(&g, "calls", "file:app/cli.py", "symbol:app/core.py#build@5"),
        "module-level call"
    );
    assert!(has_edge(
        &g,
        "inherits",
        "symbol:app/core.py#TurboEngine@25",
        "symbol:app/core.py#Engine@11"
    ));
    assert!(has_edge(
        &g,
        "contains",
        "file:app/core.py",
        "symbol:app/core.py#Engine@11"
    ));
    assert!(has_edge(
        &g,
        "contains",
        "symbol:app/core.py#Engine@11",
        "symbol:app/core.py#Engine.run@17"
    ));
    assert!(has_edge(&g, "contains", "module:.", "module:app"));
    // Doc edges: links, paths, folders, definitions; never a fenced span, an
    // ambiguous name (two `helper`s) or a stale one.
    let d = "doc:docs/design.md";
    assert!(has_edge(&g, "documents", d, "file:app/core.py"));
    assert!(has_edge(&g, "documents", d, "module:app"));
    assert!(has_edge(&g, "links", d, "doc:README.md"));
    assert!(has_edge(
        &g,
        "documents",
        d,
        "symbol:app/core.py#Engine.run@17"
    ));
    assert!(has_edge(
        &g,
        "documents",
        d,
        "symbol:app/core.py#Engine.step@21"
    ));
    assert!(has_edge(
        &g,
        "documents",
        d,
        "symbol:app/core.py#TurboEngine@25"
    ));
    assert!(!has_edge(
        &g,
        "documents",
        d,
        "symbol:app/core.py#Engine.__init__@14"
    ));
    let edges = g["edges"].as_array().unwrap();
    assert!(
        !edges
            .iter()
            .any(|e| e["source"] == d && e["target"].as_str().unwrap().contains("#helper@")),
        "helper() is ambiguous"
    );
    let w = edges
        .iter()
        .find(|e| {
            e["kind"] == "documents"
                && e["source"] == d
                && e["target"] == "symbol:app/core.py#Engine.run@17"
        })
        .unwrap();
    assert_eq!(w["weight"], 2, "two mentions of Engine.run");
    assert!(built["docs"]["ambiguous"].as_u64().unwrap() >= 1);
    assert!(
        built["docs"]["unresolved"].as_u64().unwrap() >= 1,
        "nothing_here()"
    );
    assert_eq!(built["docs"]["documents"], 2);

    // Nothing changed: nothing rewritten.
    let again = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "update"}),
    );
    assert_eq!(again["rebuilt"], false);
    assert_eq!(again["reason"], "up_to_date");
    assert_eq!(again["fingerprint"], built["fingerprint"]);
    let status = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "status"}),
    );
    assert_eq!(status["verdict"], "INFO");
    assert_eq!(status["up_to_date"], true);

    // A document changes: stale, then rebuilt.
    std::fs::write(
        p.root.join("docs/design.md"),
        format!("{DESIGN}\nAlso `Engine.__init__`.\n"),
    )
    .unwrap();
    let stale = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "status"}),
    );
    assert_eq!(stale["verdict"], "WARN");
    assert_eq!(stale["up_to_date"], false);
    let upd = call(&p.root, "index", json!({"action": "knowledge"}));
    assert_eq!(upd["reason"], "inputs_changed");
    assert!(has_edge(
        &sidecar(&p.root),
        "documents",
        d,
        "symbol:app/core.py#Engine.__init__@14"
    ));

    // Code changes: the sync picks them up, the graph follows.
    let util = std::fs::read_to_string(p.root.join("app/util.py")).unwrap();
    std::fs::write(
        p.root.join("app/util.py"),
        format!("{util}\n\ndef fresh_one():\n    return helper()\n"),
    )
    .unwrap();
    let upd = call(&p.root, "index", json!({"action": "knowledge"}));
    assert_eq!(upd["rebuilt"], true);
    assert_eq!(upd["index_sync"]["files_indexed"], 1);
    let g = sidecar(&p.root);
    let fresh = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "fresh_one")
        .expect("new definition in the graph");
    let fresh_id = fresh["id"].as_str().unwrap();
    assert!(has_edge(
        &g,
        "calls",
        fresh_id,
        "symbol:app/util.py#helper@4"
    ));

    // Caps: exact totals, honest flags, the rest named in next_step.
    let total = upd["node_count"].as_u64().unwrap();
    let capped = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "max_nodes": 5, "max_edges": 3}),
    );
    assert_eq!(capped["reason"], "settings_changed");
    assert_eq!(capped["verdict"], "WARN");
    assert_eq!(capped["node_count"], total);
    assert_eq!(capped["nodes_stored"], 5);
    assert_eq!(capped["edges_stored"], 3);
    assert_eq!(capped["nodes_truncated"], true);
    assert!(
        capped["next_step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("showing 5 of {total} nodes"))
    );
    let g = sidecar(&p.root);
    assert_eq!(g["nodes"].as_array().unwrap().len(), 5);
    assert!(
        g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["kind"] == "module"),
        "folders first"
    );
    let no_docs = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "build", "include_docs": false}),
    );
    assert_eq!(no_docs["reason"], "forced");
    assert!(no_docs["nodes_by_kind"].get("doc").is_none(), "{no_docs}");
    assert_eq!(no_docs["docs"]["documents"], 0);

    // Bad input.
    let bad = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "rebuild"}),
    );
    assert_eq!(bad["error_type"], "validation");
    let bad = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "max_nodes": 0}),
    );
    assert_eq!(bad["error_type"], "validation");
    let bad = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "backend": "sqlite"}),
    );
    assert_eq!(bad["error_type"], "validation");

    // MCP answers the same.
    let cli_status = call(
        &p.root,
        "index",
        json!({"action": "knowledge", "mode": "status"}),
    );
    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "index",
        json!({"action": "knowledge", "mode": "status", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(stable(v), stable(cli_status));
    let (err, v) = mcp_call(
        &client,
        "index",
        json!({"action": "knowledge", "max_nodes": 0, "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(v["error_type"], "validation");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viz_knowledge_exports_graphology_and_html() {
    let p = docs_project();
    let viz = |args: Value| call(&p.root, "viz", args);
    let first = viz(json!({"action": "knowledge"}));
    assert_eq!(first["source"], "index", "no sidecar yet");
    let g = viz(json!({"action": "knowledge"}));
    assert_eq!(g["verdict"], "INFO");
    assert_eq!(g["lod"], "file");
    assert_eq!(g["options"]["type"], "directed");
    assert_eq!(g["options"]["multi"], true);
    let keys: Vec<&str> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"file:app/core.py") && keys.contains(&"doc:docs/design.md"));
    assert!(
        keys.iter()
            .all(|k| k.starts_with("file:") || k.starts_with("doc:")),
        "{keys:?}"
    );
    for n in g["nodes"].as_array().unwrap() {
        let a = &n["attributes"];
        assert!(
            a["x"].is_number() && a["y"].is_number() && a["size"].is_number(),
            "{n}"
        );
        assert!(a["label"].is_string() && a["kind"].is_string() && a["color"].is_string());
    }
    for e in g["edges"].as_array().unwrap() {
        assert!(
            keys.contains(&e["source"].as_str().unwrap())
                && keys.contains(&e["target"].as_str().unwrap())
        );
    }
    assert_eq!(g["node_count"], g["nodes_listed"]);
    assert_eq!(g["truncated"], false);
    // Calls merged per file: cli.py calls build (main, run_cli, serve, module level) and helper.
    let calls = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "calls:file:app/cli.py->file:app/core.py")
        .expect("cli.py -> core.py calls");
    assert_eq!(calls["attributes"]["weight"], 4);
    assert_eq!(g["attributes"]["node_count"], g["node_count"]);

    // With a current sidecar, that is what is read.
    call(&p.root, "index", json!({"action": "knowledge"}));
    let from_sidecar = viz(json!({"action": "knowledge"}));
    assert_eq!(from_sidecar["source"], "sidecar");
    assert_eq!(from_sidecar["nodes"], g["nodes"], "same graph either way");

    let modules = viz(json!({"action": "knowledge", "lod": "module"}));
    assert!(modules["nodes"].as_array().unwrap().iter().all(|n| {
        let k = n["key"].as_str().unwrap();
        k.starts_with("module:") || k.starts_with("doc:")
    }));
    let symbols = viz(json!({"action": "knowledge", "lod": "symbol"}));
    assert!(symbols["node_count"].as_u64() > g["node_count"].as_u64());

    // Focus: the neighbourhood, breadth first, capped with the exact total.
    let focus = viz(json!({"action": "knowledge", "focus": "app/util.py", "max_nodes": 2}));
    let nodes = focus["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["key"], "file:app/util.py");
    assert_eq!(nodes[0]["attributes"]["distance"], 0);
    assert_eq!(nodes[1]["attributes"]["distance"], 1);
    assert_eq!(focus["nodes_listed"], 2);
    assert!(focus["node_count"].as_u64().unwrap() > 2);
    assert_eq!(focus["truncated"], true);
    assert!(
        focus["next_step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("showing 2 of {} nodes", focus["node_count"]))
    );
    let sym =
        viz(json!({"action": "knowledge", "lod": "symbol", "focus": "Engine.run", "max_nodes": 4}));
    assert_eq!(sym["nodes"][0]["key"], "symbol:app/core.py#Engine.run@17");
    let by_name = viz(json!({"action": "knowledge", "focus": "TurboEngine"}));
    assert_eq!(
        by_name["nodes"][0]["key"], "file:app/core.py",
        "a definition stands for its file at lod=file"
    );
    let folder = viz(json!({"action": "knowledge", "focus": "app", "lod": "module"}));
    assert_eq!(folder["nodes"][0]["key"], "module:app");

    // Errors and misses.
    let nf = viz(json!({"action": "knowledge", "focus": "Engine.runn"}));
    assert_eq!(nf["verdict"], "NOT_FOUND");
    assert!(nf["suggestions"].to_string().contains("Engine.run"), "{nf}");
    let nf = viz(json!({"action": "knowledge", "focus": "app/nothing.py"}));
    assert_eq!(nf["verdict"], "NOT_FOUND");
    let out = viz(json!({"action": "knowledge", "focus": "../outside.py"}));
    assert_eq!(out["error_type"], "security_violation");
    let bad = viz(json!({"action": "knowledge", "export_format": "svg"}));
    assert_eq!(bad["error_type"], "validation");
    let bad = viz(json!({"action": "knowledge", "lod": "line"}));
    assert_eq!(bad["error_type"], "validation");
    let bad = viz(json!({"action": "knowledge", "output_path": "x.html"}));
    assert_eq!(bad["error_type"], "validation", "output_path needs html");
    let core = std::fs::read(p.root.join("app/core.py")).unwrap();
    let bad =
        viz(json!({"action": "knowledge", "export_format": "html", "output_path": "app/core.py"}));
    assert_eq!(bad["error_type"], "validation");
    assert_eq!(
        std::fs::read(p.root.join("app/core.py")).unwrap(),
        core,
        "never overwrites source"
    );
    let bad =
        viz(json!({"action": "knowledge", "export_format": "html", "output_path": "../page.html"}));
    assert_eq!(bad["error_type"], "security_violation");
    assert!(!p.root.parent().unwrap().join("page.html").exists());

    // The page: written inside the project, counts in the answer, not the HTML.
    let html = viz(json!({"action": "knowledge", "export_format": "html"}));
    assert_eq!(html["output_path"], ".tsa/knowledge.html");
    assert!(html.get("html").is_none());
    assert_eq!(html["nodes_drawn"], g["node_count"]);
    let text = std::fs::read_to_string(p.root.join(".tsa/knowledge.html")).unwrap();
    assert_eq!(html["html_bytes"].as_u64().unwrap() as usize, text.len());
    for needle in ["http://", "https://", "src=", "href=", "url("] {
        assert!(!text.contains(needle), "the page references {needle}");
    }
    let inline = viz(
        json!({"action": "knowledge", "export_format": "html", "output_path": "out/graph.html", "include_html": true, "max_nodes": 3}),
    );
    assert_eq!(inline["output_path"], "out/graph.html");
    assert_eq!(inline["nodes_drawn"], 3);
    assert_eq!(inline["nodes_truncated"], true);
    assert!(
        inline["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 3 of")
    );
    assert_eq!(
        inline["html"].as_str().unwrap(),
        std::fs::read_to_string(p.root.join("out/graph.html")).unwrap()
    );

    // MCP gives the same answers.
    let client = mcp((), &p.root).await;
    for args in [
        json!({"action": "knowledge", "lod": "symbol", "focus": "Engine.run", "max_nodes": 4}),
        json!({"action": "knowledge", "max_edges": 2}),
        json!({"action": "knowledge", "focus": "Engine.runn"}),
    ] {
        let cli = viz(args.clone());
        let mut with_format = args.clone();
        with_format["output_format"] = json!("json");
        let (err, v) = mcp_call(&client, "viz", with_format).await;
        assert!(!err);
        assert_eq!(v, cli, "{args}");
    }
    let (err, v) = mcp_call(
        &client,
        "viz",
        json!({"action": "knowledge", "export_format": "html", "output_path": "/etc/x.html", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(v["error_type"], "security_violation");
    client.cancel().await.unwrap();
}

/// `chromium` on PATH, if any.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `extra` flags, killed after 90 s.
/// Returns (stdout, stderr).
fn headless(chromium: &Path, profile: &Path, page: &Path, extra: &[String]) -> (String, String) {
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--window-size=1200,800",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let (out, err) = (read(Box::new(out)), read(Box::new(err)));
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish in 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    (out.join().unwrap(), err.join().unwrap())
}

/// The value of `attr` on the first `<tag ...>` of `dom`.
fn attribute(dom: &str, tag: &str, attr: &str) -> Option<String> {
    let open = dom.find(&format!("<{tag}"))?;
    let end = open + dom[open..].find('>')?;
    let head = &dom[open..end];
    let at = head.find(&format!("{attr}=\""))? + attr.len() + 2;
    let len = head[at..].find('"')?;
    Some(head[at..at + len].replace("&quot;", "\""))
}

#[test]
fn knowledge_page_draws_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        eprintln!(
            "SKIP: chromium not installed (no `chromium` on PATH; .ci/run installs Debian's `chromium` package when it can)"
        );
        return;
    };
    let p = docs_project();
    let v = call(
        &p.root,
        "viz",
        json!({"action": "knowledge", "export_format": "html", "lod": "symbol"}),
    );
    let drawn = v["nodes_drawn"].as_u64().unwrap();
    let edges = v["edges_drawn"].as_u64().unwrap();
    assert!(drawn >= 30 && edges >= 50, "{v}");
    let page = p.root.join(".tsa/knowledge.html");
    let work = tempfile::tempdir().unwrap();

    // The DOM after the page ran: every node and edge drawn, no script error, and
    // nothing written to the console (uncaught errors and CSP violations included).
    let (dom, log) = headless(
        &chromium,
        &work.path().join("profile-dom"),
        &page,
        &[
            "--enable-logging=stderr".into(),
            "--v=0".into(),
            "--dump-dom".into(),
        ],
    );
    assert_eq!(
        attribute(&dom, "body", "data-nodes-drawn").as_deref(),
        Some(drawn.to_string().as_str()),
        "DOM: {}",
        &dom[..dom.len().min(600)]
    );
    assert_eq!(
        attribute(&dom, "body", "data-edges-drawn"),
        Some(edges.to_string())
    );
    assert_eq!(
        attribute(&dom, "html", "data-errors").as_deref(),
        Some("[]")
    );
    let console: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(
        console.is_empty(),
        "console output from the page: {console:#?}"
    );

    // A screenshot: a real picture with the node colours in it.
    let shot = work.path().join("knowledge.png");
    headless(
        &chromium,
        &work.path().join("profile-shot"),
        &page,
        &[format!("--screenshot={}", shot.display())],
    );
    if let Some(keep) = std::env::var_os("TSA_KNOWLEDGE_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 800));
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let px: Vec<[u8; 3]> = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    let count = |rgb: [u8; 3]| px.iter().filter(|p| **p == rgb).count();
    let background = count([0xfb, 0xfb, 0xf8]);
    assert!(background < px.len() * 99 / 100, "more than a blank page");
    let distinct: std::collections::HashSet<[u8; 3]> = px.iter().copied().collect();
    assert!(distinct.len() > 50, "only {} colours", distinct.len());
    // Definition nodes: functions green, classes blue, documents amber (opaque fills).
    for (what, rgb) in [
        ("function", [0x59, 0xa1, 0x4f]),
        ("class", [0x4e, 0x79, 0xa7]),
        ("doc", [0xe8, 0xa3, 0x3d]),
    ] {
        assert!(count(rgb) >= 10, "no {what} node pixels in the screenshot");
    }
}

/// A `max_chars` cut drops node rows and the edges that touch them together: every
/// listed edge still joins two listed nodes (Graphology refuses anything else).
#[test]
fn viz_knowledge_budget_cut_never_leaves_dangling_edges() {
    let p = docs_project();
    let full = call(
        &p.root,
        "viz",
        json!({"action": "knowledge", "lod": "symbol"}),
    );
    let size = serde_json::to_string_pretty(&full).unwrap().chars().count();
    let mut cut_nodes = 0;
    for share in [3, 5, 7] {
        let budget = size * share / 10;
        let g = call(
            &p.root,
            "viz",
            json!({"action": "knowledge", "lod": "symbol", "max_chars": budget}),
        );
        let keys: Vec<&str> = g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["key"].as_str().unwrap())
            .collect();
        assert_eq!(g["nodes_listed"], keys.len(), "{g}");
        assert_eq!(g["node_count"], full["node_count"], "totals stay exact");
        assert_eq!(g["edge_count"], full["edge_count"], "totals stay exact");
        if keys.len() < full["nodes"].as_array().unwrap().len() {
            cut_nodes += 1;
        }
        for e in g["edges"].as_array().unwrap() {
            assert!(
                keys.contains(&e["source"].as_str().unwrap())
                    && keys.contains(&e["target"].as_str().unwrap()),
                "edge to a node left out at max_chars={budget}: {e}"
            );
        }
    }
    assert!(cut_nodes > 0, "some budget must cut node rows");
}
