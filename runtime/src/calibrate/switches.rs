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
//! | `attn_pv_f16` | a decode step (W = 1) at 131K keys, a 1024-token prompt chunk at 32K |
//! | `attn_parallel_tiles` | 16 and 32 verify columns at 32K and 131K keys |
//! | `attn_pack_gqa` | a 1024-token prompt chunk at 32K and at 131K |
//! | `attn_prompt_fast` | a wave-aligned prompt chunk (near 1024) at 32K and at 131K |
//!
//! Prompt cases compare the compiled prompt route (standard kernel, no PackGQA, FP32
//! P.V) with the same route and the switch on.

use anyhow::Context as _;

use super::decide;
use super::measure::{DetailLine, SAMPLES};
use crate::catalog::{Switch, Variant};
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::attn_i8_small::launch::{self as attn, AttnKey};
use crate::ops::attn_i8_small::op::AttnPrepared;
use crate::ops::attn_i8_small::switches::PARALLEL_TILES_CASES;
use crate::ops::attn_prompt::bench::{PromptCase, PromptInputs};
use crate::ops::attn_prompt::launch as prompt_launch;
use crate::ops::attn_prompt::route::{PromptKernel, PromptRoute};
use crate::ops::kv::format::KvFormat;
use crate::ops::routed;

/// One measured case; "off" and "on" differ as the switch says.
#[derive(Clone, Copy, Debug)]
enum Case {
    /// `columns` decode query columns against a `window`-token cache.
    Decode { window: usize, columns: usize },
    /// A prompt chunk whose last key is token `len - 1`; `aligned`: the chunk is the
    /// wave-aligned one near `chunk` for the fast kernel on this GPU.
    Prompt {
        chunk: usize,
        len: usize,
        aligned: bool,
    },
}

impl Case {
    fn window(&self) -> usize {
        match *self {
            Case::Decode { window, .. } => window,
            Case::Prompt { len, .. } => len,
        }
    }

    fn describe(&self) -> String {
        match *self {
            Case::Decode { columns, .. } => format!("{columns} columns"),
            Case::Prompt { chunk, .. } => format!("prompt chunk {chunk}"),
        }
    }
}

fn cases(switch: &str) -> Option<Vec<Case>> {
    let prompt = |len: usize, aligned: bool| Case::Prompt {
        chunk: 1024,
        len,
        aligned,
    };
    match switch {
        "attn_pv_f16" => Some(vec![
            Case::Decode {
                window: 131072,
                columns: 1,
            },
            prompt(32768, false),
        ]),
        "attn_parallel_tiles" => Some(
            PARALLEL_TILES_CASES
                .iter()
                .map(|&(window, columns)| Case::Decode { window, columns })
                .collect(),
        ),
        "attn_pack_gqa" => Some(vec![prompt(32768, false), prompt(131072, false)]),
        "attn_prompt_fast" => Some(vec![prompt(32768, true), prompt(131072, true)]),
        _ => None,
    }
}

/// The prompt route of a case with the switch off (the compiled one) or on.
fn prompt_route(switch: &str, on: bool) -> PromptRoute {
    let mut r = PromptRoute::COMPILED;
    match switch {
        "attn_pv_f16" => r.pv_f16 = on,
        "attn_pack_gqa" => r.pack_gqa = on,
        "attn_prompt_fast" if on => r.kernel = PromptKernel::Fast,
        _ => {}
    }
    r
}

/// The wave-aligned chunk near `chunk` for the fast kernel on this GPU.
fn fast_aligned_chunk(gpu: &Gpu, chunk: usize) -> anyhow::Result<usize> {
    let route = prompt_route("attn_prompt_fast", true);
    let resident = prompt_launch::resident_per_sm(gpu, &route, KvFormat::Int8)?;
    Ok(crate::ops::prefill_chunk::aligned_chunk(
        chunk,
        gpu.info.identity.multiprocessors as usize,
        prompt_launch::prompt_grid(&route, resident),
        true,
    ))
}

/// What a switch's cases run on: decode inputs, prompt inputs (int8 caches).
struct Inputs {
    switch: &'static str,
    decode: Option<AttnPrepared>,
    prompt: Option<PromptInputs>,
}

