//! The MCP server: lists the 9 tools and answers `tools/call` through the same
//! dispatcher as the CLI, serves `tsa://hyphae/...` resources, the built-in skills
//! as prompts, completions and log messages. Two transports share one handler:
//! stdio ([`serve_stdio`]) and streamable HTTP ([`serve_http`]). Stdout carries
//! protocol bytes only; logs go to stderr.

mod auth;
mod conformance;
mod http;
mod prompts;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;

pub use auth::{TOKEN_ENV, Token, TokenError};
pub use http::{HttpOptions, MCP_PATH, http_auth, refusal as http_refusal, serve_http};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ResourceUpdatedNotificationParam,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, Tool, ToolAnnotations,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tsa_index::{Progress, ProgressSink};
use tsa_tools::{
    Context, OutputFormat, Presentation, call, call_within, hyphae, tool_descriptions,
};

/// What the sessions of one server process share: the tool list, the bound on
/// tool work running at once (blocking threads, index connections), and the live
/// sessions, which a file watcher notifies after each sync.
pub struct Hub {
    tools: Arc<Vec<Tool>>,
    work: Arc<tokio::sync::Semaphore>,
    sessions: Mutex<Vec<Weak<Session>>>,
    /// Also serve the MCP conformance suite's fixtures (`--conformance-fixtures`).
    fixtures: bool,
    /// The character budget of an answer that sets no `max_chars` ([`answer_budget`]).
    budget: usize,
}

/// The budget of an answer with no `max_chars` when nothing else is said.
pub const DEFAULT_MAX_CHARS: usize = 40_000;
/// The variable Claude Code reads for its cap on a tool result, in tokens.
pub const MAX_TOKENS_ENV: &str = "MAX_MCP_OUTPUT_TOKENS";
/// Characters per token when a token cap becomes a character budget: JSON and
/// code run at about 3 to 4 characters a token, so 3 stays under the host's cap.
pub const CHARS_PER_TOKEN: usize = 3;

/// The character budget of an MCP answer that sets no `max_chars`: the
/// `--max-chars` flag, else `MAX_MCP_OUTPUT_TOKENS` (tokens x 3) when it is a
/// positive integer, else [`DEFAULT_MAX_CHARS`].
pub fn answer_budget(flag: Option<usize>) -> usize {
    let from_env = std::env::var(MAX_TOKENS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .map(|tokens| tokens.saturating_mul(CHARS_PER_TOKEN));
    flag.filter(|n| *n > 0)
        .or(from_env)
        .unwrap_or(DEFAULT_MAX_CHARS)
}

/// One MCP session: its project context, its peer once initialised, and the
/// log level its client asked for.
struct Session {
    ctx: Mutex<Context>,
    peer: OnceLock<Peer<RoleServer>>,
    /// Lowest level sent (`Level` rank); `NO_LOGS` until `logging/setLevel`.
    log_level: AtomicU8,
    /// Conformance fixture resources this session subscribed to.
    fixture_subscriptions: Mutex<std::collections::BTreeSet<String>>,
}

/// Log levels (RFC 5424 order, as `logging/setLevel` names them), lowest first.
const LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];
const NO_LOGS: u8 = u8::MAX;

fn level_rank(level: &str) -> u8 {
    LEVELS.iter().position(|l| *l == level).unwrap_or(0) as u8
}

impl Hub {
    /// A hub whose tool work runs at most `max(8, 2 x cores)` calls at once; more
    /// wait on the async side (no thread, no index connection held).
    pub fn new() -> Arc<Self> {
        Self::build(false, answer_budget(None))
    }

    /// [`Hub::new`] whose answers without `max_chars` stay within `budget` characters.
    pub fn with_budget(budget: usize) -> Arc<Self> {
        Self::build(false, budget)
    }

    /// A hub that also serves the MCP conformance suite's fixture tools, resources
    /// and prompts (see `conformance.rs`); only `scripts/mcp-conformance.sh` wants it.
    pub fn with_conformance_fixtures(budget: usize) -> Arc<Self> {
        Self::build(true, budget)
    }

