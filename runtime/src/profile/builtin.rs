//! The built-in table: `builtin-device-profiles.json`, compiled into the binary.
//! Every entry in it was measured on real hardware by this project, and its `origin`
//! says on what and when. It is not checked for staleness (it ships with the build).

use super::format::{self, ProfileFile};
use std::sync::OnceLock;

pub const TEXT: &str = include_str!("builtin-device-profiles.json");

/// The built-in table (parsed once; a broken table fails the test suite, not users).
pub fn table() -> &'static ProfileFile {
    static TABLE: OnceLock<ProfileFile> = OnceLock::new();
    TABLE.get_or_init(|| match format::parse(TEXT) {
        Ok(f) => f,
        Err(e) => panic!("the built-in device profile table is broken: {e}"),
    })
}
