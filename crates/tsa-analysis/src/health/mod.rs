//! File and project health scoring (analyses.md §1): seven dimensions 0–100, a
//! weighted total re-normalised over the available ones, smells with a penalty,
//! grades A–F, a `signal` label and the weakest dimension.
//!
//! Public API (used by `health *`, `edit safe`, `edit refactor`):
//! - [`score_file`]: one file, one call.
//! - [`Scorer`]: loads the configuration, import graph, coverage report and git
//!   history once, then scores many files ([`Scorer::score`], [`Scorer::score_all`]
//!   in parallel with a content-hash cache in `.tsa/health-cache.json`).
//! - [`facts_of`]: the content-only measurements of one source text (functions with
//!   their complexity, classes, depth, duplication, smells) for actions that need
//!   per-function detail.
//!
//! Thresholds and smell rules are data: [`config`] (`defaults.yml` + `tsa-health.yml`).
//!
//! The graph-health engines live beside the scorer: [`model`] (the project graph
//! loaded once), [`deadcode`], [`files`] (the file import graph) and [`routes_scan`].

pub mod config;
pub mod coverage;
pub mod dead;
pub mod deadcode;
pub mod files;
pub mod git;
pub mod heatmap;
pub mod matrix;
pub mod model;
pub mod overview;
pub mod patterns;
pub mod queue;
pub mod refactor;
pub mod routes_scan;
pub mod scale;
pub mod test_gap;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tsa_index::{FileFacts, ImportCounts, Index};
use tsa_lang::Language;

use crate::ToolError;
use crate::complexity::{self, ClassMethods, FunctionCc};
pub use config::HealthConfig;
use config::{Band, Metric, Steps};
use coverage::Coverage;

/// How the `dependencies` dimension is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepsMode {
    /// Project file graph: 0.6 × fan-out score + 0.4 × fan-in score.
    Full,
    /// Count of non-stdlib imports only (`edit safe`).
    Fast,
}

/// The seven dimensions, in canonical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dimension {
    Size,
    Complexity,
    Dependencies,
    Coverage,
    Duplication,
    Structure,
    GitHotspot,
}

impl Dimension {
    pub const ALL: [Dimension; 7] = [
        Dimension::Size,
        Dimension::Complexity,
        Dimension::Dependencies,
        Dimension::Coverage,
        Dimension::Duplication,
        Dimension::Structure,
        Dimension::GitHotspot,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Size => "size",
            Dimension::Complexity => "complexity",
            Dimension::Dependencies => "dependencies",
            Dimension::Coverage => "coverage",
            Dimension::Duplication => "duplication",
            Dimension::Structure => "structure",
            Dimension::GitHotspot => "git_hotspot",
        }
    }

    fn weight(self, c: &HealthConfig) -> f64 {
        let w = &c.weights;
        match self {
            Dimension::Size => w.size,
            Dimension::Complexity => w.complexity,
            Dimension::Dependencies => w.dependencies,
            Dimension::Coverage => w.coverage,
            Dimension::Duplication => w.duplication,
            Dimension::Structure => w.structure,
            Dimension::GitHotspot => w.git_hotspot,
        }
    }

    /// The `signal` labels (mid, high) of tools.md §5.1.
    fn labels(self) -> (&'static str, &'static str) {
        match self {
            Dimension::Size => ("medium_size", "large_file"),
            Dimension::Complexity => ("moderate_cc", "high_cc"),
            Dimension::Dependencies => ("moderate_deps", "high_coupling"),
            Dimension::Coverage => ("partial_coverage", "low_coverage"),
            Dimension::Duplication => ("some_dup", "repeated_blocks"),
            Dimension::Structure => ("moderate_depth", "deep_nesting"),
            Dimension::GitHotspot => ("active", "volatile"),
        }
    }
}

