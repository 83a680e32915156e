//! Reading project source for answers: file checks for `file_path` arguments and
//! inlined bodies (line ranges of definitions), each file read at most once.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::{Value, json};
use tsa_lang::Language;

use crate::ToolError;
use crate::security::{read_in_root, resolve_in_root};
use tsa_envelope::Success;

/// Largest file an action parses on demand (8 MiB). Parsing is linear but not free:
/// a 50 MB minified bundle would hold a call for minutes. The index skips files over
/// its own `max_file_size` (2 MiB by default).
pub const MAX_PARSE_BYTES: u64 = 8 * 1024 * 1024;

/// Refuses a file too large to parse on demand.
pub fn check_parse_size(rel: &str, len: u64) -> Result<(), ToolError> {
    if len > MAX_PARSE_BYTES {
        return Err(ToolError::TooLarge {
            file: rel.to_owned(),
            size: len,
            max: MAX_PARSE_BYTES,
        });
    }
    Ok(())
}

/// Resolves a `file_path` argument that must name an existing, readable source
/// file of a supported language (and not too large to parse); returns the
/// project-relative path.
pub fn source_file(root: &Path, input: &str) -> Result<String, ToolError> {
    let (abs, rel) = resolve_in_root(root, input)?;
    if !abs.exists() {
        return Err(ToolError::NotFound(rel));
    }
    if abs.is_dir() {
        return Err(ToolError::Validation(format!(
            "file_path must be a file, got directory '{rel}'"
        )));
    }
    if Language::from_path(&rel).is_none() {
        return Err(ToolError::Language(rel));
    }
    check_parse_size(&rel, std::fs::metadata(&abs).map_or(0, |m| m.len()))?;
    let bytes = read_in_root(root, &rel)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary(rel));
    }
    if std::str::from_utf8(&bytes).is_err() {
        return Err(ToolError::Encoding(rel));
    }
    Ok(rel)
}

/// Caps on inlined bodies.
#[derive(Clone, Copy)]
pub struct BodyBudget {
    pub rows: usize,
    pub lines_each: usize,
    pub lines_total: usize,
}

/// An inlined body as fields of its row: the text, the lines it shows (`a-b`) and
/// the lines cut by the per-body cap (`c-d`, null when nothing was cut). All three are
/// null for a row without a body, so rows stay uniform (one TOON table).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Inlined {
    /// The source text.
    pub body: Option<String>,
    /// The lines shown, `start-end`.
    pub body_lines: Option<String>,
    /// The lines of the definition not shown (structure read shows them).
    pub body_cut_lines: Option<String>,
}

/// Which rows of a list get their body inlined (`include_bodies`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BodyRows {
    /// No row.
    None,
    /// The first [`TOP_BODIES`] rows with a readable body (the default).
    #[default]
    Top,
    /// Every listed row.
    All,
}

/// How many rows `include_bodies=top` inlines.
pub const TOP_BODIES: usize = 3;

/// Lines of one body of `include_bodies=top` (a default answer stays small: the
/// lines around the call for a caller, the head of a definition otherwise; the rest
/// is named in `body_cut_lines`).
pub const TOP_LINES_EACH: usize = 4;

/// Lines of one inlined body of `include_bodies=all` at most; the rest is named in
/// `body_cut_lines`.
pub const BODY_LINES_EACH: usize = 40;

/// Lines of all bodies of `include_bodies=top` together in a list of definitions
/// ([`BodyRows::definition_budget`]).
pub const TOP_DEFINITION_LINES: usize = 60;

impl BodyRows {
    /// The budget of inlined definitions (`search symbol`, `structure explore`): the
    /// top rows share [`TOP_DEFINITION_LINES`], each at most [`BODY_LINES_EACH`].
    pub fn definition_budget(self) -> BodyBudget {
        let (rows, lines_total) = match self {
            BodyRows::None => (0, 0),
            BodyRows::Top => (TOP_BODIES, TOP_DEFINITION_LINES),
            BodyRows::All => (usize::MAX, usize::MAX),
        };
        BodyBudget {
            rows,
            lines_each: BODY_LINES_EACH,
            lines_total,
        }
    }

    /// The budget of inlined bodies beside call sites (`nav callers`, `callees`).
    pub fn budget(self) -> BodyBudget {
        let (rows, lines_each) = match self {
            BodyRows::None => (0, 0),
            BodyRows::Top => (TOP_BODIES, TOP_LINES_EACH),
            BodyRows::All => (usize::MAX, BODY_LINES_EACH),
        };
        BodyBudget {
            rows,
            lines_each,
            lines_total: rows.saturating_mul(lines_each),
        }
    }
}

/// Reads definition bodies from the working tree, each file once.
pub struct Bodies<'a> {
    root: &'a Path,
    files: HashMap<String, Option<Vec<String>>>,
    budget: BodyBudget,
    rows: usize,
    lines: usize,
    /// Files not read: symlinks (or below one) leaving the root since indexing.
    linked: BTreeSet<String>,
}

