//! wire tests (to be written).