    fn build(fixtures: bool, budget: usize) -> Arc<Self> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let tools = tool_descriptions()
            .into_iter()
            .map(|t| {
                let annotations = ToolAnnotations::with_title(t.title)
                    .read_only(t.read_only)
                    .destructive(t.destructive)
                    .idempotent(t.read_only)
                    .open_world(false);
                Tool::new(t.name, t.description, Arc::new(t.input_schema))
                    .with_annotations(annotations)
            })
            .chain(fixtures.then(conformance::tools).into_iter().flatten())
            .collect();
        Arc::new(Hub {
            tools: Arc::new(tools),
            work: Arc::new(tokio::sync::Semaphore::new((2 * cores).max(8))),
            sessions: Mutex::new(Vec::new()),
            fixtures,
            budget,
        })
    }

    /// A new session of this hub on `ctx`.
    pub fn session(self: &Arc<Self>, mut ctx: Context) -> TsaServer {
        // This transport can push resources/updated notifications.
        ctx.set_push(true);
        let session = Arc::new(Session {
            ctx: Mutex::new(ctx),
            peer: OnceLock::new(),
            log_level: AtomicU8::new(NO_LOGS),
            fixture_subscriptions: Mutex::new(Default::default()),
        });
        let mut live = lock(&self.sessions);
        live.retain(|s| s.strong_count() > 0);
        live.push(Arc::downgrade(&session));
        TsaServer {
            session,
            hub: Arc::clone(self),
        }
    }

    /// The sessions still open that know their peer.
    fn live(self: &Arc<Self>) -> Vec<TsaServer> {
        let mut live = lock(&self.sessions);
        live.retain(|s| s.strong_count() > 0);
        live.iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.peer.get().is_some())
            .map(|session| TsaServer {
                session,
                hub: Arc::clone(self),
            })
            .collect()
    }

    /// Starts the watcher of `root`: each burst of changes syncs its index (under
    /// the index's build lock, so it never races another build; reads go on),
    /// then every session on that project is told: a log message, and
    /// `notifications/resources/updated` for its changed subscriptions.
    pub fn watch(
        self: &Arc<Self>,
        root: &Path,
    ) -> Result<tsa_watch::Handle, tsa_watch::WatchError> {
        // Each outcome carries when its sync finished: after each notifying sync one
        // stderr line says how long after it the subscribers were told (the figure
        // the live index promises to keep under 100 ms).
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Value, Instant)>();
        let hub = Arc::clone(self);
        let watched = root.to_path_buf();
        tokio::spawn(async move {
            while let Some((outcome, synced_at)) = rx.recv().await {
                let mut sent = 0;
                for server in hub.live() {
                    if server.root().as_deref() != Some(watched.as_path()) {
                        continue;
                    }
                    let Some(peer) = server.session.peer.get().cloned() else {
                        continue;
                    };
                    let level = if outcome["event"] == "sync" {
                        "info"
                    } else {
                        "error"
                    };
                    server.log(&peer, level, outcome.clone()).await;
                    sent += server.notify_subscribers(&peer).await;
                }
                if sent > 0 {
                    log_line(&format!(
                        "tsa mcp --watch: synced in {} ms; {sent} subscription(s) notified {:.1} ms after the sync",
                        outcome["elapsed_ms"].as_u64().unwrap_or(0),
                        synced_at.elapsed().as_secs_f64() * 1000.0
                    ));
                }
            }
        });
        // The build options of a session on this root (health's tree facts included).
        let opts = Context::with_root(root)
            .map(|c| c.build_options())
            .unwrap_or_default();
        let sync_root = root.to_path_buf();
        let config = tsa_watch::Config::default();
        tsa_watch::watch_and_sync(root, opts, config, move |synced| {
            let line = match synced.report {
                Ok(r) => {
                    let mut line = json!({
                        "event": "sync",
                        "new_files": r.new_files,
                        "updated_files": r.updated_files,
                        "deleted_files": r.deleted,
                        "changed_paths": synced.burst.paths.len(),
                        "elapsed_ms": synced.elapsed.as_millis() as u64,
                    });
                    if let Some(q) = &r.healed {
                        let warning = tsa_tools::moved_aside_warning(q, Some(&r));
                        log_line(&format!("tsa mcp --watch: {warning}"));
                        line["index_rebuilt"] = json!(warning);
                        tsa_tools::remember_index_note(&sync_root, warning);
                    }
                    line
                }
                Err(e) => json!({"event": "error", "error": e.to_string()}),
            };
            let _ = tx.send((line, Instant::now()));
        })
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The tsa MCP handler; one per session (connection).
#[derive(Clone)]
pub struct TsaServer {
    session: Arc<Session>,
    hub: Arc<Hub>,
}

