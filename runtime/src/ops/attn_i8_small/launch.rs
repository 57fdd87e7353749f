//! Host side of the decode attention on the GPU: route-key parsing, the split-KV plan,
//! the shared-memory arena each launch needs, and the two launches (split kernel, reduce).
//! Inference, check, bench and calibration all go through [`attend`].

use anyhow::{ensure, Context as _};
use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, LaunchConfig};
use half::bf16;

use crate::catalog::{self, Family, Variant};
use crate::gpu::launch::{launch, pinned_smem, KernelArgs, LaunchOrder};
use crate::gpu::Gpu;
use crate::ops::attn_prompt::launch::{tile_loop_bytes, PromptLayout};
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::{GQA, HEAD_DIM, KV_HEADS, PAGE_TOKENS, Q_HEADS};

/// Output dims of one reduce CTA (its `RED_D`): each row is merged by HEAD_DIM / this CTAs.
const REDUCE_DIMS: usize = 64;
/// Thread groups of a reduce CTA (its `RED_GROUPS`), each taking every 8th split.
const REDUCE_GROUPS: usize = 8;
/// Threads of a reduce CTA (its `RED_THREADS`: one thread per dim in each group).
const REDUCE_THREADS: u32 = (REDUCE_GROUPS * REDUCE_DIMS) as u32;

/// Widest query width one launch serves (the keys are `w1` .. `w8`).
pub const MAX_QUERY_WIDTH: usize = 8;

/// Most columns of one request (a chunk of verify columns) the workspace holds.
pub const MAX_REQUEST_COLUMNS: usize = 32;

pub fn family() -> &'static Family {
    catalog::family("attn_i8_small").expect("catalog.toml declares attn_i8_small")
}

/// A route key's instance `h<query heads>/<format>/w<W>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttnKey {
    pub format: KvFormat,
    /// New query columns per launch.
    pub width: usize,
}

impl AttnKey {
    pub fn parse(shape: &str) -> anyhow::Result<Self> {
        let parts: Vec<&str> = shape.split('/').collect();
        let [heads, format, width] = parts[..] else {
            anyhow::bail!("attention key {shape:?} is not h<heads>/<format>/w<W>");
        };
        ensure!(
            heads == format!("h{Q_HEADS}"),
            "attention key {shape:?}: this build's kernels serve {Q_HEADS} query heads over {KV_HEADS} KV heads"
        );
        let width: usize = width
            .strip_prefix('w')
            .and_then(|w| w.parse().ok())
            .with_context(|| format!("attention key {shape:?}: width is not w<number>"))?;
        ensure!(
            (1..=MAX_QUERY_WIDTH).contains(&width),
            "attention key {shape:?}: W must be 1..={MAX_QUERY_WIDTH}"
        );
        Ok(AttnKey {
            format: format.parse()?,
            width,
        })
    }

    /// The route key, `attn_i8_small/h24/<format>/w<W>`.
    pub fn route_key(&self) -> String {
        format!(
            "{}/h{Q_HEADS}/{}/w{}",
            family().name,
            self.format.name(),
            self.width
        )
    }

    /// Query rows of one KV head: its 6 query heads x W columns.
    pub fn rows(&self) -> usize {
        GQA * self.width
    }
}

fn param(variant: &Variant, name: &str) -> usize {
    variant
        .param(name)
        .unwrap_or_else(|| panic!("{}: schedule parameter {name}", variant.name)) as usize
}

/// The query-tile class a launch's entry point holds registers for: 8-row tiles of the
/// 6W rows, rounded up to the classes the template instantiates (1, 2, 3, 6).
pub fn tile_class(width: usize) -> usize {
    match (GQA * width).div_ceil(8) {
        0 | 1 => 1,
        2 => 2,
        3 => 3,
        _ => 6,
    }
}

