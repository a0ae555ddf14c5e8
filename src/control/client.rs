//! The async control-mode client: one connection, many concurrent
//! requests, notifications, and (optionally) an ordered event stream.
//!
//! One task owns the connection: the control socket (both halves), the
//! server's imsg socket, and a pure [`Correlator`] that pairs blocks with
//! requests. Callers send requests over a channel (as in mini-redis's
//! buffered client); the task records each request in the correlator
//! *before* writing its line, coalesces whatever is queued into one
//! `write()`, reads and correlates answers, and
//! fails every open request when the connection ends or the stream breaks
//! a framing rule ([`Output::Violation`]).
//!
//! A line that answers with one block per command is matched by order. A
//! command that may answer with several blocks, or with output after its
//! `%end` (see [`Blocks::Variable`](super::command::Blocks)), is followed
//! by a *fence*: a `display-message -p '<token>'` line whose block marks
//! the end of the request's answer. Every request has a deadline; a
//! request that times out keeps its place in the queue so later answers
//! stay aligned.
//!
//! A transport with a [`Watchdog`] (a remote `tmux -C` over ssh) is
//! checked while it is quiet: after its interval with nothing read the
//! task sends `display-message -p`, and when nothing at all comes back in
//! the watchdog's patience the connection ends as if the stream had closed
//! (every open request fails), so a far end that went silent without
//! closing is noticed instead of each call waiting out its deadline.
//!
//! With [`ClientOptions::events`], the task also sends every notification
//! and the completion of every request into one bounded channel, in the
//! order tmux wrote them ([`StreamEvent`]). The task waits for room in that
//! channel before reading more, so a slow consumer slows the connection
//! (and tmux's `pause-after` then pauses panes) instead of growing memory.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::Instant;

use super::command::{Command, Line};
use super::correlate::{Correlator, Output, Shape};
use super::error::Error;
use super::id::SessionId;
use super::notify::Notification;
use super::parse::Block;
use crate::wire::{ControlTransport, EndReason, Framing, TmuxVersion, Watchdog};

pub use super::correlate::Reply;

/// The answer to a fenced request: every block the line produced, in
/// order, and stray lines printed outside blocks meanwhile.
pub type Fenced = Reply;

/// Options for a [`Client`].
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// Deadline for each request. A capture of a very large history can
    /// take a while; simple commands answer in well under a millisecond.
    pub request_timeout: Duration,
    /// Deadline for the attach command's answer at connect.
    pub attach_timeout: Duration,
    /// Capacity of the ordered event stream ([`Client::take_events`]);
    /// `None`: no event stream.
    pub events: Option<usize>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            request_timeout: Duration::from_secs(20),
            attach_timeout: Duration::from_secs(5),
            events: None,
        }
    }
}

/// One item of the ordered event stream.
#[derive(Debug)]
pub enum StreamEvent {
    /// A notification (`%output`, `%layout-change`, `%pause`, …).
    Notification(Notification),
    /// The request with this id ([`Ticket::id`]) was answered; its reply
    /// is already in its ticket. Everything before this event in the
    /// stream happened before the request's commands ran.
    Answered(u64),
}

/// Where an answer goes.
struct Waiter {
    id: u64,
    tx: Option<oneshot::Sender<Result<Reply, Error>>>,
}

struct Request {
    /// One or more lines, each ending in `\n`.
    text: Vec<u8>,
    /// What each line expects, in order.
    expect: Vec<(Shape, Waiter)>,
}

#[derive(Default)]
struct State {
    /// Why the connection ended, once it has.
    ended: Option<String>,
    /// The stream broke a framing rule (see [`Output::Violation`]).
    poisoned: bool,
    /// The watchdog ended the connection: the far end went quiet.
    silent: bool,
    /// Our session, from `%session-changed`.
    session: Option<(SessionId, String)>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled when the connection task ends.
    done: Notify,
    /// When the connection task last read bytes from tmux (or started).
    last_read: Mutex<Instant>,
    /// Why [`Client::abort`] ended the connection; the task is woken by
    /// `abort`.
    aborted: Mutex<Option<String>>,
    abort: Notify,
    /// Liveness checks answered so far ([`Watchdog`]).
    checks: AtomicU64,
    events: Mutex<Option<mpsc::Receiver<StreamEvent>>>,
}

