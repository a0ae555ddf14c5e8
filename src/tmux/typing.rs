//! Sending input to panes and tmuxwire's paste buffers: `send_keys`,
//! batches of them, `paste_text`, and the buffer tools. The commands come
//! from [`super::input`] (pure); this file sends them.
//!
//! Everything one call types goes out as one control-mode line, so tmux
//! runs it back to back (no other client's keys in between) and stops at
//! the first failure; the line starts with a lookup of the pane, so a
//! missing pane types nothing.

use std::collections::HashMap;
use std::time::Instant;

use super::error::{Error, ErrorKind};
use super::input::{self, fill_buffer, is_key_name, press_key, type_text};
use super::server::{Retry, Tmux};
use super::target::{one_record, template_cmd};
use crate::control::buffer::buffer_encoding;
use crate::control::correlate::FrameSpec;
use crate::control::{Command, PaneId, Target, TargetKind};
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

    /// The text these keys type (`None`: a key is pressed instead), the
    /// space before it for `suppress_history` included.
    pub fn typed_text(&self) -> Option<String> {
        if self.is_key() {
            None
        } else if self.suppress_history && !self.keys.is_empty() {
            Some(format!(" {}", self.keys))
        } else {
            Some(self.keys.clone())
        }
    }

    /// The commands that send these keys to the pane `target` (a `-t`
    /// value).
    pub fn commands(&self, target: &str) -> Vec<Command> {
        let mut out = if self.is_key() {
            vec![press_key(target, &self.keys)]
        } else if self.suppress_history && !self.keys.is_empty() {
            type_text(target, &format!(" {}", self.keys))
        } else {
            type_text(target, &self.keys)
        };
        if self.enter {
            out.push(press_key(target, "Enter"));
        }
        out
    }
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

/// The `list-panes` command that prints the pane id `target` resolves to
/// (failing when there is none), and the query that reads it.
fn pane_id_lookup(target: &Target) -> (Command, crate::control::format::Query) {
    let (cmd, q) = template_cmd("list-panes", &["pane_id"]);
    let filter = match target {
        Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
        _ => "#{pane_active}".into(),
    };
    (cmd.target(target, TargetKind::Window).opt("-f", filter), q)
}

impl Tmux {
    /// `target` as its pane's id when the mirror follows this server and
    /// `target` names a session or window (one round trip): typing into a
    /// pane is recorded by id ([`Tmux::begin_typing`]), so output of what
    /// was typed counts for a wait whichever way the pane was named. The
    /// pane is the one active when the call is made. Unchanged otherwise,
    /// and when the lookup fails (the typing then fails with tmux's own
    /// error).
    async fn typing_target(&self, target: &Target) -> Target {
        if matches!(target, Target::Pane(_)) || self.mirrored_server_pid().await.is_none() {
            return target.clone();
        }
        self.pane_of(target)
            .await
            .map_or_else(|_| target.clone(), Target::Pane)
    }

    /// The id of the pane `target` names (its active pane for a session or
    /// window), in one round trip.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when there is no such pane; connection errors.
    async fn pane_of(&self, target: &Target) -> Result<crate::control::PaneId, Error> {
        let (lookup, q) = pane_id_lookup(target);
        let out = self.act(vec![lookup]).await?;
        one_record(&q, out.first().map_or(&[][..], |b| &b[..]), target)?
            .str(0)
            .parse()
            .map_err(|_| Error::not_found(format!("can't find {target}")))
    }

