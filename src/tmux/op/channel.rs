//! `wait-for` channels: `wait_for_channel`, `signal_channel`.
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
//! the pid it had before the wait, is [`ErrorKind::ServerGone`], never
//! success.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;

use super::Server;
use crate::control::Command;
#[cfg(doc)]
use crate::tmux::ErrorKind;
use crate::tmux::error::shorten;
use crate::tmux::server::Retry;
use crate::tmux::{Error, Subject};
use crate::wire;

crate::fits_whole!(Waited, Signalled);

/// A channel name: 1–128 of `[A-Za-z0-9_.:-]` (as libtmux-mcp), so it
/// is one word to tmux's parser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel(String);

impl Channel {
    /// The channel `name`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`] naming `channel`.
    pub fn new(name: &str) -> Result<Channel, Error> {
        if valid_channel(name) {
            return Ok(Channel(name.to_string()));
        }
        Err(Error::invalid(
            "channel",
            format!("Invalid channel name: '{}'", shorten(name, 60)),
            "1-128 characters of A-Z a-z 0-9 _ . : -",
        ))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Whether `name` can be a [`Channel`].
pub(super) fn valid_channel(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// `wait_for_channel`: waits until a channel is signalled, for at most
/// `timeout`.
pub struct WaitForChannelRequest {
    /// The channel.
    pub channel: Channel,
    /// How long to wait (the caller's timeout, already clamped to its
    /// ceiling).
    pub timeout: Duration,
}

/// `wait_for_channel`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Waited {
    /// libtmux-mcp's sentence: `Channel 'x' was signalled (timeout
    /// 30.0s)`.
    pub result: String,
    /// The channel.
    pub channel: String,
    /// Seconds waited.
    pub elapsed_seconds: f64,
    /// The timeout the wait had, in seconds.
    pub effective_timeout: f64,
}

op!(WaitForChannelRequest, Waited, async |req, server, _| {
    let start = Instant::now();
    wait_for_channel(server, &req.channel, req.timeout).await?;
    let effective = req.timeout.as_secs_f64();
    Ok(Waited {
        result: format!(
            "Channel '{}' was signalled (timeout {effective:.1}s)",
            req.channel.0
        ),
        channel: req.channel.0,
        elapsed_seconds: start.elapsed().as_secs_f64(),
        effective_timeout: effective,
    })
});

/// `signal_channel`: wakes a channel's waiters.
pub struct SignalChannelRequest {
    /// The channel.
    pub channel: Channel,
}

/// `signal_channel`'s answer: libtmux-mcp's sentence, `Channel 'x'
/// signalled`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Signalled {
    /// The sentence.
    pub result: String,
}

op!(SignalChannelRequest, Signalled, async |req, server, _| {
    signal_channel(server, &req.channel).await?;
    Ok(Signalled {
        result: format!("Channel '{}' signalled", req.channel.0),
    })
});

/// The server's pid through a one-shot client, or why there is none.
async fn pid_now(endpoint: &wire::Endpoint) -> Result<u32, Error> {
    let out = endpoint
        .run_command(&["display-message", "-p", "#{pid}"], Duration::from_secs(5))
        .await?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| Error::connection("tmux did not report its pid"))
}

/// Waits until `channel` is signalled (`wait-for`), for at most
/// `timeout`, on a connection of its own.
///
/// # Errors
///
/// [`ErrorKind::WaitTimeout`] when the deadline passes;
/// [`ErrorKind::ServerGone`] when the server exits meanwhile;
/// [`ErrorKind::NoServer`] when none runs.
pub(super) async fn wait_for_channel(
    server: &Server,
    channel: &Channel,
    timeout: Duration,
) -> Result<(), Error> {
    let name = channel.as_str();
    let endpoint = server.endpoint().clone();
    let about = || Subject::Channel(name.to_string());
    let gone = |why: &str| {
        Error::server_gone(format!(
            "wait-for returned for channel '{name}' but the tmux server is no longer running \
             ({why})"
        ))
        .about(about())
    };
    // The pid the server has when the wait starts, asked on the wait's
    // own connection just before `wait-for` (so a wait opens that one
    // connection until it ends, and holds nothing up on the shared one).
    let pid: &[&str] = &["display-message", "-p", "#{pid}"];
    let wait: &[&str] = &["wait-for", "--", name];
    let out = match endpoint.run_command_list(&[pid, wait], timeout).await {
        Ok(o) => o,
        Err(wire::Error::Timeout { .. }) => {
            return Err(Error::wait_timeout(format!(
                "wait-for timeout: channel '{name}' was not signalled within {}s",
                timeout.as_secs_f64()
            ))
            .about(about()));
        }
        Err(wire::Error::Closed { .. } | wire::Error::Io(_)) => {
            return Err(gone("its connection closed"));
        }
        Err(e) => return Err(e.into()),
    };
    if out.ending == wire::Ending::ServerExited {
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
    match pid_now(&endpoint).await {
        Ok(pid) if pid == before => Ok(()),
        Ok(_) => Err(gone("another server runs on its socket now")),
        Err(_) => Err(gone("it does not answer")),
    }
}

/// Signals `channel` (`wait-for -S`): wakes its waiters, or, with none,
/// lets the next wait return at once (tmux keeps one pending signal). One
/// round trip on the normal connection: it never blocks.
///
/// # Errors
///
/// Connection errors; tmux's, as [`Error::from_tmux`] classifies them.
pub(super) async fn signal_channel(server: &Server, channel: &Channel) -> Result<(), Error> {
    let cmd = Command::new("wait-for")
        .arg("-S")
        .arg("--")
        .arg(channel.as_str());
    let out = server.run_lines(&[vec![cmd]], Retry::Never).await?;
    match out.into_iter().flatten().find(|o| !o.ok) {
        Some(bad) => Err(Error::from_tmux(&String::from_utf8_lossy(&bad.body))),
        None => Ok(()),
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
        let e = Channel::new("bad name").unwrap_err();
        assert_eq!(
            (e.argument(), e.detail()),
            (Some("channel"), "Invalid channel name: 'bad name'")
        );
    }
}
