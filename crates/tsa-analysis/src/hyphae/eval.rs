//! Evaluates a parsed selector over the index: the symbol table is held in memory
//! once per call, every edge pseudo-class is one set-at-a-time SQL query.

use rustc_hash::{FxHashMap, FxHashSet};
use tsa_index::{DslFile, DslSymbol, Index};
use tsa_lang::Language;

use super::parse::{Attr, AttrKey, Base, Combinator, Compound, Pseudo, Selector, SelectorList};
use crate::ToolError;

/// The kinds `.class` (and `*`) treat as types.
pub const CLASS_LIKE: &[&str] = &["class", "struct", "interface", "trait", "enum"];

/// Symbols and files of one index, with the lookups the evaluator needs.
pub struct Universe {
    pub syms: Vec<DslSymbol>,
    pub files: FxHashMap<i64, DslFile>,
    by_id: FxHashMap<i64, usize>,
    /// Container id -> member ids in line order.
    children: FxHashMap<i64, Vec<i64>>,
    kinds: FxHashSet<String>,
}

impl Universe {
    pub fn load(index: &Index) -> Result<Universe, ToolError> {
        let mut syms = index.dsl_symbols()?;
        let files: FxHashMap<i64, DslFile> =
            index.dsl_files()?.into_iter().map(|f| (f.id, f)).collect();
        // One `module` pseudo-symbol per indexed file (id = -file id, line 1),
        // named by the file's stem (a package's `__init__`/`index`/`mod` file by
        // its folder).
        let mut file_ids: Vec<i64> = files.keys().copied().collect();
        file_ids.sort_unstable();
        for id in file_ids {
            let f = &files[&id];
            syms.push(DslSymbol {
                id: -id,
                name: module_name(&f.path),
                kind: "module".into(),
                qualname: f.path.clone(),
                owner: None,
                parent: None,
                file_id: id,
                line: 1,
                end_line: 1,
                is_test: f.is_test,
            });
        }
        let mut by_id = FxHashMap::default();
        let mut children: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        let mut kinds = FxHashSet::default();
        for (i, s) in syms.iter().enumerate() {
            by_id.insert(s.id, i);
            if let Some(p) = container(s) {
                children.entry(p).or_default().push(s.id);
            }
            if !kinds.contains(&s.kind) {
                kinds.insert(s.kind.clone());
            }
        }
        // Symbols are loaded in (file, line, id) order, so member lists already are.
        Ok(Universe {
            syms,
            files,
            by_id,
            children,
            kinds,
        })
    }

    pub fn get(&self, id: i64) -> Option<&DslSymbol> {
        self.by_id.get(&id).map(|&i| &self.syms[i])
    }

    pub fn index_of(&self, id: i64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    pub fn file_of(&self, s: &DslSymbol) -> Option<&DslFile> {
        self.files.get(&s.file_id)
    }

    pub fn has_kind(&self, kind: &str) -> bool {
        self.kinds.contains(kind)
    }

    pub fn known_kinds(&self) -> Vec<String> {
        let mut k: Vec<String> = self.kinds.iter().cloned().collect();
        k.sort();
        k
    }
}

pub type IdSet = FxHashSet<i64>;

/// Whether `id` is a file's `module` pseudo-symbol.
pub fn is_module_id(id: i64) -> bool {
    id < 0
}

/// What contains `s`: its enclosing definition, else (a top-level definition)
/// its file's `module` pseudo-symbol; a module is contained by nothing.
fn container(s: &DslSymbol) -> Option<i64> {
    s.parent
        .or_else(|| (!is_module_id(s.id)).then_some(-s.file_id))
}

/// The name of a file's `module` pseudo-symbol.
fn module_name(path: &str) -> String {
    let p = std::path::Path::new(path);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or(path);
    if matches!(stem, "__init__" | "index" | "mod" | "lib" | "main")
        && let Some(dir) = p
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
    {
        return dir.to_owned();
    }
    stem.to_owned()
}

/// A name-edge query: (names, `unknown` filter) -> symbol ids.
type NameQuery<'q> = &'q dyn Fn(&[String], Option<bool>) -> Result<Vec<i64>, ToolError>;

/// Notes gathered while evaluating (they become warnings).
#[derive(Default, Debug)]
pub struct Notes {
    /// Candidates matched only through unresolved call/base names.
    pub name_fallback: IdSet,
    pub unknown_kinds: Vec<String>,
    /// TQL: candidates left out of a call walk that have unresolved call sites
    /// naming what it started from (they may call it); `:branch`: candidates left
    /// out that unresolved call sites in that branch name.
    pub unresolved: IdSet,
    /// What else the answer must say (data a pseudo-class could not see).
    pub warnings: Vec<String>,
}

pub struct Evaluator<'a> {
    pub index: &'a Index,
    pub universe: &'a Universe,
    pub notes: Notes,
    /// TQL: every call pseudo-class walks resolved edges only (no name fallback).
    pub tql: bool,
    /// Per-symbol git activation, loaded by the first temporal pseudo-class.
    activation: Option<crate::activation::Store>,
}

