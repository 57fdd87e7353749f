//! Calibration on the GPU: every candidate of every selected route key timed through
//! the op's `forward` (the dispatch inference uses) on synthetic weights of the key's
//! shape, weights rotated past L2 and L2 flushed before every sample, median of eleven;
//! then the rules of `decide`. With `WeightsFrom::L2` (analysis only, never stored) the
//! weights stay in L2 instead: which candidate leads when bandwidth is not the limit.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Context as _;

use super::decide::{self, WidthTimes};
use crate::catalog::{self, Family, Variant, VARIANTS};
use crate::gpu::timing::{median, Timer, WeightsFrom};
use crate::gpu::Gpu;
use crate::ops::routed::{self, RoutedOp};

pub const SAMPLES: usize = 11;

/// Which families to measure.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub only: Option<String>,
    pub skip: Vec<catalog::CalibrationFlag>,
}

impl Selection {
    pub fn wants_switch(&self, switch: &catalog::Switch) -> bool {
        !self.skip.contains(&switch.calibration)
            && self
                .only
                .as_ref()
                .is_none_or(|p| switch.name.starts_with(p.as_str()))
    }

    pub fn wants_key(&self, family: &Family, key: &str) -> bool {
        !self.skip.contains(&family.calibration)
            && self
                .only
                .as_ref()
                .is_none_or(|p| key.starts_with(p.as_str()))
    }
}

/// One candidate's first-pass median at one width, for `--detail`.
#[derive(Clone, Debug)]
pub struct DetailLine {
    pub key: String,
    pub width: u32,
    pub schedule: String,
    pub us: f64,
    pub note: String,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Measured keys → bands (`""` = the compiled route was best).
    pub routes: BTreeMap<String, Vec<(u32, String)>>,
    pub keys_off_compiled: usize,
    pub seconds: f64,
    pub detail: Vec<DetailLine>,
    /// `WeightsFrom::L2`: keys whose weights are too many for L2 times
    /// (`gpu::timing::partly_from_hbm`), as `ninfer bench --weights-from l2` flags them.
    pub partly_from_hbm: Vec<String>,
}

