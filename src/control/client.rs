//! The async control-mode client: one connection, many concurrent
//! requests, a notification stream.
//!
//! Three tasks own the connection (no locks are held across `.await`):
//!
//! * the **writer** receives requests over a channel, records each one in
//!   the pending queue *before* writing its line, and batches whatever is
//!   queued into one `write()`;
//! * the **reader** feeds the control stream to [`Parser`] and hands each
//!   flags-1 block to the oldest pending request (a control client's
//!   commands run strictly in order), broadcasts notifications, and fails
//!   every pending request when the stream ends;
//! * the **imsg** task runs [`ImsgSide::run`](crate::wire::connect::ImsgSide::run) and records why the server
//!   ended the connection.
//!
//! A command that answers with exactly one block is matched by order. A
//! command that may answer with several blocks, or with output after its
//! `%end` (see [`Blocks::Variable`]), is followed by a *fence*: a
//! `display-message -p '<token>'` line whose block marks the end of the
//! request's answer. Every request has a deadline; a request that times
//! out keeps its place in the queue so later answers stay aligned.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{Notify, broadcast, mpsc, oneshot};

use super::Error;
use super::command::{Blocks, Command};
use super::id::SessionId;
use super::notify::Notification;
use super::parse::{Block, Event, Parser};
use crate::wire::{ControlTransport, EndReason, Framing, TmuxVersion};

/// Options for a [`Client`].
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// Deadline for each request. A capture of a very large history can
    /// take a while; simple commands answer in well under a millisecond.
    pub request_timeout: Duration,
    /// Deadline for the attach command's answer at connect.
    pub attach_timeout: Duration,
    /// Capacity of the notification broadcast; slow subscribers that fall
    /// further behind see `Lagged` and should resynchronise.
    pub notification_capacity: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            request_timeout: Duration::from_secs(20),
            attach_timeout: Duration::from_secs(5),
            notification_capacity: 4096,
        }
    }
}

/// The answer to a fenced request: every block the line produced, in
/// order, and stray lines printed outside blocks meanwhile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fenced {
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// Lines outside blocks (e.g. `run-shell` output on tmux master).
    pub stray: Vec<Vec<u8>>,
}

enum Pending {
    One(oneshot::Sender<Result<Block, Error>>),
    Fenced {
        token: Vec<u8>,
        got: Fenced,
        tx: oneshot::Sender<Result<Fenced, Error>>,
    },
    /// The empty line that detaches; it has no answer.
    Detach,
}

struct Request {
    /// One or more lines, each ending in `\n`.
    text: Vec<u8>,
    /// What each answer goes to, in order (empty for the detach line).
    pending: Vec<Pending>,
}

#[derive(Default)]
struct State {
    /// Why the connection ended, once it has.
    ended: Option<String>,
    /// Our session, from `%session-changed`.
    session: Option<(SessionId, String)>,
    /// Why the server ended us, from the imsg side.
    imsg_end: Option<EndReason>,
}

struct Shared {
    pending: Mutex<VecDeque<Pending>>,
    state: Mutex<State>,
    /// Signalled when the imsg side ends.
    imsg_done: Notify,
    /// Signalled when the reader ends.
    reader_done: Notify,
    notifications: broadcast::Sender<Notification>,
}

impl Shared {
    fn lock_pending(&self) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records the end (first reason wins) and fails every pending request.
    fn end(&self, reason: String) {
        let reason = {
            let mut st = self.lock_state();
            st.ended.get_or_insert(reason).clone()
        };
        let drained: Vec<Pending> = self.lock_pending().drain(..).collect();
        for p in drained {
            let e = Error::Closed {
                reason: reason.clone(),
            };
            match p {
                Pending::One(tx) => {
                    let _ = tx.send(Err(e));
                }
                Pending::Fenced { tx, .. } => {
                    let _ = tx.send(Err(e));
                }
                Pending::Detach => {}
            }
        }
    }

    fn ended(&self) -> Option<String> {
        self.lock_state().ended.clone()
    }
}

/// A control-mode client on one tmux server. Cheap to clone; the
/// connection closes when the last clone is dropped (or on [`Client::close`]).
#[derive(Clone)]
pub struct Client {
    tx: mpsc::UnboundedSender<Request>,
    shared: Arc<Shared>,
    info: Arc<Info>,
}

