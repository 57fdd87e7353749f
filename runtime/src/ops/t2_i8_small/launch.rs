//! Host side of the ternary small-T projection on the GPU: weight upload, activation
//! quantization, and the launches, split into column chunks no wider than a variant
//! serves. Inference and calibration both go through `forward`; they differ only in
//! how a width is mapped to a variant (`choose`).

use anyhow::{bail, ensure, Context as _};
use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};
use half::{bf16, f16};

use super::pack::PackedTernary;
use crate::catalog::{self, Variant};
use crate::gpu::launch::{even_share_smem, launch, KernelArgs, LaunchOrder};
use crate::gpu::tensor_map::{takes_x_tensor_map, SwizzledTiles, TileElem};
use crate::gpu::Gpu;

/// K elements per activation scale.
pub const ACT_GROUP: usize = 64;
/// Widest launch any t2_i8_small variant serves; wider inputs are split.
pub const MAX_LAUNCH_WIDTH: usize = 32;
/// Largest `k_split` (CTAs splitting K per row tile) the workspace of `DeviceWeights` serves.
pub const MAX_K_SPLIT: usize = 8;
/// Smallest row tile of any variant: one arrival counter per 16 rows.
const MIN_ROWS_PER_CTA: usize = 16;

pub use crate::ops::shape::Shape;

/// Bytes the op must read from memory: 2-bit codes and FP16 scales per 128.
pub fn weight_bytes(shape: Shape) -> usize {
    shape.groupwise_weight_bytes(2, 128)
}

/// Packed ternary weights resident on the GPU, with the scratch of the K-split variants:
/// fp32 partials (`n * MAX_LAUNCH_WIDTH * MAX_K_SPLIT`) and one arrival counter per
/// 16-row tile. The kernels leave the counters zero; the partials need no clearing.
/// Launches that use one `DeviceWeights` must be ordered (one stream).
pub struct DeviceWeights {
    pub shape: Shape,
    pub codes: CudaSlice<u8>,
    pub scales: CudaSlice<f16>,
    pub workspace: CudaSlice<f32>,
    pub counters: CudaSlice<u32>,
}

pub fn upload(gpu: &Gpu, packed: &PackedTernary, shape: Shape) -> anyhow::Result<DeviceWeights> {
    Ok(DeviceWeights {
        shape,
        codes: gpu.stream.clone_htod(&packed.codes)?,
        scales: gpu.stream.clone_htod(&packed.scales)?,
        workspace: gpu
            .stream
            .alloc_zeros(shape.n * MAX_LAUNCH_WIDTH * MAX_K_SPLIT)?,
        counters: gpu.stream.alloc_zeros(shape.n.div_ceil(MIN_ROWS_PER_CTA))?,
    })
}

/// Quantized activations for up to `capacity` tokens of K features. `xqw`: the codes
/// again in the k order of the warpgroup (`wgmma`) variants, written by
/// `quantize(.., ActOrder::AlsoWarpgroup)` only (docs/formats.md).
pub struct Activations {
    pub k: usize,
    pub capacity: usize,
    pub xq: CudaSlice<i8>,
    pub xs: CudaSlice<f16>,
    pub xqw: CudaSlice<i8>,
}

/// Which layouts `quantize` writes: the codes and scales every variant reads, and for the
/// warpgroup variants also `xqw` (module quant_act_i8_wg: a few more stores).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActOrder {
    Plain,
    AlsoWarpgroup,
}

/// A warpgroup (`wgmma = 1`) schedule: reads `xqw` instead of `xq`.
pub fn is_warpgroup(variant: &Variant) -> bool {
    variant.param("wgmma").unwrap_or(0) == 1
}

impl Activations {
    pub fn new(gpu: &Gpu, capacity: usize, k: usize) -> anyhow::Result<Activations> {
        Ok(Activations {
            k,
            capacity,
            xq: gpu.stream.alloc_zeros(capacity * k)?,
            xs: gpu.stream.alloc_zeros(capacity * (k / ACT_GROUP))?,
            xqw: gpu.stream.alloc_zeros(capacity * k)?,
        })
    }
}

