//! A prefilter for case-insensitive ASCII literals.
//!
//! `regex_automata` searches a case-insensitive literal with a Teddy
//! prefilter at about a third of the speed `memmem` reaches on the same
//! text. This module finds the places such a literal can match at close to
//! `memmem` speed: two bytes of the needle, a fixed distance apart, compared
//! with ASCII case folded (`byte | 0x20` for letters, exact otherwise), 32
//! positions at a time (16 without AVX2). The regex then decides, on the one line a candidate
//! is in, where (and whether) the leftmost match is, so results are exactly
//! the regex's.
//!
//! # Which bytes can be used
//!
//! Under Unicode simple case folding (what `(?i)` means in
//! `regex_syntax`), `k` also matches U+212A KELVIN SIGN and `s` U+017F
//! LATIN SMALL LETTER LONG S, which are several bytes long. A needle byte is
//! *fixed* when every character `(?i)` lets it match is that byte or its
//! ASCII case partner (this is asked of `regex_syntax`, not assumed). The
//! two bytes compared, and every needle byte between them, must be fixed:
//! then any match has them at the same distance, and every match gives a
//! candidate. Needles that are not ASCII, or have no fixed byte, are left to
//! the regex.

use regex_syntax::hir::{Class, HirKind};

/// Two needle bytes to look for, `distance` bytes apart.
#[derive(Clone, Debug)]
pub(crate) struct FoldedPair {
    /// Offset in the needle of the first byte compared.
    offset: usize,
    /// Bytes from the first byte compared to the second.
    distance: usize,
    /// Each byte, lowercased, and the bits set before comparing (0x20 for
    /// a letter, so `A` and `a` both give `a`; 0 otherwise).
    first: (u8, u8),
    second: (u8, u8),
    /// The needle, lowercased.
    needle: Vec<u8>,
    /// Some needle character also matches a character of several bytes
    /// (`k`, `s`): a window that differs from the needle byte for byte may
    /// still hold a match.
    wide_variants: bool,
    /// The adjacent needle bytes every match holds side by side (both
    /// fixed), lower case.
    pairs: Vec<(u8, u8)>,
}

impl FoldedPair {
    /// The pair for a case-insensitive literal `needle`, or `None` when
    /// it is not ASCII or has no byte every match holds at a fixed place.
    pub(crate) fn new(needle: &str) -> Option<FoldedPair> {
        if needle.is_empty() || !needle.is_ascii() {
            return None;
        }
        let bytes = needle.as_bytes();
        let fixed: Vec<bool> = bytes.iter().map(|&b| is_fixed(b)).collect();
        // The best pair inside each run of fixed bytes: the two rarest.
        let mut best: Option<(u32, usize, usize)> = None;
        let mut i = 0;
        while i < bytes.len() {
            if !fixed[i] {
                i += 1;
                continue;
            }
            let run_start = i;
            while i < bytes.len() && fixed[i] {
                i += 1;
            }
            let mut by_rank: Vec<usize> = (run_start..i).collect();
            by_rank.sort_by_key(|&k| (rank(bytes[k]), k));
            let a = by_rank[0];
            let b = by_rank.get(1).copied().unwrap_or(a);
            let score = u32::from(rank(bytes[a])) + u32::from(rank(bytes[b]));
            if best.is_none_or(|(s, _, _)| score < s) {
                best = Some((score, a.min(b), a.max(b)));
            }
        }
        let (_, a, b) = best?;
        let fold = |c: u8| {
            if c.is_ascii_alphabetic() {
                (c.to_ascii_lowercase(), 0x20)
            } else {
                (c, 0)
            }
        };
        Some(FoldedPair {
            offset: a,
            distance: b - a,
            first: fold(bytes[a]),
            second: fold(bytes[b]),
            needle: needle.to_ascii_lowercase().into_bytes(),
            wide_variants: fixed.iter().any(|f| !f),
            pairs: (1..bytes.len())
                .filter(|&i| fixed[i - 1] && fixed[i])
                .map(|i| {
                    (
                        bytes[i - 1].to_ascii_lowercase(),
                        bytes[i].to_ascii_lowercase(),
                    )
                })
                .collect(),
        })
    }

    /// Pairs of adjacent bytes every match holds side by side, ASCII
    /// letters in lower case (a match may hold them in either case).
    pub(crate) fn pairs(&self) -> &[(u8, u8)] {
        &self.pairs
    }

