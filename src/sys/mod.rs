//! What the local kernel says about a pane's terminal: its settings
//! (termios ECHO and ICANON), its foreground process group and that
//! process's name and wait channel, read from the pane's tty and `/proc`,
//! and the pure classification of those facts into what the pane's
//! program is doing with its input.
//!
//! * [`stat`]: the parser of `/proc/<pid>/stat` (pure, fuzzed);
//! * [`input`]: the facts and their classification (pure);
//! * [`probe`]: the reads (I/O);
//! * [`current`]: a pane's `#{pane_current_command}` and
//!   `#{pane_current_path}` with tmux's rule, where provably the same;
//! * [`pidfd`]: the end of a pane's first process, as a future (Linux's
//!   `pidfd_open(2)`);
//! * [`home`]: the private home of the servers the demo and benches start.
//!
//! The method and the measured facts are in `terminal-state.md` §3.2:
//! a process of the pty's owner can open `#{pane_tty}` with
//! `O_RDONLY|O_NOCTTY|O_NONBLOCK` without becoming its controller and
//! call `tcgetattr()`; `tpgid` (field 8 of `/proc/<pane_pid>/stat`) is the
//! foreground process group. Linux only; elsewhere every fact reads as
//! missing and the answer is `unknown`.

pub mod current;
pub mod home;
pub mod input;
pub mod pidfd;
pub mod probe;
pub mod stat;
