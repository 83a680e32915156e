//! Checks the `tsa: def <kind> <qualified name>` directives of every fixture file
//! under `tests/fixtures/` against extraction alone (no index), for every tier.
//! Call directives are checked end to end by `tests/e2e/fixtures.rs`.
//!
//! `TSA_FIXTURE=<dir>` narrows the run to one fixture and prints what was extracted.

use std::path::{Path, PathBuf};

use tsa_lang::{Language, extract};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn fixture_definitions_match_their_directives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let only = std::env::var("TSA_FIXTURE").ok();
    let mut all = Vec::new();
    files(&root, &mut all);
    all.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in all {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if let Some(o) = &only
            && !rel.starts_with(&format!("{o}/"))
        {
            continue;
        }
        let Some(lang) = Language::from_path(&rel) else {
            continue;
        };
        let src = std::fs::read(&path).unwrap();
        let x = extract(lang, &src).unwrap();
        if only.is_some() {
            eprintln!(
                "== {rel} ({}), {} parse errors",
                lang.name(),
                x.parse_errors
            );
            for d in &x.defs {
                let bases: Vec<String> = d
                    .bases
                    .iter()
                    .map(|b| format!("{} {}", b.kind.as_str(), b.name))
                    .collect();
                eprintln!(
                    "  def {}:{} {} {} {:?}",
                    d.line,
                    d.end_line,
                    d.kind.as_str(),
                    d.qualname,
                    bases
                );
            }
            for c in &x.calls {
                eprintln!(
                    "  call {} {:?} path={} in={:?}",
                    c.line,
                    c.receiver,
                    c.path,
                    c.enclosing.map(|i| &x.defs[i].qualname)
                );
                let _ = &c.callee;
                eprintln!("       -> {}", c.callee);
            }
            for i in &x.imports {
                eprintln!(
                    "  import {} module={:?} name={:?} alias={:?} level={}",
                    i.line, i.module, i.name, i.alias, i.level
                );
            }
        }
        let text = String::from_utf8_lossy(&src);
        for (i, line) in text.lines().enumerate() {
            let line_no = i as u32 + 1;
            let Some(at) = line.find("tsa:") else {
                continue;
            };
            for d in line[at + 4..].split(';').map(str::trim) {
                let d = d.trim_end_matches("-->").trim_end_matches("*/").trim();
                let words: Vec<&str> = d.split_whitespace().collect();
                let ["def", kind, qual] = words.as_slice() else {
                    continue;
                };
                checked += 1;
                let ok = x
                    .defs
                    .iter()
                    .any(|s| s.line == line_no && s.kind.as_str() == *kind && s.qualname == *qual);
                if !ok {
                    let got: Vec<String> = x
                        .defs
                        .iter()
                        .filter(|s| s.line == line_no)
                        .map(|s| format!("{} {}", s.kind.as_str(), s.qualname))
                        .collect();
                    failures.push(format!("{rel}:{line_no}: `{d}`: got {got:?}"));
                }
            }
        }
    }
    assert!(checked > 0, "no def directives found");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
