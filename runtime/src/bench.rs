//! `ninfer bench`: each implemented op at its calibration widths, weights from HBM.
//!
//! Method: R copies of the weights, R chosen so they span at least three L2 sizes, are
//! replayed round-robin inside one CUDA graph (so every launch reads its weights from
//! HBM and launch gaps are hidden); L2 is flushed before every sample; the reported
//! time is the median over samples of graph time / launches. The device's read
//! bandwidth is measured in the same run with `stream_read`.

use anyhow::Context as _;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use serde::Serialize;

use crate::catalog::{self, Variant};
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::t2_i8_small::{launch as t2, synthetic};

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub only: Option<String>,
    pub widths: Option<Vec<u32>>,
    pub samples: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub key: String,
    pub width: u32,
    pub schedule: String,
    /// The whole op (activation quantization + projection launches), µs.
    pub us: f64,
    /// The projection launches alone, µs.
    pub projection_us: f64,
    /// Bytes the op must move at least (weights, activations, output).
    pub bytes: usize,
    pub gbs: f64,
    pub fraction_of_read_bandwidth: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub device: String,
    pub multiprocessors: u32,
    pub cuda_driver: i32,
    pub read_bandwidth_gbs: f64,
    pub samples: usize,
    pub results: Vec<BenchRow>,
}

