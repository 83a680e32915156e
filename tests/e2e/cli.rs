//! The CLI on the fixtures: known callers, truncation, formats, resolution rules.

use serde_json::Value;

use crate::support::{assert_envelope, json, project, run};

fn names(v: &Value, list: &str) -> Vec<String> {
    v[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["qualified_name"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn callers_limit_keeps_the_four_part_truncation_shape() {
    let p = project("python");
    let (code, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "app/core.py",
            "--limit",
            "3",
        ],
    );
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "INFO");
    // Six functions and the module-level code of app/cli.py (`build("at-import")`).
    assert_eq!(v["caller_count"], 8);
    assert_eq!(v["callers_listed"], 3);
    assert_eq!(v["listed_cap"], 3);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["callers"].as_array().unwrap().len(), 3);
    let step = v["next_step"].as_str().unwrap();
    assert!(
        step.starts_with("showing 3 of 8 callers — raise limit"),
        "{step}"
    );
    assert_eq!(v["agent_summary"]["next_step"], v["next_step"]);
    assert_eq!(v["unattributed_call_sites"], 1);
    assert!(v["callers"][0]["body"].as_str().unwrap().contains("build"));
}

#[test]
fn callers_are_exactly_the_known_ones() {
    let p = project("python");
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "app/core.py",
        ],
    );
    assert_eq!(v["truncated"], false);
    let mut got = names(&v, "callers");
    got.sort();
    assert_eq!(
        got,
        [
            "Engine.run",
            "app/cli.py:<module>",
            "legacy",
            "main",
            "nightly",
            "run_cli",
            "serve",
            "weekly"
        ]
    );
    let by_name = |n: &str| {
        v["callers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["qualified_name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("Engine.run")["callee_resolution"], "local");
    assert_eq!(by_name("nightly")["callee_resolution"], "project");
    assert_eq!(by_name("weekly")["callee_resolution"], "project");
    assert_eq!(by_name("legacy")["confidence"], 0.5);
}

#[test]
fn production_callers_never_bind_to_test_only_or_other_language_definitions() {
    let p = project("python");
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "tests/test_core.py",
        ],
    );
    assert_eq!(names(&v, "callers"), ["test_build"]);
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "native/src/lib.rs",
        ],
    );
    assert_eq!(v["caller_count"], 0);
    // `pub fn build` of a library crate is public API: callers outside the project
    // may exist, so "no caller" is INFO, never NOT_FOUND.
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["public_api"], true);
    assert_eq!(v["completeness"], "complete");
    // Unqualified: three definitions share the name; every edge stays in its language.
    let (_, v) = json(&p.root, &["nav", "callers", "--function-name", "build"]);
    assert_eq!(v["ambiguous"], true);
    assert_eq!(v["candidate_count"], 3);
    for row in v["callers"].as_array().unwrap() {
        assert_eq!(row["language"], "python");
        assert_ne!(row["callee_resolved_file"], "native/src/lib.rs");
    }
}

#[test]
fn callees_class_each_call() {
    let p = project("python");
    let (_, v) = json(
        &p.root,
        &["nav", "callees", "--function-name", "Engine.run"],
    );
    assert_envelope(&v);
    let rows = v["callees"].as_array().unwrap();
    let find = |n: &str| {
        rows.iter()
            .find(|r| r["name"] == n)
            .unwrap_or_else(|| panic!("{n} in {rows:?}"))
    };
    assert_eq!(find("step")["callee_resolution"], "local");
    assert_eq!(find("build")["callee_resolution"], "local");
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callees",
            "--function-name",
            "build",
            "--file-path",
            "app/core.py",
        ],
    );
    let rows = v["callees"].as_array().unwrap();
    let class =
        |n: &str| rows.iter().find(|r| r["name"] == n).unwrap()["callee_resolution"].clone();
    assert_eq!(class("dumps"), "stdlib");
    assert_eq!(class("len"), "builtin");
    let (_, v) = json(&p.root, &["nav", "callees", "--function-name", "main"]);
    let rows = v["callees"].as_array().unwrap();
    let helper = rows.iter().find(|r| r["name"] == "helper").unwrap();
    assert_eq!(helper["callee_resolved_file"], "app/util.py");
}

