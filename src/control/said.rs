//! tmux's own words when a command fails or a client cannot reach a
//! server, classified in one place. Pure: every caller that must tell
//! one of tmux's errors from another (the [`crate::tmux::Error`] kinds,
//! the seed, the paste buffers, the options, the CLI, the ssh transport)
//! asks [`said`] instead of matching the text itself.
//!
//! The texts are tmux's, the same in 3.3a, 3.5a and 3.8 (the tests hold
//! each version's, read from its binary and source):
//!
//! * cmd-find.c: `can't find session: NAME` (`window`, `pane`, `client`;
//!   `can't find last session`, `next`, `previous`), `no such session:
//!   NAME` (`window`, `pane`), `no current session` (`window`, `pane`,
//!   `client`, `target`); cmd-list-sessions.c and others: `no sessions`;
//! * tmux's other `… not found` (`hook NAME not found`, `format 'F' not
//!   found`, `index not found`, `not found in key table T`);
//! * paste buffers: `unknown buffer: NAME` (cmd-set-buffer.c, 3.5a on;
//!   Debian's 3.3a too), `no buffer NAME`, `no buffer`, `no buffers`
//!   (cmd-paste-buffer.c, cmd-save-buffer.c, paste.c);
//! * options: `invalid option: NAME` (options.c, cmd-show-options.c);
//! * the client (client.c): `no server running on PATH`, `error
//!   connecting to PATH (No such file or directory)` or `(Connection
//!   refused)`; `… (Permission denied)` and the server's `access not
//!   allowed` (server.c, cmd-server-access.c).
//!
//! An answer may hold several lines (a command list's errors): the first
//! line tmux's words classify decides.

/// The kind of object a "can't find" or "no such" names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// A session.
    Session,
    /// A window.
    Window,
    /// A pane.
    Pane,
}

/// What tmux said, classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said<'a> {
    /// Something named does not exist: `can't find …`, `no such …` or
    /// `… not found`; with the object and its name when tmux gave them
    /// as `can't find session|window|pane: NAME`.
    NotFound(Option<(Object, &'a str)>),
    /// Nothing to default to: `no current session` (`window`, `pane`,
    /// `client`, `target`).
    NoCurrent,
    /// The server has no sessions: `no sessions`.
    NoSessions,
    /// A paste buffer that does not exist: `unknown buffer: NAME`, `no
    /// buffer NAME`, `no buffer`, `no buffers`.
    NoBuffer,
    /// An option tmux does not know, or a user option not set: `invalid
    /// option: NAME`.
    InvalidOption,
    /// No server listens on the socket (client.c).
    NoServer,
    /// The server refuses this user: `error connecting to PATH
    /// (Permission denied)` (client.c), `access not allowed` (server.c,
    /// server-acl; printed by the client as its exit message).
    Denied,
    /// Anything else.
    Other,
}

impl Said<'_> {
    /// True for an object that does not exist or nothing to default to
    /// ([`Said::NotFound`], [`Said::NoCurrent`], [`Said::NoSessions`]):
    /// what [`crate::tmux::ErrorKind::NotFound`] covers.
    pub fn is_missing(self) -> bool {
        matches!(self, Said::NotFound(_) | Said::NoCurrent | Said::NoSessions)
    }
}

/// Classifies `text`, an error tmux printed (an `%error` block, a
/// one-shot client's output or a client's complaint on stderr): its first
/// line that tmux's words classify decides; [`Said::Other`] when none
/// does. Case is ignored, leading and trailing blanks too.
pub fn said(text: &str) -> Said<'_> {
    text.lines()
        .map(line)
        .find(|s| *s != Said::Other)
        .unwrap_or(Said::Other)
}

/// One line of tmux's answer, classified.
fn line(l: &str) -> Said<'_> {
    let l = l.trim();
    let lower = l.to_ascii_lowercase();
    let starts = |p: &str| lower.starts_with(p);
    if starts("no server running on")
        || (starts("error connecting to")
            && (lower.ends_with("(no such file or directory)")
                || lower.ends_with("(connection refused)")))
    {
        Said::NoServer
    } else if lower.contains("permission denied") || lower.contains("access not allowed") {
        Said::Denied
    } else if starts("unknown buffer") || starts("no buffer") {
        Said::NoBuffer
    } else if starts("invalid option") {
        Said::InvalidOption
    } else if starts("no current") {
        Said::NoCurrent
    } else if starts("no sessions") {
        Said::NoSessions
    } else if starts("can't find") || starts("no such") {
        Said::NotFound(named(l))
    } else if lower.ends_with(" not found") || lower.contains(" not found in key table ") {
        Said::NotFound(None)
    } else {
        Said::Other
    }
}

