//! Receivers written as chains (`new Builder().a().b()`, `Type.FIELD.m()`,
//! `repo.find(id).owner()`): split into their steps, so the resolver can type
//! each step from the one before (a constructor's class, a field's declared
//! type, a method's declared return type).
//!
//! The resolver reads a chain as `Base` followed by steps, each `@name` (the
//! value a method `name` returns) or `#name` (the field `name`):
//! `new Builder().a().b()` is `Builder@a@b`, `Type.FIELD.m()` is `Type#FIELD@m`.

use crate::returns::{is_identifier, receiver_type_name, unwrap_generic};

/// One step of a chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `new X(...)` or `((X) e)` (only first): a value of type `X`.
    New(String),
    /// `name(...)`: a call.
    Call(String),
    /// `name`: a variable, field, type or package name.
    Name(String),
}

/// The steps of `recv`, or `None` when some part is not a plain name, call or
/// `new` (an index, a cast, a literal, a lambda), or the text was cut.
pub(crate) fn steps(recv: &str) -> Option<Vec<Step>> {
    if recv.contains('…') {
        return None;
    }
    let parts = top_level_dots(recv)?;
    let mut out = Vec::with_capacity(parts.len());
    let mut i = 0;
    while i < parts.len() {
        let p = parts[i].trim();
        if i == 0
            && let Some(rest) = p.strip_prefix("new ")
        {
            // `new a.b.X<T>(...) { ... }`: the dotted type runs to the part with `(`.
            let mut ty = rest.trim().to_owned();
            while !ty.contains('(') {
                i += 1;
                ty.push('.');
                ty.push_str(parts.get(i)?.trim());
            }
            let open = ty.find('(')?;
            let name = receiver_type_name(unwrap_generic(ty[..open].trim()))?;
            // `a.b.Outer.Inner`: from the first type-like (capitalized) segment on.
            let segs: Vec<&str> = name.split('.').collect();
            let from = segs
                .iter()
                .position(|p| p.starts_with(|c: char| c.is_uppercase() || c == '$'))
                .unwrap_or(segs.len() - 1);
            out.push(Step::New(segs[from..].join(".")));
            i += 1;
            continue;
        }
        // `((Type) expr)`: a cast, a value of `Type`.
        if i == 0
            && p.starts_with('(')
            && matching(p, '(', ')') == Some(p.len() - 1)
            && let Some(ty) = cast_type(p[1..p.len() - 1].trim())
        {
            out.push(Step::New(ty));
            i += 1;
            continue;
        }
        // `<T>name(...)` (Java's explicit type arguments) or `name(...)`.
        let p = match p.strip_prefix('<') {
            Some(_) => p[matching(p, '<', '>')? + 1..].trim_start(),
            None => p,
        };
        match p.find('(') {
            Some(open) => {
                let name = p[..open].trim();
                if !is_identifier(name) || matching(&p[open..], '(', ')')? + open + 1 != p.len() {
                    return None;
                }
                out.push(Step::Call(name.to_owned()));
            }
            None if is_identifier(p) => out.push(Step::Name(p.to_owned())),
            None => return None,
        }
        i += 1;
    }
    Some(out)
}

/// `(Type) expr` -> `Type` (a capitalized type name: `(a) - b` is no cast).
fn cast_type(inner: &str) -> Option<String> {
    if !inner.starts_with('(') {
        return None;
    }
    let close = matching(inner, '(', ')')?;
    if inner[close + 1..].trim().is_empty() {
        return None;
    }
    let ty = receiver_type_name(unwrap_generic(inner[1..close].trim()))?;
    let last = ty.rsplit('.').next().unwrap_or(&ty);
    last.starts_with(|c: char| c.is_uppercase())
        .then(|| last.to_owned())
}

