//! ninfer-codegen: catalog.toml -> variants -> PTX, digest, Rust tables (in progress).