/// Most seeds, visited symbols and time of one call-graph walk.
const BFS_SEEDS: usize = 512;
const BFS_VISITED: usize = 10_000;
const BFS_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// Most stale files a temporal pseudo-class computes activation for again, and
/// the time it may take; past either it refuses.
const REFRESH_FILES: usize = 64;
const REFRESH_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// An evaluation failure with its stable code (`TQL evaluation failed: <CODE>`).
pub fn eval_error(code: &str, detail: &str) -> ToolError {
    coded_error(
        code,
        detail,
        "Drop or narrow that pseudo-class; search action=tql_schema lists what each needs.",
    )
}

/// [`eval_error`] with its own hint (the envelope's next step).
fn coded_error(code: &str, detail: &str, hint: &str) -> ToolError {
    ToolError::Coded(Box::new(
        tsa_envelope::Failure::new(
            tsa_envelope::ErrorType::Validation,
            format!("TQL evaluation failed: {code}: {detail}"),
        )
        .with_hint(hint)
        .with("error_code", code),
    ))
}

fn sorted(set: &IdSet) -> Vec<i64> {
    let mut v: Vec<i64> = set.iter().copied().collect();
    v.sort_unstable();
    v
}

fn language_matches(file_lang: &str, wanted: &str) -> bool {
    // A language name, or a file extension standing for one (`ts`, `py`).
    let wanted = Language::from_name(wanted)
        .or_else(|| Language::from_path(&format!("x.{}", wanted.to_lowercase())))
        .map(|l| l.name().to_owned())
        .unwrap_or_else(|| wanted.to_lowercase());
    file_lang.eq_ignore_ascii_case(&wanted)
}

/// `:in(path)`: the file is `path` or under it, on whole path segments (`src`
/// holds `src/x` but not `src2/x`); tolerant of `./` and a trailing `/`.
fn in_path(file: &str, prefix: &str) -> bool {
    let p = prefix.trim().trim_start_matches("./").replace('\\', "/");
    let p = p.trim_end_matches('/');
    if p.is_empty() || p == "." {
        return true;
    }
    file == p
        || file
            .strip_prefix(p)
            .is_some_and(|rest| rest.starts_with('/'))
}

impl<'a> Evaluator<'a> {
    pub fn new(index: &'a Index, universe: &'a Universe) -> Self {
        Evaluator {
            index,
            universe,
            notes: Notes::default(),
            tql: false,
            activation: None,
        }
    }

    pub fn list(&mut self, list: &SelectorList) -> Result<IdSet, ToolError> {
        let mut out = IdSet::default();
        for s in &list.selectors {
            out.extend(self.selector(s)?);
        }
        Ok(out)
    }

    fn selector(&mut self, sel: &Selector) -> Result<IdSet, ToolError> {
        let mut left = self.compound(&sel.first)?;
        for (comb, part) in &sel.rest {
            let right = self.compound(part)?;
            left = self.combine(&left, *comb, right);
        }
        Ok(left)
    }

