//! Device identity as data (name, compute capability, SM count): everything the
//! profile rules need, with no GPU. `crate::gpu` fills it from the driver.

mod hardware_class;

pub use hardware_class::hardware_class;

use std::fmt;

/// Who a GPU is, for matching profile entries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceIdentity {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
}

impl DeviceIdentity {
    pub fn new(
        name: impl Into<String>,
        compute_capability: (u32, u32),
        multiprocessors: u32,
    ) -> Self {
        DeviceIdentity {
            name: name.into(),
            compute_capability,
            multiprocessors,
        }
    }

    /// The hardware class profile entries are keyed by (`nvidia-h200-sm90`).
    pub fn hardware_class(&self) -> String {
        hardware_class(&self.name, self.compute_capability)
    }
}

impl fmt::Display for DeviceIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (major, minor) = self.compute_capability;
        write!(
            f,
            "{} (compute capability {major}.{minor}, {} SMs)",
            self.name, self.multiprocessors
        )
    }
}

/// Parses a compute capability written `MAJOR.MINOR` (`9.0`, `8.6`, `12.0`).
pub fn parse_compute_capability(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("compute capability `{text}`: expected MAJOR.MINOR, e.g. 9.0 or 8.6");
    let (major, minor) = text.trim().split_once('.').ok_or_else(bad)?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(minor) {
        return Err(bad());
    }
    Ok((
        major.parse().map_err(|_| bad())?,
        minor.parse().map_err(|_| bad())?,
    ))
}
