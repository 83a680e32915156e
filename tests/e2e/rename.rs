//! `edit plan_rename` and `edit rename` end to end, through the CLI and over MCP, on
//! a src-layout Python package written here: the exact sites (definition, imports,
//! references, module attribute, `__all__`; comments and strings untouched), apply
//! bound to the previewed `plan_id`, a stale plan refused with nothing written, a
//! write failing part way with every file restored, reflection in an unrelated file
//! listed but not blocking, reflection where the module is imported blocking, a
//! second binding of the new name refused, and an unknown name NOT_FOUND.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::{assert_envelope, bin, cli_words, empty_project, mcp, mcp_call};

const FILES: &[(&str, &str)] = &[
    (
        "src/acme/__init__.py",
        "from .engine import start\n\n__all__ = [\"start\"]\n",
    ),
    (
        "src/acme/engine.py",
        "def start(x):\n    \"\"\"start it\"\"\"\n    return x\n\n\ndef twice(x):\n    return start(start(x))\n",
    ),
    (
        "src/acme/cli.py",
        "from acme.engine import start\nimport acme.engine as eng\n\n\ndef main():\n    start(1)\n    eng.start(2)\n    # start in a comment\n    print(\"start\")\n",
    ),
    (
        "tests/test_acme.py",
        "from acme import start\n\n\ndef test_it():\n    assert start(3) == 3\n",
    ),
    (
        "tools/reflect.py",
        "def look(o, name):\n    return getattr(o, name)\n\n\nclass Other:\n    def start(self):\n        return 0\n\n\nOther().start()\n",
    ),
];

fn write_project() -> crate::support::Project {
    let p = empty_project();
    for (f, text) in FILES {
        let path = p.root.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    p
}

fn snapshot(root: &Path) -> BTreeMap<String, String> {
    FILES
        .iter()
        .map(|(f, _)| {
            (
                (*f).to_owned(),
                std::fs::read_to_string(root.join(f)).unwrap(),
            )
        })
        .collect()
}

fn cli_env(root: &Path, args: &Value, env: &[(&str, &str)]) -> Value {
    let words = cli_words("edit", args);
    let out = Command::new(bin())
        .args(&words)
        .arg("--project-root")
        .arg(root)
        .envs(env.iter().copied())
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(
        out.status.success(),
        v["success"] == true,
        "exit code follows success: {v}"
    );
    assert_envelope(&v);
    v
}

fn cli(root: &Path, args: &Value) -> Value {
    cli_env(root, args, &[])
}

fn preview(root: &Path) -> Value {
    cli(
        root,
        &json!({"action": "plan_rename", "symbol": "start", "new_name": "begin"}),
    )
}

fn apply(root: &Path, id: &str) -> Value {
    cli(
        root,
        &json!({"action": "rename", "symbol": "start", "new_name": "begin", "mode": "apply", "plan_id": id}),
    )
}

#[test]
fn a_preview_lists_exactly_the_sites_that_bind_to_the_symbol() {
    let p = write_project();
    let v = preview(&p.root);
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "INFO", "{v}");
    let sites: Vec<(String, u64, u64, String)> = v["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_owned(),
                s["line"].as_u64().unwrap(),
                s["column"].as_u64().unwrap(),
                s["site_type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64, String)> = [
        ("src/acme/__init__.py", 1, 20, "import"),
        ("src/acme/__init__.py", 3, 12, "export"),
        ("src/acme/cli.py", 1, 24, "import"),
        ("src/acme/cli.py", 6, 4, "reference"),
        ("src/acme/cli.py", 7, 8, "attribute_reference"),
        ("src/acme/engine.py", 1, 4, "definition"),
        ("src/acme/engine.py", 7, 11, "reference"),
        ("src/acme/engine.py", 7, 17, "reference"),
        ("tests/test_acme.py", 1, 17, "import"),
        ("tests/test_acme.py", 5, 11, "reference"),
    ]
    .iter()
    .map(|(f, l, c, t)| ((*f).to_owned(), *l, *c, (*t).to_owned()))
    .collect();
    assert_eq!(sites, want);
    assert_eq!(v["site_count"], 10);
    assert_eq!(v["dry_run"], true);
    assert!(v["plan_id"].as_str().unwrap().starts_with("rp1_"));
    assert_eq!(v["plan_id"].as_str().unwrap().len(), 36);
    assert_eq!(v["files_affected"].as_array().unwrap().len(), 4);
    assert_eq!(v["file_hashes"].as_object().unwrap().len(), 4);
    // Reflection in a file that never imports the module: listed, not blocking.
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("tools/reflect.py:2"), "{v}");
    // Another object's `.start` is not edited.
    let mentions = v["unrelated_mentions"].as_array().unwrap();
    assert!(
        mentions
            .iter()
            .any(|m| m["file"] == "tools/reflect.py" && m["line"] == 10),
        "{v}"
    );
    // A preview writes nothing, and the same tree gives the same plan_id.
    assert_eq!(
        snapshot(&p.root),
        FILES
            .iter()
            .map(|(f, t)| ((*f).to_owned(), (*t).to_owned()))
            .collect()
    );
    assert_eq!(preview(&p.root)["plan_id"], v["plan_id"]);
}

