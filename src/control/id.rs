//! Object ids as tmux prints them: `$N` sessions, `@N` windows, `%N` panes.
//!
//! Ids are unique for the life of a server and never reused, unlike names
//! and indexes, so tmuxwire targets objects by id wherever it can.

use std::fmt;
use std::str::FromStr;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $sigil:literal, $byte:literal, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The sigil tmux prints before the number.
            pub const SIGIL: char = $sigil;

            /// Parses the id from bytes like `%12`.
            pub fn parse_bytes(b: &[u8]) -> Option<$name> {
                let digits = b.strip_prefix(&[$byte])?;
                if digits.is_empty() || digits.len() > 10 || !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                std::str::from_utf8(digits).ok()?.parse().ok().map($name)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", $sigil, self.0)
            }
        }

        impl FromStr for $name {
            type Err = IdError;

            fn from_str(s: &str) -> Result<$name, IdError> {
                $name::parse_bytes(s.as_bytes()).ok_or_else(|| IdError {
                    what: $what,
                    sigil: $sigil,
                    input: s.chars().take(40).collect(),
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}

id_type!(
    /// A session id, `$N`.
    SessionId,
    '$',
    b'$',
    "session id"
);
id_type!(
    /// A window id, `@N`.
    WindowId,
    '@',
    b'@',
    "window id"
);
id_type!(
    /// A pane id, `%N`.
    PaneId,
    '%',
    b'%',
    "pane id"
);

/// A string that is not an id of the expected kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a {what}: expected {sigil} followed by digits, like {sigil}0")]
pub struct IdError {
    what: &'static str,
    sigil: char,
    input: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        assert_eq!("%12".parse::<PaneId>().unwrap(), PaneId(12));
        assert_eq!(PaneId(3).to_string(), "%3");
        assert_eq!("@0".parse::<WindowId>().unwrap().to_string(), "@0");
        assert_eq!("$7".parse::<SessionId>().unwrap(), SessionId(7));
        for bad in ["", "%", "12", "%1a", "@1", "% 1", "%-1", "%99999999999"] {
            assert!(bad.parse::<PaneId>().is_err(), "{bad:?}");
        }
        let e = "x".parse::<SessionId>().unwrap_err().to_string();
        assert_eq!(
            e,
            "\"x\" is not a session id: expected $ followed by digits, like $0"
        );
    }
}