    /// Notes what `keys` typed into `pane_id` (the cursor then at
    /// `origin`), or the key they pressed.
    fn note_keys(&self, pane_id: &str, keys: &Keys, origin: Option<Origin>) {
        match keys.typed_text() {
            Some(text) => {
                self.note_typed(pane_id, text.as_bytes(), keys.enter, origin);
            }
            None => self.note_key(pane_id),
        }
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

impl Tmux {
    /// Sends `keys` to a pane; the pane's id. One round trip: the lookup
    /// of the pane and the keys go out in one write, as one line when they
    /// fit [`LINE_COMMANDS`], else as several lines of that size (long
    /// text); then, for a target other than a pane id, the pane is looked
    /// up first (one more round trip), so every line types into the same
    /// pane even if the active pane changes meanwhile.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) (nothing is typed).
    pub async fn send_keys(&self, target: &Target, keys: &Keys) -> Result<String, Error> {
        // Long input goes as several lines: they must all reach the pane the
        // first one did.
        let target = if keys.commands("%0").len() + 1 > LINE_COMMANDS {
            match target {
                Target::Pane(_) => target.clone(),
                _ => Target::Pane(self.pane_of(target).await?),
            }
        } else {
            self.typing_target(target).await
        };
        let origin = self.begin_typing(&target).await;
        let (lookup, q) = pane_id_lookup(&target);
        let mut all = vec![lookup];
        all.extend(keys.commands(&target.to_arg(TargetKind::Pane)));
        let lines: Vec<Vec<Command>> = all.chunks(LINE_COMMANDS).map(<[Command]>::to_vec).collect();
        let answers = self.run_lines(&lines, Retry::Never).await?;
        let mut first = None;
        for (line, out) in lines.iter().zip(answers) {
            if let Some(bad) = out.iter().find(|o| !o.ok) {
                return Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body)));
            }
            if out.len() < line.len() {
                return Err(Error::connection("tmux did not answer every command"));
            }
            if first.is_none() {
                first = out.into_iter().next().map(|o| o.body);
            }
        }
        let pane_id = one_record(&q, &first.unwrap_or_default(), &target)?.string(0);
        self.note_keys(&pane_id, keys, origin);
        Ok(pane_id)
    }

    /// Sends several `(target, keys)` in order. When everything fits one
    /// line ([`LINE_COMMANDS`]), one round trip: with `stop_on_error` one
    /// line, which tmux stops at the first failure so nothing after it
    /// runs; else one line per operation, each on its own. Longer batches
    /// send one operation after the other ([`Tmux::send_keys`] each).
    ///
    /// # Errors
    ///
    /// Connection errors only; each operation's failure is in its [`Sent`].
    pub async fn send_keys_batch(
        &self,
        ops: &[(Target, Keys)],
        stop_on_error: bool,
    ) -> Result<Vec<Sent>, Error> {
        let start = Instant::now();
        let mut resolved = Vec::with_capacity(ops.len());
        for (target, keys) in ops {
            resolved.push((self.typing_target(target).await, keys.clone()));
        }
        let ops = &resolved[..];
        let mut parts = Vec::with_capacity(ops.len());
        for (target, keys) in ops {
            let (lookup, q) = pane_id_lookup(target);
            let mut cmds = vec![lookup];
            cmds.extend(keys.commands(&target.to_arg(TargetKind::Pane)));
            parts.push((cmds, q));
        }
        let total: usize = parts.iter().map(|(c, _)| c.len()).sum();
        let one_line_each = parts.iter().all(|(c, _)| c.len() <= LINE_COMMANDS);
        if (stop_on_error && total > LINE_COMMANDS) || !one_line_each {
            let mut sent = Vec::with_capacity(ops.len());
            for (target, keys) in ops {
                let result = self.send_keys(target, keys).await;
                if let Err(e) = &result
                    && matches!(e.kind(), ErrorKind::Connection | ErrorKind::Timeout)
                {
                    tracing::debug!(%e, "send_keys_batch stopped by the connection");
                }
                let failed = result.is_err();
                let (pane_id, result) = match result {
                    Ok(p) => (Some(p), Ok(())),
                    Err(e) => (None, Err(e)),
                };
                sent.push(Sent {
                    pane_id,
                    result,
                    elapsed_seconds: start.elapsed().as_secs_f64(),
                });
                if failed && stop_on_error {
                    break;
                }
            }
            return Ok(sent);
        }
        let mut origins = Vec::with_capacity(ops.len());
        for (target, _) in ops {
            origins.push(self.begin_typing(target).await);
        }
        let lines: Vec<Vec<Command>> = if stop_on_error {
            vec![parts.iter().flat_map(|(c, _)| c.clone()).collect()]
        } else {
            parts.iter().map(|(c, _)| c.clone()).collect()
        };
        let answers = self.run_lines(&lines, Retry::Never).await?;
        let elapsed = start.elapsed().as_secs_f64();
        let mut outputs: Vec<Vec<super::Output>> = if stop_on_error {
            // Split the one line's answers back into operations.
            let mut flat = answers.into_iter().next().unwrap_or_default().into_iter();
            parts
                .iter()
                .map(|(c, _)| flat.by_ref().take(c.len()).collect())
                .collect()
        } else {
            answers
        };
        let mut sent = Vec::with_capacity(ops.len());
        for (i, ((target, keys), (cmds, q))) in ops.iter().zip(&parts).enumerate() {
            let out = std::mem::take(&mut outputs[i]);
            if out.is_empty() && stop_on_error {
                // Not run: an earlier operation failed.
                break;
            }
            let pane_id = out
                .first()
                .filter(|o| o.ok)
                .and_then(|o| q.parse(&o.body).first().map(|r| r.string(0)));
            let result = match out.iter().find(|o| !o.ok) {
                Some(bad) => Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body))),
                None if out.len() < cmds.len() => {
                    Err(Error::connection("tmux did not answer every command"))
                }
                None if pane_id.is_none() => Err(Error::not_found(format!("can't find {target}"))),
                None => Ok(()),
            };
            if let (Ok(()), Some(p)) = (&result, &pane_id) {
                self.note_keys(p, keys, origins.get(i).copied().flatten());
            }
            let failed = result.is_err();
            sent.push(Sent {
                pane_id,
                result,
                elapsed_seconds: elapsed,
            });
            if failed && stop_on_error {
                break;
            }
        }
        Ok(sent)
    }

    /// Pastes `text` into a pane through a paste buffer of tmuxwire's own
    /// (created, pasted and deleted on one line; the name is random, so no
    /// buffer of the user's is touched). With `bracket`, tmux wraps the
    /// text in bracketed-paste markers when the pane's program asked for
    /// them (`paste-buffer -p`). Line breaks are sent as carriage returns,
    /// as a terminal paste does. Returns the pane id.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for empty text or
    /// text with a NUL byte.
    pub async fn paste_text(
        &self,
        target: &Target,
        text: &str,
        bracket: bool,
    ) -> Result<String, Error> {
        check_text("text", text)?;
        let target = &self.typing_target(target).await;
        let origin = self.begin_typing(target).await;
        let name = input::new_buffer_name("paste");
        let (lookup, q) = pane_id_lookup(target);
        let mut line = vec![lookup];
        line.extend(fill_buffer(&name, text));
        let mut paste = Command::new("paste-buffer")
            .target(target, TargetKind::Pane)
            .arg("-d");
        if bracket {
            paste = paste.arg("-p");
        }
        line.push(paste.opt("-b", name.clone()));
        let n = line.len();
        // The buffer is deleted by the paste (-d); if anything failed
        // before that, the second line deletes it (an error when it is
        // already gone, which is fine).
        let cleanup = vec![Command::new("delete-buffer").opt("-b", name)];
        let mut answers = self.run_lines(&[line, cleanup], Retry::Never).await?;
        answers.truncate(1);
        let out = answers.pop().unwrap_or_default();
        if let Some(bad) = out.iter().find(|o| !o.ok) {
            return Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body)));
        }
        if out.len() < n {
            return Err(Error::connection("tmux did not answer every command"));
        }
        let pane_id = one_record(&q, &out[0].body, target)?.string(0);
        self.note_typed(&pane_id, text.as_bytes(), false, origin);
        Ok(pane_id)
    }

    /// Puts `content` in a new paste buffer of tmuxwire's namespace
    /// (`tmuxwire_<32 hex>_<logical>`); its name.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for empty content, a NUL byte, or a bad
    /// logical name.
    pub async fn load_buffer(&self, content: &str, logical: &str) -> Result<String, Error> {
        check_text("content", content)?;
        if !input::is_logical_name(logical) {
            return Err(Error::invalid(
                "logical_name",
                "logical_name must be 1-64 of A-Z a-z 0-9 _ . -",
                "a short name such as notes or cmd.1",
            ));
        }
        let name = input::new_buffer_name(logical);
        self.act(fill_buffer(&name, content)).await?;
        Ok(name)
    }

    /// A buffer's exact bytes (read by length: no line of it can end the
    /// answer).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a buffer that does not exist.
    pub async fn show_buffer(&self, name: &str) -> Result<Vec<u8>, Error> {
        let encoding = buffer_encoding(&self.version().await?);
        let size = Command::new("list-buffers")
            .opt("-F", "#{buffer_size}")
            .opt("-f", format!("#{{==:#{{buffer_name}},{name}}}"));
        let show = Command::new("show-buffer")
            .opt("-b", name)
            .frame(FrameSpec::LengthOfPrevious(encoding));
        let out = self.act(vec![size, show]).await.map_err(buffer_error)?;
        let size: Option<usize> = String::from_utf8_lossy(&out[0]).trim().parse().ok();
        let mut body = out.into_iter().nth(1).unwrap_or_default();
        // A one-shot client (a server without sessions) prints the bytes
        // with a final line break of its own.
        if let Some(n) = size
            && body.len() == n + 1
            && body.last() == Some(&b'\n')
        {
            body.pop();
        }
        Ok(body)
    }

    /// Pastes a buffer into a pane (the buffer stays); the pane id.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing buffer or pane.
    pub async fn paste_buffer(
        &self,
        target: &Target,
        name: &str,
        bracket: bool,
    ) -> Result<String, Error> {
        let (lookup, q) = pane_id_lookup(target);
        let mut paste = Command::new("paste-buffer").target(target, TargetKind::Pane);
        if bracket {
            paste = paste.arg("-p");
        }
        let paste = paste.opt("-b", name);
        let out = self.act(vec![lookup, paste]).await.map_err(buffer_error)?;
        Ok(one_record(&q, &out[0], target)?.string(0))
    }

    /// Deletes a buffer.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) for a missing buffer.
    pub async fn delete_buffer(&self, name: &str) -> Result<(), Error> {
        match self
            .act(vec![Command::new("delete-buffer").opt("-b", name)])
            .await
            .map_err(buffer_error)
        {
            Err(e) if e.is(ErrorKind::NoBuffer) => Err(Error::not_found(format!(
                "delete-buffer failed for '{name}': {}",
                e.detail()
            ))),
            other => other.map(drop),
        }
    }
}

/// Text for a paste buffer: not empty (tmux makes no buffer of nothing),
/// no NUL (tmux cannot carry it in a command).
fn check_text(arg: &'static str, text: &str) -> Result<(), Error> {
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

/// tmux's answer to a command naming a paste buffer that does not exist
/// (`unknown buffer: NAME` from `show-buffer`/`delete-buffer`, `no buffer
/// NAME` from `paste-buffer`) as [`ErrorKind::NoBuffer`]; other errors as
/// they are.
fn buffer_error(e: Error) -> Error {
    let d = e.detail();
    if e.is(ErrorKind::Tmux) && (d.contains("unknown buffer") || d.contains("no buffer")) {
        Error::no_buffer(d.to_string())
    } else {
        e
    }
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
        // History suppression never turns a key into text.
        assert_eq!(lines(&k("Enter", false, false, true)), [key("Enter")]);
        assert_eq!(lines(&k("", false, true, false)), [key("Enter")]);
    }
}
