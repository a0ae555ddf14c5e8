//! Opening, keeping and reopening a [`Server`]'s control connection:
//! the link (control client or one-shot fallback), why one failed, the
//! session it stays on, idle close and stale remote clients.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::{Activity, Link, LinkSlot, Server};
use crate::control::{self, Client, ClientOptions, Command, SessionId};
use crate::tmux::error::{Error, ErrorKind};
use crate::wire::{self, ControlOptions, Framing, TmuxVersion};

/// Closes `client` once the handle has been idle for `after`.
pub(super) fn close_when_idle(client: Client, activity: Arc<Activity>, after: Duration) {
    tokio::spawn(async move {
        loop {
            let idle = activity.idle();
            if client.is_closed() {
                return;
            }
            if idle >= after {
                tracing::debug!("closing the idle tmux control connection");
                client.close().await;
                return;
            }
            tokio::time::sleep(after - idle + Duration::from_millis(10)).await;
        }
    });
}

/// The oldest session of a `list-sessions -F '#{session_created}
/// #{session_id}'` answer (ties: the lowest id); `None` when it lists none.
pub(super) fn oldest_session(listing: &str) -> Option<SessionId> {
    listing
        .lines()
        .filter_map(|l| {
            let (created, id) = l.trim().split_once(' ')?;
            Some((created.parse::<u64>().ok()?, id.parse::<SessionId>().ok()?))
        })
        .min_by_key(|&(created, id)| (created, id.0))
        .map(|(_, id)| id)
}

/// Asks tmux 3.6 and later to move the command connection to another
/// session when its own is destroyed, instead of exiting it
/// (`refresh-client -f no-detach-on-destroy`: server-client.c
/// `server_client_set_flags()`, server-fn.c `server_destroy_session()`),
/// so a session killed by someone else never ends the connection calls
/// are in flight on. Older versions have no such flag (the connection
/// then attaches to the oldest session: [`Server::steady_session`]). A
/// refusal is only logged.
pub(super) async fn stay_on_destroy(client: &Client, version: &TmuxVersion) {
    if !version.at_least(3, 6) {
        return;
    }
    let flag = Command::new("refresh-client").opt("-f", "no-detach-on-destroy");
    match client.command(&flag).await {
        Ok(b) if b.ok => {}
        Ok(b) => tracing::debug!(error = %b.text(), "no-detach-on-destroy refused"),
        Err(e) => tracing::debug!(%e, "no-detach-on-destroy not set"),
    }
}

/// Detaches the clients this process left on a remote server over an
/// earlier ssh master ([`wire::ssh::Remote::is_stale_term`]): after a
/// partition, the server keeps them until sshd notices the dead link.
/// Only those: never another process's clients, nor a person's.
pub(super) async fn detach_stale(c: Client, remote: wire::ssh::Remote) {
    let list = Command::new("list-clients").opt("-F", "#{client_name}\t#{client_termname}");
    let Ok(b) = c.command(&list).await else {
        return;
    };
    if !b.ok {
        return;
    }
    let body = String::from_utf8_lossy(&b.body).into_owned();
    let stale: Vec<Command> = body
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(_, term)| remote.is_stale_term(term))
        .map(|(name, _)| Command::new("detach-client").opt("-t", name.to_string()))
        .collect();
    if !stale.is_empty() {
        tracing::debug!(
            n = stale.len(),
            "detaching tmuxwire's clients left by an earlier ssh link"
        );
        let _ = c.batch(&stale).await;
    }
}

/// How long a handle in one-shot mode waits before trying to attach a
/// control client again.
pub(super) const ONESHOT_RETRY: Duration = Duration::from_millis(500);

impl Server {
    /// The link to use, opened when there is none (or the last one closed).
    /// Callers that arrive while another opens one wait for that attempt
    /// and then look again, so one connection is opened at a time; no
    /// lock is held while connecting.
    pub(super) async fn link(&self) -> Result<Link, Error> {
        let _opening = loop {
            let mut wait = {
                let mut slot = self.link_slot();
                match slot.link.as_ref() {
                    Some(Link::Control(c)) if !c.is_closed() => {
                        return Ok(Link::Control(c.clone()));
                    }
                    Some(l @ Link::OneShot { since, .. }) if since.elapsed() < ONESHOT_RETRY => {
                        return Ok(l.clone());
                    }
                    _ => {}
                }
                match &slot.opening {
                    // `has_changed` fails once the opener dropped its
                    // sender: that attempt is over.
                    Some(rx) if rx.has_changed().is_ok() => rx.clone(),
                    _ => {
                        let (tx, rx) = watch::channel(());
                        slot.opening = Some(rx);
                        break tx;
                    }
                }
            };
            // Resolves (with an error) when the opener drops its sender.
            let _ = wait.changed().await;
        };
        // `_opening` (the sender) is dropped on every way out of this
        // function, cancellation included, which wakes the waiters.
        let link = match self.open().await {
            Ok(l) => l,
            Err(e) => {
                self.link_slot().opening = None;
                return Err(self.explain(e).await);
            }
        };
        self.had_server
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut slot = self.link_slot();
        slot.link = Some(link.clone());
        slot.opening = None;
        Ok(link)
    }

