//! `ninfer bench`: time each implemented op at its calibration widths from HBM.

use std::path::PathBuf;

use crate::bench::{self, BenchOptions};
use crate::engine::Engine;
use crate::profile::mode::ProfileMode;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Which routes to run: the profile (auto), a fresh calibration, or the compiled routes (off).
    #[arg(long, value_enum, default_value_t = ProfileMode::Auto)]
    pub device_profile: ProfileMode,
    /// The profile file.
    #[arg(long, value_name = "PATH", long_help = format!("The profile file ({})", crate::profile::location::SEARCH_ORDER))]
    pub device_profile_path: Option<PathBuf>,
    /// Only route keys starting with this prefix.
    #[arg(long, value_name = "PREFIX")]
    pub only: Option<String>,
    /// Widths to time (comma-separated; default: each family's calibration widths).
    #[arg(long, value_delimiter = ',')]
    pub widths: Option<Vec<u32>>,
    /// Samples per measurement (the median is reported).
    #[arg(long, default_value_t = 9)]
    pub samples: usize,
    /// Where the weights come from: rotated copies from HBM (what the issues' targets
    /// mean), or one copy kept in L2 (the time without the HBM stream's limit; route-key
    /// ops only, the verify and prompt benches are skipped).
    #[arg(long, value_enum, default_value_t = crate::gpu::timing::WeightsFrom::Hbm)]
    pub weights_from: crate::gpu::timing::WeightsFrom,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.samples >= 1, "--samples must be at least 1");
    let only = args.only.as_deref();
    anyhow::ensure!(
        !crate::ops::routed::implemented_keys(only).is_empty()
            || crate::ops::attn_i8_small::bench::selected(only)
            || bench::selects_prompt(only),
        "nothing to time: no route key, verify request or prompt case matches --only {}",
        only.unwrap_or_default()
    );
    let engine = Engine::start(
        args.device,
        args.device_profile,
        args.device_profile_path.as_deref(),
        &|m| eprintln!("{m}"),
    )?;
    eprintln!("{}", crate::engine::describe(&engine));
    let opts = BenchOptions {
        only: args.only.clone(),
        widths: args.widths.clone(),
        samples: args.samples,
        weights_from: args.weights_from,
    };
    let report = bench::run(&engine.gpu, &|key, w| engine.variant(key, w), &opts, &|m| {
        eprintln!("  {m}")
    })?;
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(path) = &args.out {
        std::fs::write(path, &json)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    if args.json {
        println!("{json}");
    } else {
        bench::print_table(&report);
    }
    Ok(())
}
