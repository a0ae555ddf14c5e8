//! The session watch's I/O: the task that owns the control connection,
//! feeds the [`Watch`] state machine the stream's notifications and
//! answers, its commands, its builds' results, seed slots and the time,
//! and carries out the [`Effect`]s it returns (lines sent, copies built on
//! a blocking thread, history buffers deleted, the connection closed).
//! Every decision is the state machine's (see [`super`] for the ordering
//! argument it rests on); this file only waits and moves values.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;

use super::{BUILDS_OUT, Build, Built, Effect, Watch, WatchCmd};
use crate::control::client::{StreamEvent, Ticket};
use crate::control::{Client, SessionId};
use crate::mirror::MirrorShared;
use crate::mirror::seed;
use crate::term::LineIndex;

/// The task that owns one session's connection and drives its [`Watch`].
pub(crate) struct Driver {
    watch: Watch,
    client: Client,
    shared: Arc<MirrorShared>,
    /// Lines sent and not yet answered: the client's request id, its
    /// ticket and the watch's job id.
    tickets: HashMap<u64, (Ticket, u64)>,
    /// Where build tasks report back.
    built_tx: mpsc::Sender<Built>,
    built_rx: Option<mpsc::Receiver<Built>>,
}

impl Driver {
    pub(crate) fn new(session: SessionId, client: Client, shared: Arc<MirrorShared>) -> Driver {
        let (built_tx, built_rx) = mpsc::channel(BUILDS_OUT + 1);
        Driver {
            watch: Watch::new(session, shared.clone(), Instant::now()),
            client,
            shared,
            tickets: HashMap::new(),
            built_tx,
            built_rx: Some(built_rx),
        }
    }

    /// Runs until the connection ends (or every handle to the mirror is
    /// gone).
    pub(crate) async fn run(
        mut self,
        mut events: mpsc::Receiver<StreamEvent>,
        mut cmds: mpsc::Receiver<WatchCmd>,
    ) {
        // Adopt the session's panes at once, so output is followed from
        // the start (a pane that prints and exits before any call is still
        // kept).
        self.watch.at(Instant::now()).list();
        self.carry_out();
        let Some(mut built) = self.built_rx.take() else {
            return;
        };
        loop {
            let wants_slot = self.watch.wants_slot();
            let slots = self.shared.seed_slots.clone();
            let background_at = self
                .watch
                .background_due(Instant::now())
                .map(tokio::time::Instant::from_std);
            let flood_at = self.watch.flood_due().map(tokio::time::Instant::from_std);
            tokio::select! {
                _ = tokio::time::sleep_until(flood_at.unwrap_or_else(tokio::time::Instant::now)),
                    if flood_at.is_some() => self.watch.at(Instant::now()).flood_tick(),
                Some((pane, key, copy)) = built.recv() => {
                    self.watch.at(Instant::now()).built(pane, key, copy)
                }
                _ = tokio::time::sleep_until(background_at.unwrap_or_else(tokio::time::Instant::now)),
                    if background_at.is_some() => self.watch.at(Instant::now()).background_tick(),
                permit = slots.acquire_owned(), if wants_slot => {
                    if let Ok(p) = permit {
                        self.watch.at(Instant::now()).slot(p);
                    }
                }
                ev = events.recv() => match ev {
                    Some(StreamEvent::Notification(n)) => {
                        self.watch.at(Instant::now()).notification(n)
                    }
                    Some(StreamEvent::Answered(id)) => self.answered(id),
                    None => break,
                },
                cmd = cmds.recv() => match cmd {
                    Some(WatchCmd::Sync { panes, want, reply, outcomes }) => {
                        self.watch.at(Instant::now()).sync(panes, want, reply, outcomes)
                    }
                    Some(WatchCmd::List) => self.watch.at(Instant::now()).list(),
                    Some(WatchCmd::CheckHistory { pane, reply }) => {
                        let _ = reply.send(self.watch.at(Instant::now()).check_history_again(pane));
                    }
                    None => break,
                },
            }
            self.carry_out();
        }
        let why = self.client.end_reason();
        self.client.close().await;
        self.watch.release();
        tracing::debug!(session = %self.watch.session(), why = why.as_deref().unwrap_or("closed here"), "session watch ended");
    }

