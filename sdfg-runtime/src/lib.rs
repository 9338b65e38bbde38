//! The typed runtime of sdfg-rs (in progress).
