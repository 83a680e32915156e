//! The call graph agents can trust, end to end: callers through re-exports and
//! aliases, no binding across types, languages or into test helpers, and honest
//! lists of the call sites that could not be bound.

use serde_json::Value;

use crate::support::{assert_envelope, json, project};

fn callers(root: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["nav", "callers", "--output-format", "json"];
    all.extend_from_slice(args);
    let (code, v) = json(root, &all);
    assert_eq!(code, 0, "{v}");
    assert_envelope(&v);
    v
}

fn caller_names(v: &Value) -> Vec<String> {
    let mut names: Vec<String> = v["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["qualified_name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn callers_follow_re_exports_and_aliases() {
    let p = project("tricky");
    let v = callers(&p.root, &["--function-name", "jsonify"]);
    // `from webapp import jsonify`, `webapp.jsonify(...)`, `to_json = jsonify` alias import.
    assert_eq!(caller_names(&v), ["index", "via_alias", "via_package"]);
    for c in v["callers"].as_array().unwrap() {
        assert_eq!(c["callee_resolution"], "project");
        assert!(c["confidence"].as_f64().unwrap() > 0.0);
        assert_eq!(c["callee_resolved_file"], "webapp/json/__init__.py");
    }
}

#[test]
fn same_named_methods_and_typed_receivers_stay_apart() {
    let p = project("tricky");
    let dog = callers(&p.root, &["--function-name", "Dog.speak"]);
    assert_eq!(
        caller_names(&dog),
        ["Shelter.chorus", "adopt", "feed", "pets"]
    );
    let cat = callers(&p.root, &["--function-name", "Cat.speak"]);
    assert_eq!(caller_names(&cat), ["Shelter.chorus", "pets"]);
    // `pet.speak()` on an untyped parameter is listed as unresolved, not as a caller.
    let sites = dog["unresolved_sites"].as_array().unwrap();
    assert!(sites.iter().any(|s| s["call"] == "pet.speak"), "{sites:?}");
    assert_eq!(dog["completeness"], "lower_bound");

    // Go: `pb.Next()` on `*testing.PB` is the standard library, never gin's Context.Next.
    let next = callers(&p.root, &["--function-name", "Context.Next"]);
    assert_eq!(caller_names(&next), ["handle"]);
    assert_eq!(next["unresolved_call_sites"], 0);
}

#[test]
fn no_binding_across_languages_or_into_test_helpers() {
    let p = project("tricky");
    // `render_frame` exists in Rust and JavaScript; the Python call binds to neither.
    let v = callers(&p.root, &["--function-name", "render_frame"]);
    assert_eq!(v["caller_count"], 0);
    // The Rust one is `pub` in a library crate: public API, so INFO, not NOT_FOUND.
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["public_api"], true);
    // The production `normalize` is called by production code; the test helper by the test.
    let prod = callers(
        &p.root,
        &[
            "--function-name",
            "normalize",
            "--file-path",
            "webapp/util.py",
        ],
    );
    assert_eq!(caller_names(&prod), ["process"]);
    let helper = callers(
        &p.root,
        &[
            "--function-name",
            "normalize",
            "--file-path",
            "tests/helpers.py",
        ],
    );
    assert_eq!(caller_names(&helper), ["test_process"]);
    // A test-only `clean` is never the target of production code's bare `clean()`.
    let clean = callers(&p.root, &["--function-name", "clean"]);
    assert_eq!(clean["caller_count"], 0);
    // Recursion is a caller of itself.
    let fact = callers(&p.root, &["--function-name", "factorial"]);
    assert_eq!(caller_names(&fact), ["factorial"]);
}

#[test]
fn unresolved_sites_are_listed_and_respect_limit() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("many");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("engine.py"),
        "class Engine:\n    def run(self):\n        return 1\n\n\ndef start():\n    return Engine().run()\n",
    )
    .unwrap();
    let mut body = String::new();
    for i in 0..30 {
        body.push_str(&format!(
            "def job_{i:02}(thing):\n    return thing.run()\n\n\n"
        ));
    }
    std::fs::write(root.join("jobs.py"), body).unwrap();

    let v = callers(&root, &["--function-name", "Engine.run", "--limit", "5"]);
    assert_eq!(caller_names(&v), ["start"]);
    assert_eq!(v["unresolved_call_sites"], 30);
    assert_eq!(v["unresolved_sites_listed"], 5);
    assert_eq!(v["unresolved_sites_cap"], 5);
    assert_eq!(v["unresolved_sites"].as_array().unwrap().len(), 5);
    assert_eq!(v["truncated"], true);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("showing 5 of 30 unresolved call sites"),
        "{}",
        v["next_step"]
    );
    // More than the reference's fixed 20 when the limit allows it.
    let all = callers(&root, &["--function-name", "Engine.run", "--limit", "40"]);
    assert_eq!(all["unresolved_sites_listed"], 30);
    assert_eq!(all["truncated"], false);
    let first = &all["unresolved_sites"][0];
    assert_eq!(first["file"], "jobs.py");
    assert_eq!(first["caller"], "job_00");
    assert_eq!(first["call"], "thing.run");
}
