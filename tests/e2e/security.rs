//! The project boundary under attack: every path-taking parameter of every action,
//! the CLI-only paths (`tsa export scip --output`, `tsa skills install --dir`,
//! `--project-root`) and `set_project_path`, each fed every escape form (`..`,
//! absolute paths, symlinks out of the root — file, folder, chain, dangling —,
//! percent-encoded and look-alike separators, NUL, backslashes, `~`, `file://`,
//! drive letters, very long paths, the empty string). A secret file outside the
//! root carries a unique marker: no answer may contain it (nor `/etc/passwd`), each
//! escape is an ERROR envelope, and nothing outside the root is created or changed
//! (the temp folder holding the project is snapshotted before and after).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::support::{assert_envelope, bin, cli_words, mcp, mcp_raw, project};

/// Appears only in files outside the project root.
const MARKER: &str = "zq7xk";
/// A line of `/etc/passwd` (the CI machine runs as root).
const PASSWD: &str = "root:x:0:0";
/// Where a write through `/etc` would land (checked absent after every write test).
const ETC_PROBE: &str = "/etc/tsa-escape-probe.json";

/// The project (`base/python`, a copy of the Python fixture) and what lies around
/// it: `base/outside` with the secrets, and links from inside the root.
struct Scene {
    base: PathBuf,
    root: PathBuf,
    _project: crate::support::Project,
}

fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap();
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn scene() -> Scene {
    let project = project("python");
    let root = project.root.clone();
    let base = root.parent().unwrap().to_path_buf();
    let out = base.join("outside");
    write(
        &out.join("secret.py"),
        &format!("def {MARKER}_leak():\n    return \"{MARKER} secret\"\n"),
    );
    write(&out.join("secret.txt"), &format!("{MARKER} secret text\n"));
    write(&out.join(format!("{MARKER}_named.txt")), "secret by name\n");
    write(
        &out.join("skills/evil/SKILL.md"),
        &format!("---\nname: {MARKER}-skill\ndescription: {MARKER}\n---\n1. step\n"),
    );
    std::fs::create_dir_all(out.join("skills_target")).unwrap();
    std::fs::create_dir_all(out.join("tsa_store")).unwrap();
    write(&out.join("health.yml"), &format!("weights: {MARKER}\n"));
    write(
        &out.join("constraints.yml"),
        &format!("constraints: {MARKER}\n"),
    );
    write(
        &out.join("coverage.json"),
        &format!("{{\"files\": {{\"app/{MARKER}.py\": {{\"executed_lines\": [1]}}}}}}"),
    );
    write(
        &out.join("Cargo.toml"),
        &format!("[package]\nname = \"{MARKER}\"\n"),
    );
    // Links from inside the root: out (file, folder, chain, dangling) and in.
    link(&out.join("secret.py"), &root.join("leak.py"));
    link(&out, &root.join("leakdir"));
    link(&root.join("chain2.py"), &root.join("chain1.py"));
    link(&out.join("secret.py"), &root.join("chain2.py"));
    link(&root.join("app/core.py"), &root.join("good.py"));
    link(&root.join("app"), &root.join("goodlink"));
    link(&out.join("nothere.py"), &root.join("dangling.py"));
    link(&out.join("created.json"), &root.join("dangling.json"));
    // Two commits, so the git-based actions (diff_git, classify, impact, co_change,
    // lineage) run on their paths rather than stop at "not a git repository".
    let repo = git2::Repository::init(&root).unwrap();
    commit_all(&repo, "initial");
    let core = root.join("app/core.py");
    let text = std::fs::read_to_string(&core).unwrap();
    std::fs::write(
        &core,
        format!("{text}\n\ndef added():\n    return build(1)\n"),
    )
    .unwrap();
    commit_all(&repo, "second");
    Scene {
        base,
        root,
        _project: project,
    }
}

fn commit_all(repo: &git2::Repository, msg: &str) {
    let mut idx = repo.index().unwrap();
    idx.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    idx.write().unwrap();
    let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &parents)
        .unwrap();
}

/// What a path parameter does with its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// Names something read (a file or a folder).
    Read,
    /// Names a file written.
    Write,
}

/// How the value is passed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Str,
    Arr,
    /// `structure read requests=[{file_path, sections}]`.
    Requests,
    /// `search batch queries=[{pattern, roots}]`.
    BatchRoots,
}

/// What an escape form must answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// An ERROR envelope: `security_violation` (or `validation` for NUL).
    Refuse,
    /// Any ERROR envelope.
    Error,
    /// Inside the root: anything but `security_violation`.
    Allowed,
    /// A literal name inside the root: any answer, as long as nothing leaks.
    Harmless,
}

struct Form {
    name: &'static str,
    expect: Expect,
    /// Over MCP only (a NUL cannot be a process argument).
    mcp_only: bool,
    value: fn(&Scene, Kind) -> String,
}

fn pick(kind: Kind, read: &str, written: &str) -> String {
    match kind {
        Kind::Read => read.to_owned(),
        Kind::Write => written.to_owned(),
    }
}

