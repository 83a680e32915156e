//! A budget by default and resumable lists: an MCP answer without `max_chars`
//! stays within 40,000 characters (or `MAX_MCP_OUTPUT_TOKENS` x 3, or
//! `tsa mcp --max-chars`), the CLI has no default cap, and every capped list can be
//! paged through with `cursor` or `offset`: every row exactly once, the same totals
//! and verdict on every page, and a cursor whose index changed refused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{assert_envelope, mcp, mcp_env, mcp_raw, run};

/// A project where `hub` has `n` callers, each in its own file with a call line
/// long enough that 300 of them listed pass 40,000 characters.
pub fn many_callers(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("many");
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(root.join("pkg/hub.py"), "def hub(x):\n    return x + 1\n").unwrap();
    for i in 0..n {
        write_caller(&root, &format!("user_{i:03}"));
    }
    (dir, root)
}

fn write_caller(root: &Path, name: &str) {
    std::fs::write(
        root.join(format!("pkg/{name}.py")),
        format!(
            "from pkg.hub import hub\n\n\ndef call_{name}(value):\n    # {name} calls the hub once and scales what it returns\n    return hub(value) * 2  # {name}: what the hub answers, scaled by two\n"
        ),
    )
    .unwrap();
}

/// The answer's payload (TOON decoded when it is TOON).
fn payload(text: &str) -> Value {
    let v: Value = serde_json::from_str(text).unwrap();
    match v.get("toon_content").and_then(Value::as_str) {
        Some(t) => tsa_format::from_toon(t).unwrap(),
        None => v,
    }
}

