//! `tsa mcp --http 127.0.0.1:0` as a child process, driven by rmcp's streamable
//! HTTP client: the same tools and answers as over stdio, independent sessions,
//! prompts, completion and logging, a refused non-loopback address, and a clean
//! stop on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use rmcp::ServiceExt;
#[allow(deprecated, reason = "logging is still served")]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, Reference};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::support::{bin, json, mcp, mcp_call, project};

/// A running `tsa mcp --http` child: its URL and its stderr lines.
struct HttpServer {
    child: Child,
    url: String,
    stderr: mpsc::Receiver<String>,
}

impl HttpServer {
    fn start(root: &Path) -> HttpServer {
        Self::start_with(root, &[])
    }

    fn start_with(root: &Path, flags: &[&str]) -> HttpServer {
        let mut child = Command::new(bin())
            .args(["mcp", "--http", "127.0.0.1:0", "--project-root"])
            .arg(root)
            .args(flags)
            .env_remove("TREE_SITTER_PROJECT_ROOT")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let first = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("server starts");
        let url = first
            .strip_prefix("tsa mcp: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {first}"))
            .to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "{url}"
        );
        HttpServer {
            child,
            url,
            stderr: rx,
        }
    }

    /// Sends SIGTERM and returns the exit status and the remaining stderr.
    fn terminate(mut self) -> (Option<i32>, String) {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -TERM");
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "server stops on SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let rest: Vec<String> = self.stderr.try_iter().collect();
        (status.code(), rest.join("\n"))
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn http_client(url: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .unwrap()
}

fn callers() -> Value {
    json!({"action": "callers", "function_name": "build", "file_path": "app/core.py", "limit": 3, "output_format": "json"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_over_http_answers_like_stdio_with_independent_sessions() {
    let p = project("python");
    let (code, built) = json(&p.root, &["index", "full"]);
    assert_eq!(code, 0, "{built}");
    let server = HttpServer::start(&p.root);
    let client = http_client(&server.url).await;
    let stdio = mcp((), &p.root).await;

    let over_http: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let over_stdio: Vec<String> = stdio
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(over_http.len(), 9);
    assert_eq!(over_http, over_stdio);

    let (err_http, answer_http) = mcp_call(&client, "nav", callers()).await;
    let (err_stdio, answer_stdio) = mcp_call(&stdio, "nav", callers()).await;
    assert!(!err_http && !err_stdio);
    assert_eq!(answer_http["caller_count"], 8);
    assert_eq!(answer_http, answer_stdio, "same answer on both transports");

    // A second session rebinds its own project; the first keeps its own.
    let other = project("go");
    let second = http_client(&server.url).await;
    let (err, set) = mcp_call(
        &second,
        "set_project_path",
        json!({"project_path": other.root.display().to_string(), "output_format": "json"}),
    )
    .await;
    assert!(!err, "{set}");
    let (_, elsewhere) = mcp_call(&second, "nav", callers()).await;
    assert_ne!(
        elsewhere, answer_http,
        "the second session reads the go project"
    );
    let (_, again) = mcp_call(&client, "nav", callers()).await;
    assert_eq!(
        again, answer_http,
        "the first session still reads the python project"
    );

    // Prompts (the skills), completion of their target from the index, logging.
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(
        prompts.iter().any(|p| p.name == "find-symbol"),
        "{prompts:?}"
    );
    let mut args = serde_json::Map::new();
    args.insert("target".into(), json!("Engine.run"));
    let got = client
        .get_prompt(GetPromptRequestParams::new("safe-edit").with_arguments(args))
        .await
        .unwrap();
    let text = serde_json::to_value(&got.messages[0].content).unwrap();
    assert!(
        text["text"]
            .as_str()
            .unwrap()
            .ends_with("Apply it to: Engine.run")
    );
    let done = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("find-symbol"),
            ArgumentInfo::new("target", "eng"),
        ))
        .await
        .unwrap();
    assert!(
        done.completion.values.iter().any(|v| v == "Engine"),
        "{:?}",
        done.completion
    );
    assert!(
        done.completion
            .values
            .iter()
            .all(|v| v.to_lowercase().starts_with("eng"))
    );
    #[allow(deprecated, reason = "logging is still served")]
    client
        .set_level(SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Warning,
        ))
        .await
        .unwrap();

    // Anything but /mcp is not found.
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let mut raw = std::net::TcpStream::connect(&addr).unwrap();
    raw.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut reply = String::new();
    raw.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 404"), "{reply}");

    drop(client);
    drop(second);
    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "clean exit on SIGTERM: {rest}");
    assert!(rest.contains("tsa mcp: stopped"), "{rest}");
}