/// The escape forms, each a function of the scene and of what the parameter does
/// (a write never aims at a real system file).
fn forms() -> Vec<Form> {
    fn f(name: &'static str, expect: Expect, value: fn(&Scene, Kind) -> String) -> Form {
        Form {
            name,
            expect,
            mcp_only: false,
            value,
        }
    }
    use Expect::*;
    vec![
        f("dotdot_deep", Refuse, |_, k| {
            format!(
                "../../../../../../../..{}",
                pick(k, "/etc/passwd", ETC_PROBE)
            )
        }),
        f("dotdot_short", Refuse, |_, k| {
            pick(k, "../../etc/passwd", "../../tsa-escape.json")
        }),
        f("abs_etc", Refuse, |_, k| pick(k, "/etc/passwd", ETC_PROBE)),
        f("proc_self_root", Refuse, |_, k| {
            format!("/proc/self/root{}", pick(k, "/etc/passwd", ETC_PROBE))
        }),
        f("abs_sibling", Refuse, |s, k| {
            s.base
                .join("outside")
                .join(pick(k, "secret.py", "written.json"))
                .display()
                .to_string()
        }),
        f("rel_sibling", Refuse, |_, k| {
            pick(k, "../outside/secret.py", "../outside/written.json")
        }),
        f("sub_dotdot", Refuse, |_, k| {
            pick(
                k,
                "app/../../outside/secret.py",
                "app/../../outside/written.json",
            )
        }),
        f("missing_dotdot", Refuse, |_, k| {
            pick(
                k,
                "nope/../../outside/secret.py",
                "nope/../../outside/w.json",
            )
        }),
        f("link_file_out", Refuse, |_, _| "leak.py".into()),
        f("link_dir_out", Refuse, |_, _| "leakdir".into()),
        f("link_dir_out_file", Refuse, |_, k| {
            pick(k, "leakdir/secret.py", "leakdir/written.json")
        }),
        f("link_chain", Refuse, |_, _| "chain1.py".into()),
        f("link_dangling_out", Refuse, |_, k| {
            pick(k, "dangling.py", "dangling.json")
        }),
        f("link_in_file", Allowed, |_, k| {
            pick(k, "good.py", "goodlink/in.json")
        }),
        f("link_in_dir", Allowed, |_, k| {
            pick(k, "goodlink", "goodlink/in2.json")
        }),
        f("abs_inside", Allowed, |s, k| {
            s.root
                .join(pick(k, "app/core.py", "abs_in.json"))
                .display()
                .to_string()
        }),
        f("backslash", Refuse, |_, k| {
            pick(k, "..\\outside\\secret.py", "..\\outside\\written.json")
        }),
        f("url_encoded", Harmless, |_, k| {
            pick(
                k,
                "%2e%2e%2f%2e%2e%2foutside%2fsecret.py",
                "%2e%2e%2foutside%2fw.json",
            )
        }),
        f("url_mixed", Harmless, |_, k| {
            pick(k, "..%2f..%2foutside%2fsecret.py", "..%2foutside%2fw.json")
        }),
        f("url_double", Harmless, |_, k| {
            pick(k, "%252e%252e%252fsecret.py", "%252e%252e%252fw.json")
        }),
        f("division_slash", Harmless, |_, k| {
            pick(k, "..\u{2215}outside\u{2215}secret.py", "..\u{2215}w.json")
        }),
        f("fullwidth_solidus", Harmless, |_, k| {
            pick(k, "..\u{ff0f}outside\u{ff0f}secret.py", "..\u{ff0f}w.json")
        }),
        f("one_dot_leader", Harmless, |_, k| {
            pick(
                k,
                "\u{2024}\u{2024}/outside/secret.py",
                "\u{2024}\u{2024}/w.json",
            )
        }),
        f("fullwidth_dots", Harmless, |_, k| {
            pick(
                k,
                "\u{ff0e}\u{ff0e}/outside/secret.py",
                "\u{ff0e}\u{ff0e}/w.json",
            )
        }),
        Form {
            name: "nul_byte",
            expect: Refuse,
            mcp_only: true,
            value: |_, _| "app/core.py\0/../../../outside/secret.py".into(),
        },
        f("tilde", Harmless, |_, k| {
            pick(k, "~/.bashrc", "~/written.json")
        }),
        f("file_url", Harmless, |s, k| {
            format!(
                "file://{}",
                s.base
                    .join("outside")
                    .join(pick(k, "secret.py", "written.json"))
                    .display()
            )
        }),
        f("windows_drive", Harmless, |_, k| {
            pick(k, "C:\\Windows\\win.ini", "C:\\tsa\\written.json")
        }),
        // A write gets one over-long name (a deep path would leave 400 folders behind).
        f("very_long", Harmless, |_, k| match k {
            Kind::Read => format!("{}x.py", "abcdefgh/".repeat(600)),
            Kind::Write => format!("{}.json", "x".repeat(300)),
        }),
        f("very_long_dotdot", Refuse, |_, k| {
            format!(
                "{}{}",
                "../".repeat(400),
                pick(k, "etc/passwd", "tsa-escape.json")
            )
        }),
        f("empty", Error, |_, _| String::new()),
    ]
}

/// One path-taking parameter of one action, with the other arguments it needs.
struct Param {
    tool: &'static str,
    action: &'static str,
    key: &'static str,
    shape: Shape,
    kind: Kind,
    base: Value,
}

fn p(tool: &'static str, action: &'static str, key: &'static str, base: Value) -> Param {
    Param {
        tool,
        action,
        key,
        shape: Shape::Str,
        kind: Kind::Read,
        base,
    }
}

fn arr(tool: &'static str, action: &'static str, key: &'static str, base: Value) -> Param {
    Param {
        shape: Shape::Arr,
        ..p(tool, action, key, base)
    }
}

fn out(tool: &'static str, action: &'static str, base: Value) -> Param {
    Param {
        kind: Kind::Write,
        ..p(tool, action, "output_file", base)
    }
}

