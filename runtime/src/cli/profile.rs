//! `ninfer profile check PATH`: validates a profile file against this build and says
//! what it finds; the exit status is non-zero when it finds errors.

use crate::catalog::CatalogView;
use crate::profile::check;
use crate::profile::format::FileState;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone)]
pub struct ProfileArgs {
    #[command(subcommand)]
    pub command: ProfileCommand,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum ProfileCommand {
    /// Validate a device route profile file against this build: schema and version,
    /// each entry's route catalog digest, unknown keys or schedules, schedules that
    /// cannot serve their band's widths.
    Check {
        /// The profile file.
        path: PathBuf,
    },
}

/// The report for `path` and whether it found errors.
pub fn check_with(path: &Path, catalog: &CatalogView) -> (String, bool) {
    let report = check::check(&path.display().to_string(), &FileState::load(path), catalog);
    (report.render(), report.errors() == 0)
}

/// Prints the report; an error (non-zero exit) when the check found errors.
pub fn run(args: &ProfileArgs) -> anyhow::Result<()> {
    match &args.command {
        ProfileCommand::Check { path } => {
            let (text, ok) = check_with(path, &CatalogView::built_in());
            print!("{text}");
            anyhow::ensure!(ok, "{} does not pass the check", path.display());
            Ok(())
        }
    }
}
