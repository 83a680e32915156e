//! The self-contained knowledge page: one HTML file with its style, its script (a
//! canvas renderer with pan, zoom, labels, search and neighbour highlighting) and the
//! Graphology JSON inline. A Content-Security-Policy of `default-src 'none'` keeps it
//! from loading anything; it needs no network.

use serde_json::Value;

const TEMPLATE: &str = include_str!("page.html");
const DATA_MARK: &str = "__GRAPH_DATA__";
const TITLE_MARK: &str = "__TITLE__";

fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON safe inside a `<script>` element: `<`, `>` and `&` only occur inside JSON
/// strings, where their `\u` escapes mean the same.
fn script_safe_json(v: &Value) -> String {
    v.to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The page drawing `graph` (a serialized Graphology graph), titled `title`.
pub fn render(title: &str, graph: &Value) -> String {
    let (head, tail) = TEMPLATE.split_once(DATA_MARK).unwrap_or((TEMPLATE, ""));
    let mut out = head.replace(TITLE_MARK, &escape_html(title));
    out.push_str(&script_safe_json(graph));
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_cannot_close_the_script_and_the_page_loads_nothing() {
        let g = json!({"attributes": {"name": "</script><b>"}, "nodes": [], "edges": []});
        let html = render("a <b> & \"c\"", &g);
        assert!(!html.contains("</script><b>"));
        assert!(html.contains("a &lt;b&gt; &amp; &quot;c&quot;"));
        assert!(html.contains("\\u003c/script\\u003e"));
        assert!(!html.contains(DATA_MARK) && !html.contains(TITLE_MARK));
        for needle in ["src=", "href=", "@import", "url(", "http://", "https://"] {
            assert!(!html.contains(needle), "page references {needle}");
        }
        assert!(html.contains("default-src 'none'"));
    }
}
