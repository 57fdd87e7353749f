//! `ninfer-calibrate`: measure every route family on this GPU and store the profile
//! where the engine looks for it.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

use crate::calibrate::{self, measure};
use crate::catalog::CalibrationFlag;
use crate::gpu::timing::WeightsFrom;
use crate::gpu::Gpu;
use crate::profile::{format, location, store};

/// Measure every route family on this GPU and store its device route profile where the
/// engine looks for it.
///
/// Each candidate schedule is timed through the dispatch inference uses, on synthetic
/// weights of the registered shapes, weights rotated past L2 and L2 flushed before every
/// sample, median of 11. A candidate replaces the compiled route only when it is at least
/// 3 % faster, in a second interleaved measurement too, and its output matches the
/// compiled route's within 5 %. Close other GPU work first: the measurement assumes an
/// idle device.
#[derive(clap::Parser, Debug)]
#[command(name = "ninfer-calibrate", version)]
pub struct CalibrateArgs {
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// Profile file to update.
    #[arg(long, value_name = "PATH", long_help = format!("Profile file to update ({})", crate::profile::location::SEARCH_ORDER))]
    pub out: Option<PathBuf>,
    /// Write the stored entry, with its calibration block, to stdout.
    #[arg(long)]
    pub print: bool,
    /// Log every candidate's time.
    #[arg(long)]
    pub detail: bool,
    /// Only route keys starting with this prefix (the stored entry keeps the other keys
    /// when it was measured against the same route catalog).
    #[arg(long, value_name = "PREFIX")]
    pub only: Option<String>,
    /// Skip the ternary projection families (listed below).
    #[arg(long)]
    pub no_ternary: bool,
    /// Skip the groupwise projection families (listed below).
    #[arg(long)]
    pub no_groupwise: bool,
    /// Skip the attention families and switches (listed below).
    #[arg(long)]
    pub no_attention: bool,
    /// Skip the linear-attention families (listed below).
    #[arg(long)]
    pub no_linear_attention: bool,
    /// Where the candidates' weights come from: rotated copies from HBM (a calibration),
    /// or one copy kept in L2, which shows which candidate leads when bandwidth is not the
    /// limit (analysis only: implies --detail, stores nothing, skips the switches).
    #[arg(long, value_enum, default_value_t = WeightsFrom::Hbm)]
    pub weights_from: WeightsFrom,
}

/// What each `--no-*` flag skips in this build, from the catalog's `calibration` groups
/// (shown after `--help`).
pub fn skip_flags_help() -> String {
    let mut out =
        String::from("What each --no-* flag skips in this build (catalog.toml `calibration`):\n");
    for (flag, group) in [
        ("--no-ternary", CalibrationFlag::Ternary),
        ("--no-groupwise", CalibrationFlag::Groupwise),
        ("--no-attention", CalibrationFlag::Attention),
        ("--no-linear-attention", CalibrationFlag::LinearAttention),
    ] {
        let families: Vec<&str> = crate::catalog::FAMILIES
            .iter()
            .filter(|f| f.calibration == group)
            .map(|f| f.name)
            .collect();
        let switches: Vec<&str> = crate::catalog::SWITCHES
            .iter()
            .filter(|s| s.calibration == group)
            .map(|s| s.name)
            .collect();
        let mut what = Vec::new();
        if !families.is_empty() {
            what.push(families.join(", "));
        }
        if !switches.is_empty() {
            what.push(format!("switches {}", switches.join(", ")));
        }
        if what.is_empty() {
            what.push("nothing (no family of this build)".into());
        }
        out.push_str(&format!("  {flag:<22} {}\n", what.join("; ")));
    }
    out
}

