//! The tables `build.rs` generates from `catalog.toml` (do not edit; see codegen).
#![allow(clippy::all)]
include!(concat!(env!("OUT_DIR"), "/routes.rs"));