/// Every path-taking parameter of every action.
fn params() -> Vec<Param> {
    let none = json!({});
    vec![
        // structure
        p("structure", "outline", "file_path", none.clone()),
        p("structure", "analyze", "file_path", none.clone()),
        p("structure", "signatures", "file_path", none.clone()),
        p("structure", "ast_path", "file_path", json!({"line": 1})),
        p("structure", "read", "file_path", json!({"start_line": 1})),
        Param {
            shape: Shape::Requests,
            ..p("structure", "read", "requests.file_path", none.clone())
        },
        p("structure", "sitemap", "directory", none.clone()),
        out(
            "structure",
            "analyze",
            json!({"file_path": "app/core.py", "suppress_output": true}),
        ),
        out(
            "structure",
            "read",
            json!({"file_path": "app/core.py", "start_line": 1, "suppress_output": true}),
        ),
        // search
        p(
            "search",
            "query",
            "file_path",
            json!({"query_key": "functions"}),
        ),
        arr("search", "content", "roots", json!({"query": "def"})),
        arr("search", "content", "files", json!({"query": "def"})),
        out(
            "search",
            "content",
            // Earlier answers written into the root are not searched again.
            json!({"query": "def", "suppress_output": true, "exclude_globs": ["*.json"]}),
        ),
        arr("search", "grep", "roots", json!({"query": "def"})),
        out(
            "search",
            "grep",
            json!({"query": "def", "roots": ["app"], "suppress_output": true}),
        ),
        Param {
            shape: Shape::BatchRoots,
            ..p("search", "batch", "queries.roots", none.clone())
        },
        // nav
        p(
            "nav",
            "callers",
            "file_path",
            json!({"function_name": "build"}),
        ),
        p(
            "nav",
            "callees",
            "file_path",
            json!({"function_name": "build"}),
        ),
        p(
            "nav",
            "caller_tree",
            "file_path",
            json!({"symbol": "build"}),
        ),
        p(
            "nav",
            "callee_tree",
            "file_path",
            json!({"symbol": "build"}),
        ),
        p(
            "nav",
            "call_path",
            "source_file",
            json!({"source_function": "run", "target_function": "build"}),
        ),
        p(
            "nav",
            "call_path",
            "target_file",
            json!({"source_function": "run", "target_function": "build"}),
        ),
        p("nav", "co_change", "file_path", none.clone()),
        p(
            "nav",
            "impact",
            "file_path",
            json!({"function_name": "build"}),
        ),
        arr("nav", "lineage", "file_paths", json!({"symbol": "Engine"})),
        p("nav", "navigate", "file_path", json!({"symbol": "build"})),
        p("nav", "resolve", "file_path", json!({"symbol": "build"})),
        p("nav", "test_map", "file_path", json!({"symbol": "build"})),
        p("nav", "trace", "file_path", json!({"symbol": "build"})),
        p("nav", "xref", "file_path", json!({"mode": "file"})),
        // health
        p("health", "file", "file_path", none.clone()),
        p("health", "patterns", "file_path", none.clone()),
        p("health", "scale", "file_path", none.clone()),
        arr("health", "scale", "file_paths", none.clone()),
        p("health", "heatmap", "file_path", none.clone()),
        p("health", "heatmap", "directory", none.clone()),
        p("health", "dead", "path", none.clone()),
        p("health", "deps", "file_path", none.clone()),
        p("health", "imports", "file_path", none.clone()),
        p("health", "matrix", "file_path", none.clone()),
        p("health", "routes", "file_path", none.clone()),
        p("health", "test_gap", "file_path", none.clone()),
        p("health", "test_gap", "coverage_json", none.clone()),
        // edit
        p(
            "edit",
            "ast_diff",
            "old_file",
            json!({"new_file": "app/core.py"}),
        ),
        p(
            "edit",
            "ast_diff",
            "new_file",
            json!({"old_file": "app/core.py"}),
        ),
        p("edit", "ast_diff", "file_path", json!({"mode": "diff_git"})),
        p("edit", "classify", "file_path", none.clone()),
        p(
            "edit",
            "guard",
            "file_path",
            json!({"symbol": "build", "modification_type": "rename"}),
        ),
        p("edit", "refactor", "file_path", none.clone()),
        p("edit", "safe", "file_path", none.clone()),
        arr("edit", "impact", "scope_paths", none.clone()),
        // project
        arr("project", "files", "roots", none.clone()),
        p("project", "files", "path", none.clone()),
        p("project", "smart", "file_path", none.clone()),
        p("project", "skills", "skills_root", none.clone()),
        p("project", "workflow", "target_path", none.clone()),
        p(
            "viz",
            "knowledge",
            "output_path",
            json!({"export_format": "html"}),
        ),
        p(
            "project",
            "journal",
            "path_scope",
            json!({"mode": "search"}),
        ),
        arr(
            "project",
            "journal",
            "scope_paths",
            json!({"mode": "record", "title": "t", "rationale": "r"}),
        ),
        // index
        arr("index", "build", "roots", none.clone()),
        p(
            "index",
            "cache",
            "file_path",
            json!({"mode": "lookup", "symbol": "build"}),
        ),
        // viz
        p("viz", "graph", "file_path", none.clone()),
        p("viz", "uml", "file_path", none.clone()),
        p(
            "viz",
            "uml",
            "source_file",
            json!({"diagram": "sequence", "source": "run", "target": "build"}),
        ),
        p(
            "viz",
            "uml",
            "target_file",
            json!({"diagram": "sequence", "source": "run", "target": "build"}),
        ),
    ]
}

/// The arguments of one attempt.
fn attempt_args(param: &Param, value: &str) -> Value {
    let mut args = param.base.clone();
    let obj = args.as_object_mut().unwrap();
    obj.insert("action".into(), json!(param.action));
    match param.shape {
        Shape::Str => {
            obj.insert(param.key.into(), json!(value));
        }
        Shape::Arr => {
            obj.insert(param.key.into(), json!([value]));
        }
        Shape::Requests => {
            obj.insert(
                "requests".into(),
                json!([{"file_path": value, "sections": [{"start_line": 1, "end_line": 3}]}]),
            );
        }
        Shape::BatchRoots => {
            obj.insert(
                "queries".into(),
                json!([{"pattern": "def", "roots": [value]}, {"pattern": "class"}]),
            );
        }
    }
    obj.insert("output_format".into(), json!("json"));
    args
}

/// Size, mtime and link target of every entry under `dir` (links not followed),
/// skipping the `skip` folders (project roots, which may be written).
type Snapshot = BTreeMap<PathBuf, (u64, Option<SystemTime>, Option<PathBuf>)>;

fn snapshot(dir: &Path, skip: &[&Path]) -> Snapshot {
    let mut out = Snapshot::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if skip.iter().any(|s| *s == path) {
                continue;
            }
            let Ok(m) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let target = std::fs::read_link(&path).ok();
            out.insert(path.clone(), (m.len(), m.modified().ok(), target));
            if m.is_dir() {
                stack.push(path);
            }
        }
    }
    out
}

/// What changed outside the root between two snapshots, and any write aimed above
/// the temp folder that landed (`/etc`, `/`, the temp folder's parent).
fn outside_changes(base: &Path, before: &Snapshot, after: &Snapshot, what: &str) -> Vec<String> {
    let mut out: Vec<String> = before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(v))
        .map(|(k, _)| format!("{what}: changed/removed outside the root: {}", k.display()))
        .chain(
            after
                .keys()
                .filter(|k| !before.contains_key(*k))
                .map(|k| format!("{what}: created outside the root: {}", k.display())),
        )
        .collect();
    for probe in [
        PathBuf::from(ETC_PROBE),
        PathBuf::from("/tsa-escape.json"),
        base.parent().unwrap().join("tsa-escape.json"),
    ] {
        if probe.exists() {
            out.push(format!("{what}: wrote {}", probe.display()));
        }
    }
    out
}

