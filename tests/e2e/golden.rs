//! The call corpus: every action of `tests/golden/calls.jsonl` asked over one MCP
//! session per fixture, each JSON answer (timings removed, the temp root replaced)
//! compared with its saved copy under `tests/golden/answers/`. A refactor that
//! keeps behaviour keeps every answer byte for byte; `TSA_GOLDEN=update` rewrites
//! the copies after an intended change (review the diff).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{mcp, mcp_raw, project};

/// Keys whose values are clocks or durations, different on every run.
fn is_clock(key: &str) -> bool {
    key.ends_with("_ms")
        || key.ends_with("_seconds")
        || key.ends_with("_secs")
        || key.ends_with("_at")
        || key.contains("elapsed")
        || key.contains("timestamp")
        || key == "mtime"
        || key == "age_seconds"
}

fn normalise(v: &mut Value, root: &str) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "verification_request"
                    && let Some(text) = x.as_str()
                {
                    // Its root digest is of the temporary root: shown decoded, without it.
                    use base64::Engine;
                    let bytes = base64::engine::general_purpose::URL_SAFE
                        .decode(text)
                        .unwrap();
                    let mut d: Value = serde_json::from_slice(&bytes).unwrap();
                    d["root"] = json!("<root>");
                    *x = d;
                } else if is_clock(k) && !x.is_null() {
                    *x = json!("<clock>");
                } else {
                    normalise(x, root);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| normalise(x, root)),
        Value::String(s) if s.contains(root) => *s = s.replace(root, "<root>"),
        _ => {}
    }
}

/// Replaces durations in free text (`elapsed_ms=12`, `in 54 ms`) by `<clock>`.
fn strip_clock_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let at = ["_ms=", " in "]
            .iter()
            .filter_map(|w| rest.find(w).map(|i| (i, *w)))
            .min();
        let Some((i, word)) = at else { break };
        out.push_str(&rest[..i + word.len()]);
        rest = &rest[i + word.len()..];
        let after = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        // `in 3 files` is a count; only `in 54 ms` is a duration.
        let duration = word == "_ms=" || after.starts_with(" ms");
        if after.len() < rest.len() && duration {
            out.push_str("<clock>");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A git history with fixed dates (stable commit ids) and one uncommitted change.
fn with_history(root: &Path) {
    let mut o = git2::RepositoryInitOptions::new();
    o.initial_head("main");
    let repo = git2::Repository::init_opts(root, &o).unwrap();
    let commit = |repo: &git2::Repository, msg: &str, t: i64| {
        let mut idx = repo.index().unwrap();
        idx.add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        let _ = idx.remove_dir(Path::new(".tsa"), 0);
        idx.write().unwrap();
        let tree = repo.find_tree(idx.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(t, 0)).unwrap();
        let parents: Vec<git2::Commit<'_>> = repo
            .head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok())
            .into_iter()
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &refs)
            .unwrap();
    };
    commit(&repo, "initial", 1_700_000_000);
    let core = root.join("app/core.py");
    let text = std::fs::read_to_string(&core).unwrap();
    std::fs::write(&core, text.replace("len(data)", "len(data) + 1")).unwrap();
    let util = root.join("app/util.py");
    let text = std::fs::read_to_string(&util).unwrap();
    std::fs::write(
        &util,
        format!("{text}\n\ndef extra():\n    return helper()\n"),
    )
    .unwrap();
    commit(&repo, "core and util change together", 1_700_086_400);
    let text = std::fs::read_to_string(&core).unwrap();
    std::fs::write(&core, text.replace("len(data) + 1", "len(data) + 2")).unwrap();
}

