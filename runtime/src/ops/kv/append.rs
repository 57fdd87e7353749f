//! The paged KV cache on the GPU and its append kernels (issue 6): new BF16 K/V rows
//! quantized into the pool by the modules `kv_append_int8`, `kv_append_rk8v4` and
//! `kv_append_rk4v4` (one template, `kernel-templates/kv_append.cu.tera`), producing
//! the same bytes as the CPU [`KvCache::append`] (docs/formats.md, "KV cache").
//!
//! **Layout** (as [`KvCache`]): the pool is `[physical page][kv_heads][page_bytes]`; the
//! page table (`i32`, on the GPU and mirrored on the host) maps logical page `token / 64`
//! to its physical page, slot `token % 64`. A [`GpuKvCache`] allocates its pool for
//! `max_tokens` up front and zeroes it; every physical page is used once, so a page a
//! token starts is fresh (zero) and slots past `len` stay zero. The kernel writes only
//! the codes and scales of the new slots.
//!
//! **Kernel** (entry `kv_append_<format>__default`):
//!
//! ```text
//! (uint8_t* pool, const int32_t* page_table, const bf16* k, const bf16* v,
//!  int first_token, int tokens, int kv_heads)
//! ```
//!
//! `k`, `v` are `[tokens][kv_heads][256]`; `first_token` is the cache length before the
//! append. One CTA of 256 threads per (token, KV head), `blockIdx.x = t * kv_heads +
//! head` ([`launch_config`]).
//!
//! [`check_append`] compares the GPU pool with the CPU cache byte for byte.

use anyhow::{ensure, Context as _};
use cudarc::driver::{CudaSlice, CudaView, LaunchConfig, PushKernelArg};
use half::bf16;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::cache::KvCache;
use super::format::KvFormat;
use super::{HEAD_DIM, KV_HEADS, PAGE_TOKENS};
use crate::catalog::{self, Variant};
use crate::gpu::Gpu;
use crate::ops::routed::HelperCheck;

/// Threads per CTA of the append kernels: one per element of a row.
pub const APPEND_THREADS: u32 = HEAD_DIM as u32;

/// The catalog module that appends rows of `format`: `kv_append_<format>`.
pub fn module_name(format: KvFormat) -> String {
    format!("kv_append_{}", format.name())
}

/// The template parameter `format` of the module of `format` (0 int8, 1 rk8v4, 2 rk4v4).
pub fn template_format(format: KvFormat) -> i64 {
    match format {
        KvFormat::Int8 => 0,
        KvFormat::Rk8v4 => 1,
        KvFormat::Rk4v4 => 2,
    }
}

/// The compiled append kernel of `format`.
pub fn append_variant(format: KvFormat) -> &'static Variant {
    let name = module_name(format);
    catalog::module(&name).unwrap_or_else(|| panic!("catalog.toml declares module {name}"))
}

