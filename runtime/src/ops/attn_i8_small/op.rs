//! `attn_i8_small` as a routed op for check, bench and calibration. The route width is
//! the KV window: `forward(copy, t)` attends the key's W query columns to a cache of `t`
//! tokens.
//!
//! Timing: one pool holds the widest window; "copy" `c` of a window of `t` tokens is
//! the page-table slice starting at logical page `c * pages(t)` (the table is the
//! identity), so consecutive launches of a short window read disjoint pages and come
//! from HBM, like weight copies do for the projections. Synthetic pools are random
//! codes with random in-range scales, generated on every core.
//!
//! Check: a real cache (random BF16 rows appended through the CPU append rule, pages
//! permuted so the page table matters) of [`CHECK_TOKENS`] tokens, windows not multiples
//! of the page or key block, every variant with FP32 and FP16 P.V accumulation, against
//! the f64 reference of `ops::kv::reference` on the queries as the kernels quantize them
//! ([`kernel_queries`]).

use std::collections::BTreeMap;

use anyhow::Context as _;
use cudarc::driver::CudaSlice;
use half::{bf16, f16};
use rand::{Rng, SeedableRng};

use super::launch::{
    self as attn, AttnKey, CacheView, Workspace, MAX_QUERY_WIDTH, MAX_REQUEST_COLUMNS,
};
use super::switches;
use crate::catalog::{Family, Variant};
use crate::check::{compare_rows, poison};
use crate::gpu::Gpu;
use crate::ops::groupwise::par_chunks;
use crate::ops::kv::cache::KvCache;
use crate::ops::kv::format::KvFormat;
use crate::ops::kv::reference;
use crate::ops::kv::{HEAD_DIM, KV_HEADS, PAGE_TOKENS, Q_HEADS};
use crate::ops::q6_head::synthetic::splitmix64;
use crate::ops::routed::{check_outcome, Choose, HelperCheck, Prepared, RoutedOp};

/// Tokens of the checked cache: 64 pages and 37 tokens (a partial last page).
pub const CHECK_TOKENS: usize = 64 * PAGE_TOKENS + 37;
/// Windows every variant is checked at: a single page's worth of new tokens, partial
/// pages and key blocks, exact pages, a whole cache with a partial last page.
pub const CHECK_WINDOWS: [usize; 7] = [8, 33, 64, 100, 129, 1000, CHECK_TOKENS];
/// Splits per KV head of the long-split check at the whole cache (22 pages each).
const LONG_SPLITS: usize = 3;

pub struct AttnI8Small;

impl RoutedOp for AttnI8Small {
    fn family(&self) -> &'static Family {
        attn::family()
    }

    fn max_launch_width(&self) -> usize {
        *self.family().compiled.last().map(|(w, _)| w).unwrap_or(&1) as usize
    }

    /// The cache of the shortest calibrated window (`copies_at` below sizes each
    /// window's rotation itself).
    fn weight_bytes(&self, shape: &str) -> anyhow::Result<usize> {
        let key = AttnKey::parse(shape)?;
        let shortest = attn::family().widths.first().copied().unwrap_or(1) as usize;
        Ok(shortest * KV_HEADS * key.format.token_bytes())
    }

    fn copies_at(&self, l2_bytes: usize, shape: &str, t: usize) -> anyhow::Result<usize> {
        let key = AttnKey::parse(shape)?;
        Ok(crate::bench::weight_copies(
            l2_bytes,
            t.max(1) * KV_HEADS * key.format.token_bytes(),
        ))
    }

    fn check_tokens(&self) -> usize {
        CHECK_TOKENS
    }

    fn check_widths(&self, _variant: &Variant) -> Vec<usize> {
        CHECK_WINDOWS.to_vec()
    }

    fn forward_check_widths(&self) -> Vec<usize> {
        vec![777, CHECK_TOKENS]
    }

    fn prepare(
        &self,
        gpu: &Gpu,
        shape: &str,
        seed: u64,
        _copies: usize,
        tokens: usize,
    ) -> anyhow::Result<Box<dyn Prepared>> {
        Ok(Box::new(AttnPrepared::new(
            gpu,
            AttnKey::parse(shape)?,
            seed,
            tokens,
        )?))
    }
}