/// The quantization module that writes `order`'s layouts.
pub fn quant_variant(order: ActOrder) -> &'static Variant {
    let name = match order {
        ActOrder::Plain => "quant_act_i8",
        ActOrder::AlsoWarpgroup => "quant_act_i8_wg",
    };
    catalog::module(name).unwrap_or_else(|| panic!("catalog.toml declares module {name}"))
}

/// BF16 x[t][k] → int8 + FP16 scale per (token, 64-wide group), and with
/// `ActOrder::AlsoWarpgroup` the codes in the warpgroup variants' order too.
pub fn quantize(
    gpu: &Gpu,
    x: &CudaSlice<bf16>,
    t: usize,
    act: &mut Activations,
    order: ActOrder,
) -> anyhow::Result<()> {
    ensure!(
        t <= act.capacity,
        "{t} tokens exceed the activation buffer ({})",
        act.capacity
    );
    ensure!(
        x.len() >= t * act.k,
        "input holds fewer than {t} x {} values",
        act.k
    );
    let variant = quant_variant(order);
    let f = gpu.function(variant)?;
    let groups = t * act.k / ACT_GROUP;
    let warps_per_block = variant.launch.threads as usize / 32;
    let cfg = LaunchConfig {
        grid_dim: (groups.div_ceil(warps_per_block) as u32, 1, 1),
        block_dim: (variant.launch.threads, 1, 1),
        // Not padded like q4_linear_add's helpers (gpu::launch::first_kernel_smem): that
        // was slower here (T = 16 up to 2.7 % on the H200, docs/results/h200-2026-12-04e).
        shared_mem_bytes: variant.launch.shared_bytes,
    };
    let (t_i, k_i) = (t as i32, act.k as i32);
    let mut args = KernelArgs::new();
    args.buffer(gpu, x)
        .buffer(gpu, &act.xq)
        .buffer(gpu, &act.xs);
    if order == ActOrder::AlsoWarpgroup {
        args.buffer(gpu, &act.xqw);
    }
    args.value(t_i).value(k_i);
    let pdl = gpu.pdl_for(variant, LaunchOrder::First);
    unsafe { launch(gpu, f, cfg, &mut args, pdl, variant.name) }
}