/// One CTA of [`APPEND_THREADS`] per (token, KV head), `blockIdx.x = t * kv_heads + head`.
pub fn launch_config(tokens: usize, kv_heads: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((tokens * kv_heads) as u32, 1, 1),
        block_dim: (APPEND_THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launches `format`'s append kernel: `tokens` rows of K and V (`[tokens][kv_heads][256]`
/// BF16) quantized into `pool` at tokens `first_token..`, pages through `page_table`. The
/// caller checks capacity ([`GpuKvCache::append`], or a request over a prepared cache).
#[allow(clippy::too_many_arguments)]
pub fn launch_append(
    gpu: &Gpu,
    format: KvFormat,
    pool: &mut CudaSlice<u8>,
    page_table: &CudaView<i32>,
    k: &CudaView<bf16>,
    v: &CudaView<bf16>,
    first_token: usize,
    tokens: usize,
    kv_heads: usize,
) -> anyhow::Result<()> {
    if tokens == 0 {
        return Ok(());
    }
    ensure!(
        (first_token + tokens).div_ceil(PAGE_TOKENS) <= page_table.len(),
        "tokens {first_token}..{} need more than the {} pages of the page table",
        first_token + tokens,
        page_table.len()
    );
    let variant = append_variant(format);
    ensure!(
        variant.launch.threads == APPEND_THREADS && variant.launch.shared_bytes == 0,
        "{}: the launcher assumes {APPEND_THREADS} threads and no dynamic shared memory",
        variant.name
    );
    let f = gpu.function(variant)?;
    let (first, n, heads) = (first_token as i32, tokens as i32, kv_heads as i32);
    let mut b = gpu.stream.launch_builder(f);
    b.arg(pool)
        .arg(page_table)
        .arg(k)
        .arg(v)
        .arg(&first)
        .arg(&n)
        .arg(&heads);
    unsafe { b.launch(launch_config(tokens, kv_heads)) }
        .with_context(|| format!("launching {}", variant.name))?;
    Ok(())
}

/// Pages needed for `tokens` tokens.
pub fn pages_for(tokens: usize) -> usize {
    tokens.div_ceil(PAGE_TOKENS)
}

/// Checks that `table` is a permutation of `0..table.len()` (each physical page used
/// once, so a page a token starts is still zero).
pub fn validate_page_table(table: &[i32]) -> anyhow::Result<()> {
    let mut seen = vec![false; table.len()];
    for (logical, &p) in table.iter().enumerate() {
        ensure!(
            p >= 0 && (p as usize) < table.len(),
            "page table entry {logical} = {p} is outside 0..{}",
            table.len()
        );
        ensure!(
            !std::mem::replace(&mut seen[p as usize], true),
            "page table maps two logical pages to physical page {p}"
        );
    }
    Ok(())
}

/// A paged, quantized KV cache of one sequence on the GPU (module docs).
pub struct GpuKvCache {
    format: KvFormat,
    kv_heads: usize,
    len: usize,
    capacity_pages: usize,
    pool: CudaSlice<u8>,
    page_table: CudaSlice<i32>,
    host_page_table: Vec<i32>,
}

impl GpuKvCache {
    /// A zeroed pool for `max_tokens` tokens (at least one page) with the identity page
    /// table.
    pub fn new(
        gpu: &Gpu,
        format: KvFormat,
        kv_heads: usize,
        max_tokens: usize,
    ) -> anyhow::Result<GpuKvCache> {
        let pages = pages_for(max_tokens).max(1);
        let table: Vec<i32> = (0..pages as i32).collect();
        Self::with_page_table(gpu, format, kv_heads, &table)
    }

    /// A zeroed pool of `page_table.len()` pages whose logical page `p` is physical page
    /// `page_table[p]` (a permutation of `0..page_table.len()`; tests the indirection).
    pub fn with_page_table(
        gpu: &Gpu,
        format: KvFormat,
        kv_heads: usize,
        page_table: &[i32],
    ) -> anyhow::Result<GpuKvCache> {
        ensure!(kv_heads > 0, "a KV cache needs at least one KV head");
        ensure!(!page_table.is_empty(), "a KV cache needs at least one page");
        ensure!(
            page_table.len() * PAGE_TOKENS <= i32::MAX as usize,
            "{} pages exceed the kernel's 32-bit token index",
            page_table.len()
        );
        validate_page_table(page_table)?;
        let bytes = page_table.len() * kv_heads * format.page_bytes();
        Ok(GpuKvCache {
            format,
            kv_heads,
            len: 0,
            capacity_pages: page_table.len(),
            pool: gpu
                .stream
                .alloc_zeros(bytes)
                .with_context(|| format!("allocating a {bytes}-byte KV cache pool"))?,
            page_table: gpu.stream.clone_htod(page_table)?,
            host_page_table: page_table.to_vec(),
        })
    }

    /// Empties the cache: zeroes the pool (every page fresh again), keeps the page table.
    pub fn clear(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        gpu.stream.memset_zeros(&mut self.pool)?;
        self.len = 0;
        Ok(())
    }

    /// Appends `tokens` rows of K and V, each `[tokens][kv_heads][256]` BF16 (at least
    /// that many elements), quantized by the format's append kernel (queued on the
    /// GPU's stream).
    pub fn append(
        &mut self,
        gpu: &Gpu,
        k: &CudaSlice<bf16>,
        v: &CudaSlice<bf16>,
        tokens: usize,
    ) -> anyhow::Result<()> {
        let row = self.kv_heads * HEAD_DIM;
        ensure!(
            k.len() >= tokens * row && v.len() >= tokens * row,
            "k and v must hold [{tokens}][{}][{HEAD_DIM}] values (k {}, v {})",
            self.kv_heads,
            k.len(),
            v.len()
        );
        ensure!(
            self.len + tokens <= self.capacity_tokens(),
            "appending {tokens} tokens to {} exceeds the capacity of {} tokens",
            self.len,
            self.capacity_tokens()
        );
        ensure!(
            tokens * self.kv_heads <= i32::MAX as usize,
            "{tokens} tokens x {} heads exceed one launch's grid",
            self.kv_heads
        );
        launch_append(
            gpu,
            self.format,
            &mut self.pool,
            &self.page_table.slice(..),
            &k.slice(..),
            &v.slice(..),
            self.len,
            tokens,
            self.kv_heads,
        )?;
        self.len += tokens;
        Ok(())
    }

    pub fn format(&self) -> KvFormat {
        self.format
    }

    pub fn kv_heads(&self) -> usize {
        self.kv_heads
    }

    /// Tokens stored.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn capacity_pages(&self) -> usize {
        self.capacity_pages
    }

    pub fn capacity_tokens(&self) -> usize {
        self.capacity_pages * PAGE_TOKENS
    }

    /// Bytes of one page of one KV head.
    pub fn page_bytes(&self) -> usize {
        self.format.page_bytes()
    }

    /// The pool, `[physical page][kv_heads][page_bytes]`.
    pub fn pool(&self) -> &CudaSlice<u8> {
        &self.pool
    }

    /// The page table on the GPU: logical page -> physical page.
    pub fn page_table(&self) -> &CudaSlice<i32> {
        &self.page_table
    }

    /// The host copy of the page table.
    pub fn host_page_table(&self) -> &[i32] {
        &self.host_page_table
    }

    /// The pool's bytes (synchronises the stream).
    pub fn download_pool(&self, gpu: &Gpu) -> anyhow::Result<Vec<u8>> {
        let host = gpu.stream.clone_dtoh(&self.pool)?;
        gpu.sync()?;
        Ok(host)
    }
}

/// Where byte `offset` of a pool lies: physical page, head, section, slot (and the token
/// it belongs to through `page_table`), byte within the slot's row.
pub fn describe_offset(
    format: KvFormat,
    kv_heads: usize,
    page_table: &[i32],
    offset: usize,
) -> String {
    let f = format;
    let pb = f.page_bytes();
    let (blk, within) = (offset / pb, offset % pb);
    let (physical, head) = (blk / kv_heads, blk % kv_heads);
    let sections = [
        ("K codes", 0, f.k_code_bytes()),
        ("V codes", f.v_codes_offset(), f.v_code_bytes()),
        ("K scales", f.k_scales_offset(), 2 * f.k_groups()),
        ("V scales", f.v_scales_offset(), 2 * f.v_groups()),
    ];
    let &(name, start, row) = sections
        .iter()
        .rev()
        .find(|s| within >= s.1)
        .expect("section 0 starts at 0");
    let (slot, byte) = ((within - start) / row, (within - start) % row);
    let token = page_table
        .iter()
        .position(|&p| p as usize == physical)
        .map(|l| format!("token {}", l * PAGE_TOKENS + slot))
        .unwrap_or_else(|| "no logical page".into());
    format!("physical page {physical}, head {head}, {name}, slot {slot} ({token}), byte {byte}")
}

/// Rows `[tokens][heads][256]` of K and V for tests (`check_append`): Gaussian rows of
/// varied scale (σ from 1e-7, giving zero FP16 scales over non-zero values, to 40) and
/// rows of magnitudes spread over 2^-16 .. 2^8 (inexact f32 Hadamard sums), with outlier
/// channels (×25), never zero, except K and V of (token 5 % tokens, last head),
/// which are all zero; V of (token 9 % tokens, head 0) is an int4 ties row and K and V of
/// (token 11 % tokens, head 0) an int8 ties row (scale exactly 1, half-integer values).
pub fn synthetic_rows(tokens: usize, heads: usize, seed: u64) -> (Vec<bf16>, Vec<bf16>) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x6b76_6170_7065_6e64);
    let outliers: Vec<usize> = (0..3).map(|_| rng.random_range(0..HEAD_DIM)).collect();
    let row = |rng: &mut rand::rngs::StdRng| -> Vec<bf16> {
        let kind = rng.random_range(0..10);
        let sigma = match kind {
            0 => 1e-7,
            1 => 3e-6,
            2 => 0.05,
            3 => 40.0,
            _ => 1.0,
        };
        (0..HEAD_DIM)
            .map(|d| {
                // Box-Muller.
                let (u1, u2): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random());
                let g = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                let mut x = g * sigma;
                if kind == 4 {
                    // Magnitudes over 2^-16 .. 2^8: the Hadamard sums round in f32, so
                    // the butterfly's stage order shows in the bits.
                    x = g.signum() * (rng.random_range(-16.0..8.0f64)).exp2();
                }
                if outliers.contains(&d) {
                    x *= 25.0;
                }
                let b = bf16::from_f64(x);
                if b.to_f32() == 0.0 {
                    bf16::from_f64(if g < 0.0 { -sigma } else { sigma } * 1e-3)
                } else {
                    b
                }
            })
            .collect()
    };
    let n = tokens * heads;
    let (mut k, mut v) = (
        Vec::with_capacity(n * HEAD_DIM),
        Vec::with_capacity(n * HEAD_DIM),
    );
    for _ in 0..n {
        k.extend(row(&mut rng));
        v.extend(row(&mut rng));
    }
    // Ties: group element 0 is qmax (scale fp16(qmax / qmax) = 1), the others
    // half-integers within [-qmax + 0.5, qmax - 0.5] (exact in BF16).
    let ties = |qmax: usize, group: usize| -> Vec<bf16> {
        (0..HEAD_DIM)
            .map(|j| {
                let g = j % group;
                let x = if g == 0 {
                    qmax as f32
                } else {
                    ((g * 5) % (2 * qmax)) as f32 - qmax as f32 + 0.5
                };
                bf16::from_f32(if j % 3 == 1 { -x } else { x })
            })
            .collect()
    };
    let put = |buf: &mut Vec<bf16>, t: usize, h: usize, r: &[bf16]| {
        let at = ((t % tokens) * heads + h) * HEAD_DIM;
        buf[at..at + HEAD_DIM].copy_from_slice(r);
    };
    if tokens > 0 {
        let zero = vec![bf16::ZERO; HEAD_DIM];
        put(&mut k, 5, heads - 1, &zero);
        put(&mut v, 5, heads - 1, &zero);
        put(&mut v, 9, 0, &ties(7, 32));
        let t8 = ties(127, 64);
        put(&mut k, 11, 0, &t8);
        put(&mut v, 11, 0, &t8);
    }
    (k, v)
}

