//! The limits every pattern is built within; their own module so the
//! errors that cite them ([`super::error`]) and the builder that applies
//! them ([`super::pattern`]) both import them from below.

/// The longest accepted pattern, in characters (Unicode scalar values).
pub const MAX_PATTERN_CHARS: usize = 1000;

/// The most heap a regex's compiled NFA may use, in bytes (1 MiB). A
/// pattern over it fails with
/// [`PatternErrorKind::TooComplex`](super::PatternErrorKind::TooComplex).
pub const NFA_SIZE_LIMIT: usize = 1 << 20;

/// The capacity of one lazy DFA transition cache, in bytes (4 MiB). A
/// regex keeps one cache per thread searching with it at the same time.
pub const HYBRID_CACHE_CAPACITY: usize = 4 << 20;

/// The deepest nesting of groups, classes and repetitions a regex may have.
pub const NEST_LIMIT: u32 = 64;
