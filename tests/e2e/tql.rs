//! `search tql_schema` and `search tql_execute` end to end on the python fixture:
//! every schema example runs; resolved call edges walked with hop quantifiers;
//! quantifier and syntax errors refused when parsed; temporal pseudo-classes
//! without git activation fail with their code; `search select` shares the engine
//! (`tql_data.rs` has the data pseudo-classes).

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{mcp, mcp_call, project, tool_cli};

fn cli(root: &Path, args: &Value) -> Value {
    tool_cli(root, "search", args)
}

fn names(v: &Value) -> Vec<String> {
    v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| match s["class"].as_str() {
            Some(c) => format!("{c}.{}", s["name"].as_str().unwrap()),
            None => s["name"].as_str().unwrap().to_owned(),
        })
        .collect()
}

#[test]
fn the_schema_examples_run_and_hops_walk_resolved_edges() {
    let p = project("python");
    let v = cli(&p.root, &json!({"action": "tql_schema"}));
    assert_eq!(v["verdict"], "INFO");
    let schema = v["schema"].as_str().unwrap();
    let examples: Vec<&str> = schema
        .split("## Examples")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("- `")?.strip_suffix('`'))
        .collect();
    assert!(examples.len() >= 5, "{schema}");
    for e in &examples {
        let v = cli(&p.root, &json!({"action": "tql_execute", "selector": e}));
        assert_eq!(v["success"], true, "{e}: {v}");
    }
    let one = names(&cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": ".function:calls(#build)"}),
    ));
    for n in ["main", "run_cli", "serve", "Engine.run", "weekly"] {
        assert!(one.contains(&n.to_owned()), "{n} in {one:?}");
    }
    assert!(
        !one.contains(&"TurboEngine.boost".to_owned()),
        "two hops away: {one:?}"
    );
    let two = names(&cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": ".function:calls(#build){2}"}),
    ));
    assert!(two.contains(&"TurboEngine.boost".to_owned()), "{two:?}");
    assert!(
        !two.contains(&"main".to_owned()),
        "exactly two hops: {two:?}"
    );
    let v = cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": ".function:calls(#build){1,2}", "max_results": 2}),
    );
    assert_eq!(v["truncated"], true, "{v}");
    assert_eq!(v["count"], 2);
    assert!(v["total_matches"].as_u64().unwrap() > 2);
    // Seeds are candidates too: run calls step, both seeds.
    let both = names(&cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": ".method:calls(#run, #step)"}),
    ));
    assert!(both.contains(&"Engine.run".to_owned()), "{both:?}");
    // The same engine: select accepts the quantifier.
    let v = cli(
        &p.root,
        &json!({"action": "select", "selector": ".function:calls(#build){2}"}),
    );
    assert_eq!(
        v["total_matches"].as_u64().unwrap() as usize,
        two.len(),
        "{v}"
    );
}

#[test]
fn errors_carry_their_codes() {
    let p = project("python");
    let v = cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": "*:calls(#build){0}"}),
    );
    assert_eq!(v["error_code"], "TQL_SYNTAX_ERROR", "{v}");
    assert_eq!(v["error_type"], "validation");
    let v = cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": "*:has(#x){2}"}),
    );
    assert_eq!(v["error_code"], "TQL_SYNTAX_ERROR", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": ".function:hot(30)"}),
    );
    assert_eq!(v["error_code"], "TEMPORAL_INDEX_UNAVAILABLE", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": "#nothing_like_it"}),
    );
    assert_eq!(v["verdict"], "NOT_FOUND", "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "tql_execute", "selector": "#build", "max_results": 1001}),
    );
    assert_eq!(v["error_code"], "INVALID_ARGUMENT", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tql_over_mcp() {
    let p = project("python");
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "search",
        json!({"action": "tql_execute", "selector": ".method:called-by(#boost)", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    let got = names(&v);
    assert!(
        got.contains(&"Engine.step".to_owned()) && got.contains(&"Engine.run".to_owned()),
        "{got:?}"
    );
    client.cancel().await.unwrap();
}
