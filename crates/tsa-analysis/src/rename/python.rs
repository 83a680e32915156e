//! What one Python file holds that a rename of `old` to `new` must know: its
//! module-level definitions of `old`, its imports (of `old`, of modules, star
//! imports), every identifier `old` or `new` with its role (load, binding,
//! definition, attribute, keyword name), `__all__` entries, string annotations
//! naming `old`, and the dynamic accesses (`eval`, `getattr`, ...) that could reach
//! it. One parse with tree-sitter; nothing is decided here.

use tree_sitter::Node;

/// A token's place: bytes, 1-based line, 0-based column in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub column: u32,
}

/// What an identifier does where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read: a reference.
    Load,
    /// Bound: assignment target, parameter, loop or `as` target, `del`.
    Bind,
    /// `global x` / `nonlocal x`.
    Global,
    /// The name of a `def` or `class` (`top`: at module level).
    Def { top: bool, class: bool },
    /// The name of a keyword argument (`f(x=1)`): not a reference.
    KwName,
}

/// One identifier `old` or `new` outside imports and attributes.
#[derive(Clone, Debug)]
pub struct NameUse {
    pub span: Span,
    pub role: Role,
}

/// `from <module> import <old> [as alias]`.
#[derive(Clone, Debug)]
pub struct FromImport {
    /// The module as written, dots of a relative import included (`..pkg.m`).
    pub module: String,
    /// Leading dots (0 for an absolute import).
    pub level: usize,
    /// The imported name's token.
    pub span: Span,
    pub alias: Option<String>,
}

/// A name bound to a module object: `import a.b as c` (binding `c`), `import a.b`
/// (binding `a.b`, used as written), `from a import b` (binding `b`, module `a.b`
/// if that is a module).
#[derive(Clone, Debug)]
pub struct ModuleBinding {
    pub binding: String,
    pub module: String,
    pub level: usize,
}

/// `<object>.old`.
#[derive(Clone, Debug)]
pub struct AttrUse {
    pub object: String,
    pub span: Span,
}

/// A call that reaches names dynamically.
#[derive(Clone, Debug)]
pub struct Dynamic {
    /// `eval`, `exec`, `globals`, `locals`, `getattr`, `setattr`, `hasattr`, `delattr`.
    pub func: String,
    /// The first argument's text (the object), for the attribute functions.
    pub object: Option<String>,
    /// The name argument when it is a plain string literal.
    pub literal: Option<String>,
    pub line: u32,
}

/// Everything of one file.
#[derive(Clone, Debug, Default)]
pub struct FileFacts {
    pub has_errors: bool,
    pub olds: Vec<NameUse>,
    pub news: Vec<NameUse>,
    pub from_imports: Vec<FromImport>,
    /// `from X import new`: a second binding of the new name.
    pub imports_new: Vec<u32>,
    pub module_bindings: Vec<ModuleBinding>,
    /// `from X import *`: (module as written, level, line).
    pub star_imports: Vec<(String, usize, u32)>,
    pub attrs: Vec<AttrUse>,
    /// `"old"` entries of `__all__` (the string's content).
    pub all_entries: Vec<Span>,
    /// String annotations naming `old` (forward references): their lines.
    pub string_annotations: Vec<u32>,
    /// Other strings naming `old` as a word: (line, text).
    pub strings: Vec<(u32, String)>,
    /// `__all__ += [...]`, `__all__.append/extend(...)` naming `old`: their lines.
    pub all_changes: Vec<u32>,
    pub dynamic: Vec<Dynamic>,
    /// Module-level classes named `old` that use `__slots__` or private names.
    pub class_unsupported: Vec<u32>,
}

fn span(n: Node<'_>, src: &[u8]) -> Span {
    let row_start = n.start_byte() - n.start_position().column;
    let column = String::from_utf8_lossy(&src[row_start..n.start_byte()])
        .chars()
        .count() as u32;
    Span {
        start: n.start_byte(),
        end: n.end_byte(),
        line: n.start_position().row as u32 + 1,
        column,
    }
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("")
}

/// The field under which `child` hangs from `parent`.
fn field_of<'t>(parent: Node<'t>, child: Node<'_>) -> Option<&'t str> {
    (0..parent.child_count())
        .find(|&i| parent.child(i).is_some_and(|c| c.id() == child.id()))
        .and_then(|i| parent.field_name_for_child(i))
}

