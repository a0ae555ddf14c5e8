//! Whether a pane's program has been reading input for a while, watched
//! during a wait ([`InputWatch`]): every wait (`wait_for_text`, `wait_for_command`,
//! `wait_for_stable`, `run_command`) ends early as `password_prompt` or
//! `awaiting_input` once the pane's program has read a line (without or
//! with echo), or waited for a single key ([`Input::KeyRead`]: `read -n
//! 1`, a y/n question), for [`INPUT_LASTS`] while the pane printed
//! nothing, since nothing more will come until someone types.
//!
//! The facts are `get_pane_state`'s ([`crate::sys::input::classify`]):
//! the pane terminal's settings and `/proc`. tmux is asked once for the
//! pane's tty and pid; later looks are local reads (a `tcgetattr` and a
//! few `/proc` files). Looks are made only while the pane is quiet (a
//! program reading a line prints nothing meanwhile): the first
//! [`QUIET`] after its last output, then at growing intervals (at most
//! [`EVERY_AT_MOST`]), so a wait on a busy or silent pane is woken by
//! its output and the vigil, not by a poll.

use std::time::Duration;

use tokio::time::Instant;

use super::synced::Followed;
use crate::control::format::Query;
use crate::control::{PaneId, Target};
use crate::mirror::PaneMirror;
use crate::sys::input::Input;
use crate::sys::probe::{self, PaneProcess};
use crate::tmux::Error;
use crate::tmux::Server;
use crate::tmux::target::{one_record, pane_lookup};

/// How long a program must have been reading (a password, an echoed
/// line, a key) with no output before a wait ends on it: a program passes
/// through such reads on its way (a shell resets the terminal before it
/// runs a command).
pub const INPUT_LASTS: Duration = Duration::from_millis(300);

/// How long after the pane's last output the first look is made.
const QUIET: Duration = Duration::from_millis(100);

/// The longest interval between looks while the pane stays quiet and
/// its program does not read.
const EVERY_AT_MOST: Duration = Duration::from_millis(1000);

/// What tmux said about the pane, once: where its facts are read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcessRef {
    /// `#{pane_tty}`.
    pub tty: String,
    /// `#{pane_pid}`.
    pub pane_pid: u32,
    /// `#{pid}`.
    pub server_pid: Option<u32>,
}

impl ProcessRef {
    /// The pane's tty and `/proc`, read now ([`probe::probe`]).
    pub(crate) fn probe(&self) -> crate::sys::input::Facts {
        probe::probe(&PaneProcess {
            tty: &self.tty,
            pane_pid: self.pane_pid,
            server_pid: self.server_pid,
        })
    }

    /// The input state and its evidence, read now; the text left of the
    /// cursor, where the decision needs it
    /// ([`crate::sys::input::needs_prompt_row`]), and whether its marks say
    /// a command runs, from `copy`, the pane's copy.
    pub(crate) fn read(&self, copy: &PaneMirror) -> (Input, Vec<String>) {
        let mut facts = self.probe();
        if crate::sys::input::needs_prompt_row(&facts) {
            facts.prompt_row = prompt_row_of(copy);
        }
        facts.command_running = marks_running(copy);
        crate::sys::input::classify(&facts)
    }
}

/// The text left of the cursor on its row in `copy` (the screen shown,
/// the alternate one included); `None` without a screen.
pub(crate) fn prompt_row_of(copy: &PaneMirror) -> Option<String> {
    let view = copy.view();
    let t = view.term()?;
    let cursor = t.cursor();
    let rows = t.screen_rows();
    let (row, _) = rows.get(cursor.y.0 as usize)?;
    let row = String::from_utf8_lossy(row);
    Some(crate::sys::input::left_of(&row, cursor.x.0).to_string())
}

/// Whether the marks in `copy` say the pane's shell runs a command
/// ([`crate::term::Commands::running`]); `None` without a copy's terminal.
pub(crate) fn marks_running(copy: &PaneMirror) -> Option<bool> {
    copy.view().term().map(|t| t.commands().running().is_some())
}

/// A wait's watch on whether the pane's program reads input.
pub(crate) struct InputWatch {
    pane: PaneId,
    /// `None` before tmux was asked; `Some(None)` when it could not say
    /// (the pane is gone: left to the vigil).
    process: Option<Option<ProcessRef>>,
    /// The reading state seen, and since when.
    seen: Option<(Input, Instant)>,
    /// The pane's last output (the mirror's clock) at the last look.
    last_output: Option<u64>,
    /// No look before this.
    next: Instant,
    /// The interval after a look that found no read.
    backoff: Duration,
    /// When the wait must wake for the next look.
    due: Instant,
}

