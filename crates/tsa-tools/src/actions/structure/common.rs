//! Shared by the `structure` actions: loading one source file (any of the 21
//! languages, structure tier included, parsed directly — never from the index),
//! outline rows from one extraction, visibility, parameter and return splitting,
//! and `output_file` writing inside the root.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tsa_analysis::security::resolve_in_root;
use tsa_lang::{Def, DefKind, DefaultVisibility, FileExtract, Language, Tier};

use crate::{Context, ToolError};

/// One source file, read and parsed.
pub struct Loaded {
    /// Project-relative path.
    pub rel: String,
    pub lang: Language,
    pub text: String,
    pub extract: FileExtract,
}

impl Loaded {
    pub fn line_count(&self) -> usize {
        self.text.lines().count()
    }

    /// The definitions in source order (by start byte, outer first).
    pub fn ordered(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.extract.defs.len()).collect();
        order.sort_by_key(|&i| {
            let d = &self.extract.defs[i];
            (d.start_byte, std::cmp::Reverse(d.end_byte), i)
        });
        order
    }

    /// Nesting depth of definition `i` (0 = top level).
    pub fn depth(&self, i: usize) -> usize {
        let mut depth = 0;
        let mut at = self.extract.defs[i].parent;
        while let Some(p) = at {
            depth += 1;
            at = self.extract.defs[p].parent;
            if depth > 256 {
                break;
            }
        }
        depth
    }

    pub fn parent_name(&self, i: usize) -> Option<&str> {
        self.extract.defs[i]
            .parent
            .map(|p| self.extract.defs[p].qualname.as_str())
    }
}

/// A `language` parameter: a known language name, or a validation error listing them.
pub fn language_arg(value: Option<&str>) -> Result<Option<Language>, ToolError> {
    match value.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(l) => Language::from_name(&l.to_lowercase())
            .map(Some)
            .ok_or_else(|| {
                let known: Vec<&str> = Language::ALL.iter().map(|l| l.name()).collect();
                ToolError::Validation(format!(
                    "parameter 'language' must be one of: {}; got '{l}'",
                    known.join(", ")
                ))
            }),
    }
}

/// Reads `input` inside the project root: exists, is a file, not binary, UTF-8,
/// of a known language (by extension, or `language` when given).
pub fn read_text(
    root: &Path,
    input: &str,
    language: Option<Language>,
) -> Result<(PathBuf, String, Language, String), ToolError> {
    let (abs, rel) = resolve_in_root(root, input)?;
    if !abs.exists() {
        return Err(ToolError::NotFound(rel));
    }
    if abs.is_dir() {
        return Err(ToolError::Validation(format!(
            "file_path must be a file, got directory '{rel}'"
        )));
    }
    let lang = match language.or_else(|| Language::from_path(&rel)) {
        Some(l) => l,
        None => return Err(ToolError::Language(rel)),
    };
    let bytes = tsa_analysis::security::read_in_root(root, &rel)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary(rel));
    }
    let text = String::from_utf8(bytes).map_err(|_| ToolError::Encoding(rel.clone()))?;
    Ok((abs, rel, lang, text))
}

/// Reads and parses one file.
pub fn load(ctx: &Context, input: &str, language: Option<&str>) -> Result<Loaded, ToolError> {
    let root = ctx.root()?;
    let language = language_arg(language)?;
    let (_, rel, lang, text) = read_text(root, input, language)?;
    tsa_analysis::source::check_parse_size(&rel, text.len() as u64)?;
    let extract = tsa_lang::extract(lang, text.as_bytes())
        .map_err(|e| ToolError::Internal(format!("cannot parse '{rel}': {e}")))?;
    Ok(Loaded {
        rel,
        lang,
        text,
        extract,
    })
}

pub fn tier_name(lang: Language) -> &'static str {
    match lang.tier() {
        Tier::Full => "full",
        Tier::Symbol => "symbol",
        Tier::Structure => "structure",
    }
}

/// Whether a definition is a field (a variable directly inside a type).
pub fn is_field(x: &FileExtract, d: &Def) -> bool {
    d.kind == DefKind::Variable && d.parent.is_some_and(|p| x.defs[p].kind.is_type())
}

/// Whether an outline shows `d`: fields only on request; code-language locals never.
pub fn shown_in_outline(lang: Language, x: &FileExtract, d: &Def, include_fields: bool) -> bool {
    if lang.tier() == Tier::Structure {
        return true;
    }
    if d.kind != DefKind::Variable {
        return true;
    }
    if is_field(x, d) {
        return include_fields;
    }
    // Module-level constants and variables are part of the outline.
    d.parent.is_none() || d.parent.is_some_and(|p| x.defs[p].kind == DefKind::Module)
}

