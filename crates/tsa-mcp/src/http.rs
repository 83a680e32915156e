//! MCP over streamable HTTP (rmcp's `StreamableHttpService` with in-memory
//! sessions) on a hyper HTTP/1.1 server: `POST/GET/DELETE /mcp`. One `TsaServer`
//! per session, all sessions on one [`Hub`]. Binds only the address given (a
//! non-loopback one only with `--allow-remote`, which needs a bearer token; see
//! `auth.rs`); stops on SIGINT/SIGTERM, closing the sessions and letting open
//! requests finish.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tsa_tools::Context;

use crate::auth::{MIN_TOKEN_CHARS, TOKEN_ENV, Token, unauthorized};
use crate::{Hub, log_line};

/// The path the MCP endpoint is served on.
pub const MCP_PATH: &str = "/mcp";
/// How long open requests may take to finish after a stop signal.
const DRAIN: Duration = Duration::from_secs(5);

/// `tsa mcp --http ADDR` options.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The one address to bind (port 0: any free port, printed on stderr).
    pub addr: SocketAddr,
    /// The project every new session starts on (`None`: `set_project_path` first).
    pub root: Option<PathBuf>,
    /// Keep the root's index in sync as files change.
    pub watch: bool,
    /// Accept a non-loopback `addr` (refused otherwise); needs `auth`.
    pub allow_remote: bool,
    /// The bearer token every request must carry (`None`: no authentication,
    /// allowed on loopback only).
    pub auth: Option<Token>,
    /// Also serve the MCP conformance suite's fixtures (tests only).
    pub conformance_fixtures: bool,
    /// The character budget of an answer without `max_chars` ([`crate::answer_budget`]).
    pub max_chars: usize,
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r
}

/// Why an address is refused without `--allow-remote`, if it is.
pub fn refusal(addr: &SocketAddr, allow_remote: bool) -> Option<String> {
    (!addr.ip().is_loopback() && !allow_remote).then(|| {
        format!(
            "refusing to serve on non-loopback address {addr}: the server answers with the \
             project's source; bind 127.0.0.1 or [::1], or pass --allow-remote with a bearer \
             token (--auth-token-file FILE or {TOKEN_ENV})"
        )
    })
}

/// The token of `tsa mcp --http` (`--auth-token-file`, else `TSA_AUTH_TOKEN`), or
/// why the server must not start: an unusable token, or `--allow-remote` without one.
/// The message never contains the token.
pub fn http_auth(file: Option<&Path>, allow_remote: bool) -> Result<Option<Token>, String> {
    let token = Token::load(file).map_err(|e| e.to_string())?;
    if let Some(path) = file
        && let Ok(meta) = std::fs::metadata(path)
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            log_line(&format!(
                "tsa mcp: warning: the token file {} can be read by other users; `chmod 600` it",
                path.display()
            ));
        }
    }
    if allow_remote && token.is_none() {
        return Err(format!(
            "refusing --allow-remote without a bearer token: pass --auth-token-file FILE or set \
             {TOKEN_ENV} (at least {MIN_TOKEN_CHARS} printable characters, e.g. `openssl rand -hex 32`); \
             clients then send `Authorization: Bearer <token>`"
        ));
    }
    Ok(token)
}

/// Waits for SIGINT or SIGTERM.
async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` until SIGINT/SIGTERM.
/// Prints `tsa mcp: listening on http://ADDR/mcp` (the bound address, so port 0
/// shows the port picked) on stderr once it accepts connections.
pub async fn serve_http(opts: HttpOptions) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    if let Some(why) = refusal(&opts.addr, opts.allow_remote) {
        return Err(why.into());
    }
    if opts.allow_remote && opts.auth.is_none() {
        return Err("refusing --allow-remote without a bearer token".into());
    }
    let listener = tokio::net::TcpListener::bind(opts.addr).await?;
    let bound = listener.local_addr()?;
    let hub = if opts.conformance_fixtures {
        Hub::with_conformance_fixtures(opts.max_chars)
    } else {
        Hub::with_budget(opts.max_chars)
    };
    let stop = CancellationToken::new();

    // DNS-rebinding guard: on loopback only loopback Host headers pass; a
    // deliberately remote server also accepts its own address (any, when bound to
    // all interfaces).
    let mut config =
        StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
    if !bound.ip().is_loopback() {
        config = if bound.ip().is_unspecified() {
            config.disable_allowed_hosts()
        } else {
            let mut hosts = config.allowed_hosts.clone();
            hosts.push(bound.ip().to_string());
            config.with_allowed_hosts(hosts)
        };
    }
    let root = opts.root.clone();
    let factory_hub = Arc::clone(&hub);
    let service = StreamableHttpService::new(
        move || {
            let ctx = match &root {
                Some(r) => Context::with_root(r)
                    .map_err(|e| std::io::Error::other(format!("project root: {e}")))?,
                None => Context::new(),
            };
            Ok(factory_hub.session(ctx))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let _watch = match (&opts.watch, &opts.root) {
        (true, Some(root)) => Some(hub.watch(root)?),
        (true, None) => {
            log_line("tsa mcp --watch: no project root; nothing to watch");
            None
        }
        (false, _) => None,
    };

    log_line(&format!("tsa mcp: listening on http://{bound}{MCP_PATH}"));
    if opts.auth.is_some() {
        log_line("tsa mcp: every request must carry `Authorization: Bearer <token>`");
    }
    if let Some(root) = &opts.root {
        crate::check_index_at_start(root);
    }
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let signal = stop_signal();
    tokio::pin!(signal);
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of descriptors and the like: keep serving the open ones.
                Err(e) => {
                    log_line(&format!("tsa mcp: accept failed: {e}"));
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut signal => break,
        };
        let service = service.clone();
        let auth = opts.auth.clone();
        let handler = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
            let service = service.clone();
            let admitted = auth.as_ref().is_none_or(|t| t.admits(&req));
            async move {
                // Before anything else, the path included: a stranger learns nothing.
                if !admitted {
                    return Ok::<_, Infallible>(unauthorized());
                }
                if req.uri().path() != MCP_PATH {
                    return Ok::<_, Infallible>(plain(
                        StatusCode::NOT_FOUND,
                        "not found: the MCP endpoint is /mcp\n",
                    ));
                }
                Ok(service.handle(req).await)
            }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(stream), handler);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
    drop(listener);
    log_line("tsa mcp: stopping");
    // Ends the sessions (and their SSE streams), then lets requests in flight finish.
    stop.cancel();
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        log_line("tsa mcp: some connections did not close in time");
    }
    log_line("tsa mcp: stopped");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::refusal;

    #[test]
    fn only_loopback_without_the_explicit_flag() {
        let lo: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
        let lo6: std::net::SocketAddr = "[::1]:8080".parse().unwrap();
        let any: std::net::SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert!(refusal(&lo, false).is_none());
        assert!(refusal(&lo6, false).is_none());
        assert!(refusal(&any, false).is_some_and(|m| m.contains("--allow-remote")));
        assert!(refusal(&any, true).is_none());
    }
}