#[test]
fn rust_resolution_follows_use_paths_self_and_test_modules() {
    let p = project("rust");
    let (_, v) = json(&p.root, &["nav", "callers", "--function-name", "open"]);
    let mut got = names(&v, "callers");
    got.sort();
    assert_eq!(
        got,
        ["Engine::new", "Engine::reload", "restart", "start", "warm"]
    );
    let (_, v) = json(
        &p.root,
        &["nav", "callers", "--function-name", "Engine::step"],
    );
    assert_eq!(names(&v, "callers"), ["Engine::run"]);
    // The production `helper()` in lib.rs binds to the production helper only.
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "helper",
            "--file-path",
            "src/lib.rs",
        ],
    );
    assert_eq!(v["ambiguous"], true);
    for row in v["callers"].as_array().unwrap() {
        let caller = row["qualified_name"].as_str().unwrap();
        let line = row["line"].as_u64().unwrap();
        // start() calls the production helper (line 19); tests::starts calls tests::helper.
        assert!(caller == "start" || caller == "tests::starts", "{caller}");
        let _ = line;
    }
    let (_, v) = json(&p.root, &["nav", "callees", "--function-name", "start"]);
    let helper = v["callees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "helper")
        .unwrap()
        .clone();
    assert_eq!(helper["definition_line"], 19);
    let (_, v) = json(&p.root, &["nav", "callees", "--function-name", "starts"]);
    let helper = v["callees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "helper")
        .unwrap()
        .clone();
    assert_eq!(helper["qualified_name"], "tests::helper");
}

#[test]
fn unknown_symbol_is_not_found_with_suggestions() {
    let p = project("python");
    let (code, v) = json(&p.root, &["nav", "callers", "--function-name", "bulid"]);
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert!(
        v.get("callers").is_none(),
        "never answered for another symbol"
    );
    assert!(
        v["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "build")
    );
}

#[test]
fn search_symbol_ranks_with_normalised_bm25() {
    let p = project("python");
    let (_, v) = json(&p.root, &["search", "symbol", "--query", "build"]);
    assert_envelope(&v);
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert_eq!(results[0]["relevance_score"], 1.0);
    assert_eq!(results[0]["name"], "build");
    // Production definitions rank before the test helper.
    let files: Vec<&str> = results
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files.last().copied(),
        Some("tests/test_core.py"),
        "{files:?}"
    );
    assert!(
        results
            .iter()
            .all(|r| (0.0..=1.0).contains(&r["relevance_score"].as_f64().unwrap()))
    );
    let (_, v) = json(
        &p.root,
        &["search", "symbol", "--query", "build", "--limit", "1"],
    );
    assert_eq!(v["count"], 1);
    // build x3 and test_build (identifiers are split into words).
    assert_eq!(v["total_matches"], 4);
    assert_eq!(v["truncated"], true);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 1 of 4 matches")
    );
}

#[test]
fn index_full_is_incremental_by_content_hash() {
    let p = project("python");
    let (_, v) = json(&p.root, &["index", "full", "--mode", "full"]);
    assert_envelope(&v);
    let total = v["phases"]["total_files"].as_u64().unwrap();
    assert_eq!(v["phases"]["files_indexed"].as_u64().unwrap(), total);
    let (_, v) = json(&p.root, &["index", "full"]);
    assert_eq!(v["phases"]["files_indexed"], 0);
    assert_eq!(v["phases"]["files_cached"].as_u64().unwrap(), total);
    // Touch without change: mtime differs, hash equal -> cached.
    let util = p.root.join("app/util.py");
    let text = std::fs::read(&util).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&util, &text).unwrap();
    let (_, v) = json(&p.root, &["index", "full"]);
    assert_eq!(v["phases"]["files_indexed"], 0);
    // A real change re-parses that file only, and a deleted file's rows go.
    std::fs::write(&util, "def helper():\n    return 1\n").unwrap();
    std::fs::remove_file(p.root.join("app/orphan.py")).unwrap();
    let (_, v) = json(&p.root, &["index", "full"]);
    assert_eq!(v["phases"]["files_indexed"], 1);
    assert_eq!(v["phases"]["files_deleted"], 1);
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "app/core.py",
        ],
    );
    assert_eq!(v["caller_count"], 7, "legacy() went with orphan.py");
    let (_, v) = json(&p.root, &["index", "status"]);
    assert_envelope(&v);
    assert_eq!(v["up_to_date"], true);
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["files_by_language"]["rust"], 1);
}

