//! What a declaration's signature says: its visibility (from modifiers, or the
//! language's naming convention), its parameter list and parameter count; and a
//! qualified name split into owner and name.

use tsa_lang::{DefaultVisibility, Language};

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

/// Splits `Class.method` / `Type::method` into (owner, name); the owner is the
/// last part before the name (`a.B.m` -> `B`), a path is never split.
pub fn split_qualified(input: &str) -> (Option<&str>, &str) {
    let input = input.trim();
    if input.contains('/') || input.contains('\\') {
        return (None, input);
    }
    let split = input
        .rfind("::")
        .map(|i| (i, 2))
        .or_else(|| input.rfind('.').map(|i| (i, 1)));
    match split {
        Some((i, w)) if i > 0 && i + w < input.len() => {
            let owner = &input[..i];
            let owner = owner.rsplit("::").next().unwrap_or(owner);
            let owner = owner.rsplit('.').next().unwrap_or(owner);
            (Some(owner), &input[i + w..])
        }
        _ => (None, input),
    }
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
    fn qualified_names_split_at_the_last_separator() {
        assert_eq!(split_qualified("Engine.run"), (Some("Engine"), "run"));
        assert_eq!(split_qualified("a::B::m"), (Some("B"), "m"));
        assert_eq!(split_qualified("build"), (None, "build"));
        assert_eq!(split_qualified("app/core.py"), (None, "app/core.py"));
        assert_eq!(split_qualified(".x"), (None, ".x"));
    }
}
