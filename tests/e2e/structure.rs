//! The nine `structure` actions end to end: every action through the CLI and one MCP
//! session (same answers), each with its truncation and its error / NOT_FOUND path;
//! `read` ranges and refusals; outlines of the code and single-file-tier languages.

use std::fmt::Write as _;
use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::support::{assert_envelope, bin, json as cli_json, project};

/// `tool action --k v ... --output-format json`, the CLI form of MCP arguments.
fn cli_args(tool: &str, args: &Value) -> Vec<String> {
    let mut out = vec![tool.to_owned()];
    for (k, v) in args.as_object().unwrap() {
        if k == "action" {
            out.push(v.as_str().unwrap().to_owned());
            continue;
        }
        out.push(format!("--{}", k.replace('_', "-")));
        out.push(match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    }
    out.push("--output-format".into());
    out.push("json".into());
    out
}

fn cli(root: &Path, args: Value) -> Value {
    let words = cli_args("structure", &args);
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &refs);
    assert_envelope(&v);
    assert_eq!(
        code == 0,
        v["success"] == true,
        "exit code matches success: {v}"
    );
    v
}

/// Writes a generated Python module big enough to pass every fixed cap:
/// 700 functions (2100 lines), a base with 210 subclasses, a class with 210 methods.
fn write_big(root: &Path) {
    let mut s = String::new();
    for i in 0..700 {
        writeln!(s, "def f{i}(a, b):\n    return a + b\n").unwrap();
    }
    writeln!(s, "class Base:\n    def hook(self):\n        return 1\n").unwrap();
    for i in 0..210 {
        writeln!(s, "class Sub{i}(Base):\n    pass\n").unwrap();
    }
    s.push_str("class Wide:\n");
    for i in 0..210 {
        writeln!(s, "    def m{i}(self):\n        return {i}\n").unwrap();
    }
    std::fs::write(root.join("app/big.py"), s).unwrap();
}

