//! Input: `send_keys`, `send_keys_batch`, `paste_text` (tmuxwire's paste
//! buffers are [`super::buffers`]).
//!
//! The commands come from [`crate::tmux::input`] (pure); what one call
//! types goes out as one control-mode line where it fits
//! ([`LINE_COMMANDS`]), so tmux runs it back to back (no other client's
//! keys in between) and stops at the first failure; the line starts with
//! a lookup of the pane, so a missing pane types nothing. What is typed is
//! noted per pane ([`crate::tmux::keys::TypedPanes`]) so that waits can
//! tell its echo from output.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;

use super::deliver::{Delivery, Presser, Submit};
use super::fit::Limit;
use super::{Op, Server};
use crate::control::{Command, Target, TargetKind};
use crate::mirror::echo::Origin;
use crate::tmux::input::{self, fill_buffer};
use crate::tmux::keys::{Keys, LINE_COMMANDS, Sent, check_text};
use crate::tmux::target::{one_record, template_cmd};
use crate::tmux::{Error, ErrorKind, Retry, Selector};

crate::record! {
    /// The pane a lookup ([`pane_id_lookup`]) found.
    pub(super) struct PaneIdRow {
        /// `%N`.
        pane_id: String = "pane_id",
        /// The pane's mode (`copy-mode`, `view-mode`, `tree-mode`, …;
        /// empty in none), read before typing leaves it.
        pane_mode: String = "pane_mode",
    }
}

/// The pane typed or pasted into, and the mode it was taken out of
/// first ([`crate::tmux::input::leave_modes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landed {
    /// `%N`.
    pub pane_id: String,
    /// The mode the pane was in (`copy-mode`, `view-mode`, `tree-mode`,
    /// …) and left before the keys went; `None`: it was in none.
    pub left_mode: Option<String>,
}

impl From<PaneIdRow> for Landed {
    fn from(r: PaneIdRow) -> Landed {
        Landed {
            pane_id: r.pane_id,
            left_mode: Some(r.pane_mode).filter(|m| !m.is_empty()),
        }
    }
}

/// `send_keys`: text typed exactly, or one key pressed by name, then
/// Enter unless `keys.enter` is false.
///
/// # Errors
///
/// `PasswordInput` for text into a password prompt (unless
/// allowed); `NotFound`; connection errors.
#[derive(Clone, Debug)]
pub struct SendKeysRequest {
    /// The pane (a window or session: its active pane).
    pub pane: Selector,
    /// What to send.
    pub keys: Keys,
    /// Type text even while the pane's program reads a password (else
    /// refused: [`crate::tmux::ErrorKind::PasswordInput`]; a key name
    /// such as `C-c` is always pressed).
    pub allow_password_input: bool,
    /// How text with Enter is submitted ([`super::deliver`]).
    pub submit: Submit,
}

/// What `send_keys` or `paste_text` did: the pane typed or pasted into
/// ([`KeysSent`], [`TextPasted`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TypedInto {
    /// The pane, `%N`.
    pub pane_id: String,
    /// The mode the pane was in (`copy-mode`, `view-mode`, …) and was
    /// taken out of before the keys or the paste went (keys sent to a
    /// pane in a mode go to the mode, not to the program); `None`: it was
    /// in none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_mode: Option<String>,
    /// For text with Enter: whether it arrived and was submitted, read
    /// from the pane's copy; `None` for keys, text without Enter, or with
    /// the mirror off.
    pub delivery: Option<Delivery>,
}

impl TypedInto {
    fn new(landed: Landed, delivery: Option<Delivery>) -> TypedInto {
        TypedInto {
            pane_id: landed.pane_id,
            left_mode: landed.left_mode,
            delivery,
        }
    }
}

/// What `send_keys` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct KeysSent(pub TypedInto);

op!(SendKeysRequest, KeysSent, async |req, server, _| {
    // A key (C-c, Escape, Enter) may always be pressed: it is how a
    // prompt is left.
    let Some(body) = req.keys.typed_text().filter(|_| req.keys.enter) else {
        if !req.allow_password_input && !req.keys.is_key() {
            super::state::refuse_password_input(server, &req.pane).await?;
        }
        let target = server.pane_target(&req.pane).await?;
        let landed = send_keys(server, &target, &req.keys).await?;
        return Ok(KeysSent(TypedInto::new(landed, None)));
    };
    let (landed, delivery) = submit_typed(
        server,
        &req.pane,
        req.allow_password_input,
        req.submit,
        &body,
        &Body::Keys(req.keys.clone()),
    )
    .await?;
    Ok(KeysSent(TypedInto::new(landed, delivery)))
});

