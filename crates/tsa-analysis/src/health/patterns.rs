//! Line-pattern rules for `health patterns` (security, anti-patterns) as data:
//! `patterns.yml`, compiled in and checked by a unit test.

use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

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

/// Which findings of a file to keep.
#[derive(Clone, Copy, Debug)]
pub struct FindingFilter {
    pub smells: bool,
    pub security: bool,
    pub anti_patterns: bool,
    /// Lowest severity rank kept (0 info, 1 warning, 2 critical).
    pub min_rank: u8,
}

/// A smell or a line-rule finding of a file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileFinding {
    /// `smells`, `security` or `anti_patterns`.
    pub category: String,
    pub rule: String,
    pub severity: String,
    pub line: u32,
    pub message: String,
    pub fix: String,
    /// The matching line (line rules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    #[serde(skip)]
    pub rank: u8,
}

/// The smells (health smell rules) and line-rule findings of file `rel` with text
/// `text`, most severe first, then by line.
pub fn file_findings(
    root: &std::path::Path,
    rel: &str,
    text: &str,
    f: FindingFilter,
) -> Result<Vec<FileFinding>, crate::error::ToolError> {
    let lang = tsa_lang::Language::from_path(rel).map_or("", |l| l.name());
    let mut rows: Vec<FileFinding> = Vec::new();
    if f.smells {
        let cfg = crate::health::HealthConfig::load(root)?;
        for s in crate::health::facts_of(rel, text, &cfg).smells {
            let rank = severity_rank(&s.severity);
            if rank >= f.min_rank {
                rows.push(FileFinding {
                    category: "smells".to_owned(),
                    rule: s.kind,
                    severity: s.severity,
                    line: s.line,
                    message: s.message,
                    fix: s.fix,
                    snippet: None,
                    rank,
                });
            }
        }
    }
    for x in scan(lang, text, rules()) {
        let wanted = if x.rule.category == "security" {
            f.security
        } else {
            f.anti_patterns
        };
        let rank = severity_rank(&x.rule.severity);
        if wanted && rank >= f.min_rank {
            rows.push(FileFinding {
                category: x.rule.category.clone(),
                rule: x.rule.id.clone(),
                severity: x.rule.severity.clone(),
                line: x.line,
                message: x.rule.message.clone(),
                fix: x.rule.fix.clone(),
                snippet: Some(x.snippet),
                rank,
            });
        }
    }
    rows.sort_by(|a, b| b.rank.cmp(&a.rank).then(a.line.cmp(&b.line)));
    Ok(rows)
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

    #[test]
    fn file_findings_follow_the_filter_and_come_most_severe_first() {
        let dir = tempfile::tempdir().unwrap();
        let long = "x".repeat(300);
        let text = format!("import os\n\n\ndef f(a):\n    return eval(a)  # {long}\n");
        std::fs::write(dir.path().join("m.py"), &text).unwrap();
        let all = FindingFilter {
            smells: true,
            security: true,
            anti_patterns: true,
            min_rank: 0,
        };
        let rows = file_findings(dir.path(), "m.py", &text, all).unwrap();
        assert!(!rows.is_empty());
        assert!(rows.windows(2).all(|w| w[0].rank >= w[1].rank));
        let none = FindingFilter {
            smells: false,
            security: false,
            anti_patterns: false,
            min_rank: 0,
        };
        assert!(
            file_findings(dir.path(), "m.py", &text, none)
                .unwrap()
                .is_empty()
        );
        let smells = FindingFilter {
            smells: true,
            security: false,
            anti_patterns: false,
            min_rank: 0,
        };
        let only = file_findings(dir.path(), "m.py", &text, smells).unwrap();
        assert!(
            only.iter()
                .all(|r| r.category == "smells" && r.snippet.is_none())
        );
    }
}
