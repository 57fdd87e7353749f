//! ops (in progress)