/// Presses Enter in one pane.
struct EnterKey<'a> {
    server: &'a Server,
    target: Target,
}

impl super::deliver::Presser for EnterKey<'_> {
    async fn enter(&self) -> Result<(), Error> {
        let enter = Keys {
            keys: "Enter".into(),
            literal: false,
            enter: false,
            suppress_history: false,
        };
        send_keys(self.server, &self.target, &enter).await.map(drop)
    }
}

/// What is typed before Enter.
enum Body {
    /// Keys (text), as `send_keys` types them.
    Keys(Keys),
    /// A paste, as `paste_text` does it.
    Paste { text: String, bracket: bool },
}

impl Body {
    /// Types it into `target`, with Enter right after when `enter_too`;
    /// the pane's id and the mode it left.
    async fn send(
        &self,
        server: &Server,
        target: &Target,
        enter_too: bool,
    ) -> Result<Landed, Error> {
        match self {
            Body::Keys(k) => {
                // Enter follows (now or after the delay): the final line
                // break is not typed ([`Keys::typed_text`]).
                let k = Keys {
                    keys: crate::tmux::keys::without_final_newline(&k.keys).to_string(),
                    enter: enter_too,
                    ..k.clone()
                };
                send_keys(server, target, &k).await
            }
            Body::Paste { text, bracket } => {
                let landed = paste_text(server, target, text, *bracket).await?;
                if enter_too {
                    let enter = EnterKey {
                        server,
                        target: target.clone(),
                    };
                    enter.enter().await?;
                }
                Ok(landed)
            }
        }
    }
}

/// Types `body` with Enter as [`super::deliver`] says: the password
/// guard, the readiness gate, the body (with Enter when the delay is 0),
/// the delay, Enter, the confirmation. `text` is what the body types.
/// With the mirror off, the body and Enter go together, unconfirmed
/// (`None`).
async fn submit_typed(
    server: &Server,
    sel: &Selector,
    allow_password_input: bool,
    submit: Submit,
    text: &str,
    body: &Body,
) -> Result<(Landed, Option<Delivery>), Error> {
    let state = super::state::PaneStateRequest {
        pane: sel.clone(),
        follow: false,
    }
    .run(server, Limit::NONE)
    .await?;
    if !allow_password_input {
        super::state::refuse_password_state(&state)?;
    }
    let pane: crate::control::PaneId = state
        .pane_id
        .parse()
        .map_err(|_| Error::not_found(format!("can't find pane: {}", state.pane_id)))?;
    let target = Target::Pane(pane);
    if server.mirror().await.is_none() {
        let landed = body.send(server, &target, true).await?;
        return Ok((landed, None));
    }
    let copy = super::deliver::copy_of(server, pane).await?;
    let mut evidence = Vec::new();
    let gate = super::deliver::gate(
        submit.wait_ready,
        state.pane_age,
        state.shell_in_foreground,
        &mut evidence,
    );
    let ready = match gate {
        Some(at_most) => Some(
            super::deliver::wait_ready(state.process.as_ref(), &copy, at_most, &mut evidence).await,
        ),
        None => None,
    };
    let Some(before) = super::deliver::Before::of(&copy) else {
        let landed = body.send(server, &target, true).await?;
        return Ok((landed, None));
    };
    let delay = super::deliver::delay_for(&submit, state.input);
    evidence.push(format!(
        "input {} before typing: Enter {}",
        state.input.as_str(),
        if delay.is_zero() {
            "sent with the text".to_string()
        } else {
            format!("pressed {} ms after it", delay.as_millis())
        }
    ));
    let landed = body.send(server, &target, delay.is_zero()).await?;
    let presser = EnterKey { server, target };
    let enter_sent = delay.is_zero();
    let mut d = super::deliver::confirm(
        &copy,
        &before,
        text,
        delay,
        enter_sent,
        &presser,
        state.process.as_ref().map(|p| (p, state.input)),
        Delivery::new(ready, evidence),
    )
    .await?;
    if let Some(mode) = &landed.left_mode {
        d.evidence
            .insert(0, format!("the pane was in {mode}: left it before typing"));
    }
    Ok((landed, Some(d)))
}

/// `send_keys_batch`: several `send_keys` in order, in one round trip
/// where they fit (see [`send_keys_batch`]).
#[derive(Clone, Debug)]
pub struct SendKeysBatchRequest {
    /// Each operation's pane and keys, in order (at least one).
    pub ops: Vec<(Selector, Keys)>,
    /// Stop at the first failure (else every operation runs).
    pub stop_on_error: bool,
    /// How long the whole batch may take, targets resolved included.
    pub timeout: Option<Duration>,
    /// Type text even into a pane whose program reads a password (else
    /// the whole batch is refused, nothing typed).
    pub allow_password_input: bool,
}

