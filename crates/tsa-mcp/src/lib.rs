//! The MCP server: lists the 9 tools and answers `tools/call` through the same
//! dispatcher as the CLI. Stdout carries protocol bytes only; logs go to stderr.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tsa_index::{Progress, ProgressSink};
use tsa_tools::{Context, OutputFormat, Presentation, call, tool_descriptions};

/// The tsa MCP server; one per connection.
#[derive(Clone)]
pub struct TsaServer {
    ctx: Arc<Mutex<Context>>,
    tools: Arc<Vec<Tool>>,
}

impl TsaServer {
    /// A server bound to `root` when given (else `set_project_path` must come first).
    pub fn new(ctx: Context) -> Self {
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

    fn answer(&self, name: &str, args: Value, progress: Option<ProgressSink>) -> CallToolResult {
        let reply = {
            let mut ctx = match self.ctx.lock() {
                Ok(c) => c,
                Err(poisoned) => poisoned.into_inner(),
            };
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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
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
        Ok(result.into())
    }
}

/// Where the project root comes from: the flag, else `TREE_SITTER_PROJECT_ROOT`.
pub fn root_from(flag: Option<PathBuf>) -> Option<PathBuf> {
    flag.or_else(|| std::env::var_os("TREE_SITTER_PROJECT_ROOT").map(PathBuf::from))
}

/// Serves MCP over stdio until the client disconnects.
pub async fn serve_stdio(ctx: Context) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let server = TsaServer::new(ctx);
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
