//! The MCP server: lists the 9 tools and answers `tools/call` through the same
//! dispatcher as the CLI. Stdout carries protocol bytes only; logs go to stderr.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ResourceUpdatedNotificationParam,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool, ToolAnnotations,
    UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tsa_index::{Progress, ProgressSink};
use tsa_tools::{Context, OutputFormat, Presentation, call, hyphae, tool_descriptions};

/// The tsa MCP server; one per connection.
#[derive(Clone)]
pub struct TsaServer {
    ctx: Arc<Mutex<Context>>,
    tools: Arc<Vec<Tool>>,
}

impl TsaServer {
    /// A server bound to `root` when given (else `set_project_path` must come first).
    pub fn new(mut ctx: Context) -> Self {
        // This transport can push resources/updated notifications.
        ctx.set_push(true);
        let tools = tool_descriptions()
            .into_iter()
            .map(|t| {
                let annotations = ToolAnnotations::with_title(t.title)
                    .read_only(t.read_only)
                    .destructive(false)
                    .idempotent(t.read_only)
                    .open_world(false);
                Tool::new(t.name, t.description, Arc::new(t.input_schema))
                    .with_annotations(annotations)
            })
            .collect();
        TsaServer {
            ctx: Arc::new(Mutex::new(ctx)),
            tools: Arc::new(tools),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Context> {
        match self.ctx.lock() {
            Ok(c) => c,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// The one "the index may have changed" hook: re-evaluates the subscribed
    /// selectors and sends `notifications/resources/updated` for each URI whose
    /// result changed (at most once per URI, respecting each `min_interval`).
    /// Called after every tool call; a file watcher that syncs the index calls it too.
    /// Returns how many notifications were sent.
    pub async fn notify_subscribers(&self, peer: &Peer<RoleServer>) -> usize {
        let server = self.clone();
        let changed = tokio::task::spawn_blocking(move || server.lock().changed_subscriptions())
            .await
            .unwrap_or_default();
        let mut sent = 0;
        for uri in changed {
            if peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await
                .is_err()
            {
                break;
            }
            sent += 1;
        }
        sent
    }

    /// The `search select` payload of a `tsa://hyphae/...` URI, as JSON text.
    fn read_selector(&self, uri: &str) -> Result<String, McpError> {
        let selector = hyphae::selector_of_uri(uri).ok_or_else(|| {
            McpError::resource_not_found(
                format!("unknown resource '{uri}' (expected tsa://hyphae/<url-encoded selector>)"),
                None,
            )
        })?;
        let reply = {
            let mut ctx = self.lock();
            call(
                &mut ctx,
                "search",
                json!({"action": "select", "selector": selector, "output_format": "json"}),
                OutputFormat::Json,
            )
        };
        if reply.is_error {
            let msg = reply
                .body
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("selector failed")
                .to_owned();
            return Err(McpError::invalid_params(
                msg,
                Some(Value::Object(reply.body)),
            ));
        }
        serde_json::to_string(&Value::Object(reply.body))
            .map_err(|e| McpError::internal_error(format!("serialisation failed: {e}"), None))
    }

    fn answer(&self, name: &str, args: Value, progress: Option<ProgressSink>) -> CallToolResult {
        let reply = {
            let mut ctx = self.lock();
            ctx.set_progress(progress);
            let reply = call(&mut ctx, name, args, OutputFormat::Toon);
            ctx.set_progress(None);
            reply
        };
        let text = reply.text(Presentation::Compact);
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.is_error = Some(reply.is_error);
        result
    }
}

impl ServerHandler for TsaServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
            .with_server_info(Implementation::new("tsa", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "tsa answers code questions from a local index: search, nav, structure, health, edit, project, \
                 index, viz, plus set_project_path. Every answer keeps the agent envelope contract \
                 (verdict, summary_line, next_step, honest truncation); TOON by default, output_format=json on request.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let server = self.clone();
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // Progress notifications when the client sent a progress token: the build
        // reports from worker threads into a channel a task forwards to the peer.
        let token = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let (sink, forward) = match token {
            Some(token) => {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
                let peer = context.peer.clone();
                let forward = tokio::spawn(async move {
                    while let Some(p) = rx.recv().await {
                        let mut note = ProgressNotificationParam::new(token.clone(), p.done as f64);
                        note.total = Some(p.total as f64);
                        note.message = Some(format!("{}: {}/{} files", p.phase, p.done, p.total));
                        if peer.notify_progress(note).await.is_err() {
                            break;
                        }
                    }
                });
                let sink: ProgressSink = Arc::new(move |p: Progress| {
                    let _ = tx.send(p);
                });
                (Some(sink), Some(forward))
            }
            None => (None, None),
        };
        // Index builds and queries block; keep them off the protocol task.
        let result = tokio::task::spawn_blocking(move || server.answer(&name, args, sink))
            .await
            .map_err(|e| McpError::internal_error(format!("tool task failed: {e}"), None))?;
        if let Some(f) = forward {
            let _ = f.await;
        }
        // Index builds (index sync/full/auto/build) change selector results.
        self.notify_subscribers(&context.peer).await;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let subs = self.lock().subscriptions();
        let mut seen = std::collections::BTreeSet::new();
        let resources = subs
            .into_iter()
            .filter(|s| seen.insert(s.uri.clone()))
            .map(|s| {
                Resource::new(s.uri, format!("hyphae: {}", s.selector))
                    .with_description("search action=select result of a subscribed selector")
                    .with_mime_type("application/json")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("tsa://hyphae/{selector}", "hyphae")
                .with_title("Hyphae selector result")
                .with_description(
                    "The search action=select answer (JSON) for a URL-encoded Hyphae selector; subscribe to get notifications/resources/updated when it changes",
                )
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let server = self.clone();
        let uri = request.uri.clone();
        let text = tokio::task::spawn_blocking(move || server.read_selector(&uri))
            .await
            .map_err(|e| McpError::internal_error(format!("resource task failed: {e}"), None))??;
        let contents = match ResourceContents::text(text, request.uri) {
            ResourceContents::TextResourceContents {
                uri, text, meta, ..
            } => ResourceContents::TextResourceContents {
                uri,
                mime_type: Some("application/json".into()),
                text,
                meta,
            },
            other => other,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let selector = hyphae::selector_of_uri(&request.uri).ok_or_else(|| {
            McpError::resource_not_found(
                format!(
                    "cannot subscribe to '{}' (expected tsa://hyphae/<url-encoded selector>)",
                    request.uri
                ),
                None,
            )
        })?;
        let server = self.clone();
        tokio::task::spawn_blocking(move || {
            let reply = {
                let mut ctx = server.lock();
                call(
                    &mut ctx,
                    "search",
                    json!({"action": "subscribe", "selector": selector, "output_format": "json"}),
                    OutputFormat::Json,
                )
            };
            if reply.is_error {
                let msg = reply
                    .body
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("subscribe failed")
                    .to_owned();
                return Err(McpError::invalid_params(
                    msg,
                    Some(Value::Object(reply.body)),
                ));
            }
            Ok(())
        })
        .await
        .map_err(|e| McpError::internal_error(format!("subscribe task failed: {e}"), None))?
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let gone = self.lock().unsubscribe(None, None, Some(&request.uri));
        if gone.is_empty() {
            return Err(McpError::resource_not_found(
                format!("no subscription for '{}'", request.uri),
                None,
            ));
        }
        Ok(())
    }
}

/// Where the project root comes from: the flag, else `TREE_SITTER_PROJECT_ROOT`.
pub fn root_from(flag: Option<PathBuf>) -> Option<PathBuf> {
    flag.or_else(|| std::env::var_os("TREE_SITTER_PROJECT_ROOT").map(PathBuf::from))
}

/// Serves MCP over stdio until the client disconnects. With `watch`, a file watcher
/// keeps the index in sync as files change (one sync per burst of changes, git
/// checkouts included) and notifies resource subscribers right after each sync.
pub async fn serve_stdio(
    ctx: Context,
    watch: bool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let root = ctx.root().ok().map(std::path::Path::to_path_buf);
    let server = TsaServer::new(ctx);
    let running = server.clone().serve(rmcp::transport::stdio()).await?;
    let _watch = match (watch, root) {
        (true, Some(root)) => Some(server.watch(&root, running.peer().clone())?),
        (true, None) => {
            tracing_free_log("tsa mcp --watch: no project root; nothing to watch");
            None
        }
        (false, _) => None,
    };
    running.waiting().await?;
    Ok(())
}

/// One line on stderr (stdout carries protocol bytes only).
fn tracing_free_log(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

impl TsaServer {
    /// Starts the watcher of `root`: each burst syncs the index under the session
    /// lock (so it never races a tool call), then notifies subscribers.
    fn watch(
        &self,
        root: &std::path::Path,
        peer: Peer<RoleServer>,
    ) -> Result<tsa_watch::Handle, tsa_watch::WatchError> {
        // Each sync sends when it finished and how long it took; the notifier logs how
        // long after the sync the subscribers were told (the figure the live index
        // promises to keep under 100 ms).
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Instant, Duration)>();
        let notifier = self.clone();
        tokio::spawn(async move {
            while let Some((synced_at, took)) = rx.recv().await {
                let sent = notifier.notify_subscribers(&peer).await;
                if sent > 0 {
                    tracing_free_log(&format!(
                        "tsa mcp --watch: synced in {} ms; {sent} subscription(s) notified {:.1} ms after the sync",
                        took.as_millis(),
                        synced_at.elapsed().as_secs_f64() * 1000.0
                    ));
                }
            }
        });
        let server = self.clone();
        let watched = root.to_path_buf();
        tsa_watch::watch(root, tsa_watch::Config::default(), move |_burst| {
            let started = Instant::now();
            let synced = {
                let ctx = server.lock();
                // After set_project_path the watched tree is no longer the project.
                match ctx.root() {
                    Ok(r) if r == watched => {
                        tsa_index::build(&watched, &ctx.build_options()).is_ok()
                    }
                    _ => false,
                }
            };
            if synced {
                let _ = tx.send((Instant::now(), started.elapsed()));
            }
        })
    }
}
