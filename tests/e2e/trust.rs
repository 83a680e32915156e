//! Verdicts that rest on "who calls X" stay honest when the call graph does not
//! know (`tsa-analysis/src/trust`): unresolved call sites of the same name, a
//! symbol-tier language and a stale index make completeness `lower_bound` or
//! `unknown`, and none of them, nor public API, ever yields NOT_FOUND, SAFE,
//! "changes stay local" or a dead function. On the `trust` fixture, and for
//! `edit impact` on a small flask-like git repository built here.

use std::path::Path;

use serde_json::{Value, json};

use crate::edit_git::{both, init, mcp as edit_mcp, write};
use crate::support::{assert_envelope, empty_project, json as cli_json, mcp, mcp_call, project};

/// `tsa <tool> <action> <flags...> --output-format json`, envelope checked.
fn ask(root: &Path, tool: &str, action: &str, flags: &[&str]) -> Value {
    let mut args = vec![tool, action];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--output-format", "json"]);
    let (code, v) = cli_json(root, &args);
    assert_envelope(&v);
    assert_eq!(code, 0, "{v}");
    v
}

fn callers(root: &Path, name: &str) -> Value {
    ask(root, "nav", "callers", &["--function-name", name])
}

fn impact(root: &Path, name: &str) -> Value {
    ask(root, "nav", "impact", &["--function-name", name])
}

fn basis(v: &Value) -> String {
    v["verdict_basis"].to_string()
}

fn dead_names(v: &Value) -> Vec<String> {
    v["dead_functions"]
        .as_array()
        .unwrap_or_else(|| panic!("dead_functions in {v}"))
        .iter()
        .map(|d| d["qualified_name"].as_str().unwrap().to_owned())
        .collect()
}

