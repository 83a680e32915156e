//! `tsa mcp --http 127.0.0.1:0` as a child process, driven by rmcp's streamable
//! HTTP client: the same tools and answers as over stdio, independent sessions,
//! prompts, completion and logging, a refused non-loopback address, a clean stop
//! on SIGTERM, and bearer-token authentication (`--auth-token-file`,
//! `TSA_AUTH_TOKEN`, required by `--allow-remote`).

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
        Self::start_env(root, flags, &[])
    }

    /// With `env` set (and `TSA_AUTH_TOKEN` only when `env` sets it).
    fn start_env(root: &Path, flags: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let mut child = Command::new(bin())
            .args(["mcp", "--http", "127.0.0.1:0", "--project-root"])
            .arg(root)
            .args(flags)
            .env_remove("TREE_SITTER_PROJECT_ROOT")
            .env_remove("TSA_AUTH_TOKEN")
            .env_remove("MAX_MCP_OUTPUT_TOKENS")
            .envs(env.iter().copied())
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
        // Owned from here on, so a failed start below still stops the child.
        let mut server = HttpServer {
            child,
            url: String::new(),
            stderr: rx,
        };
        let first = server
            .stderr
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
        server.url = url;
        server
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

/// The default budget (40,000 characters) and `--max-chars` hold over HTTP too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_stay_within_the_default_budget_and_the_flag() {
    let (_d, root) = crate::resume::many_callers(300);
    let args = json!({"action": "callers", "function_name": "hub", "limit": 500});
    for (flags, cap) in [
        (&[][..], 40_000usize),
        (&["--max-chars", "6000"][..], 6_000),
    ] {
        let server = HttpServer::start_with(&root, flags);
        let client = http_client(&server.url).await;
        let (is_error, text) = crate::support::mcp_raw(&client, "nav", &args).await;
        assert!(!is_error, "{text}");
        let len = text.chars().count();
        assert!(len <= cap && len > cap / 2, "{flags:?}: {len} vs {cap}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let v = tsa_format::from_toon(v["toon_content"].as_str().unwrap()).unwrap();
        assert_eq!(
            (v["caller_count"].as_u64(), v["truncated"].as_bool()),
            (Some(300), Some(true))
        );
        assert!(v["next_cursor"].is_string());
        client.cancel().await.unwrap();
        drop(server);
    }
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

/// One raw HTTP/1.1 request to the server of `url` (`Connection: close`): the
/// whole response as text.
fn raw_http(url: &str, request: &str) -> String {
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

/// An `initialize` POST to `target` with `headers`.
fn initialize(url: &str, target: &str, headers: &[String]) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    raw_http(
        url,
        &format!(
            "POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// The response is a 401 with `WWW-Authenticate: Bearer` and nothing else: no
/// body, no MCP header, no hint.
fn assert_refused(reply: &str, what: &str) {
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((reply, ""));
    assert!(
        head.starts_with("HTTP/1.1 401 Unauthorized\r\n"),
        "{what}: {reply}"
    );
    let mut headers: Vec<String> = head
        .lines()
        .skip(1)
        .map(|l| l.split(':').next().unwrap().to_ascii_lowercase())
        .collect();
    headers.sort();
    // `connection: close` answers the request's own.
    assert_eq!(
        headers,
        ["connection", "content-length", "date", "www-authenticate"],
        "{what}: {reply}"
    );
    let lower = head.to_ascii_lowercase();
    assert!(
        lower.contains("\r\nwww-authenticate: bearer\r\n"),
        "{what}: {reply}"
    );
    assert!(
        lower.contains("\r\ncontent-length: 0\r\n"),
        "{what}: {reply}"
    );
    assert!(body.is_empty(), "{what}: {body}");
}

async fn http_client_with_token(
    url: &str,
    token: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned()).auth_header(token);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

const TOKEN: &str = "tsa-test-token-7f3a9c1e5b2d8f60a4c7e9b1d3f5a7c9";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_lets_only_its_holder_in() {
    let p = project("python");
    let secret = tempfile::tempdir().unwrap();
    // The operator's file, outside the project, as editors save it (trailing newline).
    let file = secret.path().join("token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let server = HttpServer::start_with(
        &p.root,
        &[
            "--allow-remote",
            "--auth-token-file",
            file.to_str().unwrap(),
        ],
    );
    let bearer = |t: &str| vec![format!("Authorization: Bearer {t}")];

    assert_refused(&initialize(&server.url, "/mcp", &[]), "no token");
    assert_refused(
        &initialize(
            &server.url,
            "/mcp",
            &bearer("tsa-test-token-wrong-but-just-as-long-0000000"),
        ),
        "a wrong token",
    );
    assert_refused(
        &initialize(&server.url, "/mcp", &bearer(&TOKEN[..TOKEN.len() - 1])),
        "the token less its last character",
    );
    assert_refused(
        &initialize(
            &server.url,
            "/mcp",
            &[format!("Authorization: Basic {TOKEN}")],
        ),
        "another scheme",
    );
    assert_refused(
        &initialize(&server.url, &format!("/mcp?access_token={TOKEN}"), &[]),
        "the token in the URL",
    );
    assert_refused(
        &initialize(&server.url, &format!("/mcp?token={TOKEN}"), &bearer(TOKEN)),
        "the token in the URL, beside the right header",
    );
    assert_refused(
        &raw_http(
            &server.url,
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        ),
        "another path without a token",
    );

    // The right token, sent as a client sends it, gets the whole server.
    let ok = initialize(&server.url, "/mcp", &bearer(TOKEN));
    assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
    let client = http_client_with_token(&server.url, TOKEN).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 9);
    let (is_error, answer) = mcp_call(&client, "nav", callers()).await;
    assert!(!is_error, "{answer}");
    assert_eq!(answer["caller_count"], 8);
    // And a client with a wrong one gets nothing.
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let wrong = StreamableHttpClientTransportConfig::with_uri(server.url.clone())
        .auth_header("tsa-test-token-wrong-but-just-as-long-0000000");
    assert!(
        ().serve(StreamableHttpClientTransport::from_config(wrong))
            .await
            .is_err()
    );

    drop(client);
    let (code, rest) = server.terminate();
    assert_eq!(code, Some(0), "{rest}");
    assert!(!rest.contains(TOKEN), "the token is never logged: {rest}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_from_the_environment_guards_a_loopback_server() {
    let p = project("python");
    let server = HttpServer::start_env(&p.root, &[], &[("TSA_AUTH_TOKEN", TOKEN)]);
    assert_refused(&initialize(&server.url, "/mcp", &[]), "no token");
    let client = http_client_with_token(&server.url, TOKEN).await;
    let (is_error, answer) = mcp_call(&client, "nav", callers()).await;
    assert!(!is_error, "{answer}");
    drop(client);
    let (_, rest) = server.terminate();
    assert!(!rest.contains(TOKEN), "{rest}");
}

/// How `tsa mcp` refuses to start: exit 2 and a message that never holds the token.
fn refused_start(args: &[&str], env: &[(&str, &str)]) -> String {
    let p = project("python");
    let out = Command::new(bin())
        .arg("mcp")
        .args(args)
        .arg("--project-root")
        .arg(&p.root)
        .env_remove("TSA_AUTH_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
    err
}

#[test]
fn allow_remote_without_a_usable_token_refuses_to_start() {
    for addr in ["127.0.0.1:0", "0.0.0.0:0"] {
        let err = refused_start(&["--http", addr, "--allow-remote"], &[]);
        assert!(
            err.contains("--allow-remote without a bearer token")
                && err.contains("--auth-token-file")
                && err.contains("TSA_AUTH_TOKEN"),
            "{err}"
        );
    }
    let err = refused_start(
        &["--http", "127.0.0.1:0", "--allow-remote"],
        &[("TSA_AUTH_TOKEN", "")],
    );
    assert!(err.contains("TSA_AUTH_TOKEN is empty"), "{err}");
    let short = "abc123";
    let err = refused_start(&["--http", "127.0.0.1:0"], &[("TSA_AUTH_TOKEN", short)]);
    assert!(
        err.contains("shorter than 16") && !err.contains(short),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    std::fs::write(&big, format!("{TOKEN}\n").repeat(200)).unwrap();
    let err = refused_start(
        &[
            "--http",
            "127.0.0.1:0",
            "--allow-remote",
            "--auth-token-file",
            big.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        err.contains("larger than 4096 bytes") && !err.contains(TOKEN),
        "{err}"
    );
    let spaced = dir.path().join("spaced");
    std::fs::write(&spaced, format!("{TOKEN} {TOKEN}\n")).unwrap();
    let err = refused_start(
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-token-file",
            spaced.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        err.contains("printable ASCII") && !err.contains(TOKEN),
        "{err}"
    );
    let err = refused_start(
        &[
            "--http",
            "127.0.0.1:0",
            "--auth-token-file",
            dir.path().join("missing").to_str().unwrap(),
        ],
        &[],
    );
    assert!(err.contains("cannot read the token file"), "{err}");
    // The file means nothing without --http.
    let out = Command::new(bin())
        .args(["mcp", "--auth-token-file", big.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
