//! [`Endpoint`]: where a tmux server is, with the operations every upper
//! layer needs whichever way it is reached: a local socket (tmuxwire's own
//! imsg client) or a server on another host ([`super::ssh::Remote`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::command::CommandOutput;
use super::connect::{ControlOptions, ControlTransport};
use super::error::Error;
use super::ssh::Remote;
use super::version::TmuxVersion;

/// A tmux server and how to reach it. Cheap to clone.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// A server on this machine, by its socket path.
    Local(PathBuf),
    /// A server on another machine, through ssh.
    Remote(Remote),
}

impl Endpoint {
    /// The socket path (local), or the label `HOST:PATH` (remote) that
    /// errors and results show.
    pub fn path(&self) -> PathBuf {
        match self {
            Endpoint::Local(p) => p.clone(),
            Endpoint::Remote(r) => r.label(),
        }
    }

    /// The remote server, when it is one.
    pub fn remote(&self) -> Option<&Remote> {
        match self {
            Endpoint::Local(_) => None,
            Endpoint::Remote(r) => Some(r),
        }
    }

    /// The configured host's name (`None`: this machine).
    pub fn host_name(&self) -> Option<&str> {
        self.remote().map(|r| r.host().name())
    }

    /// The server's version ([`super::probe_version`]; remotely one
    /// one-shot over the host's master).
    ///
    /// # Errors
    ///
    /// As the transport's probe: no server, too old, ssh failures.
    pub async fn probe_version(&self, timeout: Duration) -> Result<TmuxVersion, Error> {
        match self {
            Endpoint::Local(p) => super::probe_version(p, timeout).await,
            Endpoint::Remote(r) => r.probe_version(timeout).await,
        }
    }

    /// An attaching control connection ([`super::open_control`]; remotely
    /// a `tmux -C` channel).
    ///
    /// # Errors
    ///
    /// As the transport's.
    pub async fn open_control(
        &self,
        version: TmuxVersion,
        opts: &ControlOptions,
    ) -> Result<ControlTransport, Error> {
        match self {
            Endpoint::Local(p) => super::open_control(p, version, opts).await,
            Endpoint::Remote(r) => r.open_control(version, opts).await,
        }
    }

    /// Runs `cmds` as one one-shot client ([`super::run_command_list`]),
    /// which never starts a server.
    ///
    /// # Errors
    ///
    /// As the transport's.
    pub async fn run_command_list<S: AsRef<str>>(
        &self,
        cmds: &[&[S]],
        timeout: Duration,
    ) -> Result<CommandOutput, Error> {
        match self {
            Endpoint::Local(p) => super::run_command_list(p, cmds, timeout).await,
            Endpoint::Remote(r) => r.run_command_list(cmds, timeout, false).await,
        }
    }

    /// Runs one command as a one-shot client ([`super::run_command`]).
    ///
    /// # Errors
    ///
    /// As the transport's.
    pub async fn run_command<S: AsRef<str>>(
        &self,
        argv: &[S],
        timeout: Duration,
    ) -> Result<CommandOutput, Error> {
        self.run_command_list(&[argv], timeout).await
    }

    /// Whether a server answers on the socket (locally a bare connect;
    /// remotely nothing is asked and `Ok` is returned: the next call's
    /// probe says).
    ///
    /// # Errors
    ///
    /// [`Error::NoServer`] when nothing listens.
    pub async fn connect_probe(&self) -> Result<(), Error> {
        match self {
            Endpoint::Local(p) => super::connect_socket_probe(p).await,
            Endpoint::Remote(_) => Ok(()),
        }
    }

    /// The local socket path, when the server is local.
    pub fn local_path(&self) -> Option<&Path> {
        match self {
            Endpoint::Local(p) => Some(p),
            Endpoint::Remote(_) => None,
        }
    }
}
