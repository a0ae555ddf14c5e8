//! Tokens a program in a pane cannot guess: the one source of nonces for
//! the whole crate.
//!
//! tmuxwire marks its own text in the stream tmux sends (fence lines,
//! record separators, paste-buffer names, `run_command`'s start and end
//! marks) with tokens a pane must not be able to print in advance, or it
//! could cut or forge an answer. A pane can see tokens already used (a
//! `run_command` mark is typed into the pane), so each one must tell
//! nothing about the next.
//!
//! Each draw hashes a process-wide counter with a fresh
//! [`RandomState`](std::collections::hash_map::RandomState): std's SipHash
//! keyed with 128 bits it reads from the operating system's random source
//! once per thread (and steps for each new `RandomState`). Without the key
//! the outputs are unpredictable, and the counter makes every input
//! distinct. This needs no `unsafe` and no crate of its own.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Inputs never repeat within a process.
static SEQ: AtomicU64 = AtomicU64::new(0);

/// 64 unpredictable bits.
pub fn u64() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(SEQ.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

/// 128 unpredictable bits (two independent draws).
pub fn u128() -> u128 {
    (u128::from(u64()) << 64) | u128::from(u64())
}

/// 64 unpredictable bits as 16 lowercase hex digits (`[0-9a-f]{16}`): safe
/// in tmux command arguments, format strings, buffer names and shell
/// words without quoting.
pub fn hex() -> String {
    format!("{:016x}", u64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_differ_and_hex_has_sixteen_digits() {
        let seen: std::collections::HashSet<u64> = (0..10_000).map(|_| u64()).collect();
        assert_eq!(seen.len(), 10_000);
        let h = hex();
        assert_eq!(h.len(), 16);
        assert!(
            h.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_ne!(u128() >> 64, u128() >> 64);
    }

    #[test]
    fn draws_on_other_threads_differ() {
        let here: Vec<u64> = (0..100).map(|_| u64()).collect();
        let there = std::thread::spawn(|| (0..100).map(|_| u64()).collect::<Vec<_>>())
            .join()
            .unwrap();
        assert!(here.iter().all(|x| !there.contains(x)));
    }
}
