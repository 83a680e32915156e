//! The declared return type of a function, read from its signature, so a variable
//! assigned from a call (`s := store.Open()`, `x = make_cat()`) gets a type.

use crate::{Language, ReturnForm};

/// Wrappers whose first type argument is what a caller ends up holding (`?`, deref).
const TRANSPARENT: [&str; 11] = [
    "Result", "Option", "Box", "Arc", "Rc", "Promise", "Cow", "RefCell", "Ref", "RefMut", "Weak",
];

/// The return type `signature` declares for function `name`, as a plain (possibly
/// qualified) type name; `None` when it declares none, or a type that is not one
/// named type (tuples, unions, `Optional[...]`, `void`, primitives).
pub fn return_type(lang: Language, name: &str, signature: &str) -> Option<String> {
    let raw = match lang.conventions().return_type.get()? {
        ReturnForm::Arrow => after_arrow(signature)?,
        ReturnForm::AfterParams => after_params(signature, name)?,
        ReturnForm::ColonAfterParams => after_params(signature, name)?.strip_prefix(':')?.trim(),
        ReturnForm::BeforeName => before_name(signature, name)?,
    };
    // Signatures may run into a trailing comment or the body's opening token.
    let raw = raw.split(['#', '{']).next().unwrap_or(raw);
    let raw = raw.split("//").next().unwrap_or(raw);
    let raw = raw.trim_end_matches(['=', ';', ':', ' ']).trim();
    let raw = raw.split(" where ").next().unwrap_or(raw).trim();
    // Go `(*Store, error)`: the first result.
    let raw = match raw.strip_prefix('(') {
        Some(inner) => inner.split(',').next()?.trim(),
        None => raw,
    };
    let raw = raw.trim_matches(['"', '\'']);
    let unwrapped = unwrap_generic(raw);
    let t = receiver_type_name(unwrapped)?;
    let primitive = matches!(
        t.as_str(),
        "void"
            | "int"
            | "long"
            | "bool"
            | "boolean"
            | "float"
            | "double"
            | "char"
            | "str"
            | "string"
            | "String"
            | "None"
            | "Any"
            | "any"
            | "unknown"
            | "never"
            | "error"
            | "Unit"
            | "usize"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "f32"
            | "f64"
            | "object"
            | "Object"
            | "auto"
            | "var"
            | "dynamic"
            | "mixed"
    );
    (!primitive).then_some(t)
}

/// A written type reduced to the one named type a value of it is (`&mut Box<T>`
/// -> `T`, `Subscriber<R>` -> `Subscriber`, `Optional[Cat]` -> `Cat`).
pub fn type_name(raw: &str) -> Option<String> {
    receiver_type_name(unwrap_generic(raw))
}

/// The type a TS signature declares for parameter `j` of the function its
/// parameter `i` takes (`operate(init: (source: Observable<T>, sub: Subscriber<R>)
/// => void)`: i = 0, j = 1 -> `Subscriber<R>`); a `this:` parameter is not counted.
pub fn callback_param_type(signature: &str, i: usize, j: usize) -> Option<String> {
    let open = top_level_paren(signature)?;
    let params = split_top(&signature[open + 1..matching(signature, open)?]);
    let param = params
        .into_iter()
        .filter(|p| !p.trim_start().starts_with("this:"))
        .nth(i)?;
    let ty = param.split_once(':')?.1.trim();
    let ty = ty.strip_prefix('(')?;
    let close = matching(&format!("({ty}"), 0)?;
    let inner = &ty[..close - 1];
    let rest = ty[close - 1..].trim_start_matches(')').trim_start();
    if !rest.starts_with("=>") {
        return None;
    }
    let p = split_top(inner)
        .into_iter()
        .filter(|p| !p.trim_start().starts_with("this:"))
        .nth(j)?;
    let t = p.split_once(':')?.1.trim();
    Some(t.to_owned())
}