    /// Whether the line `line`, in which [`FoldedPair::find`] gave the
    /// candidate `at` (an index into `line`), is worth handing to the
    /// regex: the needle is there at `at` ignoring ASCII case, or a
    /// character of several bytes could make a match the bytes hide.
    pub(crate) fn confirm(&self, line: &[u8], at: usize) -> bool {
        if self.wide_variants && memchr::memchr2(0xe2, 0xc5, line).is_some() {
            // U+212A is E2 84 AA, U+017F is C5 BF.
            return true;
        }
        at.checked_sub(self.offset)
            .and_then(|s| line.get(s..s + self.needle.len()))
            .is_some_and(|w| w.eq_ignore_ascii_case(&self.needle))
    }

    /// The first position `p` in `from..` where the first byte is at `p`
    /// and the second at `p + distance`, both inside `hay[..end]`.
    pub(crate) fn find(&self, hay: &[u8], from: usize, end: usize) -> Option<usize> {
        let end = end.min(hay.len());
        // Candidates p satisfy p + distance < end.
        let last = end.checked_sub(self.distance)?;
        let mut p = from;
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(found) = x86::find_simd(self, hay, &mut p, last) {
                return Some(found);
            }
        }
        while p < last {
            if self.at(hay, p) {
                return Some(p);
            }
            p += 1;
        }
        None
    }

    /// Whether both bytes match at `p` (`p + distance` in bounds).
    fn at(&self, hay: &[u8], p: usize) -> bool {
        let (a, b) = (hay[p], hay[p + self.distance]);
        a | self.first.1 == self.first.0 && b | self.second.1 == self.second.0
    }
}

/// Whether `(?i)b` matches only `b` and its ASCII case partner.
fn is_fixed(b: u8) -> bool {
    if !b.is_ascii_alphabetic() {
        return true;
    }
    let pattern = format!("(?i){}", char::from(b));
    let Ok(hir) = regex_syntax::Parser::new().parse(&pattern) else {
        return false;
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => c.ranges().iter().all(|r| r.end().is_ascii()),
        HirKind::Class(Class::Bytes(c)) => c.ranges().iter().all(|r| r.end().is_ascii()),
        HirKind::Literal(_) => true,
        _ => false,
    }
}

/// How common a byte is in terminal text, case folded (higher: more
/// common). A rough order measured on log and shell output (timestamps,
/// `key=value` pairs, `ls -l`): the rarest pair of needle bytes gives the
/// fewest candidates.
fn rank(b: u8) -> u8 {
    match b.to_ascii_lowercase() {
        b' ' => 255,
        b'0'..=b'9' => 240,
        b'e' | b't' | b'r' => 235,
        b'a' | b'i' | b'm' | b'-' | b':' | b',' => 225,
        b's' | b'o' | b'=' => 215,
        b'n' | b'l' | b'd' | b'c' | b'u' | b'f' | b'z' | b'.' | b'/' => 200,
        b'b' | b'p' | b'h' | b'g' => 180,
        b'k' | b'q' | b'w' => 150,
        b'y' | b'v' | b'\t' | b'"' | b'[' | b']' | b'(' | b')' => 130,
        b'x' | b'j' | b'\'' => 110,
        _ => 90,
    }
}

