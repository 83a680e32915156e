//! `edit mutation_probe` end to end on a src-layout pytest project: a test that
//! pins the mutated line (SAFE, constrains), one that does not (CAUTION), a run
//! that outlives its budget (WARN, TIMEOUT, its process tree gone), the working
//! tree never written, and bad locations refused. Where pytest is not installed,
//! the probe must say unknown (NOT_ISOLABLE), never a verdict on the test.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::edit_git::write;
use crate::support::{assert_envelope, cli_words, empty_project, json as cli_json, mcp, mcp_call};

const CORE: &str = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n\n\ndef is_even(n):\n    return n % 2 == 0\n";

fn pytest_project() -> crate::support::Project {
    let p = empty_project();
    write(&p.root, "src/calc/__init__.py", "");
    write(&p.root, "src/calc/core.py", CORE);
    write(
        &p.root,
        "tests/test_core.py",
        &format!(
            "import os, subprocess, sys, time\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\nfrom calc.core import clamp, is_even\n\n\ndef test_clamp_low():\n    assert clamp(-5, 0, 10) == 0\n\n\ndef test_even_runs():\n    is_even(3)\n\n\ndef test_slow():\n    child = subprocess.Popen(['sleep', '300'])\n    with open({pids:?}, 'a') as f:\n        f.write(str(child.pid) + '\\n')\n    time.sleep(300)\n",
            pids = p.root.join("pids.txt").to_string_lossy()
        ),
    );
    p
}

fn has_pytest() -> bool {
    Command::new("python3")
        .args(["-c", "import pytest"])
        .status()
        .is_ok_and(|s| s.success())
}

fn probe(root: &Path, args: Value) -> Value {
    let mut a = json!({"action": "mutation_probe"});
    a.as_object_mut()
        .unwrap()
        .extend(args.as_object().unwrap().clone());
    let words = cli_words("edit", &a);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_eq!(code != 0, v["success"] == false, "{v}");
    assert_envelope(&v);
    v
}

#[test]
fn a_pinned_line_an_unpinned_line_and_a_run_out_of_time() {
    let p = pytest_project();
    let v = probe(
        &p.root,
        json!({"test_node_id": "tests/test_core.py::test_clamp_low", "code_location": "src/calc/core.py:2"}),
    );
    assert_eq!(v["success"], true, "{v}");
    if !has_pytest() {
        assert_eq!(v["verdict"], "WARN", "{v}");
        assert_eq!(v["probe_verdict"], "unknown");
        assert_eq!(v["reason"], "NOT_ISOLABLE");
        eprintln!("pytest is not installed: only the honest unknown is checked");
        return;
    }
    assert_eq!(v["verdict"], "SAFE", "{v}");
    assert_eq!(v["probe_verdict"], "constrains");
    assert_eq!(v["mutation_kind"], "invert_condition");
    assert_eq!(v["module"], "calc.core", "the src layout's import root");
    assert_eq!(v["baseline_failure"], "NONE");
    assert_eq!(v["mutated_failure"], "ASSERTION");
    let v = probe(
        &p.root,
        json!({"test_node_id": "tests/test_core.py::test_even_runs", "source_path": "src/calc/core.py", "target_line": 10}),
    );
    assert_eq!(v["verdict"], "CAUTION", "{v}");
    assert_eq!(v["probe_verdict"], "does_not_constrain");
    assert_eq!(v["reason"], "MUTATED_RUN_PASSED");
    assert_eq!(v["mutation_kind"], "flip_comparison");
    assert_eq!(
        std::fs::read_to_string(p.root.join("src/calc/core.py")).unwrap(),
        CORE,
        "never written"
    );
    let v = probe(
        &p.root,
        json!({"test_node_id": "tests/test_core.py::test_slow", "code_location": "src/calc/core.py:2", "timeout": 6}),
    );
    assert_eq!(v["verdict"], "WARN", "{v}");
    assert_eq!(v["reason"], "TIMEOUT");
    let pids = std::fs::read_to_string(p.root.join("pids.txt")).unwrap_or_default();
    assert!(
        !pids.trim().is_empty(),
        "the slow test started its child: {v}"
    );
    assert!(
        crate::support::all_gone(&p.root.join("pids.txt")),
        "a process was left behind: {pids}"
    );
}

#[test]
fn bad_locations_are_refused() {
    let p = pytest_project();
    let node = "tests/test_core.py::test_clamp_low";
    let v = probe(
        &p.root,
        json!({"test_node_id": node, "code_location": "src/calc/core.py"}),
    );
    assert_eq!(v["error_code"], "INVALID_LOCATION", "{v}");
    let v = probe(
        &p.root,
        json!({"test_node_id": node, "code_location": "../x.py:1"}),
    );
    assert_eq!(v["error_code"], "INVALID_LOCATION", "{v}");
    let v = probe(
        &p.root,
        json!({"test_node_id": node, "code_location": "README.md:1"}),
    );
    assert_eq!(v["error_code"], "LANGUAGE_UNSUPPORTED", "{v}");
    let v = probe(
        &p.root,
        json!({"test_node_id": node, "code_location": "src/calc/none.py:1"}),
    );
    assert_eq!(v["error_code"], "FILE_NOT_FOUND", "{v}");
    assert_eq!(v["error_type"], "file_not_found");
    let v = probe(
        &p.root,
        json!({"test_node_id": "-x", "code_location": "src/calc/core.py:2"}),
    );
    assert_eq!(v["error_type"], "validation", "{v}");
    let v = probe(
        &p.root,
        json!({"test_node_id": node, "code_location": "src/calc/core.py:3"}),
    );
    assert_eq!(
        v["reason"], "NO_INVERTIBLE_BRANCH",
        "a bare `return lo`: {v}"
    );
    assert_eq!(v["verdict"], "WARN");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutation_probe_over_mcp() {
    let p = pytest_project();
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "mutation_probe", "test_node_id": "tests/test_core.py::test_clamp_low",
               "code_location": "src/calc/core.py:2", "timeout_seconds": 60, "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    let want = if has_pytest() {
        "constrains"
    } else {
        "unknown"
    };
    assert_eq!(v["probe_verdict"], want, "{v}");
    client.cancel().await.unwrap();
}

#[cfg(unix)]
#[test]
fn an_interpreter_without_pytest_is_unknown_not_a_verdict() {
    use std::os::unix::fs::PermissionsExt;
    let p = pytest_project();
    // A virtualenv whose python sees no site packages, so no pytest.
    let venv = tempfile::tempdir().unwrap();
    let py = venv.path().join("bin/python");
    std::fs::create_dir_all(py.parent().unwrap()).unwrap();
    std::fs::write(&py, "#!/bin/sh\nexec python3 -S \"$@\"\n").unwrap();
    std::fs::set_permissions(&py, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(crate::support::bin())
        .args([
            "edit",
            "mutation_probe",
            "--test-node-id",
            "tests/test_core.py::test_clamp_low",
        ])
        .args([
            "--code-location",
            "src/calc/core.py:2",
            "--output-format",
            "json",
            "--project-root",
        ])
        .arg(&p.root)
        .env("VIRTUAL_ENV", venv.path())
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["probe_verdict"], "unknown", "{v}");
    assert_eq!(v["reason"], "NOT_ISOLABLE", "{v}");
    assert_eq!(v["verdict"], "WARN");
    assert!(
        v["baseline_output_tail"]
            .as_str()
            .unwrap()
            .contains("pytest is not installed"),
        "{v}"
    );
}
