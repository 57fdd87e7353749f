//! profile (in progress)