/// FP16 against FP32 P.V accumulation over a 262,144-token window (random cache, the
/// compiled route): relative L2 difference of the two outputs, within the row tolerance
/// of `ninfer check`. FP16 partial sums per key tile (at most 128 keys of P <= 1 times V)
/// are folded into FP32, so the window's length does not grow the error.
fn pv_f16_at_262k(gpu: &Gpu, format: KvFormat, seed: u64) -> anyhow::Result<HelperCheck> {
    const WINDOW: usize = 262_144;
    let key = AttnKey { format, width: 1 };
    let mut inst = AttnPrepared::new(gpu, key, seed, WINDOW)?;
    let variant = attn::family().compiled_variant(WINDOW as u32);
    let mut run = |pv: bool| -> anyhow::Result<Vec<f64>> {
        inst.launch(gpu, variant, pv, 0, WINDOW)?;
        gpu.sync()?;
        inst.output_columns(gpu, 1)
    };
    let fp32 = run(false)?;
    let fp16 = run(true)?;
    let error = crate::ops::routed::relative_difference(&fp16, &fp32);
    let pass = error.is_finite() && error <= crate::check::ROW_TOLERANCE;
    Ok(HelperCheck {
        variant: format!("{} fp16 P.V vs fp32 at {WINDOW} keys", variant.name),
        error,
        pass,
        note: if pass {
            String::new()
        } else {
            format!("relative difference {error:.2e}")
        },
    })
}

/// Random BF16 K/V rows (Gaussian, a few outlier channels) appended in uneven chunks
/// through the CPU append rule, then the physical pages permuted.
/// The K a variant's kernels compute with, for its f64 reference: the format's
/// dequantized K, or (rk4v4 on the warpgroup schedule, which runs attn_prompt's tile loop)
/// the prompt kernels' FP16 K tile, whose two FP16 roundings moved a near-cancelling output
/// element of a 64-key window by 6 % in both of its builds alike (seed 1796209860276383691,
/// docs/results/h200-2026-12-02d call 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum KModel {
    Format,
    PromptTile,
}

impl KModel {
    fn of(variant: &Variant, format: KvFormat) -> KModel {
        if format == KvFormat::Rk4v4 && variant.param("wgmma") == Some(1) {
            KModel::PromptTile
        } else {
            KModel::Format
        }
    }

    /// The models a key's variants may need.
    fn used_by(format: KvFormat) -> Vec<KModel> {
        if format == KvFormat::Rk4v4 {
            vec![KModel::Format, KModel::PromptTile]
        } else {
            vec![KModel::Format]
        }
    }

    /// (K, V) per KV head under this model.
    fn dequantized(self, cache: &KvCache) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
        let (k, v) = reference::dequantized(cache);
        match self {
            KModel::Format => (k, v),
            KModel::PromptTile => (crate::ops::attn_prompt::check::kernel_k_tile(cache), v),
        }
    }
}

pub(crate) fn checked_cache(format: KvFormat, tokens: usize, seed: u64) -> KvCache {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut cache = KvCache::new(format, KV_HEADS);
    let row = |rng: &mut rand::rngs::StdRng| -> Vec<bf16> {
        (0..KV_HEADS * HEAD_DIM)
            .map(|i| {
                let g: f64 = (0..4).map(|_| rng.random::<f64>() - 0.5).sum::<f64>() * 1.7;
                let outlier = if i % HEAD_DIM == 7 || i % HEAD_DIM == 200 {
                    6.0
                } else {
                    1.0
                };
                bf16::from_f64(g * outlier)
            })
            .collect()
    };
    let mut done = 0;
    for chunk in [1usize, 63, 2, 130, usize::MAX].iter().cycle() {
        if done == tokens {
            break;
        }
        let n = (*chunk).min(tokens - done);
        let (mut k, mut v) = (Vec::new(), Vec::new());
        for _ in 0..n {
            k.extend(row(&mut rng));
            v.extend(row(&mut rng));
        }
        cache.append(&k, &v, n);
        done += n;
    }
    let pages = cache.page_table().len();
    let mut perm: Vec<usize> = (0..pages).collect();
    for i in (1..pages).rev() {
        perm.swap(i, rng.random_range(0..=i));
    }
    cache.permute_pages(&perm);
    cache
}

