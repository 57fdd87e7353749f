//! One file per `ninfer` subcommand: its clap arguments and its `run`.
pub mod bench;
pub mod calibrate;
pub mod catalog;
pub mod check;
pub mod profile;
pub mod routes;

/// Warnings and route traces go to stderr; RUST_LOG overrides the level (default info).
pub fn init_tracing() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        // colour only on a terminal: logs redirected to files stay plain text
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
}