/// The checks every answer passes: no secret, no password file, and the
/// envelope the form asks for. Returns a failure description, if any.
fn judge(label: &str, raw: &str, is_error: bool, expect: Expect) -> Option<String> {
    if raw.contains(MARKER) {
        return Some(format!("{label}: LEAKED the outside secret: {raw}"));
    }
    if raw.contains(PASSWD) {
        return Some(format!("{label}: LEAKED /etc/passwd: {raw}"));
    }
    let v: Value = match serde_json::from_str(raw) {
        Ok(v) => v,
        Err(e) => return Some(format!("{label}: not JSON ({e}): {raw}")),
    };
    if let Err(e) = std::panic::catch_unwind(|| assert_envelope(&v)) {
        return Some(format!("{label}: bad envelope {e:?}: {raw}"));
    }
    let error_type = v["error_type"].as_str().unwrap_or("");
    if is_error != (v["success"] == false) {
        return Some(format!("{label}: isError {is_error} disagrees: {raw}"));
    }
    let ok = match expect {
        Expect::Refuse => is_error && ["security_violation", "validation"].contains(&error_type),
        Expect::Error => is_error,
        Expect::Allowed => error_type != "security_violation",
        Expect::Harmless => true,
    };
    (!ok).then(|| format!("{label}: expected {expect:?}, got: {raw}"))
}

/// Runs `tsa` with `args` (project root given by the caller); (code, stdout, stderr).
fn tsa(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn prepare_index(s: &Scene) {
    let (code, out, err) = tsa(
        &["--project-root", s.root.to_str().unwrap(), "index", "full"],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
}

/// Every (parameter, form) pair over one MCP session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_parameter_refuses_every_escape_over_mcp() {
    let s = scene();
    prepare_index(&s);
    let before = snapshot(&s.base, &[s.root.as_path()]);
    let client = mcp((), &s.root).await;
    let mut pairs: BTreeSet<(String, &str)> = BTreeSet::new();
    let mut failures = Vec::new();
    let started = std::time::Instant::now();
    for param in params() {
        let name = format!("{} {} {}", param.tool, param.action, param.key);
        for form in forms() {
            let value = (form.value)(&s, param.kind);
            let args = attempt_args(&param, &value);
            let (is_error, raw) = mcp_raw(&client, param.tool, &args).await;
            if let Some(f) = judge(
                &format!("[{name} / {}]", form.name),
                &raw,
                is_error,
                form.expect,
            ) {
                failures.push(f);
            }
            pairs.insert((name.clone(), form.name));
        }
    }
    client.cancel().await.unwrap();
    let after = snapshot(&s.base, &[s.root.as_path()]);
    failures.extend(outside_changes(&s.base, &before, &after, "mcp attempts"));
    assert!(
        failures.is_empty(),
        "{} of {} attempts failed:\n{}",
        failures.len(),
        pairs.len(),
        failures.join("\n")
    );
    assert!(pairs.len() >= 100, "only {} attempts", pairs.len());
    // The secret is still where it was (a write through a link would have replaced it).
    assert!(
        std::fs::read_to_string(s.base.join("outside/secret.py"))
            .unwrap()
            .contains(MARKER)
    );
    let _ = writeln_err(&format!(
        "security: {} (parameter, form) pairs over MCP in {:.1}s",
        pairs.len(),
        started.elapsed().as_secs_f64()
    ));
}

fn writeln_err(line: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr(), "{line}")
}