/// Pages of random codes; scales random in [0.5, 1.5) x the format's unit (absmax/127,
/// absmax/7, RMS 1), so dequantized values are O(1).
pub(crate) fn random_pool(format: KvFormat, pages: usize, seed: u64) -> Vec<u8> {
    let block = format.page_bytes();
    let mut pool = vec![0u8; pages * KV_HEADS * block];
    par_chunks(&mut pool, block, |first, chunk| {
        for (bi, b) in chunk.chunks_mut(block).enumerate() {
            let mut st = seed ^ ((first + bi) as u64).wrapping_mul(0xd134_2543_de82_ef95);
            for w in b.chunks_mut(8) {
                let r = splitmix64(&mut st).to_le_bytes();
                w.copy_from_slice(&r[..w.len()]);
            }
            let scale = |st: &mut u64, unit: f64| {
                let u = (splitmix64(st) >> 11) as f64 / (1u64 << 53) as f64;
                f16::from_f64((0.5 + u) * unit).to_le_bytes()
            };
            let k_unit = if format.k_bits() == 8 {
                1.0 / 127.0
            } else {
                1.0
            };
            let v_unit = if format.v_bits() == 8 {
                1.0 / 127.0
            } else {
                1.0 / 7.0
            };
            let (ks, vs) = (format.k_scales_offset(), format.v_scales_offset());
            for i in 0..PAGE_TOKENS * format.k_groups() {
                b[ks + 2 * i..ks + 2 * i + 2].copy_from_slice(&scale(&mut st, k_unit));
            }
            for i in 0..PAGE_TOKENS * format.v_groups() {
                b[vs + 2 * i..vs + 2 * i + 2].copy_from_slice(&scale(&mut st, v_unit));
            }
        }
    });
    pool
}

/// The queries as the kernels multiply them (docs/formats.md "Queries"): for int8 K,
/// int8 per 64-group with an fp32 scale absmax/127 (code = rint(x * (127 / absmax)) in
/// fp32); for Lloyd-Max K, FP16. The f64 reference then differs from the kernels only
/// by their FP16 probabilities and V tiles, which `compare_rows`' tolerance covers.
pub fn kernel_queries(format: KvFormat, q: Vec<f64>) -> Vec<f64> {
    if format.k_bits() != 8 {
        return q.into_iter().map(|x| f16::from_f64(x).to_f64()).collect();
    }
    q.chunks(64)
        .flat_map(|g| {
            let x: Vec<f32> = g.iter().map(|&v| v as f32).collect();
            let a = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let (scale, inv) = (a / 127.0, if a > 0.0 { 127.0 / a } else { 0.0 });
            x.into_iter()
                .map(move |v| ((v * inv).round_ties_even() * scale) as f64)
        })
        .collect()
}

pub(crate) fn random_queries(width: usize, seed: u64) -> Vec<bf16> {
    random_bf16(width * Q_HEADS * HEAD_DIM, seed)
}

/// `count` random BF16 values, roughly normal with a spread of about 1.
fn random_bf16(count: usize, seed: u64) -> Vec<bf16> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| bf16::from_f64((0..4).map(|_| rng.random::<f64>() - 0.5).sum::<f64>() * 1.7))
        .collect()
}

pub struct AttnPrepared {
    key: AttnKey,
    tokens: usize,
    pages: usize,
    pool: CudaSlice<u8>,
    page_table: CudaSlice<i32>,
    q: CudaSlice<bf16>,
    /// `2 x 32 x 24 x 256`: columns past a launch's stay poisoned (catches stray writes).
    out: CudaSlice<bf16>,
    ws: Workspace,
    q_host: Vec<bf16>,
    cpu: Option<KvCache>,
    /// f64 reference per K model (`KModel`) and checked window.
    references: BTreeMap<(KModel, usize), Vec<f64>>,
    /// Per K model and checked window: the attention output over |V| (sum_j p_j |v_j| / l),
    /// which bounds what FP16 P.V accumulation may round
    /// (`check::compare_rows_fp16_accumulated`).
    magnitudes: BTreeMap<(KModel, usize), Vec<f64>>,
    /// f64 reference of 2W columns at the whole checked cache (parallel query tiles) per K
    /// model, computed at its first use.
    tiles_reference: BTreeMap<KModel, Vec<f64>>,
    pv_f16: bool,
    /// The K and V rows a request appends (`run_request`): `[32][4][256]` BF16 each.
    new_k: CudaSlice<bf16>,
    new_v: CudaSlice<bf16>,
}