/// One detected smell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Smell {
    /// Rule id (`long_line`, `long_method`, ...).
    pub kind: String,
    pub severity: String,
    pub line: u32,
    /// The function or class concerned, when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub value: f64,
    pub threshold: f64,
    pub message: String,
    pub fix: String,
    /// Score points this smell costs (0 for smells already reflected by dimensions).
    pub penalty: f64,
}

impl Smell {
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Content-only measurements of one file (cacheable by content hash).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ContentFacts {
    pub language: Option<String>,
    pub lines: u32,
    /// Whether the language has complexity rules (else complexity is `unknown_language`).
    pub analysable: bool,
    pub syntax_error: bool,
    pub max_depth: Option<u32>,
    /// Repeated-window ratio; `None` for files under `duplication.min_lines` lines.
    pub duplication_ratio: Option<f64>,
    pub functions: Vec<FunctionCc>,
    pub classes: Vec<ClassMethods>,
    pub smells: Vec<Smell>,
}

/// The score of one file.
#[derive(Clone, Debug)]
pub struct FileScore {
    pub file: String,
    pub language: Option<String>,
    pub lines: u32,
    /// Available dimensions in canonical order, each rounded to 1 decimal.
    pub dimensions: Vec<(Dimension, f64)>,
    /// Weighted total before the smell penalty (1 decimal).
    pub raw_score: f64,
    /// Smell penalty applied (capped).
    pub penalty: f64,
    /// Final score after the penalty, floored at 0, 1 decimal.
    pub total_score: f64,
    pub grade: char,
    pub smells: Vec<Smell>,
    pub signal: &'static str,
    /// The lowest-scoring available dimension (first in canonical order on ties).
    pub weakest: Option<(Dimension, f64)>,
    pub facts: ContentFacts,
    /// Dependency counts used (fan-out, fan-in, non-stdlib imports).
    pub imports: ImportCounts,
}

impl FileScore {
    /// `{dimension: score}` of the available dimensions.
    pub fn dimensions_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for (d, s) in &self.dimensions {
            m.insert(d.as_str().to_owned(), json!(s));
        }
        Value::Object(m)
    }

    pub fn weakest_name(&self) -> &'static str {
        self.weakest.map_or("none", |(d, _)| d.as_str())
    }

    pub fn score_of(&self, d: Dimension) -> Option<f64> {
        self.dimensions
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, s)| *s)
    }
}

/// Rounds to 1 decimal.
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Linear interpolation: `x <= good` → 100, `x >= bad` → 0, linear between.
pub fn linear(x: f64, b: Band) -> f64 {
    if x <= b.good {
        100.0
    } else if x >= b.bad {
        0.0
    } else {
        (100.0 * (1.0 - (x - b.good) / (b.bad - b.good))).clamp(0.0, 100.0)
    }
}

/// `size`: 0 lines → 0, else linear over the size band.
pub fn size_score(lines: u32, c: &HealthConfig) -> f64 {
    if lines == 0 {
        0.0
    } else {
        linear(f64::from(lines), c.size)
    }
}

fn stepped(x: f64, s: Steps) -> f64 {
    if x <= s.good {
        100.0
    } else if x <= s.mid {
        (100.0 - 70.0 * (x - s.good) / (s.mid - s.good)).max(30.0)
    } else if x <= s.high {
        (30.0 - 25.0 * (x - s.mid) / (s.high - s.mid)).max(5.0)
    } else {
        5.0
    }
}

/// `complexity` from the functions' cyclomatic complexities: no functions → CC 1;
/// at least `many_functions` → the average, else the total, through the steps.
pub fn complexity_score(ccs: &[u32], c: &HealthConfig) -> f64 {
    if ccs.len() >= c.complexity.many_functions && !ccs.is_empty() {
        let avg = ccs.iter().map(|x| f64::from(*x)).sum::<f64>() / ccs.len() as f64;
        stepped(avg, c.complexity.average)
    } else {
        let total = if ccs.is_empty() {
            1.0
        } else {
            ccs.iter().map(|x| f64::from(*x)).sum::<f64>()
        };
        stepped(total, c.complexity.total)
    }
}

