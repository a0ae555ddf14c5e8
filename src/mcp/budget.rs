//! The response budget: how much one tool answer may carry.
//!
//! An answer goes out as one JSON-RPC line that holds the result twice:
//! as `structuredContent`, and as the text blocks. The budget bounds each
//! (the structured result serialized, and the text blocks), in bytes, so
//! it bounds the characters of either view a model gets. By default it is
//! sized for a model ([`DEFAULT`]); a call asks for more with `max_bytes`
//! (up to [`CALL_CEILING`]), a server with `--response-budget`. The line is then at most 3 × the budget plus a small envelope:
//! once for `structuredContent`, and up to twice for the text block,
//! whose `"` and `\` are escaped again inside the JSON-RPC string. For
//! ordinary text it is close to 2 ×. [`CEILING`] keeps the worst case
//! under the 10 MiB a line may have before the TypeScript SDK closes the
//! connection.
//!
//! Each tool cuts its own way and says what it cut and how to get the
//! rest: a capture keeps its newest lines, a search its earlier panes and
//! each pane's newest lines, a list its first items. Most answers are cut
//! by [`crate::tmux::op::fit`] (through `op::run`); captures, `capture_since`
//! and searches also stop early as they read, and MCP's batches cut what
//! their operations answer (docs/ARCHITECTURE.md, "Where answers are
//! cut"). This module is the budget's configuration.

use crate::tmux::op::Limit;
pub use crate::tmux::op::fit::{drop_for_tail, head_within, json_len, json_str_len, tail_within};

/// The default budget: 40,000 bytes of answer, so that either view a
/// model gets of it (the structured content serialized, or the text
/// blocks) stays under the 50,000 characters at which Claude Code writes a
/// result to a file instead, and near its 10,000-token warning.
pub const DEFAULT: usize = 40_000;

/// The most one call may ask for with `max_bytes` when the server's
/// budget is smaller: 1 MiB.
pub const CALL_CEILING: usize = 1 << 20;

/// The largest budget accepted: 3 MiB (a JSON-RPC line of at most 9 MiB
/// plus its envelope).
pub const CEILING: usize = 3 << 20;

/// The smallest budget accepted: 16 KiB, so an answer always has room
/// for its metadata.
pub const FLOOR: usize = 16 << 10;

/// How many bytes of answer text one tool call may return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    bytes: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { bytes: DEFAULT }
    }
}

impl Budget {
    /// A budget of `bytes`, clamped to [`FLOOR`]`..=`[`CEILING`].
    pub fn new(bytes: usize) -> Budget {
        Budget {
            bytes: bytes.clamp(FLOOR, CEILING),
        }
    }

    /// The budget of one call that asks for `max_bytes`: that many bytes,
    /// at least [`FLOOR`], at most [`CALL_CEILING`] or the server's budget
    /// (`server`, `None` for callers without one) when that is larger.
    pub fn for_call(max_bytes: usize, server: Option<Budget>) -> Budget {
        let most = server.map_or(CALL_CEILING, |b| b.bytes().max(CALL_CEILING));
        Budget {
            bytes: max_bytes.clamp(FLOOR, most),
        }
    }

    /// The budget in bytes.
    pub fn bytes(self) -> usize {
        self.bytes
    }

    /// The budget as the operations take it.
    pub fn limit(self) -> Limit {
        Limit::bytes(self.bytes)
    }

    /// Parses a size: a number of bytes, optionally followed by `K`/`KiB`
    /// or `M`/`MiB` (powers of 1024; case-insensitive). The value is not
    /// clamped here (see [`Budget::new`]).
    ///
    /// # Errors
    ///
    /// A message naming what was wrong, for anything else.
    pub fn parse_size(s: &str) -> Result<usize, String> {
        let t = s.trim();
        let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (num, unit) = t.split_at(digits);
        let scale: usize = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "k" | "kb" | "kib" => 1 << 10,
            "m" | "mb" | "mib" => 1 << 20,
            _ => {
                return Err(format!(
                    "{s:?}: expected bytes, or a number with K/KiB or M/MiB"
                ));
            }
        };
        let n: usize = num
            .parse()
            .map_err(|_| format!("{s:?}: expected bytes, or a number with K/KiB or M/MiB"))?;
        n.checked_mul(scale)
            .ok_or_else(|| format!("{s:?}: too large"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(Budget::parse_size("1048576"), Ok(1 << 20));
        assert_eq!(Budget::parse_size("512K"), Ok(512 << 10));
        assert_eq!(Budget::parse_size("2MiB"), Ok(2 << 20));
        assert_eq!(Budget::parse_size(" 3 mb "), Ok(3 << 20));
        assert!(Budget::parse_size("1.5M").is_err());
        assert!(Budget::parse_size("lots").is_err());
        assert!(Budget::parse_size("").is_err());
        assert_eq!(Budget::new(1).bytes(), FLOOR);
        assert_eq!(Budget::new(usize::MAX).bytes(), CEILING);
        assert_eq!(Budget::default().bytes(), DEFAULT);
        assert_eq!(Budget::for_call(1, None).bytes(), FLOOR);
        assert_eq!(
            Budget::for_call(100_000, Some(Budget::default())).bytes(),
            100_000
        );
        assert_eq!(
            Budget::for_call(usize::MAX, Some(Budget::default())).bytes(),
            CALL_CEILING
        );
        assert_eq!(
            Budget::for_call(usize::MAX, Some(Budget::new(CEILING))).bytes(),
            CEILING
        );
    }
}