impl AttnPrepared {
    /// A cache of `tokens` tokens for `key`'s format and queries for 32 columns (the
    /// key's W first): built by the append rule up to [`CHECK_TOKENS`], random bytes
    /// past that.
    pub fn new(gpu: &Gpu, key: AttnKey, seed: u64, tokens: usize) -> anyhow::Result<Self> {
        let tokens = tokens.max(MAX_REQUEST_COLUMNS);
        let (pool_host, table, cpu) = if tokens <= CHECK_TOKENS {
            let cache = checked_cache(key.format, tokens, seed);
            let table: Vec<i32> = cache.page_table().iter().map(|&p| p as i32).collect();
            (cache.pool().to_vec(), table, Some(cache))
        } else {
            let pages = tokens.div_ceil(PAGE_TOKENS);
            let pool = random_pool(key.format, pages, seed);
            (pool, (0..pages as i32).collect(), None)
        };
        let q_host = random_queries(MAX_REQUEST_COLUMNS, seed ^ 0x9e37);
        // the K and V rows a request appends (`run_request`)
        let new_rows = MAX_REQUEST_COLUMNS * KV_HEADS * HEAD_DIM;
        Ok(AttnPrepared {
            key,
            tokens,
            pages: table.len(),
            pool: gpu.stream.clone_htod(&pool_host)?,
            page_table: gpu.stream.clone_htod(&table)?,
            q: gpu.stream.clone_htod(&q_host)?,
            out: gpu
                .stream
                .alloc_zeros(2 * MAX_REQUEST_COLUMNS * Q_HEADS * HEAD_DIM)?,
            ws: Workspace::new(gpu)?,
            q_host,
            cpu,
            references: BTreeMap::new(),
            magnitudes: BTreeMap::new(),
            tiles_reference: BTreeMap::new(),
            pv_f16: switches::smallt_pv_f16(gpu.info.ordinal),
            new_k: gpu
                .stream
                .clone_htod(&random_bf16(new_rows, seed ^ 0x4b4b))?,
            new_v: gpu
                .stream
                .clone_htod(&random_bf16(new_rows, seed ^ 0x5656))?,
        })
    }

    /// The first page of "copy" `copy` of a `window`-token window: the prepared pages hold
    /// as many disjoint windows as fit, and copies rotate over them.
    fn first_page(&self, copy: usize, window: usize) -> usize {
        let pages = window.div_ceil(PAGE_TOKENS);
        (copy % (self.pages / pages).max(1)) * pages
    }

    /// The cache of "copy" `copy` of a `window`-token window (module docs), and the
    /// buffers a launch writes.
    fn parts(
        &mut self,
        copy: usize,
        window: usize,
    ) -> (
        CacheView<'_>,
        &CudaSlice<bf16>,
        &mut Workspace,
        &mut CudaSlice<bf16>,
    ) {
        let first = self.first_page(copy, window);
        let cache = CacheView {
            format: self.key.format,
            pool: &self.pool,
            page_table: self.page_table.slice(first..),
            len: window,
        };
        (cache, &self.q, &mut self.ws, &mut self.out)
    }

