//! Bad input: each case gets an ERROR envelope with `error_type` and `hint`, exit 1,
//! and nothing else (no panic, no stray output).

use serde_json::{Value, json};
use tsa_tools::{Context, OutputFormat, call};

use crate::support::{assert_envelope, empty_project, json as cli_json, project};

fn expect_error(v: &Value, error_type: &str) {
    assert_envelope(v);
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_type"], error_type, "{v}");
}

fn cli(root: &std::path::Path, args: &[&str], error_type: &str) -> Value {
    let (code, v) = cli_json(root, args);
    assert_eq!(code, 1, "exit code for {args:?}: {v}");
    expect_error(&v, error_type);
    v
}

fn direct(root: &std::path::Path, tool: &str, args: Value, error_type: &str) -> Value {
    let mut ctx = Context::with_root(root).unwrap();
    let reply = call(&mut ctx, tool, args, OutputFormat::Json);
    assert!(reply.is_error);
    let v = Value::Object(reply.body);
    expect_error(&v, error_type);
    v
}

#[test]
fn missing_required_argument() {
    let p = project("python");
    let v = cli(&p.root, &["nav", "callers"], "validation");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("missing required parameter 'function_name'")
    );
}

#[test]
fn wrong_type_and_zero_limit() {
    let p = project("python");
    let v = cli(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--limit",
            "abc",
        ],
        "validation",
    );
    assert!(v["error"].as_str().unwrap().contains("limit"), "{v}");
    let v = direct(
        &p.root,
        "nav",
        json!({"action": "callers", "function_name": "build", "limit": "abc"}),
        "validation",
    );
    assert!(v["error"].as_str().unwrap().contains("limit"));
    let v = cli(
        &p.root,
        &["nav", "callers", "--function-name", "build", "--limit", "0"],
        "validation",
    );
    assert!(v["error"].as_str().unwrap().contains(">= 1"));
    direct(
        &p.root,
        "nav",
        json!({"action": "callers", "function_name": "build", "limit": -3}),
        "validation",
    );
    direct(
        &p.root,
        "nav",
        json!({"action": "callers", "function_name": "build", "output_format": "xml"}),
        "validation",
    );
    direct(&p.root, "nav", json!("callers"), "validation");
}

#[test]
fn unknown_argument_is_rejected_with_the_allowed_list() {
    let p = project("python");
    let v = cli(
        &p.root,
        &["nav", "callers", "--function-name", "build", "--limt", "3"],
        "validation",
    );
    // The CLI speaks in flags: the closest one and the action's valid ones.
    let err = v["error"].as_str().unwrap();
    assert!(err.contains("unknown flag '--limt'"), "{err}");
    assert!(err.contains("did you mean '--limit'"), "{err}");
    assert!(
        err.contains("valid flags: --function-name, --file-path, --limit"),
        "{err}"
    );
    assert_eq!(v["suggestion"], "--limit");
    // MCP speaks in parameter names.
    let v = direct(
        &p.root,
        "nav",
        json!({"action": "callers", "function_name": "build", "limt": 3}),
        "validation",
    );
    let err = v["error"].as_str().unwrap();
    assert!(err.contains("unknown parameter 'limt'"), "{err}");
    assert!(err.contains("did you mean 'limit'"), "{err}");
    assert!(
        err.contains(
            "allowed parameters: action, compact_only, cursor, depth, file_path, function_name, include_bodies, limit"
        ),
        "{err}"
    );
}

#[test]
fn unknown_action_and_unknown_tool_are_refused() {
    let p = project("python");
    let v = cli(&p.root, &["nav", "caller"], "validation");
    assert_eq!(v["suggestion"], "callers");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("did you mean: callers? unknown action 'caller'")
    );
    direct(&p.root, "nav", json!({}), "validation");
    let v = direct(
        &p.root,
        "navigate",
        json!({"action": "callers"}),
        "unknown_tool",
    );
    assert!(v["hint"].as_str().unwrap().contains("nav"));
    // An action no facade has: refused with the facade's valid actions, no guess.
    let v = cli(&p.root, &["project", "nonsense"], "validation");
    let err = v["error"].as_str().unwrap();
    assert!(
        err.starts_with("unknown action 'nonsense'; valid actions are: ")
            && err.contains("workflow")
            && err.contains("metrics"),
        "{v}"
    );
    assert!(v.get("suggestion").is_none_or(Value::is_null), "{v}");
}