/// `dependencies`.
pub fn dependencies_score(counts: ImportCounts, mode: DepsMode, c: &HealthConfig) -> f64 {
    let d = &c.dependencies;
    match mode {
        DepsMode::Full => {
            d.out_weight * linear(f64::from(counts.fan_out), d.fan_out)
                + d.in_weight * linear(f64::from(counts.fan_in), d.fan_in)
        }
        DepsMode::Fast => linear(f64::from(counts.non_stdlib), d.fast),
    }
}

/// Repeated-window ratio of a text (`None` under `min_lines` lines): slide a window
/// of stripped lines, skip all-blank windows, ratio = windows seen more than once /
/// distinct windows.
pub fn duplication_ratio(text: &str, c: &HealthConfig) -> Option<f64> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    if lines.len() < c.duplication.min_lines {
        return None;
    }
    let w = c.duplication.window;
    let mut seen: HashMap<&[&str], u32> = HashMap::new();
    for win in lines.windows(w) {
        if win.iter().all(|l| l.is_empty()) {
            continue;
        }
        *seen.entry(win).or_default() += 1;
    }
    if seen.is_empty() {
        return Some(0.0);
    }
    let repeated = seen.values().filter(|n| **n > 1).count();
    Some(repeated as f64 / seen.len() as f64)
}

/// `duplication` from the ratio (`None`: short file → 100).
pub fn duplication_score(ratio: Option<f64>, c: &HealthConfig) -> f64 {
    match ratio {
        None => 100.0,
        Some(r) => linear(
            r,
            Band {
                good: c.duplication.good,
                bad: c.duplication.bad,
            },
        ),
    }
}

/// `structure` from the parse tree's maximum depth (`None`: unknown language).
pub fn structure_score(depth: Option<u32>, c: &HealthConfig) -> f64 {
    match depth {
        None => c.structure.unknown_language,
        Some(d) => linear(
            f64::from(d),
            Band {
                good: c.structure.good,
                bad: c.structure.bad,
            },
        ),
    }
}

/// `git_hotspot` from the recent commit count.
pub fn git_score(commits: u32, c: &HealthConfig) -> f64 {
    linear(
        f64::from(commits),
        Band {
            good: c.git_hotspot.good,
            bad: c.git_hotspot.bad,
        },
    )
}

/// Grade of a score.
pub fn grade_of(score: f64, c: &HealthConfig) -> char {
    let g = &c.grades;
    if score >= g.A {
        'A'
    } else if score >= g.B {
        'B'
    } else if score >= g.C {
        'C'
    } else if score >= g.D {
        'D'
    } else {
        'F'
    }
}

/// Weighted total of the available dimensions, re-normalised over their weights.
pub fn weighted_total(dims: &[(Dimension, f64)], c: &HealthConfig) -> f64 {
    let wsum: f64 = dims.iter().map(|(d, _)| d.weight(c)).sum();
    if wsum <= 0.0 {
        return 0.0;
    }
    dims.iter().map(|(d, s)| s * d.weight(c)).sum::<f64>() / wsum
}

/// Sum of smell penalties, capped.
pub fn smell_penalty(smells: &[Smell], c: &HealthConfig) -> f64 {
    smells
        .iter()
        .map(|s| s.penalty)
        .sum::<f64>()
        .min(c.smell_penalty_cap)
}

/// The `signal` label: weakest ≥ healthy → `healthy`; else the weakest dimension's
/// mid (≥ mid) or high label; no dimensions → `no_data`.
pub fn signal_of(weakest: Option<(Dimension, f64)>, c: &HealthConfig) -> &'static str {
    match weakest {
        None => "no_data",
        Some((_, s)) if s >= c.signal.healthy => "healthy",
        Some((d, s)) if s >= c.signal.mid => d.labels().0,
        Some((d, _)) => d.labels().1,
    }
}