    /// A request of `columns` query columns against a `window`-token cache (the last
    /// `columns` tokens are theirs), serial chunks or parallel tiles, the tiles' or
    /// chunks' schedules from `route(width, window)`.
    #[allow(clippy::too_many_arguments)]
    pub fn run_columns(
        &mut self,
        gpu: &Gpu,
        route: &dyn Fn(usize, usize) -> &'static Variant,
        copy: usize,
        window: usize,
        columns: usize,
        parallel: bool,
        pv_f16: bool,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            window <= self.tokens,
            "window {window} is past the {} prepared tokens",
            self.tokens
        );
        let (cache, q, ws, out) = self.parts(copy, window);
        attn::attend_columns(
            gpu,
            route,
            parallel,
            pv_f16,
            &cache,
            &q.slice(..),
            columns,
            ws,
            &mut out.slice_mut(..),
        )
    }

    /// A request of `columns` query columns against a `window`-token cache as the engine
    /// serves it on `gpu`: the request's new K/V rows appended into the cache's last
    /// `columns` tokens, then the attention. Parallel query tiles (where the installed
    /// `attn_parallel_tiles` says so and a 2-8 column tile divides `columns`): one batched
    /// append, one split-KV launch over every tile, one reduce; otherwise serial chunks of
    /// at most 8 columns, each appending its own rows before its launch pair. Each chunk's
    /// or tile's schedule comes from the device's installed route table, FP16 P.V from
    /// `attn_pv_f16`; both switches honour their environment overrides
    /// (`NINFER_ATTN_PARALLEL_TILES`, `NINFER_SMALLT_PV_F16`). The appends overwrite the
    /// copy's last `columns` tokens: these are timing inputs, not a checked cache.
    pub fn run_request(
        &mut self,
        gpu: &Gpu,
        copy: usize,
        window: usize,
        columns: usize,
    ) -> anyhow::Result<()> {
        let parallel = switches::parallel_tiles(gpu.info.ordinal);
        self.run_request_as(gpu, copy, window, columns, parallel)
    }

    /// [`Self::run_request`] with parallel query tiles as `parallel` says instead of the
    /// installed switch (`ninfer bench` times both).
    pub fn run_request_as(
        &mut self,
        gpu: &Gpu,
        copy: usize,
        window: usize,
        columns: usize,
        parallel: bool,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=MAX_REQUEST_COLUMNS).contains(&columns) && columns <= window,
            "a request of {columns} columns (1..={MAX_REQUEST_COLUMNS}, within the {window}-token window)"
        );
        anyhow::ensure!(
            window <= self.tokens,
            "window {window} is past the {} prepared tokens",
            self.tokens
        );
        let (ordinal, format) = (gpu.info.ordinal, self.key.format);
        let route = move |w: usize, len: usize| attn::installed_variant(ordinal, format, w, len);
        let pv_f16 = switches::smallt_pv_f16(ordinal);
        if parallel && attn::parallel_tile_width(columns).is_some() {
            self.append_request_rows(gpu, copy, window, columns, 0, columns)?;
            return self.run_columns(gpu, &route, copy, window, columns, true, pv_f16);
        }
        crate::ops::routed::split_launches(columns, MAX_QUERY_WIDTH, |first, w| {
            self.append_request_rows(gpu, copy, window, columns, first, w)?;
            let (cache, q, ws, out) = self.parts(copy, window);
            attn::attend_chunk(
                gpu,
                &route,
                pv_f16,
                &cache,
                &q.slice(..),
                columns,
                first,
                w,
                ws,
                &mut out.slice_mut(..),
            )
        })
    }

    /// Appends new K/V rows `first..first + w` of a request of `columns` columns at the end
    /// of copy `copy` of a `window`-token window (its tokens `window - columns + first..`).
    fn append_request_rows(
        &mut self,
        gpu: &Gpu,
        copy: usize,
        window: usize,
        columns: usize,
        first: usize,
        w: usize,
    ) -> anyhow::Result<()> {
        let row = KV_HEADS * HEAD_DIM;
        let first_page = self.first_page(copy, window);
        crate::ops::kv::append::launch_append(
            gpu,
            self.key.format,
            &mut self.pool,
            &self.page_table.slice(first_page..),
            &self.new_k.slice(first * row..),
            &self.new_v.slice(first * row..),
            window - columns + first,
            w,
            KV_HEADS,
        )
    }

    /// The first `columns` output columns.
    pub fn output_columns(&self, gpu: &Gpu, columns: usize) -> anyhow::Result<Vec<f64>> {
        let y = gpu
            .stream
            .clone_dtoh(&self.out.slice(..columns * Q_HEADS * HEAD_DIM))?;
        Ok(y.iter().map(|v| v.to_f64()).collect())
    }

    fn launch(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        pv_f16: bool,
        copy: usize,
        window: usize,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            window <= self.tokens,
            "window {window} is past the {} prepared tokens",
            self.tokens
        );
        let width = self.key.width;
        let (cache, q, ws, out) = self.parts(copy, window);
        attn::attend(
            gpu,
            variant,
            pv_f16,
            &cache,
            &q.slice(..),
            width,
            1,
            ws,
            &mut out.slice_mut(..),
        )
    }

    /// The f64 reference of the first `columns` query columns over the whole checked cache.
    fn columns_reference(&self, columns: usize, model: KModel) -> anyhow::Result<Vec<f64>> {
        let cache = self.cpu.as_ref().context("a checked cache")?;
        let (k, v) = model.dequantized(cache);
        let q = kernel_queries(
            cache.format(),
            reference::queries(cache, &self.q_host[..columns * Q_HEADS * HEAD_DIM]),
        );
        Ok(reference::attention_f64(&q, columns, &k, &v, cache.len()))
    }

    /// A request of `columns` columns at the whole checked cache (`parallel`: as parallel
    /// query tiles) through `route`, against `want`; the columns past it stay poisoned.
    fn checked_columns(
        &mut self,
        gpu: &Gpu,
        route: &dyn Fn(usize, usize) -> &'static Variant,
        columns: usize,
        parallel: bool,
        pv_f16: bool,
        want: &[f64],
    ) -> anyhow::Result<(f64, Option<String>)> {
        let window = self.cpu.as_ref().context("a checked cache")?.len();
        poison(gpu, &mut self.out)?;
        let launched = self
            .run_columns(gpu, route, 0, window, columns, parallel, pv_f16)
            .and_then(|_| gpu.sync());
        check_outcome(launched, || {
            let host = gpu.stream.clone_dtoh(&self.out)?;
            Ok(compare_rows(
                &host,
                want,
                Q_HEADS * HEAD_DIM,
                columns,
                2 * columns,
            ))
        })
    }

    /// 2W columns at the whole checked cache as parallel query tiles through `variant`
    /// alone (tiles of the widest 2-8 column divisor of 2W: W itself from W = 5 on).
    fn checked_parallel_tiles(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
    ) -> anyhow::Result<(f64, Option<String>)> {
        let columns = 2 * self.key.width;
        let model = KModel::of(variant, self.key.format);
        let want = match self.tiles_reference.remove(&model) {
            Some(want) => want,
            None => self.columns_reference(columns, model)?,
        };
        let route = |_w: usize, _len: usize| variant;
        let checked = self.checked_columns(gpu, &route, columns, true, false, &want);
        self.tiles_reference.insert(model, want);
        checked
    }

    /// Requests of 16 and 32 verify columns at the whole checked window, serial and as
    /// parallel tiles, each against its f64 reference (`attn_parallel_tiles` both ways).
    fn check_verify_columns(&mut self, gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>> {
        let family = attn::family();
        let route = |_w: usize, len: usize| family.compiled_variant(len as u32);
        let mut rows = Vec::new();
        let window = self.cpu.as_ref().context("a checked cache")?.len();
        let model = KModel::of(family.compiled_variant(window as u32), self.key.format);
        for columns in [16usize, 32] {
            let want = self.columns_reference(columns, model)?;
            for parallel in [false, true] {
                let pv_f16 = self.pv_f16;
                let (error, problem) =
                    self.checked_columns(gpu, &route, columns, parallel, pv_f16, &want)?;
                rows.push(HelperCheck {
                    variant: format!(
                        "{columns} columns, attn_parallel_tiles={}",
                        if parallel { "on" } else { "off" }
                    ),
                    error,
                    pass: problem.is_none(),
                    note: problem.unwrap_or_default(),
                });
            }
        }
        Ok(rows)
    }

    fn checked(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        pv_f16: bool,
        window: usize,
    ) -> anyhow::Result<(f64, Option<String>)> {
        self.ready_output_for_check(gpu)?;
        let launched = self
            .launch(gpu, variant, pv_f16, 0, window)
            .and_then(|_| gpu.sync());
        let model = KModel::of(variant, self.key.format);
        check_outcome(launched, || self.compare(gpu, window, pv_f16, model))
    }

    /// The output against the reference of K model `model`; FP16 P.V routes with the
    /// allowance for their own accumulation rounding.
    fn compare(
        &self,
        gpu: &Gpu,
        window: usize,
        pv_f16: bool,
        model: KModel,
    ) -> anyhow::Result<(f64, Option<String>)> {
        let reference = self
            .references
            .get(&(model, window))
            .context("prepare_check first")?;
        let host = gpu.stream.clone_dtoh(&self.out)?;
        let (row, width) = (Q_HEADS * HEAD_DIM, self.key.width);
        if pv_f16 {
            let magnitude = self
                .magnitudes
                .get(&(model, window))
                .context("prepare_check first")?;
            Ok(crate::check::compare_rows_fp16_accumulated(
                &host,
                reference,
                row,
                width,
                2 * width,
                magnitude,
            ))
        } else {
            Ok(compare_rows(&host, reference, row, width, 2 * width))
        }
    }
}

