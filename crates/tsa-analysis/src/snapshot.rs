//! Frozen diff snapshots' identities (`edit release_snapshot`): ids `ds_` + 32 and
//! leases `dl_` + 43 characters of `[A-Za-z0-9_-]`, a lease being
//! `dl_` + base64url (no padding) of HMAC-SHA256(process secret, snapshot id). This
//! build captures no snapshot, so none exists to release: a correctly signed release
//! of any id answers "already gone".

use std::sync::OnceLock;

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Why a release request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// An id or lease not of its format.
    Malformed(&'static str),
    /// A lease not signed for this id by this process.
    LeaseMismatch,
}

/// This process's signing secret (random per process).
fn secret() -> &'static [u8; 32] {
    static SECRET: OnceLock<[u8; 32]> = OnceLock::new();
    SECRET.get_or_init(|| {
        let seed = format!(
            "{:?}:{}:{:p}",
            std::time::SystemTime::now(),
            std::process::id(),
            &SECRET
        );
        *blake3::hash(seed.as_bytes()).as_bytes()
    })
}

/// HMAC-SHA256 of `msg` under this process's secret, ready for its last input.
fn signer(msg: &[u8]) -> Hmac<Sha256> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret())
        .expect("HMAC takes a key of any length");
    mac.update(msg);
    mac
}

/// The lease of snapshot `id` signed by this process.
pub fn lease_of(id: &str) -> String {
    let mac = signer(id.as_bytes()).finalize().into_bytes();
    format!(
        "dl_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac)
    )
}

fn well_formed(s: &str, prefix: &str, len: usize) -> bool {
    s.strip_prefix(prefix).is_some_and(|rest| {
        rest.len() == len
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// Checks a release: formats, then the lease (in constant time). `Ok(())`: the
/// release is the caller's; the snapshot is then gone (none is ever held here).
pub fn check_release(id: &str, lease: &str) -> Result<(), Refusal> {
    if !well_formed(id, "ds_", 32) {
        return Err(Refusal::Malformed(
            "diff_snapshot_id must be ds_ followed by 32 characters of [A-Za-z0-9_-]",
        ));
    }
    if !well_formed(lease, "dl_", 43) {
        return Err(Refusal::Malformed(
            "route_lease_id must be dl_ followed by 43 characters of [A-Za-z0-9_-]",
        ));
    }
    // 43 characters of base64url are 32 bytes, compared in constant time.
    let signed = lease
        .strip_prefix("dl_")
        .and_then(|b| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(b)
                .ok()
        })
        .is_some_and(|mac| signer(id.as_bytes()).verify_slice(&mac).is_ok());
    if signed {
        Ok(())
    } else {
        Err(Refusal::LeaseMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_lease_releases_and_others_are_refused() {
        let id = format!("ds_{}", "a".repeat(32));
        let lease = lease_of(&id);
        assert_eq!(lease.len(), 46);
        assert_eq!(check_release(&id, &lease), Ok(()));
        let other = format!("dl_{}", "b".repeat(43));
        assert_eq!(check_release(&id, &other), Err(Refusal::LeaseMismatch));
        // One character changed, or another id's lease: refused.
        let mut tampered = lease.clone().into_bytes();
        tampered[10] = if tampered[10] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert_eq!(check_release(&id, &tampered), Err(Refusal::LeaseMismatch));
        let id2 = format!("ds_{}", "c".repeat(32));
        assert_eq!(check_release(&id2, &lease), Err(Refusal::LeaseMismatch));
        // The lease is HMAC-SHA256 of the id under the process secret.
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret())
            .unwrap()
            .chain_update(id.as_bytes())
            .finalize()
            .into_bytes();
        assert_eq!(
            lease,
            format!(
                "dl_{}",
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac)
            )
        );
        assert!(matches!(
            check_release("ds_x", &lease),
            Err(Refusal::Malformed(_))
        ));
    }
}
