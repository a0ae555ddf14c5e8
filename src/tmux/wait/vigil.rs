//! Whether a waited-on pane and its server are still there: the
//! [`Vigil`] a wait asks on every wake, and how a pane ended ([`Ended`]).

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use super::synced::{Followed, follow};
use crate::control::{Command, PaneId, Target, TargetKind};
use crate::mirror::Status;
use crate::tmux::Error;
use crate::tmux::Server;

/// How often a wait asks tmux whether its pane still runs. tmux tells
/// control clients when a pane is destroyed (`%layout-change`,
/// `%window-close`, `%sessions-changed`: the watch lists the panes again
/// and marks the copy dead) and a watch's connection ends when the server
/// exits, and both wake a wait at once; but a `remain-on-exit` pane whose
/// program exits changes nothing tmux notifies (server.c
/// `server_destroy_pane()` writes its "Pane is dead" line to the pane's
/// screen, not as `%output`). tmux's own answer for that would be a
/// `refresh-client -B` subscription, which tmux before 3.7 can crash on
/// when the client's session goes away (tmux issue 4916), so a wait asks
/// instead: one `display-message` per this interval while it waits.
pub const LIVENESS_EVERY: Duration = Duration::from_millis(500);

/// What tmux says of a followed pane when asked directly.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Liveness {
    /// Its program runs.
    Alive,
    /// Its program exited and tmux keeps the pane (`remain-on-exit`),
    /// with what tmux knows of how it ended.
    Exited(Exit),
    /// tmux has no such pane.
    Gone,
}

/// How a dead pane's program ended, as tmux says: its exit status or the
/// signal that ended it, once tmux has reaped it (server.c
/// `server_child_exited()` sets `PANE_STATUSREADY`; format.c prints
/// `#{pane_dead_status}` for an exit and `#{pane_dead_signal}` for a
/// signal, and nothing before). Every wait's result carries it
/// (flattened: `pane_exit_status`, `pane_exit_signal`,
/// `pane_exit_unknown`, each absent when not known).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Exit {
    /// The exit status of the pane's program when it exited and tmux
    /// kept the pane (`remain-on-exit`, `#{pane_dead_status}`); absent
    /// otherwise (unknown, never 0 by default).
    #[serde(rename = "pane_exit_status", skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// The signal that ended the pane's program, when tmux kept the pane
    /// (`#{pane_dead_signal}`: `KILL`, or `9` where tmux's C library names
    /// no signals, compat `sig2name()`); absent otherwise.
    #[serde(rename = "pane_exit_signal", skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// For `exited` and `pane_gone` without `pane_exit_status` or
    /// `pane_exit_signal`: why tmux has neither (the pane was destroyed, or
    /// its program closed its terminal but has not exited).
    #[serde(rename = "pane_exit_unknown", skip_serializing_if = "Option::is_none")]
    pub unknown: Option<String>,
}

impl Exit {
    /// Whether tmux has reaped the program (a status or a signal).
    fn known(&self) -> bool {
        self.status.is_some() || self.signal.is_some()
    }
}

/// The format [`liveness`] asks: the server's pid, the pane it answers
/// for, its dead flag, and its status and signal, each after a letter
/// (either may be empty).
const LIVENESS_FORMAT: &str =
    "#{pid} #{pane_id} #{pane_dead} s#{pane_dead_status} g#{pane_dead_signal}";

