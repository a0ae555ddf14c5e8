//! What input is: the keys one `send_keys` sends ([`Keys`], pure), what
//! tmuxwire typed into each pane ([`TypedPanes`], so waits can tell its
//! echo from output), and the checks on paste text. The operations that
//! send input and use buffers are [`crate::tmux::op::typing`].

use std::collections::HashMap;

use super::error::Error;
use super::input::{is_key_name, press_key, type_text};
use crate::control::{Command, PaneId};
use crate::mirror::echo::{Origin, Typed, TypedLog};

/// What one `send_keys` sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keys {
    /// Text, or a key name.
    pub keys: String,
    /// `keys` is text even when it is a key name.
    pub literal: bool,
    /// Press Enter afterwards.
    pub enter: bool,
    /// Put a space before text, so shells with `ignorespace` keep it out
    /// of their history.
    pub suppress_history: bool,
}

impl Keys {
    /// Whether `keys` is pressed as a key rather than typed.
    pub fn is_key(&self) -> bool {
        !self.literal && is_key_name(&self.keys)
    }

    /// The text typed before Enter: `keys` without its final line break
    /// (`\n` or `\r\n`) when Enter follows, since Enter submits the
    /// line and the break typed too would submit it twice (a shell would
    /// run the command, then an empty line).
    fn body(&self) -> &str {
        if !self.enter {
            return &self.keys;
        }
        without_final_newline(&self.keys)
    }

    /// The text these keys type (`None`: a key is pressed instead), the
    /// space before it for `suppress_history` included, the final line
    /// break left out when Enter follows.
    pub fn typed_text(&self) -> Option<String> {
        if self.is_key() {
            None
        } else if self.suppress_history && !self.body().is_empty() {
            Some(format!(" {}", self.body()))
        } else {
            Some(self.body().to_string())
        }
    }

    /// The commands that send these keys to the pane `target` (a `-t`
    /// value).
    pub fn commands(&self, target: &str) -> Vec<Command> {
        let mut out = if self.is_key() {
            vec![press_key(target, &self.keys)]
        } else if self.suppress_history && !self.body().is_empty() {
            type_text(target, &format!(" {}", self.body()))
        } else {
            type_text(target, self.body())
        };
        if self.enter {
            out.push(press_key(target, "Enter"));
        }
        out
    }
}

/// `text` without one final line break (`\n` or `\r\n`).
pub fn without_final_newline(text: &str) -> &str {
    text.strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .unwrap_or(text)
}

/// Panes whose typed input is remembered per server (the ones typed into
/// most lately).
const MAX_PANES: usize = 1024;

/// What tmuxwire typed into each pane of one server ([`TypedLog`] each),
/// so waits can tell its echo from output.
#[derive(Debug, Default)]
pub(crate) struct TypedPanes {
    inner: std::sync::Mutex<TypedInner>,
}

#[derive(Debug, Default)]
struct TypedInner {
    /// Each pane's log, with the `seq` of its last use.
    panes: HashMap<PaneId, (u64, TypedLog)>,
    /// The last number given to a typed line or a use (across panes, so
    /// numbers never repeat when a pane's log is dropped and made anew).
    seq: u64,
}

impl TypedPanes {
    fn lock(&self) -> std::sync::MutexGuard<'_, TypedInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Notes `text` typed into `pane` (see [`TypedLog::note`]); the
    /// number of the last line noted (see [`TypedPanes::since`]).
    pub(crate) fn note(
        &self,
        pane: PaneId,
        text: &[u8],
        ended: bool,
        origin: Option<Origin>,
    ) -> u64 {
        let mut g = self.lock();
        let inner = &mut *g;
        if !inner.panes.contains_key(&pane) && inner.panes.len() >= MAX_PANES {
            let oldest = inner
                .panes
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(p, _)| *p);
            if let Some(p) = oldest {
                inner.panes.remove(&p);
            }
        }
        let (used, log) = inner.panes.entry(pane).or_default();
        log.note(text, ended, origin, &mut inner.seq);
        inner.seq += 1;
        *used = inner.seq;
        inner.seq
    }

    /// Notes a key pressed in `pane` (see [`TypedLog::note_key`]).
    pub(crate) fn note_key(&self, pane: PaneId) {
        if let Some((_, log)) = self.lock().panes.get_mut(&pane) {
            log.note_key();
        }
    }

    /// Changes whenever a line is noted for `pane`: the `seq` of its
    /// newest line (0: none).
    pub(crate) fn generation(&self, pane: PaneId) -> u64 {
        self.lock()
            .panes
            .get(&pane)
            .and_then(|(_, log)| log.last_seq())
            .unwrap_or(0)
    }

    /// The lines remembered for `pane` that were noted after number
    /// `after` (0: all), oldest first.
    pub(crate) fn since(&self, pane: PaneId, after: u64) -> Vec<Typed> {
        self.lock()
            .panes
            .get(&pane)
            .map_or_else(Vec::new, |(_, log)| {
                log.lines().filter(|t| t.seq > after).cloned().collect()
            })
    }

    /// Forgets every pane (the server is another one now).
    pub(crate) fn clear(&self) {
        self.lock().panes.clear();
    }
}

