//! `ninfer-calibrate` and the engine's start-up calibration: measure the route families
//! on this GPU (`measure`), decide bands (`decide`), and make a profile entry.

pub mod decide;
pub mod measure;
pub mod switches;

use crate::catalog::ROUTE_CATALOG;
use crate::gpu::Gpu;
use crate::profile::format::{Band, Calibration, Entry};

/// The profile entry of a calibration run on `gpu`, with its provenance block.
pub fn to_entry(outcome: &measure::Outcome, gpu: &Gpu) -> Entry {
    let id = &gpu.info.identity;
    let mut entry = Entry::new(
        id.hardware_class(),
        id.multiprocessors,
        format!("ninfer-calibrate on {}", id.name),
    );
    entry.calibration = Some(Calibration {
        route_catalog: ROUTE_CATALOG.to_string(),
        ninfer_build: crate::build_info::ninfer_build(),
        cuda_driver: gpu.info.cuda_driver as u32,
        cuda_runtime: crate::build_info::cuda_runtime() as u32,
        date: crate::build_info::utc_now_rfc3339(),
    });
    for (key, bands) in &outcome.routes {
        entry.routes.insert(
            key.clone(),
            bands
                .iter()
                .map(|(w, s)| Band::new(*w, s.clone()))
                .collect(),
        );
    }
    entry
}
