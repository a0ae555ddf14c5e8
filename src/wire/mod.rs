//! The wire layer: how tmuxwire reaches a tmux server without the `tmux`
//! binary.
//!
//! * [`socket`]: which socket (`-S`, `-L`, `$TMUX`, `TMUX_TMPDIR`, uid dir).
//! * [`protocol`]: message types and client flags (`tmux-protocol.h`).
//! * [`imsg`]: the frame codec, old (≤ 3.5a) and new (≥ 3.6) header layouts.
//! * [`version`]: `#{version}` parsing, the 3.2 floor, framing choice.
//! * [`identify`]: the crash-safe identify sequence and `MSG_COMMAND`.
//! * [`stream`]: reading frames from a socket, sending fds.
//! * [`command`]: the one-shot command client (fd-less; output arrives as
//!   `MSG_WRITE`, status as `MSG_EXIT`), used for the version probe and for
//!   servers without sessions.
//! * [`connect`]: opening a control-mode connection: probe, socket pair,
//!   identify, attaching `MSG_COMMAND`, then the imsg-side handler.
//! * [`dial`]: connecting the Unix socket ("no server" told apart, a full
//!   listen queue retried).
//! * [`ssh`]: remote servers through OpenSSH (a master per host, a channel
//!   per control client), behind the same [`ControlTransport`].
//! * [`endpoint`]: [`Endpoint`], a local socket or a remote server, with
//!   the operations both offer.
//! * [`error`]: [`Error`], the wire layer's errors.
//!
//! Pure modules (`imsg`, `version`, `identify`, `socket` resolution) do no
//! I/O and are unit-tested with exact bytes.

pub mod command;
pub mod connect;
pub mod dial;
pub mod endpoint;
pub mod error;
pub mod identify;
pub mod imsg;
pub mod protocol;
pub mod socket;
pub mod ssh;
pub mod stream;
pub mod version;

pub use command::{CommandOutput, Ending, run_command, run_command_list, stream_command_list};
pub use connect::{
    ControlOptions, ControlTransport, EndReason, Watchdog, connect_control, open_control,
    probe_version,
};
pub use dial::connect_socket_probe;
pub use endpoint::Endpoint;
pub use error::Error;
pub use identify::CLIENT_TERM;
pub use imsg::Framing;
pub use socket::SocketSpec;
pub use version::TmuxVersion;
