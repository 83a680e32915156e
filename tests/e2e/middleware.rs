//! `health middleware` end to end: Flask, FastAPI, Django, Express and Spring hooks
//! of a small project, every mode, the framework filter, lookup by URL prefix and
//! its refusal without one, over the CLI and MCP.

use std::path::Path;

use serde_json::{Value, json};

use crate::edit_git::write;
use crate::support::{empty_project, mcp, mcp_call, tool_cli};

fn project() -> crate::support::Project {
    let p = empty_project();
    write(
        &p.root,
        "web/app.py",
        "from flask import Flask\napp = Flask(__name__)\n\n\n@app.before_request\ndef auth():\n    pass\n\n\n@app.errorhandler(500)\ndef oops(e):\n    return 'x'\n",
    );
    write(
        &p.root,
        "svc/main.py",
        "from fastapi import FastAPI\napp = FastAPI()\n\n\n@app.middleware('http')\nasync def timing(request, call_next):\n    return await call_next(request)\n",
    );
    write(
        &p.root,
        "site/settings.py",
        "MIDDLEWARE = [\n    'django.middleware.security.SecurityMiddleware',\n    'django.contrib.sessions.middleware.SessionMiddleware',\n]\n",
    );
    write(
        &p.root,
        "api/server.js",
        "const express = require('express');\nconst app = express();\nconst v1 = express.Router();\napp.use(logger);\nv1.use('/api/v1', requireAuth);\ni18next.use(backend);\n",
    );
    write(
        &p.root,
        "java/Errors.java",
        "@ControllerAdvice\npublic class Errors {\n  @ExceptionHandler(Exception.class)\n  public String handle(Exception e) { return \"x\"; }\n}\nclass Audit implements HandlerInterceptor {}\n",
    );
    p
}

fn cli(root: &Path, args: &Value) -> Value {
    tool_cli(root, "health", args)
}

#[test]
fn every_framework_every_mode() {
    let p = project();
    let v = cli(&p.root, &json!({"action": "middleware"}));
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["verdict"], "INFO");
    assert_eq!(v["middleware_count"], 10, "{v}");
    let kinds: Vec<(&str, &str)> = v["middlewares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["middleware_name"].as_str().unwrap(),
                h["middleware_type"].as_str().unwrap(),
            )
        })
        .collect();
    for want in [
        ("logger", "use_middleware"),
        ("requireAuth", "use_middleware"),
        ("Errors", "controller_advice"),
        ("handle", "exception_handler"),
        ("Audit", "handler_interceptor"),
        ("SecurityMiddleware", "settings_middleware"),
        ("timing", "middleware"),
        ("auth", "before_request"),
        ("oops", "errorhandler"),
    ] {
        assert!(kinds.contains(&want), "{want:?} in {kinds:?}");
    }
    assert!(
        !kinds.iter().any(|k| k.0 == "backend"),
        "i18next is no express app"
    );
    let v = cli(&p.root, &json!({"action": "middleware", "mode": "summary"}));
    assert_eq!(v["total_middlewares"], 10);
    assert_eq!(v["by_framework"]["express"], 2);
    assert_eq!(v["by_framework"]["django"], 2);
    let v = cli(
        &p.root,
        &json!({"action": "middleware", "mode": "lookup", "url_prefix": "api"}),
    );
    assert_eq!(v["url_prefix"], "/api");
    // The hooks that run for URLs under the prefix, global ones too.
    assert_eq!(v["middleware_count"], 10, "{v}");
    let v = cli(
        &p.root,
        &json!({"action": "middleware", "mode": "lookup", "url_prefix": "/other"}),
    );
    assert_eq!(
        v["middleware_count"], 9,
        "requireAuth is mounted at /api/v1 only: {v}"
    );
    assert!(!v["middlewares"].to_string().contains("requireAuth"));
    let v = cli(
        &p.root,
        &json!({"action": "middleware", "framework": "flask", "limit": 1}),
    );
    assert_eq!(v["middleware_count"], 2);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["middlewares"][0]["status_code"], serde_json::Value::Null);
    let v = cli(&p.root, &json!({"action": "middleware", "mode": "lookup"}));
    assert_eq!(v["error_type"], "validation", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn middleware_over_mcp() {
    let p = project();
    let client = mcp((), &p.root).await;
    let (is_error, v) = mcp_call(
        &client,
        "health",
        json!({"action": "middleware", "framework": "spring", "output_format": "json"}),
    )
    .await;
    assert!(!is_error, "{v}");
    assert_eq!(v["middleware_count"], 3, "{v}");
    let (is_error, _) = mcp_call(
        &client,
        "health",
        json!({"action": "middleware", "framework": "rails"}),
    )
    .await;
    assert!(is_error);
    client.cancel().await.unwrap();
}