#[test]
fn mcp_http_refuses_non_loopback_addresses_without_the_flag() {
    let p = project("python");
    let out = Command::new(bin())
        .args(["mcp", "--http", "0.0.0.0:0", "--project-root"])
        .arg(&p.root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("non-loopback") && err.contains("--allow-remote"),
        "{err}"
    );
    // The flag means nothing without --http.
    let out = Command::new(bin())
        .args(["mcp", "--allow-remote"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A client handler that forwards every `notifications/message` payload.
#[derive(Clone)]
struct Logs(tokio::sync::mpsc::UnboundedSender<Value>);

impl rmcp::ClientHandler for Logs {
    #[allow(deprecated, reason = "logging is still served")]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let _ = self
            .0
            .send(json!({"level": params.level, "data": params.data}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_follow_the_level_the_client_sets() {
    let p = project("python");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = mcp(Logs(tx), &p.root).await;
    // No level set: no log messages.
    let _ = mcp_call(
        &client,
        "index",
        json!({"action": "status", "output_format": "json"}),
    )
    .await;
    #[allow(deprecated, reason = "logging is still served")]
    client
        .set_level(SetLevelRequestParams::new(rmcp::model::LoggingLevel::Debug))
        .await
        .unwrap();
    let _ = mcp_call(&client, "nav", callers()).await;
    let got = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a log message")
        .unwrap();
    assert_eq!(got["level"], "debug");
    assert_eq!(got["data"]["event"], "tool_call");
    assert_eq!(
        got["data"]["tool"], "nav",
        "the first message is the second call's: {got}"
    );
    assert!(rx.try_recv().is_err(), "one message per call");
}

/// The conformance fixtures come only with the hidden flag, beside tsa's own tools,
/// resources and prompts, and answer what the suite expects (the script runs the
/// suite itself); without the flag the same names are unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_fixtures_only_with_their_flag() {
    use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
    let p = project("python");
    let server = HttpServer::start_with(&p.root, &["--conformance-fixtures"]);
    let client = http_client(&server.url).await;
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(tools.iter().any(|t| t == "nav") && tools.iter().any(|t| t == "test_image_content"));
    let image = client
        .call_tool(CallToolRequestParams::new("test_image_content"))
        .await
        .unwrap();
    let image = serde_json::to_value(&image).unwrap();
    assert_eq!(image["content"][0]["type"], "image", "{image}");
    assert_eq!(image["content"][0]["mimeType"], "image/png", "{image}");
    let read = client
        .read_resource(ReadResourceRequestParams::new("test://template/7/data"))
        .await
        .unwrap();
    let read = serde_json::to_value(&read).unwrap();
    assert!(read.to_string().contains("Data for ID: 7"), "{read}");
    // tsa's own tools answer as ever.
    let (is_error, answer) = mcp_call(&client, "nav", callers()).await;
    assert!(!is_error && answer["callers"].is_array(), "{answer}");
    client.cancel().await.unwrap();
    drop(server);

    let plain = HttpServer::start(&p.root);
    let client = http_client(&plain.url).await;
    let unknown = client
        .call_tool(CallToolRequestParams::new("test_image_content"))
        .await
        .unwrap();
    assert_eq!(unknown.is_error, Some(true));
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("test://static-text"))
            .await
            .is_err()
    );
    client.cancel().await.unwrap();
}