/// The first `(` outside `<...>` (after generic parameters).
fn top_level_paren(s: &str) -> Option<usize> {
    let mut angle = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' => angle += 1,
            '>' if angle > 0 => angle -= 1,
            '(' if angle == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The index of the bracket closing the one at `open`.
fn matching(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits at commas outside any brackets (`=>` is not a closing angle).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let b = s.as_bytes();
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            '>' if i > 0 && b[i - 1] == b'=' => {}
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// What a type alias declares it stands for (`type Simple = Impl<W>;` -> `Impl`,
/// `type Id = store.Key` -> `store.Key`), as a plain type name; `None` for anything
/// that is not an alias of one named type.
pub fn alias_target(signature: &str) -> Option<String> {
    // Attributes the signature carries first (`#[napi(js_name = "X")] type ...`).
    let mut signature = signature.trim_start();
    while signature.starts_with("#[") {
        signature = signature[signature.find("] ")? + 2..].trim_start();
    }
    let (_, rhs) = signature.split_once('=')?;
    let rhs = rhs.split(['{', ';']).next().unwrap_or(rhs).trim();
    let t = receiver_type_name(unwrap_generic(rhs))?;
    (!t.is_empty()).then_some(t)
}

fn after_arrow(sig: &str) -> Option<&str> {
    let i = sig.rfind("->")?;
    Some(sig[i + 2..].trim())
}

/// The text after the parameter list that follows `name`.
fn after_params<'a>(sig: &'a str, name: &str) -> Option<&'a str> {
    let start = sig.find(name).map(|i| i + name.len()).unwrap_or(0);
    let open = start + sig[start..].find('(')?;
    let mut depth = 0i32;
    for (i, c) in sig[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(sig[open + i + 1..].trim());
                }
            }
            _ => {}
        }
    }
    None
}

/// C-family: the last word before `name(`, skipping modifiers.
fn before_name<'a>(sig: &'a str, name: &str) -> Option<&'a str> {
    let at = sig.find(&format!("{name}("))?;
    let head = sig[..at].trim_end();
    let head = head
        .strip_suffix("::")
        .map(|h| {
            // `Store* Store::open(`: drop the owner path.
            h.rsplit_once(' ').map(|(a, _)| a).unwrap_or("")
        })
        .unwrap_or(head);
    let word = head.rsplit([' ', '\t']).next()?.trim();
    (!word.is_empty()).then_some(word)
}

/// `Result<Store, E>` -> `Store`, `Arc<Box<Store>>` -> `Store` (leading `&`, `&mut`
/// and lifetimes dropped at each level); other generics keep their outer name.
pub(crate) fn unwrap_generic(t: &str) -> &str {
    let mut t = t.trim();
    for _ in 0..8 {
        let next = unwrap_once(strip_refs(t));
        if next == t {
            break;
        }
        t = next;
    }
    t
}

/// `&'a mut T` -> `T`.
fn strip_refs(mut t: &str) -> &str {
    loop {
        let before = t;
        t = t.trim_start();
        t = t.strip_prefix('&').unwrap_or(t).trim_start();
        if let Some(rest) = t.strip_prefix('\'') {
            t = rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
        }
        t = t.strip_prefix("mut ").unwrap_or(t);
        t = t.strip_prefix("dyn ").unwrap_or(t);
        if t == before {
            return t;
        }
    }
}

fn unwrap_once(t: &str) -> &str {
    let t = t.trim();
    if let Some(lt) = t.find('<') {
        let outer = t[..lt].rsplit("::").next().unwrap_or(&t[..lt]);
        if TRANSPARENT.contains(&outer) {
            let inner = &t[lt + 1..t.rfind('>').unwrap_or(t.len())];
            let mut depth = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    ',' if depth == 0 => return inner[..i].trim(),
                    _ => {}
                }
            }
            return inner.trim();
        }
    }
    t
}

