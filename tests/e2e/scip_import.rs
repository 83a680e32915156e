//! `index scip`: compiler-grade edges read from SCIP files built here with the
//! `scip` crate (no indexer needed): upgraded, added and contradicted call sites,
//! stale documents, symbols outside the project, a path outside the root, corrupt
//! and truncated files (an ERROR and the index as it was), a sync that keeps the
//! compiler edges of unchanged files, and `index.scip` picked up by a build.

use std::path::Path;

use protobuf::{EnumOrUnknown, Message};
use scip::types::{Document, Index as ScipIndex, Occurrence, PositionEncoding, SymbolRole};
use serde_json::Value;

use crate::support::json;

const CORE: &str = "\
def build(x):
    return x


class Engine:
    def run(self):
        return 1


def helper():
    return 2
";

const OTHER: &str = "\
def helper():
    return 3
";

const CLI: &str = "\
from app.core import build, helper
import requests


def main(e):
    build(1)
    e.run()
    helper()
    requests.get(\"u\")
";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("app")).unwrap();
    std::fs::write(root.join("app/__init__.py"), "").unwrap();
    std::fs::write(root.join("app/core.py"), CORE).unwrap();
    std::fs::write(root.join("app/other.py"), OTHER).unwrap();
    std::fs::write(root.join("app/cli.py"), CLI).unwrap();
    dir
}

fn sym(path: &str, descriptor: &str) -> String {
    format!("scip-python python app 0.1 `{path}`/{descriptor}")
}

/// An occurrence of `name` on 0-based `line` of `text` (its first place there).
fn occ(text: &str, line: usize, name: &str, symbol: &str, definition: bool) -> Occurrence {
    let col = text.lines().nth(line).unwrap().find(name).unwrap() as i32;
    Occurrence {
        range: vec![line as i32, col, col + name.len() as i32],
        symbol: symbol.to_owned(),
        symbol_roles: if definition {
            SymbolRole::Definition as i32
        } else {
            0
        },
        ..Default::default()
    }
}

fn doc(path: &str, occurrences: Vec<Occurrence>) -> Document {
    Document {
        relative_path: path.to_owned(),
        occurrences,
        position_encoding: EnumOrUnknown::new(PositionEncoding::UTF16CodeUnitOffsetFromLineStart),
        ..Default::default()
    }
}

/// What a compiler would say about the project: `e.run()` is `Engine.run`,
/// `helper()` is `app.other.helper` (contradicting the import), `requests.get`
/// is the `requests` package's; plus a document of a file that changed since.
fn scip_bytes() -> Vec<u8> {
    let build = sym("app.core", "build().");
    let run = sym("app.core", "Engine#run().");
    let helper_other = sym("app.other", "helper().");
    let get = "scip-python python requests 2.32 `requests.api`/get().".to_owned();
    let core = doc(
        "app/core.py",
        vec![
            occ(CORE, 0, "build", &build, true),
            occ(CORE, 4, "Engine", &sym("app.core", "Engine#"), true),
            occ(CORE, 5, "run", &run, true),
            occ(CORE, 9, "helper", &sym("app.core", "helper()."), true),
        ],
    );
    let other = doc(
        "app/other.py",
        vec![occ(OTHER, 0, "helper", &helper_other, true)],
    );
    let cli = doc(
        "app/cli.py",
        vec![
            occ(CLI, 5, "build", &build, false),
            occ(CLI, 6, "run", &run, false),
            occ(CLI, 7, "helper", &helper_other, false),
            occ(CLI, 8, "get", &get, false),
        ],
    );
    // The SCIP index of an older `app/__init__.py`: its names are not where it says.
    let stale = doc(
        "app/__init__.py",
        (0..4)
            .map(|i| Occurrence {
                range: vec![3 + i, 4, 9],
                symbol: sym("app", &format!("setup{i}().")),
                symbol_roles: SymbolRole::Definition as i32,
                ..Default::default()
            })
            .collect(),
    );
    let gone = doc("app/removed.py", vec![]);
    ScipIndex {
        documents: vec![core, other, cli, stale, gone],
        ..Default::default()
    }
    .write_to_bytes()
    .unwrap()
}

