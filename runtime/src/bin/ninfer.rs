use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Generated CUDA kernel variants, routed per GPU: catalog, route tables, profiles,
/// correctness checks and benchmarks.
#[derive(Parser)]
#[command(name = "ninfer", version)]
struct Cli {
    /// Run the fast prompt-attention kernel whatever the device profile and
    /// NINFER_PROMPT_FAST say (what `routes` shows and `bench` times as the installed
    /// prompt route; `check` checks every route either way).
    #[arg(long, global = true)]
    fast_prefill_kernel: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The build's kernel catalog: route keys, candidates, compiled bands, digest.
    Catalog(ninfer_runtime::cli::catalog::CatalogArgs),
    /// The resolved route table for this GPU or a named device: per key and width
    /// band, the schedule and the profile layer that answered it.
    Routes(ninfer_runtime::cli::routes::RoutesArgs),
    /// Device route profile files.
    Profile(ninfer_runtime::cli::profile::ProfileArgs),
    /// Run every generated variant on the GPU against the CPU reference, at every
    /// width it serves, with poisoned outputs; non-zero exit on any failure.
    Check(ninfer_runtime::cli::check::CheckArgs),
    /// Time each implemented op at its calibration widths, weights from HBM.
    Bench(ninfer_runtime::cli::bench::BenchArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    ninfer_runtime::cli::init_tracing();
    if cli.fast_prefill_kernel {
        ninfer_runtime::ops::attn_prompt::route::force_fast_kernel();
    }
    let result = match &cli.command {
        Command::Catalog(a) => ninfer_runtime::cli::catalog::run(a).map(|_| ExitCode::SUCCESS),
        Command::Routes(a) => ninfer_runtime::cli::routes::run(a).map(|_| ExitCode::SUCCESS),
        Command::Profile(a) => ninfer_runtime::cli::profile::run(a).map(|_| ExitCode::SUCCESS),
        Command::Check(a) => ninfer_runtime::cli::check::run(a),
        Command::Bench(a) => ninfer_runtime::cli::bench::run(a).map(|_| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
