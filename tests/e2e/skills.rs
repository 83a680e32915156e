//! Agent skills: `project skills` over the CLI and MCP, `tsa skills install`.

use serde_json::json;

use crate::support::{assert_envelope, json as cli_json, mcp, mcp_call, project, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_listed_installed_and_listed_again() {
    let p = project("python");
    let (code, v) = cli_json(&p.root, &["project", "skills", "--output-format", "json"]);
    assert_eq!(code, 0);
    assert_envelope(&v);
    assert_eq!(v["skill_count"], 6);
    assert_eq!(v["not_installed"], 6);
    let names: Vec<&str> = v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    for n in [
        "find-symbol",
        "trace-call-chain",
        "safe-edit",
        "review-pr",
        "score-health",
        "find-dead-code",
    ] {
        assert!(names.contains(&n), "{n}");
    }
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("tsa skills install")
    );

    // Install, then the same list says installed; a second install keeps them.
    let (code, out, _) = run(&p.root, &["skills", "install"]);
    assert_eq!(code, 0, "{out}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["written"].as_array().unwrap().len(), 6);
    assert!(p.root.join(".claude/skills/safe-edit/SKILL.md").is_file());
    let (_, out, _) = run(&p.root, &["skills", "install"]);
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["kept_existing"].as_array().unwrap().len(), 6);
    // A project skill of its own is listed beside the built-in ones.
    std::fs::create_dir_all(p.root.join(".claude/skills/house-rules")).unwrap();
    std::fs::write(
        p.root.join(".claude/skills/house-rules/SKILL.md"),
        "---\nname: house-rules\ndescription: our rules\ntools: [search]\n---\n1. a\n2. b\n3. c\n",
    )
    .unwrap();

    let client = mcp((), &p.root).await;
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "skills", "limit": 2, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["skill_count"], 7);
    assert_eq!(v["not_installed"], 0);
    assert_eq!(v["skills_listed"], 2);
    assert_eq!(v["truncated"], true);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 2 of 7 skills")
    );
    // Outside the root: refused.
    let (err, v) = mcp_call(
        &client,
        "project",
        json!({"action": "skills", "skills_root": "../x", "output_format": "json"}),
    )
    .await;
    assert!(err);
    assert_eq!(v["error_type"], "security_violation");
    client.cancel().await.unwrap();

    let (code, out, _) = run(&p.root, &["skills", "install", "--dir", "/etc"]);
    assert_eq!(code, 1, "{out}");
}