impl Prepared for AttnPrepared {
    fn bytes(&self, t: usize) -> usize {
        // K and V of the window (codes and scales), the queries, the BF16 output.
        t * KV_HEADS * self.key.format.token_bytes() + 2 * 2 * self.key.width * Q_HEADS * HEAD_DIM
    }

    fn forward(&mut self, gpu: &Gpu, copy: usize, t: usize, choose: Choose) -> anyhow::Result<()> {
        let variant = choose(t as u32);
        let pv = self.pv_f16;
        self.launch(gpu, variant, pv, copy, t)
    }

    fn output(&self, gpu: &Gpu, _t: usize) -> anyhow::Result<Vec<f64>> {
        let n = self.key.width * Q_HEADS * HEAD_DIM;
        let y = gpu.stream.clone_dtoh(&self.out.slice(..n))?;
        Ok(y.iter().map(|v| v.to_f64()).collect())
    }

    fn prepare_check(&mut self, gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>> {
        let cache = self
            .cpu
            .as_ref()
            .context("a checked cache (prepare with few tokens)")?;
        let q = kernel_queries(
            cache.format(),
            reference::queries(cache, &self.q_host[..self.key.width * Q_HEADS * HEAD_DIM]),
        );
        let w = self.key.width;
        let windows: Vec<usize> = CHECK_WINDOWS
            .iter()
            .copied()
            .chain([777])
            .filter(|&l| l >= w && l <= cache.len())
            .collect();
        self.references.clear();
        self.magnitudes.clear();
        self.tiles_reference.clear();
        for model in KModel::used_by(self.key.format) {
            let (k, v) = model.dequantized(cache);
            let v_abs: Vec<Vec<f64>> = v
                .iter()
                .map(|h| h.iter().map(|x| x.abs()).collect())
                .collect();
            let refs: Vec<(usize, Vec<f64>, Vec<f64>)> = std::thread::scope(|s| {
                let handles: Vec<_> = windows
                    .iter()
                    .map(|&len| {
                        let (q, k, v, v_abs) = (&q, &k, &v, &v_abs);
                        s.spawn(move || {
                            (
                                len,
                                reference::attention_f64(q, w, k, v, len),
                                reference::attention_f64(q, w, k, v_abs, len),
                            )
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("reference thread"))
                    .collect()
            });
            for (len, r, m) in refs {
                self.magnitudes.insert((model, len), m);
                self.references.insert((model, len), r);
            }
        }
        // Once per format: the append kernel (on the w1 key), the verify-column requests
        // serial and in parallel tiles (on the w8 key, whose route their tiles take).
        match w {
            1 => {
                let seed = crate::ops::routed::fresh_seed();
                Ok(vec![
                    crate::ops::kv::append::check_append(gpu, self.key.format, seed)?,
                    pv_f16_at_262k(gpu, self.key.format, seed)?,
                ])
            }
            8 => self.check_verify_columns(gpu),
            _ => Ok(Vec::new()),
        }
    }

    fn ready_output_for_check(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        poison(gpu, &mut self.out)
    }

    fn launch_variant(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        window: usize,
    ) -> anyhow::Result<()> {
        let pv = self.pv_f16;
        self.launch(gpu, variant, pv, 0, window)
    }

    fn compare_with_reference(
        &self,
        gpu: &Gpu,
        window: usize,
    ) -> anyhow::Result<(f64, Option<String>)> {
        self.compare(gpu, window, self.pv_f16, KModel::Format)
    }

    fn check_variant(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        window: usize,
    ) -> anyhow::Result<(f64, Option<String>)> {
        // Both P.V accumulations; the row reports the worse. At the whole cache also three
        // splits per KV head: a full wave leaves one or two key blocks per split here, so
        // only then do the splits run their rings round.
        let (e32, p32) = self.checked(gpu, variant, false, window)?;
        let (e16, p16) = self.checked(gpu, variant, true, window)?;
        // And there 2W columns as parallel query tiles (grid z) through this variant.
        let (e_long, p_long, e_tiles, p_tiles) = if window == CHECK_TOKENS {
            self.ws.split_cap = Some(LONG_SPLITS);
            let r = self.checked(gpu, variant, false, window);
            self.ws.split_cap = None;
            let (e_long, p_long) = r?;
            let (e_tiles, p_tiles) = self.checked_parallel_tiles(gpu, variant)?;
            (e_long, p_long, e_tiles, p_tiles)
        } else {
            (0.0, None, 0.0, None)
        };
        let problem = match (p32, p16, p_long, p_tiles) {
            (Some(p), ..) => Some(format!("fp32 P.V: {p}")),
            (None, Some(p), ..) => Some(format!("fp16 P.V: {p}")),
            (None, None, Some(p), _) => Some(format!("{LONG_SPLITS} splits per KV head: {p}")),
            (None, None, None, Some(p)) => Some(format!("parallel query tiles: {p}")),
            (None, None, None, None) => None,
        };
        Ok((e32.max(e16).max(e_long).max(e_tiles), problem))
    }
}

#[cfg(test)]
mod k_model_tests {
    use super::*;

    #[test]
    fn the_warpgroup_schedule_is_checked_against_the_prompt_k_tile_for_rk4v4_only() {
        let family = attn::family();
        let wg = family.candidate("8x1x64w").expect("the warpgroup schedule");
        let mma = family.candidate("4x2x64d").expect("an mma.sync schedule");
        assert_eq!(KModel::of(wg, KvFormat::Rk4v4), KModel::PromptTile);
        assert_eq!(KModel::of(wg, KvFormat::Int8), KModel::Format);
        assert_eq!(KModel::of(mma, KvFormat::Rk4v4), KModel::Format);
        // the two models differ (by the tile's FP16 roundings), else the split is vacuous
        let cache = checked_cache(KvFormat::Rk4v4, 70, 5);
        let (kf, vf) = KModel::Format.dequantized(&cache);
        let (kt, vt) = KModel::PromptTile.dequantized(&cache);
        assert_eq!(vf, vt);
        assert_ne!(kf, kt);
    }

    #[test]
    fn the_prompt_k_tile_reference_explains_the_replayed_rk4v4_miss() {
        // `ninfer check --only attn_i8_small/h24/rk4v4 --schedule 8x1x64w --seed S` on the
        // H200 (docs/results/h200-2026-12-02d, call 10): at the 64-key window both builds
        // of the schedule gave 0.052490234375 (BF16) at row 0, column 968 for W = 5, where
        // the format's K gives 0.055660 (just outside the bound); the tile's K, 0.053200.
        let seed = 1_796_209_860_276_383_691u64;
        let cache = checked_cache(KvFormat::Rk4v4, CHECK_TOKENS, seed);
        let q_host = random_queries(MAX_REQUEST_COLUMNS, seed ^ 0x9e37);
        let w = 5;
        let q = kernel_queries(
            KvFormat::Rk4v4,
            reference::queries(&cache, &q_host[..w * Q_HEADS * HEAD_DIM]),
        );
        let row = |model: KModel| {
            let (k, v) = model.dequantized(&cache);
            let all = reference::attention_f64(&q, w, &k, &v, 64);
            all[..Q_HEADS * HEAD_DIM].to_vec()
        };
        // `compare_rows`' element bound, against the kernels' value
        let within = |want: &[f64]| {
            let rms = (want.iter().map(|x| x * x).sum::<f64>() / want.len() as f64).sqrt();
            (0.052490234375 - want[968]).abs()
                <= crate::check::ELEMENT_TOLERANCE * (want[968].abs() + rms)
        };
        let (format, tile) = (row(KModel::Format), row(KModel::PromptTile));
        assert!(
            (format[968] - 0.055660).abs() < 5e-6,
            "the replayed reference"
        );
        assert!(!within(&format), "the format's K missed the kernels' value");
        assert!(within(&tile), "the tile's K explains it: {}", tile[968]);
    }
}