/// Asks tmux whether `pane` still runs (one round trip:
/// `display-message -p` [`LIVENESS_FORMAT`], which a program in the pane
/// cannot forge). `display-message` finds its target with
/// `CMD_FIND_CANFAIL` (cmd-display-message.c): for a pane that is gone
/// it answers for another one, so the answer names the pane it is about.
/// `server_pid`: the server the wait began on (another pid on the socket
/// is another server). An answer that says nothing certain is
/// [`Liveness::Alive`]: the wait goes on.
///
/// `reap`: `run-shell true` first, in the same round trip. tmux reaps its
/// children only on `SIGCHLD` (server.c `server_child_signal()`, which
/// waits for every child that exited), and tmux misses some: seen on
/// Debian's 3.3a, in about one exit in 20 to 40, the pane's program a
/// zombie for over 10 s with `#{pane_dead}` 1 and `#{pane_dead_status}`
/// empty, until another child of tmux exited. That build links
/// libutempter, and `server_destroy_pane()` calls
/// `utempter_remove_record()` when the pane's terminal closes, whose own
/// `SIGCHLD` handler takes the signal of a program that exits meanwhile
/// (tmux issue 311; spawn.c raises `SIGCHLD` again after adding the
/// record, but nothing does after removing it). `run-shell` answers once
/// its job has exited and been reaped, by the same loop of `waitpid()`
/// that reaps the pane's program: after it, neither a status nor a
/// signal means the program has not exited.
///
/// # Errors
///
/// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when no
/// server answers on the socket any more (or another one does); for a
/// remote server, when its host says it has none (a failed link alone is
/// no answer).
async fn liveness(
    server: &Server,
    pane: PaneId,
    server_pid: Option<u32>,
    reap: bool,
) -> Result<Liveness, Error> {
    use crate::tmux::ErrorKind;
    let gone = |why: &str| {
        Error::server_gone(format!(
            "the tmux server exited while tmuxwire waited on pane {pane} ({why})"
        ))
    };
    let cmd = Command::new("display-message")
        .target(&Target::Pane(pane), TargetKind::Pane)
        .arg("-p")
        .arg(LIVENESS_FORMAT);
    let answer = if reap {
        let cmds = [Command::new("run-shell").arg("true"), cmd];
        // run-shell's own answer does not matter (a shell that cannot
        // run `true` still exits).
        server.run_all(&cmds).await.map(|mut outs| outs.pop())
    } else {
        server.run(&cmd).await.map(Some)
    };
    let out = match answer {
        Ok(Some(o)) => o,
        Ok(None) => return Ok(Liveness::Alive),
        Err(e) => {
            return match e.kind() {
                // A remote server's link failed (ssh itself, exit 255,
                // while sshd still ends the old link's session): that says
                // nothing of the tmux server behind it. The next look asks
                // again over a new link, paced by the host's backoff; a
                // server that exited answers that one "no server"
                // (`ErrorKind::NoServer`).
                ErrorKind::Connection if server.endpoint().remote().is_some() => {
                    tracing::debug!(%pane, %e, "liveness: the link failed; asking again");
                    Ok(Liveness::Alive)
                }
                ErrorKind::NoServer
                | ErrorKind::SocketGone
                | ErrorKind::Connection
                | ErrorKind::ServerGone => Err(gone(&e.to_string())),
                _ => {
                    tracing::debug!(%pane, %e, "liveness: no answer");
                    Ok(Liveness::Alive)
                }
            };
        }
    };
    let text = match out.into_result() {
        Ok(body) => String::from_utf8_lossy(&body).into_owned(),
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Liveness::Gone),
        Err(e) => {
            tracing::debug!(%pane, %e, "liveness: tmux refused");
            return Ok(Liveness::Alive);
        }
    };
    Ok(match parse_liveness(&text, server_pid, pane) {
        Some(l) => l,
        None => return Err(gone("another server answers on its socket")),
    })
}

/// Reads the answer of [`liveness`]'s command about `pane`: `None` when
/// the server's pid is not `server_pid` (when known); [`Liveness::Gone`]
/// when it is about another pane. A signal name is taken only as tmux
/// writes one (letters and digits, `sig2name()`).
fn parse_liveness(text: &str, server_pid: Option<u32>, pane: PaneId) -> Option<Liveness> {
    let mut words = text.split_whitespace();
    let pid = words.next().and_then(|w| w.parse::<u32>().ok());
    if let (Some(want), Some(got)) = (server_pid, pid)
        && want != got
    {
        return None;
    }
    if words.next() != Some(pane.to_string().as_str()) {
        return Some(Liveness::Gone);
    }
    if words.next() != Some("1") {
        return Some(Liveness::Alive);
    }
    let status = words
        .next()
        .and_then(|w| w.strip_prefix('s'))
        .and_then(|w| w.parse().ok());
    let signal = words
        .next()
        .and_then(|w| w.strip_prefix('g'))
        .filter(|w| !w.is_empty() && w.len() <= 16 && w.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(str::to_string);
    Some(Liveness::Exited(Exit {
        status,
        signal,
        unknown: None,
    }))
}

/// How a followed pane ended during a wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Its program exited; tmux keeps the pane.
    Exited(Exit),
    /// The pane is gone.
    Gone,
}