struct Info {
    path: PathBuf,
    version: TmuxVersion,
    framing: Framing,
    timeout: Duration,
    fence_seq: AtomicU64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("path", &self.info.path)
            .field("version", &self.info.version)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts the client on an opened transport and waits for the attach
    /// command's answer.
    ///
    /// # Errors
    ///
    /// [`Error::Attach`] when tmux refused the attach (e.g. `no sessions`);
    /// [`Error::Closed`] when the server ended the connection first;
    /// [`Error::Timeout`] when nothing came back in time.
    pub async fn start(transport: ControlTransport, opts: ClientOptions) -> Result<Client, Error> {
        let ControlTransport {
            path,
            version,
            framing,
            control,
            imsg,
        } = transport;
        let (notifications, _) = broadcast::channel(opts.notification_capacity.max(16));
        let shared = Arc::new(Shared {
            pending: Mutex::new(VecDeque::new()),
            state: Mutex::new(State::default()),
            imsg_done: Notify::new(),
            reader_done: Notify::new(),
            notifications,
        });
        let (read, write) = control.into_split();
        let (tx, rx) = mpsc::unbounded_channel();
        let (attach_tx, attach_rx) = oneshot::channel();

        let s = shared.clone();
        tokio::spawn(async move {
            let reason = imsg.run().await;
            tracing::debug!(%reason, "tmux imsg side ended");
            s.lock_state().imsg_end = Some(reason);
            s.imsg_done.notify_waiters();
            s.imsg_done.notify_one();
        });
        tokio::spawn(reader(read, shared.clone(), attach_tx));
        tokio::spawn(writer(write, rx, shared.clone()));

        let info = Arc::new(Info {
            path,
            version,
            framing,
            timeout: opts.request_timeout,
            fence_seq: AtomicU64::new(0),
        });
        let client = Client { tx, shared, info };
        match tokio::time::timeout(opts.attach_timeout, attach_rx).await {
            Ok(Ok(Ok(()))) => Ok(client),
            Ok(Ok(Err(msg))) => Err(Error::Attach(msg)),
            Ok(Err(_)) => Err(Error::Closed {
                reason: client
                    .end_reason()
                    .unwrap_or_else(|| "the connection closed while attaching".into()),
            }),
            Err(_) => Err(Error::Timeout {
                after: opts.attach_timeout,
                what: "attach-session".into(),
            }),
        }
    }

    /// The server's socket path.
    pub fn socket_path(&self) -> &Path {
        &self.info.path
    }

    /// The server's version.
    pub fn version(&self) -> &TmuxVersion {
        &self.info.version
    }

    /// The imsg header layout in use on the server socket.
    pub fn framing(&self) -> Framing {
        self.info.framing
    }

    /// The session this control client is attached to, if tmux said.
    pub fn attached_session(&self) -> Option<(SessionId, String)> {
        self.shared.lock_state().session.clone()
    }

    /// Why the connection ended, or `None` while it is open.
    pub fn end_reason(&self) -> Option<String> {
        self.shared.ended()
    }

