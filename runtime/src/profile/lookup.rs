//! The installed route table: width → schedule per key, what op dispatch asks.
//!
//! A `RouteTable` is built once from `ResolvedRoutes` and never changes; every band
//! is expanded in advance to the schedule that actually runs, so a lookup is a binary
//! search and two atomic flags. Installed tables live in one `OnceLock` per device
//! ordinal: after `install_on`, reads take no lock.
//!
//! A band naming a schedule the catalog does not list for its key, or widths past
//! what its schedule serves, take the compiled route; the first lookup that lands
//! there logs one warning (per band). With `NINFER_DEVICE_ROUTE_TRACE=1` the first
//! lookup of each band logs the route it applied.

use super::layers::{Layer, ResolvedKey};
use super::ResolvedRoutes;
use crate::catalog::{CatalogView, KeyView};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// One expanded band: widths `first..=last` run `schedule`.
#[derive(Debug)]
pub struct TableBand {
    pub first: u32,
    /// `u32::MAX`: and every wider width.
    pub last: u32,
    /// The schedule that runs (never `""` unless the key has no compiled route).
    pub schedule: String,
    pub layer: Layer,
    /// What the layer wrote (`""` = the compiled route).
    pub written: String,
    /// Why this band runs the compiled route instead of what the layer named.
    pub fallback: Option<String>,
    warned: Arc<AtomicBool>,
    traced: AtomicBool,
}

#[derive(Debug)]
pub struct KeyRoutes {
    pub key: String,
    pub bands: Vec<TableBand>,
}

impl KeyRoutes {
    fn band(&self, width: u32) -> Option<&TableBand> {
        let i = self.bands.partition_point(|b| b.last < width.max(1));
        self.bands.get(i)
    }
}

#[derive(Debug)]
pub struct RouteTable {
    device: String,
    keys: HashMap<String, KeyRoutes>,
    sorted: Vec<String>,
    trace: bool,
}

/// Widths `first..=last` along the compiled bands of `kv`.
fn compiled_pieces(kv: &KeyView, first: u32, last: u32) -> Vec<(u32, u32, String)> {
    let mut out = Vec::new();
    let mut start = first;
    for (i, (band_last, schedule)) in kv.compiled.iter().enumerate() {
        let band_last = if i + 1 == kv.compiled.len() {
            u32::MAX
        } else {
            *band_last
        };
        if band_last < start {
            continue;
        }
        let end = band_last.min(last);
        out.push((start, end, schedule.clone()));
        if end == last {
            return out;
        }
        start = end + 1;
    }
    if kv.compiled.is_empty() {
        out.push((first, last, String::new()));
    }
    out
}

fn expand(kv: &KeyView, rk: &ResolvedKey) -> Vec<TableBand> {
    let mut out = Vec::new();
    let band = |first,
                last,
                schedule: String,
                layer,
                written: &str,
                fallback: Option<(String, Arc<AtomicBool>)>| {
        let (fallback, warned) = match fallback {
            Some((m, w)) => (Some(m), w),
            None => (None, Arc::new(AtomicBool::new(false))),
        };
        TableBand {
            first,
            last,
            schedule,
            layer,
            written: written.to_string(),
            fallback,
            warned,
            traced: AtomicBool::new(false),
        }
    };
    let compiled =
        |out: &mut Vec<TableBand>, first, last, layer, written: &str, fallback: Option<String>| {
            let flag = Arc::new(AtomicBool::new(false));
            for (a, b, s) in compiled_pieces(kv, first, last) {
                out.push(band(
                    a,
                    b,
                    s,
                    layer,
                    written,
                    fallback.clone().map(|m| (m, flag.clone())),
                ));
            }
        };
    let mut next = 1u32;
    for seg in &rk.segments {
        let (first, last) = (seg.first_width, seg.last_width);
        if seg.schedule.is_empty() {
            compiled(&mut out, first, last, seg.layer, "", None);
        } else {
            match kv.max_width(&seg.schedule) {
                None => {
                    let names: Vec<&str> = kv.candidates.iter().map(|(s, _)| s.as_str()).collect();
                    let why = format!(
                        "the {} layer names \"{}\" for {} widths {first}-{last}, which is not a schedule of this key in this build (candidates: {}); the compiled route runs instead",
                        seg.layer,
                        seg.schedule,
                        kv.key,
                        names.join(", ")
                    );
                    compiled(&mut out, first, last, seg.layer, &seg.schedule, Some(why));
                }
                Some(max) if max < last => {
                    if max >= first {
                        out.push(band(
                            first,
                            max,
                            seg.schedule.clone(),
                            seg.layer,
                            &seg.schedule,
                            None,
                        ));
                    }
                    let from = max.max(first - 1) + 1;
                    let why = format!(
                        "the {} layer names \"{}\" for {} widths {first}-{last}, but it serves widths up to {max}; widths {from}-{last} take the compiled route",
                        seg.layer, seg.schedule, kv.key
                    );
                    compiled(&mut out, from, last, seg.layer, &seg.schedule, Some(why));
                }
                Some(_) => out.push(band(
                    first,
                    last,
                    seg.schedule.clone(),
                    seg.layer,
                    &seg.schedule,
                    None,
                )),
            }
        }
        next = last.saturating_add(1);
    }
    if rk.segments.last().is_none_or(|s| s.last_width < u32::MAX) {
        compiled(&mut out, next, u32::MAX, Layer::Compiled, "", None);
    }
    out
}