/// One launch of `variant` over tokens `first..first+width` of `act`, writing those rows of y.
pub fn project(
    gpu: &Gpu,
    variant: &'static Variant,
    w: &DeviceWeights,
    act: &Activations,
    first: usize,
    width: usize,
    y: &mut CudaSlice<bf16>,
) -> anyhow::Result<()> {
    let Shape { n, k } = w.shape;
    ensure!(
        act.k == k,
        "activations have K={} but the weights K={k}",
        act.k
    );
    ensure!(
        width >= 1 && width as u32 <= variant.launch.max_width,
        "{} serves widths 1..={}, asked {width}",
        variant.name,
        variant.launch.max_width
    );
    ensure!(
        first + width <= act.capacity && y.len() >= (first + width) * n,
        "buffers too small"
    );
    let rows_per_cta = variant
        .launch
        .extra("rows_per_cta")
        .context("launch value rows_per_cta")? as usize;
    let k_split = variant.launch.extra("k_split").unwrap_or(1) as usize;
    if n % rows_per_cta != 0 || k % 128 != 0 || rows_per_cta < MIN_ROWS_PER_CTA {
        bail!(
            "{} needs N a multiple of {rows_per_cta} and K of 128; shape is {n}x{k}",
            variant.name
        );
    }
    ensure!(
        (1..=MAX_K_SPLIT).contains(&k_split) && k_split <= k / 128,
        "{}: k_split {k_split} outside 1..={MAX_K_SPLIT} or above K/128",
        variant.name
    );
    ensure!(
        w.workspace.len() >= n * variant.launch.max_width as usize * k_split
            && w.counters.len() >= n / rows_per_cta,
        "K-split workspace too small"
    );
    let f = gpu.function(variant)?;
    let grid = (n / rows_per_cta, k_split);
    // With PDL (sm_90 PTX) the first weight loads are issued before the activations'
    // wait, so they overlap the quantization kernel ahead. Launched early, the CTAs land
    // wherever they fit as the SMs drain: the shared memory is padded so that no SM
    // takes more than its share of the grid.
    let pdl = gpu.pdl_for(variant, LaunchOrder::Second);
    let mut shared =
        (variant.launch.shared_bytes + act_smem_bytes(variant, k, k_split, width)) as usize;
    if pdl {
        shared = even_share_smem(gpu, f, variant, shared, grid)?;
    }
    if shared > 0 {
        // dynamic shared memory past 48 KiB (minus the static reduction buffer) needs the
        // limit raised first
        gpu.allow_dynamic_shared(f, variant.name, shared)?;
    }
    let cfg = LaunchConfig {
        grid_dim: (grid.0 as u32, grid.1 as u32, 1),
        block_dim: (variant.launch.threads, 1, 1),
        shared_mem_bytes: shared as u32,
    };
    let xq = if is_warpgroup(variant) {
        act.xqw.slice(first * k..)
    } else {
        act.xq.slice(first * k..)
    };
    let xs = act.xs.slice(first * (k / ACT_GROUP)..);
    let y_rows = y.slice_mut(first * n..);
    let (n_i, k_i, t_i) = (n as i32, k as i32, width as i32);
    let mut args = KernelArgs::new();
    args.buffer(gpu, &w.codes)
        .buffer(gpu, &w.scales)
        .buffer(gpu, &xq)
        .buffer(gpu, &xs)
        .buffer(gpu, &y_rows)
        .value(n_i)
        .value(k_i)
        .value(t_i)
        // Written by the kernel; ordered by the stream (see `DeviceWeights`).
        .buffer(gpu, &w.workspace)
        .buffer(gpu, &w.counters);
    if takes_x_tensor_map(variant) {
        let (base, _sync) = xq.device_ptr(&gpu.stream);
        let map = xq_tiles(variant, k, width)
            .encode(base)
            .with_context(|| format!("{}: the activation codes' tensor map", variant.name))?;
        args.tensor_map(map);
    }
    unsafe { launch(gpu, f, cfg, &mut args, pdl, variant.name) }
}

/// The tiling of the launch's activation code rows (`k` int8 codes each, `xqw`) that the
/// warpgroup schedules copy: one 128-wide group of every token row the launch serves per
/// box (`max_width` rows; rows past `width` land as zeros).
pub fn xq_tiles(variant: &Variant, k: usize, width: usize) -> SwizzledTiles {
    SwizzledTiles {
        elem: TileElem::I8,
        rows: width,
        cols: k,
        box_rows: variant.launch.max_width as usize,
        box_cols: 128,
    }
}

/// Dynamic shared memory of an `act_smem` variant: the activations of its K range
/// (`ceil(G/k_split)` groups, G = K/128) for `min(width, max_width)` tokens: xq rows of
/// `128*groups + 64` bytes, then xs rows of `2*groups + 2` FP16 (the kernel's layout).
pub fn act_smem_bytes(variant: &Variant, k: usize, k_split: usize, width: usize) -> u32 {
    if variant.launch.extra("act_smem").unwrap_or(0) == 0 {
        return 0;
    }
    let rows = width.min(variant.launch.max_width as usize);
    act_smem_layout(k, k_split, rows).bytes as u32
}

/// The `act_smem` staging layout (the kernel's, also used by `emulate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActSmemLayout {
    /// Bytes per xq row: `128 * ceil(G/k_split) + 64`.
    pub xq_pitch: usize,
    /// FP16 per xs row: `2 * ceil(G/k_split) + 2`; the xs rows follow the `rows` xq rows.
    pub xs_pitch: usize,
    pub bytes: usize,
}

