//! fuzz_corpus tests (to be written).