#[test]
fn index_status_reports_staleness_and_parse_errors() {
    let p = project("python");
    let (_, v) = json(&p.root, &["index", "status"]);
    assert_eq!(v["verdict"], "NOT_FOUND");
    json(&p.root, &["index", "full"]);
    std::fs::write(
        p.root.join("app/broken.py"),
        "def ok():\n    pass\n\ndef broken(:\n",
    )
    .unwrap();
    let (_, v) = json(&p.root, &["index", "status"]);
    assert_eq!(v["verdict"], "WARN");
    assert_eq!(v["pending_changes"]["new"], 1);
    json(&p.root, &["index", "full"]);
    let (_, v) = json(&p.root, &["index", "status"]);
    assert_eq!(v["parse_error_file_count"], 1);
    assert_eq!(v["parse_error_files"][0]["file"], "app/broken.py");
    let (_, v) = json(&p.root, &["search", "symbol", "--query", "ok"]);
    assert_eq!(
        v["results"][0]["file"], "app/broken.py",
        "a file with parse errors is still indexed"
    );
}

#[test]
fn toon_output_decodes_to_the_json_payload() {
    let p = project("python");
    let args = [
        "nav",
        "callers",
        "--function-name",
        "build",
        "--file-path",
        "app/core.py",
        "--limit",
        "3",
    ];
    json(&p.root, &["index", "full"]);
    let (_, as_json) = json(&p.root, &args);
    let (code, toon, _) = run(&p.root, &[&args[..], &["--format", "toon"]].concat());
    assert_eq!(code, 0);
    let decoded = tsa_format::from_toon(toon.trim_end()).unwrap();
    assert_eq!(decoded, as_json);
}

#[test]
fn cli_and_in_process_dispatch_agree() {
    let p = project("python");
    json(&p.root, &["index", "full"]);
    let (_, cli) = json(
        &p.root,
        &["search", "symbol", "--query", "engine", "--limit", "2"],
    );
    let mut ctx = tsa_tools::Context::with_root(&p.root).unwrap();
    let reply = tsa_tools::call(
        &mut ctx,
        "search",
        serde_json::json!({"action": "symbol", "query": "engine", "limit": 2, "output_format": "json"}),
        tsa_tools::OutputFormat::Toon,
    );
    assert_eq!(Value::Object(reply.body), cli);
}

#[test]
fn crlf_and_non_utf8_files_are_stable_across_syncs() {
    let p = project("python");
    std::fs::write(
        p.root.join("app/crlf.py"),
        "def windows():\r\n    return helper()\r\n\r\ndef helper():\r\n    return 1\r\n",
    )
    .unwrap();
    std::fs::write(
        p.root.join("app/latin1.py"),
        b"# caf\xe9\ndef latin():\n    return 1\n",
    )
    .unwrap();
    let (_, v) = json(&p.root, &["index", "full"]);
    assert_eq!(v["success"], true, "{v}");
    // Rewrite both with identical bytes: the mtime changes, the raw-bytes hash does not.
    std::thread::sleep(std::time::Duration::from_millis(30));
    for f in ["app/crlf.py", "app/latin1.py"] {
        let bytes = std::fs::read(p.root.join(f)).unwrap();
        std::fs::write(p.root.join(f), bytes).unwrap();
    }
    let (_, v) = json(&p.root, &["index", "full"]);
    assert_eq!(
        v["phases"]["files_indexed"], 0,
        "CRLF / non-UTF-8 files look unchanged: {v}"
    );
    let (_, v) = json(&p.root, &["index", "status"]);
    assert_eq!(v["up_to_date"], true);
    // Lines are right in a CRLF file, and its calls resolve.
    let (_, v) = json(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "helper",
            "--file-path",
            "app/crlf.py",
        ],
    );
    assert_eq!(v["callers"][0]["qualified_name"], "windows");
    assert_eq!(v["callers"][0]["line"], 2);
    let (_, v) = json(&p.root, &["search", "symbol", "--query", "latin"]);
    assert_eq!(v["results"][0]["file"], "app/latin1.py");
}

#[test]
fn incremental_sync_equals_a_cold_build_after_edits_and_deletes() {
    let p = project("python");
    json(&p.root, &["index", "full"]);
    std::fs::remove_file(p.root.join("app/jobs.py")).unwrap();
    std::fs::write(
        p.root.join("app/util.py"),
        "from .core import Engine\n\n\ndef helper():\n    return Engine('x').run()\n",
    )
    .unwrap();
    std::fs::write(p.root.join("app/extra.py"), "from app.util import helper\n\n\nclass Extra(Exception):\n    def go(self):\n        return helper()\n").unwrap();
    let (_, incremental) = json(&p.root, &["index", "full"]);
    assert_eq!(incremental["phases"]["files_deleted"], 1);
    let (_, after_incremental) = json(&p.root, &["index", "status", "--include-lag", "false"]);
    let (_, cold) = json(&p.root, &["index", "full", "--mode", "full"]);
    assert_eq!(cold["success"], true);
    let (_, after_cold) = json(&p.root, &["index", "status", "--include-lag", "false"]);
    for key in [
        "files",
        "symbols",
        "call_edges",
        "imports",
        "symbols_by_kind",
        "calls_by_resolution",
        "edges_by_kind",
        "edges_by_resolution",
    ] {
        assert!(!after_cold[key].is_null(), "index status reports {key}");
        assert_eq!(after_incremental[key], after_cold[key], "{key}");
    }
    // TurboEngine(Engine) and Extra(Exception): a project base and a builtin one.
    assert_eq!(after_cold["edges_by_kind"]["extends"], 2, "{after_cold}");
    assert_eq!(
        after_cold["edges_by_resolution"]["extends"]["local"], 1,
        "{after_cold}"
    );
}

