//! The structure table of one parsed file (the engine of `structure analyze`):
//! every definition with its kind (fields told apart), range, visibility,
//! parameter count and return type, in full, compact or CSV form, and the file's
//! statistics.

use std::collections::BTreeMap;

use serde::Serialize;
use tsa_lang::{Def, DefKind, FileExtract, Language};

use crate::signature::{param_count, params_of, visibility};

/// The CSV columns, in order.
pub const CSV_HEADER: &str =
    "type,name,qualified_name,parent,start_line,end_line,lines,visibility,params,return_type";

/// Whether a definition is a field (a variable directly inside a type).
pub fn is_field(x: &FileExtract, d: &Def) -> bool {
    d.kind == DefKind::Variable && d.parent.is_some_and(|p| x.defs[p].kind.is_type())
}

/// Counts of definitions by kind.
pub fn kind_counts(x: &FileExtract) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::<&'static str, usize>::new();
    for d in &x.defs {
        *m.entry(d.kind.as_str()).or_default() += 1;
    }
    m
}

/// One definition, every column.
#[derive(Clone, Debug, Serialize)]
pub struct TableRow {
    /// Its kind (`field` for a variable inside a type).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Bare name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// The enclosing definition's qualified name.
    pub parent: Option<String>,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Lines it spans.
    pub lines: u32,
    /// Visibility (`n/a` for a document section).
    pub visibility: &'static str,
    /// Parameter count of a function or method.
    pub params: Option<usize>,
    /// Return type of a function or method, when the signature states it.
    pub return_type: Option<String>,
    /// The declaration header.
    pub signature: String,
}

/// One definition, compact: kind, qualified name, range and visibility.
#[derive(Clone, Debug, Serialize)]
pub struct CompactRow<'a> {
    /// Its kind.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its qualified name.
    pub name: &'a str,
    /// `start-end`.
    pub lines: String,
    /// Visibility.
    pub visibility: &'static str,
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

impl TableRow {
    /// The row of definition `i` of a file parsed as `lang`.
    pub fn of(lang: Language, x: &FileExtract, i: usize) -> Self {
        let d = &x.defs[i];
        let callable = d.kind.is_callable();
        let params = if callable {
            params_of(&d.name, &d.signature)
        } else {
            None
        };
        TableRow {
            kind: if is_field(x, d) {
                "field"
            } else {
                d.kind.as_str()
            },
            name: d.name.clone(),
            qualified_name: d.qualname.clone(),
            parent: d.parent.map(|p| x.defs[p].qualname.clone()),
            start_line: d.line,
            end_line: d.end_line,
            lines: d.end_line.saturating_sub(d.line) + 1,
            visibility: if d.kind == DefKind::Section {
                "n/a"
            } else {
                visibility(lang.name(), &d.name, &d.signature)
            },
            params: params.as_deref().map(param_count),
            return_type: if callable {
                tsa_lang::return_type(lang, &d.name, &d.signature)
            } else {
                None
            },
            signature: d.signature.clone(),
        }
    }

    /// The compact form.
    pub fn compact(&self) -> CompactRow<'_> {
        CompactRow {
            kind: self.kind,
            name: &self.qualified_name,
            lines: format!("{}-{}", self.start_line, self.end_line),
            visibility: self.visibility,
        }
    }

    /// The CSV line (columns of [`CSV_HEADER`]).
    pub fn csv(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_default();
        [
            csv_field(self.kind),
            csv_field(&self.name),
            csv_field(&self.qualified_name),
            opt(self.parent.as_deref().map(csv_field)),
            self.start_line.to_string(),
            self.end_line.to_string(),
            self.lines.to_string(),
            csv_field(self.visibility),
            opt(self.params.map(|p| p.to_string())),
            opt(self.return_type.as_deref().map(csv_field)),
        ]
        .join(",")
    }
}

