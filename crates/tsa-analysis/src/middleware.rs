//! `health middleware`: the request-pipeline hooks of a project. Flask hooks
//! (`before_request`, `after_request`, `errorhandler(code)`, `teardown_request`,
//! `before_first_request` and their blueprint `*_app_*` forms), FastAPI
//! `@app.middleware("http")`, Django's `MIDDLEWARE` list, Express `.use()` on an
//! app or router, Spring `@ControllerAdvice`, `@ExceptionHandler` and classes
//! implementing `Filter` or `HandlerInterceptor`. One parse per file.

use std::collections::HashSet;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;
use tree_sitter::Node;
use tsa_lang::Language;

/// One hook.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Hook {
    pub http_method: &'static str,
    pub url_pattern: String,
    pub middleware_name: String,
    pub middleware_type: &'static str,
    pub file_path: String,
    pub line_number: u32,
    pub framework: &'static str,
    pub language: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_code: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_class: Option<String>,
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[n.start_byte()..n.end_byte()]).unwrap_or("")
}

fn line(n: Node<'_>) -> u32 {
    n.start_position().row as u32 + 1
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}

/// Every node of the tree, depth first.
fn each(root: Node<'_>, mut f: impl FnMut(Node<'_>)) {
    let mut c = root.walk();
    loop {
        f(c.node());
        if c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return;
            }
        }
    }
}

fn hook(
    file: &str,
    l: u32,
    name: String,
    kind: &'static str,
    fw: &'static str,
    lang: &'static str,
) -> Hook {
    Hook {
        http_method: "*",
        url_pattern: "/*".into(),
        middleware_name: name,
        middleware_type: kind,
        file_path: file.to_owned(),
        line_number: l,
        framework: fw,
        language: lang,
        status_code: None,
        http_type: None,
        full_class: None,
    }
}

const FLASK: [(&str, &str); 9] = [
    ("before_request", "before_request"),
    ("before_app_request", "before_request"),
    ("after_request", "after_request"),
    ("after_app_request", "after_request"),
    ("errorhandler", "errorhandler"),
    ("app_errorhandler", "errorhandler"),
    ("teardown_request", "teardown_request"),
    ("teardown_appcontext", "teardown_request"),
    ("before_first_request", "before_first_request"),
];

fn python(file: &str, root: Node<'_>, src: &[u8], out: &mut Vec<Hook>) {
    let settings = matches!(file.rsplit('/').next(), Some("settings.py" | "base.py"))
        || file.contains("/settings/");
    each(root, |n| match n.kind() {
        "decorated_definition" => {
            let Some(name) = n
                .child_by_field_name("definition")
                .and_then(|d| d.child_by_field_name("name"))
                .map(|x| text(x, src).to_owned())
            else {
                return;
            };
            let mut c = n.walk();
            for d in n.children(&mut c).filter(|d| d.kind() == "decorator") {
                let t = text(d, src).trim_start_matches('@').trim();
                let (callee, args) = match t.split_once('(') {
                    Some((c, a)) => (c.trim(), Some(a.trim_end_matches(')').trim())),
                    None => (t, None),
                };
                let Some((obj, attr)) = callee.rsplit_once('.') else {
                    continue;
                };
                if obj.is_empty() {
                    continue;
                }
                if let Some((_, kind)) = FLASK.iter().find(|(a, _)| *a == attr) {
                    let mut h = hook(file, line(d), name.clone(), kind, "flask", "python");
                    if *kind == "errorhandler" {
                        h.status_code = args.and_then(|a| a.parse().ok());
                    }
                    out.push(h);
                } else if attr == "middleware" {
                    let mut h = hook(
                        file,
                        line(d),
                        name.clone(),
                        "middleware",
                        "fastapi",
                        "python",
                    );
                    h.http_type = args.map(unquote);
                    out.push(h);
                }
            }
        }
        "assignment" if settings => {
            let (Some(l), Some(r)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ) else {
                return;
            };
            if text(l, src) != "MIDDLEWARE" || !matches!(r.kind(), "list" | "tuple") {
                return;
            }
            let mut c = r.walk();
            for s in r.named_children(&mut c).filter(|s| s.kind() == "string") {
                let full = unquote(text(s, src));
                let name = full.rsplit('.').next().unwrap_or(&full).to_owned();
                let mut h = hook(
                    file,
                    line(s),
                    name,
                    "settings_middleware",
                    "django",
                    "python",
                );
                h.full_class = Some(full);
                out.push(h);
            }
        }
        _ => {}
    });
}