/// What a case expects.
enum Expect {
    Truncated,
    NotFound,
    Error(&'static str),
    Ok,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_structure_action_answers_alike_over_mcp_and_cli() {
    let p = project("python");
    write_big(&p.root);
    let mut cmd = tokio::process::Command::new(bin());
    // The CLI has no default budget: lift the server's (40,000 characters), which
    // would cut the read of the big file, so both surfaces answer in full.
    cmd.arg("mcp")
        .args(["--max-chars", "100000000"])
        .arg("--project-root")
        .arg(&p.root)
        .env_remove("TREE_SITTER_PROJECT_ROOT");
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    use Expect::*;
    let cases = [
        (
            json!({"action": "outline", "file_path": "app/core.py", "listed_cap": 2}),
            Truncated,
        ),
        (
            json!({"action": "outline", "file_path": "app/missing.py"}),
            Error("file_not_found"),
        ),
        (
            json!({"action": "read", "file_path": "app/big.py", "start_line": 1}),
            Truncated,
        ),
        (
            json!({"action": "read", "file_path": "app/core.py", "start_line": 5, "end_line": 7}),
            Ok,
        ),
        (
            json!({"action": "read", "file_path": "app/core.py", "start_line": 31}),
            Error("validation"),
        ),
        (
            json!({"action": "analyze", "file_path": "app/big.py", "format_type": "compact"}),
            Truncated,
        ),
        (
            json!({"action": "analyze", "file_path": "../outside.py"}),
            Error("security_violation"),
        ),
        (
            json!({"action": "signatures", "file_path": "app/big.py"}),
            Truncated,
        ),
        (
            json!({"action": "signatures", "file_path": "app/nothing_here.py"}),
            Error("file_not_found"),
        ),
        (
            json!({"action": "ast_path", "file_path": "app/big.py", "mode": "outline", "max_depth": 2}),
            Truncated,
        ),
        (
            json!({"action": "ast_path", "file_path": "app/core.py", "line": 500}),
            Error("validation"),
        ),
        (
            json!({"action": "sitemap", "directory": "app", "max_symbols": 3}),
            Truncated,
        ),
        (
            json!({"action": "sitemap", "directory": "app/no_such_dir"}),
            Error("file_not_found"),
        ),
        (
            json!({"action": "class_tree", "class_name": "Base", "mode": "subclasses"}),
            Truncated,
        ),
        (
            json!({"action": "class_tree", "class_name": "Engin"}),
            NotFound,
        ),
        (
            json!({"action": "class_detail", "class_name": "Wide"}),
            Truncated,
        ),
        (
            json!({"action": "class_detail", "symbol": "TurboEngin"}),
            NotFound,
        ),
        (
            json!({"action": "explore", "query": "engine", "maxSymbols": 1}),
            Truncated,
        ),
        (
            json!({"action": "explore", "symbols": ["zzqq_absent", "Enginee"]}),
            NotFound,
        ),
    ];
    for (args, expect) in cases {
        let mut with_format = args.as_object().unwrap().clone();
        with_format.insert("output_format".into(), json!("json"));
        let r = client
            .call_tool(CallToolRequestParams::new("structure").with_arguments(with_format))
            .await
            .unwrap();
        let block = serde_json::to_value(&r.content[0]).unwrap();
        let mcp: Value = serde_json::from_str(block["text"].as_str().unwrap()).unwrap();
        assert_envelope(&mcp);
        let cli = cli(&p.root, args.clone());
        let strip = |mut v: Value| {
            v.as_object_mut().unwrap().remove("warnings");
            v.as_object_mut().unwrap().remove("elapsed_ms");
            v
        };
        assert_eq!(strip(mcp.clone()), strip(cli), "{args}: CLI and MCP differ");
        match expect {
            Truncated => {
                assert_eq!(mcp["truncated"], true, "{args}: {mcp}");
                let step = mcp["next_step"].as_str().unwrap();
                assert!(step.starts_with("showing "), "{args}: {step}");
            }
            NotFound => {
                assert_eq!(mcp["verdict"], "NOT_FOUND", "{args}: {mcp}");
                let s = mcp["suggestions"].as_array().expect("suggestions");
                assert!(!s.is_empty(), "{args}: {mcp}");
            }
            Error(t) => {
                assert_eq!(mcp["success"], false, "{args}: {mcp}");
                assert_eq!(mcp["error_type"], t, "{args}: {mcp}");
            }
            Ok => assert_eq!(mcp["success"], true, "{args}: {mcp}"),
        }
    }
    // Bounds as JSON floats and strings only reach the server over MCP.
    let call = |args: Value| {
        let mut m = args.as_object().unwrap().clone();
        m.insert("output_format".into(), json!("json"));
        m.insert("action".into(), json!("read"));
        CallToolRequestParams::new("structure").with_arguments(m)
    };
    for (start, end) in [(json!(5.0), json!("7")), (json!("5"), json!(7.0))] {
        let r = client
            .call_tool(call(
                json!({"file_path": "app/core.py", "start_line": start, "end_line": end}),
            ))
            .await
            .unwrap();
        let v: Value = serde_json::from_str(
            serde_json::to_value(&r.content[0]).unwrap()["text"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            (v["start_line"].clone(), v["end_line"].clone()),
            (json!(5), json!(7)),
            "{v}"
        );
        assert_eq!(v["lines"].as_array().unwrap().len(), 3);
    }
    // format=json numbers the lines (the CLI's --format is the output format).
    let r = client
        .call_tool(call(
            json!({"file_path": "app/core.py", "start_line": 5, "end_line": 6, "format": "json"}),
        ))
        .await
        .unwrap();
    let v: Value = serde_json::from_str(
        serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v["lines"][1]["line"], 6, "{v}");
    assert!(
        v["lines"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("def build")
    );
    for bad in [json!(5.5), json!("five"), json!(true), json!("0x5")] {
        let r = client
            .call_tool(call(json!({"file_path": "app/core.py", "start_line": bad})))
            .await
            .unwrap();
        let v: Value = serde_json::from_str(
            serde_json::to_value(&r.content[0]).unwrap()["text"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(r.is_error, Some(true));
        let e = v["error"].as_str().unwrap();
        assert!(
            e.starts_with("read action: line/column bounds must be integers, got"),
            "{e}"
        );
    }
    client.cancel().await.unwrap();
}

#[test]
fn read_returns_exactly_the_asked_range() {
    let p = project("python");
    let want: Vec<String> = std::fs::read_to_string(p.root.join("app/core.py"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": 11, "end_line": 14}),
    );
    assert_eq!(v["lines"], json!(want[10..14]));
    assert_eq!(
        (v["start_line"].clone(), v["end_line"].clone()),
        (json!(11), json!(14))
    );
    assert_eq!(v["total_lines"], want.len());
    assert_eq!(v["truncated"], false);
    // No end_line reads to the last line.
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": 29}),
    );
    assert_eq!(v["end_line"], want.len());
    assert_eq!(v["lines"], json!(want[28..]));
    // Columns cut the first and last line (0-based, end exclusive).
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": 5,
        "end_line": 5, "start_column": 4, "end_column": 9}),
    );
    assert_eq!(
        v["lines"],
        json!([want[4].chars().skip(4).take(5).collect::<String>()])
    );
}

#[test]
fn read_refuses_ranges_outside_the_file() {
    let p = project("python");
    let n = std::fs::read_to_string(p.root.join("app/core.py"))
        .unwrap()
        .lines()
        .count();
    for (start, end) in [(n + 1, None), (0, None), (6, Some(5)), (5, Some(n + 10))] {
        let mut args = json!({"action": "read", "file_path": "app/core.py", "start_line": start});
        if let Some(e) = end {
            args["end_line"] = json!(e);
        }
        let v = cli(&p.root, args.clone());
        assert_eq!(v["success"], false, "{args}: {v}");
        assert_eq!(v["error_type"], "validation");
        assert!(
            v["error"].as_str().unwrap().contains(&format!("{n} lines")),
            "{v}"
        );
    }
    // allow_truncate clamps end_line and says so.
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": n - 1,
        "end_line": n + 10, "allow_truncate": true}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["end_line"], n);
    assert_eq!(v["lines"].as_array().unwrap().len(), 2);
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("allow_truncate")
    );
    // Non-integer bounds and the missing-parameter message.
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": "2.5"}),
    );
    assert_eq!(
        v["error"],
        "read action: line/column bounds must be integers, got \"2.5\""
    );
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py"}),
    );
    assert_eq!(v["error"], "read action requires file_path and start_line");
}

