//! HTTP route discovery over source text: one set of line patterns per framework
//! (Flask, FastAPI, Django, Express, Spring, Gin, Actix, Axum). Each route names
//! its method, path, handler, file, line and framework.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use tsa_lang::Routes;

use crate::health::model::par_map;

/// Frameworks recognised, in the order they are reported.
pub const FRAMEWORKS: &[&str] = &[
    "flask", "django", "fastapi", "express", "spring", "gin", "actix", "axum",
];

/// One discovered route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub method: String,
    pub path: String,
    pub handler: String,
    pub file: String,
    pub line: u32,
    pub framework: &'static str,
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("route pattern compiles")
}

static PY_DECORATOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"^\s*@\s*([A-Za-z_][\w\.]*)\.(route|get|post|put|delete|patch|options|head|api_route|websocket)\(\s*(?:path\s*=\s*)?[rfb]?["']([^"']*)["'](.*)$"#,
    )
});
static PY_METHODS: LazyLock<Regex> =
    LazyLock::new(|| re(r#"methods\s*=\s*[\[\(]([^\]\)]*)[\]\)]"#));
static PY_DEF: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)"));
static DJANGO: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\b(re_path|path|url)\(\s*r?["']([^"']*)["']\s*,\s*([A-Za-z_][\w\.]*)"#));
static EXPRESS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"\b([A-Za-z_$][\w$]*)\.(get|post|put|delete|patch|all|options|head)\(\s*["'`](/[^"'`]*)["'`]\s*(.*)$"#,
    )
});
static SPRING: LazyLock<Regex> =
    LazyLock::new(|| re(r#"@(Get|Post|Put|Delete|Patch|Request)Mapping\b(?:\((.*)\))?"#));
static SPRING_PATH: LazyLock<Regex> = LazyLock::new(|| re(r#""([^"]*)""#));
static SPRING_METHOD: LazyLock<Regex> = LazyLock::new(|| re(r"RequestMethod\.([A-Z]+)"));
static JAVA_METHOD: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:[\w<>\[\],?@]+\s+)*?(?:fun\s+)?([A-Za-z_]\w*)\s*\("));
static JAVA_CLASS: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(class|interface|object)\s+[A-Za-z_]\w*"));
static GIN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"\b([A-Za-z_]\w*)\.(GET|POST|PUT|DELETE|PATCH|OPTIONS|HEAD|Any|Handle)\(\s*(?:"([A-Z]+)"\s*,\s*)?"([^"]*)"\s*(.*)$"#,
    )
});
static ACTIX_ATTR: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"#\[\s*(?:actix_web::)?(get|post|put|delete|patch|head|options)\(\s*"([^"]*)""#)
});
static RUST_FN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+([A-Za-z_]\w*)"));
static ACTIX_ROUTE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"\.route\(\s*"([^"]*)"\s*,\s*web::(get|post|put|delete|patch|head)\(\)\s*\.to\(\s*([\w:]+)"#,
    )
});
static ACTIX_RESOURCE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"web::resource\(\s*"([^"]*)"\s*\)(.*)$"#));
static ACTIX_TO: LazyLock<Regex> =
    LazyLock::new(|| re(r"web::(get|post|put|delete|patch|head)\(\)\s*\.to\(\s*([\w:]+)"));
static AXUM_ROUTE: LazyLock<Regex> = LazyLock::new(|| re(r#"\.route\(\s*"([^"]*)"\s*,\s*(.*)$"#));
static AXUM_METHOD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\b(get|post|put|delete|patch|head|options|any)\(\s*([A-Za-z_][\w:]*)\s*\)")
});

fn last_segment(name: &str) -> String {
    name.rsplit(['.', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(name)
        .to_owned()
}

/// The handler named by the last argument of a call written on one line
/// (`(req, res) => ...` is `<anonymous>`).
fn last_arg_handler(rest: &str) -> String {
    let body = rest.trim_start_matches(',').trim();
    let body = body.strip_suffix(';').unwrap_or(body).trim_end();
    let body = body.strip_suffix(')').unwrap_or(body);
    let last = body.rsplit(',').next().unwrap_or("").trim();
    if !last.is_empty()
        && last
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.')
    {
        last_segment(last)
    } else {
        "<anonymous>".to_owned()
    }
}

/// The first definition name at or below `from` (decorators and blank lines skipped).
fn next_def(lines: &[&str], from: usize, pat: &Regex) -> Option<String> {
    for l in lines.iter().skip(from).take(12) {
        if let Some(c) = pat.captures(l) {
            return Some(c[1].to_owned());
        }
    }
    None
}

/// The route syntax read in a file: its language's `routes` convention.
fn routes_of(rel: &str) -> Routes {
    tsa_lang::Language::from_path(rel)
        .and_then(|l| l.conventions().routes.get().copied())
        .unwrap_or(Routes::None)
}

/// Routes declared in one file (its language's `routes` convention decides which
/// framework syntax is read).
pub fn scan_file(rel: &str, text: &str) -> Vec<Route> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut push = |method: &str, path: &str, handler: String, line: usize, fw: &'static str| {
        out.push(Route {
            method: method.to_ascii_uppercase(),
            path: path.to_owned(),
            handler,
            file: rel.to_owned(),
            line: line as u32 + 1,
            framework: fw,
        });
    };
    match routes_of(rel) {
        Routes::PythonWeb => {
            let fastapi = text.contains("fastapi") || text.contains("FastAPI");
            let is_urls = rel.rsplit('/').next().is_some_and(|b| b == "urls.py");
            for (i, l) in lines.iter().enumerate() {
                if let Some(c) = PY_DECORATOR.captures(l) {
                    let verb = &c[2];
                    let handler = next_def(&lines, i + 1, &PY_DEF).unwrap_or_default();
                    let fw = if fastapi { "fastapi" } else { "flask" };
                    if verb == "route" || verb == "api_route" {
                        let methods: Vec<String> = PY_METHODS
                            .captures(&c[4])
                            .map(|m| {
                                m[1].split(',')
                                    .map(|s| s.trim().trim_matches(['"', '\'']).to_owned())
                                    .filter(|s| !s.is_empty())
                                    .collect()
                            })
                            .unwrap_or_default();
                        if methods.is_empty() {
                            push("GET", &c[3], handler, i, fw);
                        } else {
                            for m in methods {
                                push(&m, &c[3], handler.clone(), i, fw);
                            }
                        }
                    } else {
                        push(verb, &c[3], handler, i, fw);
                    }
                } else if is_urls && let Some(c) = DJANGO.captures(l) {
                    push(
                        "ANY",
                        &c[2],
                        last_segment(c[3].trim_end_matches(".as_view")),
                        i,
                        "django",
                    );
                }
            }
        }
        Routes::Express => {
            for (i, l) in lines.iter().enumerate() {
                if let Some(c) = EXPRESS.captures(l) {
                    let verb = if &c[2] == "all" { "ANY" } else { &c[2] };
                    push(verb, &c[3], last_arg_handler(&c[4]), i, "express");
                }
            }
        }
        Routes::Spring => {
            let mut prefix = String::new();
            for (i, l) in lines.iter().enumerate() {
                let Some(c) = SPRING.captures(l) else {
                    continue;
                };
                let args = c.get(2).map_or("", |m| m.as_str());
                let path = SPRING_PATH
                    .captures(args)
                    .map(|p| p[1].to_owned())
                    .unwrap_or_default();
                // The next non-annotation line: a class (prefix) or a method (route).
                let target = lines
                    .iter()
                    .enumerate()
                    .skip(i + 1)
                    .take(12)
                    .find(|(_, t)| {
                        let t = t.trim();
                        !t.is_empty() && !t.starts_with('@') && !t.starts_with("//")
                    });
                let Some((_, t)) = target else { continue };
                if JAVA_CLASS.is_match(t) {
                    prefix = path;
                    continue;
                }
                let method = match &c[1] {
                    "Request" => SPRING_METHOD
                        .captures(args)
                        .map_or("ANY".to_owned(), |m| m[1].to_owned()),
                    verb => verb.to_ascii_uppercase(),
                };
                let handler = JAVA_METHOD
                    .captures(t)
                    .map(|m| m[1].to_owned())
                    .unwrap_or_default();
                let full = join_paths(&prefix, &path);
                push(&method, &full, handler, i, "spring");
            }
        }
        Routes::Gin => {
            for (i, l) in lines.iter().enumerate() {
                if let Some(c) = GIN.captures(l) {
                    let verb = match &c[2] {
                        "Any" => "ANY".to_owned(),
                        "Handle" => c.get(3).map_or("ANY", |m| m.as_str()).to_owned(),
                        v => v.to_owned(),
                    };
                    push(&verb, &c[4], last_arg_handler(&c[5]), i, "gin");
                }
            }
        }
        Routes::RustWeb => {
            for (i, l) in lines.iter().enumerate() {
                if let Some(c) = ACTIX_ATTR.captures(l) {
                    let handler = next_def(&lines, i + 1, &RUST_FN).unwrap_or_default();
                    push(&c[1], &c[2], handler, i, "actix");
                } else if let Some(c) = ACTIX_ROUTE.captures(l) {
                    push(&c[2], &c[1], last_segment(&c[3]), i, "actix");
                } else if let Some(c) = ACTIX_RESOURCE.captures(l) {
                    for m in ACTIX_TO.captures_iter(&c[2]) {
                        push(&m[1], &c[1], last_segment(&m[2]), i, "actix");
                    }
                } else if let Some(c) = AXUM_ROUTE.captures(l) {
                    for m in AXUM_METHOD.captures_iter(&c[2]) {
                        let verb = if &m[1] == "any" { "ANY" } else { &m[1] };
                        push(verb, &c[1], last_segment(&m[2]), i, "axum");
                    }
                }
            }
        }
        Routes::None => {}
    }
    out
}

fn join_paths(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        return path.to_owned();
    }
    if path.is_empty() {
        return prefix.to_owned();
    }
    format!(
        "{}/{}",
        prefix.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// Routes of every listed source file, in file and line order.
pub fn scan_project(root: &Path, files: &[String]) -> Vec<Route> {
    let wanted: Vec<&String> = files
        .iter()
        .filter(|f| routes_of(f) != Routes::None)
        .collect();
    par_map(&wanted, |rel| {
        let Ok(text) = crate::security::read_text_in_root(root, rel) else {
            return Vec::new();
        };
        // Cheap gate: most files declare no route at all.
        if !(text.contains("route")
            || text.contains("Mapping")
            || text.contains(".get(")
            || text.contains(".post(")
            || text.contains(".put(")
            || text.contains(".delete(")
            || text.contains(".patch(")
            || text.contains("GET(")
            || text.contains("POST(")
            || text.contains("path(")
            || text.contains("web::")
            || text.contains("#["))
        {
            return Vec::new();
        }
        scan_file(rel, &text)
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(rel: &str, src: &str) -> Vec<(String, String, String, &'static str)> {
        scan_file(rel, src)
            .into_iter()
            .map(|r| (r.method, r.path, r.handler, r.framework))
            .collect()
    }

    #[test]
    fn flask_routes_with_methods() {
        let got = one(
            "app.py",
            "from flask import Flask\n@app.route('/users', methods=['GET', 'POST'])\ndef users():\n    pass\n@bp.get(\"/items/<id>\")\ndef item(id):\n    pass\n",
        );
        assert_eq!(
            got,
            vec![
                ("GET".into(), "/users".into(), "users".into(), "flask"),
                ("POST".into(), "/users".into(), "users".into(), "flask"),
                ("GET".into(), "/items/<id>".into(), "item".into(), "flask"),
            ]
        );
    }

    #[test]
    fn fastapi_routes() {
        let got = one(
            "api.py",
            "from fastapi import APIRouter\n@router.post('/orders')\nasync def create_order():\n    pass\n",
        );
        assert_eq!(
            got,
            vec![(
                "POST".into(),
                "/orders".into(),
                "create_order".into(),
                "fastapi"
            )]
        );
    }

    #[test]
    fn django_paths_only_in_urls_py() {
        let src = "urlpatterns = [\n    path('articles/', views.article_list),\n    path('about/', AboutView.as_view()),\n]\n";
        assert_eq!(
            one("blog/urls.py", src),
            vec![
                (
                    "ANY".into(),
                    "articles/".into(),
                    "article_list".into(),
                    "django"
                ),
                ("ANY".into(), "about/".into(), "AboutView".into(), "django"),
            ]
        );
        assert!(one("blog/other.py", src).is_empty());
    }

    #[test]
    fn express_routes() {
        let got = one(
            "server.js",
            "app.get('/health', healthCheck);\nrouter.post(\"/login\", auth, controller.login);\napp.delete('/x', (req, res) => res.send());\n",
        );
        assert_eq!(
            got,
            vec![
                (
                    "GET".into(),
                    "/health".into(),
                    "healthCheck".into(),
                    "express"
                ),
                ("POST".into(), "/login".into(), "login".into(), "express"),
                (
                    "DELETE".into(),
                    "/x".into(),
                    "<anonymous>".into(),
                    "express"
                ),
            ]
        );
    }

    #[test]
    fn spring_routes_with_class_prefix() {
        let src = "@RestController\n@RequestMapping(\"/api\")\npublic class UserController {\n    @GetMapping(\"/users/{id}\")\n    public User getUser(@PathVariable long id) { return null; }\n    @RequestMapping(value = \"/users\", method = RequestMethod.POST)\n    public User create() { return null; }\n}\n";
        assert_eq!(
            one("UserController.java", src),
            vec![
                (
                    "GET".into(),
                    "/api/users/{id}".into(),
                    "getUser".into(),
                    "spring"
                ),
                (
                    "POST".into(),
                    "/api/users".into(),
                    "create".into(),
                    "spring"
                ),
            ]
        );
    }

    #[test]
    fn gin_routes() {
        let got = one(
            "main.go",
            "\tr.GET(\"/ping\", ping)\n\tv1.POST(\"/submit\", handlers.Submit)\n",
        );
        assert_eq!(
            got,
            vec![
                ("GET".into(), "/ping".into(), "ping".into(), "gin"),
                ("POST".into(), "/submit".into(), "Submit".into(), "gin"),
            ]
        );
    }

    #[test]
    fn actix_and_axum_routes() {
        let actix = "#[get(\"/hello/{name}\")]\nasync fn greet() -> impl Responder { \"\" }\n    .route(\"/bye\", web::post().to(bye))\n";
        assert_eq!(
            one("src/main.rs", actix),
            vec![
                (
                    "GET".into(),
                    "/hello/{name}".into(),
                    "greet".into(),
                    "actix"
                ),
                ("POST".into(), "/bye".into(), "bye".into(), "actix"),
            ]
        );
        let axum = "    let app = Router::new()\n        .route(\"/users\", get(list_users).post(handlers::create_user));\n";
        assert_eq!(
            one("src/app.rs", axum),
            vec![
                ("GET".into(), "/users".into(), "list_users".into(), "axum"),
                ("POST".into(), "/users".into(), "create_user".into(), "axum"),
            ]
        );
    }
}
