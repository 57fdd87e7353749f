//! Whether a file entry was measured by a build with this build's route catalog.
//! Only file entries are checked: the built-in table is compiled with the binary.

use super::format::{Calibration, Entry};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Measured against this build's route catalog, as its calibration block says.
    Fresh(Calibration),
    /// No calibration block: nothing says what it was measured against.
    NoCalibration,
    /// Measured against another route catalog.
    OtherCatalog {
        entry_digest: String,
        build_digest: String,
        measured_by: String,
        date: String,
    },
}

pub fn freshness(entry: &Entry, build_digest: &str) -> Freshness {
    match &entry.calibration {
        None => Freshness::NoCalibration,
        Some(c) if c.route_catalog == build_digest => Freshness::Fresh(c.clone()),
        Some(c) => Freshness::OtherCatalog {
            entry_digest: c.route_catalog.clone(),
            build_digest: build_digest.to_string(),
            measured_by: c.ninfer_build.clone(),
            date: c.date.clone(),
        },
    }
}

pub const RECALIBRATE: &str = "recalibrate with `ninfer-calibrate` or `--device-profile calibrate`";

impl Freshness {
    pub fn is_fresh(&self) -> bool {
        matches!(self, Freshness::Fresh(_))
    }

    /// Why the entry is not applied (None when it is fresh).
    pub fn reason(&self) -> Option<String> {
        match self {
            Freshness::Fresh(_) => None,
            Freshness::NoCalibration => Some("it has no calibration block, so nothing says what it was measured against".into()),
            Freshness::OtherCatalog { entry_digest, build_digest, measured_by, date } => Some(format!(
                "stale: measured against route catalog {entry_digest} by ninfer {measured_by} on {date}, this build's route catalog is {build_digest}"
            )),
        }
    }
}
