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
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Catalog(a) => ninfer_runtime::cli::catalog::run(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
