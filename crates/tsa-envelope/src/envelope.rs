//! Success and failure envelopes. Their JSON keeps every contract invariant by
//! construction: `error` iff not `success`, one verdict written to both surfaces,
//! `summary_line` mirrored, and truncation numbers taken from the capped lists.

use serde_json::{Map, Value, json};

use crate::{Capped, ErrorType, ListSpelling, RESERVED_KEYS, Verdict};

/// A response: the tool ran (`Success`, with any verdict but ERROR) or it did not.
#[derive(Clone, Debug)]
pub enum Envelope {
    Success(Success),
    Failure(Failure),
}

impl Envelope {
    pub fn is_success(&self) -> bool {
        matches!(self, Envelope::Success(_))
    }

    pub fn verdict(&self) -> Verdict {
        match self {
            Envelope::Success(s) => s.verdict,
            Envelope::Failure(_) => Verdict::Error,
        }
    }

    /// The envelope as the JSON object every format starts from.
    pub fn to_json(&self) -> Map<String, Value> {
        match self {
            Envelope::Success(s) => s.to_json(),
            Envelope::Failure(f) => f.to_json(),
        }
    }
}

impl From<Success> for Envelope {
    fn from(s: Success) -> Self {
        Envelope::Success(s)
    }
}

impl From<Failure> for Envelope {
    fn from(f: Failure) -> Self {
        Envelope::Failure(f)
    }
}

fn insert_payload(map: &mut Map<String, Value>, key: &str, value: Value) {
    // The envelope owns its reserved keys; a payload cannot shadow them.
    debug_assert!(
        !RESERVED_KEYS.contains(&key),
        "payload key {key} is reserved"
    );
    if !RESERVED_KEYS.contains(&key) {
        map.insert(key.to_owned(), value);
    }
}

/// The tool ran end to end.
#[derive(Clone, Debug)]
pub struct Success {
    verdict: Verdict,
    summary_line: String,
    follow_up: String,
    payload: Map<String, Value>,
    agent_extra: Map<String, Value>,
    warnings: Vec<String>,
    lists: Vec<(ListSpelling, Capped<Value>)>,
    links: Vec<ListLink>,
    resume: Option<String>,
}

/// Ties an edge list to a node list: an edge row is kept only while the node rows
/// its `ends` fields name (by the nodes' `key` field) are listed. A budget cut that
/// drops node rows drops their edges with them, so a graph answer (Graphology, for
/// one) never lists an edge to a node it left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListLink {
    pub nodes: &'static str,
    pub key: &'static str,
    pub edges: &'static str,
    pub ends: [&'static str; 2],
}

impl Success {
    /// A success with `verdict`. ERROR belongs to failures, so it is written as WARN
    /// here; no success envelope ever carries ERROR.
    pub fn new(verdict: Verdict, summary_line: impl Into<String>) -> Self {
        let verdict = if verdict == Verdict::Error {
            Verdict::Warn
        } else {
            verdict
        };
        Success {
            verdict,
            summary_line: one_line(&summary_line.into()),
            follow_up: String::new(),
            payload: Map::new(),
            agent_extra: Map::new(),
            warnings: Vec::new(),
            lists: Vec::new(),
            links: Vec::new(),
            resume: None,
        }
    }

    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    pub fn set_verdict(&mut self, verdict: Verdict) {
        if verdict != Verdict::Error {
            self.verdict = verdict;
        }
    }

    pub fn summary_line(&self) -> &str {
        &self.summary_line
    }

