//! Git history actions on repositories created in the test with `git2`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{assert_envelope, cli_words, json as cli_json, mcp, mcp_call};

/// A repository whose history is known: 4 commits change a.py with b.py, one a.py
/// with c.py, three d.py alone, one b.py alone (9 commits).
pub fn repo_with_history() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("proj");
    std::fs::create_dir_all(&root).unwrap();
    let repo = git2::Repository::init(&root).unwrap();
    let mut n = 0;
    let mut commit = |files: &[&str]| {
        n += 1;
        let bodies: Vec<(&str, String)> = files
            .iter()
            .map(|f| match *f {
                "a.py" => (*f, format!("def alpha():\n    return {n}\n")),
                other => (other, format!("# {other} revision {n}\nVALUE = {n}\n")),
            })
            .collect();
        let refs: Vec<(&str, &str)> = bodies.iter().map(|(f, b)| (*f, b.as_str())).collect();
        commit_files(&repo, &root, &refs, &format!("change {n}"));
    };
    for _ in 0..4 {
        commit(&["a.py", "b.py"]);
    }
    commit(&["a.py", "c.py"]);
    for _ in 0..3 {
        commit(&["d.py"]);
    }
    commit(&["b.py"]);
    (dir, root)
}

fn cli(root: &Path, args: Value) -> Value {
    let words = cli_words("nav", &args);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (code, v) = cli_json(root, &words);
    assert_envelope(&v);
    assert_eq!(code != 0, v["success"] == false);
    v
}

#[test]
fn co_change_ranks_partners_by_lift_with_honest_truncation() {
    let (_d, root) = repo_with_history();
    let v = cli(&root, json!({"action": "co_change", "file_path": "a.py"}));
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["commits_analyzed"], 5);
    assert_eq!(v["commits_read"], 9);
    assert_eq!(
        v["co_changed_files"],
        json!([{"file": "b.py", "shared_commits": 4, "lift": 1.44}])
    );
    assert_eq!(v["candidates_below_threshold"], 1, "c.py shares 1 commit");
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .contains("too small a sample")
    );

    // min_shared 1: c.py (lift 9/5 = 1.8) before b.py (1.44); max_results 1 cuts honestly.
    let v = cli(
        &root,
        json!({"action": "co_change", "file_path": "a.py", "min_shared": 1, "max_results": 1}),
    );
    assert_eq!(v["co_changed_count"], 2);
    assert_eq!(v["co_changed_listed"], 1);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["co_changed_files"][0]["file"], "c.py");
    assert_eq!(v["co_changed_files"][0]["lift"], 1.8);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 1 of 2 co-changed files")
    );

    // A symbol stands for its defining file.
    let v = cli(&root, json!({"action": "co_change", "symbol": "alpha"}));
    assert_eq!(v["target"], "a.py");
    assert_eq!(v["co_changed_files"][0]["file"], "b.py");

    // A missing symbol is NOT_FOUND with suggestions, never another file.
    let v = cli(&root, json!({"action": "co_change", "symbol": "alpah"}));
    assert_eq!(v["verdict"], "NOT_FOUND");
    assert!(v["suggestions"].to_string().contains("alpha"), "{v}");

    // Bad input.
    let v = cli(&root, json!({"action": "co_change"}));
    assert_eq!(v["error_type"], "validation");
    let v = cli(
        &root,
        json!({"action": "co_change", "file_path": "../outside.py"}),
    );
    assert_eq!(v["success"], false);
}

#[test]
fn co_change_outside_git_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("a.py"), "def alpha():\n    return 1\n").unwrap();
    let v = cli(&root, json!({"action": "co_change", "file_path": "a.py"}));
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["git_available"], false);
    assert_eq!(v["co_changed_files"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn co_change_over_mcp() {
    let (_d, root) = repo_with_history();
    let client = mcp((), &root).await;
    let (err, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "co_change", "file_path": "a.py", "min_shared": 1, "max_results": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["co_changed_count"], 2);
    assert_eq!(v["truncated"], true);
    let (err, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "co_change", "symbol": "nothing_here", "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["verdict"], "NOT_FOUND");
    client.cancel().await.unwrap();
}

/// Writes `files` and commits them on HEAD.
fn commit_files(repo: &git2::Repository, root: &Path, files: &[(&str, &str)], msg: &str) {
    let sig = git2::Signature::now("tsa test", "tsa@example.com").unwrap();
    let mut index = repo.index().unwrap();
    for (f, body) in files {
        std::fs::write(root.join(f), body).unwrap();
        index.add_path(Path::new(f)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &parents)
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lineage_joins_overrides_and_the_commits_behind_the_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("zoo");
    std::fs::create_dir_all(&root).unwrap();
    let repo = git2::Repository::init(&root).unwrap();
    let base = "class Animal:\n    def speak(self):\n        return ''\n";
    let dog_v1 = "from base import Animal\n\n\nclass Dog(Animal):\n    def speak(self):\n        return 'woof'\n";
    let dog_v2 = "from base import Animal\n\n\nclass Dog(Animal):\n    def speak(self):\n        return 'WOOF'\n";
    commit_files(
        &repo,
        &root,
        &[("base.py", base), ("dog.py", dog_v1)],
        "animals",
    );
    commit_files(&repo, &root, &[("dog.py", dog_v2)], "louder dog");

    let v = cli(&root, json!({"action": "lineage", "symbol": "Dog.speak"}));
    assert_eq!(v["verdict"], "INFO", "{v}");
    assert_eq!(v["definition"]["qualified_name"], "Dog.speak");
    assert_eq!(
        v["hierarchy"]["overrides"][0]["qualified_name"],
        "Animal.speak"
    );
    assert_eq!(v["commit_count"], 2);
    assert_eq!(v["commits"][0]["summary"], "louder dog");
    assert_eq!(v["commits"][0]["lines"], 1);
    assert_eq!(v["commits"][1]["summary"], "animals");
    assert_eq!(v["git_available"], true);

    let v = cli(
        &root,
        json!({"action": "lineage", "symbol": "Animal.speak"}),
    );
    assert_eq!(
        v["hierarchy"]["overridden_by"][0]["qualified_name"],
        "Dog.speak"
    );

    let v = cli(
        &root,
        json!({"action": "lineage", "symbol": "Dog.speak", "max_commits": 1}),
    );
    assert_eq!(v["commits_listed"], 1);
    assert_eq!(v["truncated"], true);
    assert!(
        v["next_step"]
            .as_str()
            .unwrap()
            .starts_with("showing 1 of 2 commits")
    );

    let v = cli(&root, json!({"action": "lineage", "symbol": "Cat.speak"}));
    assert_eq!(v["verdict"], "NOT_FOUND");

    let client = mcp((), &root).await;
    let (err, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "lineage", "symbol": "Dog.speak", "max_commits": 1, "output_format": "json"}),
    )
    .await;
    assert!(!err);
    assert_eq!(v["commit_count"], 2);
    let (_, v) = mcp_call(
        &client,
        "nav",
        json!({"action": "lineage", "symbol": "Nope.speak", "output_format": "json"}),
    )
    .await;
    assert_eq!(v["verdict"], "NOT_FOUND");
    client.cancel().await.unwrap();
}
