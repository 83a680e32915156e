//! The eight canonical verdicts and the normaliser for historical drift values.

use serde::{Serialize, Serializer};
use serde_json::Value;

/// The only verdicts a response can carry (envelope spec §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Safe,
    Caution,
    Review,
    Unsafe,
    Info,
    Warn,
    Error,
    NotFound,
}

impl Verdict {
    /// Every verdict, in the order of the contract's table.
    pub const ALL: [Verdict; 8] = [
        Verdict::Safe,
        Verdict::Caution,
        Verdict::Review,
        Verdict::Unsafe,
        Verdict::Info,
        Verdict::Warn,
        Verdict::Error,
        Verdict::NotFound,
    ];

    /// The exact wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "SAFE",
            Verdict::Caution => "CAUTION",
            Verdict::Review => "REVIEW",
            Verdict::Unsafe => "UNSAFE",
            Verdict::Info => "INFO",
            Verdict::Warn => "WARN",
            Verdict::Error => "ERROR",
            Verdict::NotFound => "NOT_FOUND",
        }
    }

    /// Parses a canonical string (case-sensitive); `None` for anything else.
    pub fn parse_canonical(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Normalises any value to a canonical verdict and never fails (spec §2.3):
    /// canonical strings pass through, `ok`/`clean` become SAFE, `warning` WARN,
    /// empty/`n/a`/`na`/`success` INFO, and everything else INFO.
    pub fn normalize(value: &Value) -> Verdict {
        let Value::String(s) = value else {
            return Verdict::Info;
        };
        if let Some(v) = Verdict::parse_canonical(s) {
            return v;
        }
        match s.trim().to_lowercase().as_str() {
            "clean" | "ok" => Verdict::Safe,
            "warning" => Verdict::Warn,
            _ => Verdict::Info,
        }
    }

    /// Severity in the change-impact / journal reconciliation order (envelope spec
    /// §2.1): SAFE = INFO = NOT_FOUND < CAUTION < REVIEW < WARN < ERROR < UNSAFE.
    pub const fn change_impact_rank(self) -> u8 {
        match self {
            Verdict::Safe | Verdict::Info | Verdict::NotFound => 0,
            Verdict::Caution => 1,
            Verdict::Review => 2,
            Verdict::Warn => 3,
            Verdict::Error => 4,
            Verdict::Unsafe => 5,
        }
    }

    /// One risk order for every verdict that comes from risk: none < low < medium < high.
    pub const fn from_impact(level: ImpactLevel) -> Verdict {
        match level {
            ImpactLevel::None => Verdict::Safe,
            ImpactLevel::Low => Verdict::Caution,
            ImpactLevel::Medium => Verdict::Review,
            ImpactLevel::High => Verdict::Unsafe,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Impact levels of the risk model, mapped monotonically onto verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ImpactLevel {
    None,
    Low,
    Medium,
    High,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalises_drift_values_per_spec_table() {
        let cases = [
            (Value::Null, "INFO"),
            (json!(3), "INFO"),
            (json!(true), "INFO"),
            (json!("SAFE"), "SAFE"),
            (json!("NOT_FOUND"), "NOT_FOUND"),
            (json!(""), "INFO"),
            (json!("n/a"), "INFO"),
            (json!("NA"), "INFO"),
            (json!(" success "), "INFO"),
            (json!("CLEAN"), "SAFE"),
            (json!("ok"), "SAFE"),
            (json!("OK"), "SAFE"),
            (json!("warning"), "WARN"),
            (json!("safe"), "INFO"),
            (json!("PATH_FOUND"), "INFO"),
            (json!("LOOKS_GOOD"), "INFO"),
            (json!("NEEDS_REVIEW"), "INFO"),
        ];
        for (input, want) in cases {
            assert_eq!(Verdict::normalize(&input).as_str(), want, "input {input}");
        }
    }

    #[test]
    fn change_impact_order_follows_the_spec() {
        let rank = |v: &str| Verdict::parse_canonical(v).unwrap().change_impact_rank();
        assert_eq!(rank("SAFE"), rank("INFO"));
        assert_eq!(rank("INFO"), rank("NOT_FOUND"));
        let order = ["SAFE", "CAUTION", "REVIEW", "WARN", "ERROR", "UNSAFE"];
        assert!(order.windows(2).all(|w| rank(w[0]) < rank(w[1])));
    }

    #[test]
    fn impact_mapping_is_monotonic() {
        let order = [
            ImpactLevel::None,
            ImpactLevel::Low,
            ImpactLevel::Medium,
            ImpactLevel::High,
        ];
        let verdicts: Vec<_> = order
            .iter()
            .map(|l| Verdict::from_impact(*l).as_str())
            .collect();
        assert_eq!(verdicts, ["SAFE", "CAUTION", "REVIEW", "UNSAFE"]);
    }
}
