//! The 8 facades, every action name of the reference surface, and which of them
//! this build implements (the action registry in `actions/mod.rs`).

/// A facade tool and every action name it answers to.
pub struct Facade {
    pub name: &'static str,
    pub title: &'static str,
    pub read_only: bool,
    /// Some action writes project source files.
    pub destructive: bool,
    /// Every action of the reference surface, sorted.
    pub actions: &'static [&'static str],
}

/// Accepted alternative action names: (facade, alias, canonical action). Aliases
/// are not listed in the facade's action enum.
pub const ACTION_ALIASES: &[(&str, &str, &str)] = &[];

/// The actions the reference's 3.0 line added (each in the catalogue once it does
/// its work): their failures always carry an `error_code`.
pub const ADDED_IN_3: &[(&str, &str)] = &[
    ("edit", "mutation_probe"),
    ("edit", "plan_rename"),
    ("edit", "release_snapshot"),
    ("edit", "rename"),
    ("edit", "verify"),
    ("health", "middleware"),
    ("health", "refactor_queue"),
    ("health", "self"),
    ("health", "unreachable"),
    ("index", "schema"),
    ("nav", "pulse"),
    ("project", "card"),
    ("nav", "pulse_batch"),
    ("search", "semantic"),
    ("search", "text"),
    ("search", "tql_execute"),
    ("search", "tql_schema"),
];

/// Whether `tool`/`action` is one of [`ADDED_IN_3`].
pub fn added_in_3(tool: &str, action: &str) -> bool {
    ADDED_IN_3.iter().any(|(t, a)| *t == tool && *a == action)
}

/// The canonical name of `action` on `facade` (an alias resolved, else unchanged).
pub fn canonical_action(facade: &str, action: String) -> String {
    ACTION_ALIASES
        .iter()
        .find(|(f, a, _)| *f == facade && *a == action)
        .map(|(_, _, c)| (*c).to_owned())
        .unwrap_or(action)
}

/// The 8 facades in `tools/list` order (`set_project_path` follows them).
pub const FACADES: [Facade; 8] = [
    Facade {
        name: "search",
        title: "Find symbols and text",
        read_only: true,
        destructive: false,
        actions: &[
            "batch",
            "chain",
            "content",
            "grep",
            "query",
            "select",
            "semantic",
            "subscribe",
            "symbol",
            "text",
            "tql_execute",
            "tql_schema",
            "unsubscribe",
        ],
    },
    Facade {
        name: "nav",
        title: "Navigate the call graph",
        read_only: true,
        destructive: false,
        actions: &[
            "call_path",
            "callee_tree",
            "callees",
            "caller_tree",
            "callers",
            "co_change",
            "context",
            "impact",
            "lineage",
            "navigate",
            "pulse",
            "pulse_batch",
            "resolve",
            "test_map",
            "trace",
            "xref",
        ],
    },
    Facade {
        name: "structure",
        title: "Outline and read files",
        read_only: true,
        destructive: false,
        actions: &[
            "analyze",
            "ast_path",
            "class_detail",
            "class_tree",
            "explore",
            "outline",
            "read",
            "signatures",
            "sitemap",
        ],
    },
    Facade {
        name: "health",
        title: "Code health and dead code",
        read_only: true,
        destructive: false,
        actions: &[
            "dead",
            "deps",
            "file",
            "heatmap",
            "imports",
            "matrix",
            "middleware",
            "overview",
            "patterns",
            "project",
            "refactor_queue",
            "routes",
            "scale",
            "self",
            "test_gap",
            "unreachable",
        ],
    },
    Facade {
        name: "edit",
        title: "Edit safety and change impact",
        read_only: false,
        destructive: true,
        actions: &[
            "ast_diff",
            "classify",
            "constraints",
            "guard",
            "impact",
            "mutation_probe",
            "plan_rename",
            "pr",
            "refactor",
            "release_snapshot",
            "rename",
            "safe",
            "verify",
        ],
    },
    Facade {
        name: "project",
        title: "Project hub",
        read_only: false,
        destructive: false,
        actions: &[
            "card", "doc_sync", "files", "journal", "metrics", "overview", "parser", "skills",
            "smart", "tools", "workflow",
        ],
    },
    Facade {
        name: "index",
        title: "Build and inspect the index",
        read_only: false,
        destructive: false,
        actions: &[
            "auto",
            "build",
            "cache",
            "full",
            "knowledge",
            "schema",
            "scip",
            "status",
            "sync",
        ],
    },
    Facade {
        name: "viz",
        title: "Diagrams and clone groups",
        read_only: false,
        destructive: false,
        actions: &["graph", "knowledge", "similarity", "uml"],
    },
];

pub fn facade(name: &str) -> Option<&'static Facade> {
    FACADES.iter().find(|f| f.name == name)
}

/// Actions of `facade` that this build implements, sorted.
pub fn available_actions(facade: &str) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = crate::actions::REGISTRY
        .iter()
        .filter(|a| a.facade() == facade)
        .map(|a| a.name())
        .collect();
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_is_the_1_28_surface_and_the_3_0_additions_sorted() {
        let total: usize = FACADES.iter().map(|f| f.actions.len()).sum();
        assert_eq!(total, 74 + ADDED_IN_3.len());
        for (f, a) in ADDED_IN_3 {
            assert!(facade(f).is_some_and(|f| f.actions.contains(a)), "{f} {a}");
        }
        for f in &FACADES {
            let mut sorted = f.actions.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, f.actions, "{}", f.name);
        }
    }

    #[test]
    fn every_registered_action_is_in_the_catalog() {
        for a in crate::actions::REGISTRY {
            let f = facade(a.facade()).expect("facade");
            assert!(f.actions.contains(&a.name()), "{} {}", a.facade(), a.name());
        }
    }
}