fn smell(
    id: &str,
    rule: &config::SmellRule,
    value: f64,
    line: u32,
    symbol: Option<&str>,
    what: String,
) -> Option<Smell> {
    if value <= rule.warning {
        return None;
    }
    let critical = value > rule.critical;
    Some(Smell {
        kind: id.to_owned(),
        severity: if critical { "critical" } else { "warning" }.to_owned(),
        line,
        symbol: symbol.map(str::to_owned),
        value,
        threshold: if critical {
            rule.critical
        } else {
            rule.warning
        },
        message: what,
        fix: rule.fix.clone(),
        penalty: rule.penalty + if critical { rule.critical_penalty } else { 0.0 },
    })
}

/// Smells of a text and its measured functions/classes, by line.
pub fn detect_smells(
    text: &str,
    functions: &[FunctionCc],
    classes: &[ClassMethods],
    c: &HealthConfig,
) -> Vec<Smell> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len() as u32;
    for (id, rule) in &c.smells {
        match rule.metric {
            Metric::LineLength => {
                for (i, l) in lines.iter().enumerate() {
                    let len = l.chars().count() as f64;
                    out.extend(smell(
                        id,
                        rule,
                        len,
                        i as u32 + 1,
                        None,
                        format!("line is {len} characters long"),
                    ));
                }
            }
            Metric::SingleLineLength => {
                let non_empty: Vec<&&str> = lines.iter().filter(|l| !l.trim().is_empty()).collect();
                if non_empty.len() == 1 {
                    let len = non_empty[0].chars().count() as f64;
                    let at =
                        lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0) as u32 + 1;
                    out.extend(smell(
                        id,
                        rule,
                        len,
                        at,
                        None,
                        format!("the whole file is one line of {len} characters"),
                    ));
                }
            }
            Metric::FileLines => out.extend(smell(
                id,
                rule,
                f64::from(n),
                1,
                None,
                format!("file has {n} lines"),
            )),
            Metric::FunctionLines
            | Metric::FunctionComplexity
            | Metric::FunctionNesting
            | Metric::FunctionParameters => {
                for f in functions {
                    let (v, what) = match rule.metric {
                        Metric::FunctionLines => {
                            let l = f.end_line - f.line + 1;
                            (l, format!("function '{}' is {l} lines long", f.name))
                        }
                        Metric::FunctionComplexity => (
                            f.complexity,
                            format!(
                                "function '{}' has cyclomatic complexity {}",
                                f.name, f.complexity
                            ),
                        ),
                        Metric::FunctionNesting => (
                            f.nesting,
                            format!("function '{}' nests blocks {} deep", f.name, f.nesting),
                        ),
                        _ => (
                            f.parameters,
                            format!("function '{}' takes {} parameters", f.name, f.parameters),
                        ),
                    };
                    out.extend(smell(id, rule, f64::from(v), f.line, Some(&f.name), what));
                }
            }
            Metric::ClassMethods => {
                for k in classes {
                    out.extend(smell(
                        id,
                        rule,
                        f64::from(k.methods),
                        k.line,
                        Some(&k.name),
                        format!("class '{}' has {} methods", k.name, k.methods),
                    ));
                }
            }
        }
    }
    out.sort_by(|a, b| a.line.cmp(&b.line).then_with(|| a.kind.cmp(&b.kind)));
    out
}

/// What health needs from a parse tree, independent of any configuration. The
/// index build takes it from the one parse it already makes (see [`facts_hook`]),
/// so scoring a freshly indexed project never parses again.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TreeFacts {
    analysable: bool,
    syntax_error: bool,
    max_depth: Option<u32>,
    functions: Vec<FunctionCc>,
    classes: Vec<ClassMethods>,
}

fn tree_facts(lang: Language, root: tree_sitter::Node<'_>, src: &[u8]) -> TreeFacts {
    let mut pass = FactsPass::new(lang);
    tsa_lang::visit(root, src, &mut pass);
    pass.facts(root)
}