/// A declared type as a plain (possibly qualified) name: `*testing.PB` ->
/// `testing.PB`, `&mut Store<T>` -> `Store`, `Dog?` -> `Dog`. Types that are not a
/// single named type (unions, tuples, function types, `Optional[...]`) give `None`.
pub(crate) fn receiver_type_name(raw: &str) -> Option<String> {
    // Python spellings: `"Console"` (a forward reference), `Optional[Console]`,
    // `Console | None`.
    let mut t = raw.trim().trim_matches(['"', '\'']).trim();
    if let Some(inner) = t
        .strip_prefix("Optional[")
        .or_else(|| t.strip_prefix("typing.Optional["))
        .or_else(|| t.strip_prefix("t.Optional["))
        .and_then(|r| r.strip_suffix(']'))
    {
        t = inner.trim().trim_matches(['"', '\'']);
    }
    if t.contains('|') {
        let parts: Vec<&str> = t
            .split('|')
            .map(str::trim)
            .filter(|p| *p != "None" && *p != "null" && *p != "undefined")
            .collect();
        match parts.as_slice() {
            [one] => t = one.trim_matches(['"', '\'']),
            _ => return None,
        }
    }
    // `ProgressBar[V]` (Python generics) is a `ProgressBar`; `int[]` stays an array.
    if let Some(i) = t.find('[')
        && !t[i..].starts_with("[]")
    {
        t = &t[..i];
    }
    loop {
        let before = t;
        for p in [
            "&",
            "*",
            "mut ",
            "dyn ",
            "impl ",
            "const ",
            "final ",
            "readonly ",
            "?",
            ":",
        ] {
            t = t.strip_prefix(p).unwrap_or(t).trim_start();
        }
        if t == before {
            break;
        }
    }
    let t = t
        .split('<')
        .next()
        .unwrap_or(t)
        .trim_end_matches(['?', '!', '*', '&', ' ']);
    let t = t.strip_suffix("[]").unwrap_or(t);
    // Inferred-type keywords say nothing by themselves.
    if matches!(
        t,
        "var" | "val" | "let" | "auto" | "dynamic" | "object" | "Object" | "any"
    ) {
        return None;
    }
    let ok = !t.is_empty()
        && t.split(['.', ':'])
            .filter(|p| !p.is_empty())
            .all(is_identifier)
        && !t.starts_with(['.', ':'])
        && t.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
    ok.then(|| t.to_owned())
}

/// The (least, most) arguments a definition of `lang` takes, from its signature,
/// where the language picks overloads by argument count ([`Language::fixed_arity`]).
pub fn param_range(lang: Language, name: &str, signature: &str) -> Option<(u8, u8)> {
    if !lang.fixed_arity() {
        return None;
    }
    params_in(name, signature)
}