impl Shared {
    fn lock_state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn ended(&self) -> Option<String> {
        self.lock_state().ended.clone()
    }
}

/// A pending answer: await [`Ticket::wait`].
pub struct Ticket {
    id: u64,
    rx: oneshot::Receiver<Result<Reply, Error>>,
}

impl Ticket {
    /// The request's id, as [`StreamEvent::Answered`] reports it.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The answer, if it has arrived (without waiting).
    pub fn try_take(&mut self) -> Option<Result<Reply, Error>> {
        self.rx.try_recv().ok()
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
    seq: AtomicU64,
    /// Unique per connection in this process.
    id: u64,
    /// Requests written so far (each one `write()` of one or more lines).
    requests: AtomicU64,
}

/// The next connection id.
static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("path", &self.info.path)
            .field("version", &self.info.version)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A number no other connection of this process has.
    pub fn connection_id(&self) -> u64 {
        self.info.id
    }

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
            read,
            write,
            end,
            watchdog,
        } = transport;
        let (events_tx, events_rx) = match opts.events {
            Some(cap) => {
                let (t, r) = mpsc::channel(cap.max(1));
                (Some(t), Some(r))
            }
            None => (None, None),
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            done: Notify::new(),
            last_read: Mutex::new(Instant::now()),
            aborted: Mutex::new(None),
            abort: Notify::new(),
            checks: AtomicU64::new(0),
            events: Mutex::new(events_rx),
        });
        // Unbounded, because `submit` is synchronous and never waits. What
        // bounds it: each request is one `submit` by a caller that then
        // waits for its answer (at most its deadline) before sending more,
        // and the task drains the channel into one write whenever the
        // previous write is done; so it holds at most about one request
        // per concurrent caller (tool calls, mirror watches), each a few
        // command lines.
        let (tx, rx) = mpsc::unbounded_channel();
        let (attach_tx, attach_rx) = oneshot::channel();
        let conn = Connection {
            shared: shared.clone(),
            correlator: Correlator::new(),
            attach_tx: Some(attach_tx),
            events: events_tx,
            label: path.clone(),
        };
        tokio::spawn(conn.run(read, write, end, rx, watchdog));

        let info = Arc::new(Info {
            path,
            version,
            framing,
            timeout: opts.request_timeout,
            seq: AtomicU64::new(0),
            id: NEXT_CONNECTION.fetch_add(1, Ordering::Relaxed),
            requests: AtomicU64::new(0),
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

    /// How many requests this client has sent: each [`Client::submit`]
    /// (one `write()` of one or more lines, answered together) counts
    /// once, whatever the number of lines or commands. Tests use it to
    /// count round trips.
    pub fn requests_sent(&self) -> u64 {
        self.info.requests.load(Ordering::Relaxed)
    }

    /// The session this control client is attached to, if tmux said.
    pub fn attached_session(&self) -> Option<(SessionId, String)> {
        self.shared.lock_state().session.clone()
    }

    /// Why the connection ended, or `None` while it is open.
    pub fn end_reason(&self) -> Option<String> {
        self.shared.ended()
    }

    /// True when the connection was closed because tmux's answers broke a
    /// framing rule (a cut or forged answer): sending the same request
    /// again would meet the same text.
    pub fn is_poisoned(&self) -> bool {
        self.shared.lock_state().poisoned
    }

    /// True when the connection was closed by its [`Watchdog`]: nothing
    /// came back, not even the answer to a liveness check, so tmux (or the
    /// link to it) is not answering; requests then fail with
    /// [`Error::Silent`].
    pub fn went_silent(&self) -> bool {
        self.shared.lock_state().silent
    }

    /// When bytes last came from tmux on this connection (any bytes:
    /// answers, notifications, output), or when it was opened.
    pub fn last_read(&self) -> Instant {
        *self
            .shared
            .last_read
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Ends the connection now, without asking tmux (a detach line would
    /// wait behind whatever holds the connection's queue): every open
    /// request fails with [`Error::Closed`] giving `reason`, and so does
    /// every later one. For a connection tmux stopped answering while it
    /// answers others (a command on it waits, such as a prompt opened on
    /// this client); tmux removes the client when the socket closes.
    pub fn abort(&self, reason: String) {
        let mut r = self
            .shared
            .aborted
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if r.is_none() {
            *r = Some(reason);
        }
        drop(r);
        self.shared.abort.notify_one();
    }

    /// How many of the [`Watchdog`]'s liveness checks tmux has answered
    /// (0 without one).
    pub fn checks_answered(&self) -> u64 {
        self.shared.checks.load(Ordering::Relaxed)
    }

    /// True once the connection has ended.
    pub fn is_closed(&self) -> bool {
        self.shared.ended().is_some() || self.tx.is_closed()
    }

    /// The ordered event stream, once (`None` without
    /// [`ClientOptions::events`] or when already taken). Its consumer must
    /// keep reading: the connection waits for room in it.
    pub fn take_events(&self) -> Option<mpsc::Receiver<StreamEvent>> {
        self.shared
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// Resolves when the connection has ended.
    pub async fn closed(&self) {
        if let Some(done) = self.end_watch() {
            done.await;
        }
    }

    /// A wait for the connection's end, armed before it is checked (so
    /// an end in between is not missed); `None` when it has ended.
    fn end_watch(&self) -> Option<Pin<Box<tokio::sync::futures::Notified<'_>>>> {
        let mut done = Box::pin(self.shared.done.notified());
        done.as_mut().enable();
        self.shared.ended().is_none().then_some(done)
    }

    fn closed_error(&self) -> Error {
        let st = self.shared.lock_state();
        let reason = st
            .ended
            .clone()
            .unwrap_or_else(|| "the client was closed".into());
        Error::ended(reason, st.silent)
    }

    /// Queues `lines`; returns a ticket per line, in order.
    ///
    /// # Errors
    ///
    /// [`Error::Command`] if a line cannot be encoded (nothing is sent);
    /// [`Error::Closed`].
    pub fn submit(&self, lines: &[Line]) -> Result<Vec<Ticket>, Error> {
        let mut text = Vec::new();
        let mut expect = Vec::with_capacity(lines.len());
        let mut tickets = Vec::with_capacity(lines.len());
        for line in lines {
            let id = self.info.seq.fetch_add(1, Ordering::Relaxed);
            text.extend_from_slice(line.to_line()?.as_bytes());
            text.push(b'\n');
            let mut shape = line.shape();
            if let Shape::Fenced(token) = &mut shape {
                *token = push_fence(&mut text, id);
            }
            let (tx, rx) = oneshot::channel();
            expect.push((shape, Waiter { id, tx: Some(tx) }));
            tickets.push(Ticket { id, rx });
        }
        if self.shared.ended().is_some() {
            return Err(self.closed_error());
        }
        self.tx
            .send(Request { text, expect })
            .map_err(|_| self.closed_error())?;
        self.info.requests.fetch_add(1, Ordering::Relaxed);
        Ok(tickets)
    }

    /// Waits for a ticket's answer until `deadline`.
    ///
    /// # Errors
    ///
    /// [`Error::Closed`], [`Error::Timeout`] (naming `what`).
    pub async fn wait(
        &self,
        ticket: Ticket,
        deadline: tokio::time::Instant,
        what: &str,
    ) -> Result<Reply, Error> {
        match tokio::time::timeout_at(deadline, ticket.rx).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err(self.closed_error()),
            Err(_) => Err(Error::Timeout {
                after: self.info.timeout,
                what: what.to_string(),
            }),
        }
    }

    /// The deadline for a request sent now.
    pub fn deadline(&self) -> tokio::time::Instant {
        tokio::time::Instant::now() + self.info.timeout
    }

    /// Sends `lines` in one write and waits for every answer under one
    /// deadline. Answers come back in order, one per line.
    pub async fn lines(&self, lines: &[Line]) -> Vec<Result<Reply, Error>> {
        let tickets = match self.submit(lines) {
            Ok(t) => t,
            Err(e) => {
                // `submit` fails with an encoding error or the connection's
                // end (`closed_error`: Closed, or Silent after the watchdog).
                return lines
                    .iter()
                    .map(|_| match &e {
                        Error::Command(c) => Err(Error::Command(c.clone())),
                        _ => Err(self.closed_error()),
                    })
                    .collect();
            }
        };
        let deadline = self.deadline();
        let mut out = Vec::with_capacity(lines.len());
        for (line, t) in lines.iter().zip(tickets) {
            let what = line.commands().first().map_or("", |c| c.name());
            out.push(self.wait(t, deadline, what).await);
        }
        out
    }

    /// Runs one command and returns its answer block (check
    /// [`Block::ok`]: a tmux error is an answer, not an `Err`).
    ///
    /// A [`Blocks::Variable`](super::command::Blocks) command is fenced;
    /// its blocks are merged into one (bodies concatenated, `ok` only if
    /// all were, stray lines appended).
    ///
    /// # Errors
    ///
    /// [`Error::Command`] if the command cannot be encoded,
    /// [`Error::Closed`], [`Error::Timeout`].
    pub async fn command(&self, cmd: &Command) -> Result<Block, Error> {
        let mut out = self.batch(std::slice::from_ref(cmd)).await;
        out.pop().unwrap_or_else(|| Err(self.closed_error()))
    }

    /// Runs several commands, one line each, written in one `write()`, so
    /// tmux reads them together and runs them back to back. Answers come
    /// back in order, each merged into one block as in
    /// [`Client::command`].
    pub async fn batch(&self, cmds: &[Command]) -> Vec<Result<Block, Error>> {
        let lines: Vec<Line> = cmds.iter().cloned().map(Line::from).collect();
        self.lines(&lines)
            .await
            .into_iter()
            .map(|r| r.map(merge))
            .collect()
    }

    /// Sends a line, then a fence, and returns everything up to the fence.
    ///
    /// # Errors
    ///
    /// As [`Client::command`].
    pub async fn fenced(&self, cmd: &Command) -> Result<Fenced, Error> {
        let t = self.submit_fenced(&Line::from(cmd.clone()))?;
        self.wait(t, self.deadline(), cmd.name()).await
    }

    fn submit_fenced(&self, line: &Line) -> Result<Ticket, Error> {
        let id = self.info.seq.fetch_add(1, Ordering::Relaxed);
        let mut text = line.to_line()?.into_bytes();
        text.push(b'\n');
        let token = push_fence(&mut text, id);
        let (tx, rx) = oneshot::channel();
        if self.shared.ended().is_some() {
            return Err(self.closed_error());
        }
        self.tx
            .send(Request {
                text,
                expect: vec![(Shape::Fenced(token), Waiter { id, tx: Some(tx) })],
            })
            .map_err(|_| self.closed_error())?;
        self.info.requests.fetch_add(1, Ordering::Relaxed);
        Ok(Ticket { id, rx })
    }

    /// Detaches cleanly (an empty line makes tmux exit the client) and
    /// waits briefly for the connection to end.
    pub async fn close(&self) {
        let Some(done) = self.end_watch() else {
            return;
        };
        let sent = self.tx.send(Request {
            text: b"\n".to_vec(),
            expect: vec![(
                Shape::Detach,
                Waiter {
                    id: self.info.seq.fetch_add(1, Ordering::Relaxed),
                    tx: None,
                },
            )],
        });
        if sent.is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(2), done).await;
        }
    }
}

