//! The `tsa` command line. `tsa <tool> <action> --param value ...` turns flags into
//! the same JSON arguments an MCP client sends and calls the same dispatcher, so
//! payloads, verdicts and errors are identical by construction; `tsa mcp` serves MCP.

mod init;
mod mcp_config;
mod params;
mod tools;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::Value;
use tsa_tools::{Context, OutputFormat, Presentation, Reply, ToolError, call_with};

/// `tsa --version`: the version and the commit it was built from (build.rs).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("TSA_GIT_COMMIT"), ")");

/// Code intelligence for AI coding agents: index a repository, then ask who calls
/// what, what breaks, what is dead. `tsa init` sets a project up for Claude Code,
/// Cursor and VS Code; `tsa <tool> --help` lists a tool's actions, `tsa <tool>
/// <action> --help` one action's flags.
#[derive(Debug, Parser)]
#[command(name = "tsa", version = VERSION, allow_external_subcommands = true)]
struct Cli {
    /// Project root (default: $TREE_SITTER_PROJECT_ROOT, else the current directory).
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        help_heading = "Global options"
    )]
    project_root: Option<PathBuf>,
    /// Output format of tool answers: json (CLI default) or toon.
    #[arg(long, global = true, value_parser = ["json", "toon"], help_heading = "Global options")]
    format: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Set tsa up in this project: build the index, write the MCP configuration of
    /// Claude Code (.mcp.json), Cursor (.cursor/mcp.json) and VS Code
    /// (.vscode/mcp.json), merged into what is there, and install the agent skills.
    Init {
        /// Configure only this client (repeatable; default: all three).
        #[arg(long = "client", value_name = "NAME", value_enum)]
        clients: Vec<mcp_config::Client>,
        /// Show what would change (a diff of each file) and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Replace a `tsa` server entry that differs from the one tsa writes, and
        /// skills that already exist.
        #[arg(long)]
        force: bool,
    },
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
        /// Character budget of an answer that sets no max_chars: whole list rows
        /// are left out to fit, with exact totals and a next_cursor to resume.
        /// Default: MAX_MCP_OUTPUT_TOKENS x 3 when that variable is set, else 40000.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        max_chars: Option<u64>,
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
    /// Print a shell completion script (tools, actions and their flags included):
    /// `tsa completions bash > ~/.local/share/bash-completion/completions/tsa`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// An unknown tool: answered by the dispatcher (an envelope naming the closest).
    #[command(external_subcommand)]
    Tool(Vec<String>),
}

/// The whole command line: the built-in commands, then one subcommand per tool
/// with one per action, generated from the actions' `Args` schemas.
fn command() -> clap::Command {
    Cli::command().subcommands(tools::commands())
}

pub(crate) fn write_out(text: &str) -> ExitCode {
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

/// The project root: `--project-root`, else $TREE_SITTER_PROJECT_ROOT, else the
/// current directory.
fn project_root(flag: Option<PathBuf>) -> PathBuf {
    tsa_mcp::root_from(flag)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

fn output_format(format: Option<&str>) -> OutputFormat {
    match format {
        Some("toon") => OutputFormat::Toon,
        _ => OutputFormat::Json,
    }
}

/// Runs the CLI with explicit arguments (the first is the program name).
pub fn run_with(argv: Vec<std::ffi::OsString>) -> ExitCode {
    let matches = match command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => return refused(e, &argv),
    };
    let root = matches.get_one::<PathBuf>("project_root").cloned();
    let format = matches.get_one::<String>("format").cloned();
    if let Some((name, sub)) = matches.subcommand()
        && tools::tool_names().contains(&name)
    {
        return tool(project_root(root), format, name, sub);
    }
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Init {
            clients,
            dry_run,
            force,
        } => init::run(
            project_root(cli.project_root),
            &clients,
            init::Options {
                dry_run,
                force,
                format: cli.format.as_deref().map(|f| output_format(Some(f))),
            },
        ),
        Command::Mcp {
            watch,
            http,
            allow_remote,
            auth_token_file,
            conformance_fixtures,
            max_chars,
        } => serve(
            tsa_mcp::root_from(cli.project_root),
            watch,
            http,
            allow_remote,
            auth_token_file,
            conformance_fixtures,
            tsa_mcp::answer_budget(max_chars.map(|n| n as usize)),
        ),
        Command::Skills {
            command: _,
            dir,
            force,
        } => install_skills(project_root(cli.project_root), dir, force),
        Command::Export { format: _, output } => {
            export_scip(project_root(cli.project_root), output)
        }
        Command::Watch { quiet_ms } => watch(project_root(cli.project_root), quiet_ms),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command(), "tsa", &mut out);
            write_out(String::from_utf8_lossy(&out).trim_end())
        }
        Command::Tool(words) => {
            // Not a tool of this build: the dispatcher names the closest one.
            let name = words.first().cloned().unwrap_or_default();
            let mut ctx = Context::new();
            let mut args = serde_json::Map::new();
            if let Some(f) = cli.format {
                args.insert("output_format".into(), Value::String(f));
            }
            let reply = call_with(
                &mut ctx,
                &name,
                Value::Object(args),
                OutputFormat::Json,
                Presentation::Terminal,
            );
            print_reply(&reply)
        }
    }
}

