//! device (in progress)