/// Appends the fence line for request `id` to `text` and returns the line
/// its block holds (the token and `\n`). The token carries a nonce, so no
/// program in a pane can print it ahead of time and end an answer early;
/// it has no `%`, as display-message applies strftime().
fn push_fence(text: &mut Vec<u8>, id: u64) -> Vec<u8> {
    let t = format!("__tmuxwire_fence_{}_{id}__", crate::nonce::hex());
    text.extend_from_slice(b"display-message -p '");
    text.extend_from_slice(t.as_bytes());
    text.extend_from_slice(b"'\n");
    let mut token = t.into_bytes();
    token.push(b'\n');
    token
}

/// One block from a reply: the only one, or all merged.
fn merge(r: Reply) -> Block {
    let mut blocks = r.blocks;
    if blocks.len() == 1 && r.stray.is_empty() {
        return blocks.remove(0);
    }
    let mut merged = Block {
        time: 0,
        number: 0,
        flags: 1,
        ok: true,
        body: Vec::new(),
    };
    for b in &blocks {
        merged.ok &= b.ok;
        merged.body.extend_from_slice(&b.body);
    }
    for s in &r.stray {
        merged.body.extend_from_slice(s);
        merged.body.push(b'\n');
    }
    merged
}

/// The task that owns the connection.
struct Connection {
    shared: Arc<Shared>,
    correlator: Correlator<Waiter>,
    attach_tx: Option<oneshot::Sender<Result<(), String>>>,
    events: Option<mpsc::Sender<StreamEvent>>,
    /// The server's path (or `HOST:PATH`), for the watchdog's message.
    label: PathBuf,
}

