//! Push: events of the logs sent to the client as notifications, where a
//! client takes them. `poll_events` stays the portable path: standard
//! notifications do not wake an idle agent in today's coding clients.
//!
//! * Resource subscriptions on a `tmux://panes/{pane_id}` or `…/content`
//!   address (with `?socket_name=` for another server than the default):
//!   `notifications/resources/updated` with that address each time an
//!   event of the pane is logged (not on every output). Both forms rmcp
//!   speaks: `resources/subscribe` (protocol versions up to 2025-11-25)
//!   and `subscriptions/listen` with `resourceSubscriptions` (2026-07-28:
//!   the updates carry the listen request's id; cancelling the request
//!   ends them).
//! * The Claude Code channel (opt-in: `TMUXWIRE_CLAUDE_CHANNEL=1`): the
//!   server declares `experimental: {"claude/channel": {}}` and sends
//!   `notifications/claude/channel` with `params: {content: <summary>,
//!   meta: {kind, pane_id, session_id}}` for every event of every pane
//!   of every server tmuxwire talks to (the default, those calls named,
//!   the configured hosts').
//!
//! One forwarder task per tmux server runs `poll_events` on it in a loop
//! (a long poll: it wakes on the event) while something is asked of it; a
//! supervisor starts them as subscriptions come and calls name servers.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::service::SubscriptionSink;
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use serde_json::json;

use super::resources::{self, Address};
use crate::control::PaneId;
use crate::events::Cursor;
use crate::tmux::op::poll::{EventRow, PollEventsRequest, poll_events};
use crate::tmux::{Server, Servers};

/// The environment variable that turns the Claude Code channel on (`1`).
pub const CHANNEL_ENV: &str = "TMUXWIRE_CLAUDE_CHANNEL";

/// The channel's notification method.
pub const CHANNEL_METHOD: &str = "notifications/claude/channel";

/// Whether the channel is on (`TMUXWIRE_CLAUDE_CHANNEL=1`).
pub fn channel_enabled() -> bool {
    std::env::var(CHANNEL_ENV).is_ok_and(|v| v.trim() == "1")
}

/// How long one forwarding poll waits.
const POLL_FOR: Duration = Duration::from_secs(60);

/// Subscribed addresses at most per client session.
const MAX_SUBSCRIPTIONS: usize = 256;

/// A subscribed pane: its server and id.
#[derive(Clone, Debug)]
struct Sub {
    server: Arc<Server>,
    pane: PaneId,
}

/// One `subscriptions/listen` stream: its sink and addresses.
struct Listen {
    sink: SubscriptionSink,
    subs: HashMap<String, Sub>,
}

impl std::fmt::Debug for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listen").field("subs", &self.subs).finish()
    }
}

/// One client session's push state.
#[derive(Debug)]
pub struct Push {
    servers: Arc<Servers>,
    channel: bool,
    /// Mask secrets in what is sent (`--redact`).
    redact: bool,
    /// `resources/subscribe`: address → its pane.
    subs: Mutex<HashMap<String, Sub>>,
    /// `subscriptions/listen` streams open, by a number of ours.
    listens: Mutex<HashMap<u64, Listen>>,
    next_listen: std::sync::atomic::AtomicU64,
    started: std::sync::atomic::AtomicBool,
    /// Bumped when what is asked changes (subscriptions, listens, servers
    /// named by calls): the supervisor and the forwarders look again.
    changed: tokio::sync::watch::Sender<u64>,
}

impl Push {
    /// Push state for a client session of `servers` (`channel`: send the
    /// Claude Code channel's notifications; `redact`: mask secrets in them).
    pub fn new(servers: Arc<Servers>, channel: bool, redact: bool) -> Push {
        Push {
            servers,
            channel,
            redact,
            subs: Mutex::new(HashMap::new()),
            listens: Mutex::new(HashMap::new()),
            next_listen: std::sync::atomic::AtomicU64::new(0),
            started: std::sync::atomic::AtomicBool::new(false),
            changed: tokio::sync::watch::Sender::new(0),
        }
    }

    /// Whether the channel is on.
    pub fn channel(&self) -> bool {
        self.channel
    }

