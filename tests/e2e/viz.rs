//! `viz` actions over the CLI and MCP.

use serde_json::{Value, json};

use crate::support::{assert_envelope, cli_words, json as cli_json, mcp, mcp_call, project};

fn viz(root: &std::path::Path, args: Value) -> Value {
    let words = cli_words("viz", &args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_envelope(&v);
    assert_eq!(code != 0, v["success"] == false);
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graph_draws_mermaid_and_graphology_with_honest_caps() {
    let p = project("python");
    let full = viz(&p.root, json!({"action": "graph"}));
    assert_eq!(full["verdict"], "INFO");
    let total = full["edge_count"].as_u64().unwrap();
    assert!(total >= 5, "{full}");
    let text = full["mermaid"].as_str().unwrap();
    assert!(text.starts_with("flowchart TD\n"));
    assert_eq!(text.matches(" --> ").count() as u64, total);
    // Every edge row is a resolved call between definitions.
    for e in full["edges"].as_array().unwrap() {
        assert!(
            ["local", "project"].contains(&e["resolution"].as_str().unwrap()),
            "{e}"
        );
    }

    let capped = viz(
        &p.root,
        json!({"action": "graph", "max_edges": 2, "direction": "LR"}),
    );
    assert_eq!(capped["edge_count"], total);
    assert_eq!(capped["edges_listed"], 2);
    assert_eq!(capped["truncated"], true);
    let text = capped["mermaid"].as_str().unwrap();
    assert!(text.starts_with("flowchart LR\n"));
    assert!(
        text.contains(&format!("%% showing 2 of {total} call edges")),
        "{text}"
    );
    assert!(
        capped["next_step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("showing 2 of {total} call edges"))
    );

    let one = viz(
        &p.root,
        json!({"action": "graph", "mode": "function", "function": "Engine.run", "depth": 1}),
    );
    let names: Vec<&str> = one["edges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| [e["source"].as_str().unwrap(), e["target"].as_str().unwrap()])
        .collect();
    assert!(names.contains(&"Engine.run"), "{one}");
    assert!(one["edge_count"].as_u64().unwrap() < total);

    let file = viz(
        &p.root,
        json!({"action": "graph", "mode": "file", "file_path": "app/core.py", "visualization_format": "sigma"}),
    );
    let g = &file["graph"];
    assert_eq!(g["options"]["type"], "directed");
    assert_eq!(
        g["edges"].as_array().unwrap().len() as u64,
        file["edges_listed"].as_u64().unwrap()
    );
    assert!(
        g["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["key"].is_string() && n["attributes"]["label"].is_string())
    );

    let missing = viz(
        &p.root,
        json!({"action": "graph", "mode": "function", "function": "Engine.runn"}),
    );
    assert_eq!(missing["verdict"], "NOT_FOUND");
    assert!(missing["suggestions"].to_string().contains("run"));
    let bad = viz(&p.root, json!({"action": "graph", "mode": "file"}));
    assert_eq!(bad["error_type"], "validation");
    let bad = viz(
        &p.root,
        json!({"action": "graph", "mode": "file", "file_path": "../x.py"}),
    );
    assert_eq!(bad["success"], false);

    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "viz",
        json!({"action": "graph", "max_edges": 2, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["edge_count"], total);
    assert_eq!(v["truncated"], true);
    // TOON: the Mermaid text is a large string: inside toon_content only.
    let (_, t) = mcp_call(&client, "viz", json!({"action": "graph", "max_edges": 2})).await;
    assert!(t.get("mermaid").is_none());
    let decoded = tsa_format::from_toon(t["toon_content"].as_str().unwrap()).unwrap();
    assert_eq!(decoded["mermaid"], v["mermaid"]);
    let (_, nf) = mcp_call(&client, "viz", json!({"action": "graph", "mode": "function", "function": "nope_nope", "output_format": "json"})).await;
    assert_eq!(nf["verdict"], "NOT_FOUND");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uml_diagrams_from_the_index() {
    let j = project("java");
    let class = viz(&j.root, json!({"action": "uml"}));
    let text = class["mermaid"].as_str().unwrap();
    assert!(text.starts_with("classDiagram\n"), "{text}");
    assert!(text.contains("  Figure <|-- Circle\n"), "{text}");
    assert!(text.contains("  Shape <|.. Circle\n"), "{text}");
    let capped = viz(&j.root, json!({"action": "uml", "max_edges": 1}));
    assert_eq!(capped["relations_listed"], 1);
    assert_eq!(capped["relation_count"], class["relation_count"]);
    assert_eq!(capped["truncated"], true);
    assert!(
        capped["mermaid"]
            .as_str()
            .unwrap()
            .contains("note \"showing 1 of")
    );
    let focus = viz(
        &j.root,
        json!({"action": "uml", "class_name": "Figure", "max_depth": 1}),
    );
    assert!(
        focus["mermaid"]
            .as_str()
            .unwrap()
            .contains("Figure <|-- Circle")
    );
    let missing = viz(&j.root, json!({"action": "uml", "class_name": "Figur"}));
    assert_eq!(missing["verdict"], "NOT_FOUND");

    let p = project("python");
    let t = project("tricky");
    let pkg = viz(
        &t.root,
        json!({"action": "uml", "diagram": "package", "include_tests": true}),
    );
    assert!(
        pkg["mermaid"]
            .as_str()
            .unwrap()
            .starts_with("flowchart LR\n")
    );
    let rel = pkg["relations"].as_array().unwrap();
    assert!(
        rel.iter()
            .any(|r| r["from"] == "tests" && r["to"] == "webapp"),
        "{pkg}"
    );
    assert!(
        rel.iter()
            .any(|r| r["from"] == "webapp" && r["to"] == "webapp/json"),
        "{pkg}"
    );
    let no_tests = viz(&t.root, json!({"action": "uml", "diagram": "package"}));
    assert!(
        no_tests["relations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["from"] != "tests")
    );
    let seq = viz(
        &p.root,
        json!({"action": "uml", "diagram": "sequence", "source": "Engine.run", "target": "build", "target_file": "app/core.py"}),
    );
    let text = seq["mermaid"].as_str().unwrap();
    assert!(
        text.starts_with("sequenceDiagram\n") && text.contains("Engine_run->>build"),
        "{text}"
    );
    let none = viz(
        &p.root,
        json!({"action": "uml", "diagram": "sequence", "source": "build", "source_file": "app/core.py", "target": "Engine.run"}),
    );
    assert_eq!(none["verdict"], "NOT_FOUND");
    let act = viz(
        &p.root,
        json!({"action": "uml", "diagram": "activity", "function_name": "Engine.run"}),
    );
    let text = act["mermaid"].as_str().unwrap();
    assert!(
        text.starts_with("flowchart TD\n") && text.contains("return (line 19)"),
        "{text}"
    );
    assert_eq!(act["relation_count"], 1);
    let bad = viz(
        &p.root,
        json!({"action": "uml", "diagram": "sequence", "source": "build"}),
    );
    assert_eq!(bad["error_type"], "validation");

    let client = mcp((), &j.root).await;
    let (err, v) = mcp_call(
        &client,
        "viz",
        json!({"action": "uml", "max_edges": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["truncated"], true);
    let (_, v) = mcp_call(
        &client,
        "viz",
        json!({"action": "uml", "diagram": "state", "class_name": "Nope", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "NOT_FOUND");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn similarity_groups_structural_and_textual_clones() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("clones");
    std::fs::create_dir_all(&root).unwrap();
    let body = |name: &str, field: &str, limit: u32, comment: bool| {
        format!(
            "def {name}(things):\n{}    result = 0\n    for t in things:\n        if t.{field} > {limit}:\n            result += t.{field}\n    return result\n\n\n",
            if comment { "    # add them up\n" } else { "" }
        )
    };
    std::fs::write(
        root.join("a.py"),
        body("total_price", "price", 0, true) + &body("total_weight", "weight", 0, false),
    )
    .unwrap();
    std::fs::write(root.join("b.py"), body("count_big", "size", 10, false)).unwrap();
    std::fs::write(root.join("c.py"), "def tiny(x):\n    return x\n").unwrap();

    let v = viz(&root, json!({"action": "similarity"}));
    assert_eq!(v["verdict"], "CAUTION");
    assert_eq!(v["stats"]["candidates"], 3, "tiny is under min_lines");
    let groups = v["groups"].as_array().unwrap();
    let structural = groups.iter().find(|g| g["method"] == "structural").unwrap();
    assert_eq!(
        structural["function_count"], 3,
        "names, literals and comments ignored"
    );
    let textual = groups.iter().find(|g| g["method"] == "textual").unwrap();
    assert_eq!(textual["function_count"], 2, "the literal 10 differs");
    assert_eq!(v["stats"]["total_clone_instances"], 5);

    let capped = viz(
        &root,
        json!({"action": "similarity", "max_groups": 1, "include_bodies": true}),
    );
    assert_eq!(capped["group_count"], 2);
    assert_eq!(capped["groups_listed"], 1);
    assert_eq!(capped["truncated"], true);
    assert!(
        capped["groups"][0]["functions"][0]["body"]["content"]
            .as_str()
            .unwrap()
            .contains("result")
    );

    let only_b = viz(
        &root,
        json!({"action": "similarity", "path_filter": "b.py"}),
    );
    assert_eq!(only_b["verdict"], "INFO");
    assert_eq!(only_b["group_count"], 0);
    let bad = viz(
        &root,
        json!({"action": "similarity", "path_filter": "a[.py"}),
    );
    assert_eq!(bad["error_type"], "validation");

    let client = mcp((), &root).await;
    let (err, v) = mcp_call(
        &client,
        "viz",
        json!({"action": "similarity", "mode": "textual", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["group_count"], 1);
    let (err, v) = mcp_call(
        &client,
        "viz",
        json!({"action": "similarity", "mode": "nonsense"}),
    )
    .await;
    assert!(err);
    assert_eq!(v["verdict"], "ERROR");
    client.cancel().await.unwrap();
}