    /// True once the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.shared.ended().is_some() || self.tx.is_closed()
    }

    /// A receiver of every notification from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Notification> {
        self.shared.notifications.subscribe()
    }

    fn send(&self, req: Request) -> Result<(), Error> {
        if let Some(reason) = self.shared.ended() {
            return Err(Error::Closed { reason });
        }
        self.tx.send(req).map_err(|_| Error::Closed {
            reason: self
                .shared
                .ended()
                .unwrap_or_else(|| "the client was closed".into()),
        })
    }

    async fn wait<T>(
        &self,
        rx: oneshot::Receiver<Result<T, Error>>,
        what: &str,
    ) -> Result<T, Error> {
        let deadline = tokio::time::Instant::now() + self.info.timeout;
        self.wait_until(rx, deadline, what).await
    }

    /// Waits for an answer until `deadline` (one deadline serves a whole
    /// batch, so waits do not add up).
    async fn wait_until<T>(
        &self,
        rx: oneshot::Receiver<Result<T, Error>>,
        deadline: tokio::time::Instant,
        what: &str,
    ) -> Result<T, Error> {
        match tokio::time::timeout_at(deadline, rx).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(Error::Closed {
                reason: self
                    .shared
                    .ended()
                    .unwrap_or_else(|| "the connection closed".into()),
            }),
            Err(_) => Err(Error::Timeout {
                after: self.info.timeout,
                what: what.to_string(),
            }),
        }
    }

    /// Runs one command and returns its answer block (check
    /// [`Block::ok`]: a tmux error is an answer, not an `Err`).
    ///
    /// A [`Blocks::Variable`] command is fenced; its blocks are merged into
    /// one (bodies concatenated, `ok` only if all were, stray lines
    /// appended).
    ///
    /// # Errors
    ///
    /// [`Error::Command`] if the command cannot be encoded,
    /// [`Error::Closed`], [`Error::Timeout`].
    pub async fn command(&self, cmd: &Command) -> Result<Block, Error> {
        let line = cmd.to_line()?;
        if cmd.blocks() == Blocks::Variable {
            let f = self.fenced_line(&line, cmd.name()).await?;
            let mut merged = Block {
                time: 0,
                number: 0,
                flags: 1,
                ok: true,
                body: Vec::new(),
            };
            for b in &f.blocks {
                merged.ok &= b.ok;
                merged.body.extend_from_slice(&b.body);
            }
            for s in &f.stray {
                merged.body.extend_from_slice(s);
                merged.body.push(b'\n');
            }
            return Ok(merged);
        }
        let (tx, rx) = oneshot::channel();
        let mut text = line.into_bytes();
        text.push(b'\n');
        self.send(Request {
            text,
            pending: vec![Pending::One(tx)],
        })?;
        self.wait(rx, cmd.name()).await
    }

    /// Runs several single-block commands written in one `write()`, so
    /// tmux reads them together and runs them back to back (no pane output
    /// is processed between them in practice). Answers come back in order.
    ///
    /// # Errors
    ///
    /// As [`Client::command`]; every command must answer with one block
    /// ([`Blocks::One`]), otherwise [`Error::Command`] is not returned but
    /// the command is fenced on its own like in [`Client::command`].
    pub async fn batch(&self, cmds: &[Command]) -> Vec<Result<Block, Error>> {
        if cmds.iter().any(|c| c.blocks() == Blocks::Variable) {
            return futures::future::join_all(cmds.iter().map(|c| self.command(c))).await;
        }
        let mut text = Vec::new();
        let mut pending = Vec::with_capacity(cmds.len());
        let mut receivers = Vec::with_capacity(cmds.len());
        for c in cmds {
            match c.to_line() {
                Ok(line) => {
                    text.extend_from_slice(line.as_bytes());
                    text.push(b'\n');
                    let (tx, rx) = oneshot::channel();
                    pending.push(Pending::One(tx));
                    receivers.push(Ok(rx));
                }
                Err(e) => receivers.push(Err(e)),
            }
        }
        if let Err(e) = self.send(Request { text, pending }) {
            let reason = match e {
                Error::Closed { reason } => reason,
                other => other.to_string(),
            };
            return cmds
                .iter()
                .map(|_| {
                    Err(Error::Closed {
                        reason: reason.clone(),
                    })
                })
                .collect();
        }
        let deadline = tokio::time::Instant::now() + self.info.timeout;
        let mut out = Vec::with_capacity(cmds.len());
        for (c, r) in cmds.iter().zip(receivers) {
            out.push(match r {
                Ok(rx) => self.wait_until(rx, deadline, c.name()).await,
                Err(e) => Err(e.into()),
            });
        }
        out
    }

    /// Sends a line, then a fence, and returns everything up to the fence.
    ///
    /// # Errors
    ///
    /// As [`Client::command`].
    pub async fn fenced(&self, cmd: &Command) -> Result<Fenced, Error> {
        let line = cmd.to_line()?;
        self.fenced_line(&line, cmd.name()).await
    }

    async fn fenced_line(&self, line: &str, what: &str) -> Result<Fenced, Error> {
        let n = self.info.fence_seq.fetch_add(1, Ordering::Relaxed);
        // No '%' in the token: display-message applies strftime().
        let token = format!("__tmuxwire_fence_{}_{}__", std::process::id(), n);
        let mut text = Vec::with_capacity(line.len() + token.len() + 32);
        text.extend_from_slice(line.as_bytes());
        text.extend_from_slice(b"\ndisplay-message -p '");
        text.extend_from_slice(token.as_bytes());
        text.extend_from_slice(b"'\n");
        let mut want = token.into_bytes();
        want.push(b'\n');
        let (tx, rx) = oneshot::channel();
        self.send(Request {
            text,
            pending: vec![Pending::Fenced {
                token: want,
                got: Fenced::default(),
                tx,
            }],
        })?;
        self.wait(rx, what).await
    }

    /// Detaches cleanly (an empty line makes tmux exit the client) and
    /// waits briefly for the connection to end.
    pub async fn close(&self) {
        let done = self.shared.reader_done.notified();
        tokio::pin!(done);
        done.as_mut().enable();
        if self
            .send(Request {
                text: b"\n".to_vec(),
                pending: vec![Pending::Detach],
            })
            .is_ok()
            && self.shared.ended().is_none()
        {
            let _ = tokio::time::timeout(Duration::from_secs(2), done).await;
        }
    }
}