    fn subs(&self) -> std::sync::MutexGuard<'_, HashMap<String, Sub>> {
        self.subs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn listens(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Listen>> {
        self.listens.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Tells the supervisor that a call may have named a server it does
    /// not forward yet (the channel follows every server). Cheap: nothing
    /// happens unless the forwarders run.
    pub fn look_again(&self) {
        if self.channel && self.started.load(std::sync::atomic::Ordering::Relaxed) {
            self.bump();
        }
    }

    /// The pane and server of a subscribable address (`tmux://panes/%N`
    /// or `…/content`, `?socket_name=` for another server).
    ///
    /// # Errors
    ///
    /// `invalid_params` for another address, a pane not named by its id,
    /// or a socket name that cannot be one.
    fn sub_of(&self, uri: &str) -> Result<Sub, McpError> {
        let p =
            resources::parse(uri).map_err(|e| McpError::invalid_params(format!("{e:?}"), None))?;
        let pane = match &p.address {
            Address::Pane(id) | Address::Content(id) => id.parse::<PaneId>().map_err(|_| {
                McpError::invalid_params(
                    format!("subscriptions name a pane by its id (%N): {uri}"),
                    None,
                )
            })?,
            _ => {
                return Err(McpError::invalid_params(
                    format!("only pane addresses (tmux://panes/%N) can be subscribed to: {uri}"),
                    None,
                ));
            }
        };
        let server = self
            .servers
            .get(p.socket_name.as_deref())
            .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
        Ok(Sub { server, pane })
    }

    /// `resources/subscribe`: a pane's address.
    ///
    /// # Errors
    ///
    /// As [`Push::sub_of`]; past [`MAX_SUBSCRIPTIONS`].
    pub fn subscribe(&self, uri: &str) -> Result<(), McpError> {
        let sub = self.sub_of(uri)?;
        let mut subs = self.subs();
        if subs.len() >= MAX_SUBSCRIPTIONS && !subs.contains_key(uri) {
            return Err(McpError::invalid_params(
                format!("at most {MAX_SUBSCRIPTIONS} subscriptions"),
                None,
            ));
        }
        subs.insert(uri.to_string(), sub);
        drop(subs);
        self.bump();
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub fn unsubscribe(&self, uri: &str) {
        self.subs().remove(uri);
        self.bump();
    }

    /// The addresses of `uris` a `subscriptions/listen` stream may have:
    /// pane addresses, at most [`MAX_SUBSCRIPTIONS`].
    pub fn acceptable(&self, uris: &[String]) -> Vec<String> {
        uris.iter()
            .filter(|u| self.sub_of(u).is_ok())
            .take(MAX_SUBSCRIPTIONS)
            .cloned()
            .collect()
    }

    /// Runs one `subscriptions/listen` stream with the addresses accepted
    /// (`sink.accepted()`) until `cancelled` ends (the client cancelled
    /// the request or went).
    pub async fn listen(
        self: &Arc<Self>,
        sink: SubscriptionSink,
        cancelled: impl Future<Output = ()>,
        peer: Peer<RoleServer>,
    ) {
        let uris = sink
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let subs: HashMap<String, Sub> = uris
            .iter()
            .filter_map(|u| self.sub_of(u).ok().map(|s| (u.clone(), s)))
            .collect();
        let id = self
            .next_listen
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.listens().insert(id, Listen { sink, subs });
        self.start(peer);
        self.bump();
        cancelled.await;
        self.listens().remove(&id);
        self.bump();
    }

    /// Starts the supervisor (once) sending to `peer`.
    pub fn start(self: &Arc<Self>, peer: Peer<RoleServer>) {
        if self
            .started
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        tokio::spawn(supervise(self.clone(), peer));
    }

    /// The servers something is asked of: every server of the pools when
    /// the channel is on, else the servers of the subscriptions.
    fn wanted(&self) -> Vec<Arc<Server>> {
        let mut out: Vec<Arc<Server>> = Vec::new();
        if self.channel {
            out.extend(self.servers.handles());
            for h in self.servers.hosts() {
                out.extend(h.handles());
            }
        }
        out.extend(self.subs().values().map(|s| s.server.clone()));
        for l in self.listens().values() {
            out.extend(l.subs.values().map(|s| s.server.clone()));
        }
        let mut seen = HashSet::new();
        out.retain(|t| seen.insert(Arc::as_ptr(t)));
        out
    }

    /// The panes of `server` subscribed to (both forms).
    fn panes_of(&self, server: &Arc<Server>) -> Vec<PaneId> {
        let mut panes: Vec<PaneId> = self
            .subs()
            .values()
            .filter(|s| Arc::ptr_eq(&s.server, server))
            .map(|s| s.pane)
            .collect();
        for l in self.listens().values() {
            panes.extend(
                l.subs
                    .values()
                    .filter(|s| Arc::ptr_eq(&s.server, server))
                    .map(|s| s.pane),
            );
        }
        panes.sort_by_key(|p| p.0);
        panes.dedup();
        panes
    }

    /// Sends `e` of `server`: the channel's notification, and the update
    /// of each address subscribed to its pane. `false` when the client is
    /// gone.
    async fn send(&self, server: &Arc<Server>, e: &EventRow, peer: &Peer<RoleServer>) -> bool {
        if self.channel {
            let mut params = json!({
                "content": e.summary,
                "meta": {"kind": e.kind, "pane_id": e.pane_id, "session_id": e.session_id},
            });
            if self.redact {
                crate::redact::redact_value(&mut params);
            }
            let n = CustomNotification::new(CHANNEL_METHOD, Some(params));
            if peer
                .send_notification(ServerNotification::CustomNotification(n))
                .await
                .is_err()
            {
                return false;
            }
        }
        let of_pane = |s: &Sub| {
            Arc::ptr_eq(&s.server, server) && e.pane_id.as_deref() == Some(&s.pane.to_string())
        };
        let uris: Vec<String> = self
            .subs()
            .iter()
            .filter(|(_, s)| of_pane(s))
            .map(|(u, _)| u.clone())
            .collect();
        for uri in uris {
            let n = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            if peer.notify_resource_updated(n).await.is_err() {
                return false;
            }
        }
        let listened: Vec<(SubscriptionSink, String)> = self
            .listens()
            .values()
            .flat_map(|l| {
                l.subs
                    .iter()
                    .filter(|(_, s)| of_pane(s))
                    .map(|(u, _)| (l.sink.clone(), u.clone()))
            })
            .collect();
        for (sink, uri) in listened {
            let n = rmcp::model::ResourceUpdatedNotification::new(
                rmcp::model::ResourceUpdatedNotificationParam::new(uri),
            );
            // A stream that ended meanwhile is let go by its `listen`.
            let _ = sink
                .send(ServerNotification::ResourceUpdatedNotification(n))
                .await;
        }
        true
    }
}

/// The supervisor: a forwarder for each server something is asked of,
/// started as subscriptions come and calls name servers. Ends when the
/// client is gone.
async fn supervise(push: Arc<Push>, peer: Peer<RoleServer>) {
    let mut rx = push.changed.subscribe();
    // Keyed by the handle's address (`Arc::as_ptr`), held as a number.
    let mut running: HashMap<usize, tokio::task::JoinHandle<()>> = HashMap::new();
    loop {
        running.retain(|_, t| !t.is_finished());
        for server in push.wanted() {
            let key = Arc::as_ptr(&server) as usize;
            running
                .entry(key)
                .or_insert_with(|| tokio::spawn(forward(push.clone(), server, peer.clone())));
        }
        if peer.is_transport_closed() || rx.changed().await.is_err() {
            for t in running.values() {
                t.abort();
            }
            return;
        }
    }
}

/// The forwarder of one server: long polls of its log, each event sent
/// ([`Push::send`]); ends when nothing is asked of the server any more or
/// the client is gone.
async fn forward(push: Arc<Push>, server: Arc<Server>, peer: Peer<RoleServer>) {
    let mut cursor: Option<Cursor> = None;
    let mut rx = push.changed.subscribe();
    loop {
        rx.borrow_and_update();
        let panes = push.panes_of(&server);
        if !push.channel && panes.is_empty() {
            return;
        }
        let req = PollEventsRequest {
            cursor,
            follow_all: push.channel,
            panes: if push.channel { Vec::new() } else { panes },
            timeout: if cursor.is_some() {
                POLL_FOR
            } else {
                Duration::ZERO
            },
            ..PollEventsRequest::default()
        };
        let answer = tokio::select! {
            r = poll_events(&server, &req) => r,
            _ = rx.changed() => continue,
        };
        let r = match answer {
            Ok(r) => r,
            Err(e) => {
                // No server yet, or it went: the log starts over.
                tracing::debug!(%e, "event push: poll failed");
                cursor = None;
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        cursor = Cursor::decode(&r.cursor).ok();
        if r.outcome == "current" {
            continue;
        }
        for e in &r.events {
            if !push.send(&server, e, &peer).await {
                return;
            }
        }
    }
}
