//! `ninfer check` rows of the prompt attention: every route (kernel x PackGQA x P.V
//! accumulation) of every format against the f64 reference of `ops::kv::reference`, on
//! a real cache (random BF16 rows through the CPU append rule, pages permuted), with
//! the queries as the kernels quantize them (`attn_i8_small::op::kernel_queries`: the
//! prompt kernels quantize exactly as the decode kernels do).
//!
//! Cases `(cache length, chunk)`: a single token at position 0, chunks at position 0,
//! chunks not multiples of the 128-row tile or the 64-key tile, one exact quantum, a
//! chunk over a partial last page. The output holds [`SPARE_COLUMNS`] more columns
//! than the chunk, poisoned: a write past the chunk fails the row. Chunks of more than
//! [`ALL_COLUMNS_UP_TO`] tokens compare a sample of columns (the first, the last and
//! some between), every column of which is compared in full.

use cudarc::driver::CudaSlice;
use half::bf16;

use super::launch::{attend_prompt, PromptWorkspace};
use super::route::PromptRoute;
use crate::check::{compare_rows, poison, CheckRow};
use crate::gpu::Gpu;
use crate::ops::attn_i8_small::launch::CacheView;
use crate::ops::attn_i8_small::op::{checked_cache, kernel_queries, random_queries};
use crate::ops::kv::cache::KvCache;
use crate::ops::kv::codebook::levels_f16;
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::quantize::unpack_nibbles;
use crate::ops::kv::reference;
use crate::ops::kv::{HEAD_DIM, Q_HEADS};
use crate::ops::routed::check_outcome;

/// `(cache length, chunk)`: position = length - chunk.
pub const CHECK_CASES: [(usize, usize); 7] = [
    (1, 1),
    (100, 100),
    (777, 128),
    (1333, 333),
    (2000, 2000),
    (4133, 1029),
    (4133, 1),
];
/// Tokens of the checked cache.
pub const CHECK_TOKENS: usize = 4133;
/// Columns past the chunk that must stay poisoned.
pub const SPARE_COLUMNS: usize = 8;
/// Chunks up to this many tokens are compared column by column in full.
pub const ALL_COLUMNS_UP_TO: usize = 400;

/// The route-key-like name of a format's rows.
pub fn key_of(format: KvFormat) -> String {
    format!("attn_prompt/h{Q_HEADS}/{}", format.name())
}

/// The columns a chunk's comparison covers.
fn checked_columns(chunk: usize) -> Vec<usize> {
    if chunk <= ALL_COLUMNS_UP_TO {
        return (0..chunk).collect();
    }
    let mut c: Vec<usize> = (0..32).chain(chunk - 32..chunk).collect();
    c.extend((1..33).map(|i| i * chunk / 33));
    c.sort_unstable();
    c.dedup();
    c
}

/// f64 reference of the chosen columns of a `(len, chunk)` case: column `i` sees keys
/// `0 ..= len - chunk + i`.
fn reference_columns(
    q: &[f64],
    k: &[Vec<f64>],
    v: &[Vec<f64>],
    len: usize,
    chunk: usize,
    columns: &[usize],
) -> Vec<Vec<f64>> {
    let row = Q_HEADS * HEAD_DIM;
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    let per = columns.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = columns
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&i| {
                            reference::attention_f64(
                                &q[i * row..(i + 1) * row],
                                1,
                                k,
                                v,
                                len - chunk + i + 1,
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("reference thread"))
            .collect()
    })
}

/// Whether a launch of `route` on a `(len, chunk)` case splits its key ranges on this GPU
/// (given room for every split).
fn splits_here(
    gpu: &Gpu,
    route: &PromptRoute,
    format: KvFormat,
    len: usize,
    chunk: usize,
) -> anyhow::Result<bool> {
    let resident = super::launch::resident_per_sm(gpu, route, format)?;
    let sms = gpu.info.identity.multiprocessors as usize;
    Ok(super::launch::launch_splits(sms, resident, route, len, chunk) > 1)
}

