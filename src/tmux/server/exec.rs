//! Sending commands to a [`Server`]: one command, groups and lines over
//! the control connection (fenced, unstuck when a request stalls) or
//! one-shot clients, and their answers as [`Output`]s.

use super::{Link, STALL, STALL_GRACE, Server};
use crate::control::buffer::{buffer_encoding, capture_line, captured};
use crate::control::client::Reply;
use crate::control::format;
use crate::control::{self, Client, Command, Line};
use crate::tmux::error::Error;

/// A command's answer: tmux's output, or its error text when `ok` is
/// false. `body` holds lines each followed by `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// False when tmux reported an error.
    pub ok: bool,
    /// Output lines (or the error message), each followed by `\n`.
    pub body: Vec<u8>,
}

impl Output {
    /// The output, or the tmux error classified (see
    /// [`Error::from_tmux`]).
    ///
    /// # Errors
    ///
    /// The tmux error when `ok` is false.
    pub fn into_result(self) -> Result<Vec<u8>, Error> {
        if self.ok {
            Ok(self.body)
        } else {
            Err(Error::from_tmux(&String::from_utf8_lossy(&self.body)))
        }
    }

    /// The output as text, without the final line break.
    pub fn text(&self) -> String {
        let b = self.body.strip_suffix(b"\n").unwrap_or(&self.body);
        String::from_utf8_lossy(b).into_owned()
    }
}

/// Whether [`Server::run_lines`] may send its lines again after the
/// connection broke before the answers came back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// The lines only read: send them again on a fresh connection.
    Safe,
    /// The lines change something: never send them twice.
    Never,
}

/// `name -F <template>` for `fields`, and the query that parses it.
pub(super) fn query_cmd(name: &str, fields: &[&str]) -> (Command, format::Query) {
    let q = format::Query::new(fields);
    (
        Command::new(name).opt("-F", q.template()).frame(q.frame()),
        q,
    )
}

/// Bytes of arguments one one-shot client carries, well inside tmux's
/// 16368-byte message limit.
pub(super) const ONE_SHOT_BUDGET: usize = 12 * 1024;

/// Bytes a fence (`; display-message -p <token>`) adds to a command list.
pub(super) const FENCE_BYTES: usize = 64;

/// True for `capture-pane -p` (text printed to the client).
pub(super) fn is_print_capture(cmd: &Command) -> bool {
    cmd.name() == "capture-pane" && cmd.argv().iter().any(|a| a == "-p")
}

/// The answer of a [`capture_line`], as `capture-pane -p` would give it.
pub(super) fn capture_output(reply: Reply) -> Output {
    match captured(reply.blocks) {
        Ok(body) => Output { ok: true, body },
        Err(body) => Output { ok: false, body },
    }
}

/// A reply as one [`Output`]: its only block, or all blocks merged.
pub(super) fn merged_output(reply: Reply) -> Output {
    let mut out = Output {
        ok: true,
        body: Vec::new(),
    };
    for b in reply.blocks {
        out.ok &= b.ok;
        out.body.extend_from_slice(&b.body);
    }
    for s in reply.stray {
        out.body.extend_from_slice(&s);
        out.body.push(b'\n');
    }
    out
}

/// Splits `out` at each whole line equal to `line` (which ends in `\n`).
/// `k` separators give `k + 1` parts.
pub(super) fn split_on_line(out: &[u8], line: &[u8]) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&out[from..], line) {
        let at = from + i;
        if at == 0 || out[at - 1] == b'\n' {
            parts.push(out[start..at].to_vec());
            start = at + line.len();
            from = start;
        } else {
            from = at + 1;
        }
    }
    parts.push(out[start..].to_vec());
    parts
}

impl Server {
    /// Runs one command (reconnecting once if the connection had broken).
    ///
    /// Only for commands that are safe to send twice: a command whose
    /// connection broke mid-flight may or may not have run.
    ///
    /// # Errors
    ///
    /// Connection errors. A tmux error is an [`Output`] with `ok: false`.
    pub async fn run(&self, cmd: &Command) -> Result<Output, Error> {
        let [out] = self.run_each(std::array::from_ref(cmd)).await?;
        Ok(out)
    }

    /// [`Server::run_all`] for a fixed number of commands: their answers as
    /// an array, in the commands' order.
    ///
    /// # Errors
    ///
    /// As [`Server::run_all`]; [`ErrorKind::Connection`](crate::tmux::ErrorKind::Connection) if the answers do not
    /// pair up with the commands (which would be a broken connection).
    pub(crate) async fn run_each<const N: usize>(
        &self,
        cmds: &[Command; N],
    ) -> Result<[Output; N], Error> {
        let out = self.run_all(cmds).await?;
        let got = out.len();
        out.try_into()
            .map_err(|_| Error::connection(format!("tmux gave {got} answers to {N} commands")))
    }

