//! The project-scoped MCP configuration files of the clients that read one from the
//! project, and the merge that adds tsa's server to one without touching anything
//! else in it (other servers, other keys, key order, indentation).

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::{Map, Value, json};

/// A client that reads its MCP servers from a file in the project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: `.mcp.json`, servers under `mcpServers`.
    #[value(alias = "claude-code")]
    Claude,
    /// Cursor: `.cursor/mcp.json`, servers under `mcpServers`.
    Cursor,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json`, servers under `servers`.
    #[value(alias = "vs-code", alias = "code")]
    Vscode,
}

impl Client {
    pub const ALL: [Client; 3] = [Client::Claude, Client::Cursor, Client::Vscode];

    /// The client's name as its users know it.
    pub fn title(self) -> &'static str {
        match self {
            Client::Claude => "Claude Code",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
        }
    }

    /// The `--client` value.
    pub fn id(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
        }
    }

    /// The configuration file, relative to the project root.
    pub fn path(self) -> &'static str {
        match self {
            Client::Claude => ".mcp.json",
            Client::Cursor => ".cursor/mcp.json",
            Client::Vscode => ".vscode/mcp.json",
        }
    }

    /// The key that holds the servers.
    pub fn servers_key(self) -> &'static str {
        match self {
            Client::Claude | Client::Cursor => "mcpServers",
            Client::Vscode => "servers",
        }
    }

    /// The project root as the client expands it when it starts the server, so the
    /// file names no machine-specific path and can be committed: VS Code and
    /// Cursor expand `${workspaceFolder}`; Claude Code expands `${VAR:-default}`
    /// and starts project servers in the project folder.
    fn root_arg(self) -> &'static str {
        match self {
            Client::Claude => "${CLAUDE_PROJECT_DIR:-.}",
            Client::Cursor | Client::Vscode => "${workspaceFolder}",
        }
    }

    /// tsa's server entry: `tsa mcp --watch` on the project, over stdio.
    pub fn entry(self, command: &str) -> Value {
        json!({
            "type": "stdio",
            "command": command,
            "args": ["mcp", "--watch", "--project-root", self.root_arg()],
        })
    }
}

/// The server name tsa's entry has in every file.
pub const SERVER: &str = "tsa";

/// What merging does to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// No file yet: it is created.
    Create,
    /// The file gains tsa's server; everything else in it is kept.
    Add,
    /// tsa's server is already there as tsa would write it.
    Same,
    /// A `tsa` server that differs is there and is kept (no `--force`).
    KeptDifferent,
    /// A `tsa` server that differs is replaced (`--force`).
    Replace,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Create => "created",
            Change::Add => "added",
            Change::Same => "unchanged",
            Change::KeptDifferent => "kept",
            Change::Replace => "replaced",
        }
    }

    /// Whether the file is written.
    pub fn writes(self) -> bool {
        matches!(self, Change::Create | Change::Add | Change::Replace)
    }
}

/// A merge's result: the file's new text (the old one when nothing changes), what
/// changed, and how many other servers the file holds.
#[derive(Debug)]
pub struct Merged {
    pub text: String,
    pub change: Change,
    pub other_servers: usize,
}

/// A JSON value as the CST editor inserts it.
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// Adds tsa's server (`entry`) to the file text `existing` of `client` (None: no
/// file). The file is edited in place, as a syntax tree that keeps every comment,
/// blank and key order (JSONC, as VS Code and Cursor write it, included); only
/// tsa's entry is added or replaced. Refuses, with the reason, a file that does
/// not parse, is not an object, or whose servers key is not an object.
pub fn merge(
    client: Client,
    existing: Option<&str>,
    entry: &Value,
    force: bool,
) -> Result<Merged, String> {
    let key = client.servers_key();
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        let mut servers = Map::new();
        servers.insert(SERVER.into(), entry.clone());
        let doc = json!({ key: servers });
        return Ok(Merged {
            text: serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n",
            change: if existing.is_some() {
                Change::Add
            } else {
                Change::Create
            },
            other_servers: 0,
        });
    };
    let path = client.path();
    let root = CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| format!("{path} does not parse ({e}); left as it is"))?;
    let doc = root
        .object_value()
        .ok_or_else(|| format!("{path} is not a JSON object; left as it is"))?;
    let servers = match doc.get(key) {
        Some(_) => doc
            .object_value(key)
            .ok_or_else(|| format!("'{key}' in {path} is not an object; left as it is"))?,
        None => doc.object_value_or_set(key),
    };
    let others = servers
        .properties()
        .iter()
        .filter(|p| {
            p.name()
                .and_then(|n| n.decoded_value().ok())
                .is_some_and(|n| n != SERVER)
        })
        .count();
    let change = match servers.get(SERVER) {
        Some(prop) => {
            let current = prop.value().and_then(|v| v.to_serde_value());
            if current.as_ref() == Some(entry) {
                Change::Same
            } else if force {
                prop.set_value(input(entry));
                Change::Replace
            } else {
                Change::KeptDifferent
            }
        }
        None => {
            servers.append(SERVER, input(entry));
            Change::Add
        }
    };
    Ok(Merged {
        text: if change.writes() {
            root.to_string()
        } else {
            text.to_owned()
        },
        change,
        other_servers: others,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Value {
        Client::Claude.entry("tsa")
    }

    #[test]
    fn a_missing_file_is_created_with_the_clients_key() {
        let m = merge(Client::Vscode, None, &Client::Vscode.entry("tsa"), false).unwrap();
        assert_eq!(m.change, Change::Create);
        let v: Value = serde_json::from_str(&m.text).unwrap();
        assert_eq!(v["servers"]["tsa"]["command"], "tsa");
        assert_eq!(v["servers"]["tsa"]["args"][3], "${workspaceFolder}");
        assert!(m.text.ends_with("}\n"));
    }

    #[test]
    fn other_servers_keys_comments_and_layout_are_kept() {
        let before = "{\n    // shared with the team\n    \"inputs\": [],\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    },\n    \"zzz\": 1\n}\n";
        let m = merge(Client::Claude, Some(before), &entry(), false).unwrap();
        assert_eq!(m.change, Change::Add);
        assert_eq!(m.other_servers, 1);
        // Every line of the old file is still there, in order; only tsa's entry is new.
        let mut old = before.lines().peekable();
        for line in m.text.lines() {
            if old
                .peek()
                .is_some_and(|l| l.trim_end_matches(',') == line.trim_end_matches(','))
            {
                old.next();
            }
        }
        assert!(old.next().is_none(), "{}", m.text);
        assert!(
            m.text.contains("\"other\": {\"command\": \"x\"}"),
            "{}",
            m.text
        );
        let tail = &m.text[m.text.find("\"tsa\"").unwrap()..];
        assert!(
            tail.contains("\"--watch\"") && tail.contains("\"zzz\": 1"),
            "{}",
            m.text
        );
        // Merging again changes nothing.
        let again = merge(Client::Claude, Some(&m.text), &entry(), false).unwrap();
        assert_eq!(again.change, Change::Same);
        assert_eq!(again.text, m.text);
    }

    #[test]
    fn a_different_tsa_entry_is_kept_unless_forced() {
        let before = r#"{"mcpServers": {"tsa": {"command": "/opt/tsa", "args": ["mcp"]}}}"#;
        let m = merge(Client::Cursor, Some(before), &entry(), false).unwrap();
        assert_eq!(m.change, Change::KeptDifferent);
        assert_eq!(m.text, before);
        let m = merge(Client::Cursor, Some(before), &entry(), true).unwrap();
        assert_eq!(m.change, Change::Replace);
        let v: Value = serde_json::from_str(&m.text).unwrap();
        assert_eq!(v["mcpServers"]["tsa"], entry());
    }

    #[test]
    fn a_file_without_the_servers_key_gains_it() {
        let before = "{\n  \"inputs\": []\n}\n";
        let m = merge(Client::Vscode, Some(before), &entry(), false).unwrap();
        let v: Value = serde_json::from_str(&m.text).unwrap();
        assert_eq!(v["inputs"], json!([]));
        assert_eq!(v["servers"]["tsa"], entry());
    }

    #[test]
    fn files_that_cannot_hold_servers_are_refused() {
        assert!(merge(Client::Vscode, Some("{"), &entry(), false).is_err());
        assert!(merge(Client::Vscode, Some("[1]"), &entry(), false).is_err());
        assert!(merge(Client::Vscode, Some(r#"{"servers": []}"#), &entry(), false).is_err());
        let m = merge(Client::Vscode, Some("  \n"), &entry(), false).unwrap();
        assert_eq!(m.change, Change::Add);
    }
}