    fn combine(&self, left: &IdSet, comb: Combinator, right: IdSet) -> IdSet {
        let u = self.universe;
        match comb {
            Combinator::Child => right
                .into_iter()
                .filter(|id| {
                    u.get(*id)
                        .and_then(container)
                        .is_some_and(|p| left.contains(&p))
                })
                .collect(),
            Combinator::Descendant => right
                .into_iter()
                .filter(|id| {
                    let mut cur = u.get(*id).and_then(container);
                    let mut guard = 0;
                    while let Some(p) = cur {
                        if left.contains(&p) {
                            return true;
                        }
                        guard += 1;
                        if guard > 64 {
                            break;
                        }
                        cur = u.get(p).and_then(container);
                    }
                    false
                })
                .collect(),
            Combinator::Sibling => {
                let mut per_parent: FxHashMap<i64, usize> = FxHashMap::default();
                for id in left {
                    if let Some(p) = u.get(*id).and_then(|s| s.parent) {
                        *per_parent.entry(p).or_default() += 1;
                    }
                }
                right
                    .into_iter()
                    .filter(|id| {
                        let Some(p) = u.get(*id).and_then(|s| s.parent) else {
                            return false;
                        };
                        let n = per_parent.get(&p).copied().unwrap_or(0);
                        n > usize::from(left.contains(id))
                    })
                    .collect()
            }
        }
    }

    fn base(&mut self, base: &Base) -> IdSet {
        let u = self.universe;
        let pick = |f: &dyn Fn(&DslSymbol) -> bool| -> IdSet {
            u.syms.iter().filter(|s| f(s)).map(|s| s.id).collect()
        };
        match base {
            Base::Name(n) => pick(&|s| s.name == *n && !is_module_id(s.id)),
            Base::Any => u
                .syms
                .iter()
                .filter(|s| !is_module_id(s.id))
                .map(|s| s.id)
                .collect(),
            Base::Star => pick(&|s| {
                matches!(s.kind.as_str(), "function" | "method" | "type")
                    || CLASS_LIKE.contains(&s.kind.as_str())
            }),
            Base::Kind(k) => match k.as_str() {
                "function" | "func" | "fn" | "functions" => {
                    pick(&|s| matches!(s.kind.as_str(), "function" | "method"))
                }
                "method" | "methods" => {
                    pick(&|s| s.kind == "method" || (s.kind == "function" && s.owner.is_some()))
                }
                "class" | "classes" | "type-like" => {
                    pick(&|s| CLASS_LIKE.contains(&s.kind.as_str()))
                }
                other => {
                    if !u.has_kind(other) && !self.notes.unknown_kinds.iter().any(|x| x == other) {
                        self.notes.unknown_kinds.push(other.to_owned());
                    }
                    pick(&|s| s.kind == other)
                }
            },
        }
    }

    fn attr_ok(&self, s: &DslSymbol, a: &Attr) -> bool {
        match a.key {
            AttrKey::File => self
                .universe
                .file_of(s)
                .is_some_and(|f| f.path.contains(a.value.as_str())),
            AttrKey::Language => self
                .universe
                .file_of(s)
                .is_some_and(|f| language_matches(&f.language, &a.value)),
            AttrKey::Class => s.owner.as_deref() == Some(a.value.as_str()),
            AttrKey::Kind => s.kind.eq_ignore_ascii_case(&a.value),
            AttrKey::Name => s.name == a.value,
        }
    }

    fn compound(&mut self, c: &Compound) -> Result<IdSet, ToolError> {
        let mut set = self.base(&c.base);
        if !c.attrs.is_empty() {
            let u = self.universe;
            set.retain(|id| {
                u.get(*id)
                    .is_some_and(|s| c.attrs.iter().all(|a| self.attr_ok(s, a)))
            });
        }
        for p in &c.pseudos {
            if set.is_empty() {
                break;
            }
            set = self.pseudo(set, p)?;
        }
        Ok(set)
    }

