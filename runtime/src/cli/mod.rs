//! One file per `ninfer` subcommand: its clap arguments and its `run`.
pub mod bench;
pub mod calibrate;
pub mod catalog;
pub mod check;
pub mod profile;
pub mod routes;