#[test]
fn apply_writes_the_previewed_plan_and_syncs_the_index() {
    let p = write_project();
    let id = preview(&p.root)["plan_id"].as_str().unwrap().to_owned();
    let v = apply(&p.root, &id);
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["sites_renamed"], 10);
    assert_eq!(v["files_changed"], 4);
    let cli_py = std::fs::read_to_string(p.root.join("src/acme/cli.py")).unwrap();
    assert_eq!(
        cli_py,
        "from acme.engine import begin\nimport acme.engine as eng\n\n\ndef main():\n    begin(1)\n    eng.begin(2)\n    # start in a comment\n    print(\"start\")\n"
    );
    let engine = std::fs::read_to_string(p.root.join("src/acme/engine.py")).unwrap();
    assert!(
        engine.starts_with("def begin(x):\n    \"\"\"start it\"\"\""),
        "{engine}"
    );
    assert_eq!(
        std::fs::read_to_string(p.root.join("src/acme/__init__.py")).unwrap(),
        "from .engine import begin\n\n__all__ = [\"begin\"]\n"
    );
    let reflect = std::fs::read_to_string(p.root.join("tools/reflect.py")).unwrap();
    assert_eq!(reflect, FILES[4].1, "an unrelated file is untouched");
    // The index follows: callers of the new name are bound.
    let words = cli_words(
        "nav",
        &json!({"action": "callers", "function_name": "begin"}),
    );
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (_, v) = crate::support::json(&p.root, &words);
    assert_eq!(v["success"], true, "{v}");
    let callers = v["callers"].as_array().unwrap();
    assert!(
        callers.iter().any(|c| c["file"] == "src/acme/cli.py"),
        "{v}"
    );
    // The renamed project still compiles, where Python is at hand.
    if Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        for (f, _) in FILES {
            let ok = Command::new("python3")
                .args(["-m", "py_compile"])
                .arg(p.root.join(f))
                .status()
                .unwrap();
            assert!(ok.success(), "{f}");
        }
    }
}

#[test]
fn apply_refuses_without_a_plan_id_and_on_a_stale_plan_writes_nothing() {
    let p = write_project();
    let v = cli(
        &p.root,
        &json!({"action": "rename", "symbol": "start", "new_name": "begin", "mode": "apply"}),
    );
    assert_eq!(v["error_code"], "PLAN_ID_REQUIRED", "{v}");
    let id = preview(&p.root)["plan_id"].as_str().unwrap().to_owned();
    // A new call site after the preview: the plan that would run is not the one seen.
    let cli_path = p.root.join("src/acme/cli.py");
    let changed = format!("{}\n\ndef extra():\n    return start(4)\n", FILES[2].1);
    std::fs::write(&cli_path, &changed).unwrap();
    let before = snapshot(&p.root);
    let v = apply(&p.root, &id);
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_code"], "PLAN_STALE", "{v}");
    assert_ne!(v["plan_id"], json!(id));
    assert_eq!(snapshot(&p.root), before, "nothing written");
    // The new plan applies.
    let id2 = v["plan_id"].as_str().unwrap().to_owned();
    let v = apply(&p.root, &id2);
    assert_eq!(v["sites_renamed"], 11, "{v}");
}

