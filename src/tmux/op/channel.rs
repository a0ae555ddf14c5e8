//! `wait-for` channels: `wait_for_channel`, `signal_channel`.
