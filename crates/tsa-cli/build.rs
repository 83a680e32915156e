//! Sets `TSA_GIT_COMMIT` for `tsa --version`: the commit the binary is built from
//! and its date. Reruns only when HEAD moves (a commit, a checkout), never on every
//! build; without git (a crates.io tarball) it reads `.cargo_vcs_info.json`, else
//! says "unknown commit". `TSA_GIT_COMMIT` in the environment wins (packagers).

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}

/// Reruns this script when `path` (a file git names) changes; only files that
/// exist are named, since cargo reruns on every build for a missing one.
fn watch(dir: &Path, git_path: &str) {
    if let Some(p) = git(
        dir,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            git_path,
        ],
    ) && Path::new(&p).is_file()
    {
        println!("cargo:rerun-if-changed={p}");
    }
}

/// The commit recorded by `cargo package` in a published crate.
fn vcs_info(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let at = text.find("\"sha1\"")?;
    let rest = &text[at + 6..];
    let start = rest.find('"')? + 1;
    let len = rest[start..].find('"')?;
    Some(rest[start..start + len.min(12)].to_owned())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TSA_GIT_COMMIT");
    let dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let described = std::env::var("TSA_GIT_COMMIT").ok().or_else(|| {
        let commit = git(&dir, &["rev-parse", "--short=12", "HEAD"])?;
        watch(&dir, "HEAD");
        if let Some(branch) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
            watch(&dir, &branch);
        }
        watch(&dir, "packed-refs");
        let date = git(&dir, &["log", "-1", "--format=%cs", "HEAD"]);
        Some(match date {
            Some(d) => format!("{commit} {d}"),
            None => commit,
        })
    });
    let described = described
        .or_else(|| vcs_info(&dir))
        .unwrap_or_else(|| "unknown commit".to_owned());
    println!("cargo:rustc-env=TSA_GIT_COMMIT={described}");
}
