//! `ninfer bench` rows of the prompt attention: issue 7's cases, every route of every
//! format, effective TFLOP/s as SDPA benchmarks count causal attention
//! ([`causal_flops`]). Method as the rest of `ninfer bench`: a CUDA graph of a few
//! launches (each is milliseconds of compute), L2 flushed before every sample, median.
//! The cache is random codes with in-range scales (`attn_i8_small::op::random_pool`), the
//! queries random BF16.

use serde::Serialize;

use super::launch::{attend_prompt, causal_flops, PromptWorkspace};
use super::route::PromptRoute;
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::attn_i8_small::launch::CacheView;
use crate::ops::attn_i8_small::op::{random_pool, random_queries};
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::{HEAD_DIM, PAGE_TOKENS, Q_HEADS};

/// A timed case: `chunk` query tokens whose last key is token `len - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptCase {
    pub name: &'static str,
    pub chunk: usize,
    pub len: usize,
}

/// Issue 7's cases: a 1024-token chunk ending at 32K and at 131K context, and a
/// 16K-token prompt from an empty cache.
pub const CASES: [PromptCase; 3] = [
    PromptCase {
        name: "c1024@32K",
        chunk: 1024,
        len: 32768,
    },
    PromptCase {
        name: "c1024@131K",
        chunk: 1024,
        len: 131072,
    },
    PromptCase {
        name: "c16384@0",
        chunk: 16384,
        len: 16384,
    },
];

#[derive(Clone, Debug, Serialize)]
pub struct PromptBenchRow {
    pub case: String,
    pub format: String,
    pub kernel: String,
    pub pack_gqa: bool,
    pub pv_f16: bool,
    /// The route this device's profile (with the environment) selects.
    pub installed: bool,
    pub chunk: usize,
    pub len: usize,
    pub us: f64,
    pub tflops: f64,
}

/// The prepared inputs of one format: a pool of the longest case, queries of the widest.
pub struct PromptInputs {
    format: KvFormat,
    pool: cudarc::driver::CudaSlice<u8>,
    page_table: cudarc::driver::CudaSlice<i32>,
    q: cudarc::driver::CudaSlice<half::bf16>,
    out: cudarc::driver::CudaSlice<half::bf16>,
    ws: PromptWorkspace,
}

impl PromptInputs {
    pub fn new(
        gpu: &Gpu,
        format: KvFormat,
        cases: &[PromptCase],
        seed: u64,
    ) -> anyhow::Result<Self> {
        let len = cases.iter().map(|c| c.len).max().unwrap_or(1);
        let chunk = cases.iter().map(|c| c.chunk).max().unwrap_or(1);
        let pages = len.div_ceil(PAGE_TOKENS);
        let table: Vec<i32> = (0..pages as i32).collect();
        Ok(PromptInputs {
            format,
            pool: gpu.stream.clone_htod(&random_pool(format, pages, seed))?,
            page_table: gpu.stream.clone_htod(&table)?,
            q: gpu.stream.clone_htod(&random_queries(chunk, seed ^ 0x77))?,
            out: gpu.stream.alloc_zeros(chunk * Q_HEADS * HEAD_DIM)?,
            // split-KV room for the cases that are chunks after a cache (the longest
            // prompts from an empty cache do not split)
            ws: PromptWorkspace::new(
                gpu,
                cases
                    .iter()
                    .filter(|c| c.len > c.chunk)
                    .map(|c| c.chunk)
                    .max()
                    .unwrap_or(0),
            )?,
        })
    }

    /// One launch of `route` on `case`.
    pub fn run(&mut self, gpu: &Gpu, route: &PromptRoute, case: &PromptCase) -> anyhow::Result<()> {
        let view = CacheView {
            format: self.format,
            pool: &self.pool,
            page_table: self.page_table.slice(..),
            len: case.len,
        };
        attend_prompt(
            gpu,
            route,
            &view,
            &self.q.slice(..),
            case.chunk,
            &mut self.ws,
            &mut self.out.slice_mut(..),
        )
    }

    /// The case's output (the first `chunk` columns).
    pub fn output(&self, gpu: &Gpu, case: &PromptCase) -> anyhow::Result<Vec<f64>> {
        let y = gpu
            .stream
            .clone_dtoh(&self.out.slice(..case.chunk * Q_HEADS * HEAD_DIM))?;
        Ok(y.iter().map(|v| v.to_f64()).collect())
    }

    /// A graph of `launches` launches of `route` on `case` (warmed up first).
    pub fn graph(
        &mut self,
        gpu: &Gpu,
        route: &PromptRoute,
        case: &PromptCase,
        launches: usize,
    ) -> anyhow::Result<cudarc::driver::CudaGraph> {
        self.run(gpu, route, case)?;
        gpu.sync()?;
        Timer::capture(gpu, || {
            (0..launches).try_for_each(|_| self.run(gpu, route, case))
        })
    }
}

/// Launches per timing graph.
pub const LAUNCHES: usize = 3;

/// Every route of every format on every case.
pub fn run(
    gpu: &Gpu,
    timer: &mut Timer,
    samples: usize,
    progress: &dyn Fn(&str),
) -> anyhow::Result<Vec<PromptBenchRow>> {
    let installed = PromptRoute::installed(gpu.info.ordinal);
    let mut rows = Vec::new();
    for format in KvFormat::ALL {
        let mut inputs = PromptInputs::new(gpu, format, &CASES, crate::ops::routed::fresh_seed())?;
        for case in &CASES {
            for route in PromptRoute::all() {
                progress(&format!(
                    "attn_prompt {} {} {}",
                    format.name(),
                    case.name,
                    route.label()
                ));
                let graph = inputs.graph(gpu, &route, case, LAUNCHES)?;
                let mut t = Vec::new();
                for _ in 0..samples {
                    t.push(timer.sample_graph(gpu, &graph)? / LAUNCHES as f64);
                }
                let us = median(&t);
                rows.push(PromptBenchRow {
                    case: case.name.to_string(),
                    format: format.name().to_string(),
                    kernel: route.module_name().to_string(),
                    pack_gqa: route.pack_gqa,
                    pv_f16: route.pv_f16,
                    installed: route == installed,
                    chunk: case.chunk,
                    len: case.len,
                    us,
                    tflops: causal_flops(case.len - case.chunk, case.chunk) / us / 1e6,
                });
            }
        }
    }
    Ok(rows)
}

pub fn print_table(rows: &[PromptBenchRow]) {
    println!(
        "{:<12} {:<6} {:<34} {:>10} {:>8}",
        "case", "format", "route", "µs", "TFLOP/s"
    );
    for r in rows {
        let route = format!(
            "{}{}{}",
            r.kernel,
            if r.pack_gqa { " pack_gqa" } else { "" },
            if r.pv_f16 { " pv_f16" } else { "" }
        );
        println!(
            "{:<12} {:<6} {:<34} {:>10.1} {:>8.1}{}",
            r.case,
            r.format,
            route,
            r.us,
            r.tflops,
            if r.installed { "  (installed)" } else { "" }
        );
    }
}
