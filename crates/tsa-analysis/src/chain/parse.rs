//! The chain DSL (analyses.md §11): `step(args).step(args)...`, parsed safely
//! (a tokenizer and a recursive-descent parser; nothing is ever evaluated as code).
//!
//! ```text
//! Chain := Step ('.' Step)*
//! Step  := IDENT '(' [Arg (',' Arg)*] ')'
//! Arg   := IDENT '=' Value | Value
//! Value := STRING | INT | FLOAT | true | false | null | IDENT | '[' [Value (',' Value)*] ']'
//! ```
//! A query without parentheses is `explore("<query>").related()`.

use std::fmt;

pub const MAX_QUERY_CHARS: usize = 4096;
pub const MAX_STEPS: usize = 20;
pub const MAX_LIST_ITEMS: usize = 8;
pub const MAX_STRING_CHARS: usize = 160;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
    List(Vec<Value>),
}

impl Value {
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Str(s) => Some(s.clone()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// The value as the DSL writes it, so a rendered step parses back to itself.
    pub fn render(&self) -> String {
        match self {
            Value::Str(s) => {
                let mut out = String::with_capacity(s.len() + 2);
                out.push('"');
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        c => out.push(c),
                    }
                }
                out.push('"');
                out
            }
            Value::Int(i) => i.to_string(),
            // Display never uses an exponent; an integral float keeps its `.0`.
            Value::Float(f) if f.fract() == 0.0 => format!("{f}.0"),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => "null".into(),
            Value::List(l) => format!(
                "[{}]",
                l.iter().map(Value::render).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub key: Option<String>,
    pub value: Value,
    /// 1-based column of the argument.
    pub column: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: String,
    pub args: Vec<Arg>,
    pub column: usize,
}

impl Step {
    pub fn render(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| match &a.key {
                Some(k) => format!("{k}={}", a.value.render()),
                None => a.value.render(),
            })
            .collect();
        format!("{}({})", self.name, args.join(", "))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainError {
    pub detail: String,
    pub column: usize,
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Chain syntax error: {} at column {}",
            self.detail, self.column
        )
    }
}

/// Steps and the keyword arguments each accepts (analyses.md §11).
pub const STEPS: &[(&str, &[&str])] = &[
    ("search", &["query", "limit"]),
    ("semantic", &["query", "limit"]),
    (
        "explore",
        &["query", "max_files", "max_symbols", "include_code"],
    ),
    ("callers", &["depth", "limit"]),
    ("callees", &["depth", "limit"]),
    ("related", &["depth", "limit"]),
    ("filter", FILTER_KWARGS),
    ("where", FILTER_KWARGS),
    ("exclude", FILTER_KWARGS),
    ("not", FILTER_KWARGS),
    ("has", FILTER_KWARGS),
    ("take", &["n"]),
    ("sort", &["by", "desc"]),
    ("include", INCLUDE_KWARGS),
    ("with", INCLUDE_KWARGS),
    ("uml", &["direction", "limit", "max_edges"]),
    ("answer", &["compact"]),
];

const FILTER_KWARGS: &[&str] = &[
    "name",
    "kind",
    "file",
    "path",
    "language",
    "test",
    "generated",
    "regex",
    "case",
];

pub const FACETS: &[&str] = &[
    "source",
    "callers",
    "callees",
    "complexity",
    "health",
    "risk",
    "affected_tests",
];

const INCLUDE_KWARGS: &[&str] = &[
    "source",
    "callers",
    "callees",
    "complexity",
    "health",
    "risk",
    "affected_tests",
    "max_files",
    "max_symbols",
    "include_code",
    "limit",
];

/// Positional parameters each step accepts, in order (`*` = any number of facet names).
fn positional(step: &str) -> &'static [&'static str] {
    match step {
        "search" | "semantic" => &["query", "limit"],
        "explore" => &["query"],
        "callers" | "callees" | "related" => &["depth", "limit"],
        "filter" | "where" | "exclude" | "not" | "has" => &["name"],
        "take" => &["n"],
        "sort" => &["by", "desc"],
        "uml" => &["direction"],
        "answer" => &["compact"],
        _ => &[],
    }
}