/// [`TreeFacts`] measured by a pass over the tree (the index build's extraction
/// walk carries it: [`facts_hook`]).
struct FactsPass(complexity::Measurer<'static>);

impl FactsPass {
    fn new(lang: Language) -> Self {
        Self(complexity::Measurer::new(complexity::rules(lang)))
    }

    fn facts(self, root: tree_sitter::Node<'_>) -> TreeFacts {
        let analysable = self.0.has_rules();
        let m = self.0.done();
        TreeFacts {
            analysable,
            syntax_error: root.has_error(),
            max_depth: Some(m.max_depth),
            functions: m.functions,
            classes: m.classes,
        }
    }
}

impl tsa_lang::TreeVisitor for FactsPass {
    fn enter(
        &mut self,
        node: tree_sitter::Node<'_>,
        parent: Option<tree_sitter::Node<'_>>,
        src: &[u8],
    ) {
        self.0.enter(node, parent, src);
    }

    fn enter_kind(
        &mut self,
        node: tree_sitter::Node<'_>,
        kind: u16,
        parent: Option<tree_sitter::Node<'_>>,
        src: &[u8],
    ) {
        self.0.enter_kind(node, kind, parent, src);
    }

    fn leave(&mut self) {
        self.0.leave();
    }

    fn leaf_kinds(&self) -> Option<&'static [bool]> {
        self.0.leaf_kinds()
    }

    fn skipped_leaf(&mut self) {
        self.0.skipped_leaf();
    }

    fn finish(self: Box<Self>, root: tree_sitter::Node<'_>, _src: &[u8]) -> Option<String> {
        serde_json::to_string(&self.facts(root)).ok()
    }
}

/// The index build's hook: health's tree measurements of every parsed file, taken
/// on the extraction's own walk and stored with the file row.
pub fn facts_hook() -> tsa_lang::FactsHook {
    std::sync::Arc::new(|lang| Box::new(FactsPass::new(lang)))
}

/// Content facts from tree facts and the text (lines, duplication and smells depend
/// on the configuration, and need no parse).
fn with_text(path: &str, text: &str, t: TreeFacts, c: &HealthConfig) -> ContentFacts {
    let smells = detect_smells(text, &t.functions, &t.classes, c);
    ContentFacts {
        language: Language::from_path(path).map(|l| l.name().to_owned()),
        lines: text.lines().count() as u32,
        analysable: t.analysable,
        syntax_error: t.syntax_error,
        max_depth: t.max_depth,
        duplication_ratio: duplication_ratio(text, c),
        functions: t.functions,
        classes: t.classes,
        smells,
    }
}

/// Measures one source text (parse once): functions and their complexity, classes,
/// tree depth, duplication and smells.
pub fn facts_of(path: &str, text: &str, c: &HealthConfig) -> ContentFacts {
    let lang = Language::from_path(path);
    let tree = lang.and_then(|l| complexity::parse(l, text.as_bytes()));
    let t = match (lang, &tree) {
        (Some(l), Some(tree)) => tree_facts(l, tree.root_node(), text.as_bytes()),
        _ => TreeFacts {
            analysable: false,
            syntax_error: false,
            max_depth: None,
            functions: Vec::new(),
            classes: Vec::new(),
        },
    };
    with_text(path, text, t, c)
}

/// Scores files of one project with everything loaded once.
pub struct Scorer {
    root: PathBuf,
    pub config: HealthConfig,
    mode: DepsMode,
    imports: HashMap<String, ImportCounts>,
    coverage: Option<Coverage>,
    git: Option<HashMap<String, u32>>,
    indexed: HashMap<String, FileFacts>,
}

#[derive(Default, Serialize, Deserialize)]
struct Cache {
    fingerprint: String,
    files: HashMap<String, (String, ContentFacts)>,
}

/// (path, fresh index hash, measured now, measurements)
type Measured = (
    String,
    Option<String>,
    bool,
    Result<ContentFacts, ToolError>,
);

