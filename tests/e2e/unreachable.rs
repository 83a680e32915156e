//! `health unreachable` end to end, through the CLI and over MCP: code after
//! `break`, `continue`, `return`, `raise`, `sys.exit()`, `panic!` and after an
//! infinite loop, in every branch form; a method named like an exit is no exit;
//! project mode with its test filter, `max_files` counted, and its errors.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{assert_envelope, empty_project, mcp, mcp_call, tool_cli};

const PY: &str = "import sys\n\n\ndef loop(xs):\n    for x in xs:\n        if x == 1:\n            break\n            print('after break')\n        elif x == 2:\n            continue\n            print('after continue')\n        else:\n            try:\n                raise ValueError(x)\n                print('after raise')\n            finally:\n                pass\n    with open('f') as f:\n        return f.read()\n        print('after return')\n\n\ndef stop(self):\n    self.exit()\n    sys.exit(2)\n    print('after exit')\n\n\ndef spin():\n    while True:\n        pass\n    print('after an endless loop')\n";

const RS: &str = "pub fn f(x: u32) -> u32 {\n    match x {\n        0 => {\n            panic!(\"zero\");\n            #[allow(unreachable_code)]\n            1\n        }\n        _ => x,\n    }\n}\n";

fn project() -> crate::support::Project {
    let p = empty_project();
    std::fs::create_dir_all(p.root.join("src")).unwrap();
    std::fs::create_dir_all(p.root.join("tests")).unwrap();
    std::fs::write(p.root.join("src/flow.py"), PY).unwrap();
    std::fs::write(p.root.join("src/lib.rs"), RS).unwrap();
    std::fs::write(p.root.join("src/clean.py"), "def ok():\n    return 1\n").unwrap();
    std::fs::write(
        p.root.join("tests/test_flow.py"),
        "def test_x():\n    return\n    x()\n",
    )
    .unwrap();
    p
}

fn cli(root: &Path, args: &Value) -> Value {
    tool_cli(root, "health", args)
}

fn lines(v: &Value) -> Vec<(u64, String)> {
    v["unreachable_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["start_line"].as_u64().unwrap(),
                b["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn every_terminator_in_every_branch_form() {
    let p = project();
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "file_path": "src/flow.py"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "CAUTION");
    let got = lines(&v);
    let starts: Vec<u64> = got.iter().map(|g| g.0).collect();
    assert_eq!(starts, vec![8, 11, 15, 20, 26, 32], "{got:?}");
    assert!(got[0].1.contains("break on line 7"), "{got:?}");
    assert!(got[1].1.contains("continue"));
    assert!(got[2].1.contains("raise"));
    assert!(got[3].1.contains("return"));
    assert!(
        got[4].1.contains("sys.exit()"),
        "self.exit() is not an exit: {got:?}"
    );
    assert!(got[5].1.contains("infinite loop"));
    assert_eq!(v["functions_analyzed"], 3);
    assert_eq!(v["file"], "src/flow.py");
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "file_path": "src/lib.rs"}),
    );
    let got = lines(&v);
    assert_eq!(got.len(), 1, "{v}");
    assert_eq!(got[0].0, 6);
    assert!(got[0].1.contains("panic!"));
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "file_path": "src/clean.py"}),
    );
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["unreachable_count"], 0);
}

#[test]
fn project_mode_filters_tests_counts_and_refuses_bad_input() {
    let p = project();
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "mode": "project"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["files_scanned"], 3, "{v}");
    assert_eq!(v["files_with_issues"], 2);
    assert_eq!(v["total_unreachable_blocks"], 7);
    let files: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, vec!["src/flow.py", "src/lib.rs"]);
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "mode": "project", "include_test_files": true}),
    );
    assert_eq!(v["files_with_issues"], 3, "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "mode": "project", "max_files": 1}),
    );
    assert_eq!(v["truncated_by_max_files"], true, "{v}");
    assert_eq!(v["files_scanned"], 1);
    assert_eq!(v["files_eligible"], 3);
    let v = cli(&p.root, &json!({"action": "unreachable"}));
    assert_eq!(v["error_type"], "validation", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "file_path": "README.md"}),
    );
    assert_eq!(v["error_type"], "language_unsupported", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "unreachable", "file_path": "../x.py"}),
    );
    assert_eq!(v["error_type"], "security_violation", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_over_mcp() {
    let p = project();
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "health",
        json!({"action": "unreachable", "file_path": "src/flow.py", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_envelope(&v);
    assert_eq!(v["unreachable_count"], 6);
    let (is_error, v) = mcp_call(
        &client,
        "health",
        json!({"action": "unreachable", "mode": "project", "output_format": "json"}),
    )
    .await;
    assert!(!is_error);
    assert_eq!(v["total_unreachable_blocks"], 7, "{v}");
    client.cancel().await.unwrap();
}