pub fn run(args: &CalibrateArgs) -> anyhow::Result<()> {
    let analysis_only = args.weights_from == WeightsFrom::L2;
    anyhow::ensure!(
        !(analysis_only && (args.out.is_some() || args.print)),
        "--weights-from l2 stores nothing (its times are not this GPU's routes): drop --out and --print"
    );
    let path = match &args.out {
        Some(p) => p.clone(),
        None => location::resolve(None).map_err(|e| anyhow::anyhow!(e))?.0,
    };
    crate::profile::overrides::validate()?;
    let mut skip = Vec::new();
    for (off, flag) in [
        (args.no_ternary, CalibrationFlag::Ternary),
        (args.no_groupwise, CalibrationFlag::Groupwise),
        (args.no_attention, CalibrationFlag::Attention),
        (args.no_linear_attention, CalibrationFlag::LinearAttention),
    ] {
        if off {
            skip.push(flag);
        }
    }
    let sel = measure::Selection {
        only: args.only.clone(),
        skip,
    };
    let keys = measure::selected_keys(&sel);
    let switch_steps: u64 = crate::catalog::SWITCHES
        .iter()
        .filter(|s| sel.wants_switch(s) && !analysis_only)
        .map(|s| crate::calibrate::switches::case_count(s.name) as u64)
        .sum();
    anyhow::ensure!(
        !keys.is_empty() || switch_steps > 0,
        "nothing to calibrate: no route key matches the selection"
    );
    let gpu = Gpu::open(args.device)?;
    // A file the result could not be stored in is refused before the measurement, so the
    // refusal costs none of it.
    if !analysis_only {
        store::preflight(&path).map_err(|e| anyhow::anyhow!("cannot store a calibration: {e}"))?;
    }
    let steps: u64 = keys.iter().map(|(f, _)| f.widths.len() as u64).sum::<u64>() + switch_steps;
    let bar = ProgressBar::new(steps).with_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    eprintln!(
        "{} {} route keys on {} (device {}, {} SMs)",
        if analysis_only {
            "timing, weights in L2 (nothing stored),"
        } else {
            "calibrating"
        },
        keys.len(),
        gpu.info.identity.name,
        args.device,
        gpu.info.identity.multiprocessors
    );
    let outcome = measure::run(&gpu, &sel, args.weights_from, &|m| {
        bar.set_message(m.to_string());
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    if args.detail || analysis_only {
        eprintln!(
            "{:<24} {:>4}  {:<16} {:>9}  note",
            "key", "T", "candidate", "µs"
        );
        for d in &outcome.detail {
            eprintln!(
                "{:<24} {:>4}  {:<16} {:>9.2}  {}",
                d.key, d.width, d.schedule, d.us, d.note
            );
        }
    }
    if analysis_only {
        if let Some(note) = crate::gpu::timing::partly_from_hbm_note(&outcome.partly_from_hbm) {
            eprintln!("weights {note}");
        }
        eprintln!(
            "{} keys timed with their weights in L2, {:.1} s; nothing stored",
            outcome.routes.len(),
            outcome.seconds
        );
        return Ok(());
    }
    let entry = calibrate::to_entry(&outcome, &gpu);
    let stored = store::upsert(&path, &entry)
        .map_err(|e| anyhow::anyhow!("storing in {}: {e}", path.display()))?;
    eprintln!(
        "{} keys measured, {} routed off the compiled route, {:.1} s; stored in {} ({:?})",
        outcome.routes.len(),
        outcome.keys_off_compiled,
        outcome.seconds,
        path.display(),
        stored.entry
    );
    if args.print {
        let file = match format::FileState::load(&path) {
            format::FileState::Read(f) => f,
            _ => anyhow::bail!("re-reading {} after storing failed", path.display()),
        };
        let mine = file
            .devices
            .iter()
            .find(|e| {
                e.hardware_class == entry.hardware_class
                    && e.multiprocessors == entry.multiprocessors
            })
            .cloned()
            .unwrap_or(entry);
        let mut only_mine = format::ProfileFile::default();
        only_mine.devices.push(mine);
        print!("{}", format::to_text(&only_mine));
    }
    Ok(())
}