/// Every route of every format (or those whose key starts with `only`).
pub fn run(
    gpu: &Gpu,
    only: Option<&str>,
    seed: u64,
    progress: &dyn Fn(&str),
) -> anyhow::Result<Vec<CheckRow>> {
    let mut rows = Vec::new();
    let widest = CHECK_CASES.iter().map(|c| c.1).max().unwrap_or(1);
    let row = Q_HEADS * HEAD_DIM;
    for format in KvFormat::ALL {
        let key = key_of(format);
        if only.is_some_and(|p| !key.starts_with(p) && !p.starts_with(&key)) {
            continue;
        }
        progress(&format!(
            "{key}: cache, queries and f64 reference (seed {seed})"
        ));
        let cache = checked_cache(format, CHECK_TOKENS, seed);
        let (k, v) = reference::dequantized(&cache);
        // rk4v4: K as the prompt kernels' FP16 K tile holds it (kernel_k_tile)
        let k = if format == KvFormat::Rk4v4 {
            kernel_k_tile(&cache)
        } else {
            k
        };
        let q_host = random_queries(widest, seed ^ 0x51);
        let pool = gpu.stream.clone_htod(cache.pool())?;
        let table: Vec<i32> = cache.page_table().iter().map(|&p| p as i32).collect();
        let page_table = gpu.stream.clone_htod(&table)?;
        let mut out: CudaSlice<bf16> = gpu.stream.alloc_zeros((widest + SPARE_COLUMNS) * row)?;
        let mut ws = PromptWorkspace::new(gpu, widest)?;
        for &(len, chunk) in &CHECK_CASES {
            let pos = len - chunk;
            // the chunk's queries are its first `chunk` columns of q_host
            let q64 = kernel_queries(format, reference::queries(&cache, &q_host[..chunk * row]));
            let columns = checked_columns(chunk);
            let want = reference_columns(&q64, &k, &v, len, chunk, &columns);
            // sum_j p_j |v_j| / l per element: the scale of FP16 P.V's rounding error
            let v_abs: Vec<Vec<f64>> = v
                .iter()
                .map(|h| h.iter().map(|x| x.abs()).collect())
                .collect();
            let magnitude = reference_columns(&q64, &k, &v_abs, len, chunk, &columns);
            let q = gpu.stream.clone_htod(&q_host[..chunk * row])?;
            // unsplit and, where the launch splits its key ranges, split
            for (route, split) in PromptRoute::all()
                .into_iter()
                .flat_map(|r| [(r, false), (r, true)])
            {
                if split && !splits_here(gpu, &route, format, len, chunk)? {
                    continue;
                }
                progress(&format!("{key}: {} chunk {chunk} at {pos}", route.label()));
                poison(gpu, &mut out)?;
                let mut none = PromptWorkspace::none(gpu)?;
                let ws = if split { &mut ws } else { &mut none };
                let view = CacheView {
                    format,
                    pool: &pool,
                    page_table: page_table.slice(..),
                    len,
                };
                let launched = attend_prompt(
                    gpu,
                    &route,
                    &view,
                    &q.slice(..),
                    chunk,
                    ws,
                    &mut out.slice_mut(..),
                )
                .and_then(|_| gpu.sync());
                let (error, problem) = check_outcome(launched, || {
                    let host = gpu.stream.clone_dtoh(&out)?;
                    // spare columns untouched
                    let spare = &host[chunk * row..(chunk + SPARE_COLUMNS) * row];
                    let (_, stray) = compare_rows(spare, &[], row, 0, SPARE_COLUMNS);
                    if let Some(p) = stray {
                        return Ok((0.0, Some(format!("past the chunk: {p}"))));
                    }
                    let mut worst = 0.0f64;
                    for ((c, reference), mag) in columns.iter().zip(&want).zip(&magnitude) {
                        let got = &host[c * row..(c + 1) * row];
                        let (e, p) = if route.pv_f16 {
                            crate::check::compare_rows_fp16_accumulated(
                                got, reference, row, 1, 1, mag,
                            )
                        } else {
                            compare_rows(got, reference, row, 1, 1)
                        };
                        worst = worst.max(e);
                        if let Some(p) = p {
                            return Ok((worst, Some(format!("column {c}: {p}"))));
                        }
                    }
                    Ok((worst, None))
                })?;
                rows.push(CheckRow {
                    key: key.clone(),
                    variant: format!(
                        "{}_{}{}",
                        route.module().name,
                        route.suffix(format),
                        if split { " split-KV" } else { "" }
                    ),
                    width: chunk as u32,
                    max_rel_error: error,
                    pass: problem.is_none(),
                    note: match problem {
                        Some(p) => format!("position {pos}: {p}"),
                        None if columns.len() < chunk => {
                            format!("position {pos}, {} of {chunk} columns", columns.len())
                        }
                        None => format!("position {pos}"),
                    },
                });
            }
        }
    }
    Ok(rows)
}