/// The longest `send_keys_batch` timeout, in seconds: an hour.
pub const MAX_BATCH_SECONDS: f64 = 3600.0;

impl SendKeysBatchRequest {
    /// A batch of `ops`; `timeout` in seconds (at most
    /// [`MAX_BATCH_SECONDS`]).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for no operations, or a timeout that
    /// is not a positive number of seconds.
    pub fn new(
        ops: Vec<(Selector, Keys)>,
        stop_on_error: bool,
        timeout: Option<f64>,
    ) -> Result<SendKeysBatchRequest, Error> {
        if ops.is_empty() {
            return Err(Error::invalid(
                "operations",
                "operations must be a non-empty list",
                "a list of send_keys operations",
            ));
        }
        let timeout = match timeout {
            None => None,
            Some(s) if s > 0.0 && s.is_finite() => {
                Some(Duration::from_secs_f64(s.min(MAX_BATCH_SECONDS)))
            }
            Some(s) => {
                return Err(Error::invalid(
                    "timeout",
                    format!("timeout must be positive (received {s})"),
                    "seconds > 0, or null",
                ));
            }
        };
        Ok(SendKeysBatchRequest {
            ops,
            stop_on_error,
            timeout,
            allow_password_input: false,
        })
    }
}

/// What `send_keys_batch` did: each operation's outcome, in order (with
/// `stop_on_error`, none after the first failure).
#[derive(Debug)]
pub struct BatchSent(pub Vec<Sent>);

crate::fits_whole!(KeysSent, TextPasted, BatchSent);

op!(SendKeysBatchRequest, BatchSent, async |req, server, _| {
    let work = async {
        if !req.allow_password_input {
            // The panes text goes to (keys always go): those named by
            // id in one round trip, others one at a time.
            let mut ids = Vec::new();
            let mut named: Vec<&Selector> = Vec::new();
            for (sel, keys) in &req.ops {
                match sel.pane_id {
                    _ if keys.is_key() => {}
                    Some(p) if !ids.contains(&p) => ids.push(p),
                    Some(_) => {}
                    None if !named.contains(&sel) => named.push(sel),
                    None => {}
                }
            }
            super::state::refuse_password_panes(server, &ids).await?;
            for sel in named {
                match super::state::refuse_password_input(server, sel).await {
                    // A missing pane is that operation's failure.
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    r => r?,
                }
            }
        }
        let mut ops = Vec::with_capacity(req.ops.len());
        for (sel, keys) in req.ops {
            ops.push((server.pane_target(&sel).await?, keys));
        }
        send_keys_batch(server, &ops, req.stop_on_error).await
    };
    let sent = match req.timeout {
        None => work.await?,
        Some(d) => tokio::time::timeout(d, work).await.map_err(|_| {
            Error::timeout(format!(
                "batch execution exceeded timeout of {}s",
                d.as_secs_f64()
            ))
        })??,
    };
    Ok(BatchSent(sent))
});

/// `paste_text`: text pasted as a terminal paste does, through a private
/// buffer.
#[derive(Clone, Debug)]
pub struct PasteTextRequest {
    /// The pane.
    pub pane: Selector,
    /// The text (not empty, no NUL).
    pub text: String,
    /// Bracketed paste when the pane's program asked for it.
    pub bracket: bool,
    /// Paste even while the pane's program reads a password (else
    /// refused: [`crate::tmux::ErrorKind::PasswordInput`]).
    pub allow_password_input: bool,
    /// Press Enter after the paste (as a key of its own, after the
    /// submit delay), and confirm it ([`super::deliver`]).
    pub enter: bool,
    /// How Enter is pressed.
    pub submit: Submit,
}

impl PasteTextRequest {
    /// A paste of `text` into `pane`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] for empty text or text with a NUL.
    pub fn new(pane: Selector, text: String, bracket: bool) -> Result<PasteTextRequest, Error> {
        check_text("text", &text)?;
        Ok(PasteTextRequest {
            pane,
            text,
            bracket,
            allow_password_input: false,
            enter: false,
            submit: Submit::default(),
        })
    }
}

/// What `paste_text` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct TextPasted(pub TypedInto);