    /// Name-level evidence for an edge pseudo-class whose argument matched
    /// `targets`. Returns (exact, guesses):
    /// - exact: edges bound to no project definition (builtin, stdlib, external)
    ///   naming a bare `#name` literal of the argument (`:calls(#print)`,
    ///   `:extends(#Exception)`), plus unclassified edges naming a literal that no
    ///   project symbol defines;
    /// - guesses: unclassified (`unknown`) edges naming a matched project definition.
    fn name_edges(
        &self,
        list: &SelectorList,
        targets: &IdSet,
        query: NameQuery<'_>,
    ) -> Result<(Vec<i64>, Vec<i64>), ToolError> {
        let mut defined: FxHashSet<String> = targets
            .iter()
            .filter(|id| !is_module_id(**id))
            .filter_map(|id| self.universe.get(*id).map(|s| s.name.clone()))
            .collect();
        let mut literals: Vec<String> = Vec::new();
        let mut undefined: Vec<String> = Vec::new();
        for s in &list.selectors {
            if s.rest.is_empty()
                && s.first.attrs.is_empty()
                && s.first.pseudos.is_empty()
                && let Base::Name(n) = &s.first.base
            {
                literals.push(n.clone());
                if self
                    .universe
                    .syms
                    .iter()
                    .any(|x| x.name == *n && !is_module_id(x.id))
                {
                    defined.insert(n.clone());
                } else {
                    undefined.push(n.clone());
                }
            }
        }
        let mut defined: Vec<String> = defined.into_iter().collect();
        defined.sort();
        let mut exact = query(&literals, Some(false))?;
        exact.extend(query(&undefined, Some(true))?);
        let guesses = query(&defined, Some(true))?;
        Ok((exact, guesses))
    }

    fn with_fallback(&mut self, set: IdSet, resolved: Vec<i64>, by_name: Vec<i64>) -> IdSet {
        let resolved: IdSet = resolved.into_iter().collect();
        let by_name: IdSet = by_name.into_iter().collect();
        let mut out = IdSet::default();
        for id in set {
            if resolved.contains(&id) {
                out.insert(id);
            } else if by_name.contains(&id) {
                self.notes.name_fallback.insert(id);
                out.insert(id);
            }
        }
        out
    }

    /// Symbols of `set` at `min..=max` resolved call hops from the symbols `inner`
    /// matches (towards them when `forward` is false), shortest distance.
    fn reach(
        &mut self,
        set: IdSet,
        forward: bool,
        inner: &SelectorList,
        (min, max): (u32, u32),
    ) -> Result<IdSet, ToolError> {
        let seeds = self.list(inner)?;
        if seeds.len() > BFS_SEEDS {
            return Err(eval_error(
                "BFS_RESOURCE_LIMIT",
                &format!(
                    "{} seed symbols (at most {BFS_SEEDS}); narrow the inner selector",
                    seeds.len()
                ),
            ));
        }
        let started = std::time::Instant::now();
        // First distance >= 1 of each symbol reached (a seed too, when a walk
        // comes back to it: recursion, seeds calling each other).
        let mut dist: FxHashMap<i64, u32> = FxHashMap::default();
        let mut expanded: IdSet = seeds.clone();
        let mut frontier = sorted(&seeds);
        for d in 1..=max {
            if frontier.is_empty() {
                break;
            }
            let next = if forward {
                self.index.dsl_callees_of(&frontier)?
            } else {
                self.index.dsl_callers_of(&frontier)?
            };
            let mut fresh: Vec<i64> = Vec::new();
            for id in next {
                dist.entry(id).or_insert(d);
                if expanded.insert(id) {
                    fresh.push(id);
                }
            }
            if expanded.len() > BFS_VISITED || started.elapsed() > BFS_TIME {
                return Err(eval_error(
                    "BFS_RESOURCE_LIMIT",
                    &format!("the walk passed {BFS_VISITED} symbols or 1 s; lower the hop count"),
                ));
            }
            fresh.sort_unstable();
            frontier = fresh;
        }
        if !forward {
            // Unresolved call sites naming a seed: their callers may call it.
            let mut names: Vec<String> = seeds
                .iter()
                .filter(|id| !is_module_id(**id))
                .filter_map(|id| self.universe.get(*id).map(|s| s.name.clone()))
                .collect();
            names.sort();
            names.dedup();
            for id in self
                .index
                .dsl_unresolved_callers_of_names(&names, Some(true))?
            {
                if set.contains(&id) && !dist.contains_key(&id) {
                    self.notes.unresolved.insert(id);
                }
            }
        }
        Ok(set
            .into_iter()
            .filter(|id| dist.get(id).is_some_and(|d| (min..=max).contains(d)))
            .collect())
    }