/// Parses a chain query (or expands a plain string).
pub fn parse(query: &str) -> Result<Vec<Step>, ChainError> {
    let chars = query.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(ChainError {
            detail: format!("query longer than {MAX_QUERY_CHARS} characters ({chars})"),
            column: MAX_QUERY_CHARS + 1,
        });
    }
    let trimmed = query.trim();
    if trimmed.is_empty() {
        return Err(ChainError {
            detail: "empty query".into(),
            column: 1,
        });
    }
    if !trimmed.contains('(') {
        let text = trimmed.trim_matches(|c| c == '"' || c == '\'').trim();
        if text.chars().count() > MAX_STRING_CHARS {
            return Err(ChainError {
                detail: format!("string longer than {MAX_STRING_CHARS} characters"),
                column: 1,
            });
        }
        return Ok(vec![
            Step {
                name: "explore".into(),
                args: vec![Arg {
                    key: None,
                    value: Value::Str(text.to_owned()),
                    column: 1,
                }],
                column: 1,
            },
            Step {
                name: "related".into(),
                args: Vec::new(),
                column: 1,
            },
        ]);
    }
    let mut p = Parser { src: query, pos: 0 };
    let mut steps = Vec::new();
    p.skip_ws();
    loop {
        let step = p.step()?;
        steps.push(step);
        if steps.len() > MAX_STEPS {
            return Err(ChainError {
                detail: format!("more than {MAX_STEPS} steps"),
                column: steps[MAX_STEPS].column,
            });
        }
        p.skip_ws();
        if p.at_end() {
            break;
        }
        if !p.eat('.') {
            return Err(p.error_here(&format!(
                "expected '.' between steps, found {}",
                p.describe_next()
            )));
        }
        p.skip_ws();
    }
    for s in &steps {
        check_step(s)?;
    }
    Ok(steps)
}

fn check_step(s: &Step) -> Result<(), ChainError> {
    let Some((_, kwargs)) = STEPS.iter().find(|(n, _)| *n == s.name) else {
        let names: Vec<&str> = STEPS.iter().map(|(n, _)| *n).collect();
        let hint = match crate::suggest::closest(&s.name, names.iter().copied()) {
            Some(c) => format!(" (did you mean '{c}'?)"),
            None => format!(" (known: {})", names.join(", ")),
        };
        return Err(ChainError {
            detail: format!("unknown step '{}'{hint}", s.name),
            column: s.column,
        });
    };
    let pos = positional(&s.name);
    let facets = matches!(s.name.as_str(), "include" | "with");
    let mut n_pos = 0;
    let mut seen: Vec<&str> = Vec::new();
    for a in &s.args {
        match &a.key {
            Some(k) => {
                if !kwargs.contains(&k.as_str()) {
                    return Err(ChainError {
                        detail: format!(
                            "unknown argument '{k}' for {}() (allowed: {})",
                            s.name,
                            kwargs.join(", ")
                        ),
                        column: a.column,
                    });
                }
                if seen.contains(&k.as_str()) {
                    return Err(ChainError {
                        detail: format!("argument '{k}' given twice"),
                        column: a.column,
                    });
                }
                seen.push(k);
            }
            None if facets => {
                let ok = matches!(&a.value, Value::Str(f) if FACETS.contains(&f.as_str()));
                if !ok {
                    return Err(ChainError {
                        detail: format!(
                            "{}() takes facet names ({}) or key=value",
                            s.name,
                            FACETS.join(", ")
                        ),
                        column: a.column,
                    });
                }
            }
            None => {
                if n_pos >= pos.len() {
                    return Err(ChainError {
                        detail: format!(
                            "{}() takes at most {} positional argument(s)",
                            s.name,
                            pos.len()
                        ),
                        column: a.column,
                    });
                }
                if seen.contains(&pos[n_pos]) {
                    return Err(ChainError {
                        detail: format!("argument '{}' given twice", pos[n_pos]),
                        column: a.column,
                    });
                }
                seen.push(pos[n_pos]);
                n_pos += 1;
            }
        }
    }
    if matches!(s.name.as_str(), "search" | "semantic" | "explore") && !seen.contains(&"query") {
        return Err(ChainError {
            detail: format!(
                "{}() needs a query, e.g. {}(\"parse config\")",
                s.name, s.name
            ),
            column: s.column,
        });
    }
    if s.name == "take" && !seen.contains(&"n") {
        return Err(ChainError {
            detail: "take() needs a count, e.g. take(5)".into(),
            column: s.column,
        });
    }
    Ok(())
}

