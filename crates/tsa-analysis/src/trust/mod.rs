//! How far an answer that rests on "who calls X" can be trusted: the one place that
//! decides it. For a set of target definitions [`Assessor::assess`] returns the call
//! sites bound to them, the call sites of the same name that the graph neither bound
//! nor ruled out (open sites), the completeness that follows, and whether each
//! target is public API (with the reason, see [`public_api`]).
//!
//! Completeness:
//! - `complete`: every call site of the name that code of the targets' language
//!   family makes is bound to a definition or ruled out (stdlib, builtin, external).
//! - `lower_bound`: some are open: the true caller count may be higher.
//! - `unknown`: a language that can call the targets has no call graph (symbol
//!   tier), or a file the answer rests on (the targets', their callers', the open
//!   sites') changed on disk since the index was built.
//!
//! Verdict floors ([`Trust::floor`]), in impact levels (then `Verdict::from_impact`):
//! unknown -> at least low; open sites -> at least low, medium when more than
//! [`OPEN_SITES_MEDIUM`] of them are production code or the change breaks callers;
//! public API -> at least low, medium when the change breaks callers. So nothing
//! built on an incomplete graph or on public API is ever SAFE.

pub mod public_api;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde_json::json;
use tsa_envelope::{ImpactLevel, Success};
use tsa_index::{CallRow, Index, OpenSites, SymbolRow};
use tsa_lang::{Language, Tier};

pub use public_api::{Subject, subjects_of};

use crate::ToolError;

/// More open production call sites than this raise the floor to medium.
pub const OPEN_SITES_MEDIUM: u64 = 5;

/// Public-API reasons listed per answer (the count is always exact).
const MAX_REASONS: usize = 2;

/// How complete the caller side of an answer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Completeness {
    Complete,
    LowerBound,
    Unknown,
}

impl Completeness {
    pub fn as_str(self) -> &'static str {
        match self {
            Completeness::Complete => "complete",
            Completeness::LowerBound => "lower_bound",
            Completeness::Unknown => "unknown",
        }
    }
}

/// The change a verdict is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Behaviour only (a body, a bug fix, a refactor), or no change named.
    Behaviour,
    /// What breaks callers: a removal, a rename, a signature change.
    Breaking,
}

impl Change {
    /// The change an edit type (`edit guard`'s modification_type, `edit safe`'s
    /// edit_type) makes: rename, signature_change and delete break callers.
    pub fn of_edit(kind: &str) -> Change {
        match kind {
            "rename" | "signature_change" | "delete" => Change::Breaking,
            _ => Change::Behaviour,
        }
    }
}

/// Why the callers of one definition are not settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsettled {
    /// A language that can call it has no call graph.
    NoGraph,
    /// Its file changed on disk since the index was built.
    Stale,
    /// This many call sites of its name are open.
    Unresolved(u64),
    /// It is public API, for this reason.
    PublicApi(String),
}

/// One public-API target.
#[derive(Clone, Debug)]
pub struct PublicApi {
    pub reason: String,
}

/// The trust of a caller-based answer about some targets.
#[derive(Clone, Debug)]
pub struct Trust {
    /// The names looked up, in order.
    pub names: Vec<String>,
    /// Call sites bound to the targets (every resolution class with a target).
    pub callers: Vec<CallRow>,
    /// Open call sites of the names in the languages that can call the targets.
    pub open: OpenSites,
    /// The first open sites, by file and line.
    pub open_rows: Vec<CallRow>,
    /// Languages that can call the targets but have no call graph.
    pub no_graph: Vec<&'static str>,
    /// Files the answer rests on that changed on disk since the index was built.
    pub stale: Vec<String>,
    pub public_api: Vec<PublicApi>,
    pub completeness: Completeness,
}

impl Trust {
    /// The impact level below which a verdict about `change` must not go.
    pub fn floor(&self, change: Change) -> ImpactLevel {
        let mut l = ImpactLevel::None;
        if self.completeness == Completeness::Unknown {
            l = l.max(ImpactLevel::Low);
        }
        if self.open.total > 0 {
            let production = self.open.total - self.open.in_tests;
            l = l.max(
                if change == Change::Breaking || production > OPEN_SITES_MEDIUM {
                    ImpactLevel::Medium
                } else {
                    ImpactLevel::Low
                },
            );
        }
        if !self.public_api.is_empty() {
            l = l.max(if change == Change::Breaking {
                ImpactLevel::Medium
            } else {
                ImpactLevel::Low
            });
        }
        l
    }