    /// `:subclasses(S)`: every descendant type of what S matches (transitively),
    /// through either base edge kind.
    fn subclasses(&mut self, set: IdSet, list: &SelectorList) -> Result<IdSet, ToolError> {
        // Every descendant type (transitively), through either edge kind.
        let targets = self.list(list)?;
        let index = self.index;
        let (exact, mut by_name) = self.name_edges(list, &targets, &|n, u| {
            Ok(index.dsl_unresolved_subtypes_of_names(n, None, u)?)
        })?;
        let mut seen: IdSet = IdSet::default();
        let mut frontier = sorted(&targets);
        frontier.extend(exact);
        frontier.sort_unstable();
        frontier.dedup();
        let mut resolved: Vec<i64> = frontier
            .iter()
            .filter(|id| !targets.contains(id))
            .copied()
            .collect();
        seen.extend(resolved.iter().copied());
        let walked = self.subtypes_below(frontier, &mut seen)?;
        resolved.extend(walked);
        // Subtypes of name-matched subtypes are found through resolved edges.
        let below_named = self.subtypes_below(by_name.clone(), &mut seen)?;
        by_name.extend(below_named);
        Ok(self.with_fallback(set, resolved, by_name))
    }

    /// The types below `frontier` through resolved base edges (at most 32 levels),
    /// each not yet in `seen` (which takes them).
    fn subtypes_below(
        &self,
        mut frontier: Vec<i64>,
        seen: &mut IdSet,
    ) -> Result<Vec<i64>, ToolError> {
        let mut out = Vec::new();
        let mut level = 0;
        while !frontier.is_empty() && level < 32 {
            let next: Vec<i64> = self
                .index
                .dsl_subtypes_of(&frontier, None)?
                .into_iter()
                .filter(|id| seen.insert(*id))
                .collect();
            out.extend(&next);
            frontier = next;
            level += 1;
        }
        Ok(out)
    }

    /// `:branch(kind)`: the symbols of `set` that a resolved call site inside a
    /// branch of `kind` is bound to. Unresolved sites in that branch naming a
    /// candidate left out are noted; so are calls without branch data.
    fn in_branch(&mut self, set: IdSet, kind: tsa_lang::BranchKind) -> Result<IdSet, ToolError> {
        let ids = sorted(&set);
        let hit: IdSet = self
            .index
            .dsl_called_in_branch(&ids, kind.code())?
            .into_iter()
            .collect();
        let names: FxHashSet<String> = self
            .index
            .dsl_unresolved_names_in_branch(kind.code())?
            .into_iter()
            .collect();
        for id in &set {
            if !hit.contains(id)
                && !is_module_id(*id)
                && self
                    .universe
                    .get(*id)
                    .is_some_and(|s| names.contains(&s.name))
            {
                self.notes.unresolved.insert(*id);
            }
        }
        let unbranched = self.index.dsl_unbranched_calls_to(&ids)?;
        if unbranched > 0 {
            self.notes.warnings.push(format!(
                ":branch({}): {unbranched} call site(s) to the candidates carry no branch (calls a macro wraps); they were not judged",
                kind.name()
            ));
        }
        Ok(set.into_iter().filter(|id| hit.contains(id)).collect())
    }