#[test]
fn read_batch_form_reads_each_section_and_checks_every_path() {
    let p = project("python");
    let want: Vec<String> = std::fs::read_to_string(p.root.join("app/core.py"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let reqs = json!([
        {"file_path": "app/core.py", "sections": [{"start_line": 1, "end_line": 2}, {"start_line": "11", "end_line": 12.0}, {"start_line": 400}]},
        {"file_path": "app/util.py", "sections": [{"start_line": 1}]}
    ]);
    let v = cli(
        &p.root,
        json!({"action": "read", "requests": reqs.to_string()}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "WARN");
    let s = v["sections"].as_array().unwrap();
    assert_eq!(s.len(), 4);
    assert_eq!(s[0]["content"], want[0..2].join("\n"));
    assert_eq!(s[1]["content"], want[10..12].join("\n"));
    assert!(
        s[2]["error"]
            .as_str()
            .unwrap()
            .contains(&format!("{} lines", want.len()))
    );
    assert_eq!(s[3]["start_line"], 1);
    assert_eq!(v["failed_count"], 1);
    // fail_fast turns the bad section into an error.
    let v = cli(
        &p.root,
        json!({"action": "read", "requests": reqs.to_string(), "fail_fast": true}),
    );
    assert_eq!(v["success"], false);
    assert!(v["error"].as_str().unwrap().contains("fail_fast"));
    // A batch path outside the root is refused.
    let bad = json!([{"file_path": "../../etc/passwd", "sections": [{"start_line": 1}]}]);
    let v = cli(
        &p.root,
        json!({"action": "read", "requests": bad.to_string()}),
    );
    assert_eq!(v["error_type"], "security_violation", "{v}");
}

#[test]
fn read_writes_output_files_only_inside_the_root() {
    let p = project("python");
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": 5,
        "end_line": 6, "output_file": "out/part.py", "suppress_output": true}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert!(v.get("lines").is_none());
    let written = std::fs::read_to_string(p.root.join("out/part.py")).unwrap();
    assert_eq!(written.lines().count(), 2);
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/core.py", "start_line": 5,
        "output_file": "../escape.txt"}),
    );
    assert_eq!(v["error_type"], "security_violation", "{v}");
    assert!(!p.root.parent().unwrap().join("escape.txt").exists());
}