impl<'a> Bodies<'a> {
    pub fn new(root: &'a Path, budget: BodyBudget) -> Self {
        Bodies {
            root,
            files: HashMap::new(),
            budget,
            rows: 0,
            lines: 0,
            linked: BTreeSet::new(),
        }
    }

    /// The answer, with a warning naming the files whose bodies were not read
    /// because they are now symlinks leading out of the root.
    pub fn warn(&self, s: Success) -> Success {
        crate::security::warn_linked(s, &self.linked)
    }

    /// True when at least one body was inlined.
    pub fn any(&self) -> bool {
        self.rows > 0
    }

    /// The lines of `file`, read once (`None` when it cannot be read).
    fn lines_of(&mut self, file: &str) -> Option<&Vec<String>> {
        let root = self.root;
        let linked = &mut self.linked;
        self.files
            .entry(file.to_owned())
            .or_insert_with(|| {
                let bytes = match read_in_root(root, file) {
                    Ok(b) => b,
                    Err(ToolError::Linked(_)) => {
                        linked.insert(file.to_owned());
                        return None;
                    }
                    Err(_) => return None,
                };
                Some(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_owned)
                        .collect(),
                )
            })
            .as_ref()
    }

    /// The text of one line of `file` (trimmed, at most 160 characters), for a row
    /// that names a call site without its body.
    pub fn line_text(&mut self, file: &str, line: u32) -> Option<String> {
        let text = self.lines_of(file)?.get((line as usize).checked_sub(1)?)?;
        let text = text.trim();
        Some(match text.char_indices().nth(160) {
            Some((i, _)) => format!("{}...", &text[..i]),
            None => text.to_owned(),
        })
    }

    /// A definition's body as flat row fields (lean rows: no key repeats the row), or
    /// all three null when the budget is spent or the file cannot be read.
    pub fn inline(&mut self, file: &str, start: u32, end: u32) -> Inlined {
        let Some(b) = self.body("", file, start, end) else {
            return Inlined::default();
        };
        let shown_end = b["end_line"].as_u64().unwrap_or(0);
        Inlined {
            body: b["content"].as_str().map(str::to_owned),
            body_lines: Some(format!("{start}-{shown_end}")),
            body_cut_lines: b
                .get("truncated")
                .is_some()
                .then(|| format!("{}-{end}", shown_end + 1)),
        }
    }

    /// A caller's body as flat row fields, cut to the lines around `focus` (its call
    /// line) when it is longer than the per-body cap: the lines shown in
    /// `body_lines`, the lines cut (one or two ranges, `a-b c-d`) in `body_cut_lines`.
    pub fn inline_around(&mut self, file: &str, start: u32, end: u32, focus: u32) -> Inlined {
        if self.rows >= self.budget.rows || self.lines >= self.budget.lines_total || start == 0 {
            return Inlined::default();
        }
        let room = self
            .budget
            .lines_each
            .min(self.budget.lines_total - self.lines);
        let Some(lines) = self.lines_of(file) else {
            return Inlined::default();
        };
        let (first, last) = (start as usize, (end as usize).min(lines.len()));
        if first > last || room == 0 {
            return Inlined::default();
        }
        // The window: a quarter of it above the call, the rest from the call down,
        // moved inside the definition.
        let len = (last - first + 1).min(room);
        let focus = (focus as usize).clamp(first, last);
        let from = focus.saturating_sub(len / 4).max(first).min(last + 1 - len);
        let to = from + len - 1;
        let content = lines[from - 1..to].join("\n") + "\n";
        self.rows += 1;
        self.lines += len;
        let mut cut = Vec::new();
        if from > first {
            cut.push(format!("{first}-{}", from - 1));
        }
        if to < last {
            cut.push(format!("{}-{last}", to + 1));
        }
        Inlined {
            body: Some(content),
            body_lines: Some(format!("{from}-{to}")),
            body_cut_lines: (!cut.is_empty()).then(|| cut.join(" ")),
        }
    }

    /// The `body` object of a definition, or `None` when the budget is spent or the
    /// file cannot be read.
    pub fn body(&mut self, name: &str, file: &str, start: u32, end: u32) -> Option<Value> {
        if self.rows >= self.budget.rows || self.lines >= self.budget.lines_total || start == 0 {
            return None;
        }
        let room = self
            .budget
            .lines_each
            .min(self.budget.lines_total - self.lines);
        let lines = self.lines_of(file)?;
        let first = start as usize - 1;
        let last = (end as usize).min(lines.len());
        if first >= last {
            return None;
        }
        let shown = (last - first).min(room);
        let content = lines[first..first + shown].join("\n") + "\n";
        self.rows += 1;
        self.lines += shown;
        let mut body = json!({
            "name": name,
            "file": file,
            "start_line": start,
            "end_line": first + shown,
            "content": content,
        });
        if shown < last - first {
            body["truncated"] = json!(true);
            body["full_at"] = json!(format!("{file}:{start}"));
        }
        Some(body)
    }
}
