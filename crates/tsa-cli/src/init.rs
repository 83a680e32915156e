//! `tsa init`: sets a project up in one command. Every file is planned first (each
//! target resolved inside the project root, symlinks included, and each existing
//! configuration parsed), so a refusal writes nothing; then the index is built, the
//! MCP configuration of each client merged and written, and the skills installed.
//! `--dry-run` stops after the plan and shows it as diffs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};
use tsa_envelope::{Envelope, Success, Verdict};
use tsa_tools::{Context, OutputFormat, Presentation, Reply, ToolError, call_with};

use crate::mcp_config::{self, Change, Client, Merged};

/// How `tsa init` runs.
pub struct Options {
    pub dry_run: bool,
    pub force: bool,
    /// Answer as an envelope in this format (`--format`) instead of text lines.
    pub format: Option<OutputFormat>,
}

/// The built-in skills to write into a folder of the project, each target checked
/// on its own (a skill folder may be a link out of the root).
pub struct SkillsPlan {
    /// The folder, relative to the root.
    pub dir: String,
    write: Vec<(&'static str, PathBuf, &'static str)>,
    /// Skills already there (kept unless forced).
    pub kept: Vec<&'static str>,
}

impl SkillsPlan {
    pub fn new(root: &Path, dir: Option<&str>, force: bool) -> Result<SkillsPlan, ToolError> {
        let dir = dir.unwrap_or(tsa_tools::skills::DEFAULT_DIR);
        let (_, rel) = tsa_tools::resolve_in_root(root, dir)?;
        let mut write = Vec::new();
        let mut kept = Vec::new();
        for (name, text) in tsa_tools::skills::BUILTIN {
            let file_rel = if rel.is_empty() {
                format!("{name}/SKILL.md")
            } else {
                format!("{rel}/{name}/SKILL.md")
            };
            let (target, _) = tsa_tools::resolve_in_root(root, &file_rel)?;
            if target.exists() && !force {
                kept.push(name);
            } else {
                write.push((name, target, text));
            }
        }
        Ok(SkillsPlan {
            dir: rel,
            write,
            kept,
        })
    }

    /// The skills this plan writes.
    pub fn written(&self) -> Vec<&'static str> {
        self.write.iter().map(|(n, _, _)| *n).collect()
    }

    pub fn apply(&self) -> Result<(), ToolError> {
        for (name, target, text) in &self.write {
            target
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|_| std::fs::write(target, text))
                .map_err(|e| ToolError::Internal(format!("writing skill {name}: {e}")))?;
        }
        Ok(())
    }
}

/// One client's configuration file: where, what it holds, what it becomes.
struct FilePlan {
    client: Client,
    abs: PathBuf,
    rel: String,
    before: Option<String>,
    merged: Merged,
}

impl FilePlan {
    fn new(root: &Path, client: Client, entry: &Value, force: bool) -> Result<FilePlan, ToolError> {
        let (abs, rel) = tsa_tools::resolve_in_root(root, client.path())?;
        let before = match std::fs::read_to_string(&abs) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(ToolError::Internal(format!("reading {rel}: {e}"))),
        };
        let merged = mcp_config::merge(client, before.as_deref(), entry, force)
            .map_err(ToolError::Validation)?;
        Ok(FilePlan {
            client,
            abs,
            rel,
            before,
            merged,
        })
    }

    /// The unified diff of the change (empty when nothing changes).
    fn diff(&self) -> String {
        if !self.merged.change.writes() {
            return String::new();
        }
        let before = self.before.as_deref().unwrap_or("");
        let old = if self.before.is_some() {
            format!("a/{}", self.rel)
        } else {
            "/dev/null".to_owned()
        };
        similar::TextDiff::from_lines(before, self.merged.text.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&old, &format!("b/{}", self.rel))
            .to_string()
    }

    /// Writes the new text beside the file, then renames it over the file (the
    /// resolved target: a link inside the root stays a link to the new text).
    fn write(&self) -> Result<(), ToolError> {
        use std::io::Write;
        let fail = |e: std::io::Error| ToolError::Internal(format!("writing {}: {e}", self.rel));
        let dir = self.abs.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(fail)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
        tmp.write_all(self.merged.text.as_bytes()).map_err(fail)?;
        if let Ok(meta) = std::fs::metadata(&self.abs) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .map_err(fail)?;
        }
        tmp.persist(&self.abs).map_err(|e| fail(e.error))?;
        Ok(())
    }

    /// What happened (or would), in words.
    fn outcome(&self) -> String {
        let others = match self.merged.other_servers {
            0 => String::new(),
            1 => " beside 1 other server".to_owned(),
            n => format!(" beside {n} other servers"),
        };
        match self.merged.change {
            Change::Create => "created".to_owned(),
            Change::Add => format!("added server \"tsa\"{others}"),
            Change::Same => "unchanged: server \"tsa\" is already there".to_owned(),
            Change::KeptDifferent => {
                "kept: it has a different \"tsa\" server (--force replaces it)".to_owned()
            }
            Change::Replace => format!("replaced server \"tsa\"{others}"),
        }
    }
}

