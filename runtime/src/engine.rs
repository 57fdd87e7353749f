//! The start-up path: open the GPU, decide what the device's profile is (file, built-in,
//! calibrate now, compiled only), calibrate once if needed and store the result, then
//! install the resolved route table before any op runs. After `start`, every op call
//! maps (route key, width) to a variant with a lock-free lookup.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::calibrate::{self, measure::Selection};
use crate::catalog::{self, CatalogView, Variant};
use crate::gpu::Gpu;
use crate::profile::format::{FileState, ProfileFile};
use crate::profile::lookup::{self, RouteTable};
use crate::profile::mode::{self, Decision, ProfileMode};
use crate::profile::{builtin, location, store, Sources};

pub struct Engine {
    pub gpu: Arc<Gpu>,
    pub decision: Decision,
    pub profile_path: Option<PathBuf>,
    pub routes: &'static RouteTable,
}

impl Engine {
    /// Opens device `ordinal` and installs its routes per `mode`. A GPU with neither a
    /// file entry nor a built-in one is calibrated here, once, and the result stored.
    pub fn start(
        ordinal: usize,
        mode: ProfileMode,
        profile_path: Option<&Path>,
        progress: &dyn Fn(&str),
    ) -> anyhow::Result<Engine> {
        let overrides = crate::profile::overrides::validate()?;
        let gpu = Gpu::open(ordinal)?;
        let identity = gpu.info.identity.clone();
        let catalog = Arc::new(CatalogView::built_in());
        let located = match location::resolve(profile_path) {
            Ok((p, _)) => Some(p),
            Err(e) => {
                tracing::warn!("no device profile file: {e}");
                None
            }
        };
        let mut file = match &located {
            Some(p) => FileState::load(p),
            None => FileState::Missing,
        };
        let mut decision = mode::decide(mode, &identity, &file, builtin::table(), &catalog.digest);
        if matches!(decision, Decision::CalibrateNow(_)) && overrides.baseline_ptx {
            // a calibration would time the baseline PTX and store its routes for the newest
            tracing::warn!(
                "NINFER_PTX=baseline: {} is not calibrated ({decision}); the compiled routes run",
                identity.name
            );
            decision = Decision::CompiledOnly;
        }
        if let Decision::CalibrateNow(_) = decision {
            progress(&format!("calibrating {} ({decision})", identity.name));
            // One line per route key, not per width.
            let last_key = std::cell::RefCell::new(String::new());
            let per_key = |tick: &str| {
                let key = tick.split(' ').next().unwrap_or(tick);
                if *last_key.borrow() != key {
                    progress(&format!("  measuring {key}"));
                    *last_key.borrow_mut() = key.to_string();
                }
            };
            let outcome = calibrate::measure::run(
                &gpu,
                &Selection::default(),
                crate::gpu::timing::WeightsFrom::Hbm,
                &per_key,
            )?;
            progress(&format!(
                "  {} keys measured, {} routed off the compiled route, {:.1} s",
                outcome.routes.len(),
                outcome.keys_off_compiled,
                outcome.seconds
            ));
            let entry = calibrate::to_entry(&outcome, &gpu);
            match &located {
                Some(p) => match store::upsert(p, &entry) {
                    Ok(_) => {
                        progress(&format!("stored the profile in {}", p.display()));
                        file = FileState::load(p);
                    }
                    Err(e) => {
                        tracing::warn!("could not store the calibration in {}: {e}; using it for this run only", p.display());
                        file = FileState::Read(in_memory(entry));
                    }
                },
                None => file = FileState::Read(in_memory(entry)),
            }
        }
        let resolve_mode = if mode == ProfileMode::Off {
            ProfileMode::Off
        } else {
            ProfileMode::Auto
        };
        let resolved = crate::profile::resolve(
            &identity,
            resolve_mode,
            &Sources {
                path: located.as_deref(),
                file: &file,
                builtin: builtin::table(),
            },
            &catalog,
        );
        let routes = match lookup::install_on(ordinal, resolved) {
            Ok(t) => t,
            Err(_) => lookup::table(ordinal), // already installed in this process
        };
        Ok(Engine {
            gpu,
            decision,
            profile_path: located,
            routes,
        })
    }

    /// The variant serving `width` of route key `key`, per the installed table.
    pub fn variant(&self, key: &str, width: u32) -> &'static Variant {
        let schedule = lookup::schedule_on(self.gpu.info.ordinal, key, width);
        catalog::split_route_key(key)
            .and_then(|(family, _)| family.candidate(schedule))
            .unwrap_or_else(|| {
                panic!("route table names {schedule:?} for {key}, which this build lacks")
            })
    }
}

fn in_memory(entry: crate::profile::format::Entry) -> ProfileFile {
    let mut f = ProfileFile::default();
    f.devices.push(entry);
    f
}

pub fn describe(engine: &Engine) -> String {
    let id = &engine.gpu.info.identity;
    format!(
        "{} (sm_{}{}, {} SMs, {} MB L2, CUDA driver {}, runtime (NVRTC) {}): {}",
        id.name,
        id.compute_capability.0,
        id.compute_capability.1,
        id.multiprocessors,
        engine.gpu.info.l2_bytes >> 20,
        crate::gpu::ptx_isa::format_cuda_version(engine.gpu.info.cuda_driver),
        crate::gpu::ptx_isa::format_cuda_version(engine.gpu.info.cuda_runtime),
        engine.decision
    ) + &engine
        .profile_path
        .as_ref()
        .map(|p| format!("; profile file {}", p.display()))
        .unwrap_or_default()
}
