//! Text search actions (`search content`/`text`, `grep`, `batch`, `query`, `nav trace`)
//! end to end: the same cases through the CLI and through the MCP server, each
//! with its truncation and its NOT_FOUND or error path.

use std::path::Path;

use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

use crate::support::{assert_envelope, json as cli_json, project};

/// One call: tool, arguments (with `action`), and the checks on its answer.
struct Case {
    name: &'static str,
    tool: &'static str,
    args: Value,
    check: fn(&Value),
}

fn cli(root: &Path, tool: &str, args: &Value) -> Value {
    let words = crate::support::cli_words(tool, args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_eq!(
        code != 0,
        v["success"] == false,
        "exit code follows success: {v}"
    );
    v
}

/// Checks the four-part truncation of a list answer.
fn truncated(v: &Value, total_key: &str, listed_key: &str, cap_key: &str, noun: &str) {
    truncated_at(v, total_key, listed_key, cap_key, noun, None);
}

/// As [`truncated`]; the cap is `cap` when given, else the listed count.
fn truncated_at(
    v: &Value,
    total_key: &str,
    listed_key: &str,
    cap_key: &str,
    noun: &str,
    cap: Option<u64>,
) {
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["truncated"], true, "{v}");
    let total = v[total_key].as_u64().unwrap();
    let listed = v[listed_key].as_u64().unwrap();
    assert!(listed < total, "{listed} < {total}: {v}");
    assert_eq!(v[cap_key].as_u64().unwrap(), cap.unwrap_or(listed), "{v}");
    let step = v["next_step"].as_str().unwrap();
    assert!(
        step.starts_with(&format!("showing {listed} of {total} {noun}")),
        "{step}"
    );
}

fn error(v: &Value, error_type: &str, needle: &str) {
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_type"], error_type, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains(needle),
        "'{needle}' in {}",
        v["error"]
    );
}

fn count_lines(root: &Path, needle: &str, case_insensitive: bool) -> usize {
    // The fixture's own truth: matching lines in every text file (no ignore files there).
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().unwrap().to_string_lossy().starts_with('.') {
                continue;
            }
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(root, &mut files);
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|t| t.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter(|l| {
            if case_insensitive {
                l.to_lowercase().contains(&needle.to_lowercase())
            } else {
                l.contains(needle)
            }
        })
        .count()
}