fn uncertain(v: &Value, name: &str) -> Option<String> {
    v["uncertain_functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["qualified_name"] == name)
        .map(|d| d["reason"].as_str().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unresolved_same_name_sites_never_give_not_found_safe_or_dead() {
    let p = project("trust");
    let root = &p.root;
    // `helper` is only called as `mod.helper()` on an untyped parameter: unresolved.
    let v = callers(root, "helper");
    assert_eq!(v["verdict"], "WARN", "{v}");
    assert_eq!(v["completeness"], "lower_bound");
    assert_eq!(v["caller_count"], 0);
    assert_eq!(v["unresolved_call_sites"], 1);
    assert!(
        v["summary_line"]
            .as_str()
            .unwrap()
            .contains("0 resolved caller(s), 1 unresolved call site(s) named 'helper'"),
        "{v}"
    );
    assert!(basis(&v).contains("completeness lower_bound"), "{v}");
    // The same answer over MCP.
    let client = mcp((), root).await;
    let (is_error, m) = mcp_call(
        &client,
        "nav",
        json!({"action": "callers", "function_name": "helper", "output_format": "json"}),
    )
    .await;
    assert!(!is_error);
    for k in [
        "verdict",
        "completeness",
        "unresolved_call_sites",
        "verdict_basis",
    ] {
        assert_eq!(m[k], v[k], "{k} over MCP");
    }
    client.cancel().await.unwrap();
    // The caller graph and tree say the same.
    let g = ask(
        root,
        "nav",
        "callers",
        &["--function-name", "helper", "--scope", "graph"],
    );
    assert_eq!(g["verdict"], "WARN", "{g}");
    assert_eq!(g["completeness"], "lower_bound");
    // Cross references and the tests that reach it rest on the same callers.
    let x = ask(root, "nav", "xref", &["--symbol", "helper"]);
    assert_eq!(x["completeness"], "lower_bound", "{x}");
    assert_eq!(x["unresolved_call_sites"], 1, "{x}");
    let t = ask(root, "nav", "test_map", &["--symbol", "helper"]);
    assert_eq!(t["completeness"], "lower_bound", "{t}");
    let t = ask(root, "nav", "caller_tree", &["--symbol", "helper"]);
    assert_eq!(t["verdict"], "WARN", "{t}");
    assert_eq!(t["completeness"], "lower_bound");
    // Impact, guard and the file gate are never SAFE.
    let i = impact(root, "helper");
    assert_ne!(i["verdict"], "SAFE", "{i}");
    assert_eq!(i["completeness"], "lower_bound");
    assert!(
        !i["next_step"].as_str().unwrap().contains("stay local"),
        "{i}"
    );
    assert!(basis(&i).contains("1 call site(s) named 'helper' are unresolved"));
    let gd = ask(
        root,
        "edit",
        "guard",
        &[
            "--symbol",
            "helper",
            "--modification-type",
            "behavior_change",
        ],
    );
    assert_ne!(gd["verdict"], "SAFE", "{gd}");
    assert_eq!(gd["completeness"], "lower_bound");
    let sf = ask(root, "edit", "safe", &["--file-path", "scripts/util.py"]);
    assert_ne!(sf["verdict"], "SAFE", "{sf}");
    assert_eq!(sf["completeness"], "lower_bound");
    // Dead code: `drive` is dead, but `helper` (called from dead code through an
    // unresolved site) is withheld, not reported.
    let d = ask(root, "health", "dead", &["--mode", "dead_functions"]);
    let dead = dead_names(&d);
    assert!(dead.contains(&"drive".to_owned()), "{dead:?}");
    assert!(!dead.contains(&"helper".to_owned()), "{dead:?}");
    assert_eq!(
        uncertain(&d, "helper").as_deref(),
        Some("unresolved_same_name_call_sites")
    );
    assert_ne!(d["completeness"], "complete");

    // Control: a function whose every same-name site is known, with no caller.
    let v = callers(root, "alone");
    assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
    assert_eq!(v["completeness"], "complete");
    let i = impact(root, "alone");
    assert_eq!(i["verdict"], "SAFE", "{i}");
    assert_eq!(i["completeness"], "complete");
    assert!(i["next_step"].as_str().unwrap().contains("stay local"));
    assert!(dead.contains(&"alone".to_owned()));
}

#[test]
fn a_symbol_tier_language_has_unknown_completeness() {
    let p = project("trust");
    let root = &p.root;
    let v = callers(root, "greet");
    assert_eq!(v["completeness"], "unknown", "{v}");
    assert_eq!(v["verdict"], "WARN");
    assert_eq!(v["no_call_graph_languages"], json!(["bash"]));
    assert!(basis(&v).contains("no call graph for bash"), "{v}");
    let i = impact(root, "greet");
    assert_ne!(i["verdict"], "SAFE", "{i}");
    assert_eq!(i["completeness"], "unknown");
    let d = ask(root, "health", "dead", &["--mode", "dead_functions"]);
    assert!(!dead_names(&d).contains(&"orphan_sh".to_owned()), "{d}");
    assert_eq!(
        uncertain(&d, "orphan_sh").as_deref(),
        Some("call_graph_unknown")
    );
    assert_eq!(d["completeness"], "unknown");
}

#[test]
fn a_stale_index_has_unknown_completeness() {
    let p = project("trust");
    let root = &p.root;
    // Built on first use, then the file changes on disk without a sync.
    assert_eq!(callers(root, "alone")["verdict"], "NOT_FOUND");
    let util = root.join("scripts/util.py");
    let text = std::fs::read_to_string(&util).unwrap();
    std::fs::write(
        &util,
        format!("{text}\n\ndef late():\n    return alone()\n"),
    )
    .unwrap();
    let v = callers(root, "alone");
    assert_eq!(v["completeness"], "unknown", "{v}");
    assert_eq!(v["verdict"], "WARN");
    assert_eq!(v["stale_files"], json!(["scripts/util.py"]));
    assert!(v["warnings"].to_string().contains("stale_index"), "{v}");
    let i = impact(root, "alone");
    assert_ne!(i["verdict"], "SAFE", "{i}");
    assert_eq!(i["completeness"], "unknown");
    // After a sync the graph knows the new caller.
    ask(root, "index", "sync", &[]);
    let v = callers(root, "alone");
    assert_eq!(v["completeness"], "complete", "{v}");
    assert_eq!(v["caller_count"], 1);
}

#[test]
fn public_api_is_never_safe_and_the_basis_names_it() {
    let p = project("trust");
    let root = &p.root;
    for (name, why) in [
        ("api", "re-exported by pylib/__init__.py"),
        ("listed", "named in __all__ of pylib/__init__.py"),
        ("init_fn", "defined in package pylib"),
        ("rs_api", "pub in the library crate at rustlib"),
        ("OpenStore", "exported from Go package store"),
        ("jsApi", "exported by package jspkg"),
        ("cjsApi", "exported by package jspkg"),
        (
            "Codec.encodeApi",
            "public in the library module at javalib (pom.xml)",
        ),
        (
            "Codec.hookApi",
            "public in the library module at javalib (pom.xml)",
        ),
        (
            "Codec.Sink.sinkApi",
            "public in the library module at javalib (pom.xml)",
        ),
    ] {
        let v = callers(root, name);
        assert_eq!(v["verdict"], "INFO", "{name}: {v}");
        assert_eq!(v["public_api"], true, "{name}");
        let i = impact(root, name);
        assert_ne!(i["verdict"], "SAFE", "{name}: {i}");
        assert!(
            basis(&i).contains(&format!("public API: '{name}' is {why}")),
            "{name}: {}",
            basis(&i)
        );
        let g = ask(
            root,
            "edit",
            "guard",
            &["--symbol", name, "--modification-type", "signature_change"],
        );
        assert!(
            ["REVIEW", "UNSAFE"].contains(&g["verdict"].as_str().unwrap()),
            "{name}: {g}"
        );
        assert!(basis(&g).contains("public API"), "{name}: {g}");
    }
    // Look-alikes that are not public API: private, crate-only, a binary crate,
    // `internal/`, `package main`, unexported, not re-exported. Nothing calls them
    // and every site is known, so these answers stay SAFE (no crying wolf).
    for name in [
        "internal",
        "_private",
        "Client.fetch",
        "rs_crate",
        "rs_private",
        "rs_bin_unused",
        "openStore",
        "Hidden",
        "RunTool",
        "jsLocal",
        "packageOnly",
        "secretHelper",
        "hiddenPublic",
        "appOnly",
    ] {
        let i = impact(root, name);
        assert_eq!(i["public_api"], false, "{name}: {i}");
        assert_eq!(i["verdict"], "SAFE", "{name}: {i}");
    }
}

/// Java: a method passed as a method reference (`Refs::onlyByRef`, `this::m`) has
/// that site as its caller; one passed from a receiver tsa cannot type
/// (`o::pokedThroughUnknown`, `o` a lambda parameter) leaves an open site of the
/// name, so the answer is a lower bound, never `NOT_FOUND` and complete.
#[test]
fn java_method_references_are_callers_or_open_sites() {
    let p = project("trust");
    let root = &p.root;
    for name in ["Refs.onlyByRef", "Refs.refByThis"] {
        let v = callers(root, name);
        assert_eq!(v["caller_count"], 1, "{name}: {v}");
        assert_eq!(
            v["callers"][0]["qualified_name"], "Refs.pokeAll",
            "{name}: {v}"
        );
    }
    let v = callers(root, "Refs.pokedThroughUnknown");
    assert_ne!(v["verdict"], "NOT_FOUND", "{v}");
    assert_ne!(v["completeness"], "complete", "{v}");
    let i = impact(root, "Refs.pokedThroughUnknown");
    assert_ne!(i["verdict"], "SAFE", "{i}");
}

/// A flask-like package: `pkg/helpers.py` is imported by ten views; `url_for` and
/// `old_api` are re-exported by `pkg/__init__.py` (public API); `join_path` is
/// called by two views.
fn flask_like(root: &Path) -> git2::Repository {
    write(
        root,
        "pkg/__init__.py",
        "from pkg.helpers import url_for, old_api\n",
    );
    write(
        root,
        "pkg/helpers.py",
        "def url_for(endpoint):\n    return \"/\" + endpoint\n\n\ndef join_path(a, b):\n    return a + \"/\" + b\n\n\ndef old_api():\n    return 0\n",
    );
    for i in 0..10 {
        let body = if i < 2 {
            format!("    return join_path(url_for(\"v{i}\"), \"x\")\n")
        } else {
            format!("    return url_for(\"v{i}\")\n")
        };
        write(
            root,
            &format!("app/view_{i}.py"),
            &format!("from pkg.helpers import join_path, url_for\n\n\ndef view_{i}():\n{body}"),
        );
    }
    init(root)
}

fn symbol<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["changed_symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == name)
        .unwrap_or_else(|| panic!("{name} not in changed_symbols: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_impact_follows_the_changed_definitions() {
    let p = empty_project();
    let root = &p.root;
    let _repo = flask_like(root);
    let client = edit_mcp(root).await;
    let helpers = std::fs::read_to_string(root.join("pkg/helpers.py")).unwrap();

    // An added private function nobody can reach: at most CAUTION, no caller.
    write(
        root,
        "pkg/helpers.py",
        &format!("{helpers}\n\ndef _acceptance_probe(x):\n    y = x + 1\n    return y\n"),
    );
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert!(
        ["SAFE", "CAUTION"].contains(&v["verdict"].as_str().unwrap()),
        "{v}"
    );
    assert_eq!(v["affected_count"], 0, "{v}");
    assert_eq!(v["affected_symbol_count"], 0);
    assert_eq!(symbol(&v, "_acceptance_probe")["change"], "added");
    assert_eq!(symbol(&v, "_acceptance_probe")["affects_callers"], false);

    // A changed signature with callers answers by its callers.
    write(
        root,
        "pkg/helpers.py",
        &helpers.replace("def join_path(a, b):", "def join_path(a, b, sep):"),
    );
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert!(
        ["REVIEW", "UNSAFE"].contains(&v["verdict"].as_str().unwrap()),
        "{v}"
    );
    let row = symbol(&v, "join_path");
    assert_eq!(row["change"], "signature_changed");
    assert_eq!(row["caller_count"], 2, "{v}");
    let affected = v["affected_files"].to_string();
    for f in ["app/view_0.py", "app/view_1.py"] {
        assert!(affected.contains(f), "{f} in {affected}");
    }

    // A removed public-API function (re-exported by the package) is never SAFE,
    // though nothing in the project calls it.
    write(
        root,
        "pkg/helpers.py",
        &helpers.replace("def old_api():\n    return 0\n", ""),
    );
    let v = both(&client, root, json!({"action": "impact"})).await;
    assert!(
        ["REVIEW", "UNSAFE"].contains(&v["verdict"].as_str().unwrap()),
        "{v}"
    );
    let row = symbol(&v, "old_api");
    assert_eq!(row["change"], "removed");
    assert_eq!(row["public_api"], true, "{v}");
    assert!(basis(&v).contains("public API"), "{v}");
    assert!(v["affected_files"].to_string().contains("pkg/__init__.py"));
    client.cancel().await.unwrap();
}

/// Swift's implicit member expressions (`.delay(1)`: a static member of the type
/// the context expects, no receiver written) are call sites: a function called
/// only that way is never `NOT_FOUND` and complete, nor SAFE to change.
#[test]
fn swift_implicit_member_calls_are_callers_or_open_sites() {
    let p = project("trust");
    let root = &p.root;
    for name in ["Endpoint.delay", "Endpoint.endpoints"] {
        let v = callers(root, name);
        assert_ne!(v["verdict"], "NOT_FOUND", "{name}: {v}");
        let bound = v["caller_count"].as_u64().unwrap_or(0) > 0;
        assert!(bound || v["completeness"] != "complete", "{name}: {v}");
        let i = impact(root, name);
        assert_ne!(i["verdict"], "SAFE", "{name}: {i}");
    }
}

/// Swift public API: `public` members of public types in a SwiftPM package that
/// declares a library product; an internal function is not.
#[test]
fn swift_public_api_follows_the_package_manifest() {
    let p = project("trust");
    let root = &p.root;
    let v = callers(root, "Endpoint.delay");
    assert_eq!(v["public_api"], true, "{v}");
    assert!(
        v["public_api_reasons"]
            .to_string()
            .contains("Swift package at swiftpkg"),
        "{v}"
    );
    assert_eq!(v["unresolved_sites"][0]["call"], ".delay", "{v}");
    let v = callers(root, "ping");
    assert_eq!(v["public_api"], false, "{v}");
}

/// C# and PHP public API: public members of a `.csproj` library (not of an `Exe`,
/// not a member without a modifier) and members not `private` of a Composer
/// library.
#[test]
fn dotnet_and_composer_public_api() {
    let p = project("trust");
    let root = &p.root;
    for (name, public) in [
        ("Logging.Log.Write", true),
        ("Logging.Log.Emit", false),
        ("Tool.Program.Report", false),
        ("StreamHandler.setFormatter", true),
        ("StreamHandler.check", false),
    ] {
        let v = callers(root, name);
        assert_eq!(v["public_api"], public, "{name}: {v}");
    }
    let v = callers(root, "Logging.Log.Write");
    assert!(
        v["public_api_reasons"]
            .to_string()
            .contains("library project dotnetlib/Logging.csproj"),
        "{v}"
    );
}
