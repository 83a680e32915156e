//! Line-pattern rules for `health patterns` (security, anti-patterns) as data:
//! `patterns.yml`, compiled in and checked by a unit test.

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

const DATA: &str = include_str!("patterns.yml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    category: String,
    severity: String,
    #[serde(default)]
    languages: Vec<String>,
    regex: String,
    #[serde(default)]
    unless: Option<String>,
    #[serde(default)]
    in_comments: bool,
    message: String,
    fix: String,
}

/// One compiled rule.
#[derive(Debug)]
pub struct PatternRule {
    pub id: String,
    pub category: String,
    pub severity: String,
    pub languages: Vec<String>,
    pub regex: Regex,
    pub unless: Option<Regex>,
    pub in_comments: bool,
    pub message: String,
    pub fix: String,
}

fn compile() -> Result<Vec<PatternRule>, String> {
    let raw: Vec<RawRule> = serde_norway::from_str(DATA).map_err(|e| e.to_string())?;
    raw.into_iter()
        .map(|r| {
            if !matches!(r.severity.as_str(), "info" | "warning" | "critical") {
                return Err(format!("{}: bad severity {}", r.id, r.severity));
            }
            if !matches!(r.category.as_str(), "security" | "anti_patterns") {
                return Err(format!("{}: bad category {}", r.id, r.category));
            }
            Ok(PatternRule {
                regex: Regex::new(&r.regex).map_err(|e| format!("{}: {e}", r.id))?,
                unless: r
                    .unless
                    .as_deref()
                    .map(Regex::new)
                    .transpose()
                    .map_err(|e| format!("{}: {e}", r.id))?,
                id: r.id,
                category: r.category,
                severity: r.severity,
                languages: r.languages,
                in_comments: r.in_comments,
                message: r.message,
                fix: r.fix,
            })
        })
        .collect()
}

/// The compiled rules (empty only if the compiled-in data were broken, which the
/// unit test below rules out).
pub fn rules() -> &'static [PatternRule] {
    static RULES: OnceLock<Vec<PatternRule>> = OnceLock::new();
    RULES.get_or_init(|| compile().unwrap_or_default())
}

/// Rank of a severity: info 0, warning 1, critical 2.
pub fn severity_rank(s: &str) -> u8 {
    match s {
        "critical" => 2,
        "warning" => 1,
        _ => 0,
    }
}

/// One match of a rule on a line.
#[derive(Debug, Clone)]
pub struct Finding<'r> {
    pub rule: &'r PatternRule,
    pub line: u32,
    pub snippet: String,
}

fn is_comment_line(line: &str) -> bool {
    let t = line.trim_start();
    ["#", "//", "/*", "*", "--", ";"]
        .iter()
        .any(|m| t.starts_with(m))
}

/// Matches every rule for `language` against each line of `text`.
pub fn scan<'r>(language: &str, text: &str, rules: &'r [PatternRule]) -> Vec<Finding<'r>> {
    let mut out = Vec::new();
    let applicable: Vec<&PatternRule> = rules
        .iter()
        .filter(|r| r.languages.is_empty() || r.languages.iter().any(|l| l == language))
        .collect();
    for (i, line) in text.lines().enumerate() {
        let comment = is_comment_line(line);
        for r in &applicable {
            if comment && !r.in_comments {
                continue;
            }
            if r.regex.is_match(line) && !r.unless.as_ref().is_some_and(|u| u.is_match(line)) {
                out.push(Finding {
                    rule: r,
                    line: i as u32 + 1,
                    snippet: line.trim().chars().take(160).collect(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_compiles() {
        let r = compile().unwrap();
        assert!(r.len() >= 10);
    }

    #[test]
    fn python_rules_fire_on_lines() {
        let src = "import yaml\nx = eval(s)\n# eval(s) in a comment\ny = yaml.load(f)\nz = yaml.load(f, Loader=yaml.SafeLoader)\ntry:\n    pass\nexcept:\n    pass\ndef f(a=[]):\n    pass\n";
        let found: Vec<(&str, u32)> = scan("python", src, rules())
            .iter()
            .map(|f| (f.rule.id.as_str(), f.line))
            .collect();
        assert_eq!(
            found,
            vec![
                ("eval_exec", 2),
                ("yaml_unsafe_load", 4),
                ("bare_except", 8),
                ("mutable_default", 10)
            ]
        );
        assert!(scan("rust", "let x = eval(s);\n", rules()).is_empty());
    }
}
