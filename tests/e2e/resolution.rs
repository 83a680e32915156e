//! The call graph on project layouts users have (issue: callers an agent can
//! trust): a `src/` Python package with re-exports, a Go module, a Rust workspace
//! with language bindings, npm workspaces. The fixtures pin each binding edge by
//! edge (`fixtures.rs`); these tests ask the questions an agent asks.

use serde_json::Value;

use crate::support::{json, project};

fn callers(root: &std::path::Path, name: &str, file: Option<&str>) -> Value {
    let mut args = vec!["nav", "callers", "--function-name", name, "--limit", "100"];
    if let Some(f) = file {
        args.extend(["--file-path", f]);
    }
    json(root, &args).1
}

/// `file:line` of every call site listed (a caller's further lines included).
fn caller_files(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for c in v["callers"].as_array().unwrap() {
        let file = c["file"].as_str().unwrap();
        out.push(format!("{file}:{}", c["line"]));
        for l in c["call_lines"]
            .as_str()
            .into_iter()
            .flat_map(str::split_whitespace)
        {
            out.push(format!("{file}:{l}"));
        }
    }
    out
}

#[test]
fn a_package_function_is_found_by_its_module_or_package_name() {
    let p = project("go_module");
    let v = callers(&p.root, "web.Default", None);
    assert_eq!(v["definitions"][0]["file"], "web.go", "{v}");
    let files = caller_files(&v);
    assert!(files.contains(&"ginS/gins.go:10".to_owned()), "{files:?}");
    assert!(files.contains(&"web_test.go:6".to_owned()), "{files:?}");
    let v = callers(&p.root, "binding.Default", None);
    assert_eq!(v["definitions"].as_array().unwrap().len(), 2, "{v}");
    let p = project("py_srclayout");
    let v = callers(&p.root, "helpers.url_for", None);
    assert_eq!(v["definitions"][0]["file"], "src/shop/helpers.py", "{v}");
    let v = callers(&p.root, "shop.helpers.url_for", None);
    assert_eq!(v["definitions"].as_array().unwrap().len(), 1, "{v}");
}

#[test]
fn src_layout_re_exports_give_every_caller_and_impact_is_not_safe() {
    let p = project("py_srclayout");
    let v = callers(&p.root, "url_for", Some("src/shop/helpers.py"));
    assert_eq!(v["verdict"], "INFO", "{v}");
    let files = caller_files(&v);
    for want in [
        "tests/test_shop.py:9",
        "tests/test_shop.py:10",
        "scripts/release.py:5",
        "src/shop/core.py:5",
        "src/shop/helpers.py:6",
    ] {
        assert!(files.contains(&want.to_owned()), "{want} not in {files:?}");
    }
    // The script folder's own `shop.py` is another function.
    assert!(
        !files.iter().any(|f| f.starts_with("examples/")),
        "{files:?}"
    );
    let (_, impact) = json(
        &p.root,
        &[
            "nav",
            "impact",
            "--function-name",
            "url_for",
            "--file-path",
            "src/shop/helpers.py",
        ],
    );
    assert_ne!(impact["verdict"], "SAFE", "{impact}");
}

