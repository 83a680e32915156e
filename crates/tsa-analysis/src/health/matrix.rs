//! Module (directory) coupling for `health matrix`: module-to-module dependencies
//! from file imports and cross-file call edges, the modules' afferent and efferent
//! coupling and instability (I = Ce / (Ca + Ce)), and one file's module relations.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::health::files::{Files, instability};
use crate::health::model::{Model, module_of};

/// Module-to-module dependencies: (from, to) -> (import edges, call sites).
pub struct ModuleGraph {
    pub pairs: BTreeMap<(String, String), (u64, u64)>,
    pub modules: BTreeSet<String>,
}

impl ModuleGraph {
    pub fn build(model: &Model) -> ModuleGraph {
        let mut pairs: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        let modules: BTreeSet<String> = model
            .files
            .iter()
            .map(|f| module_of(&f.path).to_owned())
            .collect();
        let g = model.file_graph();
        for (f, deps) in &g.deps {
            let a = module_of(model.path_of(*f));
            for t in deps {
                let b = module_of(model.path_of(*t));
                if a != b {
                    pairs.entry((a.to_owned(), b.to_owned())).or_default().0 += 1;
                }
            }
        }
        for ((cf, tf), n) in model.file_call_counts() {
            let (a, b) = (module_of(model.path_of(cf)), module_of(model.path_of(tf)));
            if a != b {
                pairs.entry((a.to_owned(), b.to_owned())).or_default().1 += n;
            }
        }
        ModuleGraph { pairs, modules }
    }

    /// Per module: (Ca, Ce) counted in distinct modules.
    pub fn coupling(&self) -> BTreeMap<&str, (usize, usize)> {
        let mut out: BTreeMap<&str, (usize, usize)> =
            self.modules.iter().map(|m| (m.as_str(), (0, 0))).collect();
        for (a, b) in self.pairs.keys() {
            out.entry(a.as_str()).or_default().1 += 1;
            out.entry(b.as_str()).or_default().0 += 1;
        }
        out
    }

    /// Every dependency pair, heaviest first (stable: by pair within a weight).
    pub fn pair_rows(&self) -> Vec<PairRow<'_>> {
        let mut rows: Vec<PairRow<'_>> = self
            .pairs
            .iter()
            .map(|((a, b), (i, c))| PairRow {
                from: a,
                to: b,
                imports: *i,
                calls: *c,
                weight: i + c,
            })
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.weight));
        rows
    }
}

/// A module-to-module dependency.
#[derive(Clone, Debug, Serialize)]
pub struct PairRow<'a> {
    pub from: &'a str,
    pub to: &'a str,
    pub imports: u64,
    pub calls: u64,
    pub weight: u64,
}

/// A module with its coupling.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModuleRow<'a> {
    pub module: &'a str,
    pub afferent: usize,
    pub efferent: usize,
    pub instability: f64,
}

impl<'a> ModuleRow<'a> {
    pub fn new(module: &'a str, ca: usize, ce: usize) -> ModuleRow<'a> {
        ModuleRow {
            module,
            afferent: ca,
            efferent: ce,
            instability: instability(ca, ce),
        }
    }
}

/// Coupled modules, most coupled first (then by name).
pub fn hotspots<'a>(coupling: &BTreeMap<&'a str, (usize, usize)>) -> Vec<ModuleRow<'a>> {
    let mut rows: Vec<ModuleRow<'a>> = coupling
        .iter()
        .filter(|(_, (a, e))| a + e > 0)
        .map(|(m, (a, e))| ModuleRow::new(m, *a, *e))
        .collect();
    rows.sort_by(|x, y| {
        (y.afferent + y.efferent)
            .cmp(&(x.afferent + x.efferent))
            .then(x.module.cmp(y.module))
    });
    rows
}

/// Coupled modules with instability at or above `threshold`, most unstable first
/// (then most efferent, then by name).
pub fn unstable<'a>(
    coupling: &BTreeMap<&'a str, (usize, usize)>,
    threshold: f64,
) -> Vec<ModuleRow<'a>> {
    let mut rows: Vec<ModuleRow<'a>> = coupling
        .iter()
        .map(|(m, (a, e))| ModuleRow::new(m, *a, *e))
        .filter(|r| r.afferent + r.efferent > 0 && r.instability >= threshold)
        .collect();
    rows.sort_by(|x, y| {
        y.instability
            .total_cmp(&x.instability)
            .then(y.efferent.cmp(&x.efferent))
            .then(x.module.cmp(y.module))
    });
    rows
}

