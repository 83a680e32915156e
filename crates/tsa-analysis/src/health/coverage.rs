//! `coverage` input: a coverage.py JSON report (`coverage.json` at the project root).

use std::collections::HashMap;
use std::path::Path;

/// The report file, relative to the project root.
pub const REPORT: &str = "coverage.json";

/// Line-coverage percent per file path as written in the report.
#[derive(Debug, Default)]
pub struct Coverage {
    files: HashMap<String, f64>,
}

impl Coverage {
    /// Reads `<root>/coverage.json`; `None` when absent or not a coverage.py report.
    pub fn load(root: &Path) -> Option<Coverage> {
        let text = std::fs::read_to_string(crate::security::inside_root(root, REPORT)?).ok()?;
        Self::parse(&text)
    }

    pub fn parse(text: &str) -> Option<Coverage> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let files = v.get("files")?.as_object()?;
        let mut out = HashMap::new();
        for (path, entry) in files {
            let summary = entry.get("summary");
            let pct = summary
                .and_then(|s| s.get("percent_covered"))
                .and_then(serde_json::Value::as_f64)
                .or_else(|| {
                    let s = summary?;
                    let covered = s.get("covered_lines")?.as_f64()?;
                    let total = s.get("num_statements")?.as_f64()?;
                    Some(if total == 0.0 {
                        100.0
                    } else {
                        100.0 * covered / total
                    })
                });
            if let Some(p) = pct {
                out.insert(path.replace('\\', "/"), p);
            }
        }
        Some(Coverage { files: out })
    }

    /// The file's percent: exact path, `./path`, or a suffix match on whole segments
    /// either way (reports written from another working directory or absolute paths).
    pub fn percent(&self, rel: &str) -> Option<f64> {
        if let Some(p) = self.files.get(rel) {
            return Some(*p);
        }
        if let Some(p) = self.files.get(&format!("./{rel}")) {
            return Some(*p);
        }
        let tail = format!("/{rel}");
        let mut hits = self.files.iter().filter(|(k, _)| {
            k.ends_with(&tail) || rel.ends_with(&format!("/{}", k.trim_start_matches("./")))
        });
        let first = hits.next()?;
        // Two different files ending alike: do not guess.
        if hits.next().is_some() {
            return None;
        }
        Some(*first.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_path_variants() {
        let c = Coverage::parse(r#"{"files": {"/abs/proj/pkg/a.py": {"summary": {"percent_covered": 75.5}}, "b.py": {"summary": {"covered_lines": 1, "num_statements": 4}}}}"#).unwrap();
        assert_eq!(c.percent("pkg/a.py"), Some(75.5));
        assert_eq!(c.percent("b.py"), Some(25.0));
        assert_eq!(c.percent("src/b.py"), Some(25.0));
        assert_eq!(c.percent("c.py"), None);
        assert!(Coverage::parse("[]").is_none());
    }
}
