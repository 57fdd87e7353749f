//! `ninfer bench`: each implemented op at its calibration widths, weights from HBM.
//!
//! Method: R copies of the weights, R chosen so they span at least three L2 sizes, are
//! replayed round-robin inside one CUDA graph (so every launch reads its weights from
//! HBM and launch gaps are hidden); L2 is flushed before every sample; the reported
//! time is the median over samples of graph time / launches. The device's read
//! bandwidth is measured in the same run with `stream_read`.
//!
//! `--weights-from l2` times one copy without flushing instead: the op's time when the
//! memory stream is not its limit, which bounds what a card with more bandwidth (an
//! H200 against an H100) can gain on that op.

use anyhow::Context as _;
use cudarc::driver::{LaunchConfig, PushKernelArg};
use serde::Serialize;

use crate::catalog::{self, Variant};
use crate::gpu::timing::{median, Timer, WeightsFrom};
use crate::gpu::Gpu;
use crate::ops::routed;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub only: Option<String>,
    pub widths: Option<Vec<u32>>,
    pub samples: usize,
    pub weights_from: WeightsFrom,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub key: String,
    pub width: u32,
    pub schedule: String,
    /// The whole op (activation quantization + projection launches), µs.
    pub us: f64,
    /// The routed kernel launches alone (without helper kernels such as activation
    /// quantization), µs.
    pub projection_us: f64,
    /// Bytes the op must move at least (weights, activations, output).
    pub bytes: usize,
    pub gbs: f64,
    /// Of the HBM read bandwidth (`--weights-from l2`: of the L2's).
    pub fraction_of_read_bandwidth: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub device: String,
    pub multiprocessors: u32,
    pub cuda_driver: i32,
    /// The NVRTC that compiled the PTX (the runtime side of this build).
    pub cuda_runtime: i32,
    pub read_bandwidth_gbs: f64,
    /// `--weights-from l2`: `stream_read` over a quarter of the L2, left warm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l2_read_bandwidth_gbs: Option<f64>,
    pub samples: usize,
    pub weights_from: WeightsFrom,
    /// `--weights-from l2`: the keys and widths whose bytes are too many for L2 times
    /// (`gpu::timing::partly_from_hbm`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partly_from_hbm: Vec<String>,
    pub results: Vec<BenchRow>,
    /// Prompt attention (issue 7): every route of every format on the cases.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prompt: Vec<crate::ops::attn_prompt::bench::PromptBenchRow>,
    /// Requests of verify columns as the engine serves them (`attn_parallel_tiles`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verify: Vec<crate::ops::attn_i8_small::bench::VerifyBenchRow>,
}

/// Whether `--only` selects the prompt attention (`ninfer bench` and `ninfer check`).
pub fn selects_prompt(only: Option<&str>) -> bool {
    only.is_none_or(|p| p.starts_with("attn_prompt") || "attn_prompt".starts_with(p))
}

/// Read bandwidth of this device in GB/s: one pass over 2 GiB with 16-byte loads.
pub fn read_bandwidth(gpu: &Gpu, timer: &mut Timer, samples: usize) -> anyhow::Result<f64> {
    stream_read_bandwidth(gpu, timer, samples, WeightsFrom::Hbm)
}