async fn writer(
    mut write: OwnedWriteHalf,
    mut rx: mpsc::UnboundedReceiver<Request>,
    shared: Arc<Shared>,
) {
    let mut buf = Vec::new();
    while let Some(first) = rx.recv().await {
        buf.clear();
        let mut detach = false;
        {
            let mut pending = shared.lock_pending();
            let mut next = Some(first);
            while let Some(req) = next {
                for p in req.pending {
                    if matches!(p, Pending::Detach) {
                        detach = true;
                    } else {
                        pending.push_back(p);
                    }
                }
                buf.extend_from_slice(&req.text);
                next = if detach { None } else { rx.try_recv().ok() };
            }
        }
        if let Err(e) = write.write_all(&buf).await {
            // The server went away; prefer what it said on the imsg side
            // (shutdown, exit message) over the bare write error.
            if shared.lock_state().imsg_end.is_none() {
                let wait = shared.imsg_done.notified();
                let _ = tokio::time::timeout(Duration::from_millis(300), wait).await;
            }
            let why = shared.lock_state().imsg_end.as_ref().map(|r| r.to_string());
            shared.end(why.unwrap_or_else(|| format!("writing to tmux failed: {e}")));
            return;
        }
        if detach {
            break;
        }
    }
    // All senders gone (or detached): closing our write side makes tmux
    // exit the client, which ends the reader.
    let _ = write.shutdown().await;
}

async fn reader(
    mut read: OwnedReadHalf,
    shared: Arc<Shared>,
    attach_tx: oneshot::Sender<Result<(), String>>,
) {
    let mut parser = Parser::new();
    let mut attach_tx = Some(attach_tx);
    let mut buf = vec![0u8; 256 * 1024];
    let mut imsg_ended = false;
    let reason = loop {
        let n = if imsg_ended {
            // The server already said goodbye: drain what is left, briefly.
            match tokio::time::timeout(Duration::from_millis(500), read.read(&mut buf)).await {
                Ok(r) => r,
                Err(_) => break None,
            }
        } else {
            tokio::select! {
                r = read.read(&mut buf) => r,
                _ = shared.imsg_done.notified() => {
                    imsg_ended = true;
                    continue;
                }
            }
        };
        match n {
            Ok(0) => break None,
            Ok(n) => {
                let mut attached = None;
                parser.feed(&buf[..n], &mut |ev| dispatch(ev, &shared, &mut attached));
                // Answer the attach only after the whole chunk was handled,
                // so the `%session-changed` that follows it is recorded.
                if let (Some(r), Some(tx)) = (attached, attach_tx.take()) {
                    let _ = tx.send(r);
                }
            }
            Err(e) => break Some(format!("reading from tmux failed: {e}")),
        }
    };
    if parser.finish() {
        tracing::debug!("control stream ended inside a block");
    }
    // Give the imsg side a moment to report why, for a better message.
    if !imsg_ended && shared.lock_state().imsg_end.is_none() {
        let _ = tokio::time::timeout(Duration::from_millis(200), shared.imsg_done.notified()).await;
    }
    let why = shared
        .lock_state()
        .imsg_end
        .as_ref()
        .map(|r| r.to_string())
        .or(reason)
        .unwrap_or_else(|| EndReason::Eof.to_string());
    if let Some(tx) = attach_tx.take() {
        let _ = tx.send(Err(why.clone()));
    }
    shared.end(why);
    shared.reader_done.notify_waiters();
}

fn dispatch(ev: Event, shared: &Shared, attached: &mut Option<Result<(), String>>) {
    match ev {
        Event::Block(b) if b.flags == 0 => {
            // Blocks not started by our control input: the attach command
            // (only the first one counts).
            attached.get_or_insert(if b.ok { Ok(()) } else { Err(b.text()) });
        }
        Event::Block(b) => {
            let mut pending = shared.lock_pending();
            match pending.front_mut() {
                Some(Pending::Fenced { token, got, .. }) => {
                    if b.ok && b.body == *token {
                        if let Some(Pending::Fenced { got, tx, .. }) = pending.pop_front() {
                            let _ = tx.send(Ok(got));
                        }
                    } else {
                        got.blocks.push(b);
                    }
                }
                Some(Pending::One(_)) => {
                    if let Some(Pending::One(tx)) = pending.pop_front() {
                        let _ = tx.send(Ok(b));
                    }
                }
                Some(Pending::Detach) | None => {
                    tracing::warn!(
                        number = b.number,
                        "tmux answered a command nobody is waiting for"
                    );
                }
            }
        }
        Event::Notification(n) => {
            if let Notification::SessionChanged { session, name } = &n {
                shared.lock_state().session = Some((*session, name.clone()));
            }
            let _ = shared.notifications.send(n);
        }
        Event::Stray(line) => {
            let mut pending = shared.lock_pending();
            if let Some(Pending::Fenced { got, .. }) = pending.front_mut() {
                got.stray.push(line);
            } else {
                tracing::debug!(line = %String::from_utf8_lossy(&line), "stray control line");
            }
        }
    }
}