/// Read bandwidth of this device in GB/s: one pass over 2 GiB with 16-byte loads.
pub fn read_bandwidth(gpu: &Gpu, timer: &mut Timer, samples: usize) -> anyhow::Result<f64> {
    let variant = catalog::module("stream_read").context("catalog module stream_read")?;
    let f = gpu.function(variant)?;
    let bytes: usize = 2 << 30;
    let mut src = gpu.stream.alloc_zeros::<u8>(bytes)?;
    gpu.stream.memset_zeros(&mut src)?;
    let blocks = gpu.info.identity.multiprocessors as usize * 8;
    let mut sink = gpu.stream.alloc_zeros::<u32>(blocks)?;
    let n16 = (bytes / 16) as u64;
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (variant.launch.threads, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut times = Vec::new();
    for i in 0..samples + 1 {
        let us = timer.sample(gpu, || {
            let mut b = gpu.stream.launch_builder(f);
            b.arg(&src).arg(&n16).arg(&mut sink);
            unsafe { b.launch(cfg) }?;
            Ok(())
        })?;
        if i > 0 {
            times.push(us); // the first run is a warm-up
        }
    }
    Ok(bytes as f64 / median(&times) / 1e3)
}

/// How many weight copies keep the L2 from serving repeats: at least 3 L2 sizes.
pub fn weight_copies(l2_bytes: usize, weight_bytes: usize) -> usize {
    (3 * l2_bytes).div_ceil(weight_bytes).clamp(2, 64)
}

pub fn run(
    gpu: &Gpu,
    route: &dyn Fn(&str, u32) -> &'static Variant,
    opts: &BenchOptions,
    progress: &dyn Fn(&str),
) -> anyhow::Result<BenchReport> {
    let mut timer = Timer::new(gpu)?;
    let read_gbs = read_bandwidth(gpu, &mut timer, opts.samples.max(3))?;
    let mut results = Vec::new();
    let family = catalog::family("t2_i8_small").context("family t2_i8_small")?;
    for shape_name in family.keys {
        let key = format!("{}/{}", family.name, shape_name);
        if opts.only.as_ref().is_some_and(|p| !key.starts_with(p.as_str())) {
            continue;
        }
        let shape = t2::Shape::parse(shape_name)?;
        let seed = synthetic::fresh_seed();
        let packed = synthetic::random_weights(shape, seed).pack();
        let copies = weight_copies(gpu.info.l2_bytes, shape.weight_bytes());
        let weights = (0..copies)
            .map(|_| t2::upload(gpu, &packed, shape))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let widths: Vec<u32> = opts.widths.clone().unwrap_or_else(|| family.widths.to_vec());
        let t_max = *widths.iter().max().unwrap_or(&1) as usize;
        let x = gpu
            .stream
            .clone_htod(&synthetic::random_activations(t_max, shape.k, seed ^ 1))?;
        let mut act = t2::Activations::new(gpu, t_max, shape.k)?;
        let mut y = gpu.stream.alloc_zeros::<half::bf16>(t_max * shape.n)?;
        // Launches per graph: every copy at least twice, and enough to dwarf event overhead.
        let launches = (2 * copies).max(40);
        for &width in &widths {
            progress(&format!("{key} T={width}"));
            let t = width as usize;
            let choose = |w: u32| route(&key, w);
            let schedule = describe_schedules(t, &choose);
            // Warm-up (module loads) outside the graph.
            t2::forward(gpu, &weights[0], &x, t, &mut act, &mut y, &choose)?;
            gpu.sync()?;
            let op_graph = Timer::capture(gpu, || {
                for i in 0..launches {
                    t2::forward(gpu, &weights[i % copies], &x, t, &mut act, &mut y, &choose)?;
                }
                Ok(())
            })?;
            let proj_graph = Timer::capture(gpu, || {
                for i in 0..launches {
                    let mut first = 0;
                    while first < t {
                        let w = (t - first).min(t2::MAX_LAUNCH_WIDTH);
                        t2::project(gpu, choose(w as u32), &weights[i % copies], &act, first, w, &mut y)?;
                        first += w;
                    }
                }
                Ok(())
            })?;
            let mut op = Vec::new();
            let mut proj = Vec::new();
            for _ in 0..opts.samples {
                op.push(timer.sample_graph(gpu, &op_graph)? / launches as f64);
                proj.push(timer.sample_graph(gpu, &proj_graph)? / launches as f64);
            }
            let us = median(&op);
            let bytes = shape.weight_bytes() + t * shape.k * 2 + t * shape.n * 2;
            let gbs = bytes as f64 / us / 1e3;
            results.push(BenchRow {
                key: key.clone(),
                width,
                schedule,
                us,
                projection_us: median(&proj),
                bytes,
                gbs,
                fraction_of_read_bandwidth: gbs / read_gbs,
            });
        }
    }
    Ok(BenchReport {
        device: gpu.info.identity.name.clone(),
        multiprocessors: gpu.info.identity.multiprocessors,
        cuda_driver: gpu.info.cuda_driver,
        read_bandwidth_gbs: read_gbs,
        samples: opts.samples,
        results,
    })
}

/// The schedules a width of `t` runs, e.g. `r16c32k8s2w1+r16c8k8s2w1` for T=40.
fn describe_schedules(t: usize, choose: &dyn Fn(u32) -> &'static Variant) -> String {
    let mut parts = Vec::new();
    let mut first = 0;
    while first < t {
        let w = (t - first).min(t2::MAX_LAUNCH_WIDTH);
        parts.push(choose(w as u32).schedule);
        first += w;
    }
    parts.join("+")
}

pub fn print_table(report: &BenchReport) {
    println!(
        "device: {} ({} SMs), read bandwidth measured in this run: {:.0} GB/s, median of {} samples",
        report.device, report.multiprocessors, report.read_bandwidth_gbs, report.samples
    );
    println!(
        "{:<24} {:>5}  {:<28} {:>9} {:>9} {:>8} {:>6}",
        "key", "T", "schedule", "op µs", "proj µs", "GB/s", "of BW"
    );
    for r in &report.results {
        println!(
            "{:<24} {:>5}  {:<28} {:>9.2} {:>9.2} {:>8.0} {:>5.0}%",
            r.key,
            r.width,
            r.schedule,
            r.us,
            r.projection_us,
            r.gbs,
            100.0 * r.fraction_of_read_bandwidth
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn enough_copies_to_defeat_l2() {
        let l2 = 60 << 20;
        assert_eq!(super::weight_copies(l2, 24 << 20), 8);
        assert_eq!(super::weight_copies(l2, 1 << 30), 2);
        assert_eq!(super::weight_copies(l2, 1 << 10), 64);
    }
}