impl RouteTable {
    /// The table for resolved routes; traces when `NINFER_DEVICE_ROUTE_TRACE=1`.
    pub fn new(routes: &ResolvedRoutes) -> Self {
        let trace = super::overrides::get()
            .map(|o| o.route_trace)
            .unwrap_or(false);
        Self::with_trace(routes, trace)
    }

    pub fn with_trace(routes: &ResolvedRoutes, trace: bool) -> Self {
        let mut keys = HashMap::new();
        let mut sorted = Vec::new();
        for rk in &routes.keys {
            if let Some(kv) = routes.catalog.key(&rk.key) {
                keys.insert(
                    rk.key.clone(),
                    KeyRoutes {
                        key: rk.key.clone(),
                        bands: expand(kv, rk),
                    },
                );
                sorted.push(rk.key.clone());
            }
        }
        sorted.sort();
        RouteTable {
            device: routes.hardware_class.clone(),
            keys,
            sorted,
            trace,
        }
    }

    /// The compiled routes of a catalog, no profile.
    pub fn compiled_only(catalog: &CatalogView) -> Self {
        let keys = catalog
            .keys
            .iter()
            .map(|kv| ResolvedKey {
                key: kv.key.clone(),
                segments: vec![],
            })
            .collect();
        let routes = ResolvedRoutes {
            identity: crate::device::DeviceIdentity::new("", (0, 0), 0),
            hardware_class: "compiled".into(),
            mode: super::mode::ProfileMode::Off,
            catalog: Arc::new(catalog.clone()),
            path: None,
            file: super::FileOutcome::NotConsulted,
            builtin: super::BuiltinOutcome::NotConsulted,
            keys,
            skipped_keys: vec![],
        };
        Self::with_trace(&routes, false)
    }

    pub fn key(&self, key: &str) -> Option<&KeyRoutes> {
        self.keys.get(key)
    }

    /// Keys in sorted order.
    pub fn keys(&self) -> impl Iterator<Item = &KeyRoutes> {
        self.sorted.iter().map(|k| &self.keys[k])
    }

    /// The schedule for `key` at `width`, or None for a key this table does not route.
    pub fn schedule(&self, key: &str, width: u32) -> Option<&str> {
        let band = self.keys.get(key)?.band(width)?;
        if let Some(why) = &band.fallback {
            if !band.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!("device route {}: {why}", self.device);
            }
        }
        if self.trace && !band.traced.swap(true, Ordering::Relaxed) {
            let last = if band.last == u32::MAX {
                String::new()
            } else {
                band.last.to_string()
            };
            tracing::info!(
                "device route {}: {key} widths {}-{last} -> {} ({})",
                self.device,
                band.first,
                band.schedule,
                band.layer
            );
        }
        Some(&band.schedule)
    }
}

/// How many device ordinals can hold a table.
pub const MAX_DEVICES: usize = 64;

static TABLES: [OnceLock<RouteTable>; MAX_DEVICES] = [const { OnceLock::new() }; MAX_DEVICES];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InstallError {
    #[error("device {0} already has routes installed")]
    AlreadyInstalled(usize),
    #[error("device ordinal {0} is past the {MAX_DEVICES} devices route tables are kept for")]
    OrdinalTooLarge(usize),
}

/// Installs the routes of device 0.
pub fn install(routes: ResolvedRoutes) -> Result<&'static RouteTable, InstallError> {
    install_on(0, routes)
}

/// Installs the routes of device `ordinal`, once per process.
pub fn install_on(
    ordinal: usize,
    routes: ResolvedRoutes,
) -> Result<&'static RouteTable, InstallError> {
    let slot = TABLES
        .get(ordinal)
        .ok_or(InstallError::OrdinalTooLarge(ordinal))?;
    let mut fresh = false;
    let table = slot.get_or_init(|| {
        fresh = true;
        RouteTable::new(&routes)
    });
    if fresh {
        Ok(table)
    } else {
        Err(InstallError::AlreadyInstalled(ordinal))
    }
}

/// Device `ordinal`'s table, or this build's compiled routes when none is installed.
pub fn table(ordinal: usize) -> &'static RouteTable {
    static COMPILED: OnceLock<RouteTable> = OnceLock::new();
    TABLES
        .get(ordinal)
        .and_then(OnceLock::get)
        .unwrap_or_else(|| {
            COMPILED.get_or_init(|| RouteTable::compiled_only(&CatalogView::built_in()))
        })
}

/// The schedule device 0 runs for `key` at `width` (`""` for a key this build does
/// not route: a dispatch bug, warned once).
pub fn schedule(key: &str, width: u32) -> &'static str {
    schedule_on(0, key, width)
}

pub fn schedule_on(ordinal: usize, key: &str, width: u32) -> &'static str {
    match table(ordinal).schedule(key, width) {
        Some(s) => s,
        None => {
            super::warnings::warn_once(&format!(
                "route key \"{key}\" is not a route key of this build"
            ));
            ""
        }
    }
}