/// Node kinds a binding target may be nested in.
const PATTERNS: [&str; 8] = [
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "list_splat_pattern",
    "dictionary_splat_pattern",
    "as_pattern_target",
    "case_pattern",
    "splat_pattern",
];

fn role(n: Node<'_>) -> Role {
    let Some(p) = n.parent() else {
        return Role::Load;
    };
    let field = field_of(p, n);
    match (p.kind(), field) {
        ("keyword_argument", Some("name")) => return Role::KwName,
        ("function_definition" | "class_definition", Some("name")) => {
            let top = p
                .parent()
                .map(|g| {
                    if g.kind() == "decorated_definition" {
                        g.parent()
                    } else {
                        Some(g)
                    }
                })
                .is_some_and(|g| g.is_some_and(|g| g.kind() == "module"));
            return Role::Def {
                top,
                class: p.kind() == "class_definition",
            };
        }
        ("global_statement" | "nonlocal_statement", _) => return Role::Global,
        _ => {}
    }
    // Climb through patterns to the statement that binds.
    let mut cur = n;
    let mut anc = p;
    while PATTERNS.contains(&anc.kind()) {
        cur = anc;
        match anc.parent() {
            Some(a) => anc = a,
            None => return Role::Bind,
        }
    }
    if PATTERNS.contains(&cur.kind()) && !matches!(anc.kind(), "parenthesized_expression") {
        // Inside a pattern whose owner binds (case patterns, for targets, ...).
        if matches!(
            anc.kind(),
            "case_clause" | "case_pattern" | "keyword_pattern" | "dict_pattern" | "class_pattern"
        ) {
            return Role::Bind;
        }
    }
    let f = field_of(anc, cur);
    let binds = match anc.kind() {
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
            f == Some("left")
        }
        "named_expression" => f == Some("name"),
        "as_pattern" => f == Some("alias"),
        "except_clause" => f == Some("alias"),
        "delete_statement" | "parameters" | "lambda_parameters" => true,
        "typed_parameter" => f != Some("type"),
        "default_parameter" | "typed_default_parameter" => f == Some("name"),
        "keyword_pattern" | "case_pattern" | "dict_pattern" | "class_pattern" | "case_clause" => {
            true
        }
        "type_parameter" => true,
        _ => false,
    };
    if binds { Role::Bind } else { Role::Load }
}

fn inside_import(mut n: Node<'_>) -> bool {
    while let Some(p) = n.parent() {
        match p.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                return true;
            }
            "module" | "block" => return false,
            _ => n = p,
        }
    }
    false
}

/// Whether `n` sits in a type annotation.
fn in_annotation(mut n: Node<'_>) -> bool {
    while let Some(p) = n.parent() {
        if p.kind() == "type" {
            return true;
        }
        if matches!(p.kind(), "block" | "module") {
            return false;
        }
        n = p;
    }
    false
}

fn word_in(text: &str, word: &str) -> bool {
    let b = text.as_bytes();
    let w = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let s = from + i;
        let e = s + word.len();
        if (s == 0 || !w(b[s - 1])) && (e == b.len() || !w(b[e])) {
            return true;
        }
        from = s + text[s..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Reads one file.
pub fn scan(src: &[u8], old: &str, new: &str) -> Option<FileFacts> {
    let tree = crate::complexity::parse(tsa_lang::Language::Python, src)?;
    let root = tree.root_node();
    let mut f = FileFacts {
        has_errors: root.has_error(),
        ..FileFacts::default()
    };
    let mut cursor = root.walk();
    loop {
        let n = cursor.node();
        visit(n, src, old, new, &mut f);
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Some(f);
            }
        }
    }
}