/// A command line clap refused. Help and version go to stdout; a refused tool call
/// is an ERROR envelope on stdout with exit 1, as every other bad tool input; any
/// other command gets clap's message on stderr and exit 2.
fn refused(e: clap::Error, argv: &[std::ffi::OsString]) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let words: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match tools::locate(&words) {
        (Some(tool), action) if tools::tool_names().contains(&tool.as_str()) => {
            let format = words
                .iter()
                .position(|w| w == "--format")
                .and_then(|i| words.get(i + 1))
                .map(String::as_str)
                .or_else(|| words.iter().find_map(|w| w.strip_prefix("--format=")));
            let reply = tools::refusal(&e, &tool, action.as_deref(), output_format(format));
            print_reply(&reply)
        }
        _ => {
            let _ = e.print();
            if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}

/// Prints a reply as the CLI does (pretty JSON, or the TOON text); exit 1 on failure.
pub(crate) fn print_reply(reply: &Reply) -> ExitCode {
    let code = write_out(&reply.text(Presentation::Terminal));
    if reply.is_error {
        ExitCode::from(1)
    } else {
        code
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
pub(crate) fn fail(command: &str, err: ToolError) -> ExitCode {
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
    let plan = match init::SkillsPlan::new(&root, dir.as_deref(), force) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if let Err(e) = plan.apply() {
        return fail(e);
    }
    emit(serde_json::json!({
        "success": true,
        "dir": plan.dir,
        "written": plan.written(),
        "kept_existing": plan.kept,
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
        ..tsa_watch::Config::default()
    };
    let handle = match tsa_watch::watch_and_sync(&root, opts, config, move |synced| {
        if !emit(sync_line(synced.report, Some(&synced.burst))) {
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
    max_chars: usize,
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
            max_chars,
        })),
        None => rt.block_on(tsa_mcp::serve_stdio(ctx, watch, max_chars)),
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

/// Runs `f` with a progress bar on `ctx` (on a terminal only), cleared afterwards.
pub(crate) fn with_progress<T>(ctx: &mut Context, f: impl FnOnce(&mut Context) -> T) -> T {
    let bar = progress_bar();
    if let Some(bar) = &bar {
        let bar = bar.clone();
        ctx.set_progress(Some(std::sync::Arc::new(move |p: tsa_index::Progress| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.phase);
        })));
    }
    let out = f(ctx);
    ctx.set_progress(None);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    out
}

/// `tsa <tool> [<action>] --flag ...`, parsed by the generated subcommands.
fn tool(root: PathBuf, format: Option<String>, name: &str, sub: &ArgMatches) -> ExitCode {
    let mut args = serde_json::Map::new();
    match (name, sub.subcommand()) {
        ("set_project_path", _) => {
            if let Some(a) = tools::describe(name, name) {
                args = tools::arguments(&a, sub);
            }
        }
        (_, Some((action, m))) => {
            args.insert("action".into(), Value::String(action.to_owned()));
            // An unknown action has no description: the dispatcher names the closest.
            if let Some(a) = tools::describe(name, action) {
                args.extend(tools::arguments(&a, m));
            }
        }
        (_, None) => {}
    }
    if let Some(f) = format
        && !args.contains_key("output_format")
    {
        args.insert("output_format".into(), Value::String(f));
    }
    let mut ctx = Context::new();
    let reply = match ctx.set_root(&root) {
        // A refused root (a system folder, the home folder) is the answer itself.
        Err(e @ ToolError::SystemRoot(..)) if name != "set_project_path" => {
            let format = output_format(args.get("output_format").and_then(Value::as_str));
            Reply::from_error(name, e, format)
        }
        // Another bad root still answers through the dispatcher (it reports project_not_set).
        Ok(_) | Err(_) => with_progress(&mut ctx, |ctx| {
            call_with(
                ctx,
                name,
                Value::Object(args),
                OutputFormat::Json,
                Presentation::Terminal,
            )
        }),
    };
    print_reply(&reply)
}
