//! Calibration of the route switches (`[[switch]]` in catalog.toml; each is a boolean,
//! "off" or "on"). A switch is timed like a schedule: its other value against its
//! compiled one (catalog.toml) through the op's dispatch, L2 flushed before every sample,
//! median of eleven, samples interleaved; the other value is stored only when it is at
//! least 3 % faster, stays so in a second interleaved measurement and its output is
//! within 5 % of the compiled value's (`decide::verdict`). Several measured cases count
//! by the geometric mean of their ratios, and none may be more than 3 % slower.
//!
//! | switch | cases (int8 cache, the compiled attention routes) |
//! |---|---|
//! | `attn_pv_f16` | a decode step (W = 1) at 131K keys, a 1024-token prompt chunk at 32K |
//! | `attn_parallel_tiles` | 16 and 32 verify columns at 32K and 131K keys |
//! | `attn_pack_gqa` | a 1024-token prompt chunk at 32K and at 131K |
//! | `attn_prompt_fast` | a wave-aligned prompt chunk (near 1024) at 32K and at 131K |
//!
//! Prompt cases compare the compiled prompt route (every switch at its compiled value)
//! with the same route and the measured switch flipped; decode cases keep the other
//! decode switch at its compiled value.

use anyhow::Context as _;

use super::decide;
use super::measure::{DetailLine, SAMPLES};
use crate::catalog::{self, Switch, Variant};
use crate::gpu::timing::{median, Timer};
use crate::gpu::Gpu;
use crate::ops::attn_i8_small::launch::{self as attn, AttnKey};
use crate::ops::attn_i8_small::op::AttnPrepared;
use crate::ops::attn_i8_small::switches::{PARALLEL_TILES_CASES, PARALLEL_TILES_KEY, PV_F16_KEY};
use crate::ops::attn_prompt::bench::{PromptCase, PromptInputs};
use crate::ops::attn_prompt::launch as prompt_launch;
use crate::ops::attn_prompt::route::{PromptKernel, PromptRoute};
use crate::ops::attn_prompt::route::{FAST_KEY, PACK_GQA_KEY};
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::KV_HEADS;
use crate::ops::routed;

/// One measured case; its runs with the switch off and on differ as the switch says.
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
        k if k == PV_F16_KEY => Some(vec![
            Case::Decode {
                window: 131072,
                columns: 1,
            },
            prompt(32768, false),
        ]),
        k if k == PARALLEL_TILES_KEY => Some(
            PARALLEL_TILES_CASES
                .iter()
                .map(|&(window, columns)| Case::Decode { window, columns })
                .collect(),
        ),
        k if k == PACK_GQA_KEY => Some(vec![prompt(32768, false), prompt(131072, false)]),
        k if k == FAST_KEY => Some(vec![prompt(32768, true), prompt(131072, true)]),
        _ => None,
    }
}

/// The prompt route of a case: the compiled one with `switch` set to `on`.
fn prompt_route(switch: &str, on: bool) -> PromptRoute {
    let mut r = PromptRoute::compiled();
    match switch {
        k if k == PV_F16_KEY => r.pv_f16 = on,
        k if k == PACK_GQA_KEY => r.pack_gqa = on,
        k if k == FAST_KEY => {
            r.kernel = if on {
                PromptKernel::Fast
            } else {
                PromptKernel::Standard
            }
        }
        _ => {}
    }
    r
}

/// The wave-aligned chunk near `chunk` for the fast kernel on this GPU.
fn fast_aligned_chunk(gpu: &Gpu, chunk: usize) -> anyhow::Result<usize> {
    let route = prompt_route(FAST_KEY, true);
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
                let compiled_on = |key: &str| catalog::switch(key).is_some_and(|s| s.compiled_on());
                let (parallel, pv) = if self.switch == PARALLEL_TILES_KEY {
                    (on, compiled_on(PV_F16_KEY))
                } else {
                    (compiled_on(PARALLEL_TILES_KEY), on)
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
                    window * KV_HEADS * key.format.token_bytes(),
                );
                (copies, (2 * copies).max(20))
            }
            // milliseconds of compute per launch: a few launches, one copy
            Case::Prompt { .. } => (1, PROMPT_LAUNCHES),
        };
        // [compiled value, the other]
        let sides = [switch.compiled_on(), !switch.compiled_on()];
        let mut graphs = Vec::new();
        for on in sides {
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
        let compiled_out = inputs.output(gpu, c, sides[0])?;
        let other_out = inputs.output(gpu, c, sides[1])?;
        let diff = routed::relative_difference(&other_out, &compiled_out);
        worst_diff = worst_diff.max(diff);
        ratios.push(first[1] / first[0]);
        confirmed.push(second[1] / second[0]);
        for (side, us) in [(0, first[0]), (1, first[1])] {
            detail.push(DetailLine {
                key: switch.name.to_string(),
                width: c.window() as u32,
                schedule: format!("{} ({})", catalog::switch_value(sides[side]), c.describe()),
                us,
                note: if side == 1 {
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
    let other_wins = decide::verdict(first_win, geomean(&confirmed), 1.0, worst_diff)
        && no_case_slower(&confirmed);
    let value = if other_wins {
        catalog::switch_value(!switch.compiled_on()).to_string()
    } else {
        String::new()
    };
    Ok(Some(vec![(1, value)]))
}

#[cfg(test)]
mod tests {
    /// Every switch of the catalog is one this calibration measures (a renamed or new
    /// switch would otherwise be skipped with only a warning), and each is a boolean.
    #[test]
    fn every_catalog_switch_has_cases_and_is_boolean() {
        for s in crate::catalog::SWITCHES {
            assert!(super::case_count(s.name) > 0, "{} has no cases", s.name);
            s.assert_boolean();
        }
    }
}