    /// Adds a tool-specific payload key (reserved envelope keys are ignored).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        insert_payload(&mut self.payload, key, value.into());
        self
    }

    pub fn insert(&mut self, key: &str, value: impl Into<Value>) {
        insert_payload(&mut self.payload, key, value.into());
    }

    pub fn payload(&self) -> &Map<String, Value> {
        &self.payload
    }

    /// Adds a key to `agent_summary` beside `summary_line`, `verdict` and `next_step`.
    pub fn with_agent(mut self, key: &str, value: impl Into<Value>) -> Self {
        if !matches!(key, "summary_line" | "verdict" | "next_step") {
            self.agent_extra.insert(key.to_owned(), value.into());
        }
        self
    }

    /// The recommended next action. On truncation it is appended after the
    /// "showing X of Y" sentence, which always comes first.
    pub fn with_next_step(mut self, step: impl Into<String>) -> Self {
        self.follow_up = step.into();
        self
    }

    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Attaches a capped list with its four-part truncation fields.
    pub fn with_list(mut self, spelling: ListSpelling, list: Capped<Value>) -> Self {
        self.lists.push((spelling, list));
        self
    }

    /// Declares that `link.edges` rows point at `link.nodes` rows (see [`ListLink`]).
    pub fn with_link(mut self, link: ListLink) -> Self {
        self.links.push(link);
        self
    }

    /// Drops whole rows from the end of the longest attached list until the dropped
    /// rows' compact JSON text adds up to at least `chars` (at least one row, so
    /// `drop_rows(0)` drops exactly one). Returns how many
    /// rows were dropped; 0 when every list is already empty.
    pub fn drop_rows(&mut self, chars: usize) -> usize {
        let Some((spelling, list)) = self
            .lists
            .iter_mut()
            .filter(|(_, c)| c.listed() > 0)
            .max_by_key(|(_, c)| c.listed())
        else {
            return 0;
        };
        let mut dropped = 0usize;
        let mut freed = 0usize;
        while dropped == 0 || freed < chars {
            let Some(row) = list.pop() else { break };
            freed += row.to_string().len() + 1;
            dropped += 1;
        }
        let trimmed = spelling.list_key;
        for link in self.links.clone().iter().filter(|l| l.nodes == trimmed) {
            dropped += self.drop_dangling(link);
        }
        dropped
    }

    /// Drops the rows of `link.edges` whose ends are not listed in `link.nodes`.
    fn drop_dangling(&mut self, link: &ListLink) -> usize {
        let Some(keys) = self
            .lists
            .iter()
            .find(|(s, _)| s.list_key == link.nodes)
            .map(|(_, nodes)| {
                nodes
                    .items()
                    .iter()
                    .filter_map(|n| n.get(link.key).cloned())
                    .collect::<Vec<Value>>()
            })
        else {
            return 0;
        };
        let Some((_, edges)) = self
            .lists
            .iter_mut()
            .find(|(s, _)| s.list_key == link.edges)
        else {
            return 0;
        };
        let before = edges.listed();
        edges.retain(|e| {
            link.ends
                .iter()
                .all(|end| e.get(*end).is_some_and(|v| keys.contains(v)))
        });
        before - edges.listed()
    }

    /// Each attached list's key and exact total, in the order they were attached.
    pub fn list_totals(&self) -> Vec<(&'static str, usize)> {
        self.lists
            .iter()
            .map(|(s, c)| (s.list_key, c.total()))
            .collect()
    }

    /// Where each attached list's next page starts (rows listed so far).
    pub fn next_offsets(&self) -> Vec<usize> {
        self.lists.iter().map(|(_, c)| c.next_offset()).collect()
    }

    /// Makes every attached list a later page: list `i` skips its first
    /// `offsets[i]` rows (0 past the end of `offsets`), then keeps at most its cap.
    pub fn page(&mut self, offsets: &[usize]) {
        for (i, (_, list)) in self.lists.iter_mut().enumerate() {
            list.page(offsets.get(i).copied().unwrap_or(0));
        }
    }

    /// The opaque cursor that resumes this answer's capped lists (`None`: no more
    /// rows): written as `next_cursor`, and named in `next_step` after the
    /// truncation sentences.
    pub fn set_resume(&mut self, cursor: Option<String>) {
        self.resume = cursor;
    }

    /// True iff any attached list lost items to its cap.
    pub fn truncated(&self) -> bool {
        self.lists.iter().any(|(_, c)| c.truncated())
    }

    /// The `next_step` as written: truncation sentences first, then the follow-up.
    pub fn next_step(&self) -> String {
        let mut parts: Vec<String> = self
            .lists
            .iter()
            .filter(|(_, c)| c.truncated())
            .map(|(s, c)| s.next_step(c))
            .collect();
        if let Some(cursor) = &self.resume {
            parts.push(format!("next page: cursor=\"{cursor}\""));
        }
        if !self.follow_up.is_empty() {
            parts.push(self.follow_up.clone());
        }
        parts.join(". ")
    }

    fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("success".into(), Value::Bool(true));
        m.insert("verdict".into(), json!(self.verdict));
        m.insert("summary_line".into(), json!(self.summary_line));
        for (k, v) in self
            .payload
            .iter()
            .filter(|(k, _)| !RESERVED_KEYS.contains(&k.as_str()))
        {
            m.insert(k.clone(), v.clone());
        }
        for (spelling, list) in &self.lists {
            m.insert(
                spelling.list_key.into(),
                Value::Array(list.items().to_vec()),
            );
            m.insert(spelling.total_key.into(), json!(list.total()));
            m.insert(spelling.listed_key.into(), json!(list.listed()));
            m.insert(spelling.cap_key.into(), json!(list.cap()));
        }
        if !self.lists.is_empty() {
            m.insert("truncated".into(), Value::Bool(self.truncated()));
        }
        if let Some(cursor) = &self.resume {
            m.insert("next_cursor".into(), json!(cursor));
        }
        if !self.warnings.is_empty() {
            m.insert("warnings".into(), json!(self.warnings));
        }
        let next_step = self.next_step();
        m.insert("next_step".into(), json!(next_step));
        let mut agent = Map::new();
        agent.insert("summary_line".into(), json!(self.summary_line));
        agent.insert("verdict".into(), json!(self.verdict));
        agent.insert("next_step".into(), json!(next_step));
        for (k, v) in &self.agent_extra {
            agent.insert(k.clone(), v.clone());
        }
        m.insert("agent_summary".into(), Value::Object(agent));
        m
    }
}