/// Visibility as the declaration states it (`public`, `private`, `protected`,
/// `internal`), or by naming convention (Python `_x`, Go lower case); `unknown`
/// when the language says nothing.
pub fn visibility(language: &str, name: &str, signature: &str) -> &'static str {
    // The modifiers are the words right before the name (annotations and comments
    // earlier in the header do not count).
    let at = signature
        .find(&format!("{name}("))
        .or_else(|| signature.find(&format!("{name}<")))
        .or_else(|| signature.rfind(name))
        .unwrap_or(signature.len());
    let prefix = &signature[..at];
    let words: Vec<&str> = prefix.split_whitespace().rev().take(6).collect();
    let has = |w: &str| words.contains(&w);
    if words.iter().any(|w| w.starts_with("pub(")) {
        return "crate";
    }
    if has("pub") || has("public") || has("export") || has("open") {
        return "public";
    }
    if has("private") || has("fileprivate") {
        return "private";
    }
    if has("protected") {
        return "protected";
    }
    if has("internal") {
        return "internal";
    }
    let rule = Language::from_name(language).and_then(|l| l.conventions().default_visibility.get());
    match rule {
        Some(DefaultVisibility::Underscore) => {
            if name.starts_with("__") && name.ends_with("__") {
                "public"
            } else if name.starts_with('_') {
                "private"
            } else {
                "public"
            }
        }
        Some(DefaultVisibility::Capitalised) => {
            if name.chars().next().is_some_and(char::is_uppercase) {
                "public"
            } else {
                "package"
            }
        }
        Some(DefaultVisibility::LeadingMark) => {
            if name.starts_with('#') || name.starts_with('_') {
                "private"
            } else {
                "public"
            }
        }
        Some(DefaultVisibility::Fixed(v)) => v,
        None => "unknown",
    }
}

/// The parameter list of a signature: the text inside the first balanced `(...)`
/// after the name (empty when the signature has none).
pub fn params_of(name: &str, signature: &str) -> Option<String> {
    let from = signature.find(name).map(|i| i + name.len()).unwrap_or(0);
    let rest = &signature[from..];
    // The first `(` outside generic brackets (`fn f<T: Fn(u8)>(a: T)`).
    let mut angle = 0i32;
    let mut open = None;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => angle += 1,
            '>' if angle > 0 => angle -= 1,
            '(' if angle == 0 => {
                open = Some(i);
                break;
            }
            _ => {}
        }
    }
    let open = open?;
    let mut depth = 0usize;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let inner = &rest[open + 1..open + i];
                    return Some(inner.split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
            _ => {}
        }
    }
    None
}

