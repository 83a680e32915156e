//! `tsa init`: the index, the MCP configuration of Claude Code, Cursor and VS Code
//! merged into what the project has, the skills; `--dry-run` writes nothing; nothing
//! is written outside the root, through a symlink or otherwise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{assert_envelope, bin, project};

/// Runs `tsa <args>` in `root` with a PATH that has no `tsa` on it (or `path`).
fn init(root: &Path, args: &[&str], path: Option<&str>) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .env("PATH", path.unwrap_or("/usr/bin:/bin"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every entry under `dir` (symlinks not followed): its kind and its bytes or target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            if meta.file_type().is_symlink() {
                out.insert(
                    rel,
                    format!("link {:?}", std::fs::read_link(&path).unwrap()),
                );
            } else if meta.is_dir() {
                out.insert(rel, "dir".into());
                stack.push(path);
            } else {
                out.insert(
                    rel,
                    String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned(),
                );
            }
        }
    }
    out
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

const VSCODE_BEFORE: &str = "{\n    // servers of this workspace\n    \"servers\": {\n        \"db\": {\"type\": \"stdio\", \"command\": \"db-mcp\"}\n    },\n    \"inputs\": []\n}\n";

#[test]
fn init_builds_the_index_and_merges_the_three_client_files() {
    let p = project("python");
    let root = &p.root;
    std::fs::write(
        root.join(".mcp.json"),
        r#"{"mcpServers": {"web": {"command": "npx", "args": ["web-mcp"]}}, "note": "ours"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join(".vscode")).unwrap();
    std::fs::write(root.join(".vscode/mcp.json"), VSCODE_BEFORE).unwrap();

    let (code, out, err) = init(root, &["init"], None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(root.join(".tsa/index.db").is_file());
    assert!(root.join(".claude/skills/safe-edit/SKILL.md").is_file());
    for expect in [
        ".mcp.json",
        "added server \"tsa\" beside 1 other server",
        ".cursor/mcp.json",
        "created",
        ".vscode/mcp.json",
        "6 written to .claude/skills",
        "Next: ",
    ] {
        assert!(out.contains(expect), "{expect}: {out}");
    }
    let exe = std::fs::canonicalize(bin()).unwrap().display().to_string();

    // Claude Code: the other server and the other key are still there.
    let claude = read_json(&root.join(".mcp.json"));
    assert_eq!(
        claude["mcpServers"]["web"],
        json!({"command": "npx", "args": ["web-mcp"]})
    );
    assert_eq!(claude["note"], "ours");
    assert_eq!(
        claude["mcpServers"]["tsa"],
        json!({"type": "stdio", "command": exe, "args": ["mcp", "--watch", "--project-root", "${CLAUDE_PROJECT_DIR:-.}"]})
    );
    // Cursor: created.
    let cursor = read_json(&root.join(".cursor/mcp.json"));
    assert_eq!(cursor["mcpServers"]["tsa"]["args"][3], "${workspaceFolder}");
    // VS Code: its own key, its comment, its other server and its layout kept.
    let text = std::fs::read_to_string(root.join(".vscode/mcp.json")).unwrap();
    assert!(text.contains("// servers of this workspace"), "{text}");
    assert!(
        text.contains("\"db\": {\"type\": \"stdio\", \"command\": \"db-mcp\"}"),
        "{text}"
    );
    assert!(text.contains("\n    \"inputs\": []\n"), "{text}");
    assert!(text.contains("\"tsa\": {"), "{text}");
    assert!(text.contains("\"${workspaceFolder}\""), "{text}");

    // A second run changes nothing.
    let before = snapshot(root);
    let (code, out, _) = init(root, &["init"], None);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.matches("unchanged: server \"tsa\" is already there")
            .count(),
        3,
        "{out}"
    );
    let after = snapshot(root);
    let config: Vec<_> = before.keys().filter(|k| !k.starts_with(".tsa")).collect();
    for k in config {
        assert_eq!(before[k], after[k], "{}", k.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_written_configuration_starts_a_working_server() {
    use rmcp::ServiceExt;
    let p = project("python");
    // With this binary on PATH as `tsa`, the files name `tsa`.
    let dir = std::fs::canonicalize(bin())
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!("{}:/usr/bin:/bin", dir.display());
    let (code, out, err) = init(&p.root, &["init", "--client", "vscode"], Some(&path));
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("note:"), "{out}");
    assert!(!p.root.join(".mcp.json").exists() && !p.root.join(".cursor").exists());
    let entry = read_json(&p.root.join(".vscode/mcp.json"))["servers"]["tsa"].clone();
    assert_eq!(entry["command"], "tsa");
    // Start it as VS Code does: ${workspaceFolder} expanded, the command from PATH.
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            a.as_str()
                .unwrap()
                .replace("${workspaceFolder}", p.root.to_str().unwrap())
        })
        .collect();
    let mut cmd = tokio::process::Command::new(dir.join("tsa"));
    cmd.args(&args)
        .current_dir(&p.root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let (is_error, v) = crate::support::mcp_call(
        &client,
        "nav",
        json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_eq!(v["caller_count"], 8);
    client.cancel().await.unwrap();
}

#[test]
fn dry_run_shows_the_diffs_and_writes_nothing() {
    let p = project("python");
    std::fs::create_dir_all(p.root.join(".vscode")).unwrap();
    std::fs::write(p.root.join(".vscode/mcp.json"), VSCODE_BEFORE).unwrap();
    let before = snapshot(&p.root);
    let (code, out, err) = init(&p.root, &["init", "--dry-run"], None);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(snapshot(&p.root), before, "{out}");
    assert!(!p.root.join(".tsa").exists());
    for expect in [
        "nothing written",
        "--- /dev/null",
        "+++ b/.mcp.json",
        "--- a/.vscode/mcp.json",
        "+++ b/.vscode/mcp.json",
        "+        \"tsa\": {",
        "would write 6 to .claude/skills",
    ] {
        assert!(out.contains(expect), "{expect}: {out}");
    }
    // The JSON report carries the same diffs.
    let (code, out, _) = init(&p.root, &["init", "--dry-run", "--format", "json"], None);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_envelope(&v);
    assert_eq!(v["dry_run"], true);
    let rows = v["clients"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter()
            .all(|r| r["diff"].as_str().unwrap().contains("+++ b/"))
    );
    assert_eq!(snapshot(&p.root), before);
}

#[test]
fn a_different_tsa_server_is_kept_unless_forced() {
    let p = project("python");
    let mine = r#"{"mcpServers": {"tsa": {"command": "/opt/tsa/bin/tsa", "args": ["mcp"]}}}"#;
    std::fs::write(p.root.join(".mcp.json"), mine).unwrap();
    let (code, out, _) = init(&p.root, &["init", "--client", "claude"], None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("kept: it has a different \"tsa\" server (--force replaces it)"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(p.root.join(".mcp.json")).unwrap(),
        mine
    );
    let (code, out, _) = init(&p.root, &["init", "--client", "claude", "--force"], None);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("replaced server \"tsa\""), "{out}");
    assert_eq!(
        read_json(&p.root.join(".mcp.json"))["mcpServers"]["tsa"]["args"][0],
        "mcp"
    );
    assert_eq!(
        read_json(&p.root.join(".mcp.json"))["mcpServers"]["tsa"]["args"][1],
        "--watch"
    );
}

#[test]
fn nothing_is_written_through_a_symlink_out_of_the_root() {
    let p = project("python");
    let outside = p.root.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let cases: [(&str, PathBuf); 3] = [
        // A client folder that is a link out of the root.
        (".cursor", outside.clone()),
        // A configuration file that is a link to a file outside.
        (".mcp.json", outside.join("mcp.json")),
        // A dangling link (writing through it would create the file outside).
        (".vscode", outside.join("missing")),
    ];
    std::fs::write(outside.join("mcp.json"), "{}\n").unwrap();
    for (name, target) in &cases {
        let before_out = snapshot(&outside);
        std::os::unix::fs::symlink(target, p.root.join(name)).unwrap();
        let before = snapshot(&p.root);
        let (code, out, _) = init(&p.root, &["init"], None);
        assert_eq!(code, 1, "{name}: {out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_envelope(&v);
        assert_eq!(v["error_type"], "security_violation", "{name}: {v}");
        // Nothing written: not outside, not inside (no index, no other client's file).
        assert_eq!(snapshot(&outside), before_out, "{name}");
        assert_eq!(snapshot(&p.root), before, "{name}");
        std::fs::remove_file(p.root.join(name)).unwrap();
    }
    // A skills folder linked out of the root: refused the same way.
    std::os::unix::fs::symlink(&outside, p.root.join(".claude")).unwrap();
    let (code, out, _) = init(&p.root, &["init", "--dry-run"], None);
    assert_eq!(code, 1, "{out}");
    assert!(!outside.join("skills").exists());
}

#[test]
fn a_system_folder_is_refused_as_a_project() {
    let (code, out, _) = init(Path::new("/"), &["init", "--project-root", "/etc"], None);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error_type"], "security_violation");
}

#[test]
fn init_shows_the_index_progress_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("app");
    std::fs::create_dir_all(&root).unwrap();
    for i in 0..400 {
        let body: String = (0..20)
            .map(|f| format!("def f{f}_{i}():\n    return len('x')\n\n"))
            .collect();
        std::fs::write(root.join(format!("m{i}.py")), body).unwrap();
    }
    // Piped: the report on stdout, nothing on stderr.
    let (code, out, err) = init(&root, &["init", "--client", "claude"], None);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("files=400"), "{out}");
    assert!(
        err.is_empty(),
        "stderr must stay quiet off a terminal: {err}"
    );
    // On a pseudo-terminal (util-linux `script`), the build's bar appears.
    std::fs::remove_dir_all(root.join(".tsa")).unwrap();
    let cmd = format!(
        "{} init --client claude --project-root {}",
        bin(),
        root.display()
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("util-linux `script` runs the CLI on a pseudo-terminal");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("files (") && screen.contains("/s"),
        "no progress bar on a terminal: {screen}"
    );
    assert!(screen.contains("Next: "), "{screen}");
}
