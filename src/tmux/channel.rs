//! `wait-for` channels: waiting on one, and signalling one.
//!
//! A waiting `wait-for` holds up every command after it on the same
//! client (cmd-wait-for.c returns `CMD_RETURN_WAIT`), so the wait runs on
//! a connection of its own: a one-shot client (fd-less, no session, no
//! `%output`), closed when the wait ends, times out or is cancelled. The
//! same client first prints the server's pid, so the wait opens that one
//! connection until it ends.
//!
//! tmux wakes every waiter when its server exits (`cmd_wait_for_flush()`
//! in server.c), so a waiter whose server was killed sees a plain
//! success (public case C14: `tmux wait-for` exits 0). tmuxwire tells the
//! two apart: a client ended by `MSG_SHUTDOWN`, a connection that closed
//! without an answer, or a server that no longer answers afterwards with
//! the pid it had before the wait, is [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone), never
//! success.

use std::time::Duration;

use super::error::Error;
use super::server::{Retry, Tmux};
use crate::control::Command;
use crate::wire;

/// Whether `name` can be a channel: 1–128 of `[A-Za-z0-9_.:-]` (as
/// libtmux-mcp).
pub fn valid_channel(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

fn check_channel(name: &str) -> Result<(), Error> {
    if valid_channel(name) {
        return Ok(());
    }
    let shown = super::error::shorten(name, 60);
    Err(Error::invalid(
        "channel",
        format!("Invalid channel name: '{shown}'"),
        "1-128 characters of A-Z a-z 0-9 _ . : -",
    ))
}

/// The server's pid through a one-shot client, or why there is none.
async fn pid_now(path: &std::path::Path) -> Result<u32, Error> {
    let out = wire::run_command(
        path,
        &["display-message", "-p", "#{pid}"],
        Duration::from_secs(5),
    )
    .await?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| Error::connection("tmux did not report its pid"))
}

impl Tmux {
    /// Waits until `channel` is signalled (`wait-for`), for at most
    /// `timeout`, on a connection of its own.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument) for a bad name (nothing is sent);
    /// [`ErrorKind::WaitTimeout`](crate::tmux::ErrorKind::WaitTimeout) when the deadline passes;
    /// [`ErrorKind::ServerGone`](crate::tmux::ErrorKind::ServerGone) when the server exits meanwhile;
    /// [`ErrorKind::NoServer`](crate::tmux::ErrorKind::NoServer) when none runs.
    pub async fn wait_for_channel(&self, channel: &str, timeout: Duration) -> Result<(), Error> {
        check_channel(channel)?;
        let path = self.socket_path().to_path_buf();
        let gone = |why: &str| {
            Error::server_gone(format!(
                "wait-for returned for channel '{channel}' but the tmux server is no longer \
                 running ({why})"
            ))
        };
        // The pid the server has when the wait starts, asked on the wait's
        // own connection just before `wait-for` (so a wait opens that one
        // connection until it ends, and holds nothing up on the shared one).
        let pid: &[&str] = &["display-message", "-p", "#{pid}"];
        let wait: &[&str] = &["wait-for", "--", channel];
        let out = match wire::run_command_list(&path, &[pid, wait], timeout).await {
            Ok(o) => o,
            Err(wire::Error::Timeout { .. }) => {
                return Err(Error::wait_timeout(format!(
                    "wait-for timeout: channel '{channel}' was not signalled within {}s",
                    timeout.as_secs_f64()
                )));
            }
            Err(wire::Error::Closed { .. } | wire::Error::Io(_)) => {
                return Err(gone("its connection closed"));
            }
            Err(e) => return Err(e.into()),
        };
        if out.server_exited {
            return Err(gone("it shut down"));
        }
        if !out.success() {
            return Err(Error::from_tmux(&out.error_text()));
        }
        let before: u32 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .map_err(|_| Error::connection("tmux did not report its pid"))?;
        // Exiting servers wake their waiters with success: check it runs.
        match pid_now(&path).await {
            Ok(pid) if pid == before => Ok(()),
            Ok(_) => Err(gone("another server runs on its socket now")),
            Err(_) => Err(gone("it does not answer")),
        }
    }

    /// Signals `channel` (`wait-for -S`): wakes its waiters, or, with
    /// none, lets the next wait return at once (tmux keeps one pending
    /// signal). One round trip on the normal connection: it never blocks.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::tmux::ErrorKind::InvalidArgument); connection errors.
    pub async fn signal_channel(&self, channel: &str) -> Result<(), Error> {
        check_channel(channel)?;
        let cmd = Command::new("wait-for").arg("-S").arg("--").arg(channel);
        let mut out = self.run_lines(&[vec![cmd]], Retry::Never).await?;
        let out = out.pop().unwrap_or_default();
        match out.into_iter().find(|o| !o.ok) {
            Some(bad) => Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_names() {
        assert!(valid_channel("r_123.a:b-c"));
        assert!(!valid_channel(""));
        assert!(!valid_channel("bad name"));
        assert!(!valid_channel(&"a".repeat(129)));
        assert!(!valid_channel("x;y"));
    }
}