fn answers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/answers")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_of_the_call_corpus_is_unchanged() {
    let corpus = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/calls.jsonl"),
    )
    .unwrap();
    let calls: Vec<Value> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut by_fixture: BTreeMap<String, Vec<(usize, &Value)>> = BTreeMap::new();
    for (i, c) in calls.iter().enumerate() {
        by_fixture
            .entry(c["fixture"].as_str().unwrap().to_owned())
            .or_default()
            .push((i, c));
    }
    let update = std::env::var("TSA_GOLDEN").as_deref() == Ok("update");
    let dir = answers_dir();
    if update {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut differ = Vec::new();
    for (fixture, calls) in by_fixture {
        let p = project(&fixture);
        if fixture == "python" {
            with_history(&p.root);
        }
        let root = p.root.display().to_string();
        let client = mcp((), &p.root).await;
        for (i, c) in calls {
            let tool = c["tool"].as_str().unwrap();
            let mut args = c["args"].clone();
            args["output_format"] = json!("json");
            let (is_error, text) = mcp_raw(&client, tool, &args).await;
            let mut v: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("call {i} {tool} {args}: not JSON ({e}): {text}"));
            normalise(&mut v, &root);
            let mut saved = serde_json::to_string_pretty(&json!({
                "call": c,
                "is_error": is_error,
                "answer": v,
            }))
            .unwrap();
            saved = strip_clock_words(&saved);
            saved.push('\n');
            let name = format!(
                "{i:03}-{fixture}-{tool}-{}.json",
                c["args"]["action"].as_str().unwrap()
            );
            let path = dir.join(&name);
            if update {
                std::fs::write(&path, &saved).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(saved.as_str()) {
                differ.push(name);
            }
        }
        client.cancel().await.unwrap();
    }
    assert!(
        differ.is_empty(),
        "{} answers differ from tests/golden/answers (TSA_GOLDEN=update rewrites them; review the diff):\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// Each call of the corpus asked twice, as JSON and with the default format (TOON):
/// `toon_content` is never larger than the minified JSON of the same answer (TOON is
/// the default because it is cheaper). Prints the ratio per call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toon_content_is_never_larger_than_the_json_answer() {
    let corpus = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/calls.jsonl"),
    )
    .unwrap();
    let calls: Vec<Value> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut by_fixture: BTreeMap<String, Vec<(usize, &Value)>> = BTreeMap::new();
    for (i, c) in calls.iter().enumerate() {
        by_fixture
            .entry(c["fixture"].as_str().unwrap().to_owned())
            .or_default()
            .push((i, c));
    }
    let mut larger = Vec::new();
    let mut ratios = Vec::new();
    for (fixture, calls) in by_fixture {
        let p = project(&fixture);
        if fixture == "python" {
            with_history(&p.root);
        }
        let client = mcp((), &p.root).await;
        for (i, c) in calls {
            let tool = c["tool"].as_str().unwrap();
            let mut args = c["args"].clone();
            args["output_format"] = json!("json");
            let (_, text) = mcp_raw(&client, tool, &args).await;
            let Ok(answer) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            let json_chars = serde_json::to_string(&answer).unwrap().chars().count();
            let args = c["args"].clone();
            let (_, text) = mcp_raw(&client, tool, &args).await;
            let toon = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["toon_content"].as_str().map(str::to_owned));
            let Some(toon) = toon else { continue };
            let ratio = toon.chars().count() as f64 / json_chars as f64;
            let name = format!("{i:03}-{fixture}-{tool}-{}", c["args"]["action"]);
            eprintln!("toon/json {ratio:.2} {name}");
            ratios.push(ratio);
            if ratio > 1.0 {
                larger.push(format!("{name}: {ratio:.2}"));
            }
        }
        client.cancel().await.unwrap();
    }
    ratios.sort_by(f64::total_cmp);
    if !ratios.is_empty() {
        eprintln!(
            "toon/json over {} answers: median {:.2}, worst {:.2}",
            ratios.len(),
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1]
        );
    }
    assert!(
        larger.is_empty(),
        "toon_content larger than the minified JSON answer:\n{}",
        larger.join("\n")
    );
}

/// Every list of rows in the saved answers (two or more objects, at any depth) is a
/// TOON table (uniform keys, flat values: TOON writes the keys once, in a header),
/// and the tables together cost at most 0.6 of their minified JSON in TOON. Prints
/// the ratio per list.
#[test]
fn lists_of_rows_are_toon_tables_at_six_tenths_of_their_json() {
    fn lists<'a>(v: &'a Value, at: String, out: &mut Vec<(String, &'a Vec<Value>)>) {
        match v {
            Value::Array(a) => {
                if a.len() >= 2 && a.iter().all(Value::is_object) {
                    out.push((at.clone(), a));
                }
                for (i, x) in a.iter().enumerate() {
                    lists(x, format!("{at}[{i}]"), out);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    lists(x, format!("{at}.{k}"), out);
                }
            }
            _ => {}
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/answers");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut not_tables, mut toon_sum, mut json_sum, mut count) = (Vec::new(), 0usize, 0usize, 0);
    for f in files {
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        let mut found = Vec::new();
        lists(&saved["answer"], String::new(), &mut found);
        for (at, rows) in found {
            let json_chars = serde_json::to_string(rows).unwrap().chars().count();
            let toon = tsa_format::to_toon(&json!({ "t": rows })).unwrap();
            let toon_chars = toon.chars().count();
            let table = toon
                .lines()
                .next()
                .is_some_and(|l| l.starts_with("t[") && l.contains("]{"));
            eprintln!(
                "toon/json {:.2} {} {name} {at} ({} rows)",
                toon_chars as f64 / json_chars as f64,
                if table { "table" } else { "NOT A TABLE" },
                rows.len()
            );
            if table {
                toon_sum += toon_chars;
                json_sum += json_chars;
                count += 1;
            } else if !NESTED_BY_DESIGN
                .iter()
                .chain(TO_FLATTEN.iter())
                .any(|(action, list)| name.ends_with(action) && at.starts_with(list))
            {
                not_tables.push(format!("{name} {at}"));
            }
        }
    }
    let ratio = toon_sum as f64 / json_sum as f64;
    eprintln!("{count} tables: TOON {toon_sum} / JSON {json_sum} characters = {ratio:.2}");
    assert!(
        not_tables.is_empty(),
        "lists of rows TOON cannot write as a table:\n{}",
        not_tables.join("\n")
    );
    assert!(ratio <= 0.6, "tables cost {ratio:.2} of their JSON");
}

/// Lists nested on purpose, by answer (`<tool>-<action>`) and path: a tree's
/// children (the flat `nodes` table beside it lists the same nodes as rows), the
/// knowledge graph's nodes (graphology's import format, read by the page), a
/// definition's hierarchy (bases, subtypes and overrides per definition), the
/// matches grouped by file (the grouping is the point: each path written once, its
/// matches a table under it), a workflow's phases holding their steps, and a file's
/// scale report holding its functions (each inner list a table).
const NESTED_BY_DESIGN: [(&str, &str); 8] = [
    ("nav-caller_tree", ".root.children"),
    ("nav-callee_tree", ".root.children"),
    ("viz-knowledge", ".nodes"),
    ("nav-navigate", ".hierarchy"),
    ("search-grep", ".files"),
    ("search-content", ".files"),
    ("project-workflow", ".phases"),
    ("health-scale", ".files"),
];

/// Lists not yet flat (this list only shrinks).
const TO_FLATTEN: [(&str, &str); 0] = [];