/// `stream_read`'s bandwidth in GB/s: from HBM, one flushed pass over 2 GiB; from L2 (what
/// `--weights-from l2` compares with; `timer` must keep L2 warm), a graph of 10 launches of
/// 16 passes each over a quarter of the L2.
fn stream_read_bandwidth(
    gpu: &Gpu,
    timer: &mut Timer,
    samples: usize,
    from: WeightsFrom,
) -> anyhow::Result<f64> {
    let variant = catalog::module("stream_read").context("catalog module stream_read")?;
    let f = gpu.function(variant)?;
    let (bytes, passes, launches): (usize, i32, usize) = match from {
        WeightsFrom::Hbm => (2 << 30, 1, 1),
        WeightsFrom::L2 => ((gpu.info.l2_bytes / 4) & !0xfff, 16, 10),
    };
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
    let mut launch = || -> anyhow::Result<()> {
        let mut b = gpu.stream.launch_builder(f);
        b.arg(&src).arg(&n16).arg(&mut sink).arg(&passes);
        unsafe { b.launch(cfg) }?;
        Ok(())
    };
    let mut times = Vec::new();
    match from {
        WeightsFrom::Hbm => {
            for i in 0..samples + 1 {
                let us = timer.sample(gpu, &mut launch)?;
                if i > 0 {
                    times.push(us); // the first run is a warm-up
                }
            }
        }
        WeightsFrom::L2 => {
            anyhow::ensure!(
                timer.weights_from() == WeightsFrom::L2,
                "an L2 bandwidth needs a timer that keeps L2 warm"
            );
            launch()?; // brings the buffer into L2
            let graph = Timer::capture(gpu, || (0..launches).try_for_each(|_| launch()))?;
            for _ in 0..samples {
                times.push(timer.sample_graph(gpu, &graph)?);
            }
        }
    }
    Ok((bytes * passes as usize * launches) as f64 / median(&times) / 1e3)
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
    let mut timer = Timer::with_weights_from(gpu, opts.weights_from)?;
    let read_gbs = read_bandwidth(gpu, &mut timer, opts.samples.max(3))?;
    let l2_read_gbs = match opts.weights_from {
        WeightsFrom::Hbm => None,
        WeightsFrom::L2 => Some(stream_read_bandwidth(
            gpu,
            &mut timer,
            opts.samples.max(3),
            WeightsFrom::L2,
        )?),
    };
    let in_l2 = opts.weights_from == WeightsFrom::L2;
    let mut results = Vec::new();
    let mut partly_from_hbm = Vec::new();
    for routed::KeyOf { op, shape, key } in routed::implemented_keys(opts.only.as_deref()) {
        let family = op.family();
        let widths: Vec<u32> = opts
            .widths
            .clone()
            .unwrap_or_else(|| family.widths.to_vec());
        let t_max = *widths.iter().max().unwrap_or(&1) as usize;
        let t_min = *widths.iter().min().unwrap_or(&1) as usize;
        let l2 = gpu.info.l2_bytes;
        let most_copies = timer.copies(op.copies_at(l2, shape, t_min)?);
        let mut inst = op.prepare(gpu, shape, routed::fresh_seed(), most_copies, t_max)?;
        for &width in &widths {
            progress(&format!("{key} T={width}"));
            let t = width as usize;
            let copies = timer.copies(op.copies_at(l2, shape, t)?).min(most_copies);
            // Launches per graph: every copy at least twice, and enough to dwarf event overhead.
            let launches = (2 * copies).max(40);
            let choose = |w: u32| route(&key, w);
            let schedule = op.launch_schedules(t, &choose).join("+");
            // Warm-up (module loads) outside the graphs.
            inst.forward(gpu, 0, t, &choose)?;
            gpu.sync()?;
            let op_graph = Timer::capture(gpu, || {
                (0..launches).try_for_each(|i| inst.forward(gpu, i % copies, t, &choose))
            })?;
            let routed_graph = Timer::capture(gpu, || {
                (0..launches).try_for_each(|i| inst.routed_only(gpu, i % copies, t, &choose))
            })?;
            let mut whole = Vec::new();
            let mut kernels = Vec::new();
            for _ in 0..opts.samples {
                whole.push(timer.sample_graph(gpu, &op_graph)? / launches as f64);
                kernels.push(timer.sample_graph(gpu, &routed_graph)? / launches as f64);
            }
            let us = median(&whole);
            let bytes = inst.bytes(t);
            if in_l2 && crate::gpu::timing::partly_from_hbm(bytes, l2) {
                partly_from_hbm.push(format!("{key} T={width}"));
            }
            let gbs = bytes as f64 / us / 1e3;
            results.push(BenchRow {
                key: key.clone(),
                width,
                schedule,
                us,
                projection_us: median(&kernels),
                bytes,
                gbs,
                fraction_of_read_bandwidth: gbs / l2_read_gbs.unwrap_or(read_gbs),
            });
        }
    }
    // The verify and prompt benches stream caches far larger than any L2.
    let verify = if !in_l2 && crate::ops::attn_i8_small::bench::selected(opts.only.as_deref()) {
        crate::ops::attn_i8_small::bench::run(gpu, &mut timer, opts.samples, progress)?
    } else {
        Vec::new()
    };
    let prompt = if !in_l2 && selects_prompt(opts.only.as_deref()) {
        crate::ops::attn_prompt::bench::run(gpu, &mut timer, opts.samples, progress)?
    } else {
        Vec::new()
    };
    Ok(BenchReport {
        device: gpu.info.identity.name.clone(),
        multiprocessors: gpu.info.identity.multiprocessors,
        cuda_driver: gpu.info.cuda_driver,
        cuda_runtime: gpu.info.cuda_runtime,
        read_bandwidth_gbs: read_gbs,
        l2_read_bandwidth_gbs: l2_read_gbs,
        samples: opts.samples,
        weights_from: opts.weights_from,
        partly_from_hbm,
        results,
        prompt,
        verify,
    })
}

pub fn print_table(report: &BenchReport) {
    println!(
        "device: {} ({} SMs, CUDA driver {}, runtime (NVRTC) {}), read bandwidth measured in this run: {:.0} GB/s, median of {} samples",
        report.device,
        report.multiprocessors,
        crate::gpu::ptx_isa::format_cuda_version(report.cuda_driver),
        crate::gpu::ptx_isa::format_cuda_version(report.cuda_runtime),
        report.read_bandwidth_gbs,
        report.samples
    );
    if report.weights_from == WeightsFrom::L2 {
        println!(
            "weights served from L2 (--weights-from l2): times without the HBM stream's limit; \"of BW\" is of the L2's read bandwidth measured in this run, {:.0} GB/s",
            report.l2_read_bandwidth_gbs.unwrap_or(f64::NAN)
        );
        if let Some(note) = crate::gpu::timing::partly_from_hbm_note(&report.partly_from_hbm) {
            println!("bytes {note}");
        }
    }
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
    if !report.verify.is_empty() {
        crate::ops::attn_i8_small::bench::print_table(&report.verify);
    }
    if !report.prompt.is_empty() {
        crate::ops::attn_prompt::bench::print_table(&report.prompt);
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
