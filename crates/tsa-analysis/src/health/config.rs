//! Health thresholds and smell rules as data: built-in defaults (`defaults.yml`,
//! compiled in) merged with the project's override file `tsa-health.yml` at the
//! project root (same schema, any subset of keys; maps merge key by key, scalars
//! and lists replace). A bad override is a validation error naming the key.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_norway::Value;

use crate::ToolError;

/// The override file, relative to the project root.
pub const OVERRIDE_FILE: &str = "tsa-health.yml";

const DEFAULTS: &str = include_str!("defaults.yml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub size: f64,
    pub complexity: f64,
    pub dependencies: f64,
    pub coverage: f64,
    pub duplication: f64,
    pub structure: f64,
    pub git_hotspot: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct Grades {
    pub A: f64,
    pub B: f64,
    pub C: f64,
    pub D: f64,
}

/// A linear band: `good` or better scores 100, `bad` or worse 0.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub good: f64,
    pub bad: f64,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Steps {
    pub good: f64,
    pub mid: f64,
    pub high: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComplexityCfg {
    pub unknown_language: f64,
    pub many_functions: usize,
    pub average: Steps,
    pub total: Steps,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DependenciesCfg {
    pub fan_out: Band,
    pub fan_in: Band,
    pub out_weight: f64,
    pub in_weight: f64,
    pub fast: Band,
    pub unknown_language: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuplicationCfg {
    pub min_lines: usize,
    pub window: usize,
    pub good: f64,
    pub bad: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StructureCfg {
    pub good: f64,
    pub bad: f64,
    pub unknown_language: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GitCfg {
    pub days: u32,
    pub good: f64,
    pub bad: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignalCfg {
    pub healthy: f64,
    pub mid: f64,
}

/// What a smell rule measures.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    LineLength,
    SingleLineLength,
    FileLines,
    FunctionLines,
    FunctionComplexity,
    FunctionNesting,
    FunctionParameters,
    ClassMethods,
}

/// One smell rule: a value above `warning` is a smell, above `critical` a critical one.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmellRule {
    pub metric: Metric,
    pub warning: f64,
    pub critical: f64,
    #[serde(default)]
    pub penalty: f64,
    #[serde(default)]
    pub critical_penalty: f64,
    pub fix: String,
}

/// The whole health configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HealthConfig {
    pub weights: Weights,
    pub grades: Grades,
    pub size: Band,
    pub complexity: ComplexityCfg,
    pub dependencies: DependenciesCfg,
    pub duplication: DuplicationCfg,
    pub structure: StructureCfg,
    pub git_hotspot: GitCfg,
    pub signal: SignalCfg,
    pub smell_penalty_cap: f64,
    pub smells: BTreeMap<String, SmellRule>,
    /// Where the override came from (`None`: built-in defaults only).
    #[serde(skip)]
    pub source: Option<String>,
    /// Fingerprint of the effective configuration (for caches).
    #[serde(skip)]
    pub fingerprint: String,
}

fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Mapping(b), Value::Mapping(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) => merge(slot, v),
                    None => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

impl HealthConfig {
    /// The built-in defaults.
    pub fn defaults() -> Result<HealthConfig, ToolError> {
        Self::from_override_text(None, None)
    }

    /// Defaults merged with `<root>/tsa-health.yml` when it exists.
    pub fn load(root: &Path) -> Result<HealthConfig, ToolError> {
        // A file linked from outside the project reads as absent.
        let Some(path) = crate::security::inside_root(root, OVERRIDE_FILE) else {
            return Self::defaults();
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::from_override_text(Some(&text), Some(OVERRIDE_FILE)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::defaults(),
            Err(e) => Err(ToolError::Validation(format!(
                "cannot read {OVERRIDE_FILE}: {e}"
            ))),
        }
    }

    /// Defaults merged with an override document (the text of `tsa-health.yml`).
    pub fn from_override_text(
        text: Option<&str>,
        source: Option<&str>,
    ) -> Result<HealthConfig, ToolError> {
        let mut base: Value = serde_norway::from_str(DEFAULTS)
            .map_err(|e| ToolError::Internal(format!("built-in health defaults: {e}")))?;
        let name = source.unwrap_or(OVERRIDE_FILE);
        if let Some(text) = text {
            let over: Value = serde_norway::from_str(text)
                .map_err(|e| ToolError::Validation(format!("{name}: invalid YAML: {e}")))?;
            match over {
                Value::Null => {}
                Value::Mapping(_) => merge(&mut base, over),
                _ => {
                    return Err(ToolError::Validation(format!(
                        "{name}: the top level must be a mapping (keys: weights, grades, size, complexity, dependencies, duplication, structure, git_hotspot, signal, smell_penalty_cap, smells)"
                    )));
                }
            }
        }
        let fingerprint = blake3::hash(
            serde_norway::to_string(&base)
                .unwrap_or_default()
                .as_bytes(),
        )
        .to_hex()[..16]
            .to_owned();
        let mut cfg: HealthConfig = serde_path_to_error::deserialize(base).map_err(|e| {
            let path = e.path().to_string();
            ToolError::Validation(format!("{name}: key '{path}': {}", e.into_inner()))
        })?;
        cfg.source = source.map(str::to_owned);
        cfg.fingerprint = fingerprint;
        cfg.validate()
            .map_err(|m| ToolError::Validation(format!("{name}: {m}")))?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<(), String> {
        let w = &self.weights;
        let all = [
            w.size,
            w.complexity,
            w.dependencies,
            w.coverage,
            w.duplication,
            w.structure,
            w.git_hotspot,
        ];
        if all.iter().any(|x| !x.is_finite() || *x < 0.0) || all.iter().sum::<f64>() <= 0.0 {
            return Err("weights must be >= 0 and not all 0".into());
        }
        let g = &self.grades;
        if !(g.A > g.B && g.B > g.C && g.C > g.D && g.D >= 0.0 && g.A <= 100.0) {
            return Err("grades must satisfy 100 >= A > B > C > D >= 0".into());
        }
        let bands = [
            ("size", self.size),
            ("dependencies.fan_out", self.dependencies.fan_out),
            ("dependencies.fan_in", self.dependencies.fan_in),
            ("dependencies.fast", self.dependencies.fast),
            (
                "duplication",
                Band {
                    good: self.duplication.good,
                    bad: self.duplication.bad,
                },
            ),
            (
                "structure",
                Band {
                    good: self.structure.good,
                    bad: self.structure.bad,
                },
            ),
            (
                "git_hotspot",
                Band {
                    good: self.git_hotspot.good,
                    bad: self.git_hotspot.bad,
                },
            ),
        ];
        for (name, b) in bands {
            if b.good.is_nan() || b.bad.is_nan() || b.good >= b.bad {
                return Err(format!(
                    "{name}: good ({}) must be < bad ({})",
                    b.good, b.bad
                ));
            }
        }
        for (name, s) in [
            ("complexity.average", self.complexity.average),
            ("complexity.total", self.complexity.total),
        ] {
            if !(s.good < s.mid && s.mid < s.high) {
                return Err(format!("{name}: needs good < mid < high"));
            }
        }
        if self.duplication.window == 0 {
            return Err("duplication.window must be >= 1".into());
        }
        if self.signal.mid.partial_cmp(&self.signal.healthy) != Some(std::cmp::Ordering::Less) {
            return Err("signal: mid must be < healthy".into());
        }
        for (id, r) in &self.smells {
            if r.warning > r.critical {
                return Err(format!("smells.{id}: warning must be <= critical"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_load_and_match_the_spec() {
        let c = HealthConfig::defaults().unwrap();
        assert_eq!(c.weights.complexity, 25.0);
        assert_eq!(c.grades.A, 90.0);
        assert_eq!(c.size.bad, 2000.0);
        assert!(c.smells.contains_key("long_line"));
        assert!(c.source.is_none());
    }

    #[test]
    fn override_merges_a_subset() {
        let c = HealthConfig::from_override_text(
            Some("size: {good: 100}\nsmells:\n  long_line: {warning: 80}\n"),
            Some(OVERRIDE_FILE),
        )
        .unwrap();
        assert_eq!(c.size.good, 100.0);
        assert_eq!(c.size.bad, 2000.0);
        assert_eq!(c.smells["long_line"].warning, 80.0);
        assert_eq!(c.smells["long_line"].critical, 200.0);
        assert_ne!(c.fingerprint, HealthConfig::defaults().unwrap().fingerprint);
    }

    #[test]
    fn bad_overrides_are_clear_validation_errors() {
        let err = |t: &str| {
            HealthConfig::from_override_text(Some(t), Some(OVERRIDE_FILE))
                .unwrap_err()
                .to_string()
        };
        assert!(
            err("size: {good: big}").contains("size.good"),
            "{}",
            err("size: {good: big}")
        );
        assert!(err("sise: 3").contains("unknown field"));
        assert!(err("size: {good: 3000}").contains("good (3000) must be < bad"));
        assert!(err("- a\n- b").contains("top level must be a mapping"));
        assert!(err("grades: {A: 10}").contains("grades"));
        assert!(
            err("smells: {x: {metric: colour, warning: 1, critical: 2, fix: f}}")
                .contains("smells")
        );
        assert!(err(": : :").contains("invalid YAML"));
    }
}
