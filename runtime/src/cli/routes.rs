//! `ninfer routes`: the resolved route table for this GPU, or for a device named on
//! the command line, with the layer that answered each band and why a file entry was
//! skipped.

use crate::catalog::CatalogView;
use crate::device::{parse_compute_capability, DeviceIdentity};
use crate::ops::attn_prompt::launch as prompt_launch;
use crate::ops::attn_prompt::route::PromptRoute;
use crate::ops::prefill_chunk;
use crate::profile::explain::{self, Context};
use crate::profile::format::{FileState, ProfileFile};
use crate::profile::location::{self, PathSource};
use crate::profile::lookup::RouteTable;
use crate::profile::mode::{self, ProfileMode};
use crate::profile::overrides::{self, EnvOverrides};
use crate::profile::{builtin, resolve, Sources};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(clap::Args, Debug, Clone)]
pub struct RoutesArgs {
    /// Name a device instead of detecting one: its name as the driver reports it
    /// ("NVIDIA H200"); needs --compute-capability and --sms.
    #[arg(long, requires_all = ["compute_capability", "sms"])]
    pub gpu_name: Option<String>,
    /// Compute capability of the named device, MAJOR.MINOR (9.0).
    #[arg(long, value_parser = parse_compute_capability, requires = "gpu_name")]
    pub compute_capability: Option<(u32, u32)>,
    /// SM count of the named device (as the driver reports it; at least 1).
    #[arg(long, requires = "gpu_name", value_parser = clap::value_parser!(u32).range(1..))]
    pub sms: Option<u32>,
    /// CUDA device to detect when no device is named.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// The profile file.
    #[arg(long, value_name = "PATH", long_help = format!("The profile file ({})", crate::profile::location::SEARCH_ORDER))]
    pub device_profile_path: Option<PathBuf>,
    /// auto: file, else built-in, else calibrate; calibrate: measure again; off: compiled
    /// routes only. On this GPU, auto and calibrate start the engine as inference would
    /// (calibrating where the decision says so); for a device named with --gpu-name
    /// nothing is measured: the table shows the decision and the layers as they stand.
    #[arg(long, value_enum, default_value_t)]
    pub device_profile: ProfileMode,
    /// JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Prefill chunk to show the wave-aligned adjustment of (tokens).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub prefill_chunk: u32,
}

type Locate<'a> = &'a dyn Fn(Option<&Path>) -> Result<(PathBuf, PathSource), String>;
type Detect<'a> = &'a dyn Fn(usize) -> anyhow::Result<DeviceIdentity>;

/// What `routes` reads from the build and the process (tests bring their own).
pub struct Env<'a> {
    pub catalog: Arc<CatalogView>,
    pub builtin: &'a ProfileFile,
    pub overrides: EnvOverrides,
    pub locate: Locate<'a>,
    pub detect: Detect<'a>,
}

/// The output of `routes`, or a one-line error.
pub fn run_with(args: &RoutesArgs, env: &Env) -> Result<String, String> {
    let identity = match (&args.gpu_name, args.compute_capability, args.sms) {
        (Some(name), Some(cc), Some(sms)) => DeviceIdentity::new(name.clone(), cc, sms),
        _ => (env.detect)(args.device).map_err(|e| {
            format!(
                "no GPU found ({e:#}); name the device with --gpu-name NAME --compute-capability MAJOR.MINOR --sms N"
            )
        })?,
    };
    let (path, source) = match (env.locate)(args.device_profile_path.as_deref()) {
        Ok((p, s)) => (Some(p), Some(s.to_string())),
        Err(_) if args.device_profile == ProfileMode::Off => (None, None),
        Err(e) => return Err(e),
    };
    let state = match (&path, args.device_profile) {
        (Some(p), m) if m != ProfileMode::Off => FileState::load(p),
        _ => FileState::Missing,
    };
    let sources = Sources {
        path: path.as_deref(),
        file: &state,
        builtin: env.builtin,
    };
    let resolved = resolve(&identity, args.device_profile, &sources, &env.catalog);
    let decision = mode::decide(
        args.device_profile,
        &identity,
        &state,
        env.builtin,
        &env.catalog.digest,
    );
    let ctx = Context {
        decision,
        path_source: source,
        overrides: &env.overrides,
    };
    let prefill = prefill_line(&resolved, &env.overrides, args.prefill_chunk as usize);
    Ok(if args.json {
        let mut v = explain::render_json(&resolved, &ctx);
        v["prefill"] = serde_json::json!({
            "route": prefill.route.label(),
            "requested_chunk": prefill.requested,
            "chunk": prefill.chunk,
            "ctas": prefill.ctas,
            "wave": prefill.wave,
        });
        let mut s = serde_json::to_string_pretty(&v).unwrap();
        s.push('\n');
        s
    } else {
        let mut s = explain::render_text(&resolved, &ctx);
        s.push_str(&format!(
            "\nprefill: {}; chunk {} -> {} ({} CTAs, {} per wave{})\n",
            prefill.route.label(),
            prefill.requested,
            prefill.chunk,
            prefill.ctas,
            prefill.wave,
            if env.overrides.prefill_align {
                ""
            } else {
                ", NINFER_PREFILL_ALIGN=0 keeps the request"
            }
        ));
        s
    })
}

/// The prompt-attention route the resolved table (and the environment) selects, and the
/// wave-aligned prefill chunk for `requested` on this device.
struct Prefill {
    route: PromptRoute,
    requested: usize,
    chunk: usize,
    ctas: usize,
    wave: usize,
}

fn prefill_line(
    resolved: &crate::profile::ResolvedRoutes,
    o: &EnvOverrides,
    requested: usize,
) -> Prefill {
    let route = PromptRoute::selected(&RouteTable::new(resolved), o);
    // one CTA per SM: the kernels' launch bounds and shared memory allow no more
    let grid = prompt_launch::prompt_grid(&route, 1);
    let sms = resolved.identity.multiprocessors as usize;
    let chunk = prefill_chunk::aligned_chunk(requested, sms, grid, o.prefill_align);
    Prefill {
        route,
        requested,
        chunk,
        ctas: grid.ctas(chunk),
        wave: sms * grid.resident_per_sm,
    }
}

pub fn run(args: &RoutesArgs) -> anyhow::Result<()> {
    let overrides = overrides::validate()?.clone();
    // On a GPU machine, start the engine as inference would: that calibrates and stores
    // the profile when the device has none (or when asked), so the table shown below is
    // the one this GPU will run.
    let mut args = args.clone();
    if args.gpu_name.is_none()
        && args.device_profile != ProfileMode::Off
        && crate::gpu::detect_identity(args.device).is_ok()
    {
        let engine = crate::engine::Engine::start(
            args.device,
            args.device_profile,
            args.device_profile_path.as_deref(),
            &|m| eprintln!("{m}"),
        )?;
        if matches!(engine.decision, mode::Decision::CalibrateNow(_)) {
            args.device_profile = ProfileMode::Auto;
        }
    }
    let args = &args;
    let env = Env {
        catalog: Arc::new(CatalogView::built_in()),
        builtin: builtin::table(),
        overrides,
        locate: &location::resolve,
        detect: &crate::gpu::detect_identity,
    };
    let text = run_with(args, &env).map_err(anyhow::Error::msg)?;
    print!("{text}");
    Ok(())
}
