//! Control-mode notifications: `%`-lines outside command blocks. Pure.
//!
//! Formats are what tmux's code prints (control-notify.c, control.c),
//! which sometimes differs from the manual: `%session-renamed` carries a
//! `$id` before the name. Lines tmuxwire does not know are kept as
//! [`Notification::Other`].

use super::id::{PaneId, SessionId, WindowId};

/// One notification line, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notification {
    /// `%output %<pane> <data>`: bytes the pane's program wrote, decoded
    /// from tmux's octal escaping. Only for panes in this client's session.
    Output {
        /// The pane.
        pane: PaneId,
        /// Raw bytes (a UTF-8 character may be split across two lines).
        data: Vec<u8>,
    },
    /// `%extended-output %<pane> <age-ms> … : <data>` (with `pause-after`).
    ExtendedOutput {
        /// The pane.
        pane: PaneId,
        /// Milliseconds the output waited in tmux.
        age_ms: u64,
        /// Raw bytes.
        data: Vec<u8>,
    },
    /// `%pause %<pane>`: output for the pane was dropped (`pause-after`).
    Pause(PaneId),
    /// `%continue %<pane>`.
    Continue(PaneId),
    /// `%layout-change @<window> <layout> <visible-layout> <flags>`.
    LayoutChange {
        /// The window.
        window: WindowId,
        /// The layout string (`#{window_layout}`).
        layout: String,
    },
    /// `%window-add @<window>` or `%unlinked-window-add @<window>`.
    WindowAdd(WindowId),
    /// `%window-close @<window>` or `%unlinked-window-close @<window>`.
    /// Versions up to 3.7c decide "unlinked" at delivery time, so both are
    /// treated the same.
    WindowClose(WindowId),
    /// `%window-renamed @<window> <name>` (or `%unlinked-window-renamed`).
    WindowRenamed {
        /// The window.
        window: WindowId,
        /// The new name.
        name: String,
    },
    /// `%window-pane-changed @<window> %<pane>`: the active pane changed.
    WindowPaneChanged {
        /// The window.
        window: WindowId,
        /// The newly active pane.
        pane: PaneId,
    },
    /// `%session-changed $<id> <name>`: *this* client's session changed.
    SessionChanged {
        /// The session now attached.
        session: SessionId,
        /// Its name.
        name: String,
    },
    /// `%client-session-changed <client> $<id> <name>`.
    ClientSessionChanged {
        /// The other client's name.
        client: String,
        /// Its new session.
        session: SessionId,
        /// The session's name.
        name: String,
    },
    /// `%session-renamed $<id> <name>`.
    SessionRenamed {
        /// The session, when tmux printed its id.
        session: Option<SessionId>,
        /// The new name.
        name: String,
    },
    /// `%session-window-changed $<id> @<window>`.
    SessionWindowChanged {
        /// The session.
        session: SessionId,
        /// Its new current window.
        window: WindowId,
    },
    /// `%sessions-changed`: a session was created or destroyed.
    SessionsChanged,
    /// `%pane-mode-changed %<pane>`: copy/view mode entered or left.
    PaneModeChanged(PaneId),
    /// `%client-detached <client>`.
    ClientDetached(String),
    /// `%paste-buffer-changed <name>` / `%paste-buffer-deleted <name>`.
    PasteBuffer {
        /// The buffer.
        name: String,
        /// True for `-deleted`.
        deleted: bool,
    },
    /// `%message <text>` (3.4+).
    Message(String),
    /// `%config-error <text>` (3.4+).
    ConfigError(String),
    /// `%exit [reason]` (printed by the tmux *binary*, not the server; kept
    /// for streams recorded from `tmux -C`).
    Exit(Option<String>),
    /// Anything else, as received.
    Other(Vec<u8>),
}

/// Decodes `%output` data: `\ooo` (exactly three octal digits) becomes
/// the byte; everything else, including bytes ≥ 0x80 and a backslash not
/// followed by three octal digits (a line cut short), is kept as is.
///
/// tmux escapes every byte below 0x20 and `\` this way and passes all
/// other bytes raw (control.c: `control_append_data()`).
pub fn unescape_output(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut rest = data;
    while let Some(i) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..i]);
        let esc = &rest[i..];
        let octal = |b: u8| (b'0'..=b'7').contains(&b);
        if esc.len() >= 4 && octal(esc[1]) && octal(esc[2]) && octal(esc[3]) {
            let v = u32::from(esc[1] - b'0') * 64
                + u32::from(esc[2] - b'0') * 8
                + u32::from(esc[3] - b'0');
            out.push(v as u8);
            rest = &esc[4..];
        } else {
            out.push(b'\\');
            rest = &esc[1..];
        }
    }
    out.extend_from_slice(rest);
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Splits off the first space-separated word.
fn word(b: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b' ', b) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &[]),
    }
}