/// Whether `variant` is the warpgroup schedule (`wgmma = 1`, suffix `w`): the prompt
/// kernel's tile loop on decode columns, one split partial per consumer warpgroup.
pub fn is_warpgroup(variant: &Variant) -> bool {
    param(variant, "wgmma") == 1
}

/// Split partials one CTA of `variant` writes.
pub fn partials_per_cta(variant: &Variant) -> usize {
    if is_warpgroup(variant) {
        2
    } else {
        1
    }
}

/// A warpgroup-schedule CTA where the device loads the architecture-specific PTX
/// (`specific`, wgmma) or not: the tile-loop layout and its ring of raw pages (the
/// template's `ApLayout<format, producer, 1>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpgroupCta {
    pub layout: PromptLayout,
    pub ring: usize,
}

impl WarpgroupCta {
    /// With the producer (wgmma, no FP16 P.V: the template's `Ws`), a ring of the
    /// schedule's `stages` pages (three) and three V tiles; else two pages and one V tile
    /// (two with wgmma).
    pub fn of(variant: &Variant, specific: bool, pv_f16: bool) -> Self {
        let producer = specific && !pv_f16;
        let (ring, v_tiles) = match (producer, specific) {
            (true, _) => (param(variant, "stages"), 3),
            (false, true) => (2, 2),
            (false, false) => (2, 1),
        };
        WarpgroupCta {
            layout: PromptLayout { v_tiles, producer },
            ring,
        }
    }

    /// Dynamic shared memory (64 query rows).
    pub fn smem_bytes(&self, format: KvFormat) -> usize {
        tile_loop_bytes(format, 64, self.ring, self.layout)
    }
}

/// Dynamic shared memory of one CTA of an mma.sync schedule: the cp.async ring plus the
/// query-row buffers (the kernel's `Layout` and `Arena`, in the same order).
pub fn smem_bytes(format: KvFormat, variant: &Variant, width: usize) -> usize {
    let kb = param(variant, "key_block");
    let stages = param(variant, "stages");
    let rows = if param(variant, "dyn_smem") == 1 {
        (GQA * width).div_ceil(8) * 8
    } else {
        GQA * MAX_QUERY_WIDTH
    };
    let (kcb, vcb) = (format.k_code_bytes(), format.v_code_bytes());
    let stage = kb * kcb + kb * vcb + kb * 2 * format.k_groups() + kb * 2 * format.v_groups();
    let int8_k = format.k_bits() == 8;
    let q_row = if int8_k {
        HEAD_DIM + 16
    } else {
        2 * HEAD_DIM + 16
    };
    let q_scales = if int8_k { HEAD_DIM / 64 * 4 } else { 0 };
    let scores = (kb + 4) * 4;
    let probs = (kb + 8) * 2;
    let lut = if int8_k { 0 } else { 1024 };
    stages * stage + rows * (q_row + q_scales + scores + probs + 4) + lut
}

/// How a window is cut over CTAs: `splits` CTAs per KV head, each over
/// `keys_per_split` keys (a multiple of the key block), the last one shorter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitPlan {
    pub splits: usize,
    pub keys_per_split: usize,
}

/// The wave sets the length of a split: one wave of CTAs (SMs x CTAs per SM / KV heads
/// splits per head) could take the window at `ceil(blocks / wave)` key blocks each, so
/// every split gets that many (the last one fewer), none is empty, and the count is what
/// that length needs: at most one wave, sometimes fewer (67 blocks on a 66-split wave:
/// 34 splits of 2). Spreading the remainder over the idle CTAs would not shorten the
/// kernel, whose length is its longest split's, and would hand the reduce more partials.
pub fn split_plan(
    sms: usize,
    ctas_per_sm: usize,
    kv_heads: usize,
    key_block: usize,
    len: usize,
) -> SplitPlan {
    let blocks = len.div_ceil(key_block).max(1);
    let wave = (sms * ctas_per_sm / kv_heads).max(1);
    let per_split = blocks.div_ceil(wave.min(blocks));
    let keys_per_split = per_split * key_block;
    SplitPlan {
        splits: len.max(1).div_ceil(keys_per_split),
        keys_per_split,
    }
}