    /// [`Trust::floor`] for the definitions of a whole file: open sites floor at low
    /// only (many names per file make same-name collisions likely), so the file's own
    /// risk rules decide past that.
    pub fn file_floor(&self, change: Change) -> ImpactLevel {
        let mut l = ImpactLevel::None;
        if self.completeness != Completeness::Complete {
            l = l.max(ImpactLevel::Low);
        }
        if !self.public_api.is_empty() {
            l = l.max(if change == Change::Breaking {
                ImpactLevel::Medium
            } else {
                ImpactLevel::Low
            });
        }
        l
    }

    /// Whether the answer may say "none", "dead", "local" or SAFE about callers.
    pub fn settled(&self) -> bool {
        self.completeness == Completeness::Complete && self.public_api.is_empty()
    }

    fn names_label(&self) -> String {
        let mut v: Vec<String> = self
            .names
            .iter()
            .take(5)
            .map(|n| format!("'{n}'"))
            .collect();
        if self.names.len() > 5 {
            v.push(format!("and {} more name(s)", self.names.len() - 5));
        }
        v.join(", ")
    }

    /// The facts a verdict built on these callers rests on, one short line each.
    pub fn basis(&self) -> Vec<String> {
        let mut out = self.completeness_basis();
        // The first reason; the others are in `public_api_reasons`.
        if let Some(p) = self.public_api.first() {
            let more = match self.public_api.len() {
                1 => String::new(),
                n => format!(" (and {} more: public_api_reasons)", n - 1),
            };
            out.push(format!(
                "public API: {}{more}; callers outside the project cannot be counted",
                p.reason
            ));
        }
        out
    }

    /// The lines of [`Trust::basis`] on completeness only (for an answer whose
    /// verdict public API does not change: its reasons travel in
    /// `public_api_reasons`).
    pub fn completeness_basis(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.completeness {
            Completeness::Complete => out.push(format!(
                "completeness complete: every call site named {} is bound to a definition or ruled out",
                self.names_label()
            )),
            Completeness::LowerBound => {}
            Completeness::Unknown => {
                if !self.no_graph.is_empty() {
                    out.push(format!(
                        "completeness unknown: no call graph for {} (symbol tier), whose code can call it",
                        self.no_graph.join(", ")
                    ));
                }
                if !self.stale.is_empty() {
                    out.push(format!(
                        "completeness unknown: {} file(s) this answer rests on changed on disk since the index was built ({})",
                        self.stale.len(),
                        preview(&self.stale)
                    ));
                }
            }
        }
        if self.open.total > 0 {
            out.push(format!(
                "completeness lower_bound: {} call site(s) named {} are unresolved ({} in production code)",
                self.open.total,
                self.names_label(),
                self.open.total - self.open.in_tests
            ));
        }
        out
    }

    /// The trust fields every caller-based answer carries: `completeness`,
    /// `public_api` (+ `public_api_reasons`), `stale_files`, `no_call_graph_languages`,
    /// `unresolved_call_sites` (unless the answer lists them itself), with warnings
    /// for an incomplete graph.
    pub fn annotate(&self, mut s: Success) -> Success {
        s = s
            .with("completeness", self.completeness.as_str())
            .with("public_api", !self.public_api.is_empty());
        if !self.public_api.is_empty() {
            // One line per reason: the overloads of one name give the same.
            let mut seen = BTreeSet::new();
            let reasons: Vec<String> = self
                .public_api
                .iter()
                .filter(|p| seen.insert(p.reason.as_str()))
                .take(MAX_REASONS)
                .map(|p| p.reason.clone())
                .collect();
            s = s
                .with("public_api_count", self.public_api.len())
                .with("public_api_reasons", json!(reasons));
        }
        if !s.payload().contains_key("unresolved_call_sites") {
            s = s.with("unresolved_call_sites", self.open.total);
        }
        if self.open.total > 0 {
            s = s.with_warning(format!(
                "unresolved_call_sites: {} call site(s) named {} may be further callers",
                self.open.total,
                self.names_label()
            ));
        }
        if !self.no_graph.is_empty() {
            s = s
                .with("no_call_graph_languages", json!(self.no_graph))
                .with_warning(format!(
                    "no_call_graph: {} code is indexed without call sites (symbol tier); its calls are unknown",
                    self.no_graph.join(", ")
                ));
        }
        if !self.stale.is_empty() {
            s = s.with("stale_files", json!(self.stale)).with_warning(format!(
                "stale_index: {} file(s) this answer rests on changed since the index was built ({}); run index action=sync and ask again",
                self.stale.len(),
                preview(&self.stale)
            ));
        }
        s
    }
}

