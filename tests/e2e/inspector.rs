//! The official MCP Inspector CLI (`@modelcontextprotocol/inspector`, pinned in
//! `scripts/mcp-inspector.sh`, which installs it into a cache folder) drives
//! `tsa mcp` exactly as a user would: `npx @modelcontextprotocol/inspector --cli
//! tsa mcp --project-root ... --method tools/call --tool-name nav --tool-arg
//! action=callers --tool-arg function_name=build --tool-arg limit=2`. That version
//! sends every value as a string (`limit` arrives as "2", a list as one string,
//! a boolean as "true"), and each call gets a real answer. Without node or the
//! registry the test prints SKIP with the reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{assert_envelope, bin, project};

/// The folder the pinned Inspector is installed in, or why it is not.
fn inspector() -> Result<PathBuf, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp-inspector.sh");
    let out = Command::new("bash")
        .arg(script)
        .output()
        .map_err(|e| format!("cannot run bash: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// `npx @modelcontextprotocol/inspector --cli tsa mcp --project-root <root>
/// --method tools/call --tool-name <tool> <args...>`: (isError, the answer).
fn call(dir: &Path, root: &Path, tool: &str, args: &[&str]) -> (bool, Value) {
    let out = Command::new("npx")
        .current_dir(dir)
        .args([
            "--offline",
            "@modelcontextprotocol/inspector",
            "--cli",
            bin(),
        ])
        .args(["mcp", "--project-root"])
        .arg(root)
        .args(["--method", "tools/call", "--tool-name", tool])
        .args(args)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reply: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "inspector printed no JSON ({e}), exit {:?}:\n{stdout}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let text = reply["content"][0]["text"].as_str().unwrap_or_default();
    let answer: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {reply}"));
    (reply["isError"] == true, answer)
}

#[test]
fn the_mcp_inspector_cli_gets_real_answers() {
    let dir = match inspector() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("SKIP: the MCP Inspector could not be installed: {why}");
            return;
        }
    };
    let p = project("python");

    // The command of the issue, as typed (TOON, the MCP default).
    let (is_error, v) = call(
        &dir,
        &p.root,
        "nav",
        &[
            "--tool-arg",
            "action=callers",
            "--tool-arg",
            "function_name=build",
            "--tool-arg",
            "limit=2",
        ],
    );
    assert!(!is_error, "{v}");
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["callers_listed"], 2, "{v}");
    assert!(
        v["toon_content"].as_str().unwrap().contains("callers[2]"),
        "{v}"
    );

    // A list given as one item, a boolean and an integer as key=value pairs.
    let (is_error, v) = call(
        &dir,
        &p.root,
        "nav",
        &[
            "--tool-arg",
            "action=impact",
            "--tool-arg",
            "mode=blast_radius",
            "--tool-arg",
            "function_names=build",
            "--tool-arg",
            "include_tests=true",
            "--tool-arg",
            "depth=2",
            "--tool-arg",
            "output_format=json",
        ],
    );
    assert!(!is_error, "{v}");
    assert_eq!(v["success"], true, "{v}");

    // What is no integer stays an error that says so.
    let (is_error, v) = call(
        &dir,
        &p.root,
        "nav",
        &[
            "--tool-arg",
            "action=callers",
            "--tool-arg",
            "function_name=build",
            "--tool-arg",
            "limit=two",
            "--tool-arg",
            "output_format=json",
        ],
    );
    assert!(is_error, "{v}");
    assert_envelope(&v);
    assert_eq!(
        v["error"],
        "parameter 'limit' expects an integer; got the string \"two\""
    );
}
