//! ninfer-runtime: picks, per operation and width band, the generated kernel variant
//! a device route profile names, and runs, checks, benchmarks and calibrates them.

pub mod bench;
pub mod build_info;
pub mod calibrate;
pub mod catalog;
pub mod check;
mod generated;

pub mod cli;
pub mod device;
pub mod engine;
pub mod gpu;
pub mod ops;
pub mod profile;