fn preview(files: &[String]) -> String {
    let mut s: Vec<&str> = files.iter().take(3).map(String::as_str).collect();
    if files.len() > 3 {
        s.push("...");
    }
    s.join(", ")
}

/// The languages whose code can call a definition in `lang`.
pub fn caller_languages(lang: &str) -> Vec<Language> {
    let Some(dl) = Language::from_name(lang) else {
        return Vec::new();
    };
    Language::ALL
        .iter()
        .copied()
        .filter(|l| l.can_call(dl))
        .collect()
}

/// Assesses targets against one index, caching what several assessments share.
pub struct Assessor<'a> {
    index: &'a Index,
    root: &'a Path,
    facts: public_api::Facts,
    indexed_languages: Option<HashSet<String>>,
    stale: HashMap<String, bool>,
    skip_stale: HashSet<String>,
}

impl<'a> Assessor<'a> {
    pub fn new(index: &'a Index, root: &'a Path) -> Assessor<'a> {
        Assessor {
            index,
            root,
            facts: public_api::Facts::default(),
            indexed_languages: None,
            stale: HashMap::new(),
            skip_stale: HashSet::new(),
        }
    }

    /// Files whose change on disk is the subject of the answer itself (the files of
    /// a change set): not counted as a stale index.
    pub fn expect_changed(mut self, files: impl IntoIterator<Item = String>) -> Self {
        self.skip_stale.extend(files);
        self
    }

    /// The trust of an answer about `defs` (index rows), listing at most `rows`
    /// open sites.
    pub fn assess(&mut self, defs: &[SymbolRow], rows: usize) -> Result<Trust, ToolError> {
        let subjects = subjects_of(self.index, defs)?;
        self.assess_subjects(&subjects, rows)
    }

    /// [`Assessor::assess`] for subjects, which may lack an index row (a definition
    /// a change removed, when the index already holds the new version).
    pub fn assess_subjects(
        &mut self,
        subjects: &[Subject],
        rows: usize,
    ) -> Result<Trust, ToolError> {
        let ids: Vec<i64> = subjects.iter().filter_map(|s| s.id).collect();
        let callers = self.index.callers(&ids)?;
        // Open sites per name, over the languages that can call any target of it.
        let mut by_name: Vec<(String, BTreeSet<&'static str>)> = Vec::new();
        for s in subjects {
            let langs: BTreeSet<&'static str> = caller_languages(&s.language)
                .into_iter()
                .filter(|l| l.tier() == Tier::Full)
                .map(|l| l.name())
                .collect();
            match by_name.iter_mut().find(|(n, _)| *n == s.name) {
                Some((_, set)) => set.extend(langs),
                None => by_name.push((s.name.clone(), langs)),
            }
        }
        let mut open = OpenSites::default();
        let mut open_rows = Vec::new();
        let mut files: BTreeSet<String> = subjects.iter().map(|s| s.file.clone()).collect();
        files.extend(callers.iter().map(|c| c.file.clone()));
        for (name, langs) in &by_name {
            let langs: Vec<&str> = langs.iter().copied().collect();
            let o =
                self.index
                    .open_call_sites(name, &langs, rows.saturating_sub(open_rows.len()))?;
            open.total += o.counts.total;
            open.in_tests += o.counts.in_tests;
            open_rows.extend(o.rows);
            files.extend(o.files);
        }
        let mut no_graph: BTreeSet<&'static str> = BTreeSet::new();
        for s in subjects {
            no_graph.extend(self.no_graph(&s.language)?);
        }
        let files: Vec<String> = files.into_iter().collect();
        let stale = self.stale_among(&files)?;
        let mut public_api = Vec::new();
        for s in subjects {
            if let Some(reason) = self.facts.reason(self.index, self.root, s)? {
                public_api.push(PublicApi { reason });
            }
        }
        let completeness = if !no_graph.is_empty() || !stale.is_empty() {
            Completeness::Unknown
        } else if open.total > 0 {
            Completeness::LowerBound
        } else {
            Completeness::Complete
        };
        Ok(Trust {
            names: by_name.into_iter().map(|(n, _)| n).collect(),
            callers,
            open,
            open_rows,
            no_graph: no_graph.into_iter().collect(),
            stale,
            public_api,
            completeness,
        })
    }

    /// For many subjects at once (dead-code candidates): why each one's callers are
    /// not settled, first reason found (no call graph, stale file, open same-name
    /// call sites, public API), or `None` when they are. One batched query for the
    /// open sites of every name.
    pub fn unsettled(&mut self, subjects: &[Subject]) -> Result<Vec<Option<Unsettled>>, ToolError> {
        let mut names: Vec<&str> = subjects.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let open = self.index.open_call_site_counts(&names)?;
        let files: Vec<String> = subjects
            .iter()
            .map(|s| s.file.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let stale: HashSet<String> = self.stale_among(&files)?.into_iter().collect();
        let mut out = Vec::with_capacity(subjects.len());
        for s in subjects {
            if !self.no_graph(&s.language)?.is_empty() {
                out.push(Some(Unsettled::NoGraph));
                continue;
            }
            if stale.contains(&s.file) {
                out.push(Some(Unsettled::Stale));
                continue;
            }
            let sites: u64 = caller_languages(&s.language)
                .into_iter()
                .filter(|l| l.tier() == Tier::Full)
                .map(|l| l.name())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .filter_map(|l| open.get(&(s.name.clone(), l.to_owned())))
                .map(|o| o.total)
                .sum();
            if sites > 0 {
                out.push(Some(Unsettled::Unresolved(sites)));
                continue;
            }
            out.push(self.public_api(s)?.map(Unsettled::PublicApi));
        }
        Ok(out)
    }

    /// The public-API reason of one subject.
    pub fn public_api(&mut self, s: &Subject) -> Result<Option<String>, ToolError> {
        self.facts.reason(self.index, self.root, s)
    }

    /// Languages that can call definitions in `lang` but have no call graph: `lang`
    /// itself when it is not full tier, and others of its family the index holds.
    pub fn no_graph(&mut self, lang: &str) -> Result<Vec<&'static str>, ToolError> {
        if self.indexed_languages.is_none() {
            self.indexed_languages = Some(self.index.indexed_languages()?.into_iter().collect());
        }
        let present = self.indexed_languages.as_ref();
        let own = Language::from_name(lang);
        Ok(caller_languages(lang)
            .into_iter()
            .filter(|l| l.tier() != Tier::Full)
            .filter(|l| Some(*l) == own || present.is_some_and(|p| p.contains(l.name())))
            .map(|l| l.name())
            .collect())
    }

    /// The files among `files` that changed on disk since the index was built
    /// (files of the change set under review excepted).
    pub fn stale_among(&mut self, files: &[String]) -> Result<Vec<String>, ToolError> {
        let ask: Vec<&str> = files
            .iter()
            .map(String::as_str)
            .filter(|f| !self.stale.contains_key(*f) && !self.skip_stale.contains(*f))
            .collect();
        let changed: HashSet<String> = self.index.changed_on_disk(&ask)?.into_iter().collect();
        for f in ask {
            self.stale.insert(f.to_owned(), changed.contains(f));
        }
        Ok(files
            .iter()
            .filter(|f| self.stale.get(*f).copied().unwrap_or(false))
            .cloned()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust(open: u64, in_tests: u64, api: bool, c: Completeness) -> Trust {
        Trust {
            names: vec!["f".into()],
            callers: Vec::new(),
            open: OpenSites {
                total: open,
                in_tests,
            },
            open_rows: Vec::new(),
            no_graph: Vec::new(),
            stale: Vec::new(),
            public_api: if api {
                vec![PublicApi {
                    reason: "'f' is re-exported by pkg/__init__.py".into(),
                }]
            } else {
                Vec::new()
            },
            completeness: c,
        }
    }

    #[test]
    fn floors_follow_completeness_public_api_and_the_change() {
        use Change::*;
        use Completeness::*;
        let t = trust(0, 0, false, Complete);
        assert_eq!(t.floor(Behaviour), ImpactLevel::None);
        assert!(t.settled());
        let t = trust(3, 1, false, LowerBound);
        assert_eq!(t.floor(Behaviour), ImpactLevel::Low);
        assert_eq!(t.floor(Breaking), ImpactLevel::Medium);
        assert!(!t.settled());
        let t = trust(9, 1, false, LowerBound);
        assert_eq!(t.floor(Behaviour), ImpactLevel::Medium, "8 in production");
        let t = trust(9, 9, false, LowerBound);
        assert_eq!(t.floor(Behaviour), ImpactLevel::Low, "all in tests");
        let t = trust(0, 0, true, Complete);
        assert_eq!(t.floor(Behaviour), ImpactLevel::Low);
        assert_eq!(t.floor(Breaking), ImpactLevel::Medium);
        assert!(!t.settled());
        assert!(t.basis().iter().any(|b| b.starts_with("public API: ")));
        let t = trust(0, 0, false, Unknown);
        assert_eq!(t.floor(Behaviour), ImpactLevel::Low);
        assert!(!t.settled());
    }
}
