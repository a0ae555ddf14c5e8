//! Push: events of the log sent to the client as notifications, where a
//! client takes them. `poll_events` stays the portable path: standard
//! notifications do not wake an idle agent in today's coding clients.
//!
//! * Resource subscriptions (`resources/subscribe` with a
//!   `tmux://panes/{pane_id}` or `…/content` address of the default
//!   server): `notifications/resources/updated` with that address each
//!   time an event of the pane is logged (not on every output).
//! * The Claude Code channel (opt-in: `TMUXWIRE_CLAUDE_CHANNEL=1`): the
//!   server declares `experimental: {"claude/channel": {}}` and sends
//!   `notifications/claude/channel` with `params: {content: <summary>,
//!   meta: {kind, pane_id, session_id}}` for every event of every pane
//!   (the channel follows every pane of the default server).
//!
//! One forwarder task per client session runs `poll_events` in a loop
//! (a long poll: it wakes on the event) once either is asked for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use serde_json::json;

use super::resources::{self, Address};
use crate::control::PaneId;
use crate::events::Cursor;
use crate::tmux::Servers;
use crate::tmux::op::poll::{PollEventsRequest, poll_events};

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

/// One client session's push state.
#[derive(Debug)]
pub struct Push {
    servers: Arc<Servers>,
    channel: bool,
    /// Mask secrets in what is sent (`--redact`).
    redact: bool,
    /// Subscribed address → its pane.
    subs: Mutex<HashMap<String, PaneId>>,
    started: std::sync::atomic::AtomicBool,
    /// Bumped when the subscriptions change (the forwarder follows the
    /// new panes at its next poll).
    changed: tokio::sync::Notify,
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
            started: std::sync::atomic::AtomicBool::new(false),
            changed: tokio::sync::Notify::new(),
        }
    }

    /// Whether the channel is on.
    pub fn channel(&self) -> bool {
        self.channel
    }

    fn subs(&self) -> std::sync::MutexGuard<'_, HashMap<String, PaneId>> {
        self.subs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `resources/subscribe`: a pane's address (`tmux://panes/{pane_id}`
    /// or `…/content`, of the default server).
    ///
    /// # Errors
    ///
    /// `invalid_params` for another address, a pane not named by its id,
    /// another server's pane, or past [`MAX_SUBSCRIPTIONS`].
    pub fn subscribe(&self, uri: &str) -> Result<(), McpError> {
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
        if p.socket_name.is_some() {
            return Err(McpError::invalid_params(
                "subscriptions are for the default server's panes (no socket_name)",
                None,
            ));
        }
        let mut subs = self.subs();
        if subs.len() >= MAX_SUBSCRIPTIONS && !subs.contains_key(uri) {
            return Err(McpError::invalid_params(
                format!("at most {MAX_SUBSCRIPTIONS} subscriptions"),
                None,
            ));
        }
        subs.insert(uri.to_string(), pane);
        drop(subs);
        self.changed.notify_one();
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub fn unsubscribe(&self, uri: &str) {
        self.subs().remove(uri);
    }

    /// Starts the forwarder (once) sending to `peer`.
    pub fn start(self: &Arc<Self>, peer: Peer<RoleServer>) {
        if self
            .started
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        tokio::spawn(forward(self.clone(), peer));
    }
}

/// The forwarder: long polls of the default server's log, each event sent
/// as the channel's notification and to the pane's subscribed addresses.
/// Ends when the client is gone.
async fn forward(push: Arc<Push>, peer: Peer<RoleServer>) {
    let mut cursor: Option<Cursor> = None;
    loop {
        let panes: Vec<PaneId> = push.subs().values().copied().collect();
        if !push.channel && panes.is_empty() {
            push.changed.notified().await;
            continue;
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
        let server = push.servers.default_server();
        let answer = tokio::select! {
            r = poll_events(server, &req) => r,
            () = push.changed.notified() => continue,
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
            if push.channel {
                let mut params = json!({
                    "content": e.summary,
                    "meta": {"kind": e.kind, "pane_id": e.pane_id, "session_id": e.session_id},
                });
                if push.redact {
                    crate::redact::redact_value(&mut params);
                }
                let n = CustomNotification::new(CHANNEL_METHOD, Some(params));
                if peer
                    .send_notification(ServerNotification::CustomNotification(n))
                    .await
                    .is_err()
                {
                    return;
                }
            }
            let uris: Vec<String> = push
                .subs()
                .iter()
                .filter(|(_, p)| e.pane_id.as_deref() == Some(&p.to_string()))
                .map(|(u, _)| u.clone())
                .collect();
            for uri in uris {
                let n = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
                if peer.notify_resource_updated(n).await.is_err() {
                    return;
                }
            }
        }
    }
}