/// Names bound to `express()`, `express.Router()` or `Router()` in a JS/TS file.
fn express_names(root: Node<'_>, src: &[u8]) -> HashSet<String> {
    let mut names: HashSet<String> = ["app", "router"].iter().map(|s| (*s).to_owned()).collect();
    each(root, |n| {
        if n.kind() != "variable_declarator" {
            return;
        }
        let (Some(name), Some(v)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ) else {
            return;
        };
        if v.kind() == "call_expression"
            && let Some(f) = v.child_by_field_name("function")
            && matches!(
                text(f, src),
                "express" | "express.Router" | "Router" | "express.default"
            )
        {
            names.insert(text(name, src).to_owned());
        }
    });
    names
}

fn javascript(file: &str, lang: &'static str, root: Node<'_>, src: &[u8], out: &mut Vec<Hook>) {
    let bound = express_names(root, src);
    each(root, |n| {
        if n.kind() != "call_expression" {
            return;
        }
        let Some(f) = n
            .child_by_field_name("function")
            .filter(|f| f.kind() == "member_expression")
        else {
            return;
        };
        let (Some(obj), Some(prop)) = (
            f.child_by_field_name("object"),
            f.child_by_field_name("property"),
        ) else {
            return;
        };
        if !text(prop, src).eq_ignore_ascii_case("use") || !bound.contains(text(obj, src)) {
            return;
        }
        let Some(args) = n.child_by_field_name("arguments") else {
            return;
        };
        let mut c = args.walk();
        let list: Vec<Node<'_>> = args.named_children(&mut c).collect();
        let mut url = "/*".to_owned();
        let mut rest = list.as_slice();
        if let Some(first) = list
            .first()
            .filter(|a| matches!(a.kind(), "string" | "template_string"))
        {
            url = unquote(text(*first, src));
            rest = &list[1..];
        }
        for a in rest {
            let name = match a.kind() {
                "identifier" | "member_expression" => text(*a, src).to_owned(),
                "arrow_function" | "function_expression" | "function" => "<anonymous>".to_owned(),
                "call_expression" => text(*a, src).chars().take(80).collect(),
                _ => continue,
            };
            let mut h = hook(file, line(*a), name, "use_middleware", "express", lang);
            h.url_pattern = url.clone();
            out.push(h);
        }
    });
}

fn annotations<'t>(n: Node<'t>, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = n.walk();
    for m in n.children(&mut c).filter(|k| k.kind() == "modifiers") {
        let mut mc = m.walk();
        for a in m
            .children(&mut mc)
            .filter(|k| matches!(k.kind(), "annotation" | "marker_annotation"))
        {
            if let Some(name) = a.child_by_field_name("name") {
                out.push(
                    text(name, src)
                        .rsplit('.')
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                );
            }
        }
    }
    out
}

fn java(file: &str, root: Node<'_>, src: &[u8], out: &mut Vec<Hook>) {
    each(root, |n| match n.kind() {
        "class_declaration" => {
            let name = n
                .child_by_field_name("name")
                .map(|x| text(x, src).to_owned())
                .unwrap_or_default();
            let notes = annotations(n, src);
            if notes
                .iter()
                .any(|a| a == "ControllerAdvice" || a == "RestControllerAdvice")
            {
                out.push(hook(
                    file,
                    line(n),
                    name.clone(),
                    "controller_advice",
                    "spring",
                    "java",
                ));
            }
            if let Some(ifs) = n.child_by_field_name("interfaces") {
                let t = text(ifs, src);
                for word in t.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.') {
                    let last = word.rsplit('.').next().unwrap_or(word);
                    let kind = match last {
                        "Filter" => "filter",
                        "HandlerInterceptor" => "handler_interceptor",
                        _ => continue,
                    };
                    out.push(hook(file, line(n), name.clone(), kind, "spring", "java"));
                }
            }
        }
        "method_declaration" if annotations(n, src).iter().any(|a| a == "ExceptionHandler") => {
            let name = n
                .child_by_field_name("name")
                .map(|x| text(x, src).to_owned())
                .unwrap_or_default();
            out.push(hook(
                file,
                line(n),
                name,
                "exception_handler",
                "spring",
                "java",
            ));
        }
        _ => {}
    });
}