    /// Runs several commands in one write (one round trip), so tmux runs
    /// them back to back: answers that describe the same moment, one per
    /// command, in order. Same retry rule as [`Server::run`].
    ///
    /// A `capture-pane -p` is sent as a paste-buffer read instead (see
    /// [`capture_line`]): its text arrives framed by its length, so no
    /// line in it can end the answer early, and tmux 3.2–3.5 do not leak
    /// it. The answer is the same text `-p` prints, plus its final line
    /// break.
    ///
    /// # Errors
    ///
    /// The first connection error.
    pub(crate) async fn run_all(&self, cmds: &[Command]) -> Result<Vec<Output>, Error> {
        let lines = |c: &Client| {
            let encoding = buffer_encoding(c.version());
            cmds.iter()
                .map(|cmd| {
                    if is_print_capture(cmd) {
                        capture_line(cmd, encoding)
                    } else {
                        Line::from(cmd.clone())
                    }
                })
                .collect::<Vec<Line>>()
        };
        let Some(replies) = self.replies(lines, Retry::Safe).await? else {
            return self.run_one_shot(cmds).await;
        };
        Ok(replies
            .into_iter()
            .zip(cmds)
            .map(|(reply, cmd)| {
                if is_print_capture(cmd) {
                    capture_output(reply)
                } else {
                    merged_output(reply)
                }
            })
            .collect())
    }

    /// Runs prepared control-mode lines in one write (one round trip) and
    /// gives each line's answer as tmux sent it, every block kept apart:
    /// for callers that read a line's blocks themselves (a pane's copy made
    /// once, [`super::copy`]). The lines must only read (they are sent again
    /// on a fresh connection when the first one broke).
    ///
    /// # Errors
    ///
    /// As [`Server::run_all`]; a server without sessions (no control client
    /// can attach) is [`ErrorKind::NotFound`]: it has no panes.
    pub(crate) async fn run_replies(&self, lines: &[Line]) -> Result<Vec<Reply>, Error> {
        self.replies(|_| lines.to_vec(), Retry::Safe)
            .await?
            .ok_or_else(|| Error::not_found("the server has no sessions, so no panes"))
    }