#[test]
fn a_newtype_s_callers_reach_the_inner_method_and_no_js_or_python_call_binds_to_rust() {
    let p = project("rust_workspace");
    let v = callers(&p.root, "TokenizerImpl::encode", None);
    let files = caller_files(&v);
    for want in [
        "core/tests/encode.rs:9",
        "core/tests/encode.rs:16",
        "bindings/python/src/lib.rs:18",
        "bindings/node/src/lib.rs:17",
        "core/src/holder_impl.rs:5",
    ] {
        assert!(files.contains(&want.to_owned()), "{want} not in {files:?}");
    }
    let (_, impact) = json(
        &p.root,
        &["nav", "impact", "--function-name", "TokenizerImpl::encode"],
    );
    assert_ne!(impact["verdict"], "SAFE", "{impact}");
    // The napi method: JavaScript calls it across the binding, never as an edge;
    // it is public API through the binding, so never NOT_FOUND or SAFE.
    let v = callers(&p.root, "encode", Some("bindings/node/src/lib.rs"));
    assert!(
        v["callers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["language"] == "rust"),
        "{v}"
    );
    assert_ne!(v["verdict"], "NOT_FOUND", "{v}");
    let (_, impact) = json(
        &p.root,
        &[
            "nav",
            "impact",
            "--function-name",
            "encode",
            "--file-path",
            "bindings/node/src/lib.rs",
        ],
    );
    assert_ne!(impact["verdict"], "SAFE", "{impact}");
    let index = tsa_index::Index::open(&p.root).unwrap().unwrap();
    for f in index.files().unwrap() {
        if f.ends_with(".rs") {
            continue;
        }
        for c in index.calls_in_file(&f).unwrap() {
            if let Some(t) = c.target {
                assert!(
                    !t.file.ends_with(".rs"),
                    "{f}:{} binds to Rust {}",
                    c.line,
                    t.file
                );
            }
        }
    }
}

#[test]
fn c_headers_bind_within_the_tree_their_include_folder_serves() {
    let p = project("c_kernel");
    // tools/include holds linux/kernel.h and linux/slab.h too: drivers/ code never
    // reaches them, tools/ code reaches only them.
    let v = callers(&p.root, "kmalloc", Some("tools/include/linux/slab.h"));
    assert_eq!(caller_files(&v), ["tools/perf/main.c:5"], "{v}");
    let v = callers(&p.root, "kmalloc", Some("include/linux/slab.h"));
    assert_eq!(caller_files(&v), ["drivers/char/mem.c:9"], "{v}");
    // kfree: the linker's variants, the site listed once.
    let v = callers(&p.root, "kfree", None);
    assert_eq!(
        caller_files(&v),
        ["drivers/char/mem.c:14", "tools/perf/main.c:6"],
        "{v}"
    );
    assert_eq!(v["call_site_count"], 2, "{v}");
}

#[test]
fn a_header_that_stops_including_another_unbinds_its_includers_calls_on_sync() {
    let p = project("c_kernel");
    let v = callers(&p.root, "kmalloc", Some("include/linux/slab.h"));
    assert_eq!(caller_files(&v), ["drivers/char/mem.c:9"], "{v}");
    // kernel.h no longer includes slab.h: mem.c reaches no kmalloc any more (the
    // one it had is a header's inline, which no linker finds).
    let kernel_h = p.root.join("include/linux/kernel.h");
    let text = std::fs::read_to_string(&kernel_h).unwrap();
    assert!(text.contains("#include <linux/slab.h>"), "{text}");
    std::fs::write(&kernel_h, text.replace("#include <linux/slab.h>", "")).unwrap();
    let (_, s) = json(&p.root, &["index", "sync"]);
    assert_eq!(s["success"], true, "{s}");
    let v = callers(&p.root, "kmalloc", Some("include/linux/slab.h"));
    assert_eq!(caller_files(&v), Vec::<String>::new(), "{v}");
}

/// `nav impact` of an overloaded method (one qualified name, one file) answers for
/// the overload set: every caller of any overload, not "ambiguous".
#[test]
fn impact_of_an_overloaded_method_answers_for_the_set() {
    let p = project("java");
    let v = json(
        &p.root,
        &[
            "nav",
            "impact",
            "--mode",
            "function_impact",
            "--function-name",
            "Node.attr",
        ],
    )
    .1;
    assert_ne!(v["ambiguous"], true, "{v}");
    assert_eq!(v["function"], "Node.attr", "{v}");
    assert_eq!(v["definition"].as_array().map(Vec::len), Some(2), "{v}");
    let warned = v["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| w.as_str().is_some_and(|w| w.contains("2 overloads")));
    assert!(warned, "{v}");
    let names: Vec<&str> = v["callers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["qualified_name"].as_str())
        .collect();
    assert!(names.contains(&"Element.href"), "{v}");
}
