//! The reference evaluator of the tasklet language (placeholder).
