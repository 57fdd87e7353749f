use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = ninfer_runtime::cli::calibrate::CalibrateArgs::parse();
    ninfer_runtime::cli::init_tracing();
    match ninfer_runtime::cli::calibrate::run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
