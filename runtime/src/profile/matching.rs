//! Which entry of a profile file is this device's: same hardware class, and the
//! same SM count (an entry with `multiprocessors: 0` serves any; an exact count wins).

use super::format::{Entry, ProfileFile};

#[derive(Clone, Debug, PartialEq)]
pub enum EntryMatch<'a> {
    Matched(&'a Entry),
    /// No entry for this device. `other_sms`: SM counts of entries of the same
    /// hardware class that did not match (a laptop part sharing a desktop's name).
    NoMatch {
        other_sms: Vec<u32>,
    },
}

pub fn select<'a>(
    file: &'a ProfileFile,
    hardware_class: &str,
    multiprocessors: u32,
) -> EntryMatch<'a> {
    let same_class = file
        .devices
        .iter()
        .filter(|e| e.hardware_class == hardware_class);
    let mut any = None;
    let mut other_sms = Vec::new();
    for e in same_class {
        if e.multiprocessors == multiprocessors && multiprocessors != 0 {
            return EntryMatch::Matched(e);
        } else if e.multiprocessors == 0 {
            any = Some(e);
        } else {
            other_sms.push(e.multiprocessors);
        }
    }
    match any {
        Some(e) => EntryMatch::Matched(e),
        None => {
            other_sms.sort_unstable();
            EntryMatch::NoMatch { other_sms }
        }
    }
}

/// "no entry for X" with the near misses, for explanations.
/// `holder`: whose entries these are ("the file", "the built-in table").
pub fn no_match_reason(
    holder: &str,
    hardware_class: &str,
    multiprocessors: u32,
    other_sms: &[u32],
) -> String {
    if other_sms.is_empty() {
        format!("no entry for {hardware_class}")
    } else {
        let list: Vec<String> = other_sms.iter().map(|s| s.to_string()).collect();
        format!(
            "no entry for {hardware_class} with {multiprocessors} SMs (SM mismatch: {holder}'s entries for it have {} SMs)",
            list.join(", ")
        )
    }
}