/// The command the configuration starts: `tsa` when the `tsa` found on PATH is this
/// very binary, else this binary's absolute path (with a warning saying so).
fn server_command() -> (String, Option<String>) {
    let exe = std::env::current_exe().and_then(std::fs::canonicalize).ok();
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("tsa"))
            .find(|c| c.is_file())
            .and_then(|c| std::fs::canonicalize(c).ok())
    });
    match (exe, on_path) {
        (Some(e), Some(p)) if e == p => ("tsa".to_owned(), None),
        (Some(e), _) => {
            let shown = e.display().to_string();
            let note = format!(
                "`tsa` on PATH is not this binary, so the configuration starts {shown}; \
                 after `cargo install --locked --path .` run `tsa init --force` to name `tsa`"
            );
            (shown, Some(note))
        }
        (None, _) => ("tsa".to_owned(), None),
    }
}

const NEXT: &str = "Restart your agent in this folder (or reload its MCP servers) and ask it to use tsa; from a shell: tsa nav callers --function-name <name>";

fn failure(err: ToolError, format: Option<OutputFormat>) -> ExitCode {
    let reply = Reply::from_error("init", err, format.unwrap_or(OutputFormat::Json));
    let _ = crate::write_out(&reply.text(Presentation::Terminal));
    ExitCode::from(1)
}

/// `tsa init` on `root` for `clients` (none: all three).
pub fn run(root: PathBuf, clients: &[Client], opts: Options) -> ExitCode {
    let mut ctx = match Context::with_root(&root) {
        Ok(c) => c,
        Err(e) => return failure(e, opts.format),
    };
    let Ok(root) = ctx.root().map(Path::to_path_buf) else {
        return ExitCode::from(2);
    };
    let mut chosen: Vec<Client> = Vec::new();
    for c in if clients.is_empty() {
        &Client::ALL[..]
    } else {
        clients
    } {
        if !chosen.contains(c) {
            chosen.push(*c);
        }
    }
    let (command, note) = server_command();
    let mut files = Vec::new();
    for c in &chosen {
        match FilePlan::new(&root, *c, &c.entry(&command), opts.force) {
            Ok(f) => files.push(f),
            Err(e) => return failure(e, opts.format),
        }
    }
    let skills = match SkillsPlan::new(&root, None, opts.force) {
        Ok(s) => s,
        Err(e) => return failure(e, opts.format),
    };

    let index_line = if opts.dry_run {
        "would build or refresh the index (.tsa/index.db)".to_owned()
    } else {
        let reply = crate::with_progress(&mut ctx, |ctx| {
            call_with(
                ctx,
                "index",
                json!({"action": "full", "output_format": "json"}),
                OutputFormat::Json,
                Presentation::Terminal,
            )
        });
        if reply.is_error {
            return crate::print_reply(&reply);
        }
        reply
            .body
            .get("summary_line")
            .and_then(Value::as_str)
            .unwrap_or("index built")
            .to_owned()
    };
    if !opts.dry_run {
        for f in files.iter().filter(|f| f.merged.change.writes()) {
            if let Err(e) = f.write() {
                return failure(e, opts.format);
            }
        }
        if let Err(e) = skills.apply() {
            return failure(e, opts.format);
        }
    }
    let written = skills.written();
    let skills_line = match (opts.dry_run, written.len(), skills.kept.len()) {
        (true, n, k) => format!("would write {n} to {} ({k} already there)", skills.dir),
        (false, n, 0) => format!("{n} written to {}", skills.dir),
        (false, n, k) => format!("{n} written to {} ({k} already there, kept)", skills.dir),
    };

    match opts.format {
        Some(format) => {
            let rows: Vec<Value> = files
                .iter()
                .map(|f| {
                    json!({
                        "client": f.client.id(),
                        "file": f.rel,
                        "change": f.merged.change.as_str(),
                        "other_servers": f.merged.other_servers,
                        "diff": f.diff(),
                    })
                })
                .collect();
            let summary = format!(
                "init{}: {} client file(s), {} skill(s) {}",
                if opts.dry_run {
                    " (dry run, nothing written)"
                } else {
                    ""
                },
                files.len(),
                written.len(),
                if opts.dry_run { "to write" } else { "written" }
            );
            let mut s = Success::new(Verdict::Info, summary)
                .with("dry_run", opts.dry_run)
                .with("index", index_line)
                .with("server_command", command)
                .with("clients", Value::Array(rows))
                .with(
                    "skills",
                    json!({"dir": skills.dir, "written": written, "kept_existing": skills.kept}),
                )
                .with_next_step(NEXT);
            if let Some(n) = note {
                s = s.with_warning(n);
            }
            let body = tsa_format::render(&Envelope::from(s), format, false);
            let reply = Reply {
                body,
                is_error: false,
                format,
                compact_only: false,
            };
            crate::print_reply(&reply)
        }
        None => {
            let mut out = format!(
                "tsa init{}: {}\n",
                if opts.dry_run {
                    " --dry-run (nothing written)"
                } else {
                    ""
                },
                root.display()
            );
            let width = files.iter().map(|f| f.rel.len()).max().unwrap_or(0);
            out.push_str(&format!("  {:<12} {index_line}\n", "index"));
            for f in &files {
                out.push_str(&format!(
                    "  {:<12} {:<width$}  {}\n",
                    f.client.title(),
                    f.rel,
                    f.outcome()
                ));
                if opts.dry_run {
                    for line in f.diff().lines() {
                        out.push_str(&format!("      {line}\n"));
                    }
                }
            }
            out.push_str(&format!("  {:<12} {skills_line}\n", "skills"));
            if let Some(n) = note {
                out.push_str(&format!("  note: {n}\n"));
            }
            out.push_str(&format!("Next: {NEXT}"));
            crate::write_out(&out)
        }
    }
}