/// The widest split count any candidate can ask on this device (workspace sizing).
pub fn max_splits(sms: usize) -> usize {
    family()
        .candidates
        .iter()
        .map(|&i| &catalog::VARIANTS[i])
        .map(|v| (sms * param(v, "ctas_per_sm") / KV_HEADS).max(1) * partials_per_cta(v))
        .max()
        .unwrap_or(1)
}

/// Split partials: unnormalized outputs and (max, sum) per (KV head, split, row).
pub struct Workspace {
    pub o: CudaSlice<f32>,
    pub ml: CudaSlice<f32>,
    pub max_splits: usize,
    /// At most this many splits per KV head (`ninfer check`: splits of many key blocks,
    /// so that the kernels' rings wrap; a full wave leaves a few blocks per split).
    pub split_cap: Option<usize>,
}

impl Workspace {
    pub fn new(gpu: &Gpu) -> anyhow::Result<Self> {
        let max_splits = max_splits(gpu.info.identity.multiprocessors as usize);
        let rows = KV_HEADS * max_splits * GQA * MAX_REQUEST_COLUMNS;
        Ok(Workspace {
            o: gpu.stream.alloc_zeros(rows * HEAD_DIM)?,
            ml: gpu.stream.alloc_zeros(rows * 2)?,
            max_splits,
            split_cap: None,
        })
    }
}

/// A paged cache on the GPU as the kernels read it (docs/formats.md "Pages"): the pool
/// `[physical page][KV head][page bytes]` and the page table from the first logical page.
pub struct CacheView<'a> {
    pub format: KvFormat,
    pub pool: &'a CudaSlice<u8>,
    pub page_table: CudaView<'a, i32>,
    /// Tokens in the cache (the W new ones included).
    pub len: usize,
}

impl CacheView<'_> {
    /// Errors unless `q` and `out` hold `columns` rows of 24 x 256 and the page table covers
    /// the cache (`what`: the op, for the message).
    pub fn check_launch(
        &self,
        what: &str,
        q: usize,
        out: usize,
        columns: usize,
    ) -> anyhow::Result<()> {
        ensure!(
            q >= columns * Q_HEADS * HEAD_DIM && out >= columns * Q_HEADS * HEAD_DIM,
            "{what}: q or out holds fewer than {columns} x {Q_HEADS} x {HEAD_DIM} values"
        );
        let pages = self.len.div_ceil(PAGE_TOKENS);
        ensure!(
            self.page_table.len() >= pages,
            "{what}: page table has {} entries, the cache of {} tokens needs {pages}",
            self.page_table.len(),
            self.len
        );
        Ok(())
    }
}