/// Most commands sent on one control-mode line. tmux's cost for a line
/// grows with the square of its commands (measured on 3.3a: 10,000
/// `send-keys` on one line took 1.7 s and 40,000 took 33 s; as separate
/// lines, 0.3 s and 0.9 s), so long input goes as several lines of one
/// write. Up to this many, a call's commands run as one line: back to
/// back, with no other client's command in between.
pub const LINE_COMMANDS: usize = 32;

/// One operation's outcome in a batch.
#[derive(Debug)]
pub struct Sent {
    /// The pane it went to, when known.
    pub pane_id: Option<String>,
    /// `Err`: why it failed.
    pub result: Result<(), Error>,
    /// Seconds from the start of the batch to its answer.
    pub elapsed_seconds: f64,
}

/// Text for a paste buffer: not empty (tmux makes no buffer of nothing),
/// no NUL (tmux cannot carry it in a command).
pub(crate) fn check_text(arg: &'static str, text: &str) -> Result<(), Error> {
    if text.is_empty() {
        return Err(Error::invalid(
            arg,
            format!("{arg} is empty: nothing to put in a paste buffer"),
            "non-empty text",
        ));
    }
    if text.contains('\0') {
        return Err(Error::invalid(
            arg,
            format!("{arg} contains a NUL byte, which a tmux paste buffer cannot be given"),
            "text without NUL bytes (send_keys types any byte)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(k: &Keys) -> Vec<Vec<String>> {
        k.commands("%1").iter().map(|c| c.argv().to_vec()).collect()
    }

    #[test]
    fn keys_and_text() {
        let k = |keys: &str, literal, enter, suppress| Keys {
            keys: keys.into(),
            literal,
            enter,
            suppress_history: suppress,
        };
        fn key(name: &str) -> Vec<String> {
            ["send-keys", "-t", "%1", "--", name]
                .map(String::from)
                .to_vec()
        }
        fn text(t: &str) -> Vec<String> {
            ["send-keys", "-t", "%1", "-l", "--", t]
                .map(String::from)
                .to_vec()
        }
        assert_eq!(lines(&k("C-c", false, false, false)), [key("C-c")]);
        assert_eq!(lines(&k("C-c", true, false, false)), [text("C-c")]);
        assert_eq!(
            lines(&k("echo Up", false, true, false)),
            [text("echo Up"), key("Enter")]
        );
        assert_eq!(lines(&k("ls", false, false, true)), [text(" ls")]);
        // With Enter, a final line break is not typed too (it would
        // submit twice); one break only, and not without Enter.
        assert_eq!(
            lines(&k("make\n", false, true, false)),
            [text("make"), key("Enter")]
        );
        assert_eq!(
            lines(&k("make\r\n", false, true, true)),
            [text(" make"), key("Enter")]
        );
        assert_eq!(
            k("a\n\n", false, true, false).typed_text().as_deref(),
            Some("a\n")
        );
        assert_eq!(
            k("a\n", false, false, false).typed_text().as_deref(),
            Some("a\n")
        );
        // History suppression never turns a key into text.
        assert_eq!(lines(&k("Enter", false, false, true)), [key("Enter")]);
        assert_eq!(lines(&k("", false, true, false)), [key("Enter")]);
    }
}