/// log2(e) / 16: the prompt kernels' K tile holds K in the log2 domain (`LOG2E_16`).
#[allow(clippy::excessive_precision)]
const LOG2E_16: f32 = 0.090_168_440_055_560_21;

/// rk4v4's K per KV head `[len][256]` as the prompt kernels' FP16 K tile holds it
/// (`dequant_tile`), back in K space: each code's FP16 level times its group's scale x
/// log2(e) / 16 rounded to FP16, the product rounded to FP16. That tile rounding is the
/// kernels' design, as the queries' FP16 rounding is (`kernel_queries`); the f64
/// reference over it leaves the check to the kernels' own error. attn_i8_small's
/// warpgroup schedule runs the same tile loop (its check uses it too).
pub(crate) fn kernel_k_tile(cache: &KvCache) -> Vec<Vec<f64>> {
    let levels = levels_f16();
    let group = cache.format().k_group();
    (0..cache.kv_heads())
        .map(|h| {
            (0..cache.len())
                .flat_map(|t| {
                    let (codes, scales) = cache.k_row(t, h);
                    let ks: Vec<half::f16> = scales
                        .iter()
                        .map(|s| half::f16::from_f32(s.to_f32() * LOG2E_16))
                        .collect();
                    unpack_nibbles(codes)
                        .into_iter()
                        .enumerate()
                        .map(|(i, u)| {
                            let tile = levels[u as usize] * ks[i / group];
                            tile.to_f64() / LOG2E_16 as f64
                        })
                        .collect::<Vec<f64>>()
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_columns_include_both_ends_and_are_sorted() {
        let c = checked_columns(2000);
        assert_eq!(c[0], 0);
        assert_eq!(*c.last().unwrap(), 1999);
        assert!(c.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(checked_columns(100).len(), 100);
    }

    #[test]
    fn cases_fit_the_checked_cache_and_cover_position_zero() {
        assert!(CHECK_CASES
            .iter()
            .all(|&(l, c)| c >= 1 && c <= l && l <= CHECK_TOKENS));
        assert!(CHECK_CASES.iter().any(|&(l, c)| l == c && c > 128));
        assert!(CHECK_CASES
            .iter()
            .any(|&(_, c)| c % 128 != 0 && c % 64 != 0));
    }

    #[test]
    fn the_kernel_k_tile_is_the_format_within_fp16_rounding() {
        // two FP16 roundings (the scale x log2(e)/16 and the product): within 2^-10 of
        // each value, and not everywhere equal to it (else the model would be vacuous)
        let cache = checked_cache(KvFormat::Rk4v4, 70, 3);
        let (k, _) = reference::dequantized(&cache);
        let tile = kernel_k_tile(&cache);
        let mut differ = 0;
        for (a, b) in k.iter().flatten().zip(tile.iter().flatten()) {
            assert!((a - b).abs() <= a.abs() / 1024.0 + 1e-12, "{a} {b}");
            differ += usize::from(a != b);
        }
        assert!(differ > 0);
        assert_eq!(k[0].len(), tile[0].len());
    }

    #[test]
    fn reference_columns_match_the_whole_reference() {
        // a tiny cache: per-column evaluation equals attention_f64 over the whole chunk
        let cache = checked_cache(KvFormat::Int8, 70, 3);
        let (k, v) = reference::dequantized(&cache);
        let q_host = random_queries(5, 9);
        let q = reference::queries(&cache, &q_host[..5 * Q_HEADS * HEAD_DIM]);
        let whole = reference::attention_f64(&q, 5, &k, &v, 70);
        let cols = reference_columns(&q, &k, &v, 70, 5, &[0, 2, 4]);
        let row = Q_HEADS * HEAD_DIM;
        for (i, c) in [0usize, 2, 4].iter().enumerate() {
            assert_eq!(cols[i], whole[c * row..(c + 1) * row].to_vec());
        }
    }
}
