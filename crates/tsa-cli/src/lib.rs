//! The `tsa` command line. `tsa <tool> <action> --param value ...` turns flags into
//! the same JSON arguments an MCP client sends and calls the same dispatcher, so
//! payloads, verdicts and errors are identical by construction; `tsa mcp` serves MCP.

mod params;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::Value;
use tsa_tools::{Context, OutputFormat, Presentation, call_with};

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
    /// Serve MCP over stdio (project root from --project-root or TREE_SITTER_PROJECT_ROOT).
    Mcp,
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
        Command::Mcp => serve(tsa_mcp::root_from(cli.project_root)),
        Command::Tool(words) => {
            let root = tsa_mcp::root_from(cli.project_root.clone())
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            tool(root, cli.format, words)
        }
    }
}

fn serve(root: Option<PathBuf>) -> ExitCode {
    let ctx = match root {
        Some(r) => match Context::with_root(&r) {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "tsa mcp: bad project root {}: {e}",
                    r.display()
                );
                return ExitCode::from(2);
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
    match rt.block_on(tsa_mcp::serve_stdio(ctx)) {
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
        // A bad root still answers through the dispatcher (it reports project_not_set).
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
