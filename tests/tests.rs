//! Integration tests. Every test that needs tmux starts its own server on a
//! private socket (see `support`), with `-f /dev/null`, and kills only that
//! server.

mod support;

mod cases;
mod churn;
mod cli;
mod commands;
mod conformance;
mod delivery;
mod docs;
mod echo;
mod errors;
mod events;
mod fake_server;
mod follow;
mod forgery;
mod fuzz_corpus;
mod grid_diff;
mod home;
mod hostile;
mod input;
mod jsonrpc;
mod mcp_e2e;
mod mirror;
mod pane_state;
mod prompts;
mod redaction;
mod reliability;
mod remote;
mod search_fresh;
mod sshd_harness;
mod stable;
mod surface;
mod tools;
mod wire;
