//! `edit release_snapshot`: releases a frozen diff snapshot by its id and signed
//! lease. This build captures no snapshot, so a correctly signed release answers
//! `released: true, expired: true` (nothing is held); a lease not signed for the id
//! by this process is refused.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tsa_analysis::snapshot::{Refusal, check_release};
use tsa_envelope::{ErrorType, Failure, Success, Verdict};

use crate::action::Action;
use crate::{Context, ToolError};

/// Arguments of `edit release_snapshot`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The snapshot's id (`ds_` + 32 characters).
    #[schemars(length(max = 64))]
    pub diff_snapshot_id: String,
    /// Its lease (`dl_` + 43 characters).
    #[schemars(length(max = 64))]
    pub route_lease_id: String,
}

pub struct ReleaseSnapshot;

impl Action for ReleaseSnapshot {
    type Args = Args;
    const FACADE: &'static str = "edit";
    const NAME: &'static str = "release_snapshot";
    const SUMMARY: &'static str = "release a frozen diff snapshot by id and signed lease (idempotent; expired tells it was already gone)";
    const BRIEF: &'static str = "release a diff snapshot";

    fn run(&self, _ctx: &Context, args: Args) -> Result<Success, ToolError> {
        let id = args.diff_snapshot_id.as_str();
        if let Err(r) = check_release(id, &args.route_lease_id) {
            let (code, error) = match r {
                Refusal::Malformed(why) => ("DIFF_SNAPSHOT_ID_INVALID", why.to_owned()),
                Refusal::LeaseMismatch => (
                    "DIFF_SNAPSHOT_LEASE_MISMATCH",
                    "route_lease_id was not issued for this diff_snapshot_id by this server process".to_owned(),
                ),
            };
            return Err(ToolError::Coded(Box::new(
                Failure::new(ErrorType::Validation, error)
                    .with_hint("Pass the diff_snapshot_id and route_lease_id exactly as the capturing call returned them, to the same server process.")
                    .with("error_code", code)
                    .with("diff_snapshot_id", id),
            )));
        }
        let mut s = Success::new(
            Verdict::Info,
            format!("release_snapshot {id}: already gone"),
        );
        s.insert("diff_snapshot_id", json!(id));
        s.insert("released", json!(true));
        s.insert("expired", json!(true));
        Ok(s.with_next_step(
            "Nothing to release: the snapshot had expired or was released already.",
        ))
    }
}
