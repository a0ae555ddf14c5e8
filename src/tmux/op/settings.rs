//! Options, environment and hooks.