    pub(super) fn link_slot(&self) -> std::sync::MutexGuard<'_, LinkSlot> {
        self.link.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One answer for a server that went away, whatever the connection
    /// last saw (a shutdown message, EOF, a failed write): "no tmux server
    /// running", or, when the socket file tmuxwire used before is gone,
    /// [`ErrorKind::SocketGone`](crate::tmux::ErrorKind::SocketGone).
    pub(super) async fn explain(&self, e: Error) -> Error {
        let gone = || {
            if self.had_server.load(std::sync::atomic::Ordering::Relaxed)
                && self
                    .endpoint
                    .local_path()
                    .is_some_and(|p| std::fs::symlink_metadata(p).is_err())
            {
                Error::socket_gone(self.path.clone())
            } else {
                Error::no_server(self.path.clone())
            }
        };
        match e.kind() {
            ErrorKind::NoServer => gone(),
            ErrorKind::Connection => match self.endpoint.connect_probe().await {
                Err(wire::Error::NoServer { .. }) => gone(),
                _ => e,
            },
            _ => e,
        }
    }

    pub(super) async fn open(&self) -> Result<Link, Error> {
        let opts = ControlOptions::default();
        let version = match self.endpoint.probe_version(opts.timeout).await {
            Ok(v) => v,
            // A server that is shutting down accepts and then resets the
            // connection; a moment later its socket refuses, which says
            // what happened (no server) instead of a bare reset.
            Err(wire::Error::Io(_) | wire::Error::Closed { .. } | wire::Error::Protocol(_)) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                self.endpoint.probe_version(opts.timeout).await?
            }
            Err(e) => return Err(e.into()),
        };
        let framings: &[Framing] = match version.framing() {
            // A remote binary does the handshake: one attempt.
            _ if self.endpoint.remote().is_some() => &[Framing::New],
            Some(Framing::Old) => &[Framing::Old],
            Some(Framing::New) => &[Framing::New],
            // Unknown: old first; the other order can hang an old server's client.
            None => &[Framing::Old, Framing::New],
        };
        let mut last = None;
        let steady = self.steady_session(opts.timeout).await;
        for &framing in framings {
            let mut opts = ControlOptions {
                framing: Some(framing),
                attach_target: steady.clone(),
                ..opts.clone()
            };
            let started = loop {
                let transport = self.endpoint.open_control(version.clone(), &opts).await?;
                let client_opts = ClientOptions {
                    request_timeout: self.timeout,
                    ..ClientOptions::default()
                };
                match Client::start(transport, client_opts).await {
                    // The session chosen went meanwhile: tmux's choice.
                    Err(control::Error::Attach(msg)) if opts.attach_target.is_some() => {
                        tracing::debug!(%msg, "could not attach to the oldest session");
                        opts.attach_target = None;
                    }
                    other => break other,
                }
            };
            match started {
                Ok(c) => {
                    if let Some(r) = self.endpoint.remote()
                        && r.had_earlier_link()
                    {
                        tokio::spawn(detach_stale(c.clone(), r.clone()));
                    }
                    stay_on_destroy(&c, &version).await;
                    tracing::debug!(path = %self.path.display(), %version, ?framing, "control connection open");
                    self.activity.touch();
                    close_when_idle(c.clone(), self.activity.clone(), self.idle_close);
                    return Ok(Link::Control(c));
                }
                Err(control::Error::Attach(msg)) => {
                    // Typically "no sessions": fall back to one-shot commands.
                    tracing::debug!(%msg, "control client could not attach; using one-shot commands");
                    return Ok(Link::OneShot {
                        version,
                        since: Instant::now(),
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last
            .map(Error::from)
            .unwrap_or_else(|| Error::connection("could not connect")))
    }

    /// The session the command connection attaches to: the oldest one
    /// (`#{session_created}`, then the lowest id), for a local server;
    /// `None` (tmux's choice) for a remote one, where asking first would
    /// cost an ssh session, or when the server does not answer.
    ///
    /// A control client's session is not a choice without consequence:
    /// when it is destroyed, tmux exits the client (server-fn.c
    /// `server_destroy_session()`, with `detach-on-destroy` on, the
    /// default), and every call in flight on it fails, about a session it
    /// never named. tmux's own choice is the most recently used unattached
    /// session (cmd-find.c `cmd_find_best_session()`), which is the one an
    /// orchestrator has just made and is most likely to kill; the oldest is
    /// the one most likely to stay. tmux 3.6 and later also move the client
    /// to another session instead ([`stay_on_destroy`]).
    pub(super) async fn steady_session(&self, timeout: Duration) -> Option<String> {
        if self.endpoint.remote().is_some() {
            return None;
        }
        let list = ["list-sessions", "-F", "#{session_created} #{session_id}"];
        let out = self.endpoint.run_command(&list, timeout).await.ok()?;
        if !out.success() {
            return None;
        }
        oldest_session(&String::from_utf8_lossy(&out.stdout)).map(|id| id.to_string())
    }
    pub(super) async fn forget(&self, failed: &Client) {
        let mut slot = self.link_slot();
        if let Some(Link::Control(c)) = slot.link.as_ref()
            && c.socket_path() == failed.socket_path()
            && c.is_closed()
        {
            slot.link = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_session_first_created_then_lowest_id() {
        let listing = "1700000300 $7\n1700000100 $9\n1700000100 $4\nnot a line\n";
        assert_eq!(oldest_session(listing), Some(SessionId(4)));
        assert_eq!(oldest_session(""), None);
        assert_eq!(oldest_session("x $1\n"), None);
    }
}
