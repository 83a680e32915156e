//! Architectural constraints (analyses §12): `forbid` rules read from
//! `architectural-constraints.yml` at the project root (else
//! `.tree-sitter-analyzer/constraints.yml`), evaluated against the resolved
//! cross-file call edges and the resolved file imports of the index. The last
//! evaluation is persisted in `.tsa/constraint_violations.json` for other actions.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use serde_norway::Value as Yaml;
use tsa_index::Index;

use crate::ToolError;

/// The constraint files, first found wins.
pub const FILES: [&str; 2] = [
    "architectural-constraints.yml",
    ".tree-sitter-analyzer/constraints.yml",
];

/// Where the last evaluation is kept (inside the index folder).
/// The persisted violations, inside `.tsa/`.
const STORE: &str = "constraint_violations.json";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warn,
    Error,
}

impl Severity {
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" => Some(Severity::Info),
            "warn" | "warning" => Some(Severity::Warn),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warn => "warn",
            Severity::Error => "error",
        }
    }
}

/// One `forbid` rule.
pub struct Rule {
    pub id: String,
    pub severity: Severity,
    pub from: String,
    pub to: String,
    pub reason: String,
    from_m: GlobMatcher,
    to_m: GlobMatcher,
    exceptions: GlobSet,
}

/// The rules of a project, with a warning per skipped rule.
#[derive(Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    pub warnings: Vec<String>,
    /// The constraint file read (None when there is none).
    pub file: Option<String>,
}

/// One violation: `caller_file` calls or imports `callee_file` against a rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    pub rule_id: String,
    pub severity: Severity,
    /// `call` or `import`.
    pub via: String,
    pub caller_file: String,
    pub caller_name: String,
    pub caller_line: u32,
    pub callee_name: String,
    pub callee_file: String,
    pub reason: String,
    pub detected_at: u64,
}

impl Violation {
    pub fn to_json(&self) -> Value {
        json!({
            "rule_id": self.rule_id,
            "severity": self.severity.as_str(),
            "via": self.via,
            "caller_file": self.caller_file,
            "caller_name": self.caller_name,
            "caller_line": self.caller_line,
            "callee_name": self.callee_name,
            "callee_file": self.callee_file,
            "reason": self.reason,
            "detected_at": self.detected_at,
        })
    }
}

/// A glob over project paths: `**` spans components, `*` stays within one.
pub fn glob(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern.trim_start_matches("./"))
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with(':'))
        })
        .map_or(1, |i| i + 1)
}

fn parse_error(line: usize, msg: impl std::fmt::Display) -> ToolError {
    ToolError::Validation(format!("constraint parse error: line {line}: {msg}"))
}

