//! tools tests (to be written).