/// The same table through the CLI, for a share of the forms, two processes at a time.
#[test]
fn every_path_parameter_refuses_escapes_over_the_cli() {
    let s = scene();
    prepare_index(&s);
    let before = snapshot(&s.base, &[s.root.as_path()]);
    let picked = [
        "dotdot_deep",
        "abs_sibling",
        "link_file_out",
        "link_dir_out_file",
        "link_dangling_out",
        "backslash",
        "division_slash",
    ];
    let forms = forms();
    let mut jobs = Vec::new();
    // Nested parameters (requests, queries) are objects, which the CLI flags do not spell.
    for param in params()
        .into_iter()
        .filter(|p| !matches!(p.shape, Shape::Requests | Shape::BatchRoots))
    {
        for form in forms
            .iter()
            .filter(|f| picked.contains(&f.name) && !f.mcp_only)
        {
            let value = (form.value)(&s, param.kind);
            let label = format!(
                "[cli {} {} {} / {}]",
                param.tool, param.action, param.key, form.name
            );
            jobs.push((label, param.tool, attempt_args(&param, &value), form.expect));
        }
    }
    let count = jobs.len();
    let root = s.root.to_str().unwrap().to_owned();
    let mut failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<_> = jobs.chunks(jobs.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let root = root.clone();
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for (label, tool, args, expect) in chunk {
                        let words = cli_words(tool, args);
                        let mut argv = vec!["--project-root", root.as_str()];
                        argv.extend(words.iter().map(String::as_str));
                        let (code, out, err) = tsa(&argv, &[]);
                        if err.contains(MARKER) || err.contains(PASSWD) {
                            failures.push(format!("{label}: LEAKED on stderr: {err}"));
                        }
                        if let Some(f) = judge(label, &out, code != 0, *expect) {
                            failures.push(f);
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let after = snapshot(&s.base, &[s.root.as_path()]);
    failures.extend(outside_changes(&s.base, &before, &after, "cli attempts"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count >= 100, "only {count} CLI attempts");
}

/// `tsa export scip --output` and `tsa skills install --dir`: every form.
#[test]
fn cli_only_paths_never_write_outside() {
    let s = scene();
    let before = snapshot(&s.base, &[s.root.as_path()]);
    let root = s.root.to_str().unwrap();
    let mut pairs = 0;
    let mut failures = Vec::new();
    for form in forms().iter().filter(|f| !f.mcp_only) {
        let value = (form.value)(&s, Kind::Write);
        for (what, argv) in [
            (
                "export scip --output",
                vec!["--project-root", root, "export", "scip", "--output", &value],
            ),
            (
                "skills install --dir",
                vec![
                    "--project-root",
                    root,
                    "skills",
                    "install",
                    "--force",
                    "--dir",
                    &value,
                ],
            ),
        ] {
            pairs += 1;
            let (code, out, err) = tsa(&argv, &[]);
            let label = format!("[{what} / {}]", form.name);
            if out.contains(MARKER) || err.contains(MARKER) {
                failures.push(format!("{label}: LEAKED: {out}{err}"));
            }
            let refused = code == 1
                && serde_json::from_str::<Value>(&out).is_ok_and(|v| {
                    v["success"] == false
                        && v["error_type"].as_str().is_some()
                        && v["hint"].as_str().is_some()
                });
            let ok = match form.expect {
                Expect::Refuse => refused && out.contains("security_violation"),
                Expect::Error => refused,
                Expect::Allowed => code == 0 || !out.contains("security_violation"),
                Expect::Harmless => code == 0 || refused,
            };
            if !ok {
                failures.push(format!(
                    "{label}: expected {:?}: exit {code} {out}{err}",
                    form.expect
                ));
            }
        }
    }
    let after = snapshot(&s.base, &[s.root.as_path()]);
    failures.extend(outside_changes(&s.base, &before, &after, "export/skills"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(pairs >= 50);
}

/// Links planted inside the project (a cloned repository can hold any): the index
/// folder, files tsa keeps in it, skill folders, configuration files. None is
/// followed out of the root.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_planted_in_the_project_are_never_followed_out() {
    let s = scene();
    let out = s.base.join("outside");
    // A second project whose `.tsa` points outside.
    let linked = s.base.join("linked");
    write(&linked.join("app.py"), "def f():\n    return 1\n");
    link(&out.join("tsa_store"), &linked.join(".tsa"));
    // A third whose `.tsa` is real but whose index file points outside.
    let db = s.base.join("dblink");
    write(&db.join("app.py"), "def f():\n    return 1\n");
    std::fs::create_dir_all(db.join(".tsa")).unwrap();
    link(&out.join("evil.db"), &db.join(".tsa/index.db"));
    link(&out.join("journal.json"), &db.join(".tsa/journal.json.tmp"));
    // Both have a constraint rule, so `edit constraints` saves its violations.
    for p in [&linked, &db] {
        write(
            &p.join("architectural-constraints.yml"),
            "version: 1\nconstraints:\n  - id: r\n    severity: error\n    rule: forbid\n    from: \"a/**\"\n    to: \"b/**\"\n",
        );
    }
    // Configuration found by name, linked from outside.
    link(&out.join("health.yml"), &s.root.join("tsa-health.yml"));
    link(
        &out.join("constraints.yml"),
        &s.root.join("architectural-constraints.yml"),
    );
    link(&out.join("coverage.json"), &s.root.join("coverage.json"));
    // Skills: one folder linked out (listing), and a built-in skill's folder linked
    // out (install would write through it).
    std::fs::create_dir_all(s.root.join(".claude/skills")).unwrap();
    link(
        &out.join("skills/evil"),
        &s.root.join(".claude/skills/evil"),
    );
    link(
        &out.join("skills_target"),
        &s.root.join(".claude/skills/find-symbol"),
    );
    // A Rust crate whose manifest is linked out (edit safe names the package).
    write(
        &s.root.join("rs/src/lib.rs"),
        "pub fn g() -> i32 {\n    1\n}\n",
    );
    link(&out.join("Cargo.toml"), &s.root.join("rs/Cargo.toml"));
    let skip = [s.root.as_path(), linked.as_path(), db.as_path()];
    let before = snapshot(&s.base, &skip);
    let mut failures = Vec::new();

    // The linked index folder and index file: every index user refuses.
    for project in [&linked, &db] {
        let client = mcp((), project).await;
        for (tool, args) in [
            ("index", json!({"action": "full"})),
            ("index", json!({"action": "build"})),
            ("index", json!({"action": "auto", "mode": "warm"})),
            ("index", json!({"action": "status"})),
            ("search", json!({"action": "symbol", "query": "f"})),
            ("nav", json!({"action": "callers", "function_name": "f"})),
            ("health", json!({"action": "file", "file_path": "app.py"})),
            ("edit", json!({"action": "constraints"})),
            (
                "project",
                json!({"action": "journal", "mode": "record", "title": "t", "rationale": "r"}),
            ),
        ] {
            let mut args = args;
            args["output_format"] = json!("json");
            let label = format!("[{} {tool} {}]", project.display(), args["action"]);
            let (is_error, raw) = mcp_raw(&client, tool, &args).await;
            failures.extend(judge(&label, &raw, is_error, Expect::Refuse));
            if is_error && !raw.contains("security_violation") {
                failures.push(format!("{label}: not a security_violation: {raw}"));
            }
        }
        let (code, o, e) = tsa(
            &[
                "--project-root",
                project.to_str().unwrap(),
                "export",
                "scip",
            ],
            &[],
        );
        if code != 1 || !o.contains("security_violation") {
            failures.push(format!(
                "export scip in {}: {code} {o}{e}",
                project.display()
            ));
        }
        // A reset refuses a linked `.tsa`, and removes a real one with the links in
        // it (never what they point to).
        let reset = json!({"action": "auto", "mode": "reset", "output_format": "json"});
        let (is_error, raw) = mcp_raw(&client, "index", &reset).await;
        failures.extend(judge(
            "[index auto reset]",
            &raw,
            is_error,
            Expect::Harmless,
        ));
        client.cancel().await.unwrap();
    }
    if std::fs::read_dir(out.join("tsa_store"))
        .unwrap()
        .next()
        .is_some()
    {
        failures.push("the linked .tsa folder was written".into());
    }
    if out.join("evil.db").exists() || out.join("journal.json").exists() {
        failures.push("a linked file in .tsa was written".into());
    }

    // Linked configuration, skills and manifests read as absent.
    prepare_index(&s);
    let client = mcp((), &s.root).await;
    for (tool, args, expect) in [
        (
            "health",
            json!({"action": "file", "file_path": "app/core.py"}),
            Expect::Allowed,
        ),
        ("health", json!({"action": "project"}), Expect::Allowed),
        ("health", json!({"action": "test_gap"}), Expect::Allowed),
        ("edit", json!({"action": "constraints"}), Expect::Allowed),
        (
            "edit",
            json!({"action": "safe", "file_path": "rs/src/lib.rs"}),
            Expect::Allowed,
        ),
        ("project", json!({"action": "skills"}), Expect::Allowed),
        // Followed links stay inside the root (in-root links are followed).
        (
            "search",
            json!({"action": "content", "query": "secret", "follow_symlinks": true, "hidden": true}),
            Expect::Allowed,
        ),
        (
            "search",
            json!({"action": "grep", "query": "secret", "roots": ["."], "follow_symlinks": true}),
            Expect::Allowed,
        ),
        (
            "project",
            json!({"action": "files", "follow_symlinks": true, "hidden": true, "no_ignore": true}),
            Expect::Allowed,
        ),
        (
            "nav",
            json!({"action": "trace", "symbol": "secret"}),
            Expect::Allowed,
        ),
        ("project", json!({"action": "doc_sync"}), Expect::Allowed),
        (
            "health",
            json!({"action": "test_gap", "coverage_json": "coverage.json"}),
            Expect::Refuse,
        ),
    ] {
        let mut args = args;
        args["output_format"] = json!("json");
        let label = format!("[config {tool} {args}]");
        let (is_error, raw) = mcp_raw(&client, tool, &args).await;
        failures.extend(judge(&label, &raw, is_error, expect));
    }
    client.cancel().await.unwrap();
    // Installing skills never writes through the linked skill folder.
    let (code, o, e) = tsa(
        &[
            "--project-root",
            s.root.to_str().unwrap(),
            "skills",
            "install",
            "--force",
        ],
        &[],
    );
    if code != 1 || !o.contains("security_violation") {
        failures.push(format!("skills install through a link: {code} {o}{e}"));
    }
    let after = snapshot(&s.base, &skip);
    failures.extend(outside_changes(&s.base, &before, &after, "planted links"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// System folders, the home folder and its ancestors (and links to them) are
/// never a project root: `set_project_path` refuses them, the session keeps its
/// root, and `/etc/passwd` stays unreadable. The CLI and `tsa mcp` refuse the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_roots_and_the_home_folder_are_refused() {
    let s = scene();
    link(Path::new("/etc"), &s.base.join("etc_link"));
    link(Path::new("/"), &s.base.join("root_link"));
    let mut refused: Vec<PathBuf> = [
        "/",
        "/etc",
        "/etc/ssl",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/proc",
        "/proc/self/root",
        "/sys",
        "/dev",
        "/boot",
        "/var",
        "/var/lib",
        "/tmp",
        "/home",
        "/root",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    refused.push(s.base.join("etc_link"));
    refused.push(s.base.join("root_link"));
    refused.push(s.base.join("etc_link/ssl"));
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        refused.extend(home.ancestors().map(Path::to_path_buf));
    }
    refused.retain(|p| {
        // `/root` is only refused as the home folder (or above it).
        p != Path::new("/root")
            || std::env::var_os("HOME").is_some_and(|h| Path::new(&h).starts_with("/root"))
    });
    let client = mcp((), &s.root).await;
    let mut failures = Vec::new();
    let mut attempts = 0;
    for path in &refused {
        if !path.exists() {
            continue;
        }
        attempts += 1;
        let label = format!("[set_project_path {}]", path.display());
        let (is_error, raw) =
            mcp_raw(&client, "set_project_path", &json!({"project_path": path})).await;
        if let Some(f) = judge(&label, &raw, is_error, Expect::Refuse) {
            failures.push(f);
        }
        if !raw.contains("security_violation") || !raw.contains("refusing project root") {
            failures.push(format!("{label}: {raw}"));
        }
        // The session kept its root: the password file is neither `passwd` there
        // nor reachable by an absolute path.
        for file in ["/etc/passwd", "passwd", "../passwd"] {
            let (is_error, raw) = mcp_raw(
                &client,
                "structure",
                &json!({"action": "read", "file_path": file, "start_line": 1, "output_format": "json"}),
            )
            .await;
            if let Some(f) = judge(
                &format!("{label} then read {file}"),
                &raw,
                is_error,
                Expect::Error,
            ) {
                failures.push(f);
            }
        }
    }
    // The session still answers on its own root, and a sound root is accepted.
    let (is_error, raw) = mcp_raw(
        &client,
        "set_project_path",
        &json!({"project_path": s.root}),
    )
    .await;
    assert!(!is_error, "{raw}");
    let v: Value = serde_json::from_str(&raw).unwrap();
    assert_envelope(&v);
    assert_eq!(v["status"], "success");
    assert_eq!(v["verdict"], "INFO");
    client.cancel().await.unwrap();

    // The CLI and the MCP server refuse the same roots, exit 1.
    for root in ["/etc", "/", s.base.join("etc_link").to_str().unwrap()] {
        let (code, out, err) = tsa(
            &[
                "--project-root",
                root,
                "structure",
                "read",
                "--file-path",
                "passwd",
                "--start-line",
                "1",
            ],
            &[],
        );
        let label = format!("[cli --project-root {root}]");
        if let Some(f) = judge(&label, &out, code != 0, Expect::Refuse) {
            failures.push(f);
        }
        if code != 1 || !out.contains("refusing project root") || err.contains(PASSWD) {
            failures.push(format!("{label}: exit {code} {out}{err}"));
        }
        let (code, out, err) = tsa(&["mcp", "--project-root", root], &[]);
        if code != 1 || !err.contains("refusing project root") || out.contains(PASSWD) {
            failures.push(format!(
                "[mcp --project-root {root}]: exit {code} {out}{err}"
            ));
        }
        for sub in [&["export", "scip"][..], &["skills", "install"][..]] {
            let mut argv = vec!["--project-root", root];
            argv.extend_from_slice(sub);
            let (code, out, _) = tsa(&argv, &[]);
            if code != 1 || !out.contains("security_violation") {
                failures.push(format!(
                    "[{sub:?} --project-root {root}]: exit {code} {out}"
                ));
            }
        }
    }
    let (code, out, _) = tsa(
        &[
            "structure",
            "read",
            "--file-path",
            "passwd",
            "--start-line",
            "1",
        ],
        &[("TREE_SITTER_PROJECT_ROOT", "/etc")],
    );
    if code != 1 || out.contains(PASSWD) || !out.contains("security_violation") {
        failures.push(format!(
            "[TREE_SITTER_PROJECT_ROOT=/etc]: exit {code} {out}"
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(attempts >= 15, "only {attempts} roots tried");
}

/// Every line of `text` with the marker appended as a comment.
fn marked(text: &str, comment: &str) -> String {
    text.lines()
        .map(|l| format!("{l} {comment} {MARKER}\n"))
        .collect()
}

/// Copies `from` (a folder) to `to`, marking every line of every file.
fn copy_marked(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_marked(&e.path(), &target);
        } else {
            let comment = if e.path().extension().is_some_and(|x| x == "py") {
                "#"
            } else {
                "//"
            };
            let text = std::fs::read_to_string(e.path()).unwrap();
            write(&target, &marked(&text, comment));
        }
    }
}

/// After indexing, indexed files are swapped for links out of the root: a file
/// (`app/core.py`, `README.md`) and whole folders (`tests`, `native`), each pointing
/// at a marked copy outside. Returns the files that were swapped.
fn swap_indexed_files_for_links(s: &Scene) -> Vec<&'static str> {
    let out = s.base.join("outside/swapped");
    for (rel, comment) in [("app/core.py", "#"), ("README.md", "")] {
        let at = s.root.join(rel);
        let text = std::fs::read_to_string(&at).unwrap();
        let target = out.join(rel);
        write(&target, &marked(&text, comment));
        std::fs::remove_file(&at).unwrap();
        link(&target, &at);
    }
    for dir in ["tests", "native"] {
        let at = s.root.join(dir);
        let target = out.join(dir);
        copy_marked(&at, &target);
        std::fs::remove_dir_all(&at).unwrap();
        link(&target, &at);
    }
    vec![
        "app/core.py",
        "README.md",
        "tests/test_core.py",
        "native/src/lib.rs",
    ]
}

/// What an action over a swapped file answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Swap {
    /// A single agent-named file that is now a link out: `security_violation`.
    Refuse,
    /// A walk over indexed files: a success, the swapped files skipped.
    Skip,
    /// [`Swap::Skip`], and the answer names the skipped files in a warning.
    Mention,
    /// Any answer, as long as nothing leaks (an action that may fail on the
    /// changed tree for other reasons, e.g. a git diff of a replaced file).
    Any,
}

/// Every action that reads indexed files, by name or by walking the index.
fn swap_calls() -> Vec<(&'static str, Value, Swap)> {
    use Swap::*;
    let mut calls = vec![
        // nav: bodies inlined, context code blocks, text traces.
        (
            "nav",
            json!({"action": "callers", "function_name": "build"}),
            Mention,
        ),
        (
            "nav",
            json!({"action": "callers", "function_name": "build", "scope": "graph"}),
            Skip,
        ),
        (
            "nav",
            json!({"action": "callees", "function_name": "run"}),
            Mention,
        ),
        (
            "nav",
            json!({"action": "context", "task": "change build and the Engine run step"}),
            Mention,
        ),
        ("nav", json!({"action": "trace", "symbol": "build"}), Skip),
        ("nav", json!({"action": "trace", "symbol": "Engine"}), Skip),
        (
            "nav",
            json!({"action": "test_map", "symbol": "build"}),
            Skip,
        ),
        (
            "nav",
            json!({"action": "impact", "function_name": "build"}),
            Skip,
        ),
        // structure
        (
            "structure",
            json!({"action": "explore", "query": "build", "includeCode": true}),
            Mention,
        ),
        (
            "structure",
            json!({"action": "explore", "symbols": ["Engine", "build", "TurboEngine"], "includeCode": true}),
            Skip,
        ),
        ("structure", json!({"action": "sitemap"}), Skip),
        (
            "structure",
            json!({"action": "class_detail", "class_name": "Engine"}),
            Any,
        ),
        // search
        ("search", json!({"action": "content", "query": "def"}), Skip),
        (
            "search",
            json!({"action": "content", "query": "build"}),
            Skip,
        ),
        (
            "search",
            json!({"action": "grep", "query": "def", "roots": ["."]}),
            Skip,
        ),
        (
            "search",
            json!({"action": "symbol", "query": "build"}),
            Mention,
        ),
        (
            "search",
            json!({"action": "query", "query_key": "functions", "file_path": "app/util.py"}),
            Skip,
        ),
        // health
        ("health", json!({"action": "project"}), Skip),
        ("health", json!({"action": "dead"}), Skip),
        (
            "health",
            json!({"action": "dead", "mode": "unused_imports"}),
            Skip,
        ),
        (
            "health",
            json!({"action": "patterns", "file_path": "app/util.py"}),
            Skip,
        ),
        ("health", json!({"action": "heatmap"}), Skip),
        (
            "health",
            json!({"action": "heatmap", "mode": "function", "function_name": "build"}),
            Any,
        ),
        ("health", json!({"action": "test_gap"}), Skip),
        (
            "health",
            json!({"action": "test_gap", "mode": "gaps"}),
            Skip,
        ),
        (
            "health",
            json!({"action": "scale", "file_paths": ["app/util.py", "app/cli.py"]}),
            Skip,
        ),
        ("health", json!({"action": "routes"}), Skip),
        (
            "health",
            json!({"action": "file", "file_path": "app/util.py"}),
            Skip,
        ),
        // edit
        ("edit", json!({"action": "impact"}), Mention),
        (
            "edit",
            json!({"action": "safe", "file_path": "app/util.py"}),
            Any,
        ),
        (
            "edit",
            json!({"action": "refactor", "file_path": "app/util.py"}),
            Skip,
        ),
        // viz, knowledge, docs
        (
            "viz",
            json!({"action": "similarity", "include_bodies": true, "min_lines": 1}),
            Skip,
        ),
        ("viz", json!({"action": "knowledge"}), Skip),
        (
            "viz",
            json!({"action": "uml", "diagram": "sequence", "source": "run", "target": "build"}),
            Any,
        ),
        // The index names the file (the function lives only in the swapped one).
        (
            "viz",
            json!({"action": "uml", "diagram": "activity", "function_name": "Engine.run"}),
            Refuse,
        ),
        ("project", json!({"action": "doc_sync"}), Skip),
        ("project", json!({"action": "overview"}), Skip),
        (
            "project",
            json!({"action": "smart", "file_path": "app/util.py"}),
            Skip,
        ),
        (
            "index",
            json!({"action": "cache", "mode": "lookup", "symbol": "build"}),
            Any,
        ),
    ];
    // A single file named by the agent that is now a link out (leaf or folder).
    for file in ["app/core.py", "tests/test_core.py", "native/src/lib.rs"] {
        for (tool, args) in [
            (
                "structure",
                json!({"action": "read", "file_path": file, "start_line": 1}),
            ),
            ("structure", json!({"action": "outline", "file_path": file})),
            ("structure", json!({"action": "analyze", "file_path": file})),
            (
                "structure",
                json!({"action": "signatures", "file_path": file}),
            ),
            ("health", json!({"action": "file", "file_path": file})),
            ("health", json!({"action": "patterns", "file_path": file})),
            ("health", json!({"action": "scale", "file_path": file})),
            ("edit", json!({"action": "classify", "file_path": file})),
            ("project", json!({"action": "smart", "file_path": file})),
            (
                "health",
                json!({"action": "heatmap", "mode": "file", "file_path": file}),
            ),
            (
                "health",
                json!({"action": "test_gap", "mode": "file", "file_path": file}),
            ),
            ("edit", json!({"action": "safe", "file_path": file})),
            ("edit", json!({"action": "refactor", "file_path": file})),
            (
                "edit",
                json!({"action": "ast_diff", "old_file": file, "new_file": "app/util.py"}),
            ),
            (
                "edit",
                json!({"action": "ast_diff", "mode": "diff_git", "file_path": file}),
            ),
            (
                "nav",
                json!({"action": "callers", "function_name": "build", "file_path": file}),
            ),
        ] {
            calls.push((tool, args, Refuse));
        }
    }
    // Last: these sync the index first (the walk drops the links).
    calls.push((
        "index",
        json!({"action": "knowledge", "mode": "build", "include_docs": true}),
        Skip,
    ));
    calls
}

fn judge_swap(label: &str, raw: &str, is_error: bool, expect: Swap) -> Option<String> {
    let generic = match expect {
        Swap::Refuse => Expect::Refuse,
        Swap::Skip | Swap::Mention => Expect::Allowed,
        Swap::Any => Expect::Harmless,
    };
    if let Some(f) = judge(label, raw, is_error, generic) {
        return Some(f);
    }
    match expect {
        Swap::Refuse if !raw.contains("security_violation") => {
            Some(format!("{label}: not a security_violation: {raw}"))
        }
        Swap::Skip | Swap::Mention if is_error => {
            Some(format!("{label}: expected a success: {raw}"))
        }
        Swap::Mention if !raw.contains("skipped_linked_files") => {
            Some(format!("{label}: the skipped files are not named: {raw}"))
        }
        _ => None,
    }
}

/// Indexed files swapped for links out of the root after indexing (a file leaf and
/// whole folders): no action that reads indexed files, over MCP or the CLI, serves
/// a byte of what they point to; a file named by the agent is refused, a walk skips
/// it. Written files (knowledge graph, SCIP) hold no secret either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexed_files_swapped_for_links_out_are_never_read() {
    let s = scene();
    prepare_index(&s);
    let swapped = swap_indexed_files_for_links(&s);
    let before = snapshot(&s.base, &[s.root.as_path()]);
    let mut failures = Vec::new();
    let calls = swap_calls();
    // Over MCP, one session.
    let client = mcp((), &s.root).await;
    for (tool, args, expect) in &calls {
        let mut args = args.clone();
        args["output_format"] = json!("json");
        let label = format!("[mcp {tool} {args}]");
        let (is_error, raw) = mcp_raw(&client, tool, &args).await;
        failures.extend(judge_swap(&label, &raw, is_error, *expect));
    }
    client.cancel().await.unwrap();
    // Over the CLI, on a fresh copy of the scene (the MCP run synced its index).
    let s2 = scene();
    prepare_index(&s2);
    swap_indexed_files_for_links(&s2);
    let root = s2.root.to_str().unwrap();
    for (tool, args, expect) in &calls {
        let words = cli_words(tool, args);
        let mut argv = vec!["--project-root", root];
        argv.extend(words.iter().map(String::as_str));
        let (code, out, err) = tsa(&argv, &[]);
        let label = format!("[cli {}]", words.join(" "));
        if err.contains(MARKER) {
            failures.push(format!("{label}: LEAKED on stderr: {err}"));
        }
        failures.extend(judge_swap(&label, &out, code != 0, *expect));
    }
    // SCIP export of the swapped index.
    let s3 = scene();
    prepare_index(&s3);
    swap_indexed_files_for_links(&s3);
    let scip = s3.root.join("index.scip");
    let (code, out, err) = tsa(
        &[
            "--project-root",
            s3.root.to_str().unwrap(),
            "export",
            "scip",
            "--output",
            scip.to_str().unwrap(),
        ],
        &[],
    );
    // (The export syncs the index first, so the links are dropped from it.)
    if code != 0 || out.contains(MARKER) || err.contains(MARKER) {
        failures.push(format!("[export scip]: exit {code} {out}{err}"));
    }
    // Nothing written inside the roots holds the secret (index, knowledge graph,
    // SCIP file, saved answers).
    for r in [&s.root, &s2.root, &s3.root] {
        failures.extend(files_holding_marker(r));
    }
    let after = snapshot(&s.base, &[s.root.as_path()]);
    failures.extend(outside_changes(&s.base, &before, &after, "swapped links"));
    assert!(
        failures.is_empty(),
        "{} failures ({} calls, swapped {swapped:?}):\n{}",
        failures.len(),
        calls.len(),
        failures.join("\n")
    );
}

/// Regular files under `dir` (links not followed) whose bytes hold the marker.
fn files_holding_marker(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file()
                && std::fs::read(e.path())
                    .is_ok_and(|b| b.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()))
            {
                out.push(format!(
                    "written file holds the secret: {}",
                    e.path().display()
                ));
            }
        }
    }
    out
}