/// Why a wait whose pane is gone has no exit status
/// ([`Ended::exit`]).
const GONE_UNKNOWN: &str = "tmux destroyed the pane (kill-pane, or its program ended with \
     remain-on-exit off) and keeps no exit status; with remain-on-exit on, a wait says it";

impl Ended {
    /// What the answer says of the program's end: its status, its
    /// signal, or why neither is known.
    pub(crate) fn exit(&self) -> Exit {
        match self {
            Ended::Exited(e) => e.clone(),
            Ended::Gone => Exit {
                unknown: Some(GONE_UNKNOWN.into()),
                ..Exit::default()
            },
        }
    }
}

/// [`Ended::exit`] of a wait that may not have ended so.
pub(crate) fn exit_of(ended: Option<&Ended>) -> Exit {
    ended.map(Ended::exit).unwrap_or_default()
}

/// Watches, during a wait, whether the pane and its server are still
/// there: on every wake the wait asks [`Vigil::check`], which asks tmux
/// when the copy says the pane died or lost its feed, and every
/// [`LIVENESS_EVERY`] otherwise.
pub(crate) struct Vigil {
    pane: PaneId,
    server_pid: Option<u32>,
    next: tokio::time::Instant,
    /// The copy was found dead or unfed and tmux asked: not asked again
    /// for that before the next interval.
    asked_early: bool,
    /// When tmux first said the pane is dead without saying how its
    /// program ended: tmux has not reaped it (see [`liveness`]), so it is
    /// asked again, each time after making tmux reap, for up to
    /// [`STATUS_GRACE`].
    exited_at: Option<tokio::time::Instant>,
}

/// How long a wait asks again how the program of a pane tmux says is
/// dead ended, when tmux has not reaped it even after `run-shell` made it
/// wait for its children (see [`liveness`]): the program closed its
/// terminal but still runs (it may never exit). The wait then ends
/// `exited`, saying why the status is unknown (`pane_exit_unknown`).
const STATUS_GRACE: Duration = Duration::from_millis(1500);

/// How soon it asks again meanwhile (each time forking `true` in tmux).
const STATUS_AGAIN: Duration = Duration::from_millis(250);

/// Why a dead pane's exit status is unknown after [`STATUS_GRACE`].
fn not_reaped(grace: Duration) -> String {
    format!(
        "the pane's program closed its terminal but had not exited {:.1} s later (tmux \
         reaps it when it exits; its status is then #{{pane_dead_status}})",
        grace.as_secs_f64()
    )
}

impl Vigil {
    pub(crate) async fn new(server: &Server, pane: PaneId) -> Vigil {
        Vigil {
            pane,
            server_pid: server.mirrored_server_pid().await,
            next: tokio::time::Instant::now() + LIVENESS_EVERY,
            asked_early: false,
            exited_at: None,
        }
    }

    /// When the wait must wake to ask tmux next.
    pub(crate) fn wake_at(&self) -> tokio::time::Instant {
        self.next
    }