/// `recv` as the resolver reads a chain (`Base@m#f`), or `None` when it is no
/// chain (a plain name) or some step is not typed: `self_type` is the enclosing
/// type (for `this.a().b()`), `var_type` a variable's stated type.
pub(crate) fn marked<'a>(
    recv: &str,
    self_receivers: &[&str],
    self_type: impl Fn() -> Option<&'a str>,
    var_type: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let steps = steps(recv)?;
    let (first, mut rest) = steps.split_first()?;
    let mut out = match first {
        Step::New(t) => t.clone(),
        Step::Call(f) if !rest.is_empty() => f.clone(),
        Step::Call(_) => return None,
        Step::Name(n) if self_receivers.contains(&n.as_str()) => self_type()?.to_owned(),
        Step::Name(n) => match var_type(n) {
            Some(t) => t,
            // A type's name (`Type.FIELD.m()`, `Outer.this.m()`).
            None if n.starts_with(|c: char| c.is_uppercase() || c == '$') => n.clone(),
            None => return None,
        },
    };
    if let [Step::Name(t), more @ ..] = rest
        && self_receivers.contains(&t.as_str())
    {
        rest = more;
    } else if rest.is_empty() && matches!(first, Step::Name(_)) {
        // A plain name (`Math`, `x`) is no chain: the ordinary rules read it.
        return None;
    }
    for s in rest {
        let (mark, name) = match s {
            Step::Call(m) => ('@', m),
            Step::Name(f) => ('#', f),
            Step::New(_) => return None,
        };
        out.push(mark);
        out.push_str(name);
    }
    Some(out)
}

/// The byte offset of the bracket closing the one `s` starts with.
fn matching(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// `recv` split at the dots outside brackets, strings and generic arguments.
fn top_level_dots(recv: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut angle = 0i32;
    let mut quote: Option<char> = None;
    let mut prev = '\0';
    let mut start = 0;
    for (i, c) in recv.char_indices() {
        if let Some(q) = quote {
            if c == q && prev != '\\' {
                quote = None;
            }
            prev = if prev == '\\' && c == '\\' { '\0' } else { c };
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '<' if depth == 0 => angle += 1,
            '>' if depth == 0 && angle > 0 => angle -= 1,
            '.' if depth == 0 && angle == 0 => {
                parts.push(&recv[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        prev = c;
    }
    if depth != 0 || quote.is_some() {
        return None;
    }
    parts.push(&recv[start..]);
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::{Step, steps};

    fn s(x: &str) -> Vec<Step> {
        steps(x).unwrap()
    }

    #[test]
    fn chains_are_marked_for_the_resolver() {
        let m = |r: &str| {
            super::marked(
                r,
                &["this"],
                || Some("Self_"),
                |v| (v == "b").then(|| "Builder".to_owned()),
            )
        };
        assert_eq!(m("new B().a().c()").as_deref(), Some("B@a@c"));
        assert_eq!(m("b.name(x).size(2)").as_deref(), Some("Builder@name@size"));
        assert_eq!(m("T.FIELD.copy()").as_deref(), Some("T#FIELD@copy"));
        assert_eq!(m("this.f.g()").as_deref(), Some("Self_#f@g"));
        assert_eq!(m("Outer.this").as_deref(), Some("Outer"));
        assert_eq!(m("make().x()").as_deref(), Some("make@x"));
        assert_eq!(m("Math"), None);
        assert_eq!(m("unknown.x()"), None);
        assert_eq!(m("make()"), None);
    }

    #[test]
    fn splits_chains_into_steps() {
        use Step::*;
        assert_eq!(
            s("new GsonBuilder() .setPrettyPrinting() .create()"),
            [
                New("GsonBuilder".into()),
                Call("setPrettyPrinting".into()),
                Call("create".into())
            ]
        );
        assert_eq!(
            s("new TypeToken<List<String>>() {}"),
            [New("TypeToken".into())]
        );
        assert_eq!(
            s("new a.b.Outer.Inner(x, y.z())"),
            [New("Outer.Inner".into())]
        );
        assert_eq!(
            s("Excluder.DEFAULT.withVersion(1.0)"),
            [
                Name("Excluder".into()),
                Name("DEFAULT".into()),
                Call("withVersion".into())
            ]
        );
        assert_eq!(
            s("e.getAsJsonObject().get(\"a.b\")"),
            [
                Name("e".into()),
                Call("getAsJsonObject".into()),
                Call("get".into())
            ]
        );
        assert_eq!(
            s("Collections.<String>emptyList()"),
            [Name("Collections".into()), Call("emptyList".into())]
        );
        assert_eq!(s("make(a, (b) -> b.c())"), [Call("make".into())]);
        assert_eq!(
            s("((JsonPrimitive) popStack()).getAsString()"),
            [New("JsonPrimitive".into()), Call("getAsString".into())]
        );
        assert_eq!(s("((Map<K, V>) o)"), [New("Map".into())]);
        for bad in [
            "a[0].b()",
            "((a) - b).y()",
            "(x).y()",
            "\"s\".trim()",
            "f()…",
            "a.b() + c",
        ] {
            assert_eq!(steps(bad), None, "{bad}");
        }
    }
}