const CACHE_FILE: &str = "health-cache.json";

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Scorer {
    /// Loads the configuration (`tsa-health.yml` override), the import graph, the
    /// coverage report and the git history of the last `git_hotspot.days` days.
    pub fn new(root: &Path, index: &Index, mode: DepsMode) -> Result<Scorer, ToolError> {
        let config = HealthConfig::load(root)?;
        let git = git::commit_counts(root, config.git_hotspot.days, now_secs());
        Ok(Scorer {
            root: root.to_path_buf(),
            mode,
            imports: index.import_counts()?,
            coverage: Coverage::load(root),
            git,
            indexed: index
                .file_facts()?
                .into_iter()
                .map(|f| (f.path.clone(), f))
                .collect(),
            config,
        })
    }

    /// Whether a coverage report was found.
    pub fn has_coverage(&self) -> bool {
        self.coverage.is_some()
    }

    /// Whether the project is in a git repository.
    pub fn has_git(&self) -> bool {
        self.git.is_some()
    }

    /// Indexed files (project-relative), sorted.
    pub fn indexed_files(&self) -> Vec<&FileFacts> {
        let mut v: Vec<&FileFacts> = self.indexed.values().collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }

    fn read(&self, rel: &str) -> Result<String, ToolError> {
        // Never through a symlink swapped in since indexing.
        let path = crate::security::path_in_root(&self.root, rel)?;
        if let Ok(meta) = std::fs::metadata(&path) {
            crate::source::check_parse_size(rel, meta.len())?;
        }
        let bytes = std::fs::read(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::NotFound(rel.to_owned()),
            _ => ToolError::Internal(format!("cannot read '{rel}': {e}")),
        })?;
        String::from_utf8(bytes).map_err(|_| ToolError::Encoding(rel.to_owned()))
    }

    /// Scores one project-relative file.
    pub fn score(&self, rel: &str) -> Result<FileScore, ToolError> {
        let text = self.read(rel)?;
        let facts = facts_of(rel, &text, &self.config);
        Ok(self.combine(rel, facts))
    }

    /// The index hash of `rel` when the file on disk still matches the indexed stat.
    fn fresh_hash(&self, rel: &str) -> Option<String> {
        let f = self.indexed.get(rel)?;
        let meta = std::fs::metadata(self.root.join(rel)).ok()?;
        let mtime = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos() as i64;
        (meta.len() == f.size && mtime == f.mtime_ns).then(|| hex(&f.hash))
    }

    /// Scores many files on all cores. Content measurements are cached in
    /// `.tsa/health-cache.json` by content hash (and configuration fingerprint);
    /// a file whose stat no longer matches the index is measured afresh.
    pub fn score_all(&self, rels: &[String]) -> Vec<(String, Result<FileScore, ToolError>)> {
        // A symlinked cache (or .tsa) is neither read nor written.
        let cache_path = tsa_index::state_path(&self.root, CACHE_FILE).ok();
        let tmp_path = tsa_index::state_path(&self.root, &format!("{CACHE_FILE}.tmp")).ok();
        let cache: Cache = cache_path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .filter(|c: &Cache| c.fingerprint == self.config.fingerprint)
            .unwrap_or_default();
        let results: Vec<Measured> = rels
            .par_iter()
            .map(|rel| {
                let hash = self.fresh_hash(rel);
                if let (Some(h), Some((ch, facts))) = (&hash, cache.files.get(rel))
                    && h == ch
                {
                    return (rel.clone(), hash, false, Ok(facts.clone()));
                }
                // The index build measured the tree already (same content hash).
                let stored: Option<TreeFacts> = hash
                    .as_ref()
                    .and_then(|_| self.indexed.get(rel))
                    .and_then(|f| f.facts.as_deref())
                    .and_then(|b| serde_json::from_str(b).ok());
                let facts = self.read(rel).map(|t| match stored {
                    Some(tf) => with_text(rel, &t, tf, &self.config),
                    None => facts_of(rel, &t, &self.config),
                });
                (rel.clone(), hash, true, facts)
            })
            .collect();
        let changed = results.iter().any(|r| r.2) || cache.files.len() != results.len();
        if changed {
            let mut next = Cache {
                fingerprint: self.config.fingerprint.clone(),
                files: HashMap::new(),
            };
            for (rel, hash, _, facts) in &results {
                if let (Some(h), Ok(f)) = (hash, facts) {
                    next.files.insert(rel.clone(), (h.clone(), f.clone()));
                }
            }
            if let (Ok(bytes), Some(cache_path), Some(tmp)) =
                (serde_json::to_vec(&next), cache_path, tmp_path)
            {
                // The cache is an optimisation: failing to write it changes no answer.
                if std::fs::write(&tmp, bytes).is_ok() {
                    let _ = std::fs::rename(&tmp, &cache_path);
                }
            }
        }
        results
            .into_par_iter()
            .map(|(rel, _, _, facts)| {
                let scored = facts.map(|f| self.combine(&rel, f));
                (rel, scored)
            })
            .collect()
    }

    /// Dimensions, total, penalty, grade, signal from a file's measurements.
    fn combine(&self, rel: &str, facts: ContentFacts) -> FileScore {
        let c = &self.config;
        let counts = self.imports.get(rel).copied().unwrap_or_default();
        let known = facts.analysable;
        let mut dims = Vec::with_capacity(7);
        for d in Dimension::ALL {
            let s = match d {
                Dimension::Size => Some(size_score(facts.lines, c)),
                Dimension::Complexity => Some(if known {
                    let ccs: Vec<u32> = facts.functions.iter().map(|f| f.complexity).collect();
                    complexity_score(&ccs, c)
                } else {
                    c.complexity.unknown_language
                }),
                Dimension::Dependencies => Some(if known {
                    dependencies_score(counts, self.mode, c)
                } else {
                    c.dependencies.unknown_language
                }),
                Dimension::Coverage => self.coverage.as_ref().and_then(|cv| cv.percent(rel)),
                Dimension::Duplication => Some(duplication_score(facts.duplication_ratio, c)),
                Dimension::Structure => Some(structure_score(facts.max_depth, c)),
                Dimension::GitHotspot => self
                    .git
                    .as_ref()
                    .map(|g| git_score(g.get(rel).copied().unwrap_or(0), c)),
            };
            if let Some(s) = s {
                dims.push((d, s.clamp(0.0, 100.0)));
            }
        }
        let raw = weighted_total(&dims, c);
        let penalty = smell_penalty(&facts.smells, c);
        let total = round1((raw - penalty).max(0.0));
        let dims: Vec<(Dimension, f64)> = dims.into_iter().map(|(d, s)| (d, round1(s))).collect();
        let weakest = dims
            .iter()
            .copied()
            .fold(None::<(Dimension, f64)>, |best, x| match best {
                Some(b) if b.1 <= x.1 => Some(b),
                _ => Some(x),
            });
        FileScore {
            file: rel.to_owned(),
            language: facts.language.clone(),
            lines: facts.lines,
            raw_score: round1(raw),
            penalty,
            total_score: total,
            grade: grade_of(total, c),
            smells: facts.smells.clone(),
            signal: signal_of(weakest, c),
            weakest,
            dimensions: dims,
            facts,
            imports: counts,
        }
    }
}

/// Scores one project-relative file (see [`Scorer`] for many files).
pub fn score_file(
    root: &Path,
    index: &Index,
    rel: &str,
    mode: DepsMode,
) -> Result<FileScore, ToolError> {
    Scorer::new(root, index, mode)?.score(rel)
}

/// The health verdict of a grade: A/B SAFE, C CAUTION, D/F UNSAFE.
pub fn verdict_of_grade(grade: char) -> tsa_envelope::Verdict {
    match grade {
        'A' | 'B' => tsa_envelope::Verdict::Safe,
        'C' => tsa_envelope::Verdict::Caution,
        _ => tsa_envelope::Verdict::Unsafe,
    }
}

#[cfg(test)]
mod tests;
