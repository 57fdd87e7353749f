//! ninfer-runtime: picks, per operation and width band, the generated kernel variant
//! a device route profile names, and runs, checks, benchmarks and calibrates them.

pub mod calibrate;
pub mod catalog;
mod generated;

pub mod cli;
pub mod device;
pub mod gpu;
pub mod ops;
pub mod profile;
