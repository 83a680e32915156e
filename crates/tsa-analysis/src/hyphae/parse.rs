//! The Hyphae selector grammar (analyses.md §10), a hand-written recursive-descent
//! parser into an AST carrying byte positions.
//!
//! ```text
//! SelectorList   := Selector (',' Selector)*
//! Selector       := Compound ( (WS | '>' | '~') Compound )*
//! Compound       := Base? Attribute* PseudoClass*      (at least one part)
//! Base           := '#' IDENT | '.' IDENT | '*'
//! Attribute      := '[' IDENT '=' value ']'
//! PseudoClass    := ':' IDENT ( '(' (NUMBER | path | SelectorList) ')' )?
//! ```
//! A compound without a base (`:calls(#log)` inside `:not(...)`) means "any symbol".

use std::fmt;

/// Longest selector accepted.
pub const MAX_SELECTOR_CHARS: usize = 2000;
/// Deepest nesting of pseudo-class arguments.
const MAX_DEPTH: usize = 16;

/// A syntax error at a byte offset of the selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub detail: String,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Hyphae syntax error: {} at column {}",
            self.detail, self.column
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SelectorList {
    pub selectors: Vec<Selector>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Selector {
    pub first: Compound,
    pub rest: Vec<(Combinator, Compound)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combinator {
    /// `A B`: B inside (at any depth) a definition matched by A.
    Descendant,
    /// `A > B`: B directly contained by a definition matched by A.
    Child,
    /// `A ~ B`: B shares its container with a (different) A.
    Sibling,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Compound {
    pub base: Base,
    pub attrs: Vec<Attr>,
    pub pseudos: Vec<Pseudo>,
    /// Byte range in the selector.
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    /// `#name`
    Name(String),
    /// `.kind`
    Kind(String),
    /// `*`: functions, methods and types.
    Star,
    /// No base written: any symbol.
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKey {
    File,
    Language,
    Class,
    Kind,
    Name,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    pub key: AttrKey,
    pub value: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pseudo {
    Calls(SelectorList),
    /// `:callees(S)` and `:called-by(S)`.
    CalledBy(SelectorList),
    Extends(SelectorList),
    Implements(SelectorList),
    Subclasses(SelectorList),
    Imports(String),
    Has(SelectorList),
    Not(SelectorList),
    In(String),
    FirstChild,
    LastChild,
    OnlyChild,
    NthChild(usize),
    /// `:calls(S){n,m}` / `:reaches(S){n,m}` (`forward` false: the candidate reaches
    /// S) and `:callees(S){n,m}` / `:called-by(S){n,m}` (`forward` true: S reaches
    /// the candidate), over resolved call edges, n..m hops.
    Reach {
        forward: bool,
        inner: SelectorList,
        min: u32,
        max: u32,
    },
    /// `:hot`, `:hot(N)`, `:recently_modified`, `:stale`, `:hotspot`: need per-symbol
    /// git activation, which this index does not hold.
    Temporal(String),
    /// `:violates(rule_id)`.
    Violates(String),
    /// `:branch(kind)`: called from a call site inside a branch of that kind.
    Branch(tsa_lang::BranchKind),
}

/// The most hops of a quantifier.
pub const MAX_HOPS: u32 = 50;

/// The pseudo-classes this grammar knows, for error messages.
pub const PSEUDO_CLASSES: &[&str] = &[
    "calls",
    "callees",
    "called-by",
    "extends",
    "implements",
    "subclasses",
    "imports",
    "has",
    "not",
    "in",
    "first-child",
    "last-child",
    "only-child",
    "nth-child",
    "reaches",
    "hot",
    "recently_modified",
    "stale",
    "hotspot",
    "violates",
    "branch",
];

/// Parses a selector list.
pub fn parse(input: &str) -> Result<SelectorList, SyntaxError> {
    if input.chars().count() > MAX_SELECTOR_CHARS {
        return Err(SyntaxError {
            detail: format!("selector longer than {MAX_SELECTOR_CHARS} characters"),
            column: MAX_SELECTOR_CHARS + 1,
        });
    }
    let mut p = Parser {
        src: input,
        pos: 0,
        depth: 0,
    };
    p.skip_ws();
    if p.at_end() {
        return Err(p.error_here("empty selector"));
    }
    let list = p.selector_list()?;
    p.skip_ws();
    if !p.at_end() {
        let c = p.peek().unwrap_or(' ');
        return Err(p.error_here(&format!("unexpected '{c}'")));
    }
    Ok(list)
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '$'
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
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Skips whitespace; true when any was skipped.
    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
        self.pos > start
    }

    fn column_at(&self, byte: usize) -> usize {
        self.src[..byte.min(self.src.len())].chars().count() + 1
    }

    fn error_at(&self, byte: usize, detail: &str) -> SyntaxError {
        SyntaxError {
            detail: detail.to_owned(),
            column: self.column_at(byte),
        }
    }

    fn error_here(&self, detail: &str) -> SyntaxError {
        self.error_at(self.pos, detail)
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            Some(c) => format!("'{c}'"),
            None => "end of selector".to_owned(),
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, SyntaxError> {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.bump();
        }
        if self.pos == start {
            return Err(
                self.error_here(&format!("expected {what}, found {}", self.describe_next()))
            );
        }
        Ok(self.src[start..self.pos].to_owned())
    }

    fn selector_list(&mut self) -> Result<SelectorList, SyntaxError> {
        let mut selectors = vec![self.selector()?];
        loop {
            self.skip_ws();
            if self.eat(',') {
                self.skip_ws();
                selectors.push(self.selector()?);
            } else {
                return Ok(SelectorList { selectors });
            }
        }
    }

    fn selector(&mut self) -> Result<Selector, SyntaxError> {
        let first = self.compound()?;
        let mut rest = Vec::new();
        loop {
            let save = self.pos;
            let spaced = self.skip_ws();
            let comb = match self.peek() {
                Some('>') => {
                    self.bump();
                    Combinator::Child
                }
                Some('~') => {
                    self.bump();
                    Combinator::Sibling
                }
                Some(',') | Some(')') | None => {
                    self.pos = save;
                    return Ok(Selector { first, rest });
                }
                Some(_) if spaced => Combinator::Descendant,
                Some(c) => {
                    return Err(self.error_here(&format!(
                        "unexpected '{c}' (a selector part starts with '#', '.', '*', '[' or ':')"
                    )));
                }
            };
            self.skip_ws();
            if matches!(self.peek(), None | Some(',') | Some(')')) {
                return Err(self.error_here(&format!(
                    "expected a selector after the combinator, found {}",
                    self.describe_next()
                )));
            }
            rest.push((comb, self.compound()?));
        }
    }

    fn compound(&mut self) -> Result<Compound, SyntaxError> {
        let start = self.pos;
        let base = match self.peek() {
            Some('#') => {
                self.bump();
                Base::Name(self.ident("a name after '#'")?)
            }
            Some('.') => {
                self.bump();
                Base::Kind(self.ident("a kind after '.'")?.to_lowercase())
            }
            Some('*') => {
                self.bump();
                Base::Star
            }
            Some('[') | Some(':') => Base::Any,
            _ => {
                return Err(self.error_here(&format!(
                    "expected '#name', '.kind', '*', '[attr=value]' or ':pseudo', found {}",
                    self.describe_next()
                )));
            }
        };
        let mut attrs = Vec::new();
        while self.peek() == Some('[') {
            attrs.push(self.attribute()?);
        }
        let mut pseudos = Vec::new();
        while self.peek() == Some(':') {
            pseudos.push(self.pseudo()?);
        }
        if self.peek() == Some('[') {
            return Err(self.error_here("attributes must come before pseudo-classes"));
        }
        if matches!(self.peek(), Some('#') | Some('.') | Some('*')) {
            return Err(self.error_here(&format!(
                "unexpected '{}': one base per selector part (use a space or '>' to combine)",
                self.peek().unwrap_or(' ')
            )));
        }
        Ok(Compound {
            base,
            attrs,
            pseudos,
            start,
            end: self.pos,
        })
    }

    fn attribute(&mut self) -> Result<Attr, SyntaxError> {
        let open = self.pos;
        self.bump(); // '['
        self.skip_ws();
        let key_at = self.pos;
        let key_text = self.ident("an attribute name")?;
        let key = match key_text.to_lowercase().as_str() {
            "file" | "path" => AttrKey::File,
            "language" | "lang" => AttrKey::Language,
            "class" | "owner" => AttrKey::Class,
            "kind" | "type" => AttrKey::Kind,
            "name" => AttrKey::Name,
            _ => {
                return Err(self.error_at(
                    key_at,
                    &format!(
                        "unknown attribute '{key_text}' (known: file, language, class, kind, name)"
                    ),
                ));
            }
        };
        self.skip_ws();
        if !self.eat('=') {
            return Err(self.error_here(&format!(
                "expected '=' after attribute '{key_text}', found {}",
                self.describe_next()
            )));
        }
        self.skip_ws();
        let value_at = self.pos;
        let value = if matches!(self.peek(), Some('"') | Some('\'')) {
            self.quoted()?
        } else {
            let start = self.pos;
            while self
                .peek()
                .is_some_and(|c| c != ']' && !c.is_whitespace() && c != '[')
            {
                self.bump();
            }
            self.src[start..self.pos].to_owned()
        };
        if value.is_empty() {
            return Err(self.error_at(value_at, &format!("empty value for attribute '{key_text}'")));
        }
        self.skip_ws();
        if !self.eat(']') {
            return Err(if self.at_end() {
                self.error_at(open, "unclosed '['")
            } else {
                self.error_here(&format!("expected ']', found {}", self.describe_next()))
            });
        }
        Ok(Attr { key, value })
    }

    fn quoted(&mut self) -> Result<String, SyntaxError> {
        let open = self.pos;
        let quote = self.bump().unwrap_or('"');
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(self.error_at(open, "unterminated string")),
                Some('\\') => match self.bump() {
                    Some(c) => out.push(c),
                    None => return Err(self.error_at(open, "unterminated string")),
                },
                Some(c) if c == quote => return Ok(out),
                Some(c) => out.push(c),
            }
        }
    }

    fn pseudo(&mut self) -> Result<Pseudo, SyntaxError> {
        let colon = self.pos;
        self.bump(); // ':'
        let name_at = self.pos;
        let name = self.ident("a pseudo-class name after ':'")?;
        let lname = name.to_lowercase();
        if !PSEUDO_CLASSES.contains(&lname.as_str()) {
            let close = crate::suggest::closest(&lname, PSEUDO_CLASSES.iter().copied());
            let hint = match close {
                Some(c) => format!(" (did you mean ':{c}'?)"),
                None => format!(" (known: :{})", PSEUDO_CLASSES.join(", :")),
            };
            return Err(self.error_at(name_at, &format!("unknown pseudo-class ':{name}'{hint}")));
        }
        let takes_arg = !matches!(
            lname.as_str(),
            "first-child" | "last-child" | "only-child" | "recently_modified" | "stale" | "hotspot"
        );
        let has_paren = self.peek() == Some('(');
        if lname == "hot" && !has_paren {
            return self.unquantified(Pseudo::Temporal(lname));
        }
        if !takes_arg {
            if has_paren {
                return Err(self.error_here(&format!(":{lname} takes no argument")));
            }
            let p = match lname.as_str() {
                "first-child" => Pseudo::FirstChild,
                "last-child" => Pseudo::LastChild,
                "only-child" => Pseudo::OnlyChild,
                _ => Pseudo::Temporal(lname),
            };
            return self.unquantified(p);
        }
        if !has_paren {
            let example = match lname.as_str() {
                "imports" => "(module)",
                "in" => "(path/)",
                "nth-child" => "(2)",
                _ => "(#name)",
            };
            return Err(self.error_here(&format!(
                ":{lname} needs an argument in parentheses, e.g. :{lname}{example}"
            )));
        }
        let open = self.pos;
        self.bump(); // '('
        self.skip_ws();
        let pseudo = match lname.as_str() {
            "hot" | "violates" | "branch" => self.data_pseudo(&lname, open)?,
            "imports" | "in" => {
                let text = self.raw_argument(open)?;
                if text.is_empty() {
                    return Err(self.error_at(open, &format!("empty argument to :{lname}")));
                }
                if lname == "in" {
                    Pseudo::In(text)
                } else {
                    Pseudo::Imports(text)
                }
            }
            "nth-child" => {
                let at = self.pos;
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
                let digits = &self.src[start..self.pos];
                let n: usize = digits.parse().map_err(|_| {
                    self.error_at(at, "expected a positive integer in :nth-child(n)")
                })?;
                if n == 0 {
                    return Err(self.error_at(at, ":nth-child(n) counts from 1"));
                }
                Pseudo::NthChild(n)
            }
            _ => {
                if self.peek() == Some(')') {
                    return Err(self.error_here(&format!("empty selector in :{lname}()")));
                }
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(self.error_at(colon, "pseudo-classes nested too deeply"));
                }
                let inner = self.selector_list()?;
                self.depth -= 1;
                match lname.as_str() {
                    "reaches" => Pseudo::Reach {
                        forward: false,
                        inner,
                        min: 1,
                        max: 1,
                    },
                    "calls" => Pseudo::Calls(inner),
                    "callees" | "called-by" => Pseudo::CalledBy(inner),
                    "extends" => Pseudo::Extends(inner),
                    "implements" => Pseudo::Implements(inner),
                    "subclasses" => Pseudo::Subclasses(inner),
                    "has" => Pseudo::Has(inner),
                    _ => Pseudo::Not(inner),
                }
            }
        };
        self.skip_ws();
        if !self.eat(')') {
            return Err(if self.at_end() {
                self.error_at(open, "unclosed '('")
            } else {
                self.error_here(&format!("expected ')', found {}", self.describe_next()))
            });
        }
        if self.peek() != Some('{') {
            return Ok(pseudo);
        }
        let at = self.pos;
        let (min, max) = self.quantifier()?;
        Ok(match pseudo {
            Pseudo::Calls(inner) | Pseudo::Reach { inner, .. } => Pseudo::Reach {
                forward: false,
                inner,
                min,
                max,
            },
            Pseudo::CalledBy(inner) => Pseudo::Reach {
                forward: true,
                inner,
                min,
                max,
            },
            _ => {
                return Err(self.error_at(
                    at,
                    &format!("a {{n,m}} quantifier only follows :calls, :callees, :called-by or :reaches, not :{lname}"),
                ));
            }
        })
    }

    /// The argument of `:hot(N)`, `:violates(rule)` or `:branch(kind)`.
    fn data_pseudo(&mut self, lname: &str, open: usize) -> Result<Pseudo, SyntaxError> {
        let at = self.pos;
        let text = self.raw_argument(open)?;
        let text = text.trim();
        if lname == "hot" {
            let days: u32 = text
                .parse()
                .map_err(|_| self.error_at(at, ":hot(N) takes a number of days"))?;
            if !(1..=365_000).contains(&days) {
                return Err(self.error_at(at, ":hot(N) takes 1 to 365000 days"));
            }
            return Ok(Pseudo::Temporal(format!("hot({days})")));
        }
        if text.is_empty() {
            return Err(self.error_at(open, &format!("empty argument to :{lname}")));
        }
        if lname == "violates" {
            return Ok(Pseudo::Violates(text.to_owned()));
        }
        match tsa_lang::BranchKind::parse(&text.to_lowercase()) {
            Some(k) => Ok(Pseudo::Branch(k)),
            None => {
                let known: Vec<&str> = tsa_lang::BranchKind::ALL.iter().map(|k| k.name()).collect();
                Err(self.error_at(
                    at,
                    &format!(
                        "unknown branch kind '{text}' (known: {}; catch = except)",
                        known.join(", ")
                    ),
                ))
            }
        }
    }

    /// A pseudo-class that takes no quantifier.
    fn unquantified(&self, p: Pseudo) -> Result<Pseudo, SyntaxError> {
        if self.peek() == Some('{') {
            return Err(self.error_here(
                "a {n,m} quantifier only follows :calls, :callees, :called-by or :reaches",
            ));
        }
        Ok(p)
    }

    /// `{n}` or `{n,m}`: 1 <= n <= m <= 50.
    fn quantifier(&mut self) -> Result<(u32, u32), SyntaxError> {
        let open = self.pos;
        self.bump(); // '{'
        let number = |p: &mut Self| -> Result<u32, SyntaxError> {
            p.skip_ws();
            let start = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.bump();
            }
            p.src[start..p.pos]
                .parse::<u32>()
                .map_err(|_| p.error_at(start, "expected a number of hops in {n,m}"))
        };
        let min = number(self)?;
        self.skip_ws();
        let max = if self.eat(',') { number(self)? } else { min };
        self.skip_ws();
        if !self.eat('}') {
            return Err(self.error_at(open, "expected '}' to close the quantifier"));
        }
        if min == 0 {
            return Err(self.error_at(open, "a quantifier counts hops from 1"));
        }
        if max > MAX_HOPS {
            return Err(self.error_at(open, &format!("at most {MAX_HOPS} hops")));
        }
        if min > max {
            return Err(self.error_at(open, "in {n,m}, n must not exceed m"));
        }
        Ok((min, max))
    }

    /// A path or module argument: a quoted string, or raw text up to the closing ')'.
    fn raw_argument(&mut self, open: usize) -> Result<String, SyntaxError> {
        if matches!(self.peek(), Some('"') | Some('\'')) {
            return self.quoted();
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == ')' {
                break;
            }
            if c == '(' {
                return Err(self.error_here("unexpected '(' in a path argument (quote it)"));
            }
            self.bump();
        }
        if self.at_end() {
            return Err(self.error_at(open, "unclosed '('"));
        }
        Ok(self.src[start..self.pos].trim().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantifiers_are_checked_when_parsed() {
        let ok = parse(".function:calls(#x){2,3}").unwrap();
        assert!(matches!(
            ok.selectors[0].first.pseudos[0],
            Pseudo::Reach {
                forward: false,
                min: 2,
                max: 3,
                ..
            }
        ));
        assert!(matches!(
            parse("*:called-by(#x){4}").unwrap().selectors[0]
                .first
                .pseudos[0],
            Pseudo::Reach {
                forward: true,
                min: 4,
                max: 4,
                ..
            }
        ));
        for bad in [
            "*:calls(#x){0}",
            "*:calls(#x){51}",
            "*:calls(#x){3,2}",
            "*:has(#x){1}",
            "*:hot{2}",
            "*:stale(1)",
            "*:calls(#x){a}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse("*:hot(30)").is_ok());
        assert!(parse("*:violates(no-cycles)").is_ok());
        assert!(parse("*:branch(loop)").is_ok());
    }

    #[test]
    fn every_schema_example_parses() {
        let ex = crate::hyphae::tql_examples();
        assert!(ex.len() >= 5);
        for e in ex {
            parse(e).unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }

    fn err(s: &str) -> SyntaxError {
        parse(s).expect_err(s)
    }

    fn one(s: &str) -> Selector {
        let mut l = parse(s).unwrap();
        assert_eq!(l.selectors.len(), 1);
        l.selectors.remove(0)
    }

    #[test]
    fn bases() {
        assert_eq!(one("#Foo").first.base, Base::Name("Foo".into()));
        assert_eq!(one(".Function").first.base, Base::Kind("function".into()));
        assert_eq!(one("*").first.base, Base::Star);
        assert_eq!(one(":not(#x)").first.base, Base::Any);
        assert_eq!(one("[file=a.py]").first.base, Base::Any);
        assert_eq!(one("#__init__").first.base, Base::Name("__init__".into()));
    }

    #[test]
    fn attributes() {
        let s = one(
            r#".function[file=app/core.py][language = python][class="Engine"][kind=method][name='x y']"#,
        );
        let keys: Vec<_> = s
            .first
            .attrs
            .iter()
            .map(|a| (a.key, a.value.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                (AttrKey::File, "app/core.py"),
                (AttrKey::Language, "python"),
                (AttrKey::Class, "Engine"),
                (AttrKey::Kind, "method"),
                (AttrKey::Name, "x y"),
            ]
        );
    }

    #[test]
    fn pseudo_classes() {
        let s = one(
            ".function:calls(#IndexShard):in(server/):imports(os.path):not(:calls(#log), #x):has(.method):nth-child(2):first-child:last-child:only-child:callees(#a):called-by(#b):extends(#B):implements(#I):subclasses(#C)",
        );
        let p = &s.first.pseudos;
        assert_eq!(p.len(), 14);
        assert!(
            matches!(&p[0], Pseudo::Calls(l) if l.selectors[0].first.base == Base::Name("IndexShard".into()))
        );
        assert_eq!(p[1], Pseudo::In("server/".into()));
        assert_eq!(p[2], Pseudo::Imports("os.path".into()));
        assert!(matches!(&p[3], Pseudo::Not(l) if l.selectors.len() == 2));
        assert!(matches!(&p[4], Pseudo::Has(_)));
        assert_eq!(p[5], Pseudo::NthChild(2));
        assert_eq!(p[6], Pseudo::FirstChild);
        assert_eq!(p[7], Pseudo::LastChild);
        assert_eq!(p[8], Pseudo::OnlyChild);
        assert!(matches!(&p[9], Pseudo::CalledBy(_)));
        assert!(matches!(&p[10], Pseudo::CalledBy(_)));
        assert!(matches!(&p[11], Pseudo::Extends(_)));
        assert!(matches!(&p[12], Pseudo::Implements(_)));
        assert!(matches!(&p[13], Pseudo::Subclasses(_)));
        assert_eq!(
            one(":in('a (b)/')").first.pseudos[0],
            Pseudo::In("a (b)/".into())
        );
    }

    #[test]
    fn combinators_and_lists() {
        let s = one("#Foo > .method ~ #bar  .function");
        let combs: Vec<_> = s.rest.iter().map(|r| r.0).collect();
        assert_eq!(
            combs,
            [
                Combinator::Child,
                Combinator::Sibling,
                Combinator::Descendant
            ]
        );
        let l = parse(" #a , .class>.method ,* ").unwrap();
        assert_eq!(l.selectors.len(), 3);
        assert_eq!(l.selectors[1].rest[0].0, Combinator::Child);
        let s = one("#A>#B");
        assert_eq!(s.first.start, 0);
        assert_eq!(s.first.end, 2);
        assert_eq!((s.rest[0].1.start, s.rest[0].1.end), (3, 5));
    }

    #[test]
    fn errors_carry_columns() {
        let e = err(".function:bogus(#x)");
        assert_eq!(e.column, 11);
        assert!(e.detail.contains("unknown pseudo-class ':bogus'"), "{e}");
        assert_eq!(
            e.to_string(),
            format!("Hyphae syntax error: {} at column 11", e.detail)
        );
        assert!(err(":callz(#x)").detail.contains("did you mean ':calls'"));
        assert_eq!(err("").column, 1);
        assert_eq!(err("   ").detail, "empty selector");
        assert_eq!(err("#").column, 2);
        assert_eq!(err(".function:calls(#x").column, 16);
        assert!(err(".function:calls(#x").detail.contains("unclosed '('"));
        assert_eq!(err(".function:calls()").column, 17);
        assert_eq!(err("[file=x").column, 1);
        assert!(
            err("[bogus=1]")
                .detail
                .contains("unknown attribute 'bogus'")
        );
        assert_eq!(err("[bogus=1]").column, 2);
        assert_eq!(err("[file=]").column, 7);
        assert_eq!(err("[file x]").column, 7);
        assert_eq!(err("#a >").column, 5);
        assert_eq!(err("#a,").column, 4);
        assert_eq!(err("#a$b%").column, 5);
        assert!(err("#a#b").detail.contains("one base"));
        assert!(err(":first-child(1)").detail.contains("takes no argument"));
        assert!(err(":calls").detail.contains("needs an argument"));
        assert!(err(":nth-child(0)").detail.contains("counts from 1"));
        assert!(err(":nth-child(x)").detail.contains("positive integer"));
        assert_eq!(err(":nth-child(x)").column, 12);
        assert!(err(":in()").detail.contains("empty argument"));
        assert!(err("#a)").detail.contains("unexpected ')'"));
        assert!(err(":in('abc)").detail.contains("unterminated string"));
        assert!(
            err(":has(.x)[file=a]")
                .detail
                .contains("before pseudo-classes")
        );
        // Columns count characters, not bytes.
        assert_eq!(err("#é:zz").column, 4);
    }

    #[test]
    fn limits() {
        let long = format!("#{}", "a".repeat(MAX_SELECTOR_CHARS));
        assert!(err(&long).detail.contains("longer than"));
        let deep = format!("{}#x{}", ":not(".repeat(40), ")".repeat(40));
        assert!(err(&deep).detail.contains("nested too deeply"));
        let ok = format!("{}#x{}", ":not(".repeat(10), ")".repeat(10));
        assert!(parse(&ok).is_ok());
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_columns_stay_in_range(s in "[#.*\\[\\]:(),>~ a-zé=0-9'\"-]{0,60}") {
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