/// One attention launch pair (split kernel, reduce): `out[C][24][256]` (BF16) for the
/// C = `tiles` x `width` query columns `q[C][24][256]` against the cache, whose last C
/// tokens are the columns' own; `tiles` > 1 runs them as parallel query tiles of `width`
/// columns in one grid. Through `variant`, FP16 P.V accumulation when `pv_f16`.
#[allow(clippy::too_many_arguments)]
pub fn attend(
    gpu: &Gpu,
    variant: &'static Variant,
    pv_f16: bool,
    cache: &CacheView,
    q: &CudaView<bf16>,
    width: usize,
    tiles: usize,
    ws: &mut Workspace,
    out: &mut CudaViewMut<bf16>,
) -> anyhow::Result<()> {
    let columns = width * tiles;
    ensure!(
        (1..=MAX_QUERY_WIDTH).contains(&width)
            && columns <= MAX_REQUEST_COLUMNS
            && cache.len >= columns,
        "attention: need 1 <= W <= {MAX_QUERY_WIDTH}, at most {MAX_REQUEST_COLUMNS} columns in all, \
         and no more columns than cached tokens (W = {width}, {tiles} tiles, length {})",
        cache.len
    );
    cache.check_launch("attention", q.len(), out.len(), columns)?;
    let pv = if pv_f16 { "_pv16" } else { "" };
    let (suffix, threads, smem) = if is_warpgroup(variant) {
        let cta = WarpgroupCta::of(variant, gpu.ptx_for(variant).specific, pv_f16);
        (
            format!("{}{pv}", cache.format.name()),
            variant.launch.threads + if cta.layout.producer { 128 } else { 0 },
            cta.smem_bytes(cache.format),
        )
    } else {
        (
            format!("{}_n{}{pv}", cache.format.name(), tile_class(width)),
            variant.launch.threads,
            smem_bytes(cache.format, variant, width),
        )
    };
    // Whole waves of the CTAs that really fit (registers and shared memory of this
    // entry point at this W), at most the schedule's ctas_per_sm.
    let entry = gpu.sized_entry(variant, &suffix, threads, smem)?;
    // the launch bounds are the CTA the layout was computed for (the producer or not)
    let bound = entry
        .function
        .max_threads_per_block()
        .with_context(|| format!("{}: launch bounds", entry.name))?;
    ensure!(
        bound as u32 == threads,
        "{}: the PTX's launch bounds ({bound} threads) are not the host's CTA ({threads})",
        entry.name
    );
    let (f, name, resident) = (&entry.function, &entry.name, entry.resident);
    let ctas_per_sm = param(variant, "ctas_per_sm").min(resident);
    let key_block = param(variant, "key_block");
    let mut plan = split_plan(
        gpu.info.identity.multiprocessors as usize,
        ctas_per_sm,
        KV_HEADS,
        key_block,
        cache.len,
    );
    if let Some(cap) = ws.split_cap.filter(|&c| c >= 1 && c < plan.splits) {
        let keys_per_split = cache.len.div_ceil(cap).next_multiple_of(key_block);
        plan = SplitPlan {
            splits: cache.len.div_ceil(keys_per_split),
            keys_per_split,
        };
    }
    // Both kernels as programmatic dependent launches where the PTX has the waits (sm_90):
    // the split kernel fetches its first old key blocks while the kernel ahead finishes,
    // the reduce is resident when the split kernel ends. Launched early, the split CTAs
    // land wherever they fit as the SMs drain, so the shared memory is padded until no
    // SM fits more than the plan's CTAs per SM (else some SMs took three CTAs of a
    // two-per-SM plan: 11-24 % slower at 64K-262K on the H200, docs/perf-notes-attn.md).
    let pdl = gpu.pdl_for(variant, LaunchOrder::First);
    let smem = if pdl {
        let padded = pinned_smem(
            smem,
            ctas_per_sm,
            gpu.info.smem_per_sm,
            gpu.info.smem_reserved_per_cta,
        );
        gpu.allow_dynamic_shared(f, name, padded)?;
        padded
    } else {
        smem
    };
    let partials = plan.splits * partials_per_cta(variant);
    ensure!(
        partials <= ws.max_splits,
        "attention: {partials} split partials are more than the workspace ({}) holds",
        ws.max_splits
    );
    let cfg = LaunchConfig {
        grid_dim: (plan.splits as u32, KV_HEADS as u32, tiles as u32),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    let (len_i, w_i, kps_i, kvh_i) = (
        cache.len as i32,
        width as i32,
        plan.keys_per_split as i32,
        KV_HEADS as i32,
    );
    let mut args = KernelArgs::new();
    args.buffer(gpu, cache.pool)
        .buffer(gpu, &cache.page_table)
        .buffer(gpu, q)
        .buffer(gpu, &ws.o)
        .buffer(gpu, &ws.ml)
        .value(len_i)
        .value(w_i)
        .value(kps_i)
        .value(kvh_i);
    unsafe { launch(gpu, f, cfg, &mut args, pdl, name) }?;

    let reduce_grid = (GQA * width * HEAD_DIM / REDUCE_DIMS, KV_HEADS, tiles);
    let reduce = gpu.entry(
        variant,
        reduce_entry(
            reduce_grid.0 * reduce_grid.1 * reduce_grid.2,
            gpu.info.identity.multiprocessors as usize,
            partials,
        ),
    )?;
    let cfg = LaunchConfig {
        grid_dim: (
            reduce_grid.0 as u32,
            reduce_grid.1 as u32,
            reduce_grid.2 as u32,
        ),
        block_dim: (REDUCE_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let splits_i = partials as i32;
    let mut args = KernelArgs::new();
    args.buffer(gpu, &ws.o)
        .buffer(gpu, &ws.ml)
        .buffer(gpu, out)
        .value(splits_i)
        .value(w_i)
        .value(kvh_i);
    let pdl = gpu.pdl_for(variant, LaunchOrder::Second);
    unsafe {
        launch(
            gpu,
            &reduce,
            cfg,
            &mut args,
            pdl,
            &format!("{}_reduce", variant.name),
        )
    }?;
    Ok(())
}

/// The reduce entry point for a grid of `ctas` over `splits` partials: `reduce_b8` (eight
/// splits' loads in flight per thread, about 58 registers: two CTAs per SM) while the grid
/// fits one wave of it and a thread has more than the two splits `reduce` loads at once
/// (more than 16 splits), else `reduce` (32 registers, four CTAs per SM). On the H200,
/// W = 1, calibrated routes: 8K 12.0 -> 11.1 µs, 64K 42.3 -> 41.3; with 16 splits (1K) and
/// at W = 8 (768 CTAs) `reduce_b8` was 5 % and up to 9 % slower.
pub fn reduce_entry(ctas: usize, sms: usize, splits: usize) -> &'static str {
    if ctas <= 2 * sms && splits > 2 * REDUCE_GROUPS {
        "reduce_b8"
    } else {
        "reduce"
    }
}

/// The largest tile width in 2..=8 that divides `columns` (parallel query tiles), if any.
pub fn parallel_tile_width(columns: usize) -> Option<usize> {
    (2..=MAX_QUERY_WIDTH)
        .rev()
        .find(|&w| columns.is_multiple_of(w) && columns / w > 1)
}

/// The variant device `ordinal`'s installed route table names for launches of `width`
/// columns of `format` over a `window`-token cache (the compiled route where the table
/// names a schedule this build lacks, which `profile check` reports).
pub fn installed_variant(
    ordinal: usize,
    format: KvFormat,
    width: usize,
    window: usize,
) -> &'static Variant {
    let key = AttnKey { format, width }.route_key();
    let schedule = crate::profile::lookup::schedule_on(ordinal, &key, window as u32);
    family()
        .candidate(schedule)
        .unwrap_or_else(|| family().compiled_variant(window as u32))
}

/// A request of `columns` query columns (the cache's last `columns` tokens are theirs):
/// one launch pair over parallel query tiles when `parallel` and a 2-8 column tile
/// divides `columns`, else serial chunks of at most 8 columns, each chunk seeing the
/// cache up to its own last column. `route(w, window)` names the variant for chunks or
/// tiles of `w` columns.
#[allow(clippy::too_many_arguments)]
pub fn attend_columns(
    gpu: &Gpu,
    route: &dyn Fn(usize, usize) -> &'static Variant,
    parallel: bool,
    pv_f16: bool,
    cache: &CacheView,
    q: &CudaView<bf16>,
    columns: usize,
    ws: &mut Workspace,
    out: &mut CudaViewMut<bf16>,
) -> anyhow::Result<()> {
    if parallel {
        if let Some(w) = parallel_tile_width(columns) {
            return attend(
                gpu,
                route(w, cache.len),
                pv_f16,
                cache,
                q,
                w,
                columns / w,
                ws,
                out,
            );
        }
    }
    crate::ops::routed::split_launches(columns, MAX_QUERY_WIDTH, |first, w| {
        attend_chunk(gpu, route, pv_f16, cache, q, columns, first, w, ws, out)
    })
}

/// One serial chunk of a request of `columns` columns: columns `first..first + w`, each
/// seeing the cache up to the chunk's last column.
#[allow(clippy::too_many_arguments)]
pub fn attend_chunk(
    gpu: &Gpu,
    route: &dyn Fn(usize, usize) -> &'static Variant,
    pv_f16: bool,
    cache: &CacheView,
    q: &CudaView<bf16>,
    columns: usize,
    first: usize,
    w: usize,
    ws: &mut Workspace,
    out: &mut CudaViewMut<bf16>,
) -> anyhow::Result<()> {
    let row = Q_HEADS * HEAD_DIM;
    let len = cache.len - columns + first + w;
    let chunk = CacheView {
        format: cache.format,
        pool: cache.pool,
        page_table: cache.page_table.slice(..),
        len,
    };
    let qv = q.slice(first * row..);
    let mut ov = out.slice_mut(first * row..);
    attend(gpu, route(w, len), pv_f16, &chunk, &qv, w, 1, ws, &mut ov)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::VARIANTS;

    #[test]
    fn keys_parse() {
        let k = AttnKey::parse("h24/rk8v4/w3").unwrap();
        assert_eq!((k.format, k.width, k.rows()), (KvFormat::Rk8v4, 3, 18));
        for bad in [
            "h24/int8",
            "h32/int8/w1",
            "h24/int4/w1",
            "h24/int8/w9",
            "h24/int8/w0",
            "h24/int8/x1",
        ] {
            assert!(AttnKey::parse(bad).is_err(), "{bad}");
        }
        for shape in family().keys {
            let key = AttnKey::parse(shape).unwrap();
            assert_eq!(key.route_key(), format!("attn_i8_small/{shape}"));
        }
    }

    #[test]
    fn reduce_entry_keeps_the_batched_merge_to_one_wave() {
        // H200: W = 1 and 2 (96, 192 CTAs) fit 264; W = 3 (288) and W = 8 (768) do not.
        let ctas = |w: usize| GQA * w * HEAD_DIM / REDUCE_DIMS * KV_HEADS;
        assert_eq!(reduce_entry(ctas(1), 132, 64), "reduce_b8");
        assert_eq!(reduce_entry(ctas(2), 132, 99), "reduce_b8");
        assert_eq!(reduce_entry(ctas(3), 132, 99), "reduce");
        assert_eq!(reduce_entry(ctas(8), 132, 99), "reduce");
        // A short window: two splits per thread, what `reduce` loads at once.
        assert_eq!(reduce_entry(ctas(1), 132, 16), "reduce");
        // Two parallel tiles of W = 2 on a 40-SM card: 384 CTAs > 80.
        assert_eq!(reduce_entry(2 * ctas(2), 40, 99), "reduce");
    }

    /// No split is longer than one wave's even share, `ceil(blocks / wave)` blocks, for
    /// every schedule of the catalog at every calibrated window and a few odd lengths.
    #[test]
    fn no_split_is_longer_than_a_waves_even_share() {
        let windows = family().widths.iter().map(|&w| w as usize);
        for window in windows.chain([1, 4288, 8191, 100_000]) {
            for &i in family().candidates {
                let v = &VARIANTS[i];
                let (cps, kb) = (param(v, "ctas_per_sm"), param(v, "key_block"));
                let wave = 132 * cps / 4;
                let blocks = window.div_ceil(kb);
                let p = split_plan(132, cps, 4, kb, window);
                assert_eq!(
                    p.keys_per_split,
                    blocks.div_ceil(wave) * kb,
                    "{} at {window}",
                    v.name
                );
                assert!(p.splits <= wave, "{} at {window}", v.name);
            }
        }
    }

    #[test]
    fn split_plans_fill_whole_waves_and_cover_the_window() {
        // H200: 132 SMs x 2 CTAs / 4 KV heads = 66 splits.
        let p = split_plan(132, 2, 4, 64, 262144);
        assert_eq!(p.splits, 66);
        assert!(p.splits * p.keys_per_split >= 262144);
        assert!((p.splits - 1) * p.keys_per_split < 262144);
        assert_eq!(p.keys_per_split % 64, 0);
        // A short window: one block per split, no empty split.
        let p = split_plan(132, 2, 4, 64, 100);
        assert_eq!((p.splits, p.keys_per_split), (2, 64));
        let p = split_plan(132, 2, 4, 64, 1);
        assert_eq!((p.splits, p.keys_per_split), (1, 64));
        for len in [1usize, 63, 64, 65, 4133, 65536, 262143] {
            for (cps, kb) in [(1, 128), (3, 32), (4, 32)] {
                let p = split_plan(132, cps, 4, kb, len);
                assert!(
                    p.splits * p.keys_per_split >= len && (p.splits - 1) * p.keys_per_split < len
                );
                assert!(p.splits <= 132 * cps / 4);
            }
        }
    }

    #[test]
    fn parallel_tiles_take_the_widest_2_to_8_divisor() {
        assert_eq!(parallel_tile_width(16), Some(8));
        assert_eq!(parallel_tile_width(32), Some(8));
        assert_eq!(parallel_tile_width(21), Some(7));
        assert_eq!(parallel_tile_width(17), None);
        assert_eq!(parallel_tile_width(8), Some(4)); // 2 tiles of 4
        assert_eq!(parallel_tile_width(1), None);
    }

    #[test]
    fn tile_classes_hold_every_row() {
        for w in 1..=MAX_QUERY_WIDTH {
            assert!(tile_class(w) * 8 >= GQA * w, "W = {w}");
        }
        assert_eq!(
            (1..=8).map(tile_class).collect::<Vec<_>>(),
            [1, 2, 3, 3, 6, 6, 6, 6]
        );
    }

    #[test]
    fn the_warpgroup_cta_is_the_templates_dec_layout() {
        let v = family()
            .candidates
            .iter()
            .map(|&i| &VARIANTS[i])
            .find(|v| is_warpgroup(v))
            .expect("a warpgroup schedule");
        // with the producer: three pages, three V tiles; the template's
        // ApLayout<0, 1, 1>::TOTAL for int8 (3 x 33792 + 3 x 32768 + 64 x 272 + 3 x 1024 + 128)
        let cta = WarpgroupCta::of(v, true, false);
        assert_eq!(
            (cta.ring, cta.layout.v_tiles, cta.layout.producer),
            (3, 3, true)
        );
        assert_eq!(cta.smem_bytes(KvFormat::Int8), 220_288);
        // FP16 P.V on sm_90a: no producer, two V tiles; the mma.sync builds: one
        assert_eq!(WarpgroupCta::of(v, true, true).layout.v_tiles, 2);
        assert!(!WarpgroupCta::of(v, true, true).layout.producer);
        assert_eq!(WarpgroupCta::of(v, false, false).layout.v_tiles, 1);
        assert_eq!(partials_per_cta(v), 2);
    }

    #[test]
    fn every_schedule_fits_in_shared_memory_at_w1() {
        // 227 KiB is the per-block limit on sm_90; a schedule sized for more CTAs than fit
        // still runs (calibration measures it), but one CTA must fit.
        for &i in family().candidates {
            let v = &VARIANTS[i];
            for f in KvFormat::ALL {
                let bytes = if is_warpgroup(v) {
                    WarpgroupCta::of(v, true, false).smem_bytes(f)
                } else {
                    smem_bytes(f, v, 1)
                };
                assert!(bytes <= 227 * 1024, "{} {f}: {bytes}", v.name);
            }
        }
    }
}