impl TsaServer {
    /// A server with its own hub, bound to the context's root when it has one
    /// (else `set_project_path` must come first).
    pub fn new(ctx: Context) -> Self {
        Hub::new().session(ctx)
    }

    /// A snapshot of the session context: cheap (a path and shared handles).
    /// Calls run on snapshots, so they run at once; only `set_project_path`
    /// changes the session's own context.
    fn snapshot(&self) -> Context {
        lock(&self.session.ctx).clone()
    }

    fn root(&self) -> Option<PathBuf> {
        lock(&self.session.ctx).root().ok().map(Path::to_path_buf)
    }

    fn remember_peer(&self, peer: &Peer<RoleServer>) {
        let _ = self.session.peer.set(peer.clone());
    }

    /// Sends a `notifications/message` when the client asked for `level` or lower.
    #[allow(
        deprecated,
        reason = "logging is still part of the protocol versions served"
    )]
    async fn log(&self, peer: &Peer<RoleServer>, level: &str, data: Value) {
        use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
        if level_rank(level) < self.session.log_level.load(Ordering::Relaxed) {
            return;
        }
        let level = match level {
            "debug" => LoggingLevel::Debug,
            "info" => LoggingLevel::Info,
            "notice" => LoggingLevel::Notice,
            "warning" => LoggingLevel::Warning,
            "error" => LoggingLevel::Error,
            "critical" => LoggingLevel::Critical,
            "alert" => LoggingLevel::Alert,
            _ => LoggingLevel::Emergency,
        };
        let _ = peer
            .notify_logging_message(
                LoggingMessageNotificationParam::new(level, data).with_logger("tsa"),
            )
            .await;
    }

    /// The one "the index may have changed" hook: re-evaluates the subscribed
    /// selectors and sends `notifications/resources/updated` for each URI whose
    /// result changed (at most once per URI, respecting each `min_interval`).
    /// Called after every tool call; the file watcher calls it after each sync.
    /// Returns how many notifications were sent.
    pub async fn notify_subscribers(&self, peer: &Peer<RoleServer>) -> usize {
        let mut ctx = self.snapshot();
        if ctx.subscriptions().is_empty() {
            return 0;
        }
        let changed = tokio::task::spawn_blocking(move || ctx.changed_subscriptions())
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

    /// Runs blocking tool work on the blocking pool once the hub grants a slot.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&TsaServer) -> T + Send + 'static,
    ) -> Result<T, McpError> {
        let permit = Arc::clone(&self.hub.work)
            .acquire_owned()
            .await
            .map_err(|e| McpError::internal_error(format!("server closing: {e}"), None))?;
        let server = self.clone();
        tokio::task::spawn_blocking(move || {
            let out = work(&server);
            drop(permit);
            out
        })
        .await
        .map_err(|e| McpError::internal_error(format!("tool task failed: {e}"), None))
    }

    /// The `search select` payload of a `tsa://hyphae/...` URI, as JSON text.
    fn read_selector(&self, uri: &str) -> Result<String, McpError> {
        let selector = hyphae::selector_of_uri(uri).ok_or_else(|| {
            McpError::resource_not_found(
                format!("unknown resource '{uri}' (expected tsa://hyphae/<url-encoded selector>)"),
                None,
            )
        })?;
        let reply = call(
            &mut self.snapshot(),
            "search",
            json!({"action": "select", "selector": selector, "output_format": "json"}),
            OutputFormat::Json,
        );
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

    fn answer(
        &self,
        name: &str,
        args: Value,
        progress: Option<ProgressSink>,
        cancel: Arc<std::sync::atomic::AtomicBool>,
    ) -> CallToolResult {
        let budget = Some(self.hub.budget);
        let answer = |ctx: &mut Context| {
            call_within(
                ctx,
                name,
                args,
                OutputFormat::Toon,
                Presentation::Compact,
                budget,
            )
        };
        let reply = if name == "set_project_path" {
            // The one call that changes the session itself.
            answer(&mut lock(&self.session.ctx))
        } else {
            let mut ctx = self.snapshot();
            ctx.set_progress(progress);
            ctx.set_cancel(Some(cancel));
            answer(&mut ctx)
        };
        let text = reply.text(Presentation::Compact);
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.is_error = Some(reply.is_error);
        result
    }
}

