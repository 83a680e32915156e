//! `edit verify` end to end on a real Cargo project in a git repository: `edit
//! impact` binds a `verification_request`; verify re-derives the plan, runs `cargo
//! test` (SAFE when green, UNSAFE when red), refuses a request whose plan changed
//! or that was tampered with, and on timeout kills the whole process tree (a test
//! here spawns a child that leaves the process group; it must be gone after).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::edit_git::{init, write};
use crate::support::{all_gone, assert_envelope, bin, empty_project, mcp, mcp_call};

fn edit(root: &Path, args: &[&str]) -> Value {
    let out = Command::new(bin())
        .arg("edit")
        .args(args)
        .args(["--output-format", "json", "--project-root"])
        .arg(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        // The fixture's cargo builds into its own target folder.
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_envelope(&v);
    assert_eq!(out.status.success(), v["success"] == true, "{v}");
    v
}

fn request(root: &Path) -> String {
    let v = edit(root, &["impact"]);
    assert_eq!(v["success"], true, "{v}");
    v["verification_request"]
        .as_str()
        .unwrap_or_else(|| panic!("no verification_request: {v}"))
        .to_owned()
}

fn verify(root: &Path, req: &str) -> Value {
    edit(root, &["verify", "--request", req])
}

fn cargo_project() -> crate::support::Project {
    let p = empty_project();
    write(
        &p.root,
        "Cargo.toml",
        "[package]\nname = \"vfx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    write(
        &p.root,
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    write(
        &p.root,
        "tests/add.rs",
        "use vfx::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n",
    );
    write(
        &p.root,
        ".gitignore",
        "/target\n/.tsa\n/Cargo.lock\npids.txt\n",
    );
    init(&p.root);
    p
}

/// The request with its `timeout` replaced (a caller may shorten the run; nothing
/// it can change is executed).
fn with_timeout(req: &str, secs: u64) -> String {
    use base64::Engine;
    let e = base64::engine::general_purpose::URL_SAFE;
    let mut v: Value = serde_json::from_slice(&e.decode(req).unwrap()).unwrap();
    v["timeout"] = json!(secs);
    e.encode(v.to_string())
}

#[test]
fn green_red_changed_and_tampered() {
    let p = cargo_project();
    write(
        &p.root,
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n",
    );
    let req = request(&p.root);
    let v = verify(&p.root, &req);
    assert_eq!(v["verdict"], "SAFE", "{v}");
    assert_eq!(v["status"], "passed");
    let step = &v["executed_steps"][0];
    assert_eq!(step["argv"][0], "cargo", "{v}");
    assert!(
        step["output"]
            .as_str()
            .unwrap()
            .contains("test adds ... ok"),
        "{v}"
    );
    assert_eq!(step["cleanup_complete"], true);
    // Red: the same plan, a failing test: an answer, not a tool error.
    write(
        &p.root,
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    );
    let v = verify(&p.root, &req);
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "UNSAFE", "{v}");
    assert_eq!(v["status"], "failed");
    assert_eq!(v["first_failed_step"], 0);
    // Another changed file: the plan the request bound is not the one that would run.
    write(&p.root, "src/extra.rs", "pub fn extra() {}\n");
    let v = verify(&p.root, &req);
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_code"], "VERIFICATION_PLAN_CHANGED");
    assert_eq!(v["error_type"], "validation");
    // A request that is not one.
    let v = verify(&p.root, "bm90IGEgcmVxdWVzdA==");
    assert_eq!(v["error_code"], "VERIFICATION_REQUEST_INVALID", "{v}");
    let v = verify(&p.root, &with_timeout(&req, 0));
    assert_eq!(v["error_code"], "VERIFICATION_REQUEST_INVALID", "{v}");
}

/// The cargo project whose one test starts two `sleep 300` children (one leaving
/// the process group), writes their pids to `pids.txt` and sleeps: committed, with
/// a change to verify.
fn slow_project() -> (crate::support::Project, std::path::PathBuf) {
    let p = cargo_project();
    let pids = p.root.join("pids.txt");
    write(
        &p.root,
        "tests/add.rs",
        &format!(
            "use vfx::add;\n\n#[test]\nfn adds() {{\n    std::process::Command::new(\"sh\").args([\"-c\", \"setsid sleep 300 & echo $! >> {p}; sleep 300 & echo $! >> {p}\"]).status().unwrap();\n    std::thread::sleep(std::time::Duration::from_secs(300));\n    assert_eq!(add(2, 2), 4);\n}}\n",
            p = pids.display()
        ),
    );
    let repo = git2::Repository::open(&p.root).unwrap();
    let mut idx = repo.index().unwrap();
    idx.add_path(Path::new("tests/add.rs")).unwrap();
    idx.write().unwrap();
    let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "slow test", &tree, &[&head])
        .unwrap();
    write(
        &p.root,
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n",
    );
    (p, pids)
}

