//! Shared by the targets that drive whole tool calls: a fixture project copied
//! into a temporary folder once per process (committed to git, with one change
//! left uncommitted), the tool catalog read from `tools/list`, and the envelope
//! contract every answer must keep.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Map, Value};
use tsa_tools::{Context, FACADES, OutputFormat, Reply, action_descriptions};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create fixture copy");
    for entry in std::fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

fn commit_all(repo: &git2::Repository, msg: &str) {
    let mut idx = repo.index().expect("git index");
    idx.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
        .expect("git add");
    let _ = idx.remove_dir(Path::new(".tsa"), 0);
    idx.write().expect("write git index");
    let tree = repo
        .find_tree(idx.write_tree().expect("write tree"))
        .expect("tree");
    let sig = git2::Signature::now("fuzz", "fuzz@example.com").expect("signature");
    let parents: Vec<git2::Commit<'_>> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &refs)
        .expect("commit");
}

/// The project every call works on: `tests/fixtures/edit_git` (Python + Rust) and
/// `tests/fixtures/hyphae` (Python + TypeScript) side by side, two commits of
/// history, one uncommitted edit. Built once per process; the folder lives as
/// long as the process.
pub fn project() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("tsa-fuzz-")
            .tempdir()
            .expect("temp dir")
            .keep();
        let root = dir.join("proj");
        copy_dir(&fixtures().join("edit_git"), &root);
        let mut o = git2::RepositoryInitOptions::new();
        o.initial_head("main");
        let repo = git2::Repository::init_opts(&root, &o).expect("git init");
        commit_all(&repo, "initial");
        copy_dir(&fixtures().join("hyphae"), &root.join("hy"));
        commit_all(&repo, "add hyphae");
        let core = root.join("app/core.py");
        let mut text = std::fs::read_to_string(&core).expect("read core.py");
        text.push_str("\n\ndef fuzz_added(x):\n    return helper(x) + 1\n");
        std::fs::write(&core, text).expect("edit core.py");
        std::fs::canonicalize(&root).expect("canonical root")
    })
}

/// A fresh session on [`project`] (subscriptions do not leak between inputs).
pub fn context() -> Context {
    Context::with_root(project()).expect("context on the fixture project")
}

/// One action of the catalog with the parameters its schema states.
pub struct ActionInfo {
    pub tool: &'static str,
    pub action: &'static str,
    /// (parameter, required)
    pub params: Vec<(String, bool)>,
}

/// Every implemented action with its parameters, and each tool's property schemas.
pub struct Catalog {
    pub actions: Vec<ActionInfo>,
    pub properties: BTreeMap<&'static str, Map<String, Value>>,
}

/// Reads the catalog from each action's own schema (`action_descriptions`, what
/// `action=help` answers and the dispatcher checks), `help` included.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut actions = Vec::new();
        let mut properties: BTreeMap<&'static str, Map<String, Value>> = BTreeMap::new();
        for f in &FACADES {
            for d in action_descriptions(f.name) {
                let props = d
                    .input_schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let required: Vec<&str> = d
                    .input_schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let params = props
                    .keys()
                    .map(|k| (k.clone(), required.contains(&k.as_str())))
                    .collect();
                let merged = properties.entry(f.name).or_default();
                for (k, v) in props {
                    merged.entry(k).or_insert(v);
                }
                actions.push(ActionInfo {
                    tool: f.name,
                    action: d.name,
                    params,
                });
            }
        }
        assert!(
            actions.len() > 60,
            "action descriptions changed shape: only {} actions read",
            actions.len()
        );
        Catalog {
            actions,
            properties,
        }
    })
}

/// The answer as JSON: the body itself, or its `toon_content` decoded.
pub fn payload(reply: &Reply) -> Value {
    match (reply.format, reply.body.get("toon_content")) {
        (OutputFormat::Toon, Some(Value::String(blob))) => tsa_format::from_toon(blob)
            .unwrap_or_else(|e| panic!("toon_content does not decode: {e}\n{blob}")),
        _ => Value::Object(reply.body.clone()),
    }
}

/// The contract every answer keeps (the e2e `assert_envelope`, plus: a failure
/// never names the absolute project root).
pub fn check_reply(reply: &Reply) {
    let v = payload(reply);
    let success = v["success"].as_bool().expect("success is a bool");
    assert_eq!(reply.is_error, !success, "is_error mirrors success");
    let verdict = v["verdict"].as_str().expect("verdict is a string");
    assert!(
        [
            "SAFE",
            "CAUTION",
            "REVIEW",
            "UNSAFE",
            "INFO",
            "WARN",
            "ERROR",
            "NOT_FOUND"
        ]
        .contains(&verdict),
        "verdict {verdict}"
    );
    assert_eq!(v["agent_summary"]["verdict"], v["verdict"]);
    assert_eq!(v["agent_summary"]["summary_line"], v["summary_line"]);
    assert!(v["summary_line"].as_str().is_some_and(|s| !s.is_empty()));
    if success {
        assert!(v.get("error").is_none());
        assert_ne!(verdict, "ERROR");
    } else {
        assert_eq!(verdict, "ERROR");
        for key in ["error", "error_type", "hint"] {
            assert!(
                v[key].as_str().is_some_and(|s| !s.is_empty()),
                "failure without {key}: {v}"
            );
        }
        let text = v.to_string();
        let root = project().display().to_string();
        assert!(
            !text.contains(&root),
            "a failure names the absolute root: {text}"
        );
    }
}
