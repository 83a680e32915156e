//! Arguments as real clients send them: an integer, number or boolean in its
//! plain string form, a list as one item, over MCP and the CLI, answered as the
//! exact form is; anything else is a validation error naming the parameter, the
//! type and the value; unknown parameters stay errors.

use serde_json::{Value, json};

use crate::support::{assert_envelope, json as cli_json, mcp, mcp_call, project};

/// The answer without what differs between two runs of one call.
fn stable(mut v: Value) -> Value {
    for k in ["elapsed_ms", "elapsed_seconds"] {
        v.as_object_mut().unwrap().remove(k);
    }
    v
}

#[tokio::test(flavor = "multi_thread")]
async fn string_forms_and_single_items_answer_as_the_exact_forms_over_mcp() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let (_, built) = mcp_call(
        &client,
        "index",
        json!({"action": "full", "output_format": "json"}),
    )
    .await;
    assert_eq!(built["success"], true, "{built}");
    let call = |extra: Value| {
        let mut args = json!({"output_format": "json"});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        mcp_call(&client, "nav", args)
    };
    let callers =
        json!({"action": "callers", "function_name": "build", "file_path": "app/core.py"});
    let with = |k: &str, v: Value| {
        let mut a = callers.clone();
        a[k] = v;
        a
    };
    let (is_error, exact) = call(with("limit", json!(2))).await;
    assert!(!is_error, "{exact}");
    assert_eq!(exact["callers"].as_array().unwrap().len(), 2, "{exact}");
    for form in [json!("2"), json!("2.0"), json!(2.0), json!(" 2 ")] {
        let (is_error, v) = call(with("limit", form.clone())).await;
        assert!(!is_error, "limit={form}: {v}");
        assert_eq!(stable(v), stable(exact.clone()), "limit={form}");
    }
    // A boolean as "true", a list as one item.
    let impact = |names: Value, tests: Value, depth: Value| {
        json!({"action": "impact", "mode": "blast_radius", "function_names": names,
               "include_tests": tests, "depth": depth})
    };
    let (_, exact) = call(impact(json!(["build"]), json!(true), json!(2))).await;
    assert_eq!(exact["success"], true, "{exact}");
    let (_, v) = call(impact(json!("build"), json!("true"), json!("2"))).await;
    assert_eq!(stable(v), stable(exact));

    // Anything else names the parameter, the type and the value.
    for (args, expected) in [
        (
            with("limit", json!("2.5")),
            "parameter 'limit' expects an integer; got the string \"2.5\"",
        ),
        (
            with("limit", json!("two")),
            "parameter 'limit' expects an integer; got the string \"two\"",
        ),
        (
            with("limit", json!([2])),
            "parameter 'limit' expects an integer; got a list [2]",
        ),
        (
            impact(json!("build"), json!("yes"), json!(2)),
            "parameter 'include_tests' expects a boolean (true or false); got the string \"yes\"",
        ),
        (
            impact(json!(7), json!(true), json!(2)),
            "parameter 'function_names' expects a list of strings; got the number 7",
        ),
    ] {
        let (is_error, v) = call(args).await;
        assert!(is_error, "{v}");
        assert_envelope(&v);
        assert_eq!(v["error_type"], "validation", "{v}");
        assert_eq!(v["error"], expected);
    }
    let (is_error, v) = call(with("limit", json!("9".repeat(5_000)))).await;
    assert!(is_error);
    let err = v["error"].as_str().unwrap();
    assert!(
        err.len() < 200 && err.ends_with("(5,000 characters)"),
        "{err}"
    );
    // Unknown parameters stay errors, whatever their value.
    let (is_error, v) = call(with("limt", json!("2"))).await;
    assert!(is_error);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("unknown parameter 'limt'"),
        "{v}"
    );
    // The universal parameters take the string forms too.
    let (is_error, v) = call(json!({"action": "callers", "function_name": "build", "max_chars": "1500", "compact_only": "false"})).await;
    assert!(!is_error, "{v}");
    client.cancel().await.unwrap();
}

#[test]
fn the_cli_sends_the_same_json_and_gets_the_same_answers() {
    let p = project("python");
    assert_eq!(cli_json(&p.root, &["index", "full"]).0, 0);
    let base = [
        "nav",
        "callers",
        "--function-name",
        "build",
        "--file-path",
        "app/core.py",
    ];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        cli_json(&p.root, &args)
    };
    let (code, exact) = run(&["--limit", "2"]);
    assert_eq!(code, 0, "{exact}");
    assert_eq!(exact["callers"].as_array().unwrap().len(), 2);
    let (code, v) = run(&["--limit", "2.0"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(stable(v), stable(exact));
    let (code, v) = run(&["--limit", "abc"]);
    assert_eq!(code, 1);
    assert_eq!(
        v["error"],
        "parameter 'limit' expects an integer; got the string \"abc\""
    );
}
