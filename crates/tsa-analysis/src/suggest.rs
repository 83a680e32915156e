//! "Did you mean": the closest candidate from a fixed list of names (tools,
//! actions, parameters, DSL steps, pseudo-classes), compared on the input's first
//! [`SHOWN_CHARS`] characters only.

/// Most characters of a received value an error message shows.
pub const SHOWN_CHARS: usize = 64;

/// The closest candidate by normalised edit distance (>= 0.6), if any. Only the
/// input's first 64 characters are compared (candidates are names from a fixed
/// list), so the cost never grows with the input.
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let input = clip(input);
    candidates
        .into_iter()
        .map(|c| {
            let prefix = !input.is_empty() && (c.starts_with(input) || input.starts_with(c));
            let score = strsim::normalized_levenshtein(input, c);
            (if prefix { score.max(0.8) } else { score }, c)
        })
        .filter(|(s, _)| *s >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The first [`SHOWN_CHARS`] characters of `s`.
pub fn clip(s: &str) -> &str {
    match s.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}
