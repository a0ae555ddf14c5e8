//! tmux version strings (`#{version}`) and what they imply. Pure.

use std::fmt;

use super::imsg::Framing;

/// A tmux server version as reported by `#{version}`.
///
/// Forms seen in the wild: `3.3a`, `3.5a`, `3.8`, `next-3.8` (builds from
/// git), `openbsd-7.7` (tmux in OpenBSD base, which uses the system imsg).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmuxVersion {
    raw: String,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A release or `next-` build: major, minor, and whether it is `next-`.
    Release { major: u32, minor: u32, next: bool },
    /// OpenBSD base: the OpenBSD release.
    OpenBsd { major: u32, minor: u32 },
    /// Anything else.
    Unknown,
}

/// The oldest tmux tmuxwire can drive: 3.2 is the first release where the
/// server reads and writes the passed fds of a control client itself.
pub const MIN_SUPPORTED: (u32, u32) = (3, 2);

/// Why a version is not usable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    /// A version older than [`MIN_SUPPORTED`].
    #[error("unsupported tmux version {0} (need ≥ 3.2)")]
    Unsupported(String),
}

/// Parses the leading `<digits>.<digits>` of `s`.
fn major_minor(s: &str) -> Option<(u32, u32)> {
    let (major, rest) = s.split_once('.')?;
    let major = major.parse().ok()?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((major, digits.parse().ok()?))
}

impl TmuxVersion {
    /// Parses a `#{version}` string (surrounding whitespace is ignored).
    /// Never fails: unrecognised strings are kept as "unknown".
    pub fn parse(s: &str) -> TmuxVersion {
        let raw = s.trim().to_string();
        let kind = if let Some(rest) = raw.strip_prefix("openbsd-") {
            major_minor(rest)
                .map(|(major, minor)| Kind::OpenBsd { major, minor })
                .unwrap_or(Kind::Unknown)
        } else if let Some(rest) = raw.strip_prefix("next-") {
            major_minor(rest)
                .map(|(major, minor)| Kind::Release {
                    major,
                    minor,
                    next: true,
                })
                .unwrap_or(Kind::Unknown)
        } else {
            major_minor(&raw)
                .map(|(major, minor)| Kind::Release {
                    major,
                    minor,
                    next: false,
                })
                .unwrap_or(Kind::Unknown)
        };
        TmuxVersion { raw, kind }
    }

    /// The version exactly as tmux reported it.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// `(major, minor)` for releases and `next-` builds; `None` for OpenBSD
    /// base and unrecognised versions.
    pub fn release(&self) -> Option<(u32, u32)> {
        match self.kind {
            Kind::Release { major, minor, .. } => Some((major, minor)),
            _ => None,
        }
    }

    /// True when this is at least `major.minor`. OpenBSD and unknown
    /// versions count as new (they track tmux master).
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        match self.kind {
            Kind::Release {
                major: a, minor: b, ..
            } => (a, b) >= (major, minor),
            Kind::OpenBsd { .. } | Kind::Unknown => true,
        }
    }

    /// Checks that tmuxwire can drive this server.
    ///
    /// # Errors
    ///
    /// [`VersionError::Unsupported`] for releases older than 3.2 (their
    /// control mode tunnels text through imsg or does not exist).
    pub fn check_supported(&self) -> Result<(), VersionError> {
        match self.kind {
            Kind::Release { major, minor, .. } if (major, minor) < MIN_SUPPORTED => {
                Err(VersionError::Unsupported(self.raw.clone()))
            }
            _ => Ok(()),
        }
    }

    /// True when this server leaks the text of every `capture-pane -p` run
    /// by a *control* client: tmux 3.2 to 3.5 free the capture buffer only
    /// for other clients (cmd-capture-pane.c; fixed in 3.6 by commit
    /// `94bafa5aa`, tmux issue 4590; OpenBSD base since 7.8). Unknown
    /// versions count as leaking, so callers take the safe path.
    pub fn leaks_control_captures(&self) -> bool {
        match self.kind {
            Kind::Release { major, minor, .. } => (major, minor) < (3, 6),
            Kind::OpenBsd { major, minor } => (major, minor) < (7, 8),
            Kind::Unknown => true,
        }
    }

    /// The imsg header layout of this server, or `None` when the version
    /// does not say (then try [`Framing::Old`] first, then
    /// [`Framing::New`]: the other order can hang an old server's client).
    ///
    /// tmux 3.6 switched to the new layout (commit `252f41818`); tmux in
    /// OpenBSD base uses the system imsg, which switched in OpenBSD 7.7.
    pub fn framing(&self) -> Option<Framing> {
        match self.kind {
            Kind::Release { major, minor, .. } => Some(if (major, minor) >= (3, 6) {
                Framing::New
            } else {
                Framing::Old
            }),
            Kind::OpenBsd { major, minor } => Some(if (major, minor) >= (7, 7) {
                Framing::New
            } else {
                Framing::Old
            }),
            Kind::Unknown => None,
        }
    }
}

impl fmt::Display for TmuxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> TmuxVersion {
        TmuxVersion::parse(s)
    }

    #[test]
    fn framing_by_version() {
        let old = ["3.2a", "3.3a", "3.4", "3.5a", "openbsd-7.6"];
        let new = [
            "3.6",
            "3.6a",
            "3.7c",
            "3.8",
            "next-3.8",
            "3.10",
            "openbsd-7.7",
        ];
        for (versions, want) in [(&old[..], Some(Framing::Old)), (&new, Some(Framing::New))] {
            for s in versions {
                assert_eq!(v(s).framing(), want, "{s}");
            }
        }
        assert_eq!(v("master").framing(), None);
        assert_eq!(v("").framing(), None);
    }

    #[test]
    fn capture_leak_versions() {
        for leaky in ["3.2a", "3.3a", "3.4", "3.5a", "openbsd-7.7", "master"] {
            assert!(v(leaky).leaks_control_captures(), "{leaky}");
        }
        for fixed in ["3.6", "3.6a", "3.7c", "3.8", "next-3.8", "openbsd-7.8"] {
            assert!(!v(fixed).leaks_control_captures(), "{fixed}");
        }
    }

    #[test]
    fn support_floor() {
        assert!(v("3.2").check_supported().is_ok());
        assert!(v("3.3a\n").check_supported().is_ok());
        assert!(v("openbsd-6.0").check_supported().is_ok());
        let e = v("3.1c").check_supported().unwrap_err();
        assert_eq!(e.to_string(), "unsupported tmux version 3.1c (need ≥ 3.2)");
        assert!(v("2.9a").check_supported().is_err());
        assert!(v("next-3.1").check_supported().is_err());
    }

    #[test]
    fn parse_keeps_raw() {
        assert_eq!(v(" 3.3a\n").as_str(), "3.3a");
        assert_eq!(v("3.3a").release(), Some((3, 3)));
        assert_eq!(v("next-3.8").release(), Some((3, 8)));
        assert!(v("3.4").at_least(3, 4));
        assert!(!v("3.3a").at_least(3, 4));
        assert_eq!(v("3.x").release(), None);
    }
}