/// Number of parameters in a parameter list (top-level commas).
pub fn param_count(params: &str) -> usize {
    if params.trim().is_empty() {
        return 0;
    }
    let mut depth = 0i32;
    let mut n = 1;
    for c in params.chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

/// `name(params) -> ret  start-end`, the one-line signature form.
pub fn signature_line(lang: Language, d: &Def) -> String {
    let params = params_of(&d.name, &d.signature).unwrap_or_default();
    let ret = tsa_lang::return_type(lang, &d.name, &d.signature);
    match ret {
        Some(r) => format!("{}({params}) -> {r}  {}-{}", d.name, d.line, d.end_line),
        None => format!("{}({params})  {}-{}", d.name, d.line, d.end_line),
    }
}

/// One outline row of definition `i`.
pub fn outline_row(f: &Loaded, i: usize) -> Value {
    let d = &f.extract.defs[i];
    let mut row = json!({
        "name": d.name,
        "kind": d.kind.as_str(),
        "qualified_name": d.qualname,
        "line": d.line,
        "end_line": d.end_line,
        "depth": f.depth(i),
        "parent": f.parent_name(i),
    });
    if f.lang.tier() != Tier::Structure || !d.signature.is_empty() {
        row["signature"] = json!(d.signature);
    }
    if let Some(o) = &d.owner
        && d.parent.is_none_or(|p| f.extract.defs[p].name != *o)
    {
        row["owner"] = json!(o);
    }
    if !d.bases.is_empty() {
        row["bases"] = json!(
            d.bases
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if d.is_test {
        row["is_test"] = json!(true);
    }
    row
}

/// Counts of definitions by kind.
pub fn kind_counts(x: &FileExtract) -> Value {
    let mut m = std::collections::BTreeMap::<&str, usize>::new();
    for d in &x.defs {
        *m.entry(d.kind.as_str()).or_default() += 1;
    }
    json!(m)
}

/// Resolves an `output_file` inside the root and writes `content` there.
pub fn write_output(root: &Path, output_file: &str, content: &str) -> Result<String, ToolError> {
    let (abs, rel) = tsa_analysis::security::output_target(root, output_file)?;
    if let Some(parent) = abs.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ToolError::Internal(format!("cannot create '{rel}': {e}")))?;
    }
    std::fs::write(&abs, content)
        .map_err(|e| ToolError::Internal(format!("cannot write '{rel}': {e}")))?;
    Ok(rel)
}

/// Symbol kinds that are types (what class_tree / class_detail accept).
pub const TYPE_KINDS: [&str; 6] = ["class", "struct", "enum", "trait", "interface", "type"];

/// The type definitions `input` (optionally qualified) names, or the NOT_FOUND answer
/// (with close names as suggestions) to give instead. Never answers for another name.
pub fn find_types(
    index: &tsa_index::Index,
    tool_label: &str,
    input: &str,
    language: Option<&str>,
) -> Result<Result<Vec<tsa_index::SymbolRow>, tsa_envelope::Success>, ToolError> {
    use tsa_envelope::{Success, Verdict};
    let input = input.trim();
    if input.is_empty() {
        return Err(ToolError::Validation(
            "parameter 'class_name' must be a non-empty string".into(),
        ));
    }
    let (owner, name) = crate::actions::common::split_qualified(input);
    let mut all = index.find_symbols(name, owner, None)?;
    if owner.is_some() && all.is_empty() {
        // `pkg.Class` / `module::Type`: the qualifier may be a module, not an owner type.
        all = index
            .find_symbols(name, None, None)?
            .into_iter()
            .filter(|s| {
                let q = input.replace("::", ".");
                s.qualname.replace("::", ".").ends_with(&q) || s.file.contains(owner.unwrap_or(""))
            })
            .collect();
    }
    if let Some(l) = language {
        all.retain(|s| s.language == l);
    }
    let types: Vec<_> = all
        .iter()
        .filter(|s| TYPE_KINDS.contains(&s.kind.as_str()))
        .cloned()
        .collect();
    if !types.is_empty() {
        return Ok(Ok(types));
    }
    let mut miss = Success::new(
        Verdict::NotFound,
        format!("{tool_label}: class '{input}' not found"),
    )
    .with("class_name", input);
    if let Some(other) = all.first() {
        return Ok(Err(miss
            .with("found_kind", other.kind.clone())
            .with("suggestions", json!([]))
            .with_next_step(format!(
                "'{input}' is a {} ({}:{}), not a class or type; use nav action=callers or structure action=outline on {}",
                other.kind, other.file, other.line, other.file
            ))));
    }
    let suggestions: Vec<String> = index.suggest(name, 5)?;
    miss = miss.with("suggestions", json!(suggestions));
    let step = match suggestions.first() {
        Some(s) => format!("Class '{input}' is not in the index. Did you mean '{s}'?"),
        None => format!(
            "Class '{input}' is not in the index. Check spelling, or search with search action=symbol kind=class."
        ),
    };
    Ok(Err(miss.with_next_step(step)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_and_counts() {
        assert_eq!(
            params_of("run", "def run(self, x: int = 3) -> str").as_deref(),
            Some("self, x: int = 3")
        );
        assert_eq!(
            params_of("f", "fn f<T: Fn(u8)>(a: (u8, u8), b: T)").as_deref(),
            Some("a: (u8, u8), b: T")
        );
        assert_eq!(params_of("x", "x = 3"), None);
        assert_eq!(param_count(""), 0);
        assert_eq!(param_count("a: Map<K, V>, b"), 2);
        assert_eq!(param_count("self"), 1);
    }

    #[test]
    fn visibility_from_declarations_and_names() {
        assert_eq!(visibility("rust", "f", "pub fn f()"), "public");
        assert_eq!(visibility("rust", "f", "pub(crate) fn f()"), "crate");
        assert_eq!(visibility("rust", "f", "fn f()"), "private");
        assert_eq!(visibility("python", "_h", "def _h(self)"), "private");
        assert_eq!(
            visibility("python", "__init__", "def __init__(self)"),
            "public"
        );
        assert_eq!(visibility("java", "m", "protected void m()"), "protected");
        assert_eq!(visibility("go", "get", "func (s *S) get()"), "package");
        assert_eq!(visibility("go", "Get", "func (s *S) Get()"), "public");
        assert_eq!(
            visibility(
                "java",
                "rawArea",
                "@Override // tsa: def method C.rawArea protected double rawArea()"
            ),
            "protected"
        );
    }

    #[test]
    fn language_names_are_checked() {
        assert!(language_arg(Some("Python")).unwrap().is_some());
        assert!(language_arg(None).unwrap().is_none());
        assert!(matches!(
            language_arg(Some("cobol")),
            Err(ToolError::Validation(_))
        ));
    }
}
