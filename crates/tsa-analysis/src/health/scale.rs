//! File size and complexity for `health scale`: lines by kind, characters, an
//! estimate of tokens, functions and classes, a size category with reading
//! guidance, and (on request) the complexity of each function.

use std::path::Path;

use serde::Serialize;
use tsa_lang::Language;

use crate::complexity::band;
use crate::error::ToolError;
use crate::health::{HealthConfig, facts_of, round1};

/// `small` (<= 200 lines), `medium` (<= 500), `large` (<= 1500) or `very_large`.
pub fn category(lines: u32) -> &'static str {
    match lines {
        0..=200 => "small",
        201..=500 => "medium",
        501..=1500 => "large",
        _ => "very_large",
    }
}

/// (comment lines, blank lines) of a text, by the line's first characters.
pub fn comment_and_blank(text: &str) -> (u32, u32) {
    let mut blank = 0;
    let mut comment = 0;
    for l in text.lines() {
        let t = l.trim_start();
        if t.is_empty() {
            blank += 1;
        } else if ["#", "//", "/*", "*", "--", "<!--"]
            .iter()
            .any(|m| t.starts_with(m))
        {
            comment += 1;
        }
    }
    (comment, blank)
}

/// How to read a file of `lines` lines.
pub fn guidance(lines: u32) -> String {
    match category(lines) {
        "small" => "Small file: read it whole.".to_owned(),
        "medium" => "Medium file: read the outline first, then the functions you need.".to_owned(),
        c => format!(
            "{c} file ({lines} lines): do not read it whole; list its functions (include_details) and read by line range."
        ),
    }
}

/// The complexity of a file's functions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComplexitySummary {
    pub total: u32,
    /// One decimal (1 without functions).
    pub average: f64,
    pub max: u32,
    pub band: &'static str,
}

/// A function of a file with its size and complexity.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionScale {
    pub name: String,
    pub line: u32,
    pub end_line: u32,
    pub lines: u32,
    pub complexity: u32,
    pub band: &'static str,
}

/// What to measure besides the sizes.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScaleOptions {
    pub complexity: bool,
    pub details: bool,
    pub guidance: bool,
}

/// The size of one file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileScale {
    pub file_path: String,
    pub language: Option<&'static str>,
    pub lines: u32,
    pub code_lines: u32,
    pub comment_lines: u32,
    pub blank_lines: u32,
    pub characters: usize,
    /// Bytes / 4, rounded up.
    pub estimated_tokens: usize,
    pub function_count: usize,
    pub class_count: usize,
    pub size_category: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complexity: Option<ComplexitySummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<FunctionScale>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<String>,
}

/// The size of project file `rel` (a source file).
pub fn scale_of(
    root: &Path,
    rel: &str,
    cfg: &HealthConfig,
    o: ScaleOptions,
) -> Result<FileScale, ToolError> {
    let text = crate::security::read_text_in_root(root, rel)?;
    Ok(scale_of_text(rel, &text, cfg, o))
}

fn scale_of_text(rel: &str, text: &str, cfg: &HealthConfig, o: ScaleOptions) -> FileScale {
    let facts = facts_of(rel, text, cfg);
    let (comment, blank) = comment_and_blank(text);
    let ccs: Vec<u32> = facts.functions.iter().map(|f| f.complexity).collect();
    let complexity = o.complexity.then(|| {
        let max = ccs.iter().copied().max().unwrap_or(1);
        let total: u32 = ccs.iter().sum();
        ComplexitySummary {
            total,
            average: if ccs.is_empty() {
                1.0
            } else {
                round1(f64::from(total) / ccs.len() as f64)
            },
            max,
            band: band(max),
        }
    });
    let functions = o.details.then(|| {
        facts
            .functions
            .iter()
            .map(|f| FunctionScale {
                name: f.name.clone(),
                line: f.line,
                end_line: f.end_line,
                lines: f.end_line - f.line + 1,
                complexity: f.complexity,
                band: band(f.complexity),
            })
            .collect()
    });
    FileScale {
        file_path: rel.to_owned(),
        language: Language::from_path(rel).map(|l| l.name()),
        lines: facts.lines,
        code_lines: facts.lines.saturating_sub(comment + blank),
        comment_lines: comment,
        blank_lines: blank,
        characters: text.chars().count(),
        estimated_tokens: text.len().div_ceil(4),
        function_count: facts.functions.len(),
        class_count: facts.classes.len(),
        size_category: category(facts.lines),
        complexity,
        functions,
        guidance: o.guidance.then(|| guidance(facts.lines)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_lines_and_guidance() {
        assert_eq!(category(200), "small");
        assert_eq!(category(201), "medium");
        assert_eq!(category(1501), "very_large");
        assert_eq!(comment_and_blank("# a\n\nx = 1\n  // b\n"), (2, 1));
        assert!(guidance(900).starts_with("large file (900 lines)"));
    }

    #[test]
    fn a_file_is_measured() {
        let src = "# doc\n\ndef f(x):\n    if x:\n        return 1\n    return 2\n";
        let o = ScaleOptions {
            complexity: true,
            details: true,
            guidance: false,
        };
        let s = scale_of_text("m.py", src, &HealthConfig::defaults().unwrap(), o);
        assert_eq!(
            (s.lines, s.code_lines, s.comment_lines, s.blank_lines),
            (6, 4, 1, 1)
        );
        assert_eq!(s.function_count, 1);
        assert_eq!(s.complexity.unwrap().max, 2);
        assert_eq!(s.functions.unwrap()[0].lines, 4);
        assert!(s.guidance.is_none());
    }
}
