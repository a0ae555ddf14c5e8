//! Literal and regex search over logical lines (pure, no I/O).
//!
//! # Brief overview
//!
//! The haystack is the text of a pane as *logical lines* (soft wraps
//! already joined): a `&[u8]` of lines separated by `\n`, where the last
//! line may or may not end with `\n` and bytes need not be valid UTF-8.
//! A [`Pattern`] is compiled once from a string and [`PatternOptions`], and
//! reports the lines that match as [`LineMatch`]es: the 0-based line index
//! and the byte range of the first match relative to the line start.
//!
//! * A case-sensitive literal is searched with `memchr::memmem` (near
//!   memory bandwidth).
//! * A case-insensitive ASCII literal is found by a SIMD prefilter on two
//!   of its bytes with ASCII case folded (`fold`), and the regex below
//!   settles each candidate's line.
//! * A case-insensitive literal or a regex uses `regex_automata`'s
//!   `meta::Regex`, after the regex has been rewritten so that it can never
//!   match `\n` (so one search over the whole buffer equals searching each
//!   line on its own), and with size limits against hostile patterns. A
//!   regex that is a plain literal still goes to `memmem`.
//! * The buffer is searched as a whole, not line by line: find a match,
//!   map it to its line, resume at the next line start. Line numbers come
//!   from counting `\n` between matches.
//!
//! Nothing here panics on any pattern or haystack, and every search runs in
//! time linear in the haystack.
//!
//! # Layout
//!
//! * `pattern`: [`Pattern`], [`PatternOptions`], compiling and searching.
//! * `strip`: rewriting a regex so no match contains `\n`.
//! * `fold`: the prefilter for case-insensitive ASCII literals.
//! * `lines`: [`LineMatch`] and the scan that maps matches to lines.
//! * `error`: [`PatternError`].
//!
//! # Example
//!
//! ```
//! use tmuxwire::search::{LineMatch, Pattern, PatternOptions};
//!
//! let pat = Pattern::new(r"^\s*error\b", PatternOptions::regex())?;
//! let hay = b"build\n  error: oops\nno error\nerror\n";
//! let lines: Vec<usize> = pat.find_lines(hay).iter().map(|m| m.line).collect();
//! assert_eq!(lines, [1, 3]);
//! # Ok::<(), tmuxwire::search::PatternError>(())
//! ```

#![deny(missing_docs)]
// One module (`fold`) loads SIMD vectors; nothing else may use `unsafe`.
#![deny(unsafe_code)]

mod error;
mod fold;
pub mod hit;
mod limits;
mod lines;
mod pattern;
mod strip;
#[cfg(test)]
mod tests;

pub use error::{PatternError, PatternErrorKind};
pub use limits::{HYBRID_CACHE_CAPACITY, MAX_PATTERN_CHARS, NEST_LIMIT, NFA_SIZE_LIMIT};
pub use lines::LineMatch;
pub use pattern::{Pattern, PatternOptions};