impl Step {
    /// The argument named `key` (by keyword, or by its positional slot).
    pub fn arg(&self, key: &str) -> Option<&Value> {
        let pos = positional(&self.name);
        let mut i = 0;
        for a in &self.args {
            match &a.key {
                Some(k) if k == key => return Some(&a.value),
                Some(_) => {}
                None => {
                    if pos.get(i) == Some(&key) {
                        return Some(&a.value);
                    }
                    i += 1;
                }
            }
        }
        None
    }

    /// The column of the argument named `key`, else of the step.
    pub fn column_of(&self, key: &str) -> usize {
        let pos = positional(&self.name);
        let mut i = 0;
        for a in &self.args {
            match &a.key {
                Some(k) if k == key => return a.column,
                Some(_) => {}
                None => {
                    if pos.get(i) == Some(&key) {
                        return a.column;
                    }
                    i += 1;
                }
            }
        }
        self.column
    }
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }
    fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }
    fn column(&self, byte: usize) -> usize {
        self.src[..byte].chars().count() + 1
    }
    fn error_at(&self, byte: usize, detail: &str) -> ChainError {
        ChainError {
            detail: detail.to_owned(),
            column: self.column(byte),
        }
    }
    fn error_here(&self, detail: &str) -> ChainError {
        self.error_at(self.pos, detail)
    }
    fn describe_next(&self) -> String {
        match self.peek() {
            Some(c) => format!("'{c}'"),
            None => "end of query".into(),
        }
    }

    fn ident(&mut self) -> Option<String> {
        let start = self.pos;
        if !self.peek().is_some_and(|c| c.is_alphabetic() || c == '_') {
            return None;
        }
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
        }
        Some(self.src[start..self.pos].to_owned())
    }

    fn step(&mut self) -> Result<Step, ChainError> {
        let start = self.pos;
        let name = self.ident().ok_or_else(|| {
            self.error_here(&format!(
                "expected a step name, found {}",
                self.describe_next()
            ))
        })?;
        self.skip_ws();
        if !self.eat('(') {
            return Err(self.error_here(&format!(
                "expected '(' after step '{name}', found {}",
                self.describe_next()
            )));
        }
        let open = self.pos - 1;
        let mut args = Vec::new();
        self.skip_ws();
        if !self.eat(')') {
            loop {
                self.skip_ws();
                args.push(self.arg()?);
                self.skip_ws();
                if self.eat(',') {
                    continue;
                }
                if self.eat(')') {
                    break;
                }
                if self.at_end() {
                    return Err(self.error_at(open, "unclosed '('"));
                }
                return Err(self.error_here(&format!(
                    "expected ',' or ')', found {}",
                    self.describe_next()
                )));
            }
        }
        Ok(Step {
            name: name.to_lowercase(),
            args,
            column: self.column(start),
        })
    }

    fn arg(&mut self) -> Result<Arg, ChainError> {
        let start = self.pos;
        // `key=value`?
        if let Some(id) = self.ident() {
            let after = self.pos;
            self.skip_ws();
            if self.eat('=') {
                self.skip_ws();
                let value = self.value(0)?;
                return Ok(Arg {
                    key: Some(id),
                    value,
                    column: self.column(start),
                });
            }
            self.pos = after;
            return Ok(Arg {
                key: None,
                value: word(&id),
                column: self.column(start),
            });
        }
        let value = self.value(0)?;
        Ok(Arg {
            key: None,
            value,
            column: self.column(start),
        })
    }

    fn value(&mut self, depth: usize) -> Result<Value, ChainError> {
        let start = self.pos;
        match self.peek() {
            Some('"') | Some('\'') => self.string(),
            Some('[') => {
                if depth > 0 {
                    return Err(self.error_here("lists cannot be nested"));
                }
                self.bump();
                let mut items = Vec::new();
                self.skip_ws();
                if !self.eat(']') {
                    loop {
                        self.skip_ws();
                        let at = self.pos;
                        items.push(self.value(depth + 1)?);
                        if items.len() > MAX_LIST_ITEMS {
                            return Err(self.error_at(
                                at,
                                &format!("list longer than {MAX_LIST_ITEMS} items"),
                            ));
                        }
                        self.skip_ws();
                        if self.eat(',') {
                            continue;
                        }
                        if self.eat(']') {
                            break;
                        }
                        if self.at_end() {
                            return Err(self.error_at(start, "unclosed '['"));
                        }
                        return Err(self.error_here(&format!(
                            "expected ',' or ']', found {}",
                            self.describe_next()
                        )));
                    }
                }
                Ok(Value::List(items))
            }
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => {
                self.bump();
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == '_')
                {
                    self.bump();
                }
                let text = self.src[start..self.pos].replace('_', "");
                if let Ok(i) = text.parse::<i64>() {
                    Ok(Value::Int(i))
                } else if let Ok(f) = text.parse::<f64>()
                    && f.is_finite()
                {
                    Ok(Value::Float(f))
                } else {
                    Err(self.error_at(start, &format!("invalid number '{text}'")))
                }
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let id = self.ident().unwrap_or_default();
                Ok(word(&id))
            }
            _ => Err(self.error_here(&format!(
                "expected a value (string, number, true/false, [list]), found {}",
                self.describe_next()
            ))),
        }
    }

    fn string(&mut self) -> Result<Value, ChainError> {
        let open = self.pos;
        let quote = self.bump().unwrap_or('"');
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error_at(open, "unterminated string")),
                Some('\\') => match self.bump() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(c) => out.push(c),
                    None => return Err(self.error_at(open, "unterminated string")),
                },
                Some(c) if c == quote => break,
                Some(c) => out.push(c),
            }
        }
        if out.chars().count() > MAX_STRING_CHARS {
            return Err(self.error_at(
                open,
                &format!("string longer than {MAX_STRING_CHARS} characters"),
            ));
        }
        Ok(Value::Str(out))
    }
}

