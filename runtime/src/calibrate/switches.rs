//! Calibration of the route switches (`[[switch]]` in catalog.toml). A switch is timed
//! like a schedule: its "on" form against the compiled "off" through the op's dispatch,
//! L2 flushed before every sample, median of eleven, samples interleaved; "on" is
//! stored only when it is at least 3 % faster, stays so in a second interleaved
//! measurement and its output is within 5 % of "off"'s (`decide::verdict`). Several
//! measured cases count by the geometric mean of their ratios, and none may be more
//! than 3 % slower.
//!
//! | switch | cases (int8 cache, the compiled attention routes) |
//! |---|---|
//! | `attn_pv_f16` | a decode step (W = 1) at 131K keys |
//! | `attn_parallel_tiles` | 16 and 32 verify columns at 32K and 131K keys |

use anyhow::Context as _;

use super::decide;
use super::measure::{DetailLine, SAMPLES};
use crate::catalog::{Switch, Variant};
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::attn_i8_small::launch::{self as attn, AttnKey};
use crate::ops::attn_i8_small::op::AttnPrepared;
use crate::ops::kv::format::KvFormat;
use crate::ops::routed;

/// One measured case: `(window, columns)`; "off" and "on" differ as the switch says.
struct Case {
    window: usize,
    columns: usize,
}

fn cases(switch: &str) -> Option<Vec<Case>> {
    match switch {
        "attn_pv_f16" => Some(vec![Case {
            window: 131072,
            columns: 1,
        }]),
        "attn_parallel_tiles" => Some(
            [32768, 131072]
                .iter()
                .flat_map(|&window| [16, 32].map(|columns| Case { window, columns }))
                .collect(),
        ),
        _ => None,
    }
}

/// Cases a switch's calibration measures (progress steps).
pub fn case_count(switch: &str) -> usize {
    cases(switch).map_or(0, |c| c.len())
}

/// The switch's bands (`[(1, "on")]` or `[(1, "")]` for the compiled value), or None for
/// a switch this build cannot measure yet.
pub fn calibrate(
    gpu: &Gpu,
    timer: &mut Timer,
    switch: &'static Switch,
    detail: &mut Vec<DetailLine>,
    tick: &dyn Fn(&str),
) -> anyhow::Result<Option<Vec<(u32, String)>>> {
    let Some(cases) = cases(switch.name) else {
        tracing::warn!(
            "{}: no measurement in this build; not calibrated",
            switch.name
        );
        return Ok(None);
    };
    let widest = cases.iter().map(|c| c.window).max().unwrap_or(1);
    let key = AttnKey {
        format: KvFormat::Int8,
        width: 1,
    };
    let mut inst = AttnPrepared::new(gpu, key, routed::fresh_seed(), widest)?;
    let family = attn::family();
    // chunks and tiles of any width take the compiled route of the window
    let route = |_w: usize, len: usize| -> &'static Variant { family.compiled_variant(len as u32) };
    let parallel_tiles = switch.name == "attn_parallel_tiles";
    let run = |inst: &mut AttnPrepared, copy: usize, c: &Case, on: bool| {
        let (parallel, pv) = if parallel_tiles {
            (on, false)
        } else {
            (false, on)
        };
        inst.run_columns(gpu, &route, copy, c.window, c.columns, parallel, pv)
    };

    let mut ratios = Vec::new();
    let mut confirmed = Vec::new();
    let mut worst_diff = 0.0f64;
    for c in &cases {
        tick(&format!(
            "{} window {} columns {}",
            switch.name, c.window, c.columns
        ));
        let copies =
            crate::bench::weight_copies(gpu.info.l2_bytes, c.window * 4 * key.format.token_bytes());
        let launches = (2 * copies).max(20);
        let mut graphs = Vec::new();
        for on in [false, true] {
            run(&mut inst, 0, c, on)?;
            graphs.push(Timer::capture(gpu, || {
                (0..launches).try_for_each(|i| run(&mut inst, i % copies, c, on))
            })?);
        }
        let mut pass = |n: usize| -> anyhow::Result<[f64; 2]> {
            let mut s = [Vec::new(), Vec::new()];
            for _ in 0..n {
                for (i, g) in graphs.iter().enumerate() {
                    s[i].push(timer.sample_graph(gpu, g)? / launches as f64);
                }
            }
            Ok([median(&s[0]), median(&s[1])])
        };
        let first = pass(SAMPLES)?;
        let second = pass(SAMPLES)?;
        run(&mut inst, 0, c, false)?;
        let off_out = inst.output_columns(gpu, c.columns)?;
        run(&mut inst, 0, c, true)?;
        let on_out = inst.output_columns(gpu, c.columns)?;
        let diff = routed::relative_difference(&on_out, &off_out);
        worst_diff = worst_diff.max(diff);
        ratios.push(first[1] / first[0]);
        confirmed.push(second[1] / second[0]);
        for (value, us) in switch.values.iter().zip([first[0], first[1]]) {
            detail.push(DetailLine {
                key: switch.name.to_string(),
                width: c.window as u32,
                schedule: format!("{value} ({} columns)", c.columns),
                us,
                note: if *value == "on" {
                    format!(
                        "confirm {:.2} vs {:.2} µs, output diff {diff:.1e}",
                        second[1], second[0]
                    )
                } else {
                    String::new()
                },
            });
        }
    }
    let geomean = |r: &[f64]| (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
    let no_case_slower = |r: &[f64]| r.iter().all(|&x| x <= 1.0 + decide::WIN_MARGIN);
    let first_win = geomean(&ratios) <= 1.0 - decide::WIN_MARGIN && no_case_slower(&ratios);
    let on = decide::verdict(first_win, geomean(&confirmed), 1.0, worst_diff)
        && no_case_slower(&confirmed);
    let value = if on {
        switch
            .values
            .iter()
            .find(|v| **v != switch.compiled)
            .context("a switch has a value besides its compiled one")?
            .to_string()
    } else {
        String::new()
    };
    Ok(Some(vec![(1, value)]))
}
