use clap::{Parser, Subcommand};

/// ninfer: generated CUDA kernel variants, routed per device.
#[derive(Parser)]
#[command(name = "ninfer", version, about, long_about = None)]
struct Cli {
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
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // Warnings and route traces go to stderr; RUST_LOG overrides the level.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let result = match &cli.command {
        Command::Catalog(a) => ninfer_runtime::cli::catalog::run(a),
        Command::Routes(a) => ninfer_runtime::cli::routes::run(a),
        Command::Profile(a) => ninfer_runtime::cli::profile::run(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