/// A bare word: a boolean, null, or a string.
fn word(id: &str) -> Value {
    match id {
        "true" | "True" => Value::Bool(true),
        "false" | "False" => Value::Bool(false),
        "null" | "None" | "none" => Value::Null,
        _ => Value::Str(id.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(q: &str) -> ChainError {
        parse(q).expect_err(q)
    }

    #[test]
    fn plain_string_is_explore_related() {
        let s = parse("  index shard ").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "explore");
        assert_eq!(s[0].arg("query"), Some(&Value::Str("index shard".into())));
        assert_eq!(s[1].name, "related");
    }

    #[test]
    fn every_form() {
        let s = parse(
            r#"search("parse", limit=5).semantic(query='load config').explore("x", max_files=2, include_code=false)
               .callers(2).callees(depth=1, limit=3).related()
               .filter(kind=function, test=False).where(file="app/").exclude(regex="^_").not(name="x").has(name=run)
               .take(4).sort("fan_in", desc=true).include("callers", "complexity", limit=3).with(source=true, max_symbols=9)
               .uml(direction=LR, max_edges=10).answer(true)"#,
        )
        .unwrap();
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "search", "semantic", "explore", "callers", "callees", "related", "filter",
                "where", "exclude", "not", "has", "take", "sort", "include", "with", "uml",
                "answer"
            ]
        );
        assert_eq!(s[0].arg("limit"), Some(&Value::Int(5)));
        assert_eq!(s[2].arg("include_code"), Some(&Value::Bool(false)));
        assert_eq!(s[3].arg("depth"), Some(&Value::Int(2)));
        assert_eq!(s[6].arg("kind"), Some(&Value::Str("function".into())));
        assert_eq!(s[12].arg("by"), Some(&Value::Str("fan_in".into())));
        assert_eq!(s[12].arg("desc"), Some(&Value::Bool(true)));
        assert_eq!(s[15].arg("direction"), Some(&Value::Str("LR".into())));
        assert_eq!(s[16].arg("compact"), Some(&Value::Bool(true)));
        let l = parse("filter(name=[a, 'b', 3, 2.5, null])").unwrap();
        assert_eq!(
            l[0].arg("name"),
            Some(&Value::List(vec![
                Value::Str("a".into()),
                Value::Str("b".into()),
                Value::Int(3),
                Value::Float(2.5),
                Value::Null
            ]))
        );
        assert_eq!(s[0].render(), "search(\"parse\", limit=5)");
    }

    #[test]
    fn errors_carry_columns() {
        let e = err("search(\"x\").bogus()");
        assert_eq!(e.column, 13);
        assert!(e.detail.contains("unknown step 'bogus'"));
        assert!(
            e.to_string()
                .starts_with("Chain syntax error: unknown step")
        );
        assert!(err("serch(\"x\")").detail.contains("did you mean 'search'"));
        let e = err("search(\"x\", color=1)");
        assert_eq!(e.column, 13);
        assert!(e.detail.contains("unknown argument 'color'"));
        assert_eq!(err("search(\"x\"").column, 7);
        assert!(err("search(\"x\"").detail.contains("unclosed"));
        assert_eq!(err("search(\"x\") callers()").column, 13);
        assert_eq!(err("search('x).take(1)").column, 8);
        assert!(err("search()").detail.contains("needs a query"));
        assert!(err("take()").detail.contains("needs a count"));
        assert!(err("take(1, 2)").detail.contains("at most 1 positional"));
        assert!(err("include(\"bogus\")").detail.contains("facet names"));
        assert!(
            err("search(\"x\", query=\"y\")")
                .detail
                .contains("given twice")
        );
        assert!(err("search(@)").detail.contains("expected a value"));
        assert_eq!(err("search(@)").column, 8);
        assert!(err("filter(name=[[1]])").detail.contains("nested"));
        assert!(err("search(\"x\").").detail.contains("step name"));
        assert!(
            err("search(\"x\" 1)")
                .detail
                .contains("expected ',' or ')'")
        );
        assert_eq!(err("").detail, "empty query");
    }

    #[test]
    fn limits() {
        let long = format!("search(\"{}\")", "a".repeat(MAX_QUERY_CHARS));
        assert!(err(&long).detail.contains("longer than 4096"));
        let many = vec!["take(1)"; MAX_STEPS + 1].join(".");
        let e = err(&many);
        assert!(e.detail.contains("more than 20 steps"));
        assert_eq!(e.column, 1 + 8 * MAX_STEPS);
        assert!(parse(&vec!["take(1)"; MAX_STEPS].join(".")).is_ok());
        let list = format!("filter(name=[{}])", ["1"; MAX_LIST_ITEMS + 1].join(","));
        assert!(err(&list).detail.contains("longer than 8 items"));
        assert!(
            parse(&format!(
                "filter(name=[{}])",
                ["1"; MAX_LIST_ITEMS].join(",")
            ))
            .is_ok()
        );
        let s = format!("search(\"{}\")", "a".repeat(MAX_STRING_CHARS + 1));
        assert!(err(&s).detail.contains("longer than 160"));
        assert!(parse(&format!("search(\"{}\")", "a".repeat(MAX_STRING_CHARS))).is_ok());
        assert!(err(&"a ".repeat(100)).detail.contains("longer than 160"));
    }

    fn without_columns(steps: Vec<Step>) -> Vec<Step> {
        steps
            .into_iter()
            .map(|mut s| {
                s.column = 0;
                s.args.iter_mut().for_each(|a| a.column = 0);
                s
            })
            .collect()
    }

    /// Found by the `chain_parse` fuzz target: the pipeline an answer shows was
    /// written with Rust escapes (`\u{12}`) and integral floats lost their `.0`,
    /// so it did not parse back to the steps that ran.
    #[test]
    fn rendered_pipeline_parses_back_to_the_same_steps() {
        for q in [
            "stor\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}\u{12}m records",
            "search('a\"b\\\\c\\n\\t\r', limit=1.0).take(-0.0)",
            "search(\"x\", limit=[1.5, 2.0, 0.000001])",
        ] {
            let steps = parse(q).unwrap();
            let pipeline: Vec<String> = steps.iter().map(Step::render).collect();
            let again = parse(&pipeline.join(".")).unwrap();
            assert_eq!(without_columns(again), without_columns(steps), "{q:?}");
        }
    }

    #[test]
    fn a_number_beyond_f64_is_an_error() {
        let q = format!("search(\"x\", limit={})", "9".repeat(400));
        assert!(err(&q).detail.contains("invalid number"));
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_columns_stay_in_range(s in "[a-z_().,=\\[\\]'\" 0-9-é]{0,60}") {
            if let Err(e) = parse(&s) {
                proptest::prop_assert!(e.column >= 1 && e.column <= s.chars().count() + 1, "{e}");
            }
        }

        #[test]
        fn never_panics_on_any_text(s in ".{0,120}") {
            let _ = parse(&s);
        }
    }
}