impl ServerHandler for TsaServer {
    #[allow(
        deprecated,
        reason = "logging is still part of the protocol versions served"
    )]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_prompts()
                .enable_completions()
                .enable_logging()
                .build(),
        )
            .with_server_info(Implementation::new("tsa", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "tsa answers code questions from a local index: search, nav, structure, health, edit, project, \
                 index, viz, plus set_project_path. Every answer keeps the agent envelope contract \
                 (verdict, summary_line, next_step, honest truncation); TOON by default, output_format=json on request. \
                 Prompts are tsa's skills (step-by-step procedures).",
            )
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.remember_peer(&context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.hub.tools.as_ref().clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.remember_peer(&context.peer);
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        // Progress notifications when the client sent a progress token: the build
        // reports from worker threads into a channel a task forwards to the peer.
        let token = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        if self.hub.fixtures
            && let Some(answer) =
                conformance::call(self, &name, &args, &context, token.clone()).await
        {
            return answer.map(Into::into);
        }
        let (sink, forward) = match token {
            Some(token) => {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
                let peer = context.peer.clone();
                let forward = tokio::spawn(async move {
                    while let Some(p) = rx.recv().await {
                        let mut note = ProgressNotificationParam::new(token.clone(), p.done as f64);
                        note.total = Some(p.total as f64);
                        let unit = if p.phase == "verify" {
                            "steps"
                        } else {
                            "files"
                        };
                        note.message = Some(format!("{}: {}/{} {unit}", p.phase, p.done, p.total));
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
        let started = Instant::now();
        let tool = name.clone();
        // A cancellation (notifications/cancelled) raises a flag long actions poll
        // (verify kills its test's process tree), even if this future is dropped.
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watcher = {
            let (ct, flag) = (context.ct.clone(), cancel.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
            })
        };
        // Index builds and queries block; keep them off the protocol task.
        let result = self
            .blocking(move |server| server.answer(&name, args, sink, cancel))
            .await;
        watcher.abort();
        let result = result?;
        if let Some(f) = forward {
            let _ = f.await;
        }
        self.log(
            &context.peer,
            "debug",
            json!({
                "event": "tool_call",
                "tool": tool,
                "is_error": result.is_error == Some(true),
                "elapsed_ms": started.elapsed().as_millis() as u64,
            }),
        )
        .await;
        // Index builds (index sync/full/auto/build) change selector results.
        self.notify_subscribers(&context.peer).await;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let subs = self.snapshot().subscriptions();
        let mut seen = std::collections::BTreeSet::new();
        let resources = subs
            .into_iter()
            .filter(|s| seen.insert(s.uri.clone()))
            .map(|s| {
                Resource::new(s.uri, format!("hyphae: {}", s.selector))
                    .with_description("search action=select result of a subscribed selector")
                    .with_mime_type("application/json")
            })
            .chain(
                self.hub
                    .fixtures
                    .then(conformance::resources)
                    .into_iter()
                    .flatten(),
            )
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let mut templates = vec![
            ResourceTemplate::new("tsa://hyphae/{selector}", "hyphae")
                .with_title("Hyphae selector result")
                .with_description(
                    "The search action=select answer (JSON) for a URL-encoded Hyphae selector; subscribe to get notifications/resources/updated when it changes",
                )
                .with_mime_type("application/json"),
        ];
        if self.hub.fixtures {
            templates.extend(conformance::templates());
        }
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if self.hub.fixtures
            && let Some(fixture) = conformance::read(&request.uri)
        {
            return Ok(fixture.into());
        }
        let uri = request.uri.clone();
        let text = self
            .blocking(move |server| server.read_selector(&uri))
            .await??;
        let contents = ResourceContents::text(text, request.uri).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.remember_peer(&context.peer);
        if self.hub.fixtures && conformance::is_resource(&request.uri) {
            lock(&self.session.fixture_subscriptions).insert(request.uri);
            return Ok(());
        }
        let selector = hyphae::selector_of_uri(&request.uri).ok_or_else(|| {
            McpError::resource_not_found(
                format!(
                    "cannot subscribe to '{}' (expected tsa://hyphae/<url-encoded selector>)",
                    request.uri
                ),
                None,
            )
        })?;
        self.blocking(move |server| {
            let reply = call(
                &mut server.snapshot(),
                "search",
                json!({"action": "subscribe", "selector": selector, "output_format": "json"}),
                OutputFormat::Json,
            );
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
        .await?
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if self.hub.fixtures && lock(&self.session.fixture_subscriptions).remove(&request.uri) {
            return Ok(());
        }
        let gone = self.snapshot().unsubscribe(None, None, Some(&request.uri));
        if gone.is_empty() {
            return Err(McpError::resource_not_found(
                format!("no subscription for '{}'", request.uri),
                None,
            ));
        }
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let mut listed = prompts::list();
        if self.hub.fixtures {
            listed.extend(conformance::prompts());
        }
        Ok(ListPromptsResult::with_all_items(listed))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if self.hub.fixtures
            && let Some(fixture) =
                conformance::get_prompt(&request.name, request.arguments.as_ref())
        {
            return fixture.map(Into::into);
        }
        prompts::get(&request.name, request.arguments.as_ref()).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        if self.hub.fixtures
            && let Some(fixture) = conformance::complete(&request)
        {
            return Ok(fixture);
        }
        let root = self.root();
        self.blocking(move |_| prompts::complete(root.as_deref(), &request))
            .await?
    }

    #[allow(
        deprecated,
        reason = "logging is still part of the protocol versions served"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.remember_peer(&context.peer);
        let name = serde_json::to_value(request.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        self.session
            .log_level
            .store(level_rank(&name), Ordering::Relaxed);
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
/// Answers without `max_chars` stay within `max_chars` characters (see
/// [`answer_budget`]).
pub async fn serve_stdio(
    ctx: Context,
    watch: bool,
    max_chars: usize,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let root = ctx.root().ok().map(Path::to_path_buf);
    if let Some(root) = &root {
        check_index_at_start(root);
    }
    let hub = Hub::with_budget(max_chars);
    let server = hub.session(ctx);
    let running = server.clone().serve(rmcp::transport::stdio()).await?;
    server.remember_peer(running.peer());
    let _watch = match (watch, root) {
        (true, Some(root)) => Some(hub.watch(&root)?),
        (true, None) => {
            log_line("tsa mcp --watch: no project root; nothing to watch");
            None
        }
        (false, _) => None,
    };
    running.waiting().await?;
    Ok(())
}

/// The server's one deep check of its project's index, off the request path:
/// `PRAGMA quick_check` (2-5 ms per MiB of index) under the build lock, skipped
/// when a build holds it. A damaged index is moved aside, said on stderr and in the
/// next answer on the project, and the next call rebuilds it cold (with progress).
pub(crate) fn check_index_at_start(root: &Path) {
    let root = root.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        match tsa_index::check_and_quarantine(&root) {
            Ok(Some(q)) => {
                let warning = tsa_tools::moved_aside_warning(&q, None);
                log_line(&format!(
                    "tsa mcp: {} (found by the start-up check of {} in {} ms)",
                    warning,
                    root.display(),
                    started.elapsed().as_millis()
                ));
                tsa_tools::remember_index_note(&root, warning);
            }
            Ok(None) => {}
            Err(e) => log_line(&format!(
                "tsa mcp: start-up check of the index of {} failed: {e}",
                root.display()
            )),
        }
    });
}

/// One line on stderr (stdout carries protocol bytes only).
fn log_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