/// The route keys a selection measures, in the catalog's (sorted) order.
pub fn selected_keys(sel: &Selection) -> Vec<(&'static Family, String)> {
    let mut keys: Vec<(&'static Family, String)> = catalog::FAMILIES
        .iter()
        .flat_map(|f| f.keys.iter().map(move |k| (f, format!("{}/{}", f.name, k))))
        .filter(|(f, key)| sel.wants_key(f, key))
        .collect();
    keys.sort_by(|a, b| a.1.cmp(&b.1));
    keys
}

pub fn run(
    gpu: &Gpu,
    sel: &Selection,
    weights_from: WeightsFrom,
    tick: &dyn Fn(&str),
) -> anyhow::Result<Outcome> {
    anyhow::ensure!(
        !crate::profile::overrides::get().is_ok_and(|o| o.baseline_ptx),
        "NINFER_PTX=baseline: a calibration would time the compute_80 PTX and store its routes for \
         the PTX this GPU loads by default; unset NINFER_PTX to calibrate"
    );
    let started = Instant::now();
    let mut timer = Timer::with_weights_from(gpu, weights_from)?;
    let mut out = Outcome::default();
    for (family, key) in selected_keys(sel) {
        let Some(op) = routed::for_family(family.name) else {
            tracing::warn!("{key}: no GPU implementation in this build yet; not calibrated");
            continue;
        };
        let shape = key.split_once('/').context("route key")?.1;
        if weights_from == WeightsFrom::L2
            && crate::gpu::timing::partly_from_hbm(op.weight_bytes(shape)?, gpu.info.l2_bytes)
        {
            out.partly_from_hbm.push(key.clone());
        }
        let bands = calibrate_key(gpu, &mut timer, op, &key, &mut out.detail, tick)?;
        if bands.iter().any(|(_, s)| !s.is_empty()) {
            out.keys_off_compiled += 1;
        }
        out.routes.insert(key, bands);
    }
    for switch in catalog::SWITCHES {
        // The switches time attention over caches far larger than any L2.
        if !sel.wants_switch(switch) || weights_from == WeightsFrom::L2 {
            continue;
        }
        if let Some(bands) =
            super::switches::calibrate(gpu, &mut timer, switch, &mut out.detail, tick)?
        {
            if bands.iter().any(|(_, s)| !s.is_empty()) {
                out.keys_off_compiled += 1;
            }
            out.routes.insert(switch.name.to_string(), bands);
        }
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// The schedules that serve `width` in one launch, and the compiled route's always (it is
/// what a candidate must beat; where it serves fewer columns, the op splits its launch).
fn candidates_for(op: &dyn RoutedOp, width: u32) -> Vec<&'static Variant> {
    let compiled = op.family().compiled_variant(width);
    op.family()
        .candidates
        .iter()
        .map(|&i| &VARIANTS[i])
        .filter(|v| {
            std::ptr::eq(*v, compiled) || (v.launch.max_width >= width && op.may_calibrate(v))
        })
        .collect()
}

fn calibrate_key(
    gpu: &Gpu,
    timer: &mut Timer,
    op: &'static dyn RoutedOp,
    key: &str,
    detail: &mut Vec<DetailLine>,
    tick: &dyn Fn(&str),
) -> anyhow::Result<Vec<(u32, String)>> {
    let family = op.family();
    let shape = key.split_once('/').context("route key")?.1;
    let t_min = *family.widths.iter().min().context("calibration widths")? as usize;
    let t_max = *family.widths.iter().max().context("calibration widths")? as usize;
    let l2 = gpu.info.l2_bytes;
    let most_copies = timer.copies(op.copies_at(l2, shape, t_min)?);
    let mut inst = op.prepare(gpu, shape, routed::fresh_seed(), most_copies, t_max)?;

    let mut winners: Vec<(u32, String)> = Vec::new();
    let mut previous: Option<String> = None;
    for &width in family.widths {
        tick(&format!("{key} T={width}"));
        let t = width as usize;
        let copies = timer.copies(op.copies_at(l2, shape, t)?).min(most_copies);
        let launches = (2 * copies).max(20);
        let compiled = family.compiled_variant(width);
        let candidates = candidates_for(op, width);
        let mut graphs = Vec::new();
        for v in &candidates {
            let choose = |_: u32| *v;
            inst.forward(gpu, 0, t, &choose)?; // loads the module outside the graph
            graphs.push(Timer::capture(gpu, || {
                (0..launches).try_for_each(|i| inst.forward(gpu, i % copies, t, &choose))
            })?);
        }
        // First pass: samples interleaved across candidates, so drift hits all alike.
        let mut samples = vec![Vec::with_capacity(SAMPLES); candidates.len()];
        for _ in 0..SAMPLES {
            for (i, g) in graphs.iter().enumerate() {
                samples[i].push(timer.sample_graph(gpu, g)? / launches as f64);
            }
        }
        let m = WidthTimes {
            width,
            compiled: compiled.schedule.to_string(),
            times: candidates
                .iter()
                .zip(&samples)
                .map(|(v, s)| (v.schedule.to_string(), median(s)))
                .collect(),
        };
        let contender = decide::contender(&m, previous.as_deref()).to_string();
        let first_win = decide::first_pass_wins(&m, &contender);
        let mut note = String::new();
        let mut winner = String::new();
        if first_win {
            let ci = candidates
                .iter()
                .position(|v| v.schedule == contender)
                .unwrap();
            let bi = candidates
                .iter()
                .position(|v| v.schedule == compiled.schedule)
                .unwrap();
            // Second, interleaved measurement of the two.
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..SAMPLES {
                a.push(timer.sample_graph(gpu, &graphs[ci])? / launches as f64);
                b.push(timer.sample_graph(gpu, &graphs[bi])? / launches as f64);
            }
            // Outputs on the same input.
            inst.reset_output(gpu)?;
            inst.forward(gpu, 0, t, &|_| compiled)?;
            let base = inst.output(gpu, t)?;
            inst.reset_output(gpu)?;
            inst.forward(gpu, 0, t, &|_| candidates[ci])?;
            let diff = routed::relative_difference(&inst.output(gpu, t)?, &base);
            let (ca, cb) = (median(&a), median(&b));
            if decide::verdict(true, ca, cb, diff) {
                winner = contender.clone();
            }
            // In L2 nothing is stored: the verdict is what a calibration would decide.
            let verdict = match (winner.is_empty(), timer.weights_from()) {
                (true, WeightsFrom::Hbm) => "keep compiled",
                (false, WeightsFrom::Hbm) => "switch",
                (true, WeightsFrom::L2) => "would keep compiled",
                (false, WeightsFrom::L2) => "would switch",
            };
            note = format!(
                "confirm {contender} {ca:.2} vs compiled {cb:.2} µs, output diff {diff:.1e} → {verdict}"
            );
        }
        for (s, us) in &m.times {
            detail.push(DetailLine {
                key: key.to_string(),
                width,
                schedule: s.clone(),
                us: *us,
                note: if *s == contender {
                    note.clone()
                } else {
                    String::new()
                },
            });
        }
        previous = Some(if winner.is_empty() {
            compiled.schedule.to_string()
        } else {
            winner.clone()
        });
        winners.push((width, winner));
    }
    let mut bands = decide::merge_bands(&winners);
    // The calibrated bands end where the compiled route does (attention: measured up to
    // 262K keys, routed up to 1,048,576).
    if let (Some(last), Some(&(compiled_last, _))) = (bands.last_mut(), family.compiled.last()) {
        last.0 = last.0.max(compiled_last);
    }
    Ok(bands)
}
