//! The agent envelope contract as types: the closed verdict alphabet, success and
//! failure envelopes whose invariants hold by construction, and honest truncation.
//!
//! Nothing here knows about TOON, MCP or the CLI: an [`Envelope`] becomes a JSON
//! object with [`Envelope::to_json`], and the format layer takes it from there.

mod envelope;
mod error_type;
mod truncation;
mod verdict;

pub use envelope::{Envelope, Failure, ListLink, Success};
pub use error_type::ErrorType;
pub use truncation::{Capped, ListSpelling, with_reach};
pub use verdict::{ImpactLevel, Verdict};

/// The keys that survive `compact_only` (envelope spec §7.3), in contract order.
pub const CONTROL_SURFACE: [&str; 13] = [
    "success",
    "format",
    "toon_content",
    "verdict",
    "error",
    "error_type",
    "output_format",
    "summary_line",
    "hint",
    "file_path",
    "pr_url",
    "pr_number",
    "deprecation",
];

/// Keys the envelope owns. A payload can never set them: the envelope writes them itself.
pub const RESERVED_KEYS: [&str; 13] = [
    "success",
    "error",
    "error_type",
    "error_category",
    "hint",
    "recovery_hint",
    "verdict",
    "summary_line",
    "next_step",
    "agent_summary",
    "warnings",
    "truncated",
    "next_cursor",
];