#[test]
fn progress_bar_shows_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for i in 0..400 {
        let body: String = (0..20)
            .map(|f| format!("def f{f}_{i}():\n    return len('x')\n\n"))
            .collect();
        std::fs::write(root.join(format!("m{i}.py")), body).unwrap();
    }
    // Piped: stdout is JSON only, stderr stays empty.
    let (code, out, err) = run(&root, &["index", "full", "--mode", "full"]);
    assert_eq!(code, 0);
    assert!(out.trim_start().starts_with('{'));
    assert!(
        err.is_empty(),
        "stderr must stay quiet off a terminal: {err}"
    );
    // On a pseudo-terminal (util-linux `script`), the bar appears with files/s.
    let cmd = format!(
        "{} --project-root {} index full --mode full",
        crate::support::bin(),
        root.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("util-linux `script` runs the CLI on a pseudo-terminal");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("files (") && screen.contains("/s"),
        "no progress bar on a terminal: {screen}"
    );
}

/// Every call site's binding, as (file, line, callee, target, resolution).
fn bindings(root: &std::path::Path) -> Vec<(String, u32, String, String, String)> {
    let index = tsa_index::Index::open(root).unwrap().unwrap();
    let mut out = Vec::new();
    for f in index.files().unwrap() {
        for c in index.calls_in_file(&f).unwrap() {
            let target = c
                .target
                .map(|t| format!("{}:{}", t.file, t.qualname))
                .unwrap_or_default();
            out.push((
                f.clone(),
                c.line,
                c.callee_name,
                target,
                c.resolution.as_str().to_owned(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn scoped_re_resolution_after_edits_equals_a_cold_build() {
    for fixture in [
        "python",
        "rust",
        "typescript",
        "java",
        "py_srclayout",
        "go_module",
        "rust_workspace",
        "js_packages",
    ] {
        let p = project(fixture);
        json(&p.root, &["index", "full"]);
        // Edit every source file in place (no file added or removed): rename the
        // first definition of each, and add a definition named like a common callee.
        let index = tsa_index::Index::open(&p.root).unwrap().unwrap();
        let files = index.files().unwrap();
        drop(index);
        for (n, f) in files.iter().enumerate() {
            let path = p.root.join(f);
            let text = std::fs::read_to_string(&path).unwrap();
            let edited = match n % 3 {
                0 => text.replacen("build", "rebuilt", 1),
                1 => text.replacen("open", "opened", 1),
                _ => text.replacen("helper", "assist", 1),
            };
            std::fs::write(&path, edited).unwrap();
        }
        let (_, v) = json(&p.root, &["index", "full"]);
        assert_eq!(v["success"], true, "{v}");
        let incremental = bindings(&p.root);
        json(&p.root, &["index", "full", "--mode", "full"]);
        let cold = bindings(&p.root);
        assert_eq!(
            incremental, cold,
            "{fixture}: scoped re-resolution differs from a cold build"
        );
    }
}

#[test]
fn walk_skips_ignored_hidden_vendored_and_large_files_by_default() {
    let p = project("python");
    // `.gitignore` applies inside a git work tree, as git applies it.
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&p.root)
        .status()
        .unwrap();
    assert!(git.success());
    std::fs::write(p.root.join(".gitignore"), "generated/\n").unwrap();
    std::fs::write(p.root.join(".tsaignore"), "app/orphan.py\n").unwrap();
    for dir in ["generated", ".hidden", "node_modules/pkg", "vendor"] {
        std::fs::create_dir_all(p.root.join(dir)).unwrap();
        std::fs::write(
            p.root.join(dir).join("x.py"),
            "def skipped_here():\n    pass\n",
        )
        .unwrap();
    }
    let big: String = (0..40_000).map(|i| format!("def f{i}(): pass\n")).collect();
    std::fs::write(p.root.join("app/big.py"), big).unwrap();
    let (_, v) = json(&p.root, &["index", "full", "--max-file-size", "100000"]);
    assert_eq!(v["phases"]["skipped_too_large"], 1, "{v}");
    let (_, s) = json(&p.root, &["search", "symbol", "--query", "skipped_here"]);
    assert_eq!(s["verdict"], "NOT_FOUND", "{s}");
    let (_, s) = json(&p.root, &["search", "symbol", "--query", "legacy"]);
    assert_eq!(s["verdict"], "NOT_FOUND", ".tsaignore applies: {s}");
    // Configurable: hidden folders and .gitignore'd files on request.
    json(
        &p.root,
        &[
            "index",
            "full",
            "--mode",
            "full",
            "--include-hidden",
            "--no-ignore",
        ],
    );
    let (_, s) = json(&p.root, &["search", "symbol", "--query", "skipped_here"]);
    let files: Vec<&str> = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&".hidden/x.py") && files.contains(&"generated/x.py"),
        "{files:?}"
    );
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("node_modules") || f.starts_with("vendor")),
        "{files:?}"
    );
}

#[test]
fn gitignore_applies_only_in_a_git_work_tree_and_every_skip_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("tree");
    for f in ["kernel/fork.c", "mm/slab.c", "lib/sort.py"] {
        let path = root.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "int f(void) { return 0; }\n").unwrap();
    }
    // Debian's kernel tree ships a `.gitignore` ending in `/*` but is no git
    // repository: git (and so tsa) does not apply it there.
    std::fs::write(root.join(".gitignore"), "*.o\n/*\n").unwrap();
    let (code, v) = json(&root, &["index", "full"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["phases"]["total_files"], 3, "{v}");
    assert_eq!(v["phases"]["skipped_ignored"], 0, "{v}");
    // Asked for, `.gitignore` applies outside a work tree too, and the answer says
    // what it left out and by which rule.
    let (code, v) = json(
        &root,
        &[
            "index",
            "full",
            "--mode",
            "full",
            "--gitignore-outside-git",
            "true",
            "--max-files",
            "5",
        ],
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error_type"], "empty_project", "{v}");
    std::fs::write(root.join("keep.c"), "int keep(void) { return 1; }\n").unwrap();
    std::fs::write(root.join(".gitignore"), "*.o\n/*\n!/keep.c\n").unwrap();
    let (code, v) = json(
        &root,
        &[
            "index",
            "full",
            "--mode",
            "full",
            "--gitignore-outside-git",
            "true",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["phases"]["total_files"], 1, "{v}");
    assert_eq!(v["phases"]["skipped_ignored"], 3, "{v}");
    assert_eq!(v["ignore_rules"][0]["pattern"], "/*", "{v}");
    assert_eq!(v["ignore_rules"][0]["file"], ".gitignore", "{v}");
    assert_eq!(v["ignore_rules"][0]["files"], 3, "{v}");
    std::fs::remove_file(root.join("keep.c")).unwrap();
    // `.ignore` applies everywhere; when it leaves nothing, the error says what the
    // walk left out and the rule that did it.
    std::fs::write(root.join(".ignore"), "/*\n").unwrap();
    let (code, v) = json(&root, &["index", "full", "--mode", "full"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error_type"], "empty_project", "{v}");
    let error = v["error"].as_str().unwrap();
    for part in [
        "python",
        "c",
        "3 by ignore rules",
        "`/*` in .ignore: 3 file(s)",
        "no_ignore=true",
    ] {
        assert!(error.contains(part), "{part}: {error}");
    }
    assert!(!error.contains("(Python, Rust)"), "{error}");
}

#[test]
fn a_bare_call_in_a_js_method_is_not_this_method() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(
        root.join("view.js"),
        "function render() {\n  return 1;\n}\n\nclass View {\n  render() {\n    return render();\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Shape.java"),
        "class Shape {\n  int area() {\n    return size();\n  }\n  int size() {\n    return 1;\n  }\n}\n",
    )
    .unwrap();
    let (_, v) = json(&root, &["nav", "callees", "--function-name", "View.render"]);
    assert_eq!(v["callees"][0]["qualified_name"], "render", "{v}");
    assert_eq!(v["callees"][0]["definition_line"], 1);
    // Java: a bare call in a method is an implicit this-call.
    let (_, v) = json(&root, &["nav", "callees", "--function-name", "Shape.area"]);
    assert_eq!(v["callees"][0]["qualified_name"], "Shape.size", "{v}");
}