    /// The stored activation, its files fresh for `files` (stale ones computed
    /// again when few, else refused).
    fn activation_for(&mut self, files: &FxHashSet<&str>) -> Result<(), ToolError> {
        use crate::activation;
        const COMPUTE: &str = "Run index action=full include_activation=true (it blames the last 365 days of git history).";
        let root = self.index.root();
        let load = || {
            activation::load(root).ok_or_else(|| {
                coded_error(
                    "TEMPORAL_INDEX_UNAVAILABLE",
                    "no per-symbol git activation is stored",
                    COMPUTE,
                )
            })
        };
        let mut store = match self.activation.take() {
            Some(s) => s,
            None => load()?,
        };
        // Symbol lines come from the index: a file edited since it was indexed
        // would pair old lines with new blame.
        let mut asked: Vec<&str> = files.iter().copied().collect();
        asked.sort_unstable();
        let edited = self.index.changed_on_disk(&asked)?;
        if let Some(first) = edited.first() {
            return Err(coded_error(
                "TEMPORAL_ACTIVATION_UNAVAILABLE",
                &format!(
                    "{} file(s) changed on disk since they were indexed (first: {first})",
                    edited.len()
                ),
                "Run index action=full to sync them, then ask again.",
            ));
        }
        let hashes: FxHashMap<String, String> = self.index.file_hashes()?.into_iter().collect();
        let stale = |store: &activation::Store| -> Vec<String> {
            let mut v: Vec<String> = files
                .iter()
                .filter(|p| {
                    hashes
                        .get(**p)
                        .is_some_and(|h| store.files.get(**p).is_none_or(|a| a.hash != *h))
                })
                .map(|p| (*p).to_owned())
                .collect();
            v.sort();
            v
        };
        let mut pending = stale(&store);
        if !pending.is_empty() && pending.len() <= REFRESH_FILES {
            activation::compute(root, self.index, Some(&pending), REFRESH_TIME)?;
            store = load()?;
            pending = stale(&store);
        }
        if let Some(first) = pending.first() {
            return Err(coded_error(
                "TEMPORAL_ACTIVATION_UNAVAILABLE",
                &format!(
                    "{} file(s) changed since activation was computed (first: {first})",
                    pending.len()
                ),
                COMPUTE,
            ));
        }
        self.activation = Some(store);
        Ok(())
    }