impl Connection {
    async fn run(
        mut self,
        mut read: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
        mut write: Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
        imsg: std::pin::Pin<Box<dyn std::future::Future<Output = EndReason> + Send>>,
        mut rx: mpsc::UnboundedReceiver<Request>,
        watchdog: Option<Watchdog>,
    ) {
        let mut live = watchdog.map(|dog| Liveness::new(dog, Instant::now()));
        // Lazy: reads do not move it; when it fires early, it is set again
        // to the deadline the reads since then make.
        let check =
            tokio::time::sleep_until(live.as_ref().map_or_else(Instant::now, |l| l.next(false)));
        tokio::pin!(check);
        let mut imsg = imsg;
        let mut imsg_end: Option<EndReason> = None;
        let mut buf = vec![0u8; 256 * 1024];
        let mut out: Vec<u8> = Vec::new();
        let mut written = 0;
        let mut detaching = false;
        let mut requests_open = true;
        let reason: Option<String> = loop {
            tokio::select! {
                biased;
                r = read.read(&mut buf) => match r {
                    Ok(0) => break None,
                    Ok(n) => {
                        self.note_read();
                        let attaching = self.attach_tx.is_some();
                        if let Some(l) = &mut live {
                            l.read(Instant::now());
                        }
                        if let Err(why) = self.handle(&buf[..n]).await {
                            break Some(why);
                        }
                        // Attached: the timer was set for a client that
                        // cannot ask yet; now it can, an interval from now.
                        if let Some(l) = &live
                            && attaching
                            && self.attach_tx.is_none()
                        {
                            check.as_mut().reset(l.next(true));
                        }
                    }
                    Err(e) => break Some(format!("reading from tmux failed: {e}")),
                },
                end = &mut imsg, if imsg_end.is_none() => {
                    tracing::debug!(%end, "tmux imsg side ended");
                    imsg_end = Some(end);
                    // Drain what is left of the control stream, briefly.
                    let drain = tokio::time::sleep(Duration::from_millis(500));
                    tokio::pin!(drain);
                    let why = loop {
                        tokio::select! {
                            r = read.read(&mut buf) => match r {
                                Ok(0) | Err(_) => break None,
                                Ok(n) => {
                                    self.note_read();
                                    if let Err(why) = self.handle(&buf[..n]).await {
                                        break Some(why);
                                    }
                                }
                            },
                            _ = &mut drain => break None,
                        }
                    };
                    break why;
                }
                () = self.shared.abort.notified() => {
                    let why = self
                        .shared
                        .aborted
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .clone()
                        .unwrap_or_else(|| "the connection was aborted".into());
                    break Some(why);
                }
                () = &mut check, if live.is_some() => {
                    let Some(l) = &mut live else { continue };
                    // Only an attached client that is not leaving asks:
                    // before the attach's answer, or after the detaching
                    // line, tmux would not answer in order (or at all).
                    let can_ask = self.attach_tx.is_none() && requests_open && !detaching;
                    match l.tick(Instant::now(), can_ask) {
                        Tick::Wait => {}
                        Tick::Ask => {
                            // An answer nobody waits for: no ticket, no event.
                            let _ = self.correlator.push(
                                Shape::one(),
                                Waiter { id: u64::MAX, tx: None },
                            );
                            out.extend_from_slice(b"display-message -p ''\n");
                        }
                        Tick::Dead(silent) => {
                            self.shared.lock_state().silent = true;
                            tracing::warn!(
                                path = %self.label.display(),
                                silent_ms = silent.as_millis() as u64,
                                "control stream silent; closing"
                            );
                            break Some(format!(
                                "tmux at {} sent nothing for {:.1} s, not even the answer to a \
                                 liveness check; the connection was closed",
                                self.label.display(),
                                silent.as_secs_f64()
                            ));
                        }
                    }
                    check.as_mut().reset(l.next(can_ask));
                }
                w = write.write(&out[written..]), if written < out.len() => match w {
                    Ok(n) => {
                        written += n;
                        if written == out.len() {
                            out.clear();
                            written = 0;
                            if detaching {
                                // tmux exits the client after the empty line;
                                // keep reading until it does.
                            }
                        }
                    }
                    Err(e) => break Some(format!("writing to tmux failed: {e}")),
                },
                req = rx.recv(), if requests_open && !detaching && written == out.len() => match req {
                    Some(first) => {
                        let mut next = Some(first);
                        while let Some(req) = next {
                            for (shape, waiter) in req.expect {
                                if shape == Shape::Detach {
                                    detaching = true;
                                }
                                // A detach has no answer; nothing to keep.
                                let _ = self.correlator.push(shape, waiter);
                            }
                            out.extend_from_slice(&req.text);
                            next = if detaching { None } else { rx.try_recv().ok() };
                        }
                    }
                    None => {
                        // Every handle is gone: closing our write side makes
                        // tmux exit the client, which ends the reader.
                        requests_open = false;
                        let _ = write.shutdown().await;
                    }
                },
            }
        };
        let aborted = self
            .shared
            .aborted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        if imsg_end.is_none() && !aborted {
            // Give the imsg side a moment to report why, for a better
            // message.
            if let Ok(end) = tokio::time::timeout(Duration::from_millis(200), &mut imsg).await {
                imsg_end = Some(end);
            }
        }
        let why = match (reason, imsg_end) {
            // A broken stream is reported as such, whatever tmux did next.
            (Some(r), _) if self.correlator.is_poisoned() || aborted => r,
            (_, Some(end)) => end.to_string(),
            (Some(r), None) => r,
            (None, None) => EndReason::Eof.to_string(),
        };
        self.end(why, rx);
    }