/// Parses a constraint file. Structural problems are errors (with a line number);
/// a bad rule is skipped with a warning.
pub fn parse(text: &str) -> Result<RuleSet, ToolError> {
    let doc: Yaml = serde_norway::from_str(text).map_err(|e| {
        let line = e.location().map_or(1, |l| l.line());
        parse_error(line, e)
    })?;
    let mut set = RuleSet::default();
    let top = match doc {
        Yaml::Null => return Ok(set),
        Yaml::Mapping(m) => m,
        _ => return Err(parse_error(1, "top level must be a mapping")),
    };
    let mut constraints = None;
    for (k, v) in top {
        let key = k.as_str().unwrap_or("").to_owned();
        match key.as_str() {
            "version" => {}
            "constraints" => constraints = Some(v),
            other => {
                return Err(parse_error(
                    line_of_key(text, other),
                    format!("unknown top-level key '{other}' (allowed: version, constraints)"),
                ));
            }
        }
    }
    let items = match constraints {
        None | Some(Yaml::Null) => return Ok(set),
        Some(Yaml::Sequence(s)) => s,
        Some(_) => {
            return Err(parse_error(
                line_of_key(text, "constraints"),
                "'constraints' must be a list",
            ));
        }
    };
    const KEYS: [&str; 7] = [
        "id",
        "severity",
        "rule",
        "from",
        "to",
        "reason",
        "exceptions",
    ];
    for (n, item) in items.into_iter().enumerate() {
        let label = format!("constraint #{}", n + 1);
        let Yaml::Mapping(m) = item else {
            set.warnings.push(format!("{label} skipped: not a mapping"));
            continue;
        };
        let get = |k: &str| m.get(k).and_then(Yaml::as_str).map(str::to_owned);
        let id = get("id").unwrap_or_else(|| label.clone());
        let unknown: Vec<String> = m
            .keys()
            .filter_map(|k| k.as_str())
            .filter(|k| !KEYS.contains(k))
            .map(str::to_owned)
            .collect();
        if !unknown.is_empty() {
            set.warnings.push(format!(
                "constraint '{id}' skipped: unknown key(s) {}",
                unknown.join(", ")
            ));
            continue;
        }
        let missing: Vec<&str> = ["id", "severity", "rule", "from", "to", "reason"]
            .into_iter()
            .filter(|k| get(k).is_none_or(|v| v.trim().is_empty()))
            .collect();
        if !missing.is_empty() {
            set.warnings.push(format!(
                "constraint '{id}' skipped: missing required key(s) {}",
                missing.join(", ")
            ));
            continue;
        }
        let sev_s = get("severity").unwrap_or_default();
        let Some(severity) = Severity::parse(&sev_s) else {
            set.warnings.push(format!(
                "constraint '{id}' skipped: severity '{sev_s}' is not error|warn|info"
            ));
            continue;
        };
        let rule = get("rule").unwrap_or_default();
        if rule != "forbid" {
            set.warnings.push(format!(
                "constraint '{id}' skipped: rule '{rule}' is not supported (only 'forbid')"
            ));
            continue;
        }
        let (from, to) = (
            get("from").unwrap_or_default(),
            get("to").unwrap_or_default(),
        );
        let exc: Vec<String> = match m.get("exceptions") {
            None | Some(Yaml::Null) => Vec::new(),
            Some(Yaml::Sequence(s)) if s.iter().all(|v| v.as_str().is_some()) => s
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            Some(Yaml::String(s)) => vec![s.clone()],
            Some(_) => {
                set.warnings.push(format!(
                    "constraint '{id}' skipped: exceptions must be a list of globs"
                ));
                continue;
            }
        };
        let built = (|| -> Result<Rule, String> {
            let mut ex = GlobSetBuilder::new();
            for e in &exc {
                ex.add(
                    GlobBuilder::new(e.trim_start_matches("./"))
                        .literal_separator(true)
                        .build()
                        .or_else(|_| Glob::new(e))
                        .map_err(|e| e.to_string())?,
                );
            }
            Ok(Rule {
                id: id.clone(),
                severity,
                from_m: glob(&from)?,
                to_m: glob(&to)?,
                exceptions: ex.build().map_err(|e| e.to_string())?,
                reason: get("reason").unwrap_or_default(),
                from: from.clone(),
                to: to.clone(),
            })
        })();
        match built {
            Ok(r) => set.rules.push(r),
            Err(e) => set
                .warnings
                .push(format!("constraint '{id}' skipped: bad glob: {e}")),
        }
    }
    Ok(set)
}

/// Reads the project's constraint file (none -> no rules).
pub fn load(root: &Path) -> Result<RuleSet, ToolError> {
    for f in FILES {
        // A constraint file linked from outside the project reads as absent.
        let Some(p) = crate::security::inside_root(root, f) else {
            continue;
        };
        if p.is_file() {
            let text = std::fs::read_to_string(&p).map_err(|e| {
                ToolError::Validation(format!(
                    "constraint parse error: line 1: cannot read {f}: {e}"
                ))
            })?;
            let mut set = parse(&text)?;
            set.file = Some(f.to_owned());
            return Ok(set);
        }
    }
    Ok(RuleSet::default())
}

/// The result of one evaluation.
pub struct Evaluation {
    pub violations: Vec<Violation>,
    pub evaluated_edge_count: usize,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl RuleSet {
    /// The first rule a (caller file, callee file) pair breaks.
    fn broken(&self, from: &str, to: &str) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| {
            r.from_m.is_match(from) && r.to_m.is_match(to) && !r.exceptions.is_match(from)
        })
    }

    /// Evaluates every rule over the index's cross-file calls and imports.
    pub fn evaluate(&self, index: &Index) -> Result<Evaluation, ToolError> {
        let calls = index.cross_file_calls()?;
        let imports = index.file_imports()?;
        let at = now();
        let mut out = Vec::new();
        if !self.rules.is_empty() {
            for c in &calls {
                for r in self.broken(&c.caller_file, &c.callee_file) {
                    out.push(Violation {
                        rule_id: r.id.clone(),
                        severity: r.severity,
                        via: "call".into(),
                        caller_file: c.caller_file.clone(),
                        caller_name: c.caller_name.clone(),
                        caller_line: c.line,
                        callee_name: c.callee_name.clone(),
                        callee_file: c.callee_file.clone(),
                        reason: r.reason.clone(),
                        detected_at: at,
                    });
                }
            }
            for i in &imports {
                for r in self.broken(&i.file, &i.target_file) {
                    out.push(Violation {
                        rule_id: r.id.clone(),
                        severity: r.severity,
                        via: "import".into(),
                        caller_file: i.file.clone(),
                        caller_name: "<import>".into(),
                        caller_line: i.line,
                        callee_name: i.module.clone(),
                        callee_file: i.target_file.clone(),
                        reason: r.reason.clone(),
                        detected_at: at,
                    });
                }
            }
        }
        // Most severe first, then by place.
        out.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then_with(|| a.caller_file.cmp(&b.caller_file))
                .then_with(|| a.caller_line.cmp(&b.caller_line))
                .then_with(|| a.via.cmp(&b.via))
        });
        Ok(Evaluation {
            violations: out,
            evaluated_edge_count: calls.len() + imports.len(),
        })
    }
}

