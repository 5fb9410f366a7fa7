//! A small, fast, platform-independent 64-bit hash for "is this the same text as before?".
//!
//! Used for message-prefix fingerprints (to skip re-scanning unchanged messages) and record
//! identities (to ignore a record identical to one already executed). It is not a cryptographic
//! hash: a collision can at worst make the engine skip re-scanning an edited message, never run an
//! action twice (the per-workflow ledger keys actions by id). It gives the same value on wasm32 and
//! native, so saved state stays valid across both. Serialized as 16 hex digits, so a JS host never
//! sees a 64-bit number it cannot represent.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A 64-bit fingerprint of some bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fingerprint(pub u64);

const MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const SEED: u64 = 0x243F_6A88_85A3_08D3;

fn finish(mut x: u64) -> u64 {
    // A bijective avalanche step (xorshift-multiply), so nearby inputs give unrelated outputs.
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

impl Fingerprint {
    /// The fingerprint of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        let mut h = SEED ^ (bytes.len() as u64).wrapping_mul(MUL);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            h = (h ^ u64::from_le_bytes(word))
                .wrapping_mul(MUL)
                .rotate_left(29);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            for (slot, byte) in word.iter_mut().zip(rest) {
                *slot = *byte;
            }
            h = (h ^ u64::from_le_bytes(word))
                .wrapping_mul(MUL)
                .rotate_left(29);
        }
        Self(finish(h))
    }

    /// Combine with another fingerprint (order matters).
    pub fn with(self, other: Fingerprint) -> Self {
        Self(finish(self.0.rotate_left(17) ^ other.0.wrapping_mul(MUL)))
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        u64::from_str_radix(&text, 16)
            .map(Fingerprint)
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differs_on_small_changes_and_is_stable() {
        let a = Fingerprint::of(b"BAI_ACTION {\"a\":1}");
        let b = Fingerprint::of(b"BAI_ACTION {\"a\":2}");
        assert_ne!(a, b);
        assert_ne!(Fingerprint::of(b""), Fingerprint::of(b"\0"));
        assert_ne!(Fingerprint::of(b"abcdefgh"), Fingerprint::of(b"abcdefgh\0"));
        assert_eq!(a, Fingerprint::of(b"BAI_ACTION {\"a\":1}"));
        let json = serde_json::to_string(&a).unwrap();
        let back: Fingerprint = serde_json::from_str(&json).unwrap();
        assert_eq!(a, back);
    }
}