impl InputWatch {
    pub(crate) fn new(pane: PaneId) -> InputWatch {
        let now = Instant::now();
        InputWatch {
            pane,
            process: None,
            seen: None,
            last_output: None,
            next: now,
            backoff: QUIET,
            due: now + QUIET,
        }
    }

    /// When the wait must wake for this watch's next look (as of the last
    /// [`InputWatch::check`]).
    pub(crate) fn wake_at(&self) -> Instant {
        self.due
    }

    /// The state and its evidence once the program has been reading, with
    /// the pane quiet, for [`INPUT_LASTS`]; looks only when due (see the
    /// module docs).
    ///
    /// # Errors
    ///
    /// None so far: a look that fails (the connection broke) is tried
    /// again later, and a pane that is gone is left to the vigil.
    pub(crate) async fn check(
        &mut self,
        server: &Server,
        f: &Followed,
    ) -> Result<Option<(Input, Vec<String>)>, Error> {
        let now = Instant::now();
        let last = f.pane.view().screen_state().and_then(|s| s.last_output_at);
        if last != self.last_output {
            // Output came: whatever was read before is not a read that
            // lasted.
            self.last_output = last;
            self.seen = None;
            self.backoff = QUIET;
            self.next = now;
        }
        let quiet_from = last.map_or(now, |us| {
            Instant::from_std(crate::mirror::instant_of(us)) + QUIET
        });
        self.due = self.next.max(quiet_from);
        if now < self.due {
            return Ok(None);
        }
        let process = match self.process(server).await {
            Ok(p) => p,
            Err(e) => {
                // The connection broke meanwhile (a remote host's link
                // dropped): the facts are read again later; the wait goes
                // on, and its vigil says when the server is gone.
                tracing::debug!(pane = %self.pane, %e, "the pane's terminal facts were not read");
                self.next = now + self.backoff;
                self.backoff = (self.backoff * 2).min(EVERY_AT_MOST);
                self.due = self.next;
                return Ok(None);
            }
        };
        let Some(process) = process else {
            self.due = now + EVERY_AT_MOST;
            return Ok(None);
        };
        let (input, evidence) = process.read(&f.pane);
        if !matches!(input, Input::Password | Input::LineRead | Input::KeyRead) {
            self.seen = None;
            self.next = now + self.backoff;
            self.backoff = (self.backoff * 2).min(EVERY_AT_MOST);
            self.due = self.next;
            return Ok(None);
        }
        match self.seen {
            Some((i, at)) if i == input && now >= at + INPUT_LASTS => Ok(Some((input, evidence))),
            Some((i, at)) if i == input => {
                self.next = at + INPUT_LASTS;
                self.due = self.next;
                Ok(None)
            }
            _ => {
                self.seen = Some((input, now));
                self.next = now + INPUT_LASTS;
                self.due = self.next;
                Ok(None)
            }
        }
    }

    /// The pane's tty and pid, asked of tmux the first time.
    async fn process(&mut self, server: &Server) -> Result<Option<ProcessRef>, Error> {
        if let Some(p) = &self.process {
            return Ok(p.clone());
        }
        let p = match process_of(server, self.pane).await {
            Ok(p) => p,
            Err(e) if e.kind() == crate::tmux::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        self.process = Some(p.clone());
        Ok(p)
    }
}

crate::record! {
    /// What [`process_of`] asks tmux of a pane (the fields
    /// `get_pane_state` reads its facts from).
    pub(crate) struct ProcessRow {
        pub(crate) pane_pid: u32 = "pane_pid",
        pub(crate) pane_tty: String = "pane_tty",
        pub(crate) pane_dead: bool = "pane_dead",
        pub(crate) server_pid: Option<u32> = "pid",
    }
}

impl ProcessRow {
    /// Where the pane's facts are read; `None` for a dead pane.
    pub(crate) fn process(&self) -> Option<ProcessRef> {
        (!self.pane_dead).then(|| ProcessRef {
            tty: self.pane_tty.clone(),
            pane_pid: self.pane_pid,
            server_pid: self.server_pid,
        })
    }
}

/// Where the input facts of `pane` are read: its tty and pids as tmux
/// lists them (one round trip); `None` for a dead pane.
///
/// # Errors
///
/// `NotFound` for a missing pane; connection errors.
async fn process_of(server: &Server, pane: PaneId) -> Result<Option<ProcessRef>, Error> {
    let target = Target::Pane(pane);
    let q = Query::new(ProcessRow::FIELDS);
    let body = server.run(&pane_lookup(&target, &q)).await?.into_result()?;
    Ok(ProcessRow::from_record(&one_record(&q, &body, &target)?).process())
}