    /// `:hot`, `:hot(N)`, `:recently_modified`, `:stale`, `:hotspot` over the stored
    /// per-symbol git activation.
    fn temporal(&mut self, set: IdSet, name: &str) -> Result<IdSet, ToolError> {
        use crate::activation::{WINDOW_DAYS, current_time, days};
        let hot_days = match name {
            "hot" | "recently_modified" => Some(30),
            _ => name
                .strip_prefix("hot(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|d| d.parse::<i64>().ok()),
        };
        if let Some(d) = hot_days
            && d > WINDOW_DAYS
        {
            return Err(eval_error(
                "TEMPORAL_WINDOW_EXCEEDED",
                &format!(":hot({d}): activation covers the last {WINDOW_DAYS} days"),
            ));
        }
        let u = self.universe;
        let files: FxHashSet<&str> = set
            .iter()
            .filter_map(|id| u.get(*id).and_then(|s| u.file_of(s)))
            .map(|f| f.path.as_str())
            .collect();
        self.activation_for(&files)?;
        let Some(store) = self.activation.as_ref() else {
            return Ok(IdSet::default());
        };
        let now = current_time();
        let of = |id: i64| {
            let s = u.get(id)?;
            let f = u.file_of(s)?;
            let a = store.files.get(&f.path)?;
            Some(if is_module_id(id) {
                a.of_lines(1, u32::MAX, now)
            } else {
                a.of_lines(s.line, s.end_line.max(s.line), now)
            })
        };
        if let Some(d) = hot_days {
            let since = now - days(d);
            return Ok(set
                .into_iter()
                .filter(|id| {
                    of(*id)
                        .and_then(|a| a.last_modified)
                        .is_some_and(|t| t >= since)
                })
                .collect());
        }
        if name == "stale" {
            let before = now - days(180);
            return Ok(set
                .into_iter()
                .filter(|id| {
                    of(*id).is_some_and(|a| {
                        a.commits_30d == 0 && a.last_modified.is_none_or(|t| t < before)
                    })
                })
                .collect());
        }
        // :hotspot: per file, the top max(1, n/10) candidates by recent commits,
        // leaving out those with none.
        let mut per_file: FxHashMap<i64, Vec<(usize, u32, i64)>> = FxHashMap::default();
        let mut counts: FxHashMap<i64, usize> = FxHashMap::default();
        for id in &set {
            let Some(s) = u.get(*id) else { continue };
            *counts.entry(s.file_id).or_default() += 1;
            if let Some(a) = of(*id)
                && a.commits_30d > 0
            {
                per_file
                    .entry(s.file_id)
                    .or_default()
                    .push((a.commits_30d, s.line, *id));
            }
        }
        let mut out = IdSet::default();
        for (file, mut rows) in per_file {
            rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let keep = (counts.get(&file).copied().unwrap_or(0) / 10).max(1);
            out.extend(rows.into_iter().take(keep).map(|r| r.2));
        }
        Ok(out)
    }

    /// `:violates(rule)`: the symbols of `set` holding a call or import that breaks
    /// the architectural constraint `rule`, evaluated now over this index (and
    /// persisted, as `edit action=constraints` does). A file-level import
    /// violation is held by the file's `.module` symbol.
    fn violating(&mut self, set: IdSet, rule: &str) -> Result<IdSet, ToolError> {
        let root = self.index.root();
        let rules = crate::constraints::load(root)?;
        if rules.rules.is_empty() {
            return Err(eval_error(
                "VIOLATION_INDEX_UNAVAILABLE",
                &format!(
                    ":violates({rule}) needs architectural constraints: the project has no {} with a rule",
                    crate::constraints::FILES[0]
                ),
            ));
        }
        if !rules.rules.iter().any(|r| r.id == rule) {
            let ids: Vec<&str> = rules.rules.iter().map(|r| r.id.as_str()).collect();
            return Err(eval_error(
                "UNKNOWN_RULE",
                &format!(
                    ":violates({rule}): no such rule in {} (rules: {})",
                    rules
                        .file
                        .as_deref()
                        .unwrap_or(crate::constraints::FILES[0]),
                    ids.join(", ")
                ),
            ));
        }
        let eval = rules.evaluate(self.index)?;
        crate::constraints::persist(root, &eval)?;
        let u = self.universe;
        let mut out = IdSet::default();
        for v in eval.violations.iter().filter(|v| v.rule_id == rule) {
            for id in &set {
                let Some(s) = u.get(*id) else { continue };
                let Some(f) = u.file_of(s) else { continue };
                if f.path != v.caller_file {
                    continue;
                }
                // Imports and top-level calls are the file's; a call inside a
                // definition is its caller's (by qualified name and span).
                let holds = if v.via == "import" || v.caller_name == "<module>" {
                    is_module_id(s.id)
                } else {
                    !is_module_id(s.id)
                        && s.qualname == v.caller_name
                        && (s.line..=s.end_line).contains(&v.caller_line)
                };
                if holds {
                    out.insert(*id);
                }
            }
        }
        Ok(out)
    }

    /// The symbols of `set` whose file imports a module whose name contains `module`.
    fn importing(&self, set: IdSet, module: &str) -> Result<IdSet, ToolError> {
        let u = self.universe;
        let files: FxHashSet<i64> = self
            .index
            .dsl_files_importing(module)?
            .into_iter()
            .collect();
        Ok(set
            .into_iter()
            .filter(|id| u.get(*id).is_some_and(|s| files.contains(&s.file_id)))
            .collect())
    }

    /// The call-graph walk a pseudo-class asks for: direction, target, hops.
    fn walk_of<'p>(&self, p: &'p Pseudo) -> Option<(bool, &'p SelectorList, (u32, u32))> {
        match p {
            Pseudo::Reach {
                forward,
                inner,
                min,
                max,
            } => Some((*forward, inner, (*min, *max))),
            Pseudo::Calls(l) if self.tql => Some((false, l, (1, 1))),
            Pseudo::CalledBy(l) if self.tql => Some((true, l, (1, 1))),
            _ => None,
        }
    }