pub fn act_smem_layout(k: usize, k_split: usize, rows: usize) -> ActSmemLayout {
    let groups = (k / 128).div_ceil(k_split);
    let (xq_pitch, xs_pitch) = (128 * groups + 64, 2 * groups + 2);
    ActSmemLayout {
        xq_pitch,
        xs_pitch,
        bytes: rows * (xq_pitch + 2 * xs_pitch),
    }
}

/// The whole op, y[t][n] = x[t][k] · Wᵀ: quantize, then launches of at most
/// `MAX_LAUNCH_WIDTH` columns, each with the variant `choose(width)` names.
pub fn forward(
    gpu: &Gpu,
    w: &DeviceWeights,
    x: &CudaSlice<bf16>,
    t: usize,
    act: &mut Activations,
    y: &mut CudaSlice<bf16>,
    choose: &dyn Fn(u32) -> &'static Variant,
) -> anyhow::Result<()> {
    // The layouts this call's launches read (no allocation: this is every step's path).
    let mut order = ActOrder::Plain;
    crate::ops::routed::split_launches(t, MAX_LAUNCH_WIDTH, |_, width| {
        if is_warpgroup(choose(width as u32)) {
            order = ActOrder::AlsoWarpgroup;
        }
        Ok(())
    })?;
    quantize(gpu, x, t, act, order)?;
    crate::ops::routed::split_launches(t, MAX_LAUNCH_WIDTH, |first, width| {
        project(gpu, choose(width as u32), w, act, first, width, y)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_and_count_bytes() {
        let s = Shape::parse("5120x17408").unwrap();
        assert_eq!(s, Shape { n: 5120, k: 17408 });
        // 2-bit codes + one FP16 scale per 128: the 5.5 µs floor at 4.3 TB/s.
        assert_eq!(weight_bytes(s), 5120 * 17408 / 4 + 5120 * 136 * 2);
        assert!(Shape::parse("5120").is_err());
        assert!(Shape::parse("ax5").is_err());
    }

    /// The catalog's `shared_bytes` is the kernels' own ring size: T2W_SMEM of
    /// common/t2_warpgroup.cuh (which traps when given less) and `stages + 1` T2_RSTAGEs
    /// of t2_i8_small.cu.tera, restated here from the kernel sources.
    #[test]
    fn catalog_shared_bytes_are_the_kernels_rings() {
        let family = crate::catalog::family("t2_i8_small").expect("catalog.toml declares it");
        for &i in family.candidates {
            let v = &crate::catalog::VARIANTS[i];
            let p = |name: &str| v.param(name).unwrap() as u32;
            let want = if p("wgmma") == 1 {
                // the power of two above stages + words - 1 (words = 2: one group's MMAs
                // in flight besides the stages ahead)
                let ring = (p("stages") + p("words")).next_power_of_two().max(4);
                // alignment, the ring, 128 bytes of `full` mbarriers (T2W_SMEM)
                1024 + ring * (8 * p("column_tiles") * (128 + 16 + 4) + p("k_warps") * 544) + 128
            } else if p("row_bands") == 1 {
                (p("stages") + 1) * 8 * p("column_tiles") * (192 + 4)
            } else {
                0
            };
            assert_eq!(v.launch.shared_bytes, want, "{}", v.name);
        }
    }

    /// The launch split and the workspace are sized by these two; they must be the
    /// catalog's widest `max_width` and largest `k_split`, not just bounds on them.
    #[test]
    fn launch_limits_are_the_catalogs() {
        let family = crate::catalog::family("t2_i8_small").expect("catalog.toml declares it");
        assert_eq!(family.widest_launch(), MAX_LAUNCH_WIDTH);
        let most_splits = family
            .candidates
            .iter()
            .map(|&i| crate::catalog::VARIANTS[i].param("k_split").unwrap() as usize)
            .max();
        assert_eq!(most_splits, Some(MAX_K_SPLIT));
    }
}
