//! `ninfer check`: run every variant on the GPU against the CPU reference.

use std::process::ExitCode;

use crate::check::{self, CheckOptions};
use crate::gpu::Gpu;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Only route keys starting with this prefix (e.g. `t2_i8_small/5120x6144`).
    #[arg(long, value_name = "PREFIX")]
    pub only: Option<String>,
    /// Only the variants of this schedule (e.g. `8x1x64w` after adding it to catalog.toml),
    /// at every width they serve; no helper, forward or prompt-attention checks.
    #[arg(long, value_name = "NAME")]
    pub schedule: Option<String>,
    /// Seed for the random inputs (default: fresh each run; printed so a failure can be replayed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// One table row per width instead of one per variant.
    #[arg(long)]
    pub every_width: bool,
    /// Print the rows as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    crate::profile::overrides::validate()?;
    let gpu = Gpu::open(args.device)?;
    let seed = args.seed.unwrap_or_else(crate::ops::routed::fresh_seed);
    eprintln!(
        "checking every variant on {} (device {}, CUDA driver {}, runtime (NVRTC) {}), seed {seed}",
        gpu.info.identity.name,
        args.device,
        crate::gpu::ptx_isa::format_cuda_version(gpu.info.cuda_driver),
        crate::gpu::ptx_isa::format_cuda_version(gpu.info.cuda_runtime),
    );
    let opts = CheckOptions {
        only: args.only.clone(),
        seed: Some(seed),
        schedule: args.schedule.clone(),
    };
    let rows = check::run(&gpu, &opts, &|what| eprintln!("  {what}"))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        check::print_table(&rows, args.every_width);
    }
    let failed = rows.iter().filter(|r| !r.pass).count();
    let variants: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r.variant.as_str()).collect();
    println!(
        "{} checks of {} variants: {} passed, {failed} failed (seed {seed})",
        rows.len(),
        variants.len(),
        rows.len() - failed
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