#[test]
fn outlines_for_code_languages_nest_members() {
    let cases = [
        ("python", "app/core.py", "Engine", "Engine.run"),
        ("rust", "src/engine.rs", "Runner", "Runner::go"),
        (
            "typescript",
            "src/service.ts",
            "UserService",
            "UserService.add",
        ),
        ("go", "store/memory.go", "memory", "memory.Get"),
        (
            "java",
            "src/main/java/com/acme/shapes/Circle.java",
            "Circle",
            "Circle.scaled",
        ),
    ];
    for (lang, file, ty, member) in cases {
        let p = project(lang);
        let v = cli(&p.root, json!({"action": "outline", "file_path": file}));
        assert_eq!(v["success"], true, "{lang}: {v}");
        assert_eq!(v["language"], lang);
        let rows = v["outline"].as_array().unwrap();
        let t = rows
            .iter()
            .find(|r| r["qualified_name"] == ty)
            .unwrap_or_else(|| panic!("{lang}: {ty} in {v}"));
        let m = rows
            .iter()
            .find(|r| r["qualified_name"] == member)
            .unwrap_or_else(|| panic!("{lang}: {member} in {v}"));
        assert!(m["line"].as_u64() <= m["end_line"].as_u64());
        assert!(m["signature"].as_str().is_some_and(|s| !s.is_empty()));
        if lang != "go" {
            // Members sit inside their type (Go methods are declared outside it).
            assert!(m["depth"].as_u64() > t["depth"].as_u64(), "{lang}: {m}");
            assert!(
                t["line"].as_u64() <= m["line"].as_u64()
                    && m["end_line"].as_u64() <= t["end_line"].as_u64()
            );
        } else {
            assert_eq!(m["owner"], "memory");
        }
        assert_eq!(v["entry_count"], rows.len());
    }
}

