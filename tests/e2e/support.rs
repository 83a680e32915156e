//! Helpers: copy a fixture into a temp dir, run the CLI, parse its JSON.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == ".tsa" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A private copy of `tests/fixtures/<name>` (the project root is `dir.path()/<name>`).
pub struct Project {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

pub fn project(name: &str) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join(name);
    copy_dir(&fixtures().join(name), &root);
    Project { _dir: dir, root }
}

pub fn empty_project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("empty");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("README.md"), "nothing to index\n").unwrap();
    Project { _dir: dir, root }
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_tsa")
}

/// Runs `tsa --project-root <root> <args...>`; returns (exit code, stdout, stderr).
pub fn run(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .arg("--project-root")
        .arg(root)
        .args(args)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs the CLI and parses its JSON answer.
pub fn json(root: &Path, args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(root, args);
    let v: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out}\nstderr: {err}"));
    (code, v)
}

/// Whether every pid in `pids` is gone (or a zombie).
pub fn all_gone(pids: &Path) -> bool {
    let text = std::fs::read_to_string(pids).unwrap_or_default();
    text.split_whitespace().all(|pid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(") ").next().and_then(|s| s.chars().next());
        matches!(state, None | Some('Z') | Some('X'))
    })
}

/// An MCP client that records every progress notification it receives.
#[derive(Clone, Default)]
pub struct ProgressClient {
    pub seen: std::sync::Arc<std::sync::Mutex<Vec<rmcp::model::ProgressNotificationParam>>>,
}

impl rmcp::ClientHandler for ProgressClient {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.seen.lock().unwrap().push(params);
    }
}

/// One CLI call of `tool` with JSON-shaped `args` (`action` first): the exit code
/// follows `success`, and the envelope keeps its contract.
pub fn tool_cli(root: &Path, tool: &str, args: &Value) -> Value {
    let words = cli_words(tool, args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = json(root, &words);
    assert_eq!(
        code != 0,
        v["success"] == false,
        "exit code follows success: {v}"
    );
    assert_envelope(&v);
    v
}

/// Asserts the contract every envelope keeps.
pub fn assert_envelope(v: &Value) {
    let success = v["success"].as_bool().expect("success is a bool");
    let verdict = v["verdict"].as_str().expect("verdict is a string");
    assert!(
        [
            "SAFE",
            "CAUTION",
            "REVIEW",
            "UNSAFE",
            "INFO",
            "WARN",
            "ERROR",
            "NOT_FOUND"
        ]
        .contains(&verdict),
        "verdict {verdict}"
    );
    assert_eq!(
        v["agent_summary"]["verdict"], v["verdict"],
        "verdicts agree"
    );
    assert_eq!(
        v["agent_summary"]["summary_line"], v["summary_line"],
        "summary mirrored"
    );
    assert!(v["summary_line"].as_str().is_some_and(|s| !s.is_empty()));
    if success {
        assert!(v.get("error").is_none());
        assert_ne!(verdict, "ERROR");
    } else {
        assert_eq!(verdict, "ERROR");
        assert!(
            v["error"].as_str().is_some_and(|s| !s.is_empty()),
            "error text"
        );
        assert!(
            v["error_type"].as_str().is_some_and(|s| !s.is_empty()),
            "error_type"
        );
        assert!(v["hint"].as_str().is_some_and(|s| !s.is_empty()), "hint");
    }
}

/// `tsa mcp --project-root <root>` as a child, served by `handler` (`()` for a plain
/// client; a handler with a channel to watch notifications).
pub async fn mcp<H: rmcp::ClientHandler>(
    handler: H,
    root: &Path,
) -> rmcp::service::RunningService<rmcp::RoleClient, H> {
    mcp_with(handler, root, &[]).await
}

/// `tsa mcp <flags> --project-root <root>`, without the caller's project variable
/// or a host's token cap (`MAX_MCP_OUTPUT_TOKENS`), so the default budget applies.
fn mcp_command(root: &Path, flags: &[&str]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(bin());
    cmd.arg("mcp")
        .args(flags)
        .arg("--project-root")
        .arg(root)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .env_remove("MAX_MCP_OUTPUT_TOKENS");
    cmd
}

/// [`mcp_with`] with `env` set in the server's environment.
pub async fn mcp_env(
    root: &Path,
    flags: &[&str],
    env: &[(&str, &str)],
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt;
    let mut cmd = mcp_command(root, flags);
    cmd.envs(env.iter().copied());
    ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

/// [`mcp`] with extra `tsa mcp` flags (`--watch`).
pub async fn mcp_with<H: rmcp::ClientHandler>(
    handler: H,
    root: &Path,
    flags: &[&str],
) -> rmcp::service::RunningService<rmcp::RoleClient, H> {
    use rmcp::ServiceExt;
    let cmd = mcp_command(root, flags);
    handler
        .serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

/// [`mcp_with`], with the server's stderr piped back to the test (its log lines).
pub async fn mcp_logged<H: rmcp::ClientHandler>(
    handler: H,
    root: &Path,
    flags: &[&str],
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, H>,
    tokio::process::ChildStderr,
) {
    use rmcp::ServiceExt;
    let cmd = mcp_command(root, flags);
    let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    (handler.serve(transport).await.unwrap(), stderr.unwrap())
}

/// The raw JSON text of one `tools/call` and its `isError`.
pub async fn mcp_raw<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    tool: &str,
    args: &Value,
) -> (bool, String) {
    let r = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new(tool.to_owned())
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let block = serde_json::to_value(&r.content[0]).unwrap();
    (
        r.is_error == Some(true),
        block["text"].as_str().unwrap_or_default().to_owned(),
    )
}

/// One `tools/call`: (isError, the answer's JSON text parsed).
pub async fn mcp_call<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    tool: &str,
    args: Value,
) -> (bool, Value) {
    let (is_error, text) = mcp_raw(client, tool, &args).await;
    (is_error, serde_json::from_str(&text).unwrap())
}

/// The CLI words of a tool call given as MCP arguments (`action` first, then
/// `--kebab-flag value`; string arrays comma-joined), answering in JSON.
pub fn cli_words(tool: &str, args: &Value) -> Vec<String> {
    let mut out = vec![tool.to_owned()];
    let obj = args.as_object().unwrap();
    if let Some(a) = obj.get("action") {
        out.push(a.as_str().unwrap().to_owned());
    }
    for (k, v) in obj.iter().filter(|(k, _)| *k != "action") {
        out.push(format!("--{}", k.replace('_', "-")));
        out.push(match v {
            Value::String(s) => s.clone(),
            Value::Array(a) if a.iter().all(Value::is_string) => a
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        });
    }
    if !obj.contains_key("output_format") {
        out.push("--output-format".into());
        out.push("json".into());
    }
    out
}

/// A client handler that forwards every `notifications/resources/updated` URI.
#[derive(Clone)]
pub struct Updates(pub tokio::sync::mpsc::UnboundedSender<String>);

impl rmcp::ClientHandler for Updates {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

/// Every URI that arrives within `wait`.
pub async fn drain(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<String>,
    wait: std::time::Duration,
) -> Vec<String> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(Some(uri)) = tokio::time::timeout_at(deadline, rx.recv()).await {
        got.push(uri);
    }
    got
}
