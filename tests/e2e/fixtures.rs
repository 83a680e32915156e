//! Fixture projects whose expected definitions and call edges are written next to
//! the code, in comments holding `tsa:` directives (any comment syntax):
//!
//! - `tsa: def <kind> <qualified name>`: a definition starts on this line;
//! - `tsa: call <callee> -> <file>:<qualified name>`: a call on this line binds there;
//! - `tsa: call <callee> -> <class>`: ... or is classed `stdlib`, `builtin`,
//!   `external` or `unknown` (never bound);
//! - `tsa: branch <callee> <kind>`: a call on this line sits in a branch of that
//!   kind (`if_true`, `loop`, `except`, `unconditional`, ...);
//! - several directives on one line are separated by `;`.
//!
//! Every `tests/fixtures/<dir>` with at least one directive is checked.

use tsa_index::{BuildOptions, Index, build};

use crate::support::{fixtures, project};

#[derive(Debug)]
struct Failure(String);

fn check_dir(name: &str) -> (usize, Vec<Failure>) {
    let p = project(name);
    build(&p.root, &BuildOptions::default()).unwrap();
    let index = Index::open(&p.root).unwrap().unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in index.files().unwrap() {
        let text =
            String::from_utf8_lossy(&std::fs::read(p.root.join(&file)).unwrap()).into_owned();
        let defs = index.symbols_in_file(&file).unwrap();
        let calls = index.calls_in_file(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let line_no = i as u32 + 1;
            let Some(at) = line.find("tsa:") else {
                continue;
            };
            let directives = line[at + 4..]
                .trim()
                .trim_end_matches("-->")
                .trim_end_matches("*/")
                .trim();
            for d in directives
                .split(';')
                .map(str::trim)
                .filter(|d| !d.is_empty())
            {
                checked += 1;
                let words: Vec<&str> = d.split_whitespace().collect();
                let here = format!("{name}/{file}:{line_no}: `{d}`");
                match words.as_slice() {
                    ["def", kind, qual] => {
                        let found = defs
                            .iter()
                            .any(|s| s.line == line_no && s.kind == *kind && s.qualname == *qual);
                        if !found {
                            let got: Vec<String> = defs
                                .iter()
                                .filter(|s| s.line == line_no)
                                .map(|s| format!("{} {}", s.kind, s.qualname))
                                .collect();
                            failures.push(Failure(format!("{here}: got {got:?}")));
                        }
                    }
                    ["call", callee, "->", target] => {
                        let on_line: Vec<_> = calls
                            .iter()
                            .filter(|c| c.line == line_no && c.callee_name == *callee)
                            .collect();
                        let ok = on_line.iter().any(|c| match target.split_once(':') {
                            Some((tf, tq)) => c
                                .target
                                .as_ref()
                                .is_some_and(|t| t.file == tf && t.qualname == tq),
                            None => c.target.is_none() && c.resolution.as_str() == *target,
                        });
                        if !ok {
                            let got: Vec<String> = on_line
                                .iter()
                                .map(|c| match &c.target {
                                    Some(t) => format!(
                                        "{}:{} ({})",
                                        t.file,
                                        t.qualname,
                                        c.resolution.as_str()
                                    ),
                                    None => c.resolution.as_str().to_owned(),
                                })
                                .collect();
                            failures.push(Failure(format!("{here}: got {got:?}")));
                        }
                    }
                    ["branch", callee, kind] => {
                        let got: Vec<&str> = calls
                            .iter()
                            .filter(|c| c.line == line_no && c.callee_name == *callee)
                            .map(|c| c.branch.map_or("none", tsa_index::BranchKind::name))
                            .collect();
                        if !got.contains(kind) {
                            failures.push(Failure(format!("{here}: got {got:?}")));
                        }
                    }
                    _ => failures.push(Failure(format!("{here}: unreadable directive"))),
                }
            }
        }
    }
    (checked, failures)
}

#[test]
fn every_fixture_matches_its_annotations() {
    let mut dirs: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut all = Vec::new();
    let mut report = Vec::new();
    for d in &dirs {
        let (checked, failures) = check_dir(d);
        report.push(format!(
            "{d}: {checked} directives, {} failed",
            failures.len()
        ));
        all.extend(failures);
    }
    assert!(
        all.is_empty(),
        "{}\n\n{}",
        report.join("\n"),
        all.iter()
            .map(|f| f.0.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// One fixture at a time, for quick iteration: `TSA_FIXTURE=go cargo test fixture_one`.
#[test]
fn fixture_one() {
    let Ok(name) = std::env::var("TSA_FIXTURE") else {
        return;
    };
    let (checked, failures) = check_dir(&name);
    assert!(checked > 0, "no tsa: directives in tests/fixtures/{name}");
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|f| f.0.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