fn callees(root: &Path) -> Vec<(String, String, String)> {
    let (_, v) = json(
        root,
        &[
            "nav",
            "callees",
            "--function-name",
            "main",
            "--file-path",
            "app/cli.py",
        ],
    );
    v["callees"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or("").to_owned(),
                c["callee_resolution"].as_str().unwrap_or("").to_owned(),
                c["file"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn calls_snapshot(root: &Path) -> Vec<(String, u32, String, String)> {
    let index = tsa_index::Index::open(root).unwrap().unwrap();
    let mut out = Vec::new();
    for f in index.files().unwrap() {
        for c in index.calls_in_file(&f).unwrap() {
            out.push((
                f.clone(),
                c.line,
                c.callee_name.clone(),
                format!(
                    "{}{}",
                    c.resolution.as_str(),
                    c.target
                        .map(|t| format!(":{}:{}", t.file, t.qualname))
                        .unwrap_or_default()
                ),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn scip_edges_upgrade_add_contradict_and_classify_outside_calls() {
    let dir = project();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("scip")).unwrap();
    std::fs::write(root.join("scip/py.scip"), scip_bytes()).unwrap();
    json(&root, &["index", "full"]);
    let before = callees(&root);
    assert!(
        before.iter().any(|c| c.0 == "run" && c.1 == "unknown"),
        "{before:?}"
    );

    let (code, v) = json(&root, &["index", "scip", "--input-paths", "scip/py.scip"]);
    assert_eq!(code, 0, "{v}");
    let s = &v["scip"];
    assert_eq!(s["documents"], 5, "{v}");
    assert_eq!(s["documents_fresh"], 3, "{v}");
    assert_eq!(s["documents_stale"], 1, "{v}");
    assert_eq!(s["documents_without_file"], 1, "{v}");
    assert_eq!(s["call_sites_upgraded"], 1, "{v}");
    assert_eq!(s["call_sites_added"], 1, "{v}");
    assert_eq!(s["call_sites_contradicted"], 1, "{v}");
    assert_eq!(s["call_sites_external"], 1, "{v}");
    assert_eq!(v["verdict"], "WARN", "a stale document is a warning: {v}");
    assert_eq!(v["stale_files"][0], "app/__init__.py");

    let after = callees(&root);
    for want in [
        ("build", "compiler", "app/core.py"),
        ("run", "compiler", "app/core.py"),
        ("helper", "compiler", "app/other.py"),
        ("get", "external", "app/cli.py"),
    ] {
        let want = (want.0.to_owned(), want.1.to_owned(), want.2.to_owned());
        assert!(after.contains(&want), "{want:?} not in {after:?}");
    }
    let (_, ce) = json(
        &root,
        &[
            "nav",
            "callees",
            "--function-name",
            "main",
            "--file-path",
            "app/cli.py",
        ],
    );
    let get = ce["callees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "get")
        .unwrap();
    assert_eq!(get["package"], "requests", "{ce}");
    // Callers of Engine.run now exist, as compiler edges.
    let (_, c) = json(&root, &["nav", "callers", "--function-name", "Engine.run"]);
    assert_eq!(c["caller_count"], 1, "{c}");
    assert_eq!(c["callers"][0]["callee_resolution"], "compiler", "{c}");
    assert_eq!(c["callers"][0]["confidence"], 1.0, "{c}");
    // index status shows the coverage.
    let (_, st) = json(&root, &["index", "status", "--include-lag", "false"]);
    assert_eq!(st["scip"]["call_sites_added"], 1, "{st}");

    // A sync after an edit of core.py: the compiler edges into it go back to the
    // heuristics, those into other.py stay.
    std::fs::write(
        root.join("app/core.py"),
        format!("{CORE}\n\ndef extra():\n    return 0\n"),
    )
    .unwrap();
    json(&root, &["index", "full"]);
    let synced = callees(&root);
    assert!(
        synced.contains(&("helper".into(), "compiler".into(), "app/other.py".into())),
        "{synced:?}"
    );
    assert!(
        synced.contains(&("build".into(), "project".into(), "app/core.py".into())),
        "{synced:?}"
    );
    // A cold build re-imports the remembered SCIP file: core.py's document is still
    // fresh (lines were only appended), so its edges come back as compiler edges.
    let incremental = calls_snapshot(&root);
    json(&root, &["index", "full", "--mode", "full"]);
    let cold = calls_snapshot(&root);
    assert!(
        cold.iter()
            .any(|r| r.2 == "build" && r.3.starts_with("compiler")),
        "{cold:?}"
    );
    assert_ne!(
        incremental, cold,
        "the sync left core.py to the heuristics until a re-import"
    );
}

#[test]
fn bad_scip_files_are_errors_and_leave_the_index_as_it_was() {
    let dir = project();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    json(&root, &["index", "full"]);
    let before = calls_snapshot(&root);
    let good = scip_bytes();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("truncated.scip", good[..good.len() / 2].to_vec()),
        (
            "random.scip",
            (0..4096u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
        ),
        ("text.scip", b"this is not a scip index at all\n".to_vec()),
    ];
    for (name, bytes) in cases {
        std::fs::write(root.join(name), &bytes).unwrap();
        let (code, v) = json(&root, &["index", "scip", "--input-paths", name]);
        assert_ne!(code, 0, "{name}: {v}");
        assert_eq!(v["success"], false, "{name}: {v}");
        assert!(v["error"].as_str().unwrap().contains("SCIP"), "{name}: {v}");
        assert!(v["hint"].is_string(), "{name}: {v}");
        assert_eq!(calls_snapshot(&root), before, "{name}: the index changed");
    }
    // Outside the root: refused before anything is read.
    let outside = tempfile::tempdir().unwrap();
    let out_file = outside.path().join("x.scip");
    std::fs::write(&out_file, &good).unwrap();
    let (code, v): (i32, Value) = json(
        &root,
        &["index", "scip", "--input-paths", out_file.to_str().unwrap()],
    );
    assert_ne!(code, 0, "{v}");
    assert_eq!(v["error_type"], "security_violation", "{v}");
    assert_eq!(calls_snapshot(&root), before);
}

#[test]
fn index_scip_at_the_root_is_picked_up_by_a_build() {
    let dir = project();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("index.scip"), scip_bytes()).unwrap();
    let (_, v) = json(&root, &["index", "full"]);
    assert_eq!(v["scip"]["call_sites_added"], 1, "{v}");
    let after = callees(&root);
    assert!(
        after.contains(&("run".into(), "compiler".into(), "app/core.py".into())),
        "{after:?}"
    );
    // A no-change sync does not read it again; a changed file is read again.
    let (_, v) = json(&root, &["index", "full"]);
    assert!(v["scip"].is_null(), "{v}");
    let bad = b"garbage".to_vec();
    std::fs::write(root.join("index.scip"), bad).unwrap();
    let (code, v) = json(&root, &["index", "full"]);
    assert_eq!(code, 0, "a bad SCIP file never fails a build: {v}");
    assert!(
        v["warnings"].to_string().contains("scip_import_failed"),
        "{v}"
    );
}
