//! Warnings a process gives once, however often the condition is met again
//! (several devices resolving the same file, an engine restarting its routes).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

static GIVEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();

/// Logs `message` as a warning unless this process has already logged it.
/// Returns whether it was logged now.
pub fn warn_once(message: &str) -> bool {
    let set = GIVEN.get_or_init(|| Mutex::new(HashSet::new()));
    let fresh = set
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(message.to_string());
    if fresh {
        tracing::warn!("{message}");
    }
    fresh
}
