//! `project` actions over the CLI and MCP.

use serde_json::{Value, json};

use crate::support::{assert_envelope, cli_words, json as cli_json, mcp, mcp_call, project};

fn cli(root: &std::path::Path, args: Value) -> Value {
    let words = cli_words("project", &args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_envelope(&v);
    assert_eq!(code != 0, v["success"] == false);
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journal_records_searches_and_supersedes_decisions() {
    let p = project("python");
    let empty = cli(&p.root, json!({"action": "journal"}));
    assert_eq!(empty["verdict"], "NOT_FOUND");
    let a = cli(
        &p.root,
        json!({"action": "journal", "mode": "record", "title": "Keep build() pure", "rationale": "callers cache its result",
               "verdict": "caution", "scope_paths": ["app/core.py"], "related_symbols": ["build"], "tags": ["perf"]}),
    );
    assert_eq!(a["entry"]["id"], "D-0001");
    assert_eq!(a["entry"]["verdict"], "CAUTION");
    let b = cli(
        &p.root,
        json!({"action": "journal", "mode": "record", "id": "D-0002", "title": "build() may log", "rationale": "ops asked", "scope_paths": ["app"]}),
    );
    assert_eq!(b["entry"]["status"], "active");
    // Persisted: a new process sees both.
    let all = cli(
        &p.root,
        json!({"action": "journal", "mode": "search", "limit": 1}),
    );
    assert_eq!(all["match_count"], 2);
    assert_eq!(all["entries_listed"], 1);
    assert_eq!(all["truncated"], true);
    assert_eq!(all["entries"][0]["id"], "D-0002", "newest first");
    let q = cli(&p.root, json!({"action": "journal", "query": "PURE cache"}));
    assert_eq!(q["match_count"], 1);
    let scoped = cli(
        &p.root,
        json!({"action": "journal", "path_scope": "app/core.py"}),
    );
    assert_eq!(scoped["match_count"], 2, "app contains app/core.py");
    let by_verdict = cli(
        &p.root,
        json!({"action": "journal", "verdict_filter": "CAUTION"}),
    );
    assert_eq!(by_verdict["match_count"], 1);

    let sup = cli(
        &p.root,
        json!({"action": "journal", "mode": "supersede", "id": "D-0001", "new_id": "D-0002"}),
    );
    assert_eq!(sup["entry"]["status"], "superseded");
    assert_eq!(sup["entry"]["superseded_by"], "D-0002");

    // Errors and misses.
    let dup = cli(
        &p.root,
        json!({"action": "journal", "mode": "record", "id": "D-0002", "title": "x", "rationale": "y"}),
    );
    assert_eq!(dup["error_type"], "validation");
    let bad = cli(
        &p.root,
        json!({"action": "journal", "mode": "record", "title": "x", "rationale": "y", "verdict": "ERROR"}),
    );
    assert_eq!(bad["error_type"], "validation");
    let outside = cli(
        &p.root,
        json!({"action": "journal", "mode": "record", "title": "x", "rationale": "y", "scope_paths": ["../etc"]}),
    );
    assert_eq!(outside["error_type"], "security_violation");

    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "journal", "mode": "get", "id": "D-0001", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["entry"]["superseded_by"], "D-0002");
    let (_, v) = mcp_call(
        &client,
        "project",
        json!({"action": "journal", "mode": "get", "id": "D-9999", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "NOT_FOUND");
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "journal", "mode": "search", "limit": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["truncated"], true);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doc_sync_finds_references_the_code_no_longer_has() {
    let p = project("tricky");
    std::fs::write(
        p.root.join("GUIDE.md"),
        "# Guide\n\
         Call `jsonify()` from [the json module](webapp/json/__init__.py) or see `webapp/views.py`.\n\
         `vanished_function()` was removed; `webapp/gone.py` too; see [old notes](docs/missing.md#top).\n\
         `Dog.speak` works, `Dog.bark` never did. [site](https://example.org/x) and `cargo test` are fine.\n\
         ```\nmissing_in_fence()\n```\n",
    )
    .unwrap();
    let v = cli(&p.root, json!({"action": "doc_sync"}));
    assert_eq!(v["verdict"], "CAUTION", "{v}");
    let refs: Vec<&str> = v["stale_references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reference"].as_str().unwrap())
        .collect();
    assert_eq!(
        refs,
        [
            "docs/missing.md",
            "webapp/gone.py",
            "vanished_function()",
            "Dog.bark"
        ],
        "{v}"
    );
    assert_eq!(v["stale_references"][0]["line"], 3);
    let capped = cli(&p.root, json!({"action": "doc_sync", "limit": 2}));
    assert_eq!(capped["stale_count"], 4);
    assert_eq!(capped["truncated"], true);
    let clean = cli(
        &p.root,
        json!({"action": "doc_sync", "doc_patterns": ["nothing/**/*.md"]}),
    );
    assert_eq!(clean["verdict"], "INFO");
    let bad = cli(
        &p.root,
        json!({"action": "doc_sync", "doc_patterns": ["a[.md"]}),
    );
    assert_eq!(bad["error_type"], "validation");

    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "doc_sync", "limit": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["stale_count"], 4);
    assert_eq!(v["stale_listed"], 1);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_lists_fd_style_with_honest_caps() {
    let p = project("python");
    let all = cli(&p.root, json!({"action": "files", "extensions": ["py"]}));
    let total = all["count"].as_u64().unwrap();
    assert!(total >= 7, "{all}");
    assert!(
        all["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f.as_str().unwrap().ends_with(".py"))
    );
    let capped = cli(
        &p.root,
        json!({"action": "files", "extensions": ["py"], "limit": 2}),
    );
    assert_eq!(capped["count"], total);
    assert_eq!(capped["files_listed"], 2);
    assert_eq!(capped["truncated"], true);
    let pat = cli(
        &p.root,
        json!({"action": "files", "pattern": "^core\\.py$"}),
    );
    assert_eq!(pat["files"], json!(["app/core.py"]));
    let glob = cli(
        &p.root,
        json!({"action": "files", "pattern": "app/*.py", "glob": true, "full_path_match": true, "count_only": true}),
    );
    assert!(glob["count"].as_u64().unwrap() >= 5);
    assert!(glob.get("files").is_none());
    let none = cli(
        &p.root,
        json!({"action": "files", "pattern": "^nothing_here$"}),
    );
    assert_eq!(none["verdict"], "NOT_FOUND");
    let bad = cli(&p.root, json!({"action": "files", "pattern": "(unclosed"}));
    assert_eq!(bad["error_type"], "validation");
    let outside = cli(&p.root, json!({"action": "files", "roots": ["../"]}));
    assert_eq!(outside["error_type"], "security_violation");

    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "files", "limit": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["truncated"], true);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parser_and_tools_report_what_this_build_has() {
    let p = project("python");
    let (code, _) = cli_json(&p.root, &["index", "full", "--output-format", "json"]);
    assert_eq!(code, 0);
    let py = cli(&p.root, json!({"action": "parser", "language": "Python"}));
    assert_eq!(py["ready"], true);
    assert_eq!(py["tier"], "full");
    assert!(py["project_files"].as_u64().unwrap() >= 7);
    let md = cli(
        &p.root,
        json!({"action": "parser", "language": "markdown", "include_supported": true}),
    );
    assert_eq!(md["tier"], "structure");
    assert_eq!(md["capabilities"]["indexed"], false);
    // Every language of this build, listed in full (no count to edit per new language).
    let listed = md["supported"].as_array().map_or(0, Vec::len) as u64;
    assert!(listed >= 23, "{md}");
    assert_eq!(md["supported_count"].as_u64(), Some(listed));
    let all = cli(&p.root, json!({"action": "parser"}));
    assert_eq!(
        all["not_ready"],
        json!([]),
        "every grammar loads and every query compiles"
    );
    let missing = cli(&p.root, json!({"action": "parser", "language": "pyton"}));
    assert_eq!(missing["verdict"], "NOT_FOUND");
    assert_eq!(missing["suggestions"], json!(["python"]));

    let client = mcp((), &p.root).await;
    let (err, t) = mcp_call(
        &client,
        "project",
        json!({"action": "tools", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(t["external_tools_needed"], false);
    assert_eq!(t["tools"]["ripgrep"]["available"], true);
    assert!(
        t["tools"]["sqlite"]["how"]
            .as_str()
            .unwrap()
            .contains("FTS5")
    );
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "tools", "verbose": true}),
    )
    .await;
    assert!(err);
    assert_eq!(v["error_type"], "validation");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overview_summarises_the_project() {
    let p = project("python");
    let v = cli(
        &p.root,
        json!({"action": "overview", "include_health": true}),
    );
    assert_eq!(v["verdict"], "INFO");
    assert!(v["files_by_language"]["python"].as_u64().unwrap() >= 7);
    let folders: Vec<&str> = v["structure"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["folder"].as_str().unwrap())
        .collect();
    assert!(folders.contains(&"app"), "{v}");
    assert!(
        v["entry_points"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "main"),
        "{v}"
    );
    let grades: u64 = v["grade_distribution"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(grades >= 7);
    let shallow = cli(&p.root, json!({"action": "overview", "max_depth": 1}));
    assert!(
        shallow["structure"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| !f["folder"].as_str().unwrap().contains('/'))
    );
    let bad = cli(&p.root, json!({"action": "overview", "max_depth": 0}));
    assert_eq!(bad["error_type"], "validation");
    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "overview", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert!(v["call_graph"]["call_edges"].as_u64().unwrap() > 0);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smart_orients_in_one_call_with_the_numbers_of_health_and_edit_safe() {
    let p = project("python");
    let v = cli(
        &p.root,
        json!({"action": "smart", "file_path": "app/core.py"}),
    );
    let safe = cli_words(
        "edit",
        &json!({"action": "safe", "file_path": "app/core.py"}),
    );
    let safe: Vec<&str> = safe.iter().map(String::as_str).collect();
    let (_, safe) = cli_json(&p.root, &safe);
    assert_eq!(v["verdict"], safe["verdict"]);
    assert_eq!(v["edit_risk"]["downstream_count"], safe["downstream_count"]);
    assert_eq!(
        v["verification_command"],
        safe["agent_summary"]["verification_command"]
    );
    assert_eq!(v["health"]["grade"], safe["health_grade"]);
    let exports: Vec<&str> = v["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(
        exports.contains(&"build") && exports.contains(&"Engine"),
        "{v}"
    );
    assert!(v["dependent_count"].as_u64().unwrap() >= 1);
    let capped = cli(
        &p.root,
        json!({"action": "smart", "file_path": "app/core.py", "limit": 1}),
    );
    assert_eq!(capped["exports_listed"], 1);
    assert_eq!(capped["truncated"], true);
    let missing = cli(
        &p.root,
        json!({"action": "smart", "file_path": "app/nope.py"}),
    );
    assert_eq!(missing["error_type"], "file_not_found");
    let client = mcp((), &p.root).await;
    let (err, m) = mcp_call(
        &client,
        "project",
        json!({"action": "smart", "file_path": "app/core.py", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(m["export_count"], v["export_count"]);
    client.cancel().await.unwrap();
}
