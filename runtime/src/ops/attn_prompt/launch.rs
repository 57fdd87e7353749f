//! Launching a prompt-attention kernel (kernel-templates/attn_prompt.cu.tera): entry
//! point, shared memory, grid, and the grid shape the wave-aligned prefill chunk
//! (`ops::prefill_chunk`) is chosen for.
//!
//! Grid `(row tiles, heads, splits)`: `ceil(C / rows)` tiles of each of the 24 query heads,
//! or with PackGQA `ceil(6 C / rows)` tiles of packed (token, head) rows of each of the 4
//! KV heads; `rows` = 16 per warp. One CTA per SM (launch bounds; 135-224 KB of shared
//! memory, [`PromptLayout`]), the longest causal tiles launched first across every head (the
//! kernel reads its tile and head from the linear block index). A chunk whose CTAs
//! fill their last wave badly (1024 tokens: 192 CTAs on 132 SMs, 1.45 waves) splits each
//! row tile's key range in `splits` parts ([`choose_splits`]) and merges the partials with
//! the module's `_reduce` kernel.

use anyhow::{ensure, Context as _};
use cudarc::driver::{CudaView, CudaViewMut, LaunchConfig, PushKernelArg};
use half::bf16;

use super::route::PromptRoute;
use crate::gpu::Gpu;
use crate::ops::attn_i8_small::launch::CacheView;
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::{GQA, HEAD_DIM, KV_HEADS, PAGE_TOKENS, Q_HEADS};
use crate::ops::prefill_chunk::PromptGrid;

/// Query rows of one CTA: 16 per warp.
pub fn rows_per_cta(route: &PromptRoute) -> usize {
    16 * route
        .module()
        .param("warps")
        .expect("prompt modules have `warps`") as usize
}

/// How an entry point's shared memory and CTA are laid out on this GPU: the template's
/// `AP_VT` and `Ws` for the PTX this device loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptLayout {
    /// FP16 V tiles: two in the standard kernel's architecture-specific (compute_90a,
    /// wgmma) build, so that the next tile's decode overlaps this tile's last P.V; else one.
    pub v_tiles: usize,
    /// One more warpgroup, the producer (copies the pages through a ring of three stages,
    /// decodes V, and Lloyd-Max K into the FP16 K tile), a K-scale table per V tile and
    /// the mbarriers: the wgmma build's entries without FP16 P.V (the template's `Ws::ON`).
    pub producer: bool,
}

impl PromptLayout {
    /// The layout of `route`'s entries (every KV format alike) where the device loads the
    /// architecture-specific PTX (`specific`) or the baseline.
    pub fn of(route: &PromptRoute, specific: bool) -> Self {
        let wgmma = specific && route.module().param("pair") == Some(0);
        PromptLayout {
            v_tiles: if wgmma { 2 } else { 1 },
            producer: wgmma && !route.pv_f16,
        }
    }

    /// On this GPU. The kernel traps if its dynamic shared memory is smaller than its
    /// layout; `attend_prompt` checks the entry's launch bounds against `threads`.
    pub fn on(gpu: &Gpu, route: &PromptRoute) -> Self {
        Self::of(route, gpu.ptx_for(route.module()).specific)
    }

    /// Threads of a CTA: the module's, and the producer warpgroup's 128.
    pub fn threads(&self, route: &PromptRoute) -> u32 {
        route.module().launch.threads + if self.producer { 128 } else { 0 }
    }
}

/// Dynamic shared memory of a launch; the arithmetic of `ApLayout` in the template: the
/// raw pages (`stages`, or three with the producer; each padded to 1024 bytes), the FP16
/// V tiles, the query rows (int8 + fp32 scales, or FP16), the Lloyd-Max table, the tile's
/// K scales in fp32 (one per V tile with the producer), the FP16 K tile (Lloyd-Max K),
/// the paired warps' exchange buffers, the producer's eleven mbarriers (128 bytes).
pub fn smem_bytes(format: KvFormat, route: &PromptRoute, layout: PromptLayout) -> usize {
    let stages = if layout.producer {
        3
    } else {
        route
            .module()
            .param("stages")
            .expect("prompt modules have `stages`") as usize
    };
    // paired warps: row maxima / sums and FP16 probabilities exchanged per pair
    let warps = route
        .module()
        .param("warps")
        .expect("prompt modules have `warps`") as usize;
    let exchange = if route.module().param("pair") == Some(1) {
        (warps / 2) * 2 * 32 * 4 + (warps / 2) * 2 * 16 * 32 * 4
    } else {
        0
    };
    tile_loop_bytes(format, rows_per_cta(route), stages, layout) + exchange
}