op!(PasteTextRequest, TextPasted, async |req, server, _| {
    if !req.enter {
        if !req.allow_password_input {
            super::state::refuse_password_input(server, &req.pane).await?;
        }
        let target = server.pane_target(&req.pane).await?;
        let landed = paste_text(server, &target, &req.text, req.bracket).await?;
        return Ok(TextPasted(TypedInto::new(landed, None)));
    }
    // Enter submits: a final line break pasted too would submit twice.
    let text = &input::paste_safe(crate::tmux::keys::without_final_newline(&req.text).as_bytes());
    let body = Body::Paste {
        text: text.to_string(),
        bracket: req.bracket,
    };
    let (landed, delivery) = submit_typed(
        server,
        &req.pane,
        req.allow_password_input,
        req.submit,
        text,
        &body,
    )
    .await?;
    Ok(TextPasted(TypedInto::new(landed, delivery)))
});

/// The `list-panes` command that prints the pane id `target` resolves to
/// (failing when there is none), and the query that reads it.
pub(super) fn pane_id_lookup(target: &Target) -> (Command, crate::control::format::Query) {
    let (cmd, q) = template_cmd("list-panes", PaneIdRow::FIELDS);
    let filter = match target {
        Target::Pane(p) => format!("#{{==:#{{pane_id}},{p}}}"),
        _ => "#{pane_active}".into(),
    };
    (cmd.target(target, TargetKind::Window).opt("-f", filter), q)
}

/// `target` as its pane's id when the mirror follows this server and
/// `target` names a session or window (one round trip): typing into a
/// pane is recorded by id (([`Server::begin_typing`])), so output of what
/// was typed counts for a wait whichever way the pane was named. The
/// pane is the one active when the call is made. Unchanged otherwise,
/// and when the lookup fails (the typing then fails with tmux's own
/// error).
async fn typing_target(server: &Server, target: &Target) -> Target {
    if matches!(target, Target::Pane(_)) || server.mirrored_server_pid().await.is_none() {
        return target.clone();
    }
    pane_of(server, target)
        .await
        .map_or_else(|_| target.clone(), Target::Pane)
}

/// The id of the pane `target` names (its active pane for a session or
/// window), in one round trip.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) when there is no such pane; connection errors.
async fn pane_of(server: &Server, target: &Target) -> Result<crate::control::PaneId, Error> {
    let (lookup, q) = pane_id_lookup(target);
    let out = server.act(vec![lookup]).await?;
    PaneIdRow::from_record(&one_record(
        &q,
        out.first().map_or(&[][..], |b| &b[..]),
        target,
    )?)
    .pane_id
    .parse()
    .map_err(|_| Error::not_found(format!("can't find {target}")))
}

/// Notes what `keys` typed into `pane_id` (the cursor then at
/// `origin`), or the key they pressed.
fn note_keys(server: &Server, pane_id: &str, keys: &Keys, origin: Option<Origin>) {
    match keys.typed_text() {
        Some(text) => {
            server.note_typed(pane_id, text.as_bytes(), keys.enter, origin);
        }
        None => server.note_key(pane_id),
    }
}

/// Sends `keys` to a pane; the pane's id and the mode it left. One
/// round trip: the lookup of the pane, [`input::leave_modes`] and the
/// keys go out in one write, as one line when they fit
/// [`LINE_COMMANDS`], else as several lines of that size (long text),
/// each leaving modes first; then, for a target other than a pane id,
/// the pane is looked up first (one more round trip), so every line
/// types into the same pane even if the active pane changes meanwhile.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound) (nothing is typed).
pub(super) async fn send_keys(
    server: &Server,
    target: &Target,
    keys: &Keys,
) -> Result<Landed, Error> {
    // Long input goes as several lines: they must all reach the pane the
    // first one did.
    let target = if keys.commands("%0").len() + 2 > LINE_COMMANDS {
        match target {
            Target::Pane(_) => target.clone(),
            _ => Target::Pane(pane_of(server, target).await?),
        }
    } else {
        typing_target(server, target).await
    };
    let origin = server.begin_typing(&target).await;
    let (lookup, q) = pane_id_lookup(&target);
    let arg = target.to_arg(TargetKind::Pane);
    let lines = input::typing_lines(lookup, &arg, keys.commands(&arg), LINE_COMMANDS);
    let answers = server.run_lines(&lines, Retry::Never).await?;
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
    let landed: Landed =
        PaneIdRow::from_record(&one_record(&q, &first.unwrap_or_default(), &target)?).into();
    note_keys(server, &landed.pane_id, keys, origin);
    Ok(landed)
}