#[test]
fn paths_outside_the_root_are_refused() {
    let p = project("python");
    let outside = p.root.parent().unwrap().join("secret.py");
    std::fs::write(&outside, "def build():\n    pass\n").unwrap();
    for path in ["../secret.py", outside.to_str().unwrap(), "/etc/passwd"] {
        cli(
            &p.root,
            &[
                "nav",
                "callers",
                "--function-name",
                "build",
                "--file-path",
                path,
            ],
            "security_violation",
        );
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, p.root.join("link.py")).unwrap();
        cli(
            &p.root,
            &[
                "nav",
                "callers",
                "--function-name",
                "build",
                "--file-path",
                "link.py",
            ],
            "security_violation",
        );
    }
}

/// Found by the `mcp_input` fuzz target: the summary line of a failure quoted an
/// absolute `file_path` argument with the project root in it.
#[test]
fn failures_never_name_the_absolute_root() {
    let p = project("python");
    let root = std::fs::canonicalize(&p.root).unwrap();
    let missing = root.join("app/no_such_file.py");
    let v = direct(
        &root,
        "health",
        json!({"action": "file", "file_path": missing.to_str().unwrap()}),
        "file_not_found",
    );
    let text = v.to_string();
    assert!(!text.contains(root.to_str().unwrap()), "{text}");
    assert_eq!(
        v["summary_line"], "health: file_not_found — app/no_such_file.py",
        "{v}"
    );
}

#[test]
fn missing_binary_and_non_utf8_files() {
    let p = project("python");
    cli(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "app/nope.py",
        ],
        "file_not_found",
    );
    std::fs::write(p.root.join("app/blob.py"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    cli(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "app/blob.py",
        ],
        "binary_file",
    );
    std::fs::write(p.root.join("app/latin.py"), b"def caf\xe9():\n    pass\n").unwrap();
    cli(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "app/latin.py",
        ],
        "encoding_error",
    );
    std::fs::write(p.root.join("notes.txt"), "plain text\n").unwrap();
    cli(
        &p.root,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--file-path",
            "notes.txt",
        ],
        "language_unsupported",
    );
    // The index itself copes with both: the binary is skipped, the Latin-1 file indexed.
    let (_, v) = cli_json(&p.root, &["index", "full"]);
    assert_eq!(v["phases"]["skipped_binary"], 1, "{v}");
    assert_eq!(v["success"], true);
}

#[test]
fn empty_project_is_an_error_not_an_empty_answer() {
    let p = empty_project();
    cli(
        &p.root,
        &["nav", "callers", "--function-name", "build"],
        "empty_project",
    );
    cli(&p.root, &["index", "full"], "empty_project");
}

#[test]
fn set_project_path_refuses_relative_missing_and_root() {
    let p = project("python");
    let mut ctx = Context::new();
    let reply = call(
        &mut ctx,
        "nav",
        json!({"action": "callers", "function_name": "build"}),
        OutputFormat::Json,
    );
    expect_error(&Value::Object(reply.body), "project_not_set");
    for (arg, ty) in [
        (json!({"project_path": "relative/dir"}), "validation"),
        (
            json!({"project_path": "/definitely/not/here"}),
            "file_not_found",
        ),
        (json!({"project_path": "/"}), "security_violation"),
        (json!({}), "validation"),
        (json!({"project_path": p.root, "extra": 1}), "validation"),
    ] {
        let reply = call(
            &mut ctx,
            "set_project_path",
            arg.clone(),
            OutputFormat::Json,
        );
        expect_error(&Value::Object(reply.body), ty);
    }
    let reply = call(
        &mut ctx,
        "set_project_path",
        json!({"project_path": p.root}),
        OutputFormat::Json,
    );
    let v = Value::Object(reply.body);
    assert_envelope(&v);
    assert_eq!(v["status"], "success");
    assert_eq!(v["verdict"], "INFO");
}