fn visit(n: Node<'_>, src: &[u8], old: &str, new: &str, f: &mut FileFacts) {
    match n.kind() {
        "identifier" => {
            let t = text(n, src);
            if t != old && t != new {
                return;
            }
            let Some(p) = n.parent() else { return };
            if p.kind() == "attribute" && field_of(p, n) == Some("attribute") {
                if t == old
                    && let Some(obj) = p.child_by_field_name("object")
                {
                    f.attrs.push(AttrUse {
                        object: text(obj, src).split_whitespace().collect(),
                        span: span(n, src),
                    });
                }
                return;
            }
            if inside_import(n) {
                return;
            }
            let u = NameUse {
                span: span(n, src),
                role: role(n),
            };
            if t == old {
                if let Role::Def {
                    top: true,
                    class: true,
                } = u.role
                    && let Some(class) = n.parent()
                    && class_unsupported(class, src)
                {
                    f.class_unsupported.push(u.span.line);
                }
                f.olds.push(u);
            } else {
                f.news.push(u);
            }
        }
        "import_from_statement" => from_import(n, src, old, new, f),
        "import_statement" => {
            let mut c = n.walk();
            for name in n.children_by_field_name("name", &mut c) {
                let (module, alias) = match name.kind() {
                    "aliased_import" => (
                        name.child_by_field_name("name")
                            .map(|m| text(m, src))
                            .unwrap_or(""),
                        name.child_by_field_name("alias").map(|a| text(a, src)),
                    ),
                    _ => (text(name, src), None),
                };
                f.module_bindings.push(ModuleBinding {
                    binding: alias.unwrap_or(module).to_owned(),
                    module: module.to_owned(),
                    level: 0,
                });
            }
        }
        "string" => {
            let t = text(n, src);
            if word_in(t, old) {
                let line = n.start_position().row as u32 + 1;
                if in_annotation(n) {
                    f.string_annotations.push(line);
                } else {
                    f.strings.push((line, t.chars().take(200).collect()));
                }
            }
        }
        "assignment" => all_entries(n, src, old, f),
        "augmented_assignment"
            if n.child_by_field_name("left")
                .is_some_and(|l| text(l, src) == "__all__")
                && word_in(text(n, src), old) =>
        {
            f.all_changes.push(n.start_position().row as u32 + 1);
        }
        "call" => {
            if n.child_by_field_name("function").is_some_and(|c| {
                matches!(
                    text(c, src),
                    "__all__.append" | "__all__.extend" | "__all__.insert"
                )
            }) && word_in(text(n, src), old)
            {
                f.all_changes.push(n.start_position().row as u32 + 1);
            }
            dynamic(n, src, f)
        }
        _ => {}
    }
}

fn from_import(n: Node<'_>, src: &[u8], old: &str, new: &str, f: &mut FileFacts) {
    let Some(m) = n.child_by_field_name("module_name") else {
        return;
    };
    let written = text(m, src).to_owned();
    let level = written.chars().take_while(|c| *c == '.').count();
    let mut c = n.walk();
    let star = n.children(&mut c).any(|k| k.kind() == "wildcard_import");
    if star {
        f.star_imports
            .push((written, level, n.start_position().row as u32 + 1));
        return;
    }
    let mut c = n.walk();
    for name in n.children_by_field_name("name", &mut c) {
        let (dotted, alias) = match name.kind() {
            "aliased_import" => (
                name.child_by_field_name("name"),
                name.child_by_field_name("alias"),
            ),
            _ => (Some(name), None),
        };
        let Some(dotted) = dotted else { continue };
        let imported = text(dotted, src);
        let binding = alias.map_or(imported, |a| text(a, src));
        let base = written.trim_start_matches('.');
        f.module_bindings.push(ModuleBinding {
            binding: binding.to_owned(),
            module: if base.is_empty() {
                imported.to_owned()
            } else {
                format!("{base}.{imported}")
            },
            level,
        });
        if binding == new {
            f.imports_new.push(n.start_position().row as u32 + 1);
        }
        if imported == old {
            f.from_imports.push(FromImport {
                module: written.clone(),
                level,
                span: span(dotted, src),
                alias: alias.map(|a| text(a, src).to_owned()),
            });
        }
    }
}

/// `"old"` strings of a module-level `__all__ = [...]` (or `+=`).
fn all_entries(n: Node<'_>, src: &[u8], old: &str, f: &mut FileFacts) {
    let Some(left) = n.child_by_field_name("left") else {
        return;
    };
    if text(left, src) != "__all__"
        || n.parent()
            .and_then(|p| p.parent())
            .is_none_or(|g| g.kind() != "module")
    {
        return;
    }
    let Some(right) = n.child_by_field_name("right") else {
        return;
    };
    let mut c = right.walk();
    for item in right.named_children(&mut c) {
        if item.kind() != "string" {
            continue;
        }
        let mut ic = item.walk();
        let content = item
            .named_children(&mut ic)
            .find(|k| k.kind() == "string_content");
        if let Some(content) = content
            && text(content, src) == old
        {
            f.all_entries.push(span(content, src));
        }
    }
}

