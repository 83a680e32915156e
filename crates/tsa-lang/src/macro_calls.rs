//! Function-like macros that wrap one call (C, C++): `#define mutex_lock(l)
//! mutex_lock_nested(l, 0)`. The grammar keeps a macro's body as opaque text, so
//! the call it expands to is read from that text here and recorded as a call site
//! of the macro's definition: callers of `mutex_lock_nested` then reach every
//! caller of the `mutex_lock` macro through it. Only a body that is one plain call
//! counts (optionally in parentheses, optionally ending in `;`); anything else
//! (statements, operators, token pasting) records nothing.

use crate::languages::{Family, Language};
use crate::model::{CallSite, DefKind, FileExtract};

/// Adds the call each wrapping macro of `x` expands to.
pub(crate) fn add(lang: Language, src: &[u8], x: &mut FileExtract) {
    if lang.family() != Family::C {
        return;
    }
    let mut found = Vec::new();
    for (i, d) in x.defs.iter().enumerate() {
        if d.kind != DefKind::Function {
            continue;
        }
        let Some(text) = src.get(d.start_byte..d.end_byte) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(text) else {
            continue;
        };
        if let Some(callee) = wrapped_call(text, &d.name) {
            found.push(CallSite {
                callee: callee.into(),
                receiver: None,
                path: false,
                receiver_type: None,
                shadowed: false,
                enclosing: Some(i),
                line: d.line,
                branch: None,
                arity: None,
            });
        }
    }
    x.calls.extend(found);
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The callee of the one call `def` (the whole `#define NAME(params) body` text)
/// expands to, when its body is exactly one plain call of another name.
fn wrapped_call(def: &str, name: &str) -> Option<String> {
    let rest = def.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("define")?.trim_start();
    let rest = rest.strip_prefix(name)?;
    // The parameter list follows the name directly (else it is an object-like macro).
    let rest = rest.strip_prefix('(')?;
    let close = rest.find(')')?;
    let body = strip_comments(
        &rest[close + 1..]
            .replace("\\\r\n", " ")
            .replace("\\\n", " "),
    );
    let mut body = body.trim().trim_end_matches(';').trim();
    // `(f(x))`: parentheses around the whole body.
    while body.starts_with('(') && matching_close(body, 0) == Some(body.len() - 1) {
        body = body[1..body.len() - 1].trim();
    }
    let end = body.find(|c: char| !is_ident(c)).unwrap_or(body.len());
    let callee = &body[..end];
    if callee.is_empty() || !callee.starts_with(is_ident_start) || callee == name {
        return None;
    }
    let after = body[end..].trim_start();
    if !after.starts_with('(') {
        return None;
    }
    let open = body.len() - after.len();
    // The call's argument list must close the body.
    (matching_close(body, open) == Some(body.len() - 1)).then(|| callee.to_owned())
}

/// `s` without its `/* */` and `//` comments (string and character literals kept).
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"' | '\'', _) => {
                quote = Some(c);
                out.push(c);
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                out.push(' ');
            }
            ('/', Some('/')) => break,
            _ => out.push(c),
        }
    }
    out
}

/// The index of the `)` matching the `(` at `open`, skipping string and character
/// literals; `None` when it does not close.
fn matching_close(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices().skip_while(|&(i, _)| i < open) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::wrapped_call;

    #[test]
    fn a_body_of_one_plain_call_names_its_callee() {
        let w = |d: &str, n: &str| wrapped_call(d, n);
        assert_eq!(
            w(
                "#define mutex_lock(lock) mutex_lock_nested(lock, 0)\n",
                "mutex_lock"
            )
            .as_deref(),
            Some("mutex_lock_nested")
        );
        assert_eq!(
            w("#define lock(d) \\\n\t(mutex_lock(&(d)->m));", "lock").as_deref(),
            Some("mutex_lock")
        );
        assert_eq!(
            w("#define say(x) printf(\"(%d\", x)", "say").as_deref(),
            Some("printf")
        );
        assert_eq!(
            w("#define lk(l) f(l, 0) /* note */ // more", "lk").as_deref(),
            Some("f")
        );
        // Not one plain call: an expression, two calls, a statement block, recursion.
        assert_eq!(w("#define SQUARE(x) ((x) * (x))", "SQUARE"), None);
        assert_eq!(w("#define two(x) f(x) + g(x)", "two"), None);
        assert_eq!(w("#define blk(x) do { f(x); } while (0)", "blk"), None);
        assert_eq!(w("#define f(x) f(x)", "f"), None);
        assert_eq!(w("#define VALUE f(1)", "VALUE"), None);
        assert_eq!(w("#define cast(x) (int)(x)", "cast"), None);
    }
}