    /// Sends the lines `make` builds for the control connection in one write
    /// and gives each line's reply, in order; `None` while the server has
    /// no sessions (no control client can attach: the caller runs one-shot
    /// clients). A connection that broke before every reply came back is
    /// forgotten, and with [`Retry::Safe`] the lines go once more on a new
    /// one.
    ///
    /// # Errors
    ///
    /// The first connection error, explained ([`Server::explain`]: no server,
    /// or its socket file gone).
    pub(super) async fn replies(
        &self,
        make: impl Fn(&Client) -> Vec<Line>,
        retry: Retry,
    ) -> Result<Option<Vec<Reply>>, Error> {
        self.activity.touch();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let c = match self.link().await? {
                Link::Control(c) => c,
                Link::OneShot { .. } => return Ok(None),
            };
            self.count_round_trip();
            let answers = self.lines_unstuck(&c, &make(&c)).await;
            let closed = answers
                .iter()
                .any(|a| matches!(a, Err(control::Error::Closed { .. })));
            // Found silent by its watchdog, the connection is gone too, but
            // tmux is not answering: the lines are not sent again.
            let silent = answers
                .iter()
                .any(|a| matches!(a, Err(control::Error::Silent { .. })));
            if closed || silent {
                self.forget(&c).await;
            }
            if closed && attempt == 1 && retry == Retry::Safe && !c.is_poisoned() {
                tracing::debug!("control connection lost; reconnecting");
                continue;
            }
            let mut out = Vec::with_capacity(answers.len());
            for a in answers {
                match a {
                    Ok(r) => out.push(r),
                    Err(e) => return Err(self.explain(Error::from(e)).await),
                }
            }
            return Ok(Some(out));
        }
    }

    /// [`Client::lines`], watched: when nothing at all comes from tmux on
    /// `c` for [`STALL`] while the lines wait, tmux is asked on a connection
    /// of its own (a one-shot `display-message -p`); if it answers that
    /// while `c` still gets nothing for [`STALL_GRACE`] more, tmux serves
    /// other clients but not this one (a command on it waits, such as a
    /// prompt opened on this client: public case C39), so `c` is ended
    /// ([`Client::abort`]): these lines and every other request on it fail
    /// with [`control::Error::Closed`] (read-only lines are sent again on a
    /// new connection, [`Retry::Safe`]), and later calls open a new one.
    /// A tmux that answers nobody (stopped, or busy with a long command of
    /// this connection's) does not answer the question either, and the
    /// lines wait for their deadline as before. Local servers only: a
    /// remote one's connection has its watchdog
    /// ([`crate::wire::Watchdog`]), and a question there would be one more
    /// ssh process on a link that may be the thing stalled.
    pub(super) async fn lines_unstuck(
        &self,
        c: &Client,
        lines: &[Line],
    ) -> Vec<Result<Reply, control::Error>> {
        if self.endpoint.remote().is_some() {
            return c.lines(lines).await;
        }
        let start = tokio::time::Instant::now();
        let answers = c.lines(lines);
        tokio::pin!(answers);
        // No question before this (one at a time, [`STALL`] apart).
        let mut not_before = start;
        loop {
            let quiet_from = c.last_read().max(start);
            tokio::select! {
                a = &mut answers => return a,
                () = tokio::time::sleep_until((quiet_from + STALL).max(not_before)) => {}
            }
            if c.last_read() > quiet_from {
                continue;
            }
            let check = self
                .endpoint
                .run_command_list(&[&["display-message", "-p", ""]], self.timeout);
            let answered = tokio::select! {
                a = &mut answers => return a,
                // Any answer, an error included, shows tmux serving others.
                out = check => out.is_ok_and(|o| o.ending != crate::wire::Ending::ServerExited),
            };
            not_before = tokio::time::Instant::now() + STALL;
            if !answered {
                // tmux answers nobody: nothing to replace; the lines wait
                // for their deadline.
                continue;
            }
            tokio::select! {
                a = &mut answers => return a,
                () = tokio::time::sleep(STALL_GRACE) => {}
            }
            if c.last_read() > quiet_from {
                continue;
            }
            let quiet = tokio::time::Instant::now().duration_since(quiet_from);
            tracing::warn!(
                path = %self.path.display(),
                quiet_ms = quiet.as_millis() as u64,
                "tmux answers other clients but not this control connection; replacing it"
            );
            c.abort(format!(
                "tmux answered another client, but sent nothing on tmuxwire's control \
                 connection for {:.1} s while it waited for an answer (a command on that \
                 connection waits, such as a prompt opened on its client); tmuxwire closed \
                 that connection, and the next call opens a new one (what this call sent may \
                 or may not have run)",
                quiet.as_secs_f64()
            ));
            return answers.await;
        }
    }

    /// Runs command lines in one write (one round trip): each inner list
    /// is one control-mode line (`a ; b ; c`), which tmux runs back to back
    /// with nothing of anyone else's in between, skipping the rest of the
    /// line after a command fails. The answer per line holds one
    /// [`Output`] per command that ran, so it is shorter than the line when
    /// a command failed (its `Output` is the last, with `ok: false`). A
    /// line of one command that may answer with several blocks
    /// (`if-shell`, `wait-for`) gets one merged `Output`.
    ///
    /// `retry`: whether the lines may be sent again when the connection
    /// broke before every answer came back; [`Retry::Never`] for lines
    /// that change something (keys typed twice, a window made twice).
    /// Paste-buffer captures (`capture-pane -p`) are not rewritten here:
    /// use [`Server::run_all`] for those.
    ///
    /// # Errors
    ///
    /// The first connection error; with [`Retry::Never`], a connection
    /// that broke mid-flight is [`ErrorKind::Connection`](crate::tmux::ErrorKind::Connection) (the lines may or
    /// may not have run).
    pub(crate) async fn run_lines(
        &self,
        lines: &[Vec<Command>],
        retry: Retry,
    ) -> Result<Vec<Vec<Output>>, Error> {
        let make = |_: &Client| lines.iter().map(|l| Line::list(l.clone())).collect();
        let Some(replies) = self.replies(make, retry).await? else {
            return self.run_lines_one_shot(lines).await;
        };
        Ok(replies
            .into_iter()
            .zip(lines)
            .map(|(reply, line)| {
                if line.len() == 1 && line[0].blocks() == control::command::Blocks::Variable {
                    return vec![merged_output(reply)];
                }
                reply
                    .blocks
                    .into_iter()
                    .map(|b| Output {
                        ok: b.ok,
                        body: b.body,
                    })
                    .collect()
            })
            .collect())
    }

    /// [`Server::run_lines`] as one-shot clients (a server without sessions):
    /// the commands run in order and stop at the first failure, which ends
    /// every later line too.
    pub(super) async fn run_lines_one_shot(
        &self,
        lines: &[Vec<Command>],
    ) -> Result<Vec<Vec<Output>>, Error> {
        let flat: Vec<Command> = lines.iter().flatten().cloned().collect();
        let mut answers = self.run_one_shot(&flat).await?.into_iter();
        let mut out = Vec::with_capacity(lines.len());
        for line in lines {
            let mut got = Vec::with_capacity(line.len());
            for _ in line {
                let Some(a) = answers.next() else { break };
                let failed = !a.ok;
                got.push(a);
                if failed {
                    break;
                }
            }
            // Skip the answers of commands after a failure in this line.
            let seen = got.len();
            for _ in seen..line.len() {
                let _ = answers.next();
            }
            out.push(got);
        }
        Ok(out)
    }

    /// Runs `cmds` in order as one one-shot client (`a ; b ; …`), with a
    /// fence line printed after each command to split the output. tmux
    /// stops at the first failing command: that one gets the error, the
    /// ones after it an error saying they did not run.
    pub(super) async fn run_one_shot(&self, cmds: &[Command]) -> Result<Vec<Output>, Error> {
        // One message holds at most 16 KiB of arguments: run long lists as
        // several clients, each a run of whole commands.
        let mut answers = Vec::with_capacity(cmds.len());
        let mut start = 0;
        while start < cmds.len() {
            let mut end = start + 1;
            let mut size: usize = cmds[start].argv().iter().map(|a| a.len() + 2).sum();
            while end < cmds.len() {
                let more: usize =
                    cmds[end].argv().iter().map(|a| a.len() + 2).sum::<usize>() + FENCE_BYTES;
                if size + more > ONE_SHOT_BUDGET {
                    break;
                }
                size += more;
                end += 1;
            }
            answers.extend(self.run_one_shot_group(&cmds[start..end]).await?);
            start = end;
        }
        Ok(answers)
    }

    pub(super) async fn run_one_shot_group(&self, cmds: &[Command]) -> Result<Vec<Output>, Error> {
        self.count_round_trip();
        // A token a pane cannot guess, so printed text cannot split output.
        let token = format!("__tmuxwire_split_{}__", crate::nonce::hex());
        let fence = Command::new("display-message").arg("-p").arg(token.clone());
        let mut argvs: Vec<&[String]> = Vec::with_capacity(cmds.len() * 2);
        for (i, c) in cmds.iter().enumerate() {
            argvs.push(c.argv());
            if i + 1 < cmds.len() {
                argvs.push(fence.argv());
            }
        }
        let out = self.endpoint.run_command_list(&argvs, self.timeout).await?;
        let mut line = token.into_bytes();
        line.push(b'\n');
        let mut parts = split_on_line(&out.stdout, &line);
        let mut answers = Vec::with_capacity(cmds.len());
        let failed_at = if out.success() {
            cmds.len()
        } else {
            parts.len() - 1
        };
        for i in 0..cmds.len() {
            if i < failed_at {
                let body = if i < parts.len() {
                    std::mem::take(&mut parts[i])
                } else {
                    Vec::new()
                };
                answers.push(Output { ok: true, body });
            } else if i == failed_at {
                let mut t = out.error_text().into_bytes();
                t.push(b'\n');
                answers.push(Output { ok: false, body: t });
            } else {
                answers.push(Output {
                    ok: false,
                    body: b"not run: an earlier command failed\n".to_vec(),
                });
            }
        }
        Ok(answers)
    }

    /// The records a command printed for `query` (its `-F` template).
    ///
    /// # Errors
    ///
    /// Connection errors and tmux errors (classified).
    pub(crate) async fn records(
        &self,
        cmd: &Command,
        query: &format::Query,
    ) -> Result<Vec<format::Record>, Error> {
        let body = self.run(cmd).await?.into_result()?;
        Ok(query.parse(&body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_output_on_fence_lines() {
        let t = b"F\n";
        assert_eq!(
            split_on_line(b"a\nb\nF\nc\n", t),
            vec![b"a\nb\n".to_vec(), b"c\n".to_vec()]
        );
        assert_eq!(split_on_line(b"F\nF\n", t), vec![Vec::<u8>::new(); 3]);
        // Only whole lines count.
        assert_eq!(
            split_on_line(b"xF\nF\n", t),
            vec![b"xF\n".to_vec(), Vec::new()]
        );
        assert_eq!(split_on_line(b"", t), vec![Vec::<u8>::new()]);
    }

    #[test]
    fn print_captures() {
        assert!(is_print_capture(
            &Command::new("capture-pane").arg("-p").arg("-J")
        ));
        assert!(!is_print_capture(
            &Command::new("capture-pane").arg("-b").arg("x")
        ));
        assert!(!is_print_capture(&Command::new("list-panes").arg("-p")));
    }
}