impl Notification {
    /// Decodes one line (without its `\n`). Never fails: unknown or
    /// malformed lines become [`Notification::Other`].
    pub fn parse(line: &[u8]) -> Notification {
        Notification::try_parse(line).unwrap_or_else(|| Notification::Other(line.to_vec()))
    }

    fn try_parse(line: &[u8]) -> Option<Notification> {
        let (name, rest) = word(line);
        Some(match name {
            b"%output" => {
                let (pane, data) = word(rest);
                Notification::Output {
                    pane: PaneId::parse_bytes(pane)?,
                    data: unescape_output(data),
                }
            }
            b"%extended-output" => {
                let (pane, rest) = word(rest);
                let (age, rest) = word(rest);
                // Further fields may follow until a lone ":".
                let mut rest = rest;
                loop {
                    let (w, r) = word(rest);
                    if w == b":" {
                        rest = r;
                        break;
                    }
                    if r.is_empty() && w.is_empty() {
                        return None;
                    }
                    rest = r;
                }
                Notification::ExtendedOutput {
                    pane: PaneId::parse_bytes(pane)?,
                    age_ms: std::str::from_utf8(age).ok()?.parse().ok()?,
                    data: unescape_output(rest),
                }
            }
            b"%pause" => Notification::Pause(PaneId::parse_bytes(rest)?),
            b"%continue" => Notification::Continue(PaneId::parse_bytes(rest)?),
            b"%layout-change" => {
                let (w, rest) = word(rest);
                let (layout, _) = word(rest);
                Notification::LayoutChange {
                    window: WindowId::parse_bytes(w)?,
                    layout: text(layout),
                }
            }
            b"%window-add" | b"%unlinked-window-add" => {
                Notification::WindowAdd(WindowId::parse_bytes(rest)?)
            }
            b"%window-close" | b"%unlinked-window-close" => {
                Notification::WindowClose(WindowId::parse_bytes(rest)?)
            }
            b"%window-renamed" | b"%unlinked-window-renamed" => {
                let (w, name) = word(rest);
                Notification::WindowRenamed {
                    window: WindowId::parse_bytes(w)?,
                    name: text(name),
                }
            }
            b"%window-pane-changed" => {
                let (w, p) = word(rest);
                Notification::WindowPaneChanged {
                    window: WindowId::parse_bytes(w)?,
                    pane: PaneId::parse_bytes(p)?,
                }
            }
            b"%session-changed" => {
                let (s, name) = word(rest);
                Notification::SessionChanged {
                    session: SessionId::parse_bytes(s)?,
                    name: text(name),
                }
            }
            b"%client-session-changed" => {
                let (c, rest) = word(rest);
                let (s, name) = word(rest);
                Notification::ClientSessionChanged {
                    client: text(c),
                    session: SessionId::parse_bytes(s)?,
                    name: text(name),
                }
            }
            b"%session-renamed" => {
                let (s, name) = word(rest);
                match SessionId::parse_bytes(s) {
                    Some(id) => Notification::SessionRenamed {
                        session: Some(id),
                        name: text(name),
                    },
                    None => Notification::SessionRenamed {
                        session: None,
                        name: text(rest),
                    },
                }
            }
            b"%session-window-changed" => {
                let (s, w) = word(rest);
                Notification::SessionWindowChanged {
                    session: SessionId::parse_bytes(s)?,
                    window: WindowId::parse_bytes(w)?,
                }
            }
            b"%sessions-changed" => Notification::SessionsChanged,
            b"%pane-mode-changed" => Notification::PaneModeChanged(PaneId::parse_bytes(rest)?),
            b"%client-detached" => Notification::ClientDetached(text(rest)),
            b"%paste-buffer-changed" => Notification::PasteBuffer {
                name: text(rest),
                deleted: false,
            },
            b"%paste-buffer-deleted" => Notification::PasteBuffer {
                name: text(rest),
                deleted: true,
            },
            b"%message" => Notification::Message(text(rest)),
            b"%config-error" => Notification::ConfigError(text(rest)),
            b"%exit" => Notification::Exit((!rest.is_empty()).then(|| text(rest))),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape() {
        // From tmux-wire-protocol.md §3.4 (verified live).
        let line = b"A\\011B\\134C\\033[31mred\\033[0m \xc3\xa9 \x7f end\\015\\012";
        assert_eq!(
            unescape_output(line),
            b"A\tB\\C\x1b[31mred\x1b[0m \xc3\xa9 \x7f end\r\n"
        );
        assert_eq!(unescape_output(b"x\\01"), b"x\\01");
        assert_eq!(unescape_output(b"\\"), b"\\");
        assert_eq!(unescape_output(b"\\999"), b"\\999");
        assert_eq!(unescape_output(b"\\377\\000"), b"\xff\0");
        assert_eq!(unescape_output(b"CAF\xe9 LATTE"), b"CAF\xe9 LATTE");
    }

    #[test]
    fn parse_known_lines() {
        use Notification::*;
        let cases: Vec<(&[u8], Notification)> = vec![
            (
                b"%output %0 hello\\015\\012",
                Output {
                    pane: PaneId(0),
                    data: b"hello\r\n".to_vec(),
                },
            ),
            (
                b"%output %4 ",
                Output {
                    pane: PaneId(4),
                    data: vec![],
                },
            ),
            (
                b"%extended-output %2 150 : tick\\011",
                ExtendedOutput {
                    pane: PaneId(2),
                    age_ms: 150,
                    data: b"tick\t".to_vec(),
                },
            ),
            (
                b"%extended-output %2 1 x y : a : b",
                ExtendedOutput {
                    pane: PaneId(2),
                    age_ms: 1,
                    data: b"a : b".to_vec(),
                },
            ),
            (b"%pause %3", Pause(PaneId(3))),
            (b"%continue %3", Continue(PaneId(3))),
            (
                b"%layout-change @0 49e6,40x10,0,0 49e6,40x10,0,0 *",
                LayoutChange {
                    window: WindowId(0),
                    layout: "49e6,40x10,0,0".into(),
                },
            ),
            (b"%window-add @4", WindowAdd(WindowId(4))),
            (b"%unlinked-window-close @4", WindowClose(WindowId(4))),
            (
                b"%window-renamed @1 a name; #{x}",
                WindowRenamed {
                    window: WindowId(1),
                    name: "a name; #{x}".into(),
                },
            ),
            (
                b"%window-pane-changed @1 %7",
                WindowPaneChanged {
                    window: WindowId(1),
                    pane: PaneId(7),
                },
            ),
            (
                b"%session-changed $0 demo",
                SessionChanged {
                    session: SessionId(0),
                    name: "demo".into(),
                },
            ),
            (
                b"%client-session-changed client-1 $2 w x",
                ClientSessionChanged {
                    client: "client-1".into(),
                    session: SessionId(2),
                    name: "w x".into(),
                },
            ),
            (
                b"%session-renamed $1 new",
                SessionRenamed {
                    session: Some(SessionId(1)),
                    name: "new".into(),
                },
            ),
            (
                b"%session-renamed new",
                SessionRenamed {
                    session: None,
                    name: "new".into(),
                },
            ),
            (
                b"%session-window-changed $1 @2",
                SessionWindowChanged {
                    session: SessionId(1),
                    window: WindowId(2),
                },
            ),
            (b"%sessions-changed", SessionsChanged),
            (b"%pane-mode-changed %0", PaneModeChanged(PaneId(0))),
            (
                b"%client-detached client-9",
                ClientDetached("client-9".into()),
            ),
            (
                b"%paste-buffer-deleted buffer0",
                PasteBuffer {
                    name: "buffer0".into(),
                    deleted: true,
                },
            ),
            (b"%message hi there", Message("hi there".into())),
            (b"%exit", Exit(None)),
            (b"%exit too far behind", Exit(Some("too far behind".into()))),
            (b"%future-thing 1 2", Other(b"%future-thing 1 2".to_vec())),
            (b"%output x y", Other(b"%output x y".to_vec())),
            (b"%pause", Other(b"%pause".to_vec())),
        ];
        for (line, want) in cases {
            assert_eq!(
                Notification::parse(line),
                want,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
