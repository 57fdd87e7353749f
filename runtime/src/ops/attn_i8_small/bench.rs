//! `ninfer bench` rows of requests of verify columns: 16 and 32 query columns against an
//! int8 cache at 32K and 131K keys (the `attn_parallel_tiles` switch's calibration cases),
//! each timed as the engine serves it (`AttnPrepared::run_request`: the request's K/V
//! appends and its attention, by this device's installed routes and switches, environment
//! overrides included) and with parallel query tiles the other way, so the table shows
//! what the switch's value buys here. Calibration times the attention launches alone.
//! Method as the rest of `ninfer bench`: a CUDA graph of requests rotating over cache
//! copies that span three L2 sizes, L2 flushed before every sample, median.
use serde::Serialize;

use super::launch::{self as attn, AttnKey};
use super::op::AttnPrepared;
use super::switches;
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::KV_HEADS;

#[derive(Clone, Debug, Serialize)]
pub struct VerifyBenchRow {
    pub format: String,
    pub window: usize,
    pub columns: usize,
    /// Whether this device's `attn_parallel_tiles` (with `NINFER_ATTN_PARALLEL_TILES`)
    /// runs the request as parallel query tiles.
    pub parallel_tiles: bool,
    /// The request as the engine serves it, µs.
    pub us: f64,
    /// The same request with parallel query tiles the other way, µs.
    pub other_us: f64,
}

/// Whether `--only` selects these rows: no filter, a prefix of the family's route keys'
/// common part (`attn_i8_small/`), or of the switch's name.
pub fn selected(only: Option<&str>) -> bool {
    only.is_none_or(|p| {
        format!("{}/", attn::family().name).starts_with(p)
            || switches::PARALLEL_TILES_KEY.starts_with(p)
    })
}

pub fn run(
    gpu: &Gpu,
    timer: &mut Timer,
    samples: usize,
    progress: &dyn Fn(&str),
) -> anyhow::Result<Vec<VerifyBenchRow>> {
    let format = KvFormat::Int8;
    let widest = switches::PARALLEL_TILES_CASES
        .iter()
        .map(|&(window, _)| window)
        .max()
        .unwrap_or(0);
    let key = AttnKey { format, width: 1 };
    let mut inputs = AttnPrepared::new(gpu, key, crate::ops::routed::fresh_seed(), widest)?;
    let ordinal = gpu.info.ordinal;
    let parallel = switches::parallel_tiles(ordinal);
    let mut rows = Vec::new();
    for &(window, columns) in &switches::PARALLEL_TILES_CASES {
        progress(&format!(
            "attn_i8_small {} {columns} verify columns at {window} keys",
            format.name()
        ));
        let copies = crate::bench::weight_copies(
            gpu.info.l2_bytes,
            window * KV_HEADS * format.token_bytes(),
        );
        let launches = (2 * copies).max(20);
        // Warm-up (module loads) outside the graphs.
        inputs.run_request(gpu, 0, window, columns)?;
        inputs.run_request_as(gpu, 0, window, columns, !parallel)?;
        gpu.sync()?;
        let served = Timer::capture(gpu, || {
            (0..launches).try_for_each(|i| inputs.run_request(gpu, i % copies, window, columns))
        })?;
        let other = Timer::capture(gpu, || {
            (0..launches).try_for_each(|i| {
                inputs.run_request_as(gpu, i % copies, window, columns, !parallel)
            })
        })?;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..samples {
            a.push(timer.sample_graph(gpu, &served)? / launches as f64);
            b.push(timer.sample_graph(gpu, &other)? / launches as f64);
        }
        rows.push(VerifyBenchRow {
            format: format.name().to_string(),
            window,
            columns,
            parallel_tiles: parallel,
            us: median(&a),
            other_us: median(&b),
        });
    }
    Ok(rows)
}

pub fn print_table(rows: &[VerifyBenchRow]) {
    println!(
        "\nrequests of verify columns (attn_i8_small; the installed attn_parallel_tiles against the other value)"
    );
    println!(
        "{:<8} {:>8} {:>8}  {:<16} {:>9} {:>12}",
        "format", "window", "columns", "parallel tiles", "µs", "other µs"
    );
    for r in rows {
        println!(
            "{:<8} {:>8} {:>8}  {:<16} {:>9.2} {:>12.2}",
            r.format,
            r.window,
            r.columns,
            if r.parallel_tiles { "on" } else { "off" },
            r.us,
            r.other_us
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_selects_the_family_or_the_switch() {
        for only in [
            None,
            Some("attn"),
            Some("attn_i8_small"),
            Some("attn_parallel"),
        ] {
            assert!(super::selected(only), "{only:?}");
        }
        for only in [
            "attn_i8_small/h24/int8/w1",
            "attn_prompt",
            "q4_linear_add",
            "t2",
        ] {
            assert!(!super::selected(Some(only)), "{only}");
        }
    }
}
