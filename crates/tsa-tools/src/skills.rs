//! Agent skills: short procedures (SKILL.md, with the subset of tools each uses)
//! for the main workflows. Built into the binary; `project action=skills` lists
//! them (and any a project keeps under its own skills folder); `tsa skills install`
//! writes them into a project.

use std::path::Path;

/// A skill shipped with tsa: (folder name, SKILL.md text).
pub const BUILTIN: [(&str, &str); 6] = [
    (
        "find-symbol",
        include_str!("../../../skills/find-symbol/SKILL.md"),
    ),
    (
        "trace-call-chain",
        include_str!("../../../skills/trace-call-chain/SKILL.md"),
    ),
    (
        "safe-edit",
        include_str!("../../../skills/safe-edit/SKILL.md"),
    ),
    (
        "review-pr",
        include_str!("../../../skills/review-pr/SKILL.md"),
    ),
    (
        "score-health",
        include_str!("../../../skills/score-health/SKILL.md"),
    ),
    (
        "find-dead-code",
        include_str!("../../../skills/find-dead-code/SKILL.md"),
    ),
];

/// Where `tsa skills install` writes by default (project-relative).
pub const DEFAULT_DIR: &str = ".claude/skills";

/// The front matter of a SKILL.md.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
    /// Numbered steps of the procedure.
    pub steps: usize,
}

/// Reads the `---` front matter (`name`, `description`, `tools: [a, b]`).
pub fn parse(text: &str) -> Option<Skill> {
    let body = text.strip_prefix("---\n")?;
    let end = body.find("\n---")?;
    let mut skill = Skill {
        name: String::new(),
        description: String::new(),
        tools: Vec::new(),
        steps: 0,
    };
    for line in body[..end].lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = v.trim();
        match k.trim() {
            "name" => skill.name = v.to_owned(),
            "description" => skill.description = v.to_owned(),
            "tools" => {
                skill.tools = v
                    .trim_matches(['[', ']'])
                    .split(',')
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty())
                    .collect();
            }
            _ => {}
        }
    }
    skill.steps = body[end..]
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .count();
    (!skill.name.is_empty()).then_some(skill)
}

/// The skills a project keeps in `dir` (`<dir>/<name>/SKILL.md`), sorted by name.
/// A skill folder or file linked from outside `root` is skipped, never read.
pub fn in_dir(root: &Path, dir: &Path) -> Vec<(String, Skill)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let Ok(path) = std::fs::canonicalize(e.path().join("SKILL.md")) else {
            continue;
        };
        if !path.starts_with(root) {
            continue;
        }
        if let Some(skill) = std::fs::read_to_string(&path)
            .ok()
            .as_deref()
            .and_then(parse)
        {
            out.push((e.file_name().to_string_lossy().into_owned(), skill));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_skill_parses_and_names_real_tools() {
        let facades = [
            "search",
            "nav",
            "structure",
            "health",
            "edit",
            "project",
            "index",
            "viz",
        ];
        for (dir, text) in BUILTIN {
            let s = parse(text).unwrap_or_else(|| panic!("{dir}: no front matter"));
            assert_eq!(s.name, dir);
            assert!(!s.description.is_empty());
            assert!(!s.tools.is_empty() && s.tools.iter().all(|t| facades.contains(&t.as_str())));
            assert!(s.steps >= 3, "{dir}: a short procedure");
            // Every tool the procedure calls is one it declares.
            for f in facades {
                if text.contains(&format!("`{f} action=")) {
                    assert!(
                        s.tools.iter().any(|t| t == f),
                        "{dir} uses {f} without declaring it"
                    );
                }
            }
        }
    }
}
