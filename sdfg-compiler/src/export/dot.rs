//! Graphviz drawing (in progress).