/// Sends several `(target, keys)` in order. When everything fits one
/// line ([`LINE_COMMANDS`]), one round trip: with `stop_on_error` one
/// line, which tmux stops at the first failure so nothing after it
/// runs; else one line per operation, each on its own. Each operation
/// leaves its pane's modes first ([`input::leave_modes`]). Longer batches
/// send one operation after the other ([`send_keys`] each).
///
/// # Errors
///
/// Connection errors only; each operation's failure is in its [`Sent`].
pub(super) async fn send_keys_batch(
    server: &Server,
    ops: &[(Target, Keys)],
    stop_on_error: bool,
) -> Result<Vec<Sent>, Error> {
    let start = Instant::now();
    let mut resolved = Vec::with_capacity(ops.len());
    for (target, keys) in ops {
        resolved.push((typing_target(server, target).await, keys.clone()));
    }
    let ops = &resolved[..];
    let mut parts = Vec::with_capacity(ops.len());
    for (target, keys) in ops {
        let (lookup, q) = pane_id_lookup(target);
        let arg = target.to_arg(TargetKind::Pane);
        let mut cmds = vec![lookup, input::leave_modes(&arg)];
        cmds.extend(keys.commands(&arg));
        parts.push((cmds, q));
    }
    let total: usize = parts.iter().map(|(c, _)| c.len()).sum();
    let one_line_each = parts.iter().all(|(c, _)| c.len() <= LINE_COMMANDS);
    if (stop_on_error && total > LINE_COMMANDS) || !one_line_each {
        let mut sent = Vec::with_capacity(ops.len());
        for (target, keys) in ops {
            let result = send_keys(server, target, keys).await;
            if let Err(e) = &result
                && matches!(e.kind(), ErrorKind::Connection | ErrorKind::Timeout)
            {
                tracing::debug!(%e, "send_keys_batch stopped by the connection");
            }
            let failed = result.is_err();
            let (pane_id, result) = match result {
                Ok(p) => (Some(p.pane_id), Ok(())),
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
        origins.push(server.begin_typing(target).await);
    }
    let lines: Vec<Vec<Command>> = if stop_on_error {
        vec![parts.iter().flat_map(|(c, _)| c.clone()).collect()]
    } else {
        parts.iter().map(|(c, _)| c.clone()).collect()
    };
    let answers = server.run_lines(&lines, Retry::Never).await?;
    let elapsed = start.elapsed().as_secs_f64();
    let mut outputs: Vec<Vec<crate::tmux::Output>> = if stop_on_error {
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
        let pane_id = out.first().filter(|o| o.ok).and_then(|o| {
            q.parse(&o.body)
                .first()
                .map(|r| PaneIdRow::from_record(r).pane_id)
        });
        let result = match out.iter().find(|o| !o.ok) {
            Some(bad) => Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body))),
            None if out.len() < cmds.len() => {
                Err(Error::connection("tmux did not answer every command"))
            }
            None if pane_id.is_none() => Err(Error::not_found(format!("can't find {target}"))),
            None => Ok(()),
        };
        if let (Ok(()), Some(p)) = (&result, &pane_id) {
            note_keys(server, p, keys, origins.get(i).copied().flatten());
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
/// as a terminal paste does. The text goes as tmux 3.7+ pastes it, on
/// every version ([`input::paste_safe`]: control characters other than
/// tab, line breaks, backspace and bell as `^X`), so no text ends a
/// bracketed paste early. The pane leaves its modes first
/// ([`input::leave_modes`]). Returns the pane id and the mode it left.
///
/// # Errors
///
/// [`ErrorKind::NotFound`](crate::tmux::ErrorKind::NotFound); [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for empty text or
/// text with a NUL byte.
pub(super) async fn paste_text(
    server: &Server,
    target: &Target,
    text: &str,
    bracket: bool,
) -> Result<Landed, Error> {
    check_text("text", text)?;
    let text = &input::paste_safe(text.as_bytes());
    let target = &typing_target(server, target).await;
    let origin = server.begin_typing(target).await;
    let name = input::new_buffer_name("paste");
    let (lookup, q) = pane_id_lookup(target);
    let mut line = vec![lookup];
    line.extend(fill_buffer(&name, text));
    line.push(input::leave_modes(&target.to_arg(TargetKind::Pane)));
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
    let mut answers = server.run_lines(&[line, cleanup], Retry::Never).await?;
    answers.truncate(1);
    let out = answers.pop().unwrap_or_default();
    if let Some(bad) = out.iter().find(|o| !o.ok) {
        return Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body)));
    }
    if out.len() < n {
        return Err(Error::connection("tmux did not answer every command"));
    }
    let landed: Landed = PaneIdRow::from_record(&one_record(&q, &out[0].body, target)?).into();
    server.note_typed(&landed.pane_id, text.as_bytes(), false, origin);
    Ok(landed)
}
