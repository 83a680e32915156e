//! `search select`: the Hyphae selector DSL evaluated over the index.

use schemars::JsonSchema;
use serde::Deserialize;
use tsa_analysis::hyphae;
use tsa_envelope::{Capped, ListSpelling, Success, Verdict};

use crate::action::Action;
use crate::actions::common::{fixed_cap, open_index};
use crate::{Context, ToolError};

/// Arguments of `search select`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Hyphae selector (CSS-like), e.g. `.function:calls(#IndexShard):in(server/)`,
    /// `#Foo > .method`, `.method:not(:calls(#log))`, `.class:extends(#Base)`.
    /// Bases: `#name`, `.function|.method|.class|.struct|.interface|.trait|.enum|.<kind>`, `*`.
    /// Attributes: `[file=substr]`, `[language=l]`, `[class=Owner]`, `[kind=k]`, `[name=n]`.
    /// Pseudo-classes: `:calls(S)`, `:callees(S)`/`:called-by(S)`, `:extends(S)`,
    /// `:implements(S)`, `:subclasses(S)` (transitive), `:imports(module)`, `:has(S)`
    /// (containers with a member matching S), `:not(S)`, `:in(path/)` (path prefix),
    /// `:first-child`, `:last-child`, `:only-child`, `:nth-child(n)` (among members, by line).
    /// Edges are the index's resolved calls and bases; unresolved sites count by name
    /// only, and the answer says how many rows rest on that (name_fallback_matches).
    /// Combinators: `A B` (B inside A), `A > B` (directly inside), `A ~ B` (same
    /// container); `,` for a union.
    #[schemars(length(max = tsa_analysis::hyphae::parse::MAX_SELECTOR_CHARS))]
    pub selector: String,
    /// Most symbols to list (clamped to 1..1000, default 100). The exact total is always reported.
    #[serde(default)]
    pub max_results: Option<i64>,
}

pub struct Select;

/// Longest selector echo in the answer.
const ECHO_CHARS: usize = 200;

pub(crate) fn echo(selector: &str) -> String {
    let s = selector.trim();
    if s.chars().count() <= ECHO_CHARS {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(ECHO_CHARS).collect();
        format!("{cut}…")
    }
}

impl Action for Select {
    type Args = Args;
    const FACADE: &'static str = "search";
    const NAME: &'static str = "select";
    const SUMMARY: &'static str = "Hyphae selector query over the index (CSS-like: #name, .kind, [attr=v], :calls(), :extends(), :has(), :not(), :in(), combinators), resolved call edges";
    const BRIEF: &'static str = "Hyphae selector over the index";

    fn run(&self, ctx: &Context, args: Args) -> Result<Success, ToolError> {
        if args.selector.trim().is_empty() {
            return Err(ToolError::Validation(
                "parameter 'selector' must be a non-empty string".into(),
            ));
        }
        // Syntax first: a bad selector never builds an index.
        hyphae::validate(&args.selector)?;
        let max = args.max_results.unwrap_or(100).clamp(1, 1000) as usize;
        let opened = open_index(ctx)?;
        let indexed_files = opened.index.files()?.len();
        let outcome = hyphae::select(&opened.index, &args.selector)?;
        let total = outcome.total();
        let first: Vec<_> = outcome.rows().take(max).map(|m| m.to_json()).collect();
        let capped = Capped::counted(first, total, fixed_cap(max));
        let echo = echo(&args.selector);
        let (verdict, follow_up) = if total == 0 {
            (
                // Unresolved call sites may have matched, or a pseudo-class could
                // not judge some of its data: not a confident NOT_FOUND.
                if outcome.unresolved > 0 || !outcome.warnings.is_empty() {
                    Verdict::Warn
                } else {
                    Verdict::NotFound
                },
                format!(
                    "No symbol matches '{echo}' in the {indexed_files} indexed files. Loosen the selector (drop a pseudo-class or attribute), check names with search action=symbol, or list kinds: {}.",
                    outcome.known_kinds.join(", ")
                ),
            )
        } else {
            (
                Verdict::Info,
                "Take a symbol to nav action=callers / nav action=callees, or refine the selector with :not(), :in() or [file=].".to_owned(),
            )
        };
        let mut s = Success::new(
            verdict,
            format!("select '{echo}': {total} symbol(s) in {indexed_files} indexed files"),
        )
        .with("selector", echo.as_str())
        .with("index_state", "ready")
        .with("indexed_files", indexed_files)
        .with("data_source", "sql")
        .with_list(
            ListSpelling {
                list_key: "symbols",
                total_key: "total_matches",
                listed_key: "count",
                cap_key: "listed_cap",
                noun: "symbols",
                remedy: "raise max_results (up to 1000), or narrow with [file=], :in() or :not()"
                    .into(),
            },
            capped,
        )
        .with_next_step(follow_up);
        if outcome.name_fallback > 0 {
            s = s
                .with("name_fallback_matches", outcome.name_fallback)
                .with_warning(format!(
                    "name_fallback: {} symbol(s) matched an edge pseudo-class only through unresolved call sites or bases with the same name (no resolved edge); they may be false positives",
                    outcome.name_fallback
                ));
        }
        if outcome.unresolved > 0 {
            s = s
                .with("unresolved_candidates", outcome.unresolved)
                .with_warning(format!(
                    "{} symbol(s) were left out but unresolved call sites may reach them (same name): they may belong (nav action=callers lists those sites)",
                    outcome.unresolved
                ));
        }
        for w in &outcome.warnings {
            s = s.with_warning(w.clone());
        }
        for k in &outcome.unknown_kinds {
            s = s.with_warning(format!(
                "unknown_kind: no symbol of kind '{k}' in the index; indexed kinds: {}",
                outcome.known_kinds.join(", ")
            ));
        }
        if let Some(w) = opened.built_now {
            s = s.with_warning(w);
        }
        Ok(s)
    }
}
