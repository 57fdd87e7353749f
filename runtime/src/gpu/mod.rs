//! gpu (in progress)
