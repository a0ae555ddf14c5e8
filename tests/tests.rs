//! Integration tests. Every test that needs tmux starts its own server on a
//! private socket (see `support`), with `-f /dev/null`, and kills only that
//! server.

mod support;

mod cases;
mod cli;
mod fake_server;
mod fuzz_corpus;
mod grid_diff;
mod hostile;
mod mcp_e2e;
mod tools;
mod wire;