#[cfg(target_os = "linux")]
#[test]
fn a_timeout_kills_every_process_of_the_run() {
    let (p, pids) = slow_project();
    let req = with_timeout(&request(&p.root), 20);
    let v = verify(&p.root, &req);
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["status"], "timeout", "{v}");
    assert_eq!(v["verdict"], "WARN");
    assert_eq!(v["executed_steps"][0]["cleanup_complete"], true);
    let text = std::fs::read_to_string(&pids).unwrap_or_default();
    assert_eq!(
        text.split_whitespace().count(),
        2,
        "the test started its children: {v}"
    );
    assert!(all_gone(&pids), "a process was left behind: {text}");
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_verify_kills_its_tree_and_reported_its_step() {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    let (p, pids) = slow_project();
    let handler = crate::support::ProgressClient::default();
    let client = mcp(handler.clone(), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "impact", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    let req = v["verification_request"].as_str().unwrap().to_owned();
    let args = json!({"action": "verify", "request": req, "output_format": "json"});
    let params =
        CallToolRequestParams::new("edit").with_arguments(args.as_object().unwrap().clone());
    let handle = client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    // Cargo builds the test, which then starts its children.
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&pids)
        .unwrap_or_default()
        .split_whitespace()
        .count()
        < 2
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(240),
            "the test never started its children"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    handle.cancel(Some("test".into())).await.unwrap();
    let cancelled = std::time::Instant::now();
    while !all_gone(&pids) {
        assert!(
            cancelled.elapsed() < std::time::Duration::from_secs(20),
            "processes left after the cancellation: {}",
            std::fs::read_to_string(&pids).unwrap_or_default()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let seen: Vec<String> = handler
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| p.message.clone().unwrap_or_default())
        .collect();
    assert!(
        seen.iter().any(|m| m == "verify: 0/1 steps"),
        "a progress notification per step: {seen:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_over_mcp() {
    let p = cargo_project();
    write(
        &p.root,
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n",
    );
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "impact", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    let req = v["verification_request"].as_str().unwrap().to_owned();
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "verify", "request": req, "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    assert!(matches!(v["status"].as_str(), Some("passed")), "{v}");
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "verify", "request": "x", "command": "rm -rf /"}),
    )
    .await;
    assert!(is_error, "{v}");
    assert_eq!(v["error_type"], "validation");
    client.cancel().await.unwrap();
}

fn has_pytest() -> bool {
    Command::new("python3")
        .args(["-c", "import pytest"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_pytest_project_verified_or_its_missing_runner_said() {
    let p = empty_project();
    write(&p.root, "calc.py", "def add(a, b):\n    return a + b\n");
    write(
        &p.root,
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    );
    write(
        &p.root,
        ".gitignore",
        "/.tsa\n__pycache__/\n.pytest_cache/\n",
    );
    init(&p.root);
    write(&p.root, "calc.py", "def add(a, b):\n    return b + a\n");
    let req = request(&p.root);
    let v = verify(&p.root, &req);
    if has_pytest() {
        assert_eq!(v["verdict"], "SAFE", "{v}");
        assert_eq!(v["executed_steps"][0]["argv"][2], "pytest", "{v}");
        assert!(
            v["executed_steps"][0]["output"]
                .as_str()
                .unwrap()
                .contains("1 passed"),
            "{v}"
        );
        write(&p.root, "calc.py", "def add(a, b):\n    return a * b + 1\n");
        let v = verify(&p.root, &req);
        assert_eq!(v["verdict"], "UNSAFE", "{v}");
    } else {
        // No runner is no failing test: an error, not UNSAFE.
        assert_eq!(v["success"], false, "{v}");
        assert_eq!(v["error_code"], "VERIFICATION_STEP_ERROR", "{v}");
    }
}
