//! hostile tests (to be written).
