//! The `tsa` command line. `tsa <tool> <action> --param value ...` turns flags into
//! the same JSON arguments an MCP client sends and calls the same dispatcher, so
//! payloads, verdicts and errors are identical by construction; `tsa mcp` serves MCP.

mod params;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::Value;
use tsa_tools::{Context, OutputFormat, Presentation, Reply, ToolError, call_with};

/// Code intelligence for AI coding agents: index a repository, then ask who calls
/// what, what breaks, what is dead. Tools: search, nav, structure, health, edit,
/// project, index, viz, set_project_path. Try `tsa nav --help`.
#[derive(Debug, Parser)]
#[command(name = "tsa", version, allow_external_subcommands = true)]
struct Cli {
    /// Project root (default: $TREE_SITTER_PROJECT_ROOT, else the current directory).
    #[arg(long, global = true)]
    project_root: Option<PathBuf>,
    /// Output format of tool answers: json (CLI default) or toon.
    #[arg(long, global = true, value_parser = ["json", "toon"])]
    format: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP over stdio, or over streamable HTTP with --http (project root from
    /// --project-root or TREE_SITTER_PROJECT_ROOT).
    Mcp {
        /// Keep the index in sync as files change, and notify resource subscribers.
        #[arg(long)]
        watch: bool,
        /// Serve MCP over streamable HTTP at http://ADDR/mcp instead of stdio, e.g.
        /// 127.0.0.1:8080 (port 0: a free port; the bound address is printed on
        /// stderr). Binds only this address; stops on SIGINT/SIGTERM.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Let --http bind a non-loopback address. Requires a bearer token
        /// (--auth-token-file or TSA_AUTH_TOKEN): whoever holds it can read the
        /// project's source, and set_project_path can point the server at any
        /// directory this process can read. There is no TLS: put a TLS proxy in front,
        /// or use it only on a network you trust.
        #[arg(long, requires = "http")]
        allow_remote: bool,
        /// File holding the bearer token (at most 4096 bytes, surrounding whitespace
        /// ignored) that every HTTP request must send as `Authorization: Bearer
        /// <token>`; else TSA_AUTH_TOKEN, when set. Required with --allow-remote.
        #[arg(long, requires = "http", value_name = "FILE")]
        auth_token_file: Option<PathBuf>,
        /// Also serve the fixture tools, resources and prompts the official MCP
        /// conformance suite calls by name (scripts/mcp-conformance.sh). Tests only.
        #[arg(long, requires = "http", hide = true)]
        conformance_fixtures: bool,
    },
    /// Agent skills: `tsa skills install [--dir DIR] [--force]` writes tsa's SKILL.md
    /// procedures into the project (default `.claude/skills`).
    Skills {
        #[arg(value_parser = ["install"])]
        command: String,
        /// Folder inside the project root.
        #[arg(long)]
        dir: Option<String>,
        /// Overwrite skills that already exist there.
        #[arg(long)]
        force: bool,
    },
    /// Export the index: `tsa export scip [--output FILE]` writes a SCIP file (default
    /// `.tsa/index.scip`, always inside the project root).
    Export {
        /// Export format.
        #[arg(value_parser = ["scip"])]
        format: String,
        /// Output file, inside the project root.
        #[arg(long)]
        output: Option<String>,
    },
    /// Keep the index in sync as files change (edits, git checkout/pull), one sync per
    /// burst; prints one JSON line per sync until interrupted.
    Watch {
        /// Quiet period that ends a burst, in milliseconds.
        #[arg(long, default_value_t = 150)]
        quiet_ms: u64,
    },
    /// `<tool> <action> [--param value ...]`, e.g. `nav callers --function-name build --limit 3`.
    #[command(external_subcommand)]
    Tool(Vec<String>),
}

fn write_out(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`tsa ... | head`) ends quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}

/// Runs the CLI with the process arguments.
pub fn run() -> ExitCode {
    run_with(std::env::args_os().collect())
}

/// Runs the CLI with explicit arguments (the first is the program name).
pub fn run_with(argv: Vec<std::ffi::OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Mcp {
            watch,
            http,
            allow_remote,
            auth_token_file,
            conformance_fixtures,
        } => serve(
            tsa_mcp::root_from(cli.project_root),
            watch,
            http,
            allow_remote,
            auth_token_file,
            conformance_fixtures,
        ),
        Command::Skills {
            command: _,
            dir,
            force,
        } => {
            let root = tsa_mcp::root_from(cli.project_root.clone())
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            install_skills(root, dir, force)
        }
        Command::Export { format: _, output } => {
            let root = tsa_mcp::root_from(cli.project_root.clone())
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            export_scip(root, output)
        }
        Command::Watch { quiet_ms } => {
            let root = tsa_mcp::root_from(cli.project_root.clone())
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            watch(root, quiet_ms)
        }
        Command::Tool(words) => {
            let root = tsa_mcp::root_from(cli.project_root.clone())
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            tool(root, cli.format, words)
        }
    }
}