/// Append sizes of [`check_append`]: the first fills slot 0, the second the rest of
/// page 0, the third starts page 1, the fourth crosses pages 1 -> 2 -> 3.
pub const CHECK_APPENDS: [usize; 4] = [1, 63, 2, 130];

/// The append kernel of `format` against the CPU [`KvCache`]: [`synthetic_rows`] over 4
/// KV heads appended in [`CHECK_APPENDS`] chunks into a GPU cache with a shuffled page
/// table, the whole pool compared byte for byte with the CPU cache's pool permuted the
/// same way. `error` is the fraction of differing bytes; `note` names the first.
pub fn check_append(gpu: &Gpu, format: KvFormat, seed: u64) -> anyhow::Result<HelperCheck> {
    let heads = KV_HEADS;
    let total: usize = CHECK_APPENDS.iter().sum();
    let pages = pages_for(total);
    let (k, v) = synthetic_rows(total, heads, seed);
    let mut perm: Vec<usize> = (0..pages).collect();
    perm.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed));
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        perm.rotate_left(1);
    }
    let table: Vec<i32> = perm.iter().map(|&p| p as i32).collect();

    let mut cache = GpuKvCache::with_page_table(gpu, format, heads, &table)?;
    let mut cpu = KvCache::new(format, heads);
    let row = heads * HEAD_DIM;
    let mut at = 0;
    for n in CHECK_APPENDS {
        let (ks, vs) = (&k[at * row..(at + n) * row], &v[at * row..(at + n) * row]);
        let (kd, vd) = (gpu.stream.clone_htod(ks)?, gpu.stream.clone_htod(vs)?);
        cache.append(gpu, &kd, &vd, n)?;
        cpu.append(ks, vs, n);
        at += n;
    }
    let got = cache.download_pool(gpu)?;
    // The CPU cache took physical pages 0, 1, 2, ... in order: move page p to perm[p].
    cpu.permute_pages(&perm);
    let want = cpu.pool();
    ensure!(
        got.len() == want.len() && cache.len() == cpu.len(),
        "GPU pool {} bytes / {} tokens, CPU {} bytes / {} tokens",
        got.len(),
        cache.len(),
        want.len(),
        cpu.len()
    );
    let differ = got.iter().zip(want).filter(|(a, b)| a != b).count();
    let note = match got.iter().zip(want).position(|(a, b)| a != b) {
        None => format!(
            "{} bytes identical ({total} tokens x {heads} heads appended in chunks {CHECK_APPENDS:?}, page table {table:?})",
            got.len()
        ),
        Some(o) => format!(
            "{differ} of {} bytes differ; first at byte {o}: {}: GPU {:#04x}, CPU {:#04x}",
            got.len(),
            describe_offset(format, heads, &table, o),
            got[o],
            want[o]
        ),
    };
    Ok(HelperCheck {
        variant: append_variant(format).name.to_string(),
        error: differ as f64 / got.len() as f64,
        pass: differ == 0,
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_its_module_in_the_catalog() {
        for f in KvFormat::ALL {
            let v = append_variant(f);
            assert_eq!(v.family, module_name(f));
            assert_eq!(v.name, format!("kv_append_{f}__default"));
            assert_eq!(v.param("format"), Some(template_format(f)), "{f}");
            assert_eq!(v.params.len(), 1);
            assert_eq!(v.launch.threads, APPEND_THREADS);
            assert_eq!(v.launch.shared_bytes, 0);
        }
    }

    /// The PTX parameter list of `entry`: the `.param` types in order.
    fn ptx_params(ptx: &str, entry: &str) -> Vec<String> {
        let start = ptx.find(&format!(".entry {entry}(")).expect("entry in PTX");
        let body = &ptx[start..];
        let list = &body[body.find('(').unwrap() + 1..body.find(')').unwrap()];
        list.split(',')
            .map(|p| {
                let w: Vec<&str> = p.split_whitespace().collect();
                // ".param .u64 .ptr .global .align 1 name" or ".param .u32 name"
                w[1].to_string()
            })
            .collect()
    }

    #[test]
    fn kernels_take_four_pointers_and_three_ints() {
        for f in KvFormat::ALL {
            let v = append_variant(f);
            assert_eq!(
                ptx_params(v.ptx, v.name),
                [".u64", ".u64", ".u64", ".u64", ".u32", ".u32", ".u32"],
                "{f}"
            );
            // 256 threads per CTA, as the launcher assumes.
            assert!(v.ptx.contains(".maxntid 256"), "{f}");
            // One entry point per module.
            assert_eq!(v.ptx.matches(".entry ").count(), 1, "{f}");
        }
    }

    #[test]
    fn one_cta_of_256_threads_per_token_and_head() {
        let c = launch_config(130, 4);
        assert_eq!(c.grid_dim, (520, 1, 1));
        assert_eq!(c.block_dim, (256, 1, 1));
        assert_eq!(c.shared_mem_bytes, 0);
        assert_eq!(launch_config(1, 1).grid_dim, (1, 1, 1));
        assert_eq!(APPEND_THREADS as usize, HEAD_DIM);
    }

    #[test]
    fn pages_and_page_tables() {
        assert_eq!([0, 1, 64, 65, 196].map(pages_for), [0, 1, 1, 2, 4]);
        assert_eq!(pages_for(CHECK_APPENDS.iter().sum()), 4);
        assert!(validate_page_table(&[2, 0, 3, 1]).is_ok());
        assert!(validate_page_table(&[]).is_ok());
        assert!(validate_page_table(&[0, 0]).is_err());
        assert!(validate_page_table(&[0, 2]).is_err());
        assert!(validate_page_table(&[-1, 0]).is_err());
    }

    #[test]
    fn offsets_are_described_by_page_head_section_and_slot() {
        let f = KvFormat::Rk8v4;
        let table = [2, 0, 3, 1];
        let pb = f.page_bytes();
        // Physical page 3 (logical 2), head 1, V scales of slot 5, second byte of scale 1.
        let o = (3 * 4 + 1) * pb + f.v_scales_offset() + 5 * 2 * f.v_groups() + 3;
        assert_eq!(
            describe_offset(f, 4, &table, o),
            "physical page 3, head 1, V scales, slot 5 (token 133), byte 3"
        );
        assert_eq!(
            describe_offset(f, 4, &table, 256 * 7 + 9),
            "physical page 0, head 0, K codes, slot 7 (token 71), byte 9"
        );
        let o = 2 * pb + f.v_codes_offset() + 63 * f.v_code_bytes() + 127;
        assert_eq!(
            describe_offset(f, 4, &table, o),
            "physical page 0, head 2, V codes, slot 63 (token 127), byte 127"
        );
        let o = f.k_scales_offset() + 2 * f.k_groups();
        assert_eq!(
            describe_offset(f, 4, &[1, 0], o),
            "physical page 0, head 0, K scales, slot 1 (token 65), byte 0"
        );
    }

    #[test]
    fn synthetic_rows_have_the_promised_edge_cases() {
        let (t, h) = (196, 4);
        let (k, v) = synthetic_rows(t, h, 3);
        assert_eq!((k.len(), v.len()), (t * h * HEAD_DIM, t * h * HEAD_DIM));
        let row = |b: &[bf16], tok: usize, head: usize| -> Vec<f32> {
            let at = (tok * h + head) * HEAD_DIM;
            b[at..at + HEAD_DIM].iter().map(|x| x.to_f32()).collect()
        };
        let mut zero_rows = 0;
        for tok in 0..t {
            for head in 0..h {
                for b in [&k, &v] {
                    let r = row(b, tok, head);
                    if r.iter().all(|&x| x == 0.0) {
                        zero_rows += 1;
                    } else {
                        assert!(r.iter().all(|&x| x != 0.0 && x.is_finite()), "{tok} {head}");
                    }
                }
            }
        }
        assert_eq!(zero_rows, 2); // K and V of (5, 3)
        assert!(row(&k, 5, 3).iter().all(|&x| x == 0.0));
        // The int4 ties row quantizes with scale 1 and exact ties.
        let r = row(&v, 9, 0);
        assert_eq!(r[0], 7.0);
        assert!(r[1..32]
            .iter()
            .all(|x| x.abs() <= 6.5 && x.fract().abs() == 0.5));
        // Deterministic per seed.
        assert_eq!(synthetic_rows(3, 2, 9), synthetic_rows(3, 2, 9));
        assert_ne!(synthetic_rows(3, 2, 9).0, synthetic_rows(3, 2, 10).0);
    }

    #[test]
    fn the_check_layout_matches_the_cpu_cache_after_permute_pages() {
        // What check_append relies on: a CPU cache filled in CHECK_APPENDS chunks and
        // permuted by `perm` places token t of head h where a GPU cache with page table
        // `perm` does (physical page perm[t / 64]).
        let (heads, total) = (KV_HEADS, CHECK_APPENDS.iter().sum::<usize>());
        let (k, v) = synthetic_rows(total, heads, 1);
        let f = KvFormat::Rk4v4;
        let mut cpu = KvCache::new(f, heads);
        let row = heads * HEAD_DIM;
        let mut at = 0;
        for n in CHECK_APPENDS {
            cpu.append(
                &k[at * row..(at + n) * row],
                &v[at * row..(at + n) * row],
                n,
            );
            at += n;
        }
        let reference = cpu.clone();
        let perm = [2usize, 0, 3, 1];
        cpu.permute_pages(&perm);
        assert_eq!(cpu.pool().len(), pages_for(total) * heads * f.page_bytes());
        for (t, h) in [(0, 0), (63, 1), (64, 2), (70, 3), (195, 0)] {
            let p = perm[t / PAGE_TOKENS];
            let blk = &cpu.pool()[(p * heads + h) * f.page_bytes()..][..f.page_bytes()];
            let s = t % PAGE_TOKENS;
            assert_eq!(
                &blk[s * f.k_code_bytes()..][..f.k_code_bytes()],
                reference.k_row(t, h).0
            );
        }
    }
}