/// The call failed: `success:false`, `verdict:ERROR`, with `error`, `error_type`, `hint`.
#[derive(Clone, Debug)]
pub struct Failure {
    error: String,
    error_type: ErrorType,
    hint: String,
    summary_line: Option<String>,
    suggested_tool: Option<String>,
    payload: Map<String, Value>,
}

impl Failure {
    pub fn new(error_type: ErrorType, error: impl Into<String>) -> Self {
        Failure {
            error: error.into(),
            error_type,
            hint: error_type.default_hint().to_owned(),
            summary_line: None,
            suggested_tool: None,
            payload: Map::new(),
        }
    }

    pub fn error(&self) -> &str {
        &self.error
    }

    pub fn error_type(&self) -> ErrorType {
        self.error_type
    }

    pub fn hint(&self) -> &str {
        &self.hint
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = hint.into();
        self
    }

    pub fn with_suggested_tool(mut self, tool: impl Into<String>) -> Self {
        self.suggested_tool = Some(tool.into());
        self
    }

    /// Whether the failure carries `key` beside the envelope's fields.
    pub fn has(&self, key: &str) -> bool {
        self.payload.contains_key(key)
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        insert_payload(&mut self.payload, key, value.into());
        self
    }

    /// Removes `secret` (an absolute project root, say) from the error text and the
    /// summary line (which may quote the request's own path argument).
    pub fn redact(mut self, secret: &str) -> Self {
        fn clean(text: &str, secret: &str) -> String {
            text.replace(&format!("{secret}/"), "")
                .replace(secret, "<project root>")
        }
        if !secret.is_empty() {
            self.error = clean(&self.error, secret);
            self.summary_line = self.summary_line.as_deref().map(|s| clean(s, secret));
        }
        self
    }

    /// Sets the summary line `<tool>: <error_type> — <identifier>` (identifier optional).
    pub fn with_subject(mut self, tool: &str, identifier: Option<&str>) -> Self {
        let line = match identifier.filter(|s| !s.trim().is_empty()) {
            Some(id) => format!("{tool}: {} — {id}", self.error_type),
            None => format!("{tool}: {}", self.error_type),
        };
        self.summary_line = Some(one_line(&line));
        self
    }

    fn to_json(&self) -> Map<String, Value> {
        let summary = self
            .summary_line
            .clone()
            .unwrap_or_else(|| format!("tsa: {}", self.error_type));
        let mut m = Map::new();
        m.insert("success".into(), Value::Bool(false));
        m.insert("error".into(), json!(self.error));
        m.insert("error_type".into(), json!(self.error_type.as_str()));
        m.insert("error_category".into(), json!(self.error_type.as_str()));
        m.insert("hint".into(), json!(self.hint));
        m.insert("recovery_hint".into(), json!(self.hint));
        m.insert("verdict".into(), json!(Verdict::Error));
        m.insert("summary_line".into(), json!(summary));
        for (k, v) in self
            .payload
            .iter()
            .filter(|(k, _)| !RESERVED_KEYS.contains(&k.as_str()))
        {
            m.insert(k.clone(), v.clone());
        }
        if let Some(tool) = &self.suggested_tool {
            m.insert("suggested_tool".into(), json!(tool));
        }
        m.insert("next_step".into(), json!(self.hint));
        m.insert(
            "agent_summary".into(),
            json!({"summary_line": summary, "verdict": Verdict::Error, "next_step": self.hint}),
        );
        m
    }
}

