//! tmuxwire: an MCP server and CLI that speaks tmux's own client protocol.
//!
//! tmuxwire never runs the `tmux` binary to talk to a server. It connects to
//! the server's Unix socket, performs the client handshake itself (imsg
//! framing, identify, fd passing), becomes a control-mode client and then
//! exchanges control-mode text (`%begin`/`%end`/`%output`/...) over a socket
//! pair.
//!
//! # Layout
//!
//! Layers, top to bottom; a module only uses the ones below it:
//!
//! * [`cli`]: the `tmuxwire` command line (`mcp`, `panes`, `capture`,
//!   `search`, `send`, `wait`, `demo`).
//! * [`mcp`]: the MCP server (stdio, rmcp): tools, structured results,
//!   errors with `_meta`.
//! * [`tmux`]: typed sessions/windows/panes, target resolution and the
//!   operations tools are built from, over one [`control::Client`] per server.
//! * [`mirror`]: tmuxwire's own copy of each watched pane, fed by
//!   `%output` on one control connection per session.
//! * [`events`]: the event log of one server (bounded, read with a
//!   cursor; pure but for the wake of waiting readers).
//! * [`search`]: literal and regex search over logical lines (pure).
//! * [`term`]: a terminal as tmux is one: its escape-sequence parser,
//!   screen, grid and history, character widths by tmux version, and
//!   captures as tmux prints them (pure).
//! * [`control`]: the control-mode text protocol: a byte-level parser, a
//!   command builder that quotes every argument, and an async client.
//! * [`sys`]: what the local kernel says about a pane's terminal (its
//!   termios, its foreground process in `/proc`), and the pure
//!   classification of those facts into an input state.
//! * [`wire`]: socket resolution, imsg framing, the crash-safe identify
//!   handshake, the version probe and the one-shot command client.
//!
//! Beside the layers, [`nonce`] makes the tokens a pane cannot guess, and
//! [`redact`] masks secrets in text before it leaves (pure; `--redact`).

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]
// No `unsafe` in the library but in two modules (and one `mallopt` in the
// binary's `main`), each block with a `// SAFETY:` note: `search`'s `fold`, which loads SIMD vectors, and `wire::ssh`'s
// `owned`, which sets the ssh master's parent-death signal between fork and
// exec (`search` and `wire` deny unsafe code and allow it back on that
// module alone). The crate root can only deny, since `forbid` cannot be
// allowed back below it; every other module forbids.
#![deny(unsafe_code)]

#[forbid(unsafe_code)]
pub mod cli;
#[forbid(unsafe_code)]
pub mod control;
#[forbid(unsafe_code)]
pub mod events;
#[forbid(unsafe_code)]
pub mod mcp;
#[forbid(unsafe_code)]
pub mod mirror;
#[forbid(unsafe_code)]
pub mod nonce;
#[forbid(unsafe_code)]
pub mod redact;
pub mod search;
#[forbid(unsafe_code)]
pub mod sys;
#[forbid(unsafe_code)]
pub mod term;
#[forbid(unsafe_code)]
pub mod tmux;
pub mod wire;