/// One JSON line on stdout (a closed pipe ends the watch).
fn emit(line: serde_json::Value) -> bool {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|_| out.flush()).is_ok()
}

fn sync_line(
    report: Result<tsa_index::BuildReport, tsa_index::IndexError>,
    burst: Option<&tsa_watch::Burst>,
) -> serde_json::Value {
    let mut v = match report {
        Ok(r) => serde_json::json!({
            "event": "sync",
            "new_files": r.new_files,
            "updated_files": r.updated_files,
            "deleted_files": r.deleted,
            "unchanged_files": r.cached,
            "elapsed_ms": r.elapsed_ms as u64,
        }),
        Err(e) => serde_json::json!({"event": "error", "error": e.to_string()}),
    };
    if let Some(b) = burst {
        v["changed_paths"] = serde_json::json!(b.paths.len());
        v["overflow"] = serde_json::json!(b.overflow);
        v["git"] = serde_json::json!(b.git);
        v["rescan"] = serde_json::json!(b.rescan);
    }
    v
}

/// A failed `tsa skills` / `tsa export`: the error envelope on one line, exit 1.
fn fail(command: &str, err: ToolError) -> ExitCode {
    let reply = Reply::from_error(command, err, OutputFormat::Json);
    let _ = write_out(&reply.text(Presentation::Compact));
    ExitCode::from(1)
}

/// `tsa skills install`: writes the built-in skills into the project (never outside
/// its root, nor through a symlink that leaves it); existing ones are kept unless `force`.
fn install_skills(root: PathBuf, dir: Option<String>, force: bool) -> ExitCode {
    let fail = |e: ToolError| fail("skills", e);
    let ctx = match Context::with_root(&root) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let Ok(root) = ctx.root().map(std::path::Path::to_path_buf) else {
        return ExitCode::from(2);
    };
    let dir = dir.unwrap_or_else(|| tsa_tools::skills::DEFAULT_DIR.into());
    let (_, rel) = match tsa_tools::resolve_in_root(&root, &dir) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let mut written = Vec::new();
    let mut kept = Vec::new();
    for (name, text) in tsa_tools::skills::BUILTIN {
        let file_rel = if rel.is_empty() {
            format!("{name}/SKILL.md")
        } else {
            format!("{rel}/{name}/SKILL.md")
        };
        // Each file is checked on its own: a skill folder may be a link out of the root.
        let target = match tsa_tools::resolve_in_root(&root, &file_rel) {
            Ok((abs, _)) => abs,
            Err(e) => return fail(e),
        };
        if target.exists() && !force {
            kept.push(name);
            continue;
        }
        let result = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| std::fs::write(&target, text));
        if let Err(e) = result {
            return fail(ToolError::Internal(format!("writing {file_rel}: {e}")));
        }
        written.push(name);
    }
    emit(serde_json::json!({
        "success": true,
        "dir": rel,
        "written": written,
        "kept_existing": kept,
    }));
    ExitCode::SUCCESS
}

/// `tsa export scip`: refreshes the index, then writes the SCIP file; prints a JSON
/// report (or an error envelope and exit 1).
fn export_scip(root: PathBuf, output: Option<String>) -> ExitCode {
    let fail = |e: ToolError| fail("export", e);
    let ctx = match Context::with_root(&root) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let Ok(root) = ctx.root().map(std::path::Path::to_path_buf) else {
        return ExitCode::from(2);
    };
    let target = output.unwrap_or_else(|| ".tsa/index.scip".into());
    let (abs, rel) = match tsa_tools::resolve_in_root(&root, &target) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if abs.is_dir() {
        return fail(ToolError::Validation(format!(
            "--output names a directory: '{rel}'"
        )));
    }
    // The file is written beside the target first, then renamed over it.
    let partial = std::path::Path::new(&rel)
        .with_extension("scip.partial")
        .to_string_lossy()
        .into_owned();
    if let Err(e) = tsa_tools::resolve_in_root(&root, &partial) {
        return fail(e);
    }
    if let Err(e) = tsa_index::build(&root, &ctx.build_options()) {
        return fail(ToolError::Index(e));
    }
    if let Some(dir) = abs.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match tsa_scip::export(&root, &abs) {
        Ok(r) => {
            emit(serde_json::json!({
                "success": true,
                "output": rel,
                "documents": r.documents,
                "symbols": r.symbols,
                "definitions": r.definitions,
                "references": r.references,
                "relationships": r.relationships,
                "bytes": r.bytes,
                "skipped_linked_files": r.linked,
            }));
            ExitCode::SUCCESS
        }
        Err(e) => fail(ToolError::Internal(e.to_string())),
    }
}