/// Collapses a summary to one line: parts split on whitespace, joined by one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroUsize;

    #[test]
    fn a_budget_cut_of_linked_nodes_takes_their_edges_along() {
        let spell = |list_key: &'static str| ListSpelling {
            list_key,
            total_key: "t",
            listed_key: "l",
            cap_key: "c",
            noun: list_key,
            remedy: String::new(),
        };
        let nodes: Vec<Value> = (0..6).map(|i| json!({"key": i})).collect();
        let edges = vec![
            json!({"source": 0, "target": 1}),
            json!({"source": 1, "target": 5}),
        ];
        let cap = NonZeroUsize::new(100).unwrap();
        let mut s = Success::new(Verdict::Info, "graph")
            .with_list(spell("nodes"), Capped::counted(nodes, 6, cap))
            .with_list(spell("edges"), Capped::counted(edges, 2, cap))
            .with_link(ListLink {
                nodes: "nodes",
                key: "key",
                edges: "edges",
                ends: ["source", "target"],
            });
        // One node row (key 5) and the one edge that touches it.
        assert_eq!(s.drop_rows(0), 2);
        let listed: Vec<usize> = s.lists.iter().map(|(_, c)| c.listed()).collect();
        assert_eq!(listed, [5, 1]);
        assert!(
            s.lists
                .iter()
                .all(|(_, c)| c.total() == if c.listed() == 5 { 6 } else { 2 })
        );
    }

    fn callers_spelling() -> ListSpelling {
        ListSpelling {
            list_key: "callers",
            total_key: "caller_count",
            listed_key: "callers_listed",
            cap_key: "listed_cap",
            noun: "callers",
            remedy: "raise limit".into(),
        }
    }

    /// Found by the `mcp_input` fuzz target: a failure's summary line quoted an
    /// absolute path argument, project root included.
    #[test]
    fn redact_cleans_the_error_and_the_summary_line() {
        let f = Failure::new(ErrorType::FileNotFound, "File not found: /r/p/a.py")
            .with_subject("health", Some("/r/p/a.py"))
            .redact("/r/p");
        let j = Envelope::from(f).to_json();
        assert_eq!(j["error"], "File not found: a.py");
        assert_eq!(j["summary_line"], "health: file_not_found — a.py");
        assert_eq!(j["agent_summary"]["summary_line"], j["summary_line"]);
        let f = Failure::new(ErrorType::Validation, "x")
            .with_subject("nav", Some("/r/p"))
            .redact("/r/p");
        assert_eq!(
            Envelope::from(f).to_json()["summary_line"],
            "nav: validation — <project root>"
        );
    }

    #[test]
    fn success_mirrors_verdict_and_summary() {
        let s = Success::new(Verdict::Safe, "a  b\n c").with("file_path", "x.py");
        let j = Envelope::from(s).to_json();
        assert_eq!(j["success"], true);
        assert_eq!(j["verdict"], "SAFE");
        assert_eq!(j["agent_summary"]["verdict"], "SAFE");
        assert_eq!(j["summary_line"], "a b c");
        assert_eq!(j["agent_summary"]["summary_line"], "a b c");
        assert!(j.get("error").is_none());
    }

    #[test]
    fn success_never_carries_error() {
        let s = Success::new(Verdict::Error, "x");
        assert_eq!(s.verdict(), Verdict::Warn);
    }

    #[test]
    fn payload_cannot_shadow_reserved_keys() {
        let mut s = Success::new(Verdict::Info, "x");
        s.payload.insert("verdict".into(), json!("OK")); // even direct insertion is overwritten
        let j = Envelope::from(s).to_json();
        assert_eq!(j["verdict"], "INFO");
    }

    #[test]
    fn truncation_writes_real_numbers_first() {
        let cap = NonZeroUsize::new(3).unwrap();
        let list = Capped::collect((0..39).map(|i| json!(i)), cap);
        let s = Success::new(Verdict::Info, "x")
            .with_list(callers_spelling(), list)
            .with_next_step("Bodies are inlined.");
        let j = Envelope::from(s).to_json();
        assert_eq!(j["caller_count"], 39);
        assert_eq!(j["callers_listed"], 3);
        assert_eq!(j["listed_cap"], 3);
        assert_eq!(j["truncated"], true);
        assert_eq!(
            j["next_step"],
            "showing 3 of 39 callers — raise limit. Bodies are inlined."
        );
        assert_eq!(j["agent_summary"]["next_step"], j["next_step"]);
    }

    #[test]
    fn failure_has_error_type_and_hint() {
        let f = Failure::new(ErrorType::Validation, "limit must be >= 1")
            .with_subject("nav", Some("callers"));
        let j = Envelope::from(f).to_json();
        assert_eq!(j["success"], false);
        assert_eq!(j["verdict"], "ERROR");
        assert_eq!(j["error_type"], "validation");
        assert!(j["hint"].as_str().is_some_and(|h| !h.is_empty()));
        assert_eq!(j["summary_line"], "nav: validation — callers");
        assert_eq!(j["agent_summary"]["verdict"], "ERROR");
    }
}
