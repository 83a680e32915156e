//! Extraction on arbitrary bytes, every registered language: the first byte picks
//! the language, the rest is the file. Runs the full extraction (definitions,
//! calls with receivers, bindings and locals, imports, bases) with health's facts
//! hook on the same tree, the declared return type of every definition, and
//! health's text facts (smells, duplication) on UTF-8 input. Nothing may panic,
//! and every position must lie inside the file.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tsa_lang::{FactsHook, Language, extract_with, return_type};
use tsa_tools::health::{HealthConfig, facts_hook, facts_of};

fn hook() -> &'static FactsHook {
    static HOOK: OnceLock<FactsHook> = OnceLock::new();
    HOOK.get_or_init(facts_hook)
}

fn config() -> &'static HealthConfig {
    static CONFIG: OnceLock<HealthConfig> = OnceLock::new();
    CONFIG.get_or_init(|| HealthConfig::defaults().expect("default health config"))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, src)) = data.split_first() else {
        return;
    };
    let lang = Language::ALL[pick as usize % Language::ALL.len()];
    let x = extract_with(lang, src, Some(hook())).expect("queries compile");
    let lines = src.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    for (i, d) in x.defs.iter().enumerate() {
        assert!(
            1 <= d.line && d.line <= d.end_line && d.end_line <= lines,
            "{d:?}"
        );
        assert!(
            d.start_byte <= d.end_byte && d.end_byte <= src.len(),
            "{d:?}"
        );
        assert!(d.parent.is_none_or(|p| p < x.defs.len() && p != i), "{d:?}");
        let _ = return_type(lang, &d.name, &d.signature);
    }
    for c in &x.calls {
        assert!(1 <= c.line && c.line <= lines, "{c:?}");
        assert!(c.enclosing.is_none_or(|e| e < x.defs.len()), "{c:?}");
    }
    for i in &x.imports {
        assert!(1 <= i.line && i.line <= lines, "{i:?}");
    }
    if let Ok(text) = std::str::from_utf8(src) {
        let ext = lang.extensions().first().copied().unwrap_or("txt");
        let _ = facts_of(&format!("f.{ext}"), text, config());
    }
});