/// The tile loop's shared memory (`ApLayout` without the paired warps' buffers) for `rows`
/// query rows and `stages` raw pages; also attn_i8_small's warpgroup schedule's (64 rows).
pub fn tile_loop_bytes(
    format: KvFormat,
    rows: usize,
    stages: usize,
    layout: PromptLayout,
) -> usize {
    let int8_k = format.k_bits() == 8;
    let q = if int8_k {
        rows * (HEAD_DIM + 16)
    } else {
        rows * 2 * HEAD_DIM + 1024
    };
    let k_scales =
        format.k_groups() * PAGE_TOKENS * 4 * if layout.producer { layout.v_tiles } else { 1 };
    // Lloyd-Max K is decoded into an FP16 tile like V
    let k_tile = if int8_k {
        0
    } else {
        PAGE_TOKENS * HEAD_DIM * 2
    };
    let barriers = if layout.producer { 128 } else { 0 };
    // stages padded to 1024 bytes (the template's STAGE: wgmma's swizzle atoms)
    stages * format.page_bytes().next_multiple_of(1024)
        + layout.v_tiles * PAGE_TOKENS * HEAD_DIM * 2
        + q
        + k_scales
        + k_tile
        + barriers
}

/// The launch's CTA count shape, for the wave-aligned chunk: `resident` CTAs per SM.
pub fn prompt_grid(route: &PromptRoute, resident: usize) -> PromptGrid {
    PromptGrid {
        rows_per_cta: rows_per_cta(route),
        rows_per_token: if route.pack_gqa { GQA } else { 1 },
        ctas_per_row_tile: if route.pack_gqa { KV_HEADS } else { Q_HEADS },
        resident_per_sm: resident.max(1),
    }
}

/// CTAs of the route resident per SM on this GPU (driver occupancy at the launch's
/// shared memory).
pub fn resident_per_sm(gpu: &Gpu, route: &PromptRoute, format: KvFormat) -> anyhow::Result<usize> {
    let variant = route.module();
    let layout = PromptLayout::on(gpu, route);
    let smem = smem_bytes(format, route, layout);
    Ok(gpu
        .sized_entry(variant, &route.suffix(format), layout.threads(route), smem)?
        .resident)
}

/// Most key-range splits per row tile.
pub const MAX_SPLITS: usize = 4;
/// Fewest key tiles (64 keys) a split may get: shorter ones cost more in partials than
/// they gain in wave fill.
pub const MIN_TILES_PER_SPLIT: usize = 8;
/// Wave-fill gain a split must bring (fraction of the unsplit launch's fill).
const SPLIT_GAIN: f64 = 0.05;

/// Key-range splits for a launch of `ctas` CTAs on `wave` CTA slots, whose shortest row
/// tile has `shortest_tiles` key tiles: the count in 1..=MAX_SPLITS whose CTAs fill their
/// waves best (ties to the fewest), if that beats no split by SPLIT_GAIN.
pub fn choose_splits(ctas: usize, wave: usize, shortest_tiles: usize) -> usize {
    let fill = |s: usize| {
        let n = ctas * s;
        n as f64 / (wave.max(1) * n.div_ceil(wave.max(1))) as f64
    };
    let best = (1..=MAX_SPLITS)
        .filter(|&s| s == 1 || shortest_tiles / s >= MIN_TILES_PER_SPLIT)
        .fold(1, |b, s| if fill(s) > fill(b) + 1e-9 { s } else { b });
    if fill(best) >= fill(1) * (1.0 + SPLIT_GAIN) {
        best
    } else {
        1
    }
}

/// The key-range splits a launch of `route` on a chunk of `chunk` tokens ending at token
/// `len - 1` takes on `sms` SMs fitting `resident` of its CTAs each, given room for them
/// in the workspace ([`choose_splits`] on the launch's grid; the first row tile's keys
/// bound every tile's from below).
pub fn launch_splits(
    sms: usize,
    resident: usize,
    route: &PromptRoute,
    len: usize,
    chunk: usize,
) -> usize {
    let grid = prompt_grid(route, resident);
    choose_splits(
        grid.ctas(chunk),
        sms * grid.resident_per_sm,
        (len - chunk + 1).div_ceil(PAGE_TOKENS),
    )
}

