//! The command line as a new user meets it: global flags anywhere, help per action
//! generated from the actions' `Args`, unknown flags named, completions, --version.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::{assert_envelope, bin, project};

/// Runs `tsa <args>` from `cwd`, with no project variable: (exit code, stdout, stderr).
fn tsa(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env_remove("TREE_SITTER_PROJECT_ROOT")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The help entry of `flag`: its line and the description lines under it (clap puts
/// long descriptions on the next lines).
fn entry(help: &str, flag: &str) -> String {
    let mut lines = help
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(flag));
    let mut out = lines
        .next()
        .unwrap_or_else(|| panic!("{flag}: {help}"))
        .to_owned();
    for l in lines {
        let t = l.trim_start();
        if t.starts_with('-') || t.is_empty() || !l.starts_with(' ') {
            break;
        }
        out.push(' ');
        out.push_str(t);
    }
    out
}

#[test]
fn global_flags_work_before_and_after_the_tool_and_the_action() {
    let p = project("python");
    let root = p.root.to_str().unwrap();
    // Run from the folder above the project, so only --project-root can find it.
    let cwd = p.root.parent().unwrap();
    let call = ["--function-name", "build", "--file-path", "app/core.py"];
    let joined = format!("--project-root={root}");
    let placements: Vec<Vec<&str>> = vec![
        [&["--project-root", root, "nav", "callers"][..], &call].concat(),
        [&["nav", "--project-root", root, "callers"][..], &call].concat(),
        [&["nav", "callers", "--project-root", root][..], &call].concat(),
        [&["nav", "callers"][..], &call, &["--project-root", root]].concat(),
        [&["nav", "callers"][..], &call, &[joined.as_str()]].concat(),
    ];
    for args in &placements {
        let (code, out, err) = tsa(cwd, args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_envelope(&v);
        assert_eq!(v["caller_count"], 8, "{args:?}");
    }
    // --format too, anywhere; TOON answers decode to the JSON ones.
    for args in [
        [
            &["--format", "toon", "nav", "callers", "--project-root", root][..],
            &call,
        ]
        .concat(),
        [
            &["nav", "--format", "toon", "callers", "--project-root", root][..],
            &call,
        ]
        .concat(),
        [
            &["nav", "callers", "--project-root", root][..],
            &call,
            &["--format", "toon"],
        ]
        .concat(),
    ] {
        let (code, out, err) = tsa(cwd, &args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        let v = tsa_format::from_toon(out.trim_end()).unwrap();
        assert_eq!(v["caller_count"], 8, "{args:?}");
    }
    // The issue's own command, and the built-in commands.
    let (code, out, _) = tsa(cwd, &["index", "full", "--project-root", root]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = tsa(cwd, &["skills", "install", "--project-root", root]);
    assert_eq!(code, 0, "{out}");
    assert!(p.root.join(".claude/skills/find-symbol/SKILL.md").is_file());
    // A flag of the action typed in its MCP spelling works too.
    let (code, out, _) = tsa(
        cwd,
        &[
            "nav",
            "callers",
            "--function_name",
            "build",
            "--project-root",
            root,
        ],
    );
    assert_eq!(code, 0, "{out}");
}

#[test]
fn an_unknown_flag_names_the_closest_one_and_the_actions_valid_ones() {
    let p = project("python");
    let root = p.root.to_str().unwrap();
    let cwd = p.root.parent().unwrap();
    let (code, out, _) = tsa(
        cwd,
        &[
            "nav",
            "callers",
            "--functon-name",
            "build",
            "--project-root",
            root,
        ],
    );
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_envelope(&v);
    assert_eq!(v["error_type"], "validation");
    assert_eq!(v["suggestion"], "--function-name");
    let err = v["error"].as_str().unwrap();
    assert!(
        err.starts_with(
            "unknown flag '--functon-name' for `tsa nav callers` — did you mean '--function-name'?"
        ),
        "{err}"
    );
    let flags: Vec<&str> = v["valid_flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    for f in [
        "--function-name",
        "--file-path",
        "--limit",
        "--scope",
        "--depth",
        "--max-chars",
        "--project-root",
        "--format",
    ] {
        assert!(flags.contains(&f), "{f}: {flags:?}");
    }
    // Only this action's flags: none of the other nav actions'.
    for f in ["--max-depth", "--source", "--target", "--symbol-name"] {
        assert!(!flags.contains(&f), "{f}: {flags:?}");
    }
    assert!(
        v["hint"]
            .as_str()
            .unwrap()
            .contains("tsa nav callers --help")
    );

    // Far from every flag: no guess, still the valid ones.
    let (code, out, _) = tsa(
        cwd,
        &[
            "nav",
            "callers",
            "--function-name",
            "build",
            "--zzzzqqq",
            "--project-root",
            root,
        ],
    );
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["suggestion"].is_null(), "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("valid flags: --function-name")
    );

    // A word where a flag belongs; a flag before the action.
    let (code, out, _) = tsa(cwd, &["nav", "callers", "build", "--project-root", root]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("unexpected argument 'build'"),
        "{v}"
    );
    let (code, out, _) = tsa(
        cwd,
        &["nav", "--limit", "3", "callers", "--project-root", root],
    );
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("flags go after the action"),
        "{v}"
    );
    // Asked for in TOON, the refusal is TOON too.
    let (code, out, _) = tsa(cwd, &["nav", "callers", "--limt", "3", "--format", "toon"]);
    assert_eq!(code, 1);
    let v = tsa_format::from_toon(out.trim_end()).unwrap();
    assert_eq!(v["error_type"], "validation");
}

#[test]
fn a_tool_lists_its_actions_one_line_each() {
    let p = project("python");
    let (code, out, _) = tsa(&p.root, &["nav", "--help"]);
    assert_eq!(code, 0);
    for a in tsa_tools::action_descriptions("nav") {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{} ", a.name)))
            .unwrap_or_else(|| panic!("{}: {out}", a.name));
        assert!(line.contains(a.summary), "{line}");
    }
    // No action's parameters at this level.
    assert!(!out.contains("--function-name"), "{out}");
}

#[test]
fn an_actions_help_shows_only_its_parameters_with_their_types() {
    let p = project("python");
    let (code, help, _) = tsa(&p.root, &["nav", "callers", "--help"]);
    assert_eq!(code, 0);
    let (_, same, _) = tsa(&p.root, &["help", "nav", "callers"]);
    assert_eq!(help, same);
    let (_, again, _) = tsa(
        &p.root,
        &["nav", "callers", "--project-root", ".", "--help"],
    );
    assert_eq!(help, again);
    let line = |flag: &str| entry(&help, flag);
    assert!(help.starts_with("who calls a function"), "{help}");
    assert!(
        help.contains("Usage: tsa nav callers --function-name <TEXT> [OPTIONS]"),
        "{help}"
    );
    let name = line("--function-name <TEXT>");
    assert!(
        name.contains("[required]") && name.contains("[alias: --symbol]"),
        "{name}"
    );
    assert!(line("--limit <N>").contains("Most callers to list"));
    assert!(line("--depth <N>").contains("[range: 1..=20]"));
    assert!(line("--scope <SCOPE>").contains("[possible values: point, graph]"));
    assert!(line("--file-path <PATH>").contains("defines the function"));
    assert!(line("--max-chars <N>").contains("Character budget"));
    assert!(line("--format <FORMAT>").contains("json"));
    assert!(
        help.contains("Example:\n  tsa nav callers --function-name main --limit 5"),
        "{help}"
    );
    // The merged help of every nav action is gone.
    for other in ["--max-depth", "--source", "Most callees"] {
        assert!(!help.contains(other), "{other}: {help}");
    }
    // A switch, a list, a default.
    let (_, help, _) = tsa(&p.root, &["search", "content", "--help"]);
    let word = entry(&help, "--word ");
    assert!(
        word.contains("--word [<true|false>]") && word.contains("[default: false]"),
        "{word}"
    );
    let roots = entry(&help, "--roots ");
    assert!(
        roots.contains("--roots <PATH>") && roots.contains("[list:"),
        "{roots}"
    );
}

#[test]
fn every_actions_flags_are_its_args_schema() {
    let p = project("python");
    for facade in tsa_tools::FACADES
        .iter()
        .map(|f| f.name)
        .chain(["set_project_path"])
    {
        for a in tsa_tools::action_descriptions(facade) {
            let args: Vec<&str> = if a.facade == a.name {
                vec![a.facade, "--help"]
            } else {
                vec![a.facade, a.name, "--help"]
            };
            let (code, help, err) = tsa(&p.root, &args);
            assert_eq!(code, 0, "{args:?}: {err}");
            let none = serde_json::Map::new();
            let props = a
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&none);
            let listed = help
                .lines()
                .filter(|l| l.trim_start().starts_with("--"))
                .count();
            // Its parameters, the five answer options, the two global flags.
            assert_eq!(listed, props.len() + 7, "{args:?}:\n{help}");
            for key in props.keys() {
                let flag = key.replace('_', "-");
                assert!(
                    help.contains(&format!("--{flag} ")) || help.contains(&format!("-{flag} ")),
                    "{args:?} {key}:\n{help}"
                );
            }
        }
    }
}

#[test]
fn completions_produce_a_script_that_knows_actions_and_flags() {
    let p = project("python");
    for shell in ["bash", "zsh", "fish"] {
        let (code, out, err) = tsa(&p.root, &["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["nav", "callers", "function-name", "init", "project-root"] {
            assert!(out.contains(word), "{shell} lacks {word}");
        }
        let checker = match shell {
            "bash" => Some(("bash", vec!["-n"])),
            "zsh" => Some(("zsh", vec!["-n"])),
            _ => Some(("fish", vec!["--no-execute"])),
        };
        let script = p.root.join(format!("tsa.{shell}"));
        std::fs::write(&script, &out).unwrap();
        if let Some((cmd, flags)) = checker
            && let Ok(o) = Command::new(cmd).args(&flags).arg(&script).output()
        {
            assert!(
                o.status.success(),
                "{shell} -n: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    let (code, _, err) = tsa(&p.root, &["completions", "tcsh"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'tcsh'"), "{err}");
    // Bash completes an action's flags when asked as a shell would.
    let script = p.root.join("tsa.bash");
    if Command::new("bash").arg("--version").output().is_ok() {
        let probe = format!(
            "source {}; COMP_WORDS=(tsa nav callers --fun); COMP_CWORD=3; _tsa tsa --fun callers; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let o = Command::new("bash").arg("-c").arg(probe).output().unwrap();
        let got = String::from_utf8_lossy(&o.stdout);
        assert!(got.lines().any(|l| l == "--function-name"), "{got}");
    }
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let p = project("python");
    let (code, out, _) = tsa(&p.root, &["--version"]);
    assert_eq!(code, 0);
    let line = out.trim_end();
    let rest = line
        .strip_prefix("tsa ")
        .unwrap_or_else(|| panic!("{line}"));
    let (version, built) = rest.split_once(' ').unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let built = built
        .strip_prefix('(')
        .and_then(|b| b.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line}"));
    let git = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short=12",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match git {
        Some(head) => {
            let (commit, date) = built.split_once(' ').unwrap_or_else(|| panic!("{line}"));
            assert_eq!(commit, head, "{line}");
            assert!(
                date.len() == 10 && date.chars().filter(|c| *c == '-').count() == 2,
                "{line}"
            );
        }
        None => assert!(built == "unknown commit" || built.len() >= 7, "{line}"),
    }
    let (_, short, _) = tsa(&p.root, &["-V"]);
    assert_eq!(short, out);
}
