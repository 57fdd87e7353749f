//! One file per `ninfer` subcommand: its clap arguments and its `run`.
pub mod catalog;
pub mod profile;
pub mod routes;
