//! Random well-typed expressions (see below).