    /// Notes that bytes came from tmux now ([`Client::last_read`]).
    fn note_read(&self) {
        *self
            .shared
            .last_read
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// Feeds stream bytes and delivers what they complete. `Err` ends the
    /// connection.
    async fn handle(&mut self, data: &[u8]) -> Result<(), String> {
        let mut outputs = Vec::new();
        self.correlator.feed(data, &mut |o| outputs.push(o));
        let mut attached = None;
        for o in outputs {
            match o {
                Output::Reply { token, reply } => {
                    let Waiter { id, tx } = token;
                    // No sender: the watchdog's check, which no caller
                    // knows of.
                    match tx {
                        Some(tx) => {
                            let _ = tx.send(Ok(reply));
                            self.emit(StreamEvent::Answered(id)).await;
                        }
                        None => {
                            self.shared.checks.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                // Answered after the whole chunk, so the `%session-changed`
                // that follows the attach is recorded first.
                Output::Attached(r) => attached = Some(r),
                Output::Notification(n) => {
                    if let Notification::SessionChanged { session, name } = &n {
                        self.shared.lock_state().session = Some((*session, name.clone()));
                    }
                    // Without an event stream nobody reads notifications
                    // (only the session above is kept).
                    if self.events.is_some() {
                        self.emit(StreamEvent::Notification(n)).await;
                    }
                }
                Output::Unclaimed(b) => {
                    tracing::debug!(number = b.number, flags = b.flags, "unclaimed tmux block");
                }
                Output::Violation(why) => {
                    tracing::warn!(%why, "tmux control stream broke a framing rule; closing");
                    return Err(format!(
                        "tmux's answer did not have the shape tmuxwire expected ({why}); the \
                         connection was closed so no cut or forged answer is used"
                    ));
                }
            }
        }
        if let (Some(r), Some(tx)) = (attached, self.attach_tx.take()) {
            let _ = tx.send(r);
        }
        Ok(())
    }

    async fn emit(&mut self, e: StreamEvent) {
        if let Some(tx) = &self.events
            && tx.send(e).await.is_err()
        {
            // Nobody listens any more.
            self.events = None;
        }
    }

    /// Records the end (first reason wins) and fails every open request:
    /// those tmux did not answer and those still queued (a request sent
    /// while the connection was ending must not wait for its deadline).
    fn end(mut self, reason: String, mut rx: mpsc::UnboundedReceiver<Request>) {
        let (reason, silent) = {
            let mut st = self.shared.lock_state();
            st.poisoned |= self.correlator.is_poisoned();
            (st.ended.get_or_insert(reason).clone(), st.silent)
        };
        rx.close();
        if let Some(tx) = self.attach_tx.take() {
            let _ = tx.send(Err(reason.clone()));
        }
        let queued = std::iter::from_fn(|| rx.try_recv().ok())
            .flat_map(|r| r.expect.into_iter().map(|(_, w)| w));
        for w in self.correlator.finish().into_iter().chain(queued) {
            if let Some(tx) = w.tx {
                let _ = tx.send(Err(Error::ended(reason.clone(), silent)));
            }
        }
        self.shared.done.notify_waiters();
    }
}

/// What the watchdog does when its timer fires ([`Liveness::tick`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tick {
    /// Nothing yet.
    Wait,
    /// Send a check.
    Ask,
    /// The far end is gone: nothing was read for this long.
    Dead(Duration),
}

/// The watchdog's state, pure so it can be tested without a clock: when
/// the stream was last read, and when the check now unanswered was sent.
#[derive(Clone, Copy, Debug)]
struct Liveness {
    dog: Watchdog,
    last_read: Instant,
    asked: Option<Instant>,
}

impl Liveness {
    fn new(dog: Watchdog, now: Instant) -> Liveness {
        Liveness {
            dog,
            last_read: now,
            asked: None,
        }
    }

    /// Bytes were read at `now`: the far end is there, and any check sent
    /// before is as good as answered.
    fn read(&mut self, now: Instant) {
        self.last_read = now;
        self.asked = None;
    }

    /// When [`Liveness::tick`] next has something to do. A client that
    /// cannot ask waits the interval and the patience from the last read.
    fn next(&self, can_ask: bool) -> Instant {
        match self.asked {
            Some(at) => at + self.dog.patience(),
            None if can_ask => self.last_read + self.dog.interval,
            None => self.last_read + self.dog.interval + self.dog.patience(),
        }
    }

    fn tick(&mut self, now: Instant, can_ask: bool) -> Tick {
        if now < self.next(can_ask) {
            return Tick::Wait;
        }
        if self.asked.is_none() && can_ask {
            self.asked = Some(now);
            return Tick::Ask;
        }
        Tick::Dead(now.saturating_duration_since(self.last_read))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dog() -> Watchdog {
        Watchdog {
            interval: Duration::from_secs(15),
            count: 3,
        }
    }

    /// A stream watched from now on, and the instant `n` seconds after
    /// the watch began.
    fn watched() -> (Liveness, impl Fn(u64) -> Instant) {
        let t0 = Instant::now();
        (Liveness::new(dog(), t0), move |n| {
            t0 + Duration::from_secs(n)
        })
    }

    #[test]
    fn a_quiet_stream_is_asked_after_the_interval_and_dead_after_the_patience() {
        let (mut l, at) = watched();
        assert_eq!(l.tick(at(14), true), Tick::Wait);
        assert_eq!(l.next(true), at(15));
        assert_eq!(l.tick(at(15), true), Tick::Ask);
        assert_eq!(l.next(true), at(60));
        assert_eq!(l.tick(at(59), true), Tick::Wait);
        assert_eq!(l.tick(at(60), true), Tick::Dead(Duration::from_secs(60)));
    }

    #[test]
    fn any_bytes_read_answer_the_check() {
        let (mut l, at) = watched();
        assert_eq!(l.tick(at(15), true), Tick::Ask);
        l.read(at(16));
        // The timer set for the patience fires: the read answered that
        // check, and the stream has been quiet for an interval since, so
        // it asks again.
        assert_eq!(l.tick(at(60), true), Tick::Ask);
        assert_eq!(l.next(true), at(105));
        l.read(at(61));
        assert_eq!(l.tick(at(70), true), Tick::Wait);
        assert_eq!(l.next(true), at(76));
    }

    #[test]
    fn a_client_that_cannot_ask_is_dead_after_interval_and_patience() {
        let (mut l, at) = watched();
        assert_eq!(l.tick(at(15), false), Tick::Wait);
        assert_eq!(l.next(false), at(60));
        assert_eq!(l.tick(at(60), false), Tick::Dead(Duration::from_secs(60)));
    }
}