/// The (least, most) arguments of `name(params)` in a signature: parameters
/// are the top-level commas' parts (generic arguments and annotations' own
/// parentheses kept whole); a trailing varargs `T... xs` takes any count.
fn params_in(name: &str, signature: &str) -> Option<(u8, u8)> {
    let mut from = 0;
    let open = loop {
        let at = from + signature[from..].find(name)?;
        let after = signature[at + name.len()..].trim_start();
        let starts_word = signature[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'));
        if starts_word && after.starts_with('(') {
            break signature.len() - after.len();
        }
        from = at + name.len();
    };
    let mut depth = 0i32;
    let mut angle = 0i32;
    let mut params: Vec<(usize, usize)> = Vec::new();
    let mut start = open + 1;
    let mut end = None;
    for (i, c) in signature[open..].char_indices() {
        let i = open + i;
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    params.push((start, i));
                    end = Some(i);
                    break;
                }
            }
            '<' => angle += 1,
            '>' => angle -= 1,
            ',' if depth == 1 && angle == 0 => {
                params.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    end?;
    let parts: Vec<&str> = params
        .iter()
        .map(|&(a, b)| signature[a..b].trim())
        .filter(|p| !p.is_empty())
        .collect();
    let n = u8::try_from(parts.len()).ok()?;
    Some(match parts.last() {
        Some(last) if last.contains("...") => (n - 1, u8::MAX),
        _ => (n, n),
    })
}

/// A plain identifier (a leading `$` allowed, as PHP and shell spell variables;
/// `$` inside, as Java allows: `$Gson$Types`).
pub(crate) fn is_identifier(s: &str) -> bool {
    let s = s.trim_start_matches('$');
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_ranges_from_signatures() {
        let r = |name: &str, sig: &str| params_in(name, sig);
        assert_eq!(
            r(
                "value",
                "public JsonWriter value(String value) throws IOException"
            ),
            Some((1, 1))
        );
        assert_eq!(
            r(
                "of",
                "static <K, V> Map<K, V> of(Map<K, V> m, @Named(\"a,b\") int x)"
            ),
            Some((2, 2))
        );
        assert_eq!(r("none", "void none()"), Some((0, 0)));
        assert_eq!(
            r("fmt", "String fmt(String f, Object... args)"),
            Some((1, u8::MAX))
        );
        assert_eq!(r("get", "Getter getter; int get(int[] a)"), Some((1, 1)));
        assert_eq!(
            r("Foo", "public Foo(int a, List<Map<String, Integer>> b)"),
            Some((2, 2))
        );
        assert_eq!(r("missing", "void other()"), None);
    }

    fn rt(lang: &str, name: &str, sig: &str) -> Option<String> {
        return_type(Language::from_name(lang)?, name, sig)
    }

    #[test]
    fn callback_parameter_types() {
        let sig = "export function operate<T, R>(init: (liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void): OperatorFunction<T, R>";
        assert_eq!(
            callback_param_type(sig, 0, 1).as_deref(),
            Some("Subscriber<R>")
        );
        assert_eq!(
            callback_param_type(sig, 0, 0).as_deref(),
            Some("Observable<T>")
        );
        let ctor = "constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic)";
        assert_eq!(
            callback_param_type(ctor, 0, 0).as_deref(),
            Some("Subscriber<T>")
        );
        assert_eq!(
            callback_param_type("function f(a: number, cb: (e: Err) => void)", 1, 0).as_deref(),
            Some("Err")
        );
        assert_eq!(callback_param_type("function f(a: number)", 0, 0), None);
        assert_eq!(type_name("Subscriber<R>").as_deref(), Some("Subscriber"));
    }

    #[test]
    fn reads_declared_return_types() {
        assert_eq!(
            rt("python", "make", "def make(x) -> Cat").as_deref(),
            Some("Cat")
        );
        assert_eq!(
            rt("python", "make", "def make(x) -> \"Cat\"").as_deref(),
            Some("Cat")
        );
        assert_eq!(
            rt("python", "make", "def make() -> Dog: # comment").as_deref(),
            Some("Dog")
        );
        // A method called on what may be None is called on a Cat.
        assert_eq!(
            rt("python", "make", "def make(x) -> Optional[Cat]").as_deref(),
            Some("Cat")
        );
        assert_eq!(
            rt("python", "make", "def make(x) -> Cat | None").as_deref(),
            Some("Cat")
        );
        assert_eq!(rt("python", "make", "def make(x) -> Cat | Dog"), None);
        assert_eq!(rt("python", "make", "def make(x) -> str"), None);
        assert_eq!(rt("python", "make", "def make(x)"), None);
        assert_eq!(
            rt("go", "Open", "func Open(path string) (*Store, error)").as_deref(),
            Some("Store")
        );
        assert_eq!(
            rt("go", "New", "func New() *gin.Engine").as_deref(),
            Some("gin.Engine")
        );
        assert_eq!(rt("go", "Close", "func (s *Store) Close() error"), None);
        assert_eq!(
            rt(
                "rust",
                "open",
                "pub fn open(p: &Path) -> Result<Store, Error>"
            )
            .as_deref(),
            Some("Store")
        );
        assert_eq!(
            rt("rust", "new", "pub fn new() -> Self").as_deref(),
            Some("Self")
        );
        assert_eq!(rt("rust", "len", "fn len(&self) -> usize"), None);
        assert_eq!(
            rt("typescript", "make", "function make(a: number): Widget").as_deref(),
            Some("Widget")
        );
        assert_eq!(
            rt("java", "open", "public static Store open(String p)").as_deref(),
            Some("Store")
        );
        assert_eq!(rt("java", "run", "public void run()"), None);
    }
}