    /// Whether the pane ended (`Some`), after looking at its copy `f` and,
    /// when that says the pane died or no connection feeds it, or the
    /// interval is up, asking tmux. A copy that lost its feed while the
    /// pane runs (its session's connection closed) is followed again.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone).
    pub(crate) async fn check(
        &mut self,
        server: &Server,
        f: &Followed,
    ) -> Result<Option<Ended>, Error> {
        let (dead, unfed) = {
            let st = f.pane.view();
            (
                st.status() == Status::Dead,
                st.status() != Status::Live && st.owner().is_none(),
            )
        };
        let now = tokio::time::Instant::now();
        let due = now >= self.next;
        if !due && (!(dead || unfed) || self.asked_early) {
            return Ok(None);
        }
        self.asked_early = !due;
        if due {
            self.next = now + LIVENESS_EVERY;
        }
        // Once tmux said the pane is dead without how its program ended,
        // every question makes tmux reap first (see [`liveness`]).
        let reap = self.exited_at.is_some();
        let mut answer = liveness(server, self.pane, self.server_pid, reap).await?;
        if !reap && matches!(&answer, Liveness::Exited(e) if !e.known()) {
            self.exited_at = Some(now);
            answer = liveness(server, self.pane, self.server_pid, true).await?;
            tracing::debug!(pane = %self.pane, ?answer, "dead without a status: asked again after making tmux reap");
        }
        match answer {
            Liveness::Gone => Ok(Some(Ended::Gone)),
            // The copy is left as it is: the watch seeds a dead pane
            // as dead, and a respawned one anew.
            Liveness::Exited(e) if e.known() => Ok(Some(Ended::Exited(e))),
            Liveness::Exited(mut e) => {
                let at = *self.exited_at.get_or_insert(now);
                if now < at + STATUS_GRACE {
                    self.next = now + STATUS_AGAIN;
                    return Ok(None);
                }
                e.unknown = Some(not_reaped(STATUS_GRACE));
                Ok(Some(Ended::Exited(e)))
            }
            Liveness::Alive if dead => {
                // The copy says dead but tmux says it runs (respawned):
                // nothing more comes to this copy.
                let status = f.pane.view().exit_status();
                Ok(Some(Ended::Exited(Exit {
                    status,
                    signal: None,
                    unknown: status.is_none().then(|| {
                        "the pane was respawned before tmux was asked how its program ended".into()
                    }),
                })))
            }
            Liveness::Alive => {
                if unfed {
                    // Followed again, on a connection of its own; a copy
                    // that cannot be is asked about again next interval.
                    match follow(server, self.pane, None, None).await {
                        Ok(again) if Arc::ptr_eq(&again.pane, &f.pane) => {}
                        Ok(_) => {
                            return Err(Error::server_gone(format!(
                                "the tmux server was restarted while tmuxwire waited on pane {}",
                                self.pane
                            )));
                        }
                        Err(e) if e.kind() == crate::tmux::ErrorKind::NotFound => {
                            return Ok(Some(Ended::Gone));
                        }
                        Err(e) => tracing::debug!(pane = %self.pane, %e, "could not follow again"),
                    }
                }
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn liveness_answers() {
        let p = PaneId(4);
        let exited = |status, signal: Option<&str>| {
            Some(Liveness::Exited(Exit {
                status,
                signal: signal.map(str::to_string),
                unknown: None,
            }))
        };
        assert_eq!(
            parse_liveness("42 %4 0 s g", Some(42), p),
            Some(Liveness::Alive)
        );
        assert_eq!(
            parse_liveness("42 %4 1 s3 g", Some(42), p),
            exited(Some(3), None)
        );
        assert_eq!(
            parse_liveness("42 %4 1 s gKILL", Some(42), p),
            exited(None, Some("KILL"))
        );
        // Not reaped yet: neither.
        assert_eq!(parse_liveness("42 %4 1 s g", None, p), exited(None, None));
        assert_eq!(parse_liveness("42 %4 1", None, p), exited(None, None));
        assert_eq!(
            parse_liveness("42 %4 1 s g;rm", None, p),
            exited(None, None)
        );
        assert_eq!(parse_liveness("43 %4 0 s g", Some(42), p), None);
        // display-message answered for another pane: this one is gone.
        assert_eq!(
            parse_liveness("42 %0 0 s g", Some(42), p),
            Some(Liveness::Gone)
        );
        assert_eq!(parse_liveness("", Some(42), p), Some(Liveness::Gone));
        let gone = Ended::Gone.exit();
        assert!(gone.status.is_none() && gone.unknown.is_some());
        assert_eq!(exit_of(None), Exit::default());
    }
}