impl Inputs {
    /// One call of case `c` with the switch `on` or off ("copy": decode's cache copy).
    fn run(&mut self, gpu: &Gpu, copy: usize, c: &Case, on: bool) -> anyhow::Result<()> {
        match *c {
            Case::Decode { window, columns } => {
                let family = attn::family();
                // chunks and tiles of any width take the compiled route of the window
                let route = |_w: usize, len: usize| -> &'static Variant {
                    family.compiled_variant(len as u32)
                };
                let (parallel, pv) = if self.switch == "attn_parallel_tiles" {
                    (on, false)
                } else {
                    (false, on)
                };
                let inst = self.decode.as_mut().context("decode inputs")?;
                inst.run_columns(gpu, &route, copy, window, columns, parallel, pv)
            }
            Case::Prompt { chunk, len, .. } => {
                let p = self.prompt.as_mut().context("prompt inputs")?;
                let case = PromptCase {
                    name: "calibration",
                    chunk,
                    len,
                };
                p.run(gpu, &prompt_route(self.switch, on), &case)
            }
        }
    }

    /// The output of one call (after it).
    fn output(&mut self, gpu: &Gpu, c: &Case, on: bool) -> anyhow::Result<Vec<f64>> {
        self.run(gpu, 0, c, on)?;
        match *c {
            Case::Decode { columns, .. } => self
                .decode
                .as_ref()
                .context("decode inputs")?
                .output_columns(gpu, columns),
            Case::Prompt { chunk, len, .. } => {
                self.prompt.as_ref().context("prompt inputs")?.output(
                    gpu,
                    &PromptCase {
                        name: "calibration",
                        chunk,
                        len,
                    },
                )
            }
        }
    }
}

/// Launches per timing graph of a prompt case.
const PROMPT_LAUNCHES: usize = 3;

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
    // Wave-aligned prompt chunks resolved for this GPU.
    let cases: Vec<Case> = cases
        .into_iter()
        .map(|c| match c {
            Case::Prompt {
                chunk,
                len,
                aligned: true,
            } => Ok(Case::Prompt {
                chunk: fast_aligned_chunk(gpu, chunk)?,
                len,
                aligned: true,
            }),
            c => Ok(c),
        })
        .collect::<anyhow::Result<_>>()?;
    let key = AttnKey {
        format: KvFormat::Int8,
        width: 1,
    };
    let decode_widest = cases
        .iter()
        .filter(|c| matches!(c, Case::Decode { .. }))
        .map(|c| c.window())
        .max();
    let decode = match decode_widest {
        Some(w) => Some(AttnPrepared::new(gpu, key, routed::fresh_seed(), w)?),
        None => None,
    };
    let prompt_cases: Vec<PromptCase> = cases
        .iter()
        .filter_map(|c| match *c {
            Case::Prompt { chunk, len, .. } => Some(PromptCase {
                name: "calibration",
                chunk,
                len,
            }),
            _ => None,
        })
        .collect();
    let prompt = if prompt_cases.is_empty() {
        None
    } else {
        Some(PromptInputs::new(
            gpu,
            KvFormat::Int8,
            &prompt_cases,
            routed::fresh_seed(),
        )?)
    };
    let mut inputs = Inputs {
        switch: switch.name,
        decode,
        prompt,
    };

    let mut ratios = Vec::new();
    let mut confirmed = Vec::new();
    let mut worst_diff = 0.0f64;
    for c in &cases {
        tick(&format!(
            "{} window {} {}",
            switch.name,
            c.window(),
            c.describe()
        ));
        let (copies, launches) = match c {
            Case::Decode { window, .. } => {
                let copies = crate::bench::weight_copies(
                    gpu.info.l2_bytes,
                    window * 4 * key.format.token_bytes(),
                );
                (copies, (2 * copies).max(20))
            }
            // milliseconds of compute per launch: a few launches, one copy
            Case::Prompt { .. } => (1, PROMPT_LAUNCHES),
        };
        let mut graphs = Vec::new();
        for on in [false, true] {
            inputs.run(gpu, 0, c, on)?;
            graphs.push(Timer::capture(gpu, || {
                (0..launches).try_for_each(|i| inputs.run(gpu, i % copies, c, on))
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
        let off_out = inputs.output(gpu, c, false)?;
        let on_out = inputs.output(gpu, c, true)?;
        let diff = routed::relative_difference(&on_out, &off_out);
        worst_diff = worst_diff.max(diff);
        ratios.push(first[1] / first[0]);
        confirmed.push(second[1] / second[0]);
        for (value, us) in switch.values.iter().zip([first[0], first[1]]) {
            detail.push(DetailLine {
                key: switch.name.to_string(),
                width: c.window() as u32,
                schedule: format!("{value} ({})", c.describe()),
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