    fn pseudo(&mut self, set: IdSet, p: &Pseudo) -> Result<IdSet, ToolError> {
        let u = self.universe;
        if let Some((forward, inner, hops)) = self.walk_of(p) {
            return self.reach(set, forward, inner, hops);
        }
        Ok(match p {
            Pseudo::Reach { .. } => {
                return Err(eval_error("INTERNAL", "a call walk outside walk_of"));
            }
            Pseudo::Temporal(name) => self.temporal(set, name)?,
            Pseudo::Branch(kind) => self.in_branch(set, *kind)?,
            Pseudo::Violates(rule) => self.violating(set, rule)?,
            Pseudo::Calls(list) => {
                let targets = self.list(list)?;
                let mut resolved = self.index.dsl_callers_of(&sorted(&targets))?;
                let index = self.index;
                let (exact, by_name) = self.name_edges(list, &targets, &|n, u| {
                    Ok(index.dsl_unresolved_callers_of_names(n, u)?)
                })?;
                resolved.extend(exact);
                self.with_fallback(set, resolved, by_name)
            }
            Pseudo::CalledBy(list) => {
                let targets = sorted(&self.list(list)?);
                let resolved = self.index.dsl_callees_of(&targets)?;
                let names: FxHashSet<String> = self
                    .index
                    .dsl_unresolved_callee_names(&targets)?
                    .into_iter()
                    .collect();
                let by_name: Vec<i64> = set
                    .iter()
                    .filter(|id| {
                        !is_module_id(**id) && u.get(**id).is_some_and(|s| names.contains(&s.name))
                    })
                    .copied()
                    .collect();
                self.with_fallback(set, resolved, by_name)
            }
            Pseudo::Extends(list) | Pseudo::Implements(list) => {
                let kind = if matches!(p, Pseudo::Extends(_)) {
                    0
                } else {
                    1
                };
                let targets = self.list(list)?;
                let mut resolved = self.index.dsl_subtypes_of(&sorted(&targets), Some(kind))?;
                let index = self.index;
                let (exact, by_name) = self.name_edges(list, &targets, &|n, u| {
                    Ok(index.dsl_unresolved_subtypes_of_names(n, Some(kind), u)?)
                })?;
                resolved.extend(exact);
                self.with_fallback(set, resolved, by_name)
            }
            Pseudo::Subclasses(list) => self.subclasses(set, list)?,
            Pseudo::Imports(module) => self.importing(set, module)?,
            Pseudo::Has(list) => {
                let members = self.list(list)?;
                let containers: IdSet = members
                    .iter()
                    .filter_map(|id| u.get(*id).and_then(container))
                    .collect();
                set.into_iter()
                    .filter(|id| containers.contains(id))
                    .collect()
            }
            Pseudo::Not(list) => {
                // What the inner selector noted about symbols it left out does not
                // hold for the outer answer, which keeps exactly those.
                let kept = std::mem::take(&mut self.notes);
                let minus = self.list(list);
                let inner = std::mem::replace(&mut self.notes, kept);
                self.notes.unknown_kinds.extend(inner.unknown_kinds);
                let minus = minus?;
                set.into_iter().filter(|id| !minus.contains(id)).collect()
            }
            Pseudo::In(prefix) => set
                .into_iter()
                .filter(|id| {
                    u.get(*id)
                        .and_then(|s| u.file_of(s))
                        .is_some_and(|f| in_path(&f.path, prefix))
                })
                .collect(),
            Pseudo::FirstChild | Pseudo::LastChild | Pseudo::OnlyChild | Pseudo::NthChild(_) => set
                .into_iter()
                .filter(|id| {
                    let Some(parent) = u.get(*id).and_then(container) else {
                        return false;
                    };
                    let Some(members) = u.children.get(&parent) else {
                        return false;
                    };
                    match p {
                        Pseudo::FirstChild => members.first() == Some(id),
                        Pseudo::LastChild => members.last() == Some(id),
                        Pseudo::OnlyChild => members.len() == 1,
                        Pseudo::NthChild(n) => members.get(n - 1) == Some(id),
                        _ => false,
                    }
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::in_path;

    #[test]
    fn in_path_matches_whole_segments() {
        assert!(in_path("server/a.py", "server/"));
        assert!(in_path("server/a.py", "./server"));
        assert!(in_path("server/a.py", "server/a.py"));
        assert!(!in_path("app/server/a.py", "server/"));
        assert!(!in_path("server2/a.py", "server"));
        assert!(!in_path("server/a.py2", "server/a.py"));
        assert!(in_path("x.py", "."));
    }
}
