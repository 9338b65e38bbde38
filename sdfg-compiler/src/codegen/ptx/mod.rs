//! GPU maps -> PTX (placeholder).
