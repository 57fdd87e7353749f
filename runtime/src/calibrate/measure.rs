//! Calibration of the ternary small-T family on the GPU: every candidate timed through
//! `forward` (the dispatch inference uses) on synthetic weights of each registered
//! shape, weights rotated and L2 flushed before every sample, median of eleven; then
//! the rules of `decide`.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Context as _;
use half::bf16;

use super::decide::{self, WidthTimes};
use crate::bench::weight_copies;
use crate::catalog::{self, Family, Variant, VARIANTS};
use crate::check::compiled_variant;
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::t2_i8_small::{launch as t2, synthetic};

pub const SAMPLES: usize = 11;

/// Which families to measure.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub only: Option<String>,
    pub skip: Vec<catalog::CalibrationFlag>,
}

impl Selection {
    pub fn wants_key(&self, family: &Family, key: &str) -> bool {
        !self.skip.contains(&family.calibration)
            && self.only.as_ref().is_none_or(|p| key.starts_with(p.as_str()))
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

pub fn run(gpu: &Gpu, sel: &Selection, tick: &dyn Fn(&str)) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let mut timer = Timer::new(gpu)?;
    let mut out = Outcome::default();
    for (family, key) in selected_keys(sel) {
        // Only the ternary family is implemented on the GPU so far.
        if family.name != "t2_i8_small" {
            continue;
        }
        let bands = calibrate_t2_key(gpu, &mut timer, family, &key, &mut out.detail, tick)?;
        if bands.iter().any(|(_, s)| !s.is_empty()) {
            out.keys_off_compiled += 1;
        }
        out.routes.insert(key, bands);
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

fn candidates_for(family: &Family, width: u32) -> Vec<&'static Variant> {
    family
        .candidates
        .iter()
        .map(|&i| &VARIANTS[i])
        .filter(|v| v.launch.max_width >= width)
        .collect()
}

fn calibrate_t2_key(
    gpu: &Gpu,
    timer: &mut Timer,
    family: &'static Family,
    key: &str,
    detail: &mut Vec<DetailLine>,
    tick: &dyn Fn(&str),
) -> anyhow::Result<Vec<(u32, String)>> {
    let shape = t2::Shape::parse(key.split_once('/').context("route key")?.1)?;
    let seed = synthetic::fresh_seed();
    let packed = synthetic::random_weights(shape, seed).pack();
    let copies = weight_copies(gpu.info.l2_bytes, shape.weight_bytes());
    let weights = (0..copies)
        .map(|_| t2::upload(gpu, &packed, shape))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let t_max = *family.widths.iter().max().context("calibration widths")? as usize;
    let x = gpu.stream.clone_htod(&synthetic::random_activations(t_max, shape.k, seed ^ 1))?;
    let mut act = t2::Activations::new(gpu, t_max, shape.k)?;
    let mut y = gpu.stream.alloc_zeros::<bf16>(t_max * shape.n)?;
    let launches = (2 * copies).max(20);

    let mut winners: Vec<(u32, String)> = Vec::new();
    let mut previous: Option<String> = None;
    for &width in family.widths {
        tick(&format!("{key} T={width}"));
        let t = width as usize;
        let compiled = compiled_variant(family, width);
        let candidates = candidates_for(family, width);
        let mut graphs = Vec::new();
        for v in &candidates {
            let choose = |_: u32| *v;
            t2::forward(gpu, &weights[0], &x, t, &mut act, &mut y, &choose)?; // loads the module
            graphs.push(Timer::capture(gpu, || {
                for i in 0..launches {
                    t2::forward(gpu, &weights[i % copies], &x, t, &mut act, &mut y, &choose)?;
                }
                Ok(())
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
            let ci = candidates.iter().position(|v| v.schedule == contender).unwrap();
            let bi = candidates.iter().position(|v| v.schedule == compiled.schedule).unwrap();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..SAMPLES {
                a.push(timer.sample_graph(gpu, &graphs[ci])? / launches as f64);
                b.push(timer.sample_graph(gpu, &graphs[bi])? / launches as f64);
            }
            let diff = output_difference(gpu, &weights[0], &x, t, &mut act, &mut y, compiled, candidates[ci])?;
            let (ca, cb) = (median(&a), median(&b));
            if decide::verdict(true, ca, cb, diff) {
                winner = contender.clone();
            }
            note = format!(
                "confirm {contender} {ca:.2} vs compiled {cb:.2} µs, output diff {diff:.1e} → {}",
                if winner.is_empty() { "keep compiled" } else { "switch" }
            );
        }
        for (s, us) in &m.times {
            detail.push(DetailLine {
                key: key.to_string(),
                width,
                schedule: s.clone(),
                us: *us,
                note: if *s == contender { note.clone() } else { String::new() },
            });
        }
        previous = Some(if winner.is_empty() { compiled.schedule.to_string() } else { winner.clone() });
        winners.push((width, winner));
    }
    Ok(decide::merge_bands(&winners))
}

/// ‖y_candidate − y_compiled‖ / ‖y_compiled‖ on the same input.
#[allow(clippy::too_many_arguments)]
fn output_difference(
    gpu: &Gpu,
    w: &t2::DeviceWeights,
    x: &cudarc::driver::CudaSlice<bf16>,
    t: usize,
    act: &mut t2::Activations,
    y: &mut cudarc::driver::CudaSlice<bf16>,
    compiled: &'static Variant,
    candidate: &'static Variant,
) -> anyhow::Result<f64> {
    let n = w.shape.n;
    t2::forward(gpu, w, x, t, act, y, &|_| compiled)?;
    let base = gpu.stream.clone_dtoh(&y.slice(..t * n))?;
    t2::forward(gpu, w, x, t, act, y, &|_| candidate)?;
    let other = gpu.stream.clone_dtoh(&y.slice(..t * n))?;
    let (mut d2, mut b2) = (0.0f64, 0.0f64);
    for (a, b) in other.iter().zip(&base) {
        let (a, b) = (a.to_f64(), b.to_f64());
        d2 += (a - b) * (a - b);
        b2 += b * b;
    }
    Ok(if b2 > 0.0 { (d2 / b2).sqrt() } else if d2 > 0.0 { f64::INFINITY } else { 0.0 })
}
