//! `--device-profile auto|calibrate|off` and what it means for one device: use the
//! file entry, use the built-in one, calibrate now, or the compiled routes only.
//! (Running a calibration is the GPU runtime's; this is the decision.)

use super::format::{FileState, ProfileFile};
use super::matching::{select, EntryMatch};
use super::staleness::freshness;
use crate::device::DeviceIdentity;
use std::fmt;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ProfileMode {
    /// File entry, else built-in entry, else calibrate once at start.
    #[default]
    Auto,
    /// Measure again and store the result over the file's entry.
    Calibrate,
    /// The compiled routes only.
    Off,
}

impl ProfileMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileMode::Auto => "auto",
            ProfileMode::Calibrate => "calibrate",
            ProfileMode::Off => "off",
        }
    }
}

impl fmt::Display for ProfileMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalibrateReason {
    /// `--device-profile calibrate`.
    Requested,
    /// Neither the file nor the built-in table has an entry for this device.
    NoProfile,
    /// The file's entry is not applied (stale or without a calibration block) and
    /// the built-in table has none.
    FileEntryNotApplied,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The file's entry (layered over the built-in one where there is one).
    UseFile,
    /// The built-in entry.
    UseBuiltIn,
    /// Calibrate before loading weights, store the result, then use it.
    CalibrateNow(CalibrateReason),
    /// The compiled routes only.
    CompiledOnly,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::UseFile => "use the file entry (over the built-in table)",
            Decision::UseBuiltIn => "use the built-in entry",
            Decision::CalibrateNow(CalibrateReason::Requested) => {
                "calibrate now (--device-profile calibrate)"
            }
            Decision::CalibrateNow(CalibrateReason::NoProfile) => {
                "calibrate now (no entry for this device in the file or the built-in table)"
            }
            Decision::CalibrateNow(CalibrateReason::FileEntryNotApplied) => {
                "calibrate now (the file entry is not applied and there is no built-in entry)"
            }
            Decision::CompiledOnly => "compiled routes only (--device-profile off)",
        })
    }
}

/// Whether the file holds an entry this build applies for `identity`.
pub fn file_entry_usable(identity: &DeviceIdentity, file: &FileState, build_digest: &str) -> bool {
    match file {
        FileState::Read(f) => match select(f, &identity.hardware_class(), identity.multiprocessors)
        {
            EntryMatch::Matched(e) => freshness(e, build_digest).is_fresh(),
            EntryMatch::NoMatch { .. } => false,
        },
        _ => false,
    }
}

/// Whether the file names this device at all (usable or not).
fn file_names_device(identity: &DeviceIdentity, file: &FileState) -> bool {
    match file {
        FileState::Read(f) => {
            matches!(
                select(f, &identity.hardware_class(), identity.multiprocessors),
                EntryMatch::Matched(_)
            )
        }
        _ => false,
    }
}

/// What to do for one device given the mode, the file's state and the built-in table.
pub fn decide(
    mode: ProfileMode,
    identity: &DeviceIdentity,
    file: &FileState,
    builtin: &ProfileFile,
    build_digest: &str,
) -> Decision {
    match mode {
        ProfileMode::Off => Decision::CompiledOnly,
        ProfileMode::Calibrate => Decision::CalibrateNow(CalibrateReason::Requested),
        ProfileMode::Auto => {
            if file_entry_usable(identity, file, build_digest) {
                Decision::UseFile
            } else if matches!(
                select(
                    builtin,
                    &identity.hardware_class(),
                    identity.multiprocessors
                ),
                EntryMatch::Matched(_)
            ) {
                Decision::UseBuiltIn
            } else if file_names_device(identity, file) {
                Decision::CalibrateNow(CalibrateReason::FileEntryNotApplied)
            } else {
                Decision::CalibrateNow(CalibrateReason::NoProfile)
            }
        }
    }
}