#[test]
fn outlines_for_the_single_file_tier_parse_the_file_directly() {
    let cases = [
        ("html", "index.html", "app.catalog"),
        ("css", "style.css", "body"),
        ("markdown", "guide.md", "Shop guide.Install"),
        ("sql", "schema.sql", "customers"),
        ("yaml", "docker-compose.yml", "services.web"),
        ("json", "package.json", "scripts.build"),
    ];
    for (lang, file, entry) in cases {
        let p = project(lang);
        let v = cli(
            &p.root,
            json!({"action": "outline", "file_path": file, "listed_cap": 100}),
        );
        assert_eq!(v["success"], true, "{lang}: {v}");
        assert_eq!(v["tier"], "structure");
        assert!(
            v["outline"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["qualified_name"] == entry),
            "{lang}: {entry} missing in {v}"
        );
        // The structure tier is never indexed: nothing was built.
        assert!(!p.root.join(".tsa").exists(), "{lang}");
        // The other file actions work on it too.
        let a = cli(
            &p.root,
            json!({"action": "analyze", "file_path": file, "format_type": "csv"}),
        );
        assert_eq!(a["success"], true, "{lang}: {a}");
        let s = cli(
            &p.root,
            json!({"action": "ast_path", "file_path": file, "line": 2, "mode": "path"}),
        );
        assert_eq!(s["success"], true, "{lang}: {s}");
        assert!(s["node_count"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn file_actions_refuse_binary_undecodable_and_unknown_files() {
    let p = project("python");
    std::fs::write(p.root.join("app/blob.py"), b"\x00\x01\x02binary").unwrap();
    std::fs::write(p.root.join("app/latin.py"), b"x = '\xe9t\xe9'\n").unwrap();
    std::fs::write(p.root.join("app/notes.xyz"), "hello\n").unwrap();
    for action in ["outline", "analyze", "signatures"] {
        for (file, t) in [
            ("app/blob.py", "binary_file"),
            ("app/latin.py", "encoding_error"),
            ("app/notes.xyz", "language_unsupported"),
        ] {
            let v = cli(&p.root, json!({"action": action, "file_path": file}));
            assert_eq!(v["error_type"], t, "{action} {file}: {v}");
        }
    }
    // A plain text file can still be read.
    let v = cli(
        &p.root,
        json!({"action": "read", "file_path": "app/notes.xyz", "start_line": 1}),
    );
    assert_eq!(v["lines"], json!(["hello"]));
}

#[test]
fn analyze_signatures_and_ast_path_describe_the_file() {
    let p = project("python");
    let v = cli(
        &p.root,
        json!({"action": "analyze", "file_path": "app/core.py"}),
    );
    let rows = v["elements"].as_array().unwrap();
    let run = rows
        .iter()
        .find(|r| r["qualified_name"] == "Engine.run")
        .unwrap();
    assert_eq!(
        (
            run["type"].clone(),
            run["params"].clone(),
            run["parent"].clone()
        ),
        (json!("method"), json!(1), json!("Engine"))
    );
    let v = cli(
        &p.root,
        json!({"action": "analyze", "file_path": "app/core.py", "format_type": "csv"}),
    );
    assert!(v["elements"].as_array().unwrap().iter().any(|r| {
        r.as_str()
            .unwrap()
            .starts_with("method,run,Engine.run,Engine,")
    }));
    let v = cli(
        &p.root,
        json!({"action": "signatures", "file_path": "app/core.py"}),
    );
    let sigs = v["signatures"].as_array().unwrap();
    assert!(
        sigs.iter()
            .any(|s| s["class"] == "Engine" && s["signature"] == "run(self)  17-19"),
        "{v}"
    );
    assert!(sigs.iter().any(|s| {
        s["class"].is_null()
            && s["signature"]
                .as_str()
                .unwrap()
                .starts_with("build(target)")
    }));
    // Scope at a line inside Engine.run: the class, then the method.
    let v = cli(
        &p.root,
        json!({"action": "ast_path", "file_path": "app/core.py", "line": 18}),
    );
    let names: Vec<&str> = v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["qualified_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Engine", "Engine.run"]);
    let v = cli(
        &p.root,
        json!({"action": "ast_path", "file_path": "app/core.py", "line": 18, "mode": "path"}),
    );
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["type"], "module");
    assert!(
        nodes
            .iter()
            .any(|n| n["type"] == "function_definition" && n["name"] == "run")
    );
    let v = cli(
        &p.root,
        json!({"action": "ast_path", "file_path": "app/core.py", "line": 18, "mode": "siblings"}),
    );
    assert_eq!(
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["is_target"] == true)
            .count(),
        1
    );
    let v = cli(
        &p.root,
        json!({"action": "ast_path", "file_path": "app/core.py"}),
    );
    assert_eq!(v["error_type"], "validation");
}

#[test]
fn index_actions_answer_from_the_index() {
    let p = project("java");
    let v = cli(
        &p.root,
        json!({"action": "class_tree", "class_name": "Figure", "mode": "all"}),
    );
    assert_eq!(v["subclasses"][0]["name"], "Circle", "{v}");
    assert_eq!(v["verdict"], "CAUTION");
    assert_eq!(
        v["affected_files"][0],
        "src/main/java/com/acme/shapes/Circle.java"
    );
    let v = cli(
        &p.root,
        json!({"action": "class_tree", "symbol": "Circle", "mode": "supers"}),
    );
    assert!(
        v["superclasses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["base"] == "Figure" && r["resolution"] == "project")
    );
    // Bases the resolver left unbound still count, labelled name_only (never a false SAFE).
    let v = cli(
        &p.root,
        json!({"action": "class_tree", "class_name": "Shape", "mode": "impact"}),
    );
    let names: Vec<&str> = v["subclasses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Figure"), "{v}");
    assert_ne!(v["verdict"], "SAFE", "{v}");
    let v = cli(&p.root, json!({"action": "class_tree"}));
    assert_eq!(v["mode"], "summary");
    assert!(
        v["hierarchies"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "Figure")
    );
    // A function is not a class: NOT_FOUND that says what it is.
    let v = cli(
        &p.root,
        json!({"action": "class_detail", "class_name": "scaled"}),
    );
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert_eq!(v["found_kind"], "method");
    let v = cli(
        &p.root,
        json!({"action": "class_detail", "query": "Circle"}),
    );
    let methods = v["methods"].as_array().unwrap();
    let sq = methods.iter().find(|m| m["name"] == "square").unwrap();
    assert_eq!(
        (sq["visibility"].clone(), sq["static"].clone()),
        (json!("private"), json!(true))
    );
    let raw = methods.iter().find(|m| m["name"] == "rawArea").unwrap();
    assert_eq!(raw["visibility"], "protected");
    assert!(
        v["overrides"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["name"] == "rawArea"),
        "{v}"
    );

    let p = project("python");
    let v = cli(
        &p.root,
        json!({"action": "class_detail", "class_name": "TurboEngine"}),
    );
    let inherited: Vec<&str> = v["inherited_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(inherited.contains(&"run"), "{v}");
    assert!(
        v["inherited_members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["from"] == "Engine")
    );
    let v = cli(&p.root, json!({"action": "sitemap", "mode": "module"}));
    assert!(
        v["modules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["module"] == "app")
    );
    assert!(v.get("symbols").is_none());
    let v = cli(
        &p.root,
        json!({"action": "sitemap", "directory": "app/core.py", "mode": "flat"}),
    );
    let q: Vec<&str> = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["qualified_name"].as_str().unwrap())
        .collect();
    assert!(q.contains(&"Engine.run") && q.contains(&"build"), "{v}");
    assert!(v.get("files").is_none());
    let v = cli(
        &p.root,
        json!({"action": "explore", "symbol": "Engine.run"}),
    );
    let rows = v["symbols"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert!(rows[0]["code"].as_str().unwrap().contains("def run(self)"));
    assert!(
        rows[0]["callees"]
            .as_str()
            .unwrap()
            .split(", ")
            .any(|c| c == "Engine.step")
    );
    let v = cli(
        &p.root,
        json!({"action": "explore", "symbol": "build", "includeCode": false}),
    );
    assert!(
        v["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["code"].is_null())
    );
    let v = cli(
        &p.root,
        json!({"action": "explore", "symbol": "build", "maxFiles": 31}),
    );
    assert_eq!(v["error_type"], "validation");
    let v = cli(&p.root, json!({"action": "explore"}));
    assert_eq!(v["error_type"], "validation");
}