fn cases() -> Vec<Case> {
    vec![
        // ---- search content -------------------------------------------------------
        Case {
            name: "content truncates with exact total",
            tool: "search",
            args: json!({"action": "content", "query": "build", "max_count": 3}),
            check: |v| {
                truncated(v, "total_matches", "count", "listed_cap", "matches");
                assert_eq!(v["verdict"], "REVIEW");
                assert_eq!(v["total_count"], v["total_matches"]);
                assert_eq!(v["total_count_known"], true);
                assert_eq!(v["case_sensitive"], false);
                let r = &v["results"][0];
                let text = r["text"].as_str().unwrap();
                // `matches` is `start-end` byte ranges separated by spaces.
                let first = r["matches"].as_str().unwrap().split(' ').next().unwrap();
                let (s, e) = first.split_once('-').unwrap();
                let [s, e]: [usize; 2] = [s.parse().unwrap(), e.parse().unwrap()];
                assert_eq!(text[s..e].to_lowercase(), "build");
                assert!(!r["file"].as_str().unwrap().starts_with('/'));
                assert!(
                    v["summary_line"]
                        .as_str()
                        .unwrap()
                        .starts_with("search_content 'build': ")
                );
            },
        },
        // ---- search text (literal, no index) -----------------------------------------
        Case {
            name: "text lists every matching line, smart case sensitive",
            tool: "search",
            args: json!({"action": "text", "query": "TurboEngine", "include_globs": ["*.py"]}),
            check: |v| {
                assert_eq!(v["success"], true, "{v}");
                assert_eq!(v["verdict"], "INFO");
                assert_eq!(v["truncated"], false);
                assert_eq!(v["truncation_reason"], Value::Null);
                assert_eq!(v["effective_case_sensitive"], true);
                assert_eq!(v["match_mode"], "literal");
                assert_eq!(v["source_evidence"]["index_used"], false);
                assert_eq!(v["source_evidence"]["scan_complete"], true);
                let rows = v["results"].as_array().unwrap();
                assert!(
                    rows.iter()
                        .all(|r| r["file"].as_str().unwrap().ends_with(".py"))
                );
                let first = rows.iter().find(|r| r["file"] == "app/core.py").unwrap();
                assert_eq!(first["line"], 25, "{first}");
                assert_eq!(first["column"], 7, "1-based, in characters: {first}");
                assert_eq!(v["displayed_count"], v["total_count"]);
                assert_eq!(v["total_count"].as_u64().unwrap() as usize, rows.len());
                let mut sorted = rows.clone();
                sorted.sort_by_key(|r| {
                    (
                        r["file"].as_str().unwrap().to_owned(),
                        r["line"].as_u64().unwrap(),
                    )
                });
                assert_eq!(&sorted, rows, "sorted by file then line");
            },
        },
        Case {
            name: "text truncates with the exact total",
            tool: "search",
            args: json!({"action": "text", "query": "self", "limit": 2}),
            check: |v| {
                truncated(
                    v,
                    "total_count",
                    "displayed_count",
                    "listed_cap",
                    "matching lines",
                );
                assert_eq!(v["truncation_reason"], "limit");
                assert_eq!(v["effective_case_sensitive"], false);
            },
        },
        Case {
            name: "text word match and case",
            tool: "search",
            args: json!({"action": "text", "query": "engine", "word_match": true,
                         "case_mode": "sensitive", "root": "app"}),
            check: |v| {
                assert_eq!(v["success"], true, "{v}");
                for r in v["results"].as_array().unwrap() {
                    let t = r["text"].as_str().unwrap();
                    let col = r["column"].as_u64().unwrap() as usize - 1;
                    let before: Vec<char> = t.chars().collect();
                    assert!(
                        col == 0 || !(before[col - 1].is_alphanumeric() || before[col - 1] == '_'),
                        "{t}"
                    );
                    assert!(r["file"].as_str().unwrap().starts_with("app/"), "{r}");
                }
            },
        },
        Case {
            name: "text not found in a complete scope",
            tool: "search",
            args: json!({"action": "text", "query": "zz_no_such_text_qq"}),
            check: |v| {
                assert_eq!(v["success"], true, "{v}");
                assert_eq!(v["verdict"], "NOT_FOUND");
                assert_eq!(v["total_count"], 0);
                assert_eq!(v["source_evidence"]["scan_complete"], true);
            },
        },
        Case {
            name: "text refuses a multi-line query naming the field",
            tool: "search",
            args: json!({"action": "text", "query": "a\nb"}),
            check: |v| {
                error(v, "validation", "query must be 1-4096 UTF-8 bytes");
                assert_eq!(v["error_code"], "INVALID_ARGUMENT");
                assert_eq!(v["results"], json!([]));
            },
        },
        Case {
            name: "text refuses a root that is not a folder",
            tool: "search",
            args: json!({"action": "text", "query": "x", "root": "app/core.py"}),
            check: |v| {
                error(v, "file_not_found", "SOURCE_ROOT_UNAVAILABLE");
                assert_eq!(v["error_code"], "SOURCE_ROOT_UNAVAILABLE");
                assert_eq!(v["source_evidence"]["scan_complete"], false);
            },
        },
        Case {
            name: "text refuses a negated glob and a limit out of range",
            tool: "search",
            args: json!({"action": "text", "query": "x", "include_globs": ["!*.py"]}),
            check: |v| {
                error(v, "validation", "include_globs");
                assert_eq!(v["error_code"], "INVALID_ARGUMENT");
            },
        },
        Case {
            name: "text refuses a limit over 1000",
            tool: "search",
            args: json!({"action": "text", "query": "x", "limit": 1001}),
            check: |v| {
                error(v, "validation", "limit must be 1-1000");
            },
        },
        Case {
            name: "content not found",
            tool: "search",
            args: json!({"action": "content", "query": "zz_no_such_text_qq"}),
            check: |v| {
                assert_eq!(v["success"], true);
                assert_eq!(v["verdict"], "NOT_FOUND");
                assert_eq!(v["total_matches"], 0);
                assert_eq!(v["truncated"], false);
            },
        },
        Case {
            name: "content bad regex",
            tool: "search",
            args: json!({"action": "content", "query": "build(("}),
            check: |v| error(v, "validation", "invalid regex 'build(('"),
        },
        Case {
            name: "content roots outside",
            tool: "search",
            args: json!({"action": "content", "query": "build", "roots": ["../"]}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
        Case {
            name: "content files outside",
            tool: "search",
            args: json!({"action": "content", "query": "build", "files": ["../../etc/passwd"]}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
        Case {
            name: "content output_file outside",
            tool: "search",
            args: json!({"action": "content", "query": "build", "output_file": "../leak.json"}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
        Case {
            name: "content total_only",
            tool: "search",
            args: json!({"action": "content", "query": "def ", "total_only": true, "include_globs": ["*.py"]}),
            check: |v| {
                assert_eq!(v["mode"], "total_only");
                assert_eq!(v["count_only"], true);
                assert!(v["total_matches"].as_u64().unwrap() >= 10, "{v}");
                assert!(v.get("results").is_none());
            },
        },
        Case {
            name: "content count_only_matches truncates the file list",
            tool: "search",
            args: json!({"action": "content", "query": "build", "count_only_matches": true}),
            check: |v| {
                assert_eq!(v["mode"], "count_only_matches");
                let sum: u64 = v["file_counts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["count"].as_u64().unwrap())
                    .sum();
                assert_eq!(sum, v["total_matches"].as_u64().unwrap());
                assert_eq!(v["files_matched"], v["file_count"]);
            },
        },
        Case {
            name: "content files_with_matches truncates",
            tool: "search",
            args: json!({"action": "content", "query": "def", "files_with_matches": true, "max_count": 2}),
            check: |v| {
                truncated(v, "files_matched", "count", "listed_cap", "files");
                assert_eq!(v["verdict"], "INFO");
                assert!(v["files"][0].is_string());
            },
        },
        Case {
            name: "content group_by_file",
            tool: "search",
            args: json!({"action": "content", "query": "build", "group_by_file": true, "max_count": 2}),
            check: |v| {
                truncated(v, "files_matched", "files_listed", "listed_cap", "files");
                let f = &v["files"][0];
                assert!(
                    f["match_count"].as_u64().unwrap()
                        >= f["matches"].as_array().unwrap().len() as u64
                );
            },
        },
        Case {
            name: "content summary_only",
            tool: "search",
            args: json!({"action": "content", "query": "build", "summary_only": true}),
            check: |v| {
                assert_eq!(v["mode"], "summary_only");
                assert_eq!(v["summary"]["total_matches"], v["total_matches"]);
                let counts: Vec<u64> = v["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["match_count"].as_u64().unwrap())
                    .collect();
                assert!(
                    counts.windows(2).all(|w| w[0] >= w[1]),
                    "busiest first: {counts:?}"
                );
            },
        },
        Case {
            name: "content word + context + stats",
            tool: "search",
            args: json!({"action": "content", "query": "run", "word": true, "case": "sensitive", "context": 1, "include_stats": true, "file_types": ["py"]}),
            check: |v| {
                assert_eq!(v["success"], true, "{v}");
                for r in v["results"].as_array().unwrap() {
                    assert!(r["file"].as_str().unwrap().ends_with(".py"));
                    assert!(r.get("context_before").is_some() || r["line"] == 1, "{r}");
                }
                assert!(v["stats"]["files_searched"].as_u64().unwrap() >= 1);
            },
        },
        Case {
            name: "content suppress_output writes the file",
            tool: "search",
            args: json!({"action": "content", "query": "build", "output_file": "out/build.json", "suppress_output": true}),
            check: |v| {
                assert_eq!(v["success"], true, "{v}");
                assert_eq!(v["output_saved"], "out/build.json");
                assert!(v.get("results").is_none());
                assert!(v["total_matches"].as_u64().unwrap() > 0);
            },
        },
        Case {
            name: "content unknown encoding",
            tool: "search",
            args: json!({"action": "content", "query": "build", "encoding": "klingon"}),
            check: |v| error(v, "validation", "unknown encoding 'klingon'"),
        },
        // ---- search grep ----------------------------------------------------------
        Case {
            name: "grep truncates",
            tool: "search",
            args: json!({"action": "grep", "query": "def", "roots": ["app"], "pattern": "\\.py$", "max_count": 2}),
            check: |v| {
                truncated(v, "total_matches", "count", "listed_cap", "matches");
                assert!(
                    v["summary_line"]
                        .as_str()
                        .unwrap()
                        .starts_with("search_grep 'def'")
                );
                assert!(
                    v["results"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| r["file"].as_str().unwrap().starts_with("app/"))
                );
                assert!(v["files_discovered"].as_u64().unwrap() >= 5);
            },
        },
        Case {
            name: "grep glob + file_limit",
            tool: "search",
            args: json!({"action": "grep", "query": "def", "roots": ["."], "pattern": "*.py", "glob": true, "file_limit": 1, "files_with_matches": true}),
            check: |v| {
                assert_eq!(v["files_searched"], 1);
                assert_eq!(v["files_truncated"], true);
                assert!(v["warnings"][0].as_str().unwrap().contains("file_limit"));
            },
        },
        Case {
            name: "grep finds no file",
            tool: "search",
            args: json!({"action": "grep", "query": "def", "roots": ["."], "pattern": "^no_such_file$"}),
            check: |v| {
                assert_eq!(v["verdict"], "NOT_FOUND");
                assert_eq!(v["files_discovered"], 0);
            },
        },
        Case {
            name: "grep roots outside",
            tool: "search",
            args: json!({"action": "grep", "query": "x", "roots": ["../"]}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
        Case {
            name: "grep bad size",
            tool: "search",
            args: json!({"action": "grep", "query": "x", "roots": ["."], "size": ["+ten"]}),
            check: |v| error(v, "validation", "parameter 'size'"),
        },
        Case {
            name: "grep bad regex",
            tool: "search",
            args: json!({"action": "grep", "query": "[", "roots": ["."]}),
            check: |v| error(v, "validation", "invalid regex"),
        },
        // ---- search batch ---------------------------------------------------------
        Case {
            name: "batch truncates per query",
            tool: "search",
            args: json!({"action": "batch", "queries": [
                {"pattern": "build", "label": "b", "max_results": 2},
                {"pattern": "Engine", "case_sensitive": true, "include_globs": ["*.py"]},
                {"pattern": "zz_none_qq"}
            ]}),
            check: |v| {
                // The cap of the combined list is the sum of the per-search caps.
                truncated_at(
                    v,
                    "total_matches",
                    "count",
                    "listed_cap",
                    "matches over all searches",
                    Some(2 + 20 + 20),
                );
                let q = v["queries"].as_array().unwrap();
                assert_eq!(q.len(), 3);
                assert_eq!(q[0]["label"], "b");
                assert_eq!(q[0]["count"], 2);
                assert_eq!(q[0]["truncated"], true);
                assert_eq!(q[1]["label"], "q2");
                assert_eq!(q[2]["total_matches"], 0);
                let sum: u64 = q.iter().map(|x| x["total_matches"].as_u64().unwrap()).sum();
                assert_eq!(v["total_matches"].as_u64().unwrap(), sum);
                assert!(
                    v["results"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| r["label"].is_string())
                );
            },
        },
        Case {
            name: "batch with one query",
            tool: "search",
            args: json!({"action": "batch", "queries": [{"pattern": "build"}]}),
            check: |v| error(v, "validation", "2 to 10"),
        },
        Case {
            name: "batch with eleven queries",
            tool: "search",
            args: json!({"action": "batch", "queries": (0..11).map(|i| json!({"pattern": format!("p{i}")})).collect::<Vec<_>>()}),
            check: |v| error(v, "validation", "got 11"),
        },
        Case {
            name: "batch query without pattern",
            tool: "search",
            args: json!({"action": "batch", "queries": [{"pattern": "a"}, {"label": "x"}]}),
            check: |v| error(v, "validation", "pattern"),
        },
        Case {
            name: "batch roots outside",
            tool: "search",
            args: json!({"action": "batch", "queries": [{"pattern": "a"}, {"pattern": "b", "roots": ["../"]}]}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
        // ---- search query ---------------------------------------------------------
        Case {
            name: "query named functions truncates",
            tool: "search",
            args: json!({"action": "query", "file_path": "app/core.py", "query_key": "functions", "max_count": 2}),
            check: |v| {
                truncated(v, "total_matches", "count", "listed_cap", "results");
                assert_eq!(v["results"][0]["name"], "build");
                assert_eq!(v["results"][0]["start_line"], 5);
                assert_eq!(v["language"], "python");
            },
        },
        Case {
            name: "query custom with filter",
            tool: "search",
            args: json!({"action": "query", "file_path": "app/core.py", "query_string": "(class_definition name: (identifier) @cls)", "filter": "name=~^Turbo"}),
            check: |v| {
                assert_eq!(v["verdict"], "INFO", "{v}");
                assert_eq!(v["total_matches"], 1);
                let r = &v["results"][0];
                assert_eq!(
                    (
                        r["capture"].as_str(),
                        r["text"].as_str(),
                        r["kind"].as_str()
                    ),
                    (Some("cls"), Some("TurboEngine"), Some("identifier"))
                );
                assert_eq!(r["start_line"], 25);
            },
        },
        Case {
            name: "query filter leaves nothing",
            tool: "search",
            args: json!({"action": "query", "file_path": "app/core.py", "query_key": "classes", "filter": "name=Nope"}),
            check: |v| {
                assert_eq!(v["verdict"], "NOT_FOUND");
                assert_eq!(v["total_matches"], 0);
            },
        },
        Case {
            name: "query syntax error",
            tool: "search",
            args: json!({"action": "query", "file_path": "app/core.py", "query_string": "(function_definition name: (identifier) @n"}),
            check: |v| error(v, "validation", "query syntax error at line 1 column"),
        },
        Case {
            name: "query symbol found",
            tool: "search",
            args: json!({"action": "query", "symbol": "Engine"}),
            check: |v| {
                assert_eq!(v["verdict"], "INFO", "{v}");
                assert_eq!(v["definitions"][0]["file"], "app/core.py");
            },
        },
        Case {
            name: "query symbol missing",
            tool: "search",
            args: json!({"action": "query", "symbol": "Engien"}),
            check: |v| {
                assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
                assert!(
                    v["suggestions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|s| s == "Engine"),
                    "{v}"
                );
            },
        },
        Case {
            name: "query file outside",
            tool: "search",
            args: json!({"action": "query", "file_path": "../x.py", "query_key": "functions"}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
        // ---- nav trace ------------------------------------------------------------
        Case {
            name: "trace truncates",
            tool: "nav",
            args: json!({"action": "trace", "symbol": "build", "max_results": 2}),
            check: |v| {
                truncated(v, "count", "usages_listed", "listed_cap", "usages");
                assert_eq!(v["found"], true);
                let n = v["count"].as_u64().unwrap();
                let level = v["impact_level"].as_str().unwrap();
                assert_eq!(
                    level,
                    if n <= 5 {
                        "low"
                    } else if n <= 20 {
                        "medium"
                    } else {
                        "high"
                    }
                );
                assert!(v["call_count"].as_u64().unwrap() <= n);
                // Comment lines and imports are filtered out, definitions listed apart.
                assert!(v["filtered"]["comments"].as_u64().unwrap() > 0);
                assert!(v["filtered"]["imports"].as_u64().unwrap() > 0);
                assert!(
                    v["definitions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|d| d["file"] == "app/core.py" && d["line"] == 5)
                );
                for u in v["usages"].as_array().unwrap() {
                    assert!(!u["text"].as_str().unwrap().starts_with('#'));
                    assert!(!u["text"].as_str().unwrap().starts_with("from "));
                }
            },
        },
        Case {
            name: "trace not found",
            tool: "nav",
            args: json!({"action": "trace", "symbol": "biuld"}),
            check: |v| {
                assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
                assert_eq!(v["found"], false);
                assert_eq!(v["impact_level"], "none");
                assert!(
                    v["suggestions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|s| s == "build"),
                    "{v}"
                );
            },
        },
        Case {
            name: "trace file outside",
            tool: "nav",
            args: json!({"action": "trace", "symbol": "build", "file_path": "../core.py"}),
            check: |v| error(v, "security_violation", "outside project boundary"),
        },
    ]
}

#[test]
fn text_search_actions_through_the_cli() {
    let p = project("python");
    for c in cases() {
        let v = cli(&p.root, c.tool, &c.args);
        assert_envelope(&v);
        eprintln!("case: {}", c.name);
        (c.check)(&v);
    }
    // The file written by output_file holds every row.
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(p.root.join("out/build.json")).unwrap())
            .unwrap();
    assert_eq!(
        saved["results"].as_array().unwrap().len() as u64,
        saved["total_matches"].as_u64().unwrap()
    );
}

#[test]
fn content_totals_agree_with_a_plain_line_count() {
    let p = project("python");
    for (q, insensitive) in [("build", true), ("Engine", false), ("self", true)] {
        let v = cli(
            &p.root,
            "search",
            &json!({"action": "content", "query": q, "total_only": true, "hidden": true}),
        );
        assert_eq!(
            v["total_matches"].as_u64().unwrap() as usize,
            count_lines(&p.root, q, insensitive),
            "{q}"
        );
    }
}

#[test]
fn text_is_an_action_of_its_own() {
    let p = project("python");
    let (_, out, _) = crate::support::run(&p.root, &["search", "--help"]);
    assert!(out.lines().any(|l| l.starts_with("  content ")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  text ")), "{out}");
    assert!(!out.contains("[aliases: text]"), "{out}");
}

#[test]
fn text_skips_a_file_too_large_to_read_and_says_the_scan_is_not_complete() {
    let p = crate::support::empty_project();
    std::fs::write(p.root.join("a.py"), "needle = 1\n").unwrap();
    let big = "x".repeat(10 * 1024 * 1024 + 1);
    std::fs::write(p.root.join("big.txt"), big).unwrap();
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "text", "query": "nothing_here"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(
        v["verdict"], "WARN",
        "no hit, but not every file was read: {v}"
    );
    assert_eq!(v["source_evidence"]["scan_complete"], false);
    assert_eq!(v["scan_stats"]["large_files_skipped"], 1);
    assert_eq!(v["scan_stats"]["skipped_files"], json!(["big.txt"]));
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "text", "query": "needle"}),
    );
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["total_count"], 1);
}

#[test]
fn no_hit_with_binary_files_left_out_is_not_not_found() {
    let p = crate::support::empty_project();
    std::fs::write(p.root.join("a.txt"), "plain\n").unwrap();
    std::fs::write(p.root.join("u16.txt"), b"n\0e\0e\0d\0l\0e\0").unwrap();
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "text", "query": "needle"}),
    );
    assert_eq!(v["verdict"], "WARN", "a UTF-16 file was not searched: {v}");
    assert_eq!(v["scan_stats"]["binary_files_skipped"], 1);
}

#[cfg(unix)]
#[test]
fn text_refuses_a_root_through_a_symlink() {
    let p = project("python");
    std::os::unix::fs::symlink(p.root.join("app"), p.root.join("linked")).unwrap();
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "text", "query": "x", "root": "linked"}),
    );
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_code"], "SOURCE_ROOT_SYMLINK", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_search_actions_through_mcp() {
    let p = project("python");
    let client = crate::support::mcp((), &p.root).await;
    let tools = client.list_all_tools().await.unwrap();
    let search = tools.iter().find(|t| t.name == "search").unwrap();
    let actions = search.input_schema["properties"]["action"]["enum"]
        .as_array()
        .unwrap()
        .clone();
    assert!(actions.contains(&json!("content")));
    assert!(actions.contains(&json!("text")));
    for c in cases() {
        let mut args: Map<String, Value> = c.args.as_object().unwrap().clone();
        args.insert("output_format".into(), json!("json"));
        let r = client
            .call_tool(CallToolRequestParams::new(c.tool).with_arguments(args))
            .await
            .unwrap();
        let block = serde_json::to_value(&r.content[0]).unwrap();
        let v: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
        assert_envelope(&v);
        assert_eq!(r.is_error, Some(v["success"] == false), "{}: {v}", c.name);
        eprintln!("case: {}", c.name);
        (c.check)(&v);
    }
    client.cancel().await.unwrap();
}

#[test]
fn a_deadline_makes_the_total_a_lower_bound() {
    let p = crate::support::empty_project();
    for d in 0..40 {
        let dir = p.root.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..50 {
            std::fs::write(dir.join(format!("f{f}.txt")), "needle\n".repeat(200)).unwrap();
        }
    }
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "content", "query": "needle", "timeout_ms": 1}),
    );
    assert_envelope(&v);
    assert_eq!(v["total_count_known"], false, "{v}");
    assert_eq!(v["total_count_at_least"], v["total_matches"]);
    assert!(v["total_matches"].as_u64().unwrap() < 40 * 50 * 200);
    assert!(v["warnings"][0].as_str().unwrap().contains("timeout_ms=1"));
    // Absence is not proven by a search that stopped early.
    assert_ne!(v["verdict"], "NOT_FOUND");
    if v["total_matches"] == 0 {
        assert_eq!(v["verdict"], "WARN");
        assert!(
            v["next_step"]
                .as_str()
                .unwrap()
                .contains("raise timeout_ms")
        );
    }
    // With time enough, every match is counted.
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "content", "query": "needle", "total_only": true, "timeout_ms": 60000}),
    );
    assert_eq!(v["total_matches"], 40 * 50 * 200);
    assert_eq!(v["total_count_known"], true);
}

#[test]
fn rust_named_queries_and_trace() {
    let p = project("rust");
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "query", "file_path": "src/engine.rs", "query_key": "functions", "filter": "name=go"}),
    );
    assert_envelope(&v);
    let lines: Vec<u64> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["start_line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [10, 42], "{v}");
    let v = cli(
        &p.root,
        "search",
        &json!({"action": "query", "file_path": "src/engine.rs", "query_key": "classes", "result_format": "summary"}),
    );
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "Engine"),
        "{v}"
    );
    assert!(
        v["results"][0].get("text").is_none(),
        "summary rows are short"
    );
    let v = cli(
        &p.root,
        "nav",
        &json!({"action": "trace", "symbol": "Engine::step"}),
    );
    assert_envelope(&v);
    assert_eq!(v["found"], true, "{v}");
    assert!(
        v["usages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["language"] == "rust")
    );
    assert!(
        v["definitions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["file"] == "src/engine.rs" && d["line"] == 28),
        "{v}"
    );
}