/// The hooks of one file.
pub fn scan_file(file: &str, lang: Language, src: &[u8]) -> Vec<Hook> {
    let mut out = Vec::new();
    let Some(tree) = crate::complexity::parse(lang, src) else {
        return out;
    };
    let root = tree.root_node();
    match lang {
        Language::Python => python(file, root, src, &mut out),
        Language::JavaScript => javascript(file, "javascript", root, src, &mut out),
        Language::TypeScript | Language::Tsx => javascript(file, "typescript", root, src, &mut out),
        Language::Java => java(file, root, src, &mut out),
        _ => {}
    }
    out
}

/// The hooks of the project's source files, by file and line.
pub fn scan(root: &Path) -> (Vec<Hook>, usize) {
    let walked = tsa_index::walk(root, &tsa_index::WalkOptions::default());
    let files: Vec<(&str, Language)> = walked
        .files
        .iter()
        .filter(|f| {
            matches!(
                f.language,
                Language::Python
                    | Language::JavaScript
                    | Language::TypeScript
                    | Language::Tsx
                    | Language::Java
            )
        })
        .map(|f| (f.rel.as_str(), f.language))
        .collect();
    let mut hooks: Vec<Hook> = files
        .par_iter()
        .flat_map_iter(|(rel, l)| match tsa_index::read_confined(root, rel) {
            Ok(b) => scan_file(rel, *l, &b),
            Err(_) => Vec::new(),
        })
        .collect();
    hooks.sort_by(|a, b| (&a.file_path, a.line_number).cmp(&(&b.file_path, b.line_number)));
    (hooks, files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(file: &str, l: Language, src: &str) -> Vec<(String, &'static str, String)> {
        scan_file(file, l, src.as_bytes())
            .into_iter()
            .map(|h| (h.middleware_name, h.middleware_type, h.url_pattern))
            .collect()
    }

    #[test]
    fn flask_fastapi_and_django() {
        let src = "@app.before_request\ndef a(): pass\n\n@bp.app_errorhandler(404)\ndef b(e): pass\n\n@app.middleware('http')\nasync def c(r, n): pass\n\n@app.route('/x')\ndef d(): pass\n";
        let k = kinds("app.py", Language::Python, src);
        assert_eq!(k.len(), 3, "{k:?}");
        assert_eq!(k[1].1, "errorhandler");
        let h = scan_file("app.py", Language::Python, src.as_bytes());
        assert_eq!(h[1].status_code, Some(404));
        assert_eq!(h[2].http_type.as_deref(), Some("http"));
        let s = "MIDDLEWARE = [\n    'django.middleware.security.SecurityMiddleware',\n]\n";
        let h = scan_file("proj/settings.py", Language::Python, s.as_bytes());
        assert_eq!(h[0].middleware_name, "SecurityMiddleware");
        assert!(scan_file("proj/other.py", Language::Python, s.as_bytes()).is_empty());
    }

    #[test]
    fn express_only_on_apps_and_routers() {
        let src = "const express = require('express');\nconst api = express.Router();\napi.use('/v1', auth, (req, res, next) => next());\ni18n.use(plugin);\napp.use(cors());\n";
        let k = kinds("s.js", Language::JavaScript, src);
        assert_eq!(
            k,
            vec![
                ("auth".into(), "use_middleware", "/v1".into()),
                ("<anonymous>".into(), "use_middleware", "/v1".into()),
                ("cors()".into(), "use_middleware", "/*".into()),
            ]
        );
    }

    #[test]
    fn spring_advice_handlers_filters_and_interceptors() {
        let src = "@RestControllerAdvice\nclass Errors {\n  @ExceptionHandler(X.class)\n  Object on(X x) { return null; }\n}\nclass Auth implements jakarta.servlet.Filter {}\nclass Log implements HandlerInterceptor, Other {}\n";
        let k: Vec<&str> = scan_file("A.java", Language::Java, src.as_bytes())
            .iter()
            .map(|h| h.middleware_type)
            .collect();
        assert_eq!(
            k,
            vec![
                "controller_advice",
                "exception_handler",
                "filter",
                "handler_interceptor"
            ]
        );
    }
}