fn dynamic(n: Node<'_>, src: &[u8], f: &mut FileFacts) {
    let Some(func) = n.child_by_field_name("function") else {
        return;
    };
    if func.kind() != "identifier" {
        return;
    }
    let name = text(func, src);
    if !matches!(
        name,
        "eval"
            | "exec"
            | "globals"
            | "locals"
            | "vars"
            | "getattr"
            | "setattr"
            | "hasattr"
            | "delattr"
    ) {
        return;
    }
    let args = n.child_by_field_name("arguments");
    let mut object = None;
    let mut literal = None;
    if let Some(a) = args {
        let mut c = a.walk();
        let list: Vec<Node<'_>> = a.named_children(&mut c).collect();
        object = list
            .first()
            .map(|o| text(*o, src).split_whitespace().collect());
        literal = list.get(1).and_then(|s| {
            if s.kind() != "string" {
                return None;
            }
            let mut sc = s.walk();
            let parts: Vec<Node<'_>> = s.named_children(&mut sc).collect();
            // A plain literal: start, one content, end (no interpolation).
            match parts.as_slice() {
                [_, content, _] if content.kind() == "string_content" => {
                    Some(text(*content, src).to_owned())
                }
                [_, _] => Some(String::new()),
                _ => None,
            }
        });
    }
    f.dynamic.push(Dynamic {
        func: name.to_owned(),
        object,
        literal,
        line: n.start_position().row as u32 + 1,
    });
}

/// A class body assigning `__slots__` or using a private (mangled) name.
fn class_unsupported(class: Node<'_>, src: &[u8]) -> bool {
    let t = text(class, src);
    if t.contains("__slots__") {
        return true;
    }
    t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w.starts_with("__") && !w.ends_with("__") && w.len() > 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(src: &str, name: &str) -> Vec<(u32, Role)> {
        scan(src.as_bytes(), name, "zz_new")
            .unwrap()
            .olds
            .iter()
            .map(|u| (u.span.line, u.role))
            .collect()
    }

    #[test]
    fn identifiers_get_their_roles() {
        let src = "def old(a):\n    return a\n\nx = old(1)\nold = 2\nfor old in []: pass\nf(old=3)\ny.old\n\nclass K:\n    def old(self): pass\n";
        let r = roles(src, "old");
        assert_eq!(
            r[0],
            (
                1,
                Role::Def {
                    top: true,
                    class: false
                }
            )
        );
        assert_eq!(r[1], (4, Role::Load));
        assert_eq!(r[2], (5, Role::Bind));
        assert_eq!(r[3], (6, Role::Bind));
        assert_eq!(r[4], (7, Role::KwName));
        assert_eq!(
            r[5],
            (
                11,
                Role::Def {
                    top: false,
                    class: false
                }
            )
        );
        assert_eq!(r.len(), 6, "the attribute is not a name: {r:?}");
    }

    #[test]
    fn parameters_and_with_targets_bind() {
        let src = "def f(old, b=1, *, c: int = 2):\n    pass\nwith open(x) as old: pass\nlambda old: old\n";
        let r = roles(src, "old");
        assert_eq!(r[0].1, Role::Bind);
        assert_eq!(r[1].1, Role::Bind);
        assert_eq!(r[2].1, Role::Bind);
        assert_eq!(r[3].1, Role::Load);
    }

    #[test]
    fn imports_all_and_dynamic_access_are_read() {
        let src = "from .core import old as o, other\nimport pkg.core as c\nfrom pkg import core\nfrom x import *\n__all__ = ['old', \"keep\"]\ngetattr(c, 'old')\ngetattr(obj, name)\neval('1')\ndef g(a: 'old') -> None: pass\n";
        let f = scan(src.as_bytes(), "old", "new").unwrap();
        assert_eq!(f.from_imports.len(), 1);
        assert_eq!(f.from_imports[0].level, 1);
        assert_eq!(f.from_imports[0].alias.as_deref(), Some("o"));
        assert_eq!(f.from_imports[0].span.column, 18);
        assert!(
            f.module_bindings
                .iter()
                .any(|b| b.binding == "c" && b.module == "pkg.core")
        );
        assert!(
            f.module_bindings
                .iter()
                .any(|b| b.binding == "core" && b.module == "pkg.core")
        );
        assert_eq!(f.star_imports.len(), 1);
        assert_eq!(f.all_entries.len(), 1);
        assert_eq!(f.dynamic.len(), 3);
        assert_eq!(f.dynamic[0].literal.as_deref(), Some("old"));
        assert_eq!(f.dynamic[1].literal, None);
        assert_eq!(f.string_annotations, vec![9]);
    }
}