/// The 16- and 32-at-a-time searches (SSE2 is part of every x86_64 CPU;
/// AVX2 is used when the CPU has it).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };

    use super::FoldedPair;

    /// 16 bytes as a vector.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(b: &[u8; 16]) -> __m128i {
        // SAFETY: `b` is 16 readable bytes, and `_mm_loadu_si128` has no
        // alignment requirement.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }

    /// [`find_avx2`] when the CPU has AVX2 (checked once, then cached by
    /// `std`), else [`find`]; callable from code compiled without either
    /// listed.
    pub(super) fn find_simd(
        pair: &FoldedPair,
        hay: &[u8],
        p: &mut usize,
        last: usize,
    ) -> Option<usize> {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (just checked).
            return unsafe { find_avx2(pair, hay, p, last) };
        }
        // SAFETY: SSE2 is part of every x86_64 CPU (a baseline target
        // feature), so `find`'s requirement always holds.
        unsafe { find(pair, hay, p, last) }
    }

    /// 32 bytes as a vector.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load32(b: &[u8; 32]) -> __m256i {
        // SAFETY: `b` is 32 readable bytes, and `_mm256_loadu_si256` has no
        // alignment requirement.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    }

    /// [`find`] 32 positions at a time, then [`find`] for the rest.
    #[target_feature(enable = "avx2")]
    fn find_avx2(pair: &FoldedPair, hay: &[u8], p: &mut usize, last: usize) -> Option<usize> {
        let first = _mm256_set1_epi8(pair.first.0 as i8);
        let first_bits = _mm256_set1_epi8(pair.first.1 as i8);
        let second = _mm256_set1_epi8(pair.second.0 as i8);
        let second_bits = _mm256_set1_epi8(pair.second.1 as i8);
        let d = pair.distance;
        macro_rules! mask_at {
            ($at:expr) => {{
                let at: usize = $at;
                let a = load32(hay.get(at..)?.first_chunk::<32>()?);
                let b = load32(hay.get(at + d..)?.first_chunk::<32>()?);
                let eq = _mm256_and_si256(
                    _mm256_cmpeq_epi8(_mm256_or_si256(a, first_bits), first),
                    _mm256_cmpeq_epi8(_mm256_or_si256(b, second_bits), second),
                );
                _mm256_movemask_epi8(eq) as u32
            }};
        }
        while *p + 64 <= last {
            let (lo, hi) = (mask_at!(*p), mask_at!(*p + 32));
            if lo | hi != 0 {
                let m = u64::from(lo) | (u64::from(hi) << 32);
                return Some(*p + m.trailing_zeros() as usize);
            }
            *p += 64;
        }
        find(pair, hay, p, last)
    }

    /// Searches `*p..last` in blocks of 16 positions; returns the first
    /// candidate, or leaves `*p` at the first position not yet looked at.
    #[target_feature(enable = "sse2")]
    fn find(pair: &FoldedPair, hay: &[u8], p: &mut usize, last: usize) -> Option<usize> {
        let first = _mm_set1_epi8(pair.first.0 as i8);
        let first_bits = _mm_set1_epi8(pair.first.1 as i8);
        let second = _mm_set1_epi8(pair.second.0 as i8);
        let second_bits = _mm_set1_epi8(pair.second.1 as i8);
        let d = pair.distance;
        // The candidates among the 16 positions from `at`, as bits.
        macro_rules! mask_at {
            ($at:expr) => {{
                let at: usize = $at;
                let a = load(hay.get(at..)?.first_chunk::<16>()?);
                let b = load(hay.get(at + d..)?.first_chunk::<16>()?);
                let eq = _mm_and_si128(
                    _mm_cmpeq_epi8(_mm_or_si128(a, first_bits), first),
                    _mm_cmpeq_epi8(_mm_or_si128(b, second_bits), second),
                );
                _mm_movemask_epi8(eq) as u32
            }};
        }
        // Blocks of 32 positions, then of 16, while the whole block is
        // before `last` (so `at + d + 16 <= end`).
        while *p + 32 <= last {
            let (lo, hi) = (mask_at!(*p), mask_at!(*p + 16));
            if lo | hi != 0 {
                let m = lo | (hi << 16);
                return Some(*p + m.trailing_zeros() as usize);
            }
            *p += 32;
        }
        while *p + 16 <= last {
            let m = mask_at!(*p);
            if m != 0 {
                return Some(*p + m.trailing_zeros() as usize);
            }
            *p += 16;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every candidate position, the slow way.
    fn naive(pair: &FoldedPair, hay: &[u8]) -> Vec<usize> {
        (0..hay.len().saturating_sub(pair.distance))
            .filter(|&p| pair.at(hay, p))
            .collect()
    }

    fn all(pair: &FoldedPair, hay: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(p) = pair.find(hay, from, hay.len()) {
            out.push(p);
            from = p + 1;
        }
        out
    }

    #[test]
    fn fixed_bytes() {
        assert!(is_fixed(b'a') && is_fixed(b'Z') && is_fixed(b'-') && is_fixed(b'7'));
        assert!(!is_fixed(b'k') && !is_fixed(b'K') && !is_fixed(b's') && !is_fixed(b'S'));
    }

    #[test]
    fn pairs() {
        assert!(FoldedPair::new("").is_none());
        assert!(FoldedPair::new("ünï").is_none());
        assert!(FoldedPair::new("sks").is_none());
        let p = FoldedPair::new("MCPB-ABSENT-x1").unwrap();
        // Inside a run of fixed bytes, never across the S.
        let (a, b) = (p.offset, p.offset + p.distance);
        assert!(!"MCPB-ABSENT-x1"[a..=b].contains('S'));
        let one = FoldedPair::new("sQs").unwrap();
        assert_eq!((one.offset, one.distance), (1, 0));
    }

    #[test]
    fn find_equals_naive() {
        let mut rng = fastrand::Rng::with_seed(3);
        let alphabet = b"aAbBqQxX-1 \n\xe2\x84\xaa";
        for _ in 0..2000 {
            let needle: String = (0..rng.usize(1..6))
                .map(|_| char::from(b"abqxABQX-1s"[rng.usize(..11)]))
                .collect();
            let Some(pair) = FoldedPair::new(&needle) else {
                continue;
            };
            let hay: Vec<u8> = (0..rng.usize(0..200))
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            assert_eq!(
                all(&pair, &hay),
                naive(&pair, &hay),
                "{needle:?} in {hay:?}"
            );
        }
    }
}