#[test]
fn a_write_failing_part_way_restores_every_file() {
    let p = write_project();
    let id = preview(&p.root)["plan_id"].as_str().unwrap().to_owned();
    let before = snapshot(&p.root);
    let v = cli_env(
        &p.root,
        &json!({"action": "rename", "symbol": "start", "new_name": "begin", "mode": "apply", "plan_id": id}),
        &[("TSA_FAULT_FAIL_AT", "rename_write:3")],
    );
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_code"], "RENAME_ROLLED_BACK", "{v}");
    assert_eq!(v["restored_files"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(snapshot(&p.root), before, "every file as it was");
    let leftovers: Vec<_> = walk(&p.root)
        .into_iter()
        .filter(|f| f.contains(".tsa-rename-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn what_could_reach_the_symbol_blocks_with_its_code() {
    let p = write_project();
    // Reflection on the module object, in a file that imports it.
    std::fs::write(
        p.root.join("src/acme/dyn.py"),
        "import acme.engine as e\n\n\ndef pick(name):\n    return getattr(e, name)\n",
    )
    .unwrap();
    let v = preview(&p.root);
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error_code"], "RENAME_DYNAMIC_ACCESS", "{v}");
    assert_eq!(v["errors"][0]["file"], "src/acme/dyn.py");
    assert_eq!(v["errors"][0]["line"], 5);
    assert_eq!(v["error_type"], "validation");
    std::fs::remove_file(p.root.join("src/acme/dyn.py")).unwrap();
    // The new name already used where the old one is.
    std::fs::write(
        p.root.join("tests/test_acme.py"),
        "from acme import start\n\nbegin = 1\n\n\ndef test_it():\n    assert start(3) == 3\n",
    )
    .unwrap();
    let v = preview(&p.root);
    assert_eq!(v["error_code"], "RENAME_SHADOWED", "{v}");
    assert_eq!(v["errors"][0]["file"], "tests/test_acme.py");
    std::fs::write(p.root.join("tests/test_acme.py"), FILES[3].1).unwrap();
    // A fallback import binding the old name in the defining file.
    std::fs::write(
        p.root.join("src/acme/engine.py"),
        format!(
            "{}\ntry:\n    from _speedups import start\nexcept ImportError:\n    pass\n",
            FILES[1].1
        ),
    )
    .unwrap();
    let v = preview(&p.root);
    assert_eq!(v["error_code"], "RENAME_SHADOWED", "{v}");
    std::fs::write(p.root.join("src/acme/engine.py"), FILES[1].1).unwrap();
    // A string naming the symbol by its module path (a mock target).
    std::fs::write(p.root.join("tests/test_mock.py"), "from unittest import mock\n\n\n@mock.patch(\"acme.engine.start\")\ndef test_m(m):\n    pass\n").unwrap();
    let v = preview(&p.root);
    assert_eq!(v["error_code"], "RENAME_STRING_REFERENCE", "{v}");
}

#[test]
fn a_dotted_module_path_to_the_symbol_is_a_site() {
    let p = write_project();
    std::fs::write(
        p.root.join("tools/dotted.py"),
        "import acme.engine\nimport acme\n\n\ndef go():\n    return acme.engine.start(1)\n",
    )
    .unwrap();
    let v = preview(&p.root);
    assert_eq!(v["success"], true, "{v}");
    let sites: Vec<(String, u64, String)> = v["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_owned(),
                s["line"].as_u64().unwrap(),
                s["site_type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        sites.contains(&(
            "tools/dotted.py".to_owned(),
            6,
            "attribute_reference".to_owned()
        )),
        "{sites:?}"
    );
}

#[test]
fn bad_names_unknown_names_and_the_preview_only_surface() {
    let p = write_project();
    let v = cli(
        &p.root,
        &json!({"action": "plan_rename", "symbol": "nothing_here", "new_name": "x"}),
    );
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert_eq!(v["sites"], json!([]));
    let v = cli(
        &p.root,
        &json!({"action": "plan_rename", "symbol": "start", "new_name": "class"}),
    );
    assert_eq!(v["error_code"], "INVALID_ARGUMENT", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "plan_rename", "symbol": "start", "new_name": "start"}),
    );
    assert!(v["error"].as_str().unwrap().contains("must differ"), "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "plan_rename", "symbol": "start", "new_name": "b", "file_path": "README.md"}),
    );
    assert_eq!(v["error_code"], "LANGUAGE_UNSUPPORTED", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preview_stale_and_apply_over_mcp() {
    let p = write_project();
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "plan_rename", "function_name": "start", "new_name": "begin", "mode": "apply", "output_format": "json"}),
    )
    .await;
    assert!(is_error);
    assert_eq!(v["error_code"], "PLAN_RENAME_IS_PREVIEW_ONLY", "{v}");
    let (_, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "rename", "symbol": "start", "new_name": "begin", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "INFO", "{v}");
    let id = v["plan_id"].as_str().unwrap().to_owned();
    // Changed after the preview: this process remembers which file differs.
    let path = p.root.join("tests/test_acme.py");
    std::fs::write(
        &path,
        format!("{}\n\ndef test_more():\n    start(5)\n", FILES[3].1),
    )
    .unwrap();
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "rename", "symbol": "start", "new_name": "begin", "mode": "apply", "plan_id": id, "output_format": "json"}),
    )
    .await;
    assert!(is_error);
    assert_eq!(v["error_code"], "PLAN_STALE", "{v}");
    assert_eq!(v["changed_files"], json!(["tests/test_acme.py"]));
    let id = v["plan_id"].as_str().unwrap().to_owned();
    let (is_error, v) = mcp_call(
        &client,
        "edit",
        json!({"action": "rename", "symbol": "start", "new_name": "begin", "mode": "apply", "plan_id": id, "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_eq!(v["sites_renamed"], 11);
    let tools = client.list_all_tools().await.unwrap();
    let edit = tools.iter().find(|t| t.name == "edit").unwrap();
    let a = edit.annotations.as_ref().unwrap();
    assert_eq!(a.destructive_hint, Some(true), "rename apply writes files");
    client.cancel().await.unwrap();
}
