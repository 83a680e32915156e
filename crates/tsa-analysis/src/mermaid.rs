//! Mermaid text (analyses §14): node ids sanitised from name + file, labels short
//! `name (file)` forms with double quotes made single, one line per unique node
//! and edge, sorted, and an honest note when edges were left out.

/// A Mermaid-safe node id for a definition.
pub fn node_id(name: &str, file: &str) -> String {
    let mut id: String = format!("{file}_{name}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, 'n');
    }
    id
}

/// The label of a definition: `Class.method (file.py)`.
pub fn label(qualname: &str, file: &str) -> String {
    let short = file.rsplit('/').next().unwrap_or(file);
    format!("{qualname} ({short})").replace('"', "'")
}

/// `flowchart <dir>` with `nodes` (id, label) and `edges` (from id, to id); `total`
/// is the number of edges before a cap (a `%%` comment says what was left out).
pub fn flowchart(
    direction: &str,
    nodes: &[(String, String)],
    edges: &[(String, String)],
    total: usize,
) -> String {
    let mut nodes = nodes.to_vec();
    nodes.sort();
    nodes.dedup();
    let mut text = format!("flowchart {direction}\n");
    if edges.is_empty() {
        text.push_str("    empty[\"No call edges found\"]\n");
    }
    for (id, label) in &nodes {
        text.push_str(&format!("    {id}[\"{label}\"]\n"));
    }
    let mut lines: Vec<String> = edges
        .iter()
        .map(|(a, b)| format!("    {a} --> {b}"))
        .collect();
    lines.sort();
    lines.dedup();
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    if total > edges.len() {
        text.push_str(&format!(
            "    %% showing {} of {} call edges (raise max_edges)\n",
            edges.len(),
            total
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flowchart_is_sorted_deduplicated_and_honest() {
        let a = node_id("run", "app/core.py");
        assert_eq!(a, "app_core_py_run");
        assert_eq!(node_id("x", "1.py"), "n1_py_x");
        let b = node_id("step", "app/core.py");
        let nodes = vec![
            (b.clone(), label("Engine.step", "app/core.py")),
            (a.clone(), label("run", "app/core.py")),
        ];
        let text = flowchart(
            "LR",
            &nodes,
            &[(a.clone(), b.clone()), (a.clone(), b.clone())],
            3,
        );
        assert_eq!(
            text,
            "flowchart LR\n    app_core_py_run[\"run (core.py)\"]\n    app_core_py_step[\"Engine.step (core.py)\"]\n    app_core_py_run --> app_core_py_step\n    %% showing 2 of 3 call edges (raise max_edges)\n"
        );
        assert!(flowchart("TD", &[], &[], 0).contains("empty[\"No call edges found\"]"));
        assert_eq!(label("say \"hi\"", "a/b.py"), "say 'hi' (b.py)");
    }
}
