//! Frozen diff snapshots' identities (`edit release_snapshot`): ids `ds_` + 32 and
//! leases `dl_` + 43 characters of `[A-Za-z0-9_-]`, a lease being
//! `dl_` + base64url (no padding) of HMAC-SHA256(process secret, snapshot id). This
//! build captures no snapshot, so none exists to release: a correctly signed release
//! of any id answers "already gone".

use std::sync::OnceLock;

use base64::Engine;
use sha2::{Digest, Sha256};

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

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// The lease of snapshot `id` signed by this process.
pub fn lease_of(id: &str) -> String {
    let mac = hmac_sha256(secret(), id.as_bytes());
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
    let want = lease_of(id);
    let same = want.len() == lease.len()
        && want
            .bytes()
            .zip(lease.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if same {
        Ok(())
    } else {
        Err(Refusal::LeaseMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_signed_lease_releases_and_others_are_refused() {
        let id = format!("ds_{}", "a".repeat(32));
        let lease = lease_of(&id);
        assert_eq!(lease.len(), 46);
        assert_eq!(check_release(&id, &lease), Ok(()));
        let other = format!("dl_{}", "b".repeat(43));
        assert_eq!(check_release(&id, &other), Err(Refusal::LeaseMismatch));
        assert!(matches!(
            check_release("ds_x", &lease),
            Err(Refusal::Malformed(_))
        ));
    }
}