/// Replaces the persisted violations (kept as they were when the index has no
/// call or import edges to judge).
pub fn persist(root: &Path, eval: &Evaluation) -> Result<(), ToolError> {
    let path = tsa_index::state_path(root, STORE)?;
    if eval.evaluated_edge_count == 0 && path.is_file() {
        return Ok(());
    }
    let body = serde_json::to_vec(&json!({ "violations": eval.violations }))
        .map_err(|e| ToolError::Internal(e.to_string()))?;
    crate::state::write(root, STORE, &body)
}

/// The violations persisted by the last evaluation (none when never evaluated).
pub fn persisted(root: &Path) -> Vec<Violation> {
    #[derive(Deserialize)]
    struct Stored {
        violations: Vec<Violation>,
    }
    tsa_index::state_path(root, STORE)
        .ok()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice::<Stored>(&b).ok())
        .map(|s| s.violations)
        .unwrap_or_default()
}

/// Violations whose caller or callee file is one of `files`: the rules are
/// evaluated now over the current index (and the result persisted); a project
/// without a constraint file has none. A malformed file is an error.
pub fn violations_touching(
    root: &Path,
    index: &Index,
    files: &[&str],
) -> Result<Vec<Violation>, ToolError> {
    let set = load(root)?;
    if set.rules.is_empty() {
        return Ok(Vec::new());
    }
    let eval = set.evaluate(index)?;
    persist(root, &eval)?;
    // An index without edges judges nothing: the last persisted evaluation stands.
    let rows = if eval.evaluated_edge_count == 0 {
        persisted(root)
    } else {
        eval.violations
    };
    let wanted: std::collections::HashSet<&str> = files.iter().copied().collect();
    Ok(rows
        .into_iter()
        .filter(|v| {
            wanted.contains(v.caller_file.as_str()) || wanted.contains(v.callee_file.as_str())
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rules_and_skips_bad_ones() {
        let text = "version: 1\nconstraints:\n  - id: a\n    severity: error\n    rule: forbid\n    from: \"app/api/**\"\n    to: \"app/db/*.py\"\n    reason: layers\n    exceptions: [\"app/api/legacy/**\"]\n  - id: b\n    severity: loud\n    rule: forbid\n    from: x\n    to: y\n    reason: r\n  - id: c\n    severity: warn\n    rule: require\n    from: x\n    to: y\n    reason: r\n  - id: d\n    severity: warn\n    rule: forbid\n    from: x\n    reason: r\n  - just a string\n  - id: e\n    severity: info\n    rule: forbid\n    from: x\n    to: y\n    reason: r\n    color: red\n";
        let set = parse(text).unwrap();
        assert_eq!(set.rules.len(), 1);
        assert_eq!(set.warnings.len(), 5, "{:?}", set.warnings);
        let r = &set.rules[0];
        assert!(r.from_m.is_match("app/api/v1/routes.py"));
        assert!(r.from_m.is_match("app/api/x.py"));
        assert!(r.to_m.is_match("app/db/models.py"));
        assert!(
            !r.to_m.is_match("app/db/sub/models.py"),
            "* stays in one component"
        );
        assert!(r.exceptions.is_match("app/api/legacy/old.py"));
        assert_eq!(set.broken("app/api/x.py", "app/db/m.py").count(), 1);
        assert_eq!(set.broken("app/api/legacy/x.py", "app/db/m.py").count(), 0);
    }

    #[test]
    fn structural_errors_carry_a_line() {
        for (text, line) in [
            ("version: 1\nconstraints:\n  - id: [\n", 3),
            ("version: 1\nextra: 2\n", 2),
            ("- a\n- b\n", 1),
            ("version: 1\n\nconstraints: 5\n", 3),
        ] {
            let e = parse(text).err().unwrap().to_string();
            assert!(e.starts_with("constraint parse error: line "), "{e}");
            if line > 1 {
                assert!(
                    e.contains(&format!("line {line}")) || text.contains('['),
                    "{e}"
                );
            }
        }
        assert!(parse("").unwrap().rules.is_empty());
    }
}
