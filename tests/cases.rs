//! cases tests (to be written).