fn names(v: &Value) -> Vec<String> {
    v["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

fn with(args: &Value, key: &str, value: Value) -> Value {
    let mut a = args.clone();
    a[key] = value;
    a
}

/// Pages through `args` with `next_cursor` until the lists end, checking every
/// page's size, totals and verdict; returns every listed caller name.
async fn page_through(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    args: &Value,
    cap: usize,
    total: u64,
) -> Vec<String> {
    let (mut all, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let call = match &cursor {
            Some(c) => with(args, "cursor", json!(c)),
            None => args.clone(),
        };
        let (is_error, text) = mcp_raw(client, "nav", &call).await;
        assert!(!is_error, "{text}");
        assert!(
            text.chars().count() <= cap,
            "page {pages}: {} > {cap}",
            text.chars().count()
        );
        let v = payload(&text);
        assert_envelope(&v);
        assert_eq!(v["caller_count"], total, "page {pages}: totals stay");
        assert_eq!(v["verdict"], "INFO", "page {pages}: verdict stays");
        let page = names(&v);
        assert_eq!(v["callers_listed"], page.len() as u64);
        assert!(!page.is_empty(), "page {pages} lists rows");
        all.extend(page);
        pages += 1;
        match v.get("next_cursor").and_then(Value::as_str) {
            Some(c) => {
                assert_eq!(v["truncated"], true);
                assert!(v["next_step"].as_str().unwrap().contains(c));
                cursor = Some(c.to_owned());
            }
            None => {
                assert_eq!(v["truncated"], false, "the last page leaves nothing out");
                break;
            }
        }
        assert!(pages < 200, "paging ends");
    }
    assert!(pages > 1, "{pages} page(s)");
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_caps_by_default_and_the_cursor_resumes_every_row_once() {
    let (_d, root) = many_callers(300);
    let client = mcp((), &root).await;
    let args = json!({"action": "callers", "function_name": "hub", "limit": 500});

    // What the answer is without a budget.
    let (_, full) = mcp_raw(&client, "nav", &with(&args, "max_chars", json!(10_000_000))).await;
    let full_len = full.chars().count();
    assert!(
        full_len > 40_000,
        "the fixture answer is {full_len} characters"
    );
    let full = payload(&full);
    assert_eq!(full["callers_listed"], 300);
    let every: Vec<String> = names(&full);

    // Without max_chars: capped at 40,000 with the honest shape.
    let (is_error, text) = mcp_raw(&client, "nav", &args).await;
    assert!(!is_error, "{text}");
    assert!(text.chars().count() <= 40_000, "{}", text.chars().count());
    let v = payload(&text);
    assert_envelope(&v);
    let listed = v["callers_listed"].as_u64().unwrap();
    assert!(listed > 0 && listed < 300, "{listed}");
    assert_eq!(
        (v["caller_count"].as_u64(), v["truncated"].as_bool()),
        (Some(300), Some(true))
    );
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("showing {listed} of 300 callers")),
        "{}",
        v["next_step"]
    );
    assert!(
        v["warnings"]
            .to_string()
            .contains("default budget of 40000"),
        "{}",
        v["warnings"]
    );
    let first_cursor = v["next_cursor"].as_str().unwrap().to_owned();

    // Paging with the cursor lists every caller exactly once, in order.
    let paged = page_through(&client, &args, 40_000, 300).await;
    assert_eq!(paged, every);

    // Lists cut by the action's limit page the same way (and `offset` skips rows).
    let small = with(&args, "limit", json!(70));
    assert_eq!(page_through(&client, &small, 40_000, 300).await, every);
    let (_, text) = mcp_raw(&client, "nav", &with(&small, "offset", json!(280))).await;
    let v = payload(&text);
    assert_eq!(names(&v), every[280..].to_vec());
    assert_eq!(
        (v["caller_count"].as_u64(), v["truncated"].as_bool()),
        (Some(300), Some(false))
    );

    // A cursor of another call, a made-up one, or both resume parameters: refused.
    for (bad, says) in [
        (with(&small, "cursor", json!(first_cursor)), "another call"),
        (with(&args, "cursor", json!("r1-5-zz")), "not a cursor"),
        (
            with(
                &with(&args, "cursor", json!(first_cursor)),
                "offset",
                json!(3),
            ),
            "pass only one",
        ),
    ] {
        let (is_error, text) = mcp_raw(&client, "nav", &bad).await;
        let v = payload(&text);
        assert!(is_error, "{text}");
        assert_eq!(v["error_type"], "validation");
        assert!(
            v["error"].as_str().unwrap().contains(says),
            "{}",
            v["error"]
        );
    }

    // The index changes: the earlier cursor is stale, never answered with rows.
    write_caller(&root, "user_new");
    let (code, _, err) = run(&root, &["index", "sync"]);
    assert_eq!(code, 0, "{err}");
    let (is_error, text) =
        mcp_raw(&client, "nav", &with(&args, "cursor", json!(first_cursor))).await;
    let v = payload(&text);
    assert!(is_error, "{text}");
    assert_eq!(v["error_type"], "validation");
    assert!(
        v["error"].as_str().unwrap().contains("stale"),
        "{}",
        v["error"]
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_mcp_output_tokens_and_the_flag_set_the_cap() {
    let (_d, root) = many_callers(120);
    let args = json!({"action": "callers", "function_name": "hub", "limit": 500});
    // 3,000 tokens are 9,000 characters; the flag wins over the variable.
    for (flags, cap) in [(&[][..], 9_000usize), (&["--max-chars", "5000"][..], 5_000)] {
        let client = mcp_env(&root, flags, &[("MAX_MCP_OUTPUT_TOKENS", "3000")]).await;
        let (_, text) = mcp_raw(&client, "nav", &args).await;
        let len = text.chars().count();
        assert!(len <= cap && len > cap / 2, "{flags:?}: {len} vs {cap}");
        let v = payload(&text);
        assert_eq!(
            (v["caller_count"].as_u64(), v["truncated"].as_bool()),
            (Some(120), Some(true))
        );
        assert!(
            v["warnings"]
                .to_string()
                .contains(&format!("default budget of {cap}"))
        );
        assert_eq!(page_through(&client, &args, cap, 120).await.len(), 120);
        client.cancel().await.unwrap();
    }
}

#[test]
fn cli_has_no_default_cap_and_resumes_with_offset_and_cursor() {
    let (_d, root) = many_callers(300);
    let base = [
        "nav",
        "callers",
        "--function-name",
        "hub",
        "--output-format",
        "json",
    ];
    let call = |extra: &[&str]| {
        let words: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, out, err) = run(&root, &words);
        assert_eq!(code, 0, "{err}");
        (
            out.chars().count(),
            serde_json::from_str::<Value>(&out).unwrap(),
        )
    };
    let (len, full) = call(&["--limit", "500"]);
    assert!(len > 40_000, "{len}");
    assert_eq!(full["callers_listed"], 300);
    assert!(full.get("next_cursor").is_none());
    let every = names(&full);

    // Pages of the action's limit, then of a per-call budget, with the cursor.
    for extra in [
        &["--limit", "64"][..],
        &["--limit", "500", "--max-chars", "9000"][..],
    ] {
        let (mut all, mut cursor) = (Vec::new(), None::<String>);
        loop {
            let mut words = extra.to_vec();
            if let Some(c) = &cursor {
                words.extend(["--cursor", c.as_str()]);
            }
            let (len, v) = call(&words);
            if extra.contains(&"--max-chars") {
                assert!(len <= 9_000, "{len}");
            }
            assert_eq!(v["caller_count"], 300);
            all.extend(names(&v));
            match v.get("next_cursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
        }
        assert_eq!(all, every, "{extra:?}");
    }
    let (_, v) = call(&["--limit", "10", "--offset", "100"]);
    assert_eq!(names(&v), every[100..110].to_vec());
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing rows 101-110 of 300 callers")
    );
    let set: BTreeSet<&String> = every.iter().collect();
    assert_eq!(set.len(), 300);
}