/// Split-KV partials of the prompt kernels: unnormalized O (fp32) and (max, sum) per
/// output row and split. Allocated up front (no allocation inside graph capture); a
/// launch splits only as far as it fits.
pub struct PromptWorkspace {
    o: cudarc::driver::CudaSlice<f32>,
    ml: cudarc::driver::CudaSlice<f32>,
    rows: usize,
}

impl PromptWorkspace {
    /// Room for `MAX_SPLITS` partials of chunks up to `max_chunk` tokens.
    pub fn new(gpu: &Gpu, max_chunk: usize) -> anyhow::Result<Self> {
        let rows = max_chunk.max(1) * Q_HEADS * MAX_SPLITS;
        Ok(PromptWorkspace {
            o: gpu.stream.alloc_zeros(rows * HEAD_DIM)?,
            ml: gpu.stream.alloc_zeros(rows * 2)?,
            rows,
        })
    }

    /// No split workspace: every launch runs unsplit.
    pub fn none(gpu: &Gpu) -> anyhow::Result<Self> {
        Ok(PromptWorkspace {
            o: gpu.stream.alloc_zeros(1)?,
            ml: gpu.stream.alloc_zeros(2)?,
            rows: 0,
        })
    }
}

/// Attends the chunk of `chunk` query tokens (`q` `[chunk][24][256]` BF16; the cache's
/// last `chunk` tokens are theirs, `cache.len` = position + chunk) and writes `out`
/// `[chunk][24][256]` BF16.
pub fn attend_prompt(
    gpu: &Gpu,
    route: &PromptRoute,
    cache: &CacheView,
    q: &CudaView<bf16>,
    chunk: usize,
    ws: &mut PromptWorkspace,
    out: &mut CudaViewMut<bf16>,
) -> anyhow::Result<()> {
    ensure!(
        chunk >= 1 && cache.len >= chunk,
        "prompt attention: need 1 <= chunk ({chunk}) <= cached tokens ({})",
        cache.len
    );
    cache.check_launch("prompt attention", q.len(), out.len(), chunk)?;
    let variant = route.module();
    let layout = PromptLayout::on(gpu, route);
    let (smem, threads) = (
        smem_bytes(cache.format, route, layout),
        layout.threads(route),
    );
    let entry = gpu.sized_entry(variant, &route.suffix(cache.format), threads, smem)?;
    let (f, name, resident) = (&entry.function, &entry.name, entry.resident);
    // the template's launch bounds are its CTA (with the producer or not): a mismatch with
    // this layout would run the kernel on the wrong shared-memory layout
    let bound = f
        .max_threads_per_block()
        .with_context(|| format!("{name}: launch bounds"))?;
    ensure!(
        bound as u32 == threads,
        "{name}: the PTX's launch bounds ({bound} threads) are not the host's layout ({threads}: {layout:?})"
    );
    let rows = if route.pack_gqa { GQA * chunk } else { chunk };
    let heads = if route.pack_gqa { KV_HEADS } else { Q_HEADS };
    let row_tiles = rows.div_ceil(rows_per_cta(route));
    let pos = cache.len - chunk;
    let sms = gpu.info.identity.multiprocessors as usize;
    let splits = launch_splits(sms, resident, route, cache.len, chunk)
        .min((ws.rows / (chunk * Q_HEADS)).max(1));
    let cfg = LaunchConfig {
        grid_dim: (row_tiles as u32, heads as u32, splits as u32),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    let (pos_i, chunk_i, kvh) = (pos as i32, chunk as i32, KV_HEADS as i32);
    let mut b = gpu.stream.launch_builder(f);
    b.arg(cache.pool)
        .arg(&cache.page_table)
        .arg(q)
        .arg(&mut *out)
        .arg(&pos_i)
        .arg(&chunk_i)
        .arg(&kvh)
        .arg(&mut ws.o)
        .arg(&mut ws.ml);
    unsafe { b.launch(cfg) }.with_context(|| format!("launching {name}"))?;
    if splits > 1 {
        let reduce = gpu.entry(variant, "reduce")?;
        let rows_out = chunk * Q_HEADS;
        let cfg = LaunchConfig {
            grid_dim: (rows_out as u32, 1, 1),
            block_dim: (HEAD_DIM as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let (rows_i, splits_i) = (rows_out as i32, splits as i32);
        let mut b = gpu.stream.launch_builder(&reduce);
        b.arg(&ws.o)
            .arg(&ws.ml)
            .arg(out)
            .arg(&rows_i)
            .arg(&splits_i);
        unsafe { b.launch(cfg) }.with_context(|| format!("launching {}_reduce", variant.name))?;
    }
    Ok(())
}

/// FLOPs of a chunk as SDPA benchmarks count causal attention: 4 x head dim x query heads
/// per visible (query, key) pair (Q.K and P.V, two FLOPs per multiply-add each); chunk
/// token `i` at position `pos + i` sees `pos + i + 1` keys.
pub fn causal_flops(pos: usize, chunk: usize) -> f64 {
    let pairs = chunk as f64 * pos as f64 + (chunk as f64) * (chunk as f64 + 1.0) / 2.0;
    4.0 * HEAD_DIM as f64 * Q_HEADS as f64 * pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory_fits_one_cta_on_sm90() {
        // opt-in maximum per block: 227 KB on sm_90 (two V tiles there: the wgmma build);
        // 163 KB on sm_80, where the int8 and rk8v4 kernels fit and rk4v4's (two FP16
        // tiles and FP16 query rows, 167 KB) does not; 99 KB on sm_86/89/120, where none
        // does. `attend_prompt` says so at launch.
        for route in PromptRoute::all() {
            for f in KvFormat::ALL {
                let b = smem_bytes(f, &route, PromptLayout::of(&route, true));
                assert!(b <= 227 * 1024, "{} {f:?}: {b}", route.label());
                let b = smem_bytes(f, &route, PromptLayout::of(&route, false));
                if f != KvFormat::Rk4v4 {
                    assert!(b <= 163 * 1024, "{} {f:?}: {b}", route.label());
                }
            }
        }
    }

    #[test]
    fn the_producer_warp_is_the_wgmma_builds_entries_without_pv16() {
        for route in PromptRoute::all() {
            for f in KvFormat::ALL {
                let standard = route.module().param("pair") == Some(0);
                let l = PromptLayout::of(&route, true);
                let expect = standard && !route.pv_f16;
                assert_eq!(l.producer, expect, "{} {f:?}", route.label());
                assert_eq!(l.v_tiles, if standard { 2 } else { 1 });
                assert_eq!(l.threads(&route), 256 + if expect { 128 } else { 0 });
                let base = PromptLayout::of(&route, false);
                assert_eq!((base.v_tiles, base.producer), (1, false));
            }
        }
        // With the producer (the template's ApLayout<FMT, 1>::TOTAL), 128 bytes of mbarriers:
        // int8: 3 stages of 33792, 2 V tiles, 128 query rows x 272, two K-scale tables of 1024;
        // rk4v4: 3 stages of 18432, 2 V tiles, the FP16 K tile, 128 FP16 query rows of 512,
        // the Lloyd-Max table, two K-scale tables of 2048 (unused: the scale is in the tile)
        let standard = PromptRoute::all()
            .into_iter()
            .find(|r| r.module().param("pair") == Some(0) && !r.pv_f16 && !r.pack_gqa)
            .unwrap();
        let l = PromptLayout::of(&standard, true);
        assert_eq!(smem_bytes(KvFormat::Int8, &standard, l), 203_904);
        let l = PromptLayout::of(&standard, true);
        assert_eq!(smem_bytes(KvFormat::Rk4v4, &standard, l), 224_384);
    }

    #[test]
    fn splits_fill_waves_and_respect_short_ranges() {
        // H200: 1024 tokens = 192 CTAs on 132 (1.45 waves, 73 %); 2 splits: 384 = 2.91 (97 %)
        assert_eq!(choose_splits(192, 132, 512), 2);
        // too few key tiles to split
        assert_eq!(choose_splits(192, 132, 10), 1);
        // a 16K prompt from empty: 3072 CTAs, first row tile has one key tile
        assert_eq!(choose_splits(3072, 132, 1), 1);
        // whole waves already
        assert_eq!(choose_splits(264, 132, 512), 1);
        for ctas in 1..400 {
            let s = choose_splits(ctas, 132, 1000);
            assert!((1..=MAX_SPLITS).contains(&s));
        }
    }

    #[test]
    fn causal_flops_of_a_square_prompt_and_a_chunk() {
        // 16K from empty: 16384 * 16385 / 2 pairs
        let f = causal_flops(0, 16384);
        assert_eq!(f, 4.0 * 256.0 * 24.0 * 16384.0 * 16385.0 / 2.0);
        let g = causal_flops(31744, 1024);
        assert_eq!(
            g,
            4.0 * 256.0 * 24.0 * (1024.0 * 31744.0 + 1024.0 * 1025.0 / 2.0)
        );
    }
}