/// The object and name of `can't find session|window|pane: NAME` and
/// `no such session|window|pane: NAME` (cmd-find.c).
fn named(l: &str) -> Option<(Object, &str)> {
    let rest = l
        .strip_prefix("can't find ")
        .or_else(|| l.strip_prefix("no such "))?;
    let (what, name) = rest.split_once(": ")?;
    let object = match what {
        "session" => Object::Session,
        "window" => Object::Window,
        "pane" => Object::Pane,
        _ => return None,
    };
    Some((object, name.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing `object` named `name`.
    const fn at(object: Object, name: &'static str) -> Said<'static> {
        Said::NotFound(Some((object, name)))
    }

    /// The messages of the three versions tmuxwire is tested on, as their
    /// binaries hold them (`strings` on Debian's 3.3a, 3.5a and 3.8),
    /// with a name filled in, and the class each must get.
    const SAID: &[(&str, Said<'static>)] = &[
        ("can't find session: work", at(Object::Session, "work")),
        ("can't find window: @9", at(Object::Window, "@9")),
        ("can't find pane: %99", at(Object::Pane, "%99")),
        ("can't find client: /dev/pts/9", Said::NotFound(None)),
        ("can't find last session", Said::NotFound(None)),
        ("can't find next session", Said::NotFound(None)),
        ("can't find previous session", Said::NotFound(None)),
        ("no such session: x", at(Object::Session, "x")),
        ("no such window: x:9", at(Object::Window, "x:9")),
        ("no such pane: %4", at(Object::Pane, "%4")),
        ("no current client", Said::NoCurrent),
        ("no current pane", Said::NoCurrent),
        ("no current session", Said::NoCurrent),
        ("no current target", Said::NoCurrent),
        ("no current window", Said::NoCurrent),
        ("no sessions", Said::NoSessions),
        ("unknown buffer: tmuxwire-x", Said::NoBuffer),
        ("no buffer tmuxwire-x", Said::NoBuffer),
        ("no buffer", Said::NoBuffer),
        ("no buffers", Said::NoBuffer),
        ("invalid option: @mine", Said::InvalidOption),
        ("after-new-window: hook x not found", Said::NotFound(None)),
        ("format 'x' not found", Said::NotFound(None)),
        ("index not found", Said::NotFound(None)),
        ("C-x not found in key table root", Said::NotFound(None)),
        ("no server running on /tmp/tmux-0/x", Said::NoServer),
        (
            "error connecting to /tmp/tmux-0/x (No such file or directory)",
            Said::NoServer,
        ),
        (
            "error connecting to /tmp/tmux-0/x (Connection refused)",
            Said::NoServer,
        ),
        (
            "error connecting to /tmp/x (Permission denied)",
            Said::Denied,
        ),
        ("access not allowed", Said::Denied),
        ("unknown command: frobnicate", Said::Other),
        ("create window failed: index 3 in use", Said::Other),
        ("", Said::Other),
    ];

    #[test]
    fn each_versions_words() {
        for (text, want) in SAID {
            assert_eq!(said(text), *want, "{text:?}");
        }
    }

    #[test]
    fn lines_case_and_blanks() {
        assert_eq!(
            said("unknown command: x\ncan't find pane: %1\n"),
            Said::NotFound(Some((Object::Pane, "%1")))
        );
        assert_eq!(said("  No Sessions\n"), Said::NoSessions);
        assert!(said("no current target").is_missing());
        assert!(!said("no buffer x").is_missing());
    }

    /// A pane's name in tmux's message is the pane's: whatever it holds,
    /// the message stays what it says (no other class from the name).
    #[test]
    fn names_do_not_change_the_class() {
        assert_eq!(
            said("can't find session: no server running on x"),
            Said::NotFound(Some((Object::Session, "no server running on x")))
        );
        assert_eq!(said("unknown command: not found"), Said::NotFound(None));
        assert_eq!(said("unknown command: not found x"), Said::Other);
        assert_eq!(
            said("can't find window: no sessions"),
            Said::NotFound(Some((Object::Window, "no sessions")))
        );
    }
}