/// A file's definition counts.
#[derive(Clone, Debug, Serialize)]
pub struct Statistics {
    /// Lines in the file.
    pub line_count: usize,
    /// Every definition.
    pub definitions: usize,
    /// Types (impl blocks aside).
    pub classes: usize,
    /// Methods.
    pub methods: usize,
    /// Functions.
    pub functions: usize,
    /// Fields.
    pub fields: usize,
    /// Document sections.
    pub sections: usize,
    /// Import statements.
    pub imports: usize,
    /// Call sites.
    pub call_sites: usize,
    /// Parse errors.
    pub parse_errors: u32,
    /// Definitions per kind.
    pub kinds: BTreeMap<&'static str, usize>,
}

/// The statistics of a file of `line_count` lines.
pub fn statistics(x: &FileExtract, line_count: usize) -> Statistics {
    let count = |k: DefKind| x.defs.iter().filter(|d| d.kind == k).count();
    Statistics {
        line_count,
        definitions: x.defs.len(),
        classes: x
            .defs
            .iter()
            .filter(|d| d.kind.is_type() && d.kind != DefKind::Impl)
            .count(),
        methods: count(DefKind::Method),
        functions: count(DefKind::Function),
        fields: x.defs.iter().filter(|d| is_field(x, d)).count(),
        sections: count(DefKind::Section),
        imports: x.imports.len(),
        call_sites: x.calls.len(),
        parse_errors: x.parse_errors,
        kinds: kind_counts(x),
    }
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

/// One function or method as a signature line, with its owning type.
#[derive(Clone, Debug, Serialize)]
pub struct SignatureRow {
    /// The owning type (null for a module-level function).
    pub class: Option<String>,
    /// `name(params) -> ret  start-end`.
    pub signature: String,
}

/// The functions and methods of `order` (definition indexes in source order) as
/// signature lines grouped by owning type, groups in order of first appearance
/// (module-level functions under `null`); and how many groups are types.
pub fn signatures(lang: Language, x: &FileExtract, order: &[usize]) -> (Vec<SignatureRow>, usize) {
    let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for &i in order {
        let d = &x.defs[i];
        if !d.kind.is_callable() {
            continue;
        }
        let key = d.owner.clone();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let class_count = groups.iter().filter(|(k, _)| k.is_some()).count();
    let rows = groups
        .into_iter()
        .flat_map(|(class, v)| {
            v.into_iter().map(move |i| SignatureRow {
                class: class.clone(),
                signature: signature_line(lang, &x.defs[i]),
            })
        })
        .collect();
    (rows, class_count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }

    #[test]
    fn rows_in_every_form_and_the_statistics() {
        let lang = Language::from_name("python").unwrap();
        let src = "import os\n\nclass A:\n    x: int = 1\n\n    def f(self, a, b) -> str:\n        return os.sep\n";
        let x = tsa_lang::extract(lang, src.as_bytes()).unwrap();
        let f = x.defs.iter().position(|d| d.name == "f").unwrap();
        let row = TableRow::of(lang, &x, f);
        assert_eq!(row.kind, "method");
        assert_eq!(row.parent.as_deref(), Some("A"));
        assert_eq!(row.params, Some(3));
        assert_eq!(row.compact().lines, "6-7");
        assert_eq!(row.csv(), "method,f,A.f,A,6,7,2,public,3,");
        let s = statistics(&x, 7);
        assert_eq!((s.classes, s.methods, s.imports), (1, 1, 1));
        assert_eq!(s.kinds["class"], 1);
    }

    #[test]
    fn signatures_grouped_by_owner() {
        let lang = Language::from_name("python").unwrap();
        let src = "def top(a):\n    pass\n\n\nclass A:\n    def f(self, b):\n        pass\n\n\ndef low():\n    pass\n";
        let x = tsa_lang::extract(lang, src.as_bytes()).unwrap();
        let order: Vec<usize> = (0..x.defs.len()).collect();
        let (rows, classes) = signatures(lang, &x, &order);
        let lines: Vec<(Option<&str>, &str)> = rows
            .iter()
            .map(|r| (r.class.as_deref(), r.signature.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (None, "top(a)  1-2"),
                (None, "low()  10-11"),
                (Some("A"), "f(self, b)  6-7")
            ]
        );
        assert_eq!(classes, 1);
    }
}