/// A file's relation with another module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelationRow {
    pub module: String,
    /// `depends_on`, `depended_on_by`, `calls_into` or `called_from`.
    pub relation: &'static str,
    pub count: u64,
}

/// File `id`'s relations with modules other than its own, by module and relation.
pub fn file_relations(files: &Files<'_>, id: i64, module: &str) -> Vec<RelationRow> {
    let model = files.model;
    let mut by_module: BTreeMap<(String, &'static str), u64> = BTreeMap::new();
    for t in files.graph.deps.get(&id).into_iter().flatten() {
        *by_module
            .entry((module_of(model.path_of(*t)).to_owned(), "depends_on"))
            .or_default() += 1;
    }
    for t in files.graph.rdeps.get(&id).into_iter().flatten() {
        *by_module
            .entry((module_of(model.path_of(*t)).to_owned(), "depended_on_by"))
            .or_default() += 1;
    }
    for ((cf, tf), n) in model.file_call_counts() {
        if cf == id {
            *by_module
                .entry((module_of(model.path_of(tf)).to_owned(), "calls_into"))
                .or_default() += n;
        } else if tf == id {
            *by_module
                .entry((module_of(model.path_of(cf)).to_owned(), "called_from"))
                .or_default() += n;
        }
    }
    by_module
        .into_iter()
        .filter(|((m, _), _)| m != module)
        .map(|((module, relation), count)| RelationRow {
            module,
            relation,
            count,
        })
        .collect()
}

/// The project's coupling in figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixSummary {
    pub modules: usize,
    pub connected_modules: usize,
    pub dependency_pairs: usize,
    /// Over the connected modules, 3 decimals.
    pub average_instability: f64,
    pub unstable_modules: usize,
    pub threshold: f64,
}

/// The figures of `mg` for instability `threshold`.
pub fn summary(
    mg: &ModuleGraph,
    coupling: &BTreeMap<&str, (usize, usize)>,
    threshold: f64,
) -> MatrixSummary {
    let connected: Vec<f64> = coupling
        .values()
        .filter(|(a, e)| a + e > 0)
        .map(|(a, e)| instability(*a, *e))
        .collect();
    let avg = if connected.is_empty() {
        0.0
    } else {
        (connected.iter().sum::<f64>() / connected.len() as f64 * 1000.0).round() / 1000.0
    };
    MatrixSummary {
        modules: mg.modules.len(),
        connected_modules: connected.len(),
        dependency_pairs: mg.pairs.len(),
        average_instability: avg,
        unstable_modules: connected.iter().filter(|i| **i >= threshold).count(),
        threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> ModuleGraph {
        let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
        ModuleGraph {
            pairs: [
                (pair("app", "lib"), (2, 3)),
                (pair("cli", "app"), (1, 0)),
                (pair("cli", "lib"), (0, 1)),
            ]
            .into_iter()
            .collect(),
            modules: ["app", "cli", "lib", "docs"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }

    #[test]
    fn coupling_instability_and_rankings() {
        let mg = graph();
        let c = mg.coupling();
        assert_eq!(c["app"], (1, 1));
        assert_eq!(c["cli"], (0, 2));
        assert_eq!(c["lib"], (2, 0));
        assert_eq!(c["docs"], (0, 0));
        let pairs: Vec<u64> = mg.pair_rows().iter().map(|p| p.weight).collect();
        assert_eq!(pairs, [5, 1, 1]);
        let hot: Vec<&str> = hotspots(&c).iter().map(|r| r.module).collect();
        assert_eq!(hot, ["app", "cli", "lib"]);
        let un = unstable(&c, 0.5);
        assert_eq!(un[0], ModuleRow::new("cli", 0, 2));
        assert_eq!(un[1].module, "app");
        let s = summary(&mg, &c, 0.7);
        assert_eq!(
            (s.modules, s.connected_modules, s.dependency_pairs),
            (4, 3, 3)
        );
        assert_eq!(s.average_instability, 0.5);
        assert_eq!(s.unstable_modules, 1);
    }
}
