use clap::{Parser, Subcommand};

/// ninfer: generated CUDA kernel variants, routed per device.
#[derive(Parser)]
#[command(name = "ninfer", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {}

fn main() -> std::process::ExitCode {
    let _cli = Cli::parse();
    std::process::ExitCode::SUCCESS
}
