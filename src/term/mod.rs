//! Terminal facts tmuxwire must agree with tmux about. Pure.
//!
//! * [`width`]: how many cells tmux gives characters, and so how many
//!   rows a logical line fills, by tmux version.
//!
//! The terminal grid that will mirror panes from `%output` belongs here
//! too (next step; see the README's architecture section).

pub mod width;
