//! Device route profiles: for one GPU model, the schedule each route key takes per
//! width band. Three layers answer per key: the profile file, the built-in table,
//! the compiled route (`layers`). Everything here is data in, data out: the device
//! enters as a `DeviceIdentity`, the build's routing facts as a `CatalogView`.

pub mod builtin;
pub mod check;
pub mod explain;
pub mod format;
pub mod layers;
pub mod location;
pub mod lookup;
pub mod matching;
pub mod mode;
pub mod overrides;
pub mod staleness;
pub mod store;
pub mod warnings;

use crate::catalog::CatalogView;
use crate::device::DeviceIdentity;
use format::{Calibration, FileState, ParseError, ProfileFile, SCHEMA_VERSION};
use layers::{Layer, ResolvedKey};
use matching::{select, EntryMatch};
use mode::ProfileMode;
use staleness::{freshness, Freshness, RECALIBRATE};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the file layer contributed for this device, and why not when it did not.
#[derive(Clone, Debug, PartialEq)]
pub enum FileOutcome {
    /// `--device-profile off`.
    NotConsulted,
    Missing,
    Unreadable {
        error: String,
    },
    Corrupt {
        error: ParseError,
    },
    OtherVersion {
        version: u64,
    },
    NoEntry {
        other_sms: Vec<u32>,
    },
    /// The matching entry is not applied.
    Skipped {
        entry: String,
        freshness: Freshness,
    },
    Applied {
        entry: String,
        origin: String,
        calibration: Calibration,
    },
}

/// What the built-in layer contributed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuiltinOutcome {
    NotConsulted,
    NoEntry { other_sms: Vec<u32> },
    Applied { entry: String, origin: String },
}

/// A key a layer names that this build does not route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedKey {
    pub key: String,
    pub layer: Layer,
    pub reason: String,
}

/// Where the profile inputs come from.
pub struct Sources<'a> {
    /// The profile file's path (for messages), when there is one.
    pub path: Option<&'a Path>,
    pub file: &'a FileState,
    pub builtin: &'a ProfileFile,
}

/// The routes for one device after layering, with how each layer fared.
#[derive(Clone, Debug)]
pub struct ResolvedRoutes {
    pub identity: DeviceIdentity,
    pub hardware_class: String,
    pub mode: ProfileMode,
    pub catalog: Arc<CatalogView>,
    pub path: Option<PathBuf>,
    pub file: FileOutcome,
    pub builtin: BuiltinOutcome,
    /// Every key of the catalog, sorted; no segments = the compiled route throughout.
    pub keys: Vec<ResolvedKey>,
    pub skipped_keys: Vec<SkippedKey>,
}

impl ResolvedRoutes {
    pub fn key(&self, key: &str) -> Option<&ResolvedKey> {
        self.keys.iter().find(|k| k.key == key)
    }

    /// The warnings this resolution gives (each is logged once per process by `resolve`).
    pub fn warnings(&self) -> Vec<String> {
        let path = self
            .path
            .as_deref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "(none)".into());
        let mut out = Vec::new();
        match &self.file {
            FileOutcome::Unreadable { error } => {
                out.push(format!("device profile file {path} cannot be read ({error}); it is not used"))
            }
            FileOutcome::Corrupt { error } => out.push(format!(
                "device profile file {path} is not usable: {error}; it is not read, and the next calibration keeps it as a backup before writing a new one"
            )),
            FileOutcome::OtherVersion { version } if *version < SCHEMA_VERSION => out.push(format!(
                "device profile file {path} has schema_version {version}, written by another (older) build; it is not read; {RECALIBRATE} to replace it"
            )),
            FileOutcome::OtherVersion { version } => out.push(format!(
                "device profile file {path} has schema_version {version}, written by another (newer) build; it is not read, and this build leaves it untouched"
            )),
            FileOutcome::Skipped { entry, freshness } => {
                let instead = match &self.builtin {
                    BuiltinOutcome::Applied { .. } => "the built-in entry applies instead",
                    _ => "no built-in entry applies instead",
                };
                out.push(format!(
                    "device profile entry {entry} in {path} is not applied: {}; {instead}; {RECALIBRATE}",
                    freshness.reason().unwrap_or_default()
                ))
            }
            _ => {}
        }
        for s in &self.skipped_keys {
            out.push(format!(
                "device profile {} layer: route key \"{}\" skipped: {}",
                s.layer, s.key, s.reason
            ));
        }
        out
    }
}

/// Layers the file and the built-in table over the compiled routes for one device.
/// Logs each warning once per process (`warnings::warn_once`).
pub fn resolve(
    identity: &DeviceIdentity,
    mode: ProfileMode,
    sources: &Sources,
    catalog: &Arc<CatalogView>,
) -> ResolvedRoutes {
    let hardware_class = identity.hardware_class();
    let sms = identity.multiprocessors;
    let mut file_entry = None;
    let file = if mode == ProfileMode::Off {
        FileOutcome::NotConsulted
    } else {
        match sources.file {
            FileState::Missing => FileOutcome::Missing,
            FileState::Unreadable { error } => FileOutcome::Unreadable {
                error: error.clone(),
            },
            FileState::Corrupt { error } => FileOutcome::Corrupt {
                error: error.clone(),
            },
            FileState::OtherVersion { version } => FileOutcome::OtherVersion { version: *version },
            FileState::Read(f) => match select(f, &hardware_class, sms) {
                EntryMatch::NoMatch { other_sms } => FileOutcome::NoEntry { other_sms },
                EntryMatch::Matched(e) => match freshness(e, &catalog.digest) {
                    Freshness::Fresh(calibration) => {
                        file_entry = Some(e);
                        FileOutcome::Applied {
                            entry: e.label(),
                            origin: e.origin.clone(),
                            calibration,
                        }
                    }
                    other => FileOutcome::Skipped {
                        entry: e.label(),
                        freshness: other,
                    },
                },
            },
        }
    };
    let mut builtin_entry = None;
    let builtin = if mode == ProfileMode::Off {
        BuiltinOutcome::NotConsulted
    } else {
        match select(sources.builtin, &hardware_class, sms) {
            EntryMatch::NoMatch { other_sms } => BuiltinOutcome::NoEntry { other_sms },
            EntryMatch::Matched(e) => {
                builtin_entry = Some(e);
                BuiltinOutcome::Applied {
                    entry: e.label(),
                    origin: e.origin.clone(),
                }
            }
        }
    };
    let mut skipped_keys = Vec::new();
    for (layer, entry) in [(Layer::File, file_entry), (Layer::BuiltIn, builtin_entry)] {
        for key in entry.iter().flat_map(|e| e.routes.keys()) {
            if catalog.key(key).is_none() {
                skipped_keys.push(SkippedKey {
                    key: key.clone(),
                    layer,
                    reason: "not a route key of this build".into(),
                });
            }
        }
    }
    let keys = catalog
        .keys
        .iter()
        .map(|kv| ResolvedKey {
            key: kv.key.clone(),
            segments: layers::layer(
                file_entry
                    .and_then(|e| e.routes.get(&kv.key))
                    .map(|b| b.as_slice()),
                builtin_entry
                    .and_then(|e| e.routes.get(&kv.key))
                    .map(|b| b.as_slice()),
            ),
        })
        .collect();
    let resolved = ResolvedRoutes {
        identity: identity.clone(),
        hardware_class,
        mode,
        catalog: catalog.clone(),
        path: sources.path.map(Path::to_path_buf),
        file,
        builtin,
        keys,
        skipped_keys,
    };
    for w in resolved.warnings() {
        warnings::warn_once(&w);
    }
    resolved
}
