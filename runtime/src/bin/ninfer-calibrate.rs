use clap::{CommandFactory, FromArgMatches};

fn main() -> std::process::ExitCode {
    use ninfer_runtime::cli::calibrate::{self, CalibrateArgs};
    let matches = CalibrateArgs::command()
        .after_help(calibrate::skip_flags_help())
        .get_matches();
    let args = match CalibrateArgs::from_arg_matches(&matches) {
        Ok(a) => a,
        Err(e) => e.exit(),
    };
    ninfer_runtime::cli::init_tracing();
    match calibrate::run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