    /// The client's request `id` was answered: its reply goes to the job
    /// that sent it.
    fn answered(&mut self, id: u64) {
        let Some((mut ticket, job)) = self.tickets.remove(&id) else {
            return;
        };
        let reply = ticket.try_take();
        self.watch.at(Instant::now()).answered(job, reply);
    }

    /// Carries out the watch's effects, and those that carrying them out
    /// brings (a line the client refuses is answered with its error at
    /// once), until there are none.
    fn carry_out(&mut self) {
        loop {
            let effects = self.watch.effects();
            if effects.is_empty() {
                return;
            }
            for e in effects {
                match e {
                    Effect::Send { job, line } => {
                        match self.client.submit(std::slice::from_ref(&line)) {
                            Ok(mut t) => {
                                if let Some(ticket) = t.pop() {
                                    self.tickets.insert(ticket.id(), (ticket, job));
                                }
                            }
                            Err(e) => {
                                tracing::debug!(%e, "session watch: could not send");
                                self.watch.at(Instant::now()).answered(job, Some(Err(e)));
                            }
                        }
                    }
                    Effect::Build(b) => self.build(b),
                    Effect::DropBuffer(name) => self.drop_buffer(name),
                    Effect::Close => {
                        let c = self.client.clone();
                        tokio::spawn(async move { c.close().await });
                    }
                }
            }
        }
    }

    /// Builds `pane`'s copy from a seed's answer ([`Effect::Build`]): a
    /// task reads the history the line left in a buffer, if any, and lays
    /// the copy out on a blocking thread; [`Watch::built`] takes it. The
    /// watch goes on reading the stream meanwhile (the pane's output is
    /// held), and the next seed line goes at once, so tmux captures the
    /// next pane while this one is built.
    fn build(&self, b: Build) {
        let tx = self.built_tx.clone();
        let (shared, client) = (self.shared.clone(), self.client.clone());
        let pane = b.pane;
        tokio::spawn(async move {
            // Never closed: `acquire` fails only on a closed semaphore.
            let _slot = shared.build_slots.acquire().await;
            let history = match &b.history_buffer {
                Some(name) => match shared.fetch_history(&client, name).await {
                    Ok(bytes) => Some(bytes),
                    Err(e) => {
                        tracing::debug!(%pane, %e, "could not read the history buffer");
                        None
                    }
                },
                None => None,
            };
            let rules = shared.rules;
            let (reply, recipe, continued, depth) = (b.reply, b.recipe, b.continued, b.depth);
            let copy = tokio::task::spawn_blocking(move || {
                let started = Instant::now();
                let bytes = reply.blocks.iter().map(|b| b.body.len()).sum::<usize>()
                    + history.as_ref().map_or(0, Vec::len);
                // Numbered from 0: [`Watch::install`] renumbers it.
                let opts = seed::SeedOptions {
                    rules,
                    first: LineIndex(0),
                };
                let built = seed::build(reply, &recipe, continued, depth, &opts, history);
                if let Ok(b) = &built {
                    // Before the copy is shared: the first search then
                    // reads summaries instead of making them.
                    b.term.history().summarize_sealed();
                }
                tracing::debug!(%pane, bytes, ?depth, took = ?started.elapsed(), "seed answer built");
                built
            })
            .await
            .unwrap_or_else(|e| {
                Err(seed::SeedFailure::Unusable(format!(
                    "building the copy failed: {e}"
                )))
            });
            let _ = tx.send((pane, b.key, copy)).await;
        });
    }

    /// Deletes a history buffer no copy will be built from.
    fn drop_buffer(&self, name: String) {
        let endpoint = self.shared.endpoint.clone();
        let timeout = self.shared.fetch_timeout;
        tokio::spawn(async move {
            let delete: [&str; 3] = ["delete-buffer", "-b", &name];
            let _ = endpoint.run_command(&delete, timeout).await;
        });
    }
}
