//! Waits on output: `wait_for_text`, `capture_since`, `run_command`.
