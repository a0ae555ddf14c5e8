//! The error returned when a search pattern cannot be compiled.

use std::fmt;

use super::limits::MAX_PATTERN_CHARS;

/// An error that occurred while compiling a [`Pattern`](super::Pattern).
///
/// The type is opaque: match on [`PatternError::kind`] to tell the cases
/// apart. The [`Display`](fmt::Display) message says what is wrong and what
/// to do about it, so it can be shown as is to a person or a model. It never
/// contains more of the pattern than the regex parser quotes, and patterns
/// are at most [`MAX_PATTERN_CHARS`] characters long, so the message is
/// bounded (a few KiB at most).
#[derive(Clone, Debug)]
pub struct PatternError {
    kind: ErrorKind,
}

/// The broad class of a [`PatternError`], for callers that branch on it
/// (for example to fill an MCP error's `error_type`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PatternErrorKind {
    /// The pattern is the empty string.
    Empty,
    /// The pattern is longer than [`MAX_PATTERN_CHARS`] characters.
    TooLong,
    /// The pattern is not a valid regex (regex mode only). This includes
    /// patterns nested more than 64 groups deep.
    Syntax,
    /// The pattern can only match by matching a line break (`\n`), which
    /// never happens because logical lines are searched one at a time.
    LineBreak,
    /// The compiled pattern would exceed the size limit
    /// ([`PatternError::size_limit`] says which, in bytes).
    TooComplex,
    /// Any other failure to build the matcher.
    Other,
}

/// The private detail behind a [`PatternError`]; each variant's payload is
/// what its message needs.
#[derive(Clone, Debug, thiserror::Error)]
enum ErrorKind {
    #[error("pattern must not be empty")]
    Empty,
    /// `chars` is the pattern's length in Unicode scalar values.
    #[error(
        "pattern is longer than {max} characters (it has {chars}); \
         search for a shorter, distinctive part of it",
        max = MAX_PATTERN_CHARS
    )]
    TooLong { chars: usize },
    /// The payload is regex-syntax's own (possibly multi-line) message,
    /// which quotes the pattern and points at the offending part.
    #[error("invalid regex pattern: {0}")]
    Syntax(String),
    #[error(
        "a pattern cannot match a line break: logical lines are searched \
         one at a time; search for the text of one line instead"
    )]
    LineBreak,
    /// `limit` is the size limit in bytes that was exceeded.
    #[error(
        "pattern is too complex: its compiled form exceeds the {limit} byte \
         size limit; use a simpler pattern (smaller repetition counts such \
         as {{1000}}, fewer or ASCII-only classes such as [0-9] instead of \
         \\d) or a literal (non-regex) search"
    )]
    TooBig { limit: usize },
    /// The payload is the underlying builder's message.
    #[error("could not compile pattern: {0}")]
    Build(String),
}

impl PatternError {
    pub(crate) fn empty() -> PatternError {
        PatternError {
            kind: ErrorKind::Empty,
        }
    }

    pub(crate) fn too_long(chars: usize) -> PatternError {
        PatternError {
            kind: ErrorKind::TooLong { chars },
        }
    }

    pub(crate) fn syntax(err: &regex_syntax::Error) -> PatternError {
        PatternError {
            kind: ErrorKind::Syntax(err.to_string()),
        }
    }

    pub(crate) fn line_break() -> PatternError {
        PatternError {
            kind: ErrorKind::LineBreak,
        }
    }

    pub(crate) fn build(err: &regex_automata::meta::BuildError) -> PatternError {
        if let Some(limit) = err.size_limit() {
            return PatternError {
                kind: ErrorKind::TooBig { limit },
            };
        }
        if let Some(err) = err.syntax_error() {
            return PatternError::syntax(err);
        }
        PatternError {
            kind: ErrorKind::Build(err.to_string()),
        }
    }

    /// Returns the class of this error.
    pub fn kind(&self) -> PatternErrorKind {
        match self.kind {
            ErrorKind::Empty => PatternErrorKind::Empty,
            ErrorKind::TooLong { .. } => PatternErrorKind::TooLong,
            ErrorKind::Syntax(_) => PatternErrorKind::Syntax,
            ErrorKind::LineBreak => PatternErrorKind::LineBreak,
            ErrorKind::TooBig { .. } => PatternErrorKind::TooComplex,
            ErrorKind::Build(_) => PatternErrorKind::Other,
        }
    }

    /// For a [`PatternErrorKind::TooComplex`] error, the size limit in bytes
    /// that the compiled pattern exceeded (the NFA limit,
    /// [`NFA_SIZE_LIMIT`](super::NFA_SIZE_LIMIT)); `None` for every other
    /// kind.
    pub fn size_limit(&self) -> Option<usize> {
        match self.kind {
            ErrorKind::TooBig { limit } => Some(limit),
            _ => None,
        }
    }

    /// For a [`PatternErrorKind::TooLong`] error, the pattern's length in
    /// characters (Unicode scalar values); `None` for every other kind.
    pub fn pattern_chars(&self) -> Option<usize> {
        match self.kind {
            ErrorKind::TooLong { chars } => Some(chars),
            _ => None,
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for PatternError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(
            PatternError::empty().to_string(),
            "pattern must not be empty"
        );
        assert_eq!(
            PatternError::too_long(1001).to_string(),
            "pattern is longer than 1000 characters (it has 1001); \
             search for a shorter, distinctive part of it"
        );
        assert!(
            PatternError::line_break()
                .to_string()
                .starts_with("a pattern cannot match a line break: ")
        );
        let big = PatternError {
            kind: ErrorKind::TooBig { limit: 1 << 20 },
        };
        assert!(big.to_string().contains("1048576 byte size limit"));
        assert!(big.to_string().contains("{1000}"));
        assert_eq!(big.kind(), PatternErrorKind::TooComplex);
        assert_eq!(big.size_limit(), Some(1 << 20));
        assert_eq!(PatternError::too_long(5).pattern_chars(), Some(5));
        assert_eq!(PatternError::empty().size_limit(), None);
    }
}