/// `tsa watch`: one sync now, then one per burst of changes, until interrupted.
fn watch(root: PathBuf, quiet_ms: u64) -> ExitCode {
    let ctx = match Context::with_root(&root) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "tsa watch: bad project root {}: {e}",
                root.display()
            );
            return ExitCode::from(2);
        }
    };
    let Ok(root) = ctx.root().map(std::path::Path::to_path_buf) else {
        return ExitCode::from(2);
    };
    let opts = ctx.build_options();
    if !emit(sync_line(tsa_index::build(&root, &opts), None)) {
        return ExitCode::SUCCESS;
    }
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let config = tsa_watch::Config {
        quiet: std::time::Duration::from_millis(quiet_ms.max(10)),
        walk: opts.walk.clone(),
        ..tsa_watch::Config::default()
    };
    let sync_root = root.clone();
    let handle = match tsa_watch::watch(&root, config, move |burst| {
        let line = sync_line(tsa_index::build(&sync_root, &opts), Some(&burst));
        if !emit(line) {
            let _ = done_tx.send(());
        }
    }) {
        Ok(h) => h,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "tsa watch: {e}");
            return ExitCode::from(1);
        }
    };
    let _ = writeln!(
        std::io::stderr(),
        "tsa watch: watching {} folder(s) under {}{}",
        handle.watched,
        root.display(),
        if handle.degraded {
            " (degraded: periodic rescans)"
        } else {
            ""
        }
    );
    // Runs until the process is interrupted or stdout closes.
    let _ = done_rx.recv();
    handle.stop();
    ExitCode::SUCCESS
}

fn serve(
    root: Option<PathBuf>,
    watch: bool,
    http: Option<std::net::SocketAddr>,
    allow_remote: bool,
    auth_token_file: Option<PathBuf>,
    conformance_fixtures: bool,
) -> ExitCode {
    if let Some(why) = http.and_then(|addr| tsa_mcp::http_refusal(&addr, allow_remote)) {
        let _ = writeln!(std::io::stderr(), "tsa mcp: {why}");
        return ExitCode::from(2);
    }
    let auth = match http.map(|_| tsa_mcp::http_auth(auth_token_file.as_deref(), allow_remote)) {
        Some(Ok(token)) => token,
        None => None,
        Some(Err(why)) => {
            let _ = writeln!(std::io::stderr(), "tsa mcp: {why}");
            return ExitCode::from(2);
        }
    };
    let ctx = match root {
        Some(r) => match Context::with_root(&r) {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "tsa mcp: bad project root {}: {e}",
                    r.display()
                );
                return ExitCode::from(1);
            }
        },
        None => Context::new(),
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "tsa mcp: cannot start runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let served = match http {
        Some(addr) => rt.block_on(tsa_mcp::serve_http(tsa_mcp::HttpOptions {
            addr,
            root: ctx.root().ok().map(std::path::Path::to_path_buf),
            watch,
            allow_remote,
            auth,
            conformance_fixtures,
        })),
        None => rt.block_on(tsa_mcp::serve_stdio(ctx, watch)),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "tsa mcp: {e}");
            ExitCode::from(1)
        }
    }
}

/// A progress bar on stderr with files/s, only when both stdout and stderr are
/// terminals (never in pipes, files or CI logs).
fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} {msg:8} [{bar:30}] {pos}/{len} files ({per_sec}, {elapsed})",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    Some(bar)
}

fn tool(root: PathBuf, format: Option<String>, words: Vec<String>) -> ExitCode {
    let parsed = match params::parse(&words) {
        Ok(p) => p,
        Err(params::Parsed::Help(text)) => return write_out(&text),
        Err(params::Parsed::Invalid(text)) => {
            let _ = writeln!(std::io::stderr(), "{text}");
            return ExitCode::from(2);
        }
    };
    let mut args = parsed.args;
    if let Some(f) = format
        && !args.contains_key("output_format")
    {
        args.insert("output_format".into(), Value::String(f));
    }
    let mut ctx = Context::new();
    let bar = progress_bar();
    if let Some(bar) = &bar {
        let bar = bar.clone();
        ctx.set_progress(Some(std::sync::Arc::new(move |p: tsa_index::Progress| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.phase);
        })));
    }
    let set = ctx.set_root(&root);
    let reply = match set {
        // A refused root (a system folder, the home folder) is the answer itself.
        Err(e @ ToolError::SystemRoot(..)) if parsed.tool != "set_project_path" => {
            let format = match args.get("output_format").and_then(Value::as_str) {
                Some("toon") => OutputFormat::Toon,
                _ => OutputFormat::Json,
            };
            Reply::from_error(&parsed.tool, e, format)
        }
        // Another bad root still answers through the dispatcher (it reports project_not_set).
        Ok(_) | Err(_) => call_with(
            &mut ctx,
            &parsed.tool,
            Value::Object(args),
            OutputFormat::Json,
            Presentation::Terminal,
        ),
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let text = reply.text(Presentation::Terminal);
    let code = write_out(&text);
    if reply.is_error {
        ExitCode::from(1)
    } else {
        code
    }
}
