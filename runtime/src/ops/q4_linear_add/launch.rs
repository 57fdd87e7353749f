//! Host side of the groupwise Q4 linear-add on the GPU: weight upload, the K-split
//! workspace, and the launches, split into column chunks no wider than a variant serves.
//! Inference and calibration both go through `forward`; they differ only in how a width
//! is mapped to a variant (`choose`).

use anyhow::{bail, ensure, Context as _};
use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig};
use half::{bf16, f16};

use super::pack::{PackedQ4, GROUP, TILE_ROWS};
use crate::catalog::{self, Family, Variant, VARIANTS};
use crate::gpu::launch::{even_share_smem, first_kernel_smem, launch, KernelArgs, LaunchOrder};
use crate::gpu::tensor_map::{takes_x_tensor_map, SwizzledTiles, TileElem};
use crate::gpu::Gpu;
use crate::profile::overrides;

/// Widest launch any q4_linear_add variant serves; wider inputs are split (and a launch
/// whose variant serves fewer columns is split again: `launch_plan`).
pub const MAX_LAUNCH_WIDTH: usize = 64;

pub use crate::ops::shape::Shape;

/// Bytes the op must read from memory: 4-bit codes and FP16 scales per 64.
pub fn weight_bytes(shape: Shape) -> usize {
    shape.groupwise_weight_bytes(4, GROUP)
}

/// Packed Q4 weights resident on the GPU.
pub struct DeviceWeights {
    pub shape: Shape,
    pub codes: CudaSlice<u8>,
    pub scales: CudaSlice<f16>,
}

pub fn upload(gpu: &Gpu, packed: &PackedQ4, shape: Shape) -> anyhow::Result<DeviceWeights> {
    Ok(DeviceWeights {
        shape,
        codes: gpu.stream.clone_htod(&packed.codes)?,
        scales: gpu.stream.clone_htod(&packed.scales)?,
    })
}

pub fn family() -> &'static Family {
    catalog::family("q4_linear_add").expect("catalog.toml declares q4_linear_add")
}

/// The scratch of one shape for up to `capacity` tokens: fp32 K-split partial sums for the
/// widest `ws_per_row` of any variant, one arrival counter per row block (kept zeroed by
/// the kernels: the last CTA of a row block resets its counter), and the int8 activations
/// of the `act_i8` schedules.
pub struct Workspace {
    pub n: usize,
    pub ws: CudaSlice<f32>,
    pub counters: CudaSlice<u32>,
    pub act: I8Activations,
}

/// Activations quantized by the module quant_act_i8_q4 for the `act_i8` schedules: int8
/// codes in the weights' k order (`k` per token) and per (token, 64-group) the pair
/// (scale, -8 * sum of the group's codes) as two f32.
pub struct I8Activations {
    pub k: usize,
    pub capacity: usize,
    pub xq: CudaSlice<i8>,
    pub aux: CudaSlice<f32>,
}

impl Workspace {
    pub fn new(gpu: &Gpu, shape: Shape, capacity: usize) -> anyhow::Result<Workspace> {
        let Shape { n, k } = shape;
        let per_row = family()
            .candidates
            .iter()
            .map(|&i| VARIANTS[i].launch.extra("ws_per_row").unwrap_or(0))
            .max()
            .unwrap_or(0)
            .max(1) as usize;
        Ok(Workspace {
            n,
            ws: gpu.stream.alloc_zeros(per_row * n)?,
            counters: gpu.stream.alloc_zeros(n / TILE_ROWS)?,
            act: I8Activations {
                k,
                capacity,
                xq: gpu.stream.alloc_zeros(capacity.max(1) * k)?,
                aux: gpu.stream.alloc_zeros(capacity.max(1) * (k / GROUP) * 2)?,
            },
        })
    }
}

/// Whether `variant` reads int8 activations (`act_i8` schedules).
pub fn reads_int8(variant: &Variant) -> bool {
    variant.launch.extra("act_i8") == Some(1)
}

/// Whether the int8-activation schedules may run (`NINFER_Q4_INT8_ACT`, default yes; a
/// bad value is reported where the commands read the overrides, here it counts as unset).
pub fn int8_activations_allowed() -> bool {
    overrides::get().map(|o| o.q4_int8_act).unwrap_or(true)
}

/// What a route's `chosen` variant runs as at `width`: itself, or with
/// `NINFER_Q4_INT8_ACT=0` the compiled route's variant in place of an int8-activation one.
pub fn runs_as(chosen: &'static Variant, width: u32) -> &'static Variant {
    if reads_int8(chosen) && !int8_activations_allowed() {
        family().compiled_variant(width)
    } else {
        chosen
    }
}

/// The tiling of x rows `first..first+width` (`k` BF16 values each) that the warpgroup
/// schedules copy: a 64-wide group of every token row the launch serves per box
/// (`max_width` rows; rows past `width` land as zeros).
pub fn x_tiles(variant: &Variant, k: usize, width: usize) -> SwizzledTiles {
    SwizzledTiles {
        elem: TileElem::Bf16,
        rows: width,
        cols: k,
        box_rows: variant.launch.max_width as usize,
        box_cols: GROUP,
    }
}

/// The launches of the op over `t` tokens: `(first, width, variant)`, at most
/// `MAX_LAUNCH_WIDTH` columns each; where the variant `choose(width)` names (as it runs in
/// this process, `runs_as`) serves fewer columns, that launch is split again into pieces
/// it serves, each with its own width's variant.
pub fn launch_plan(
    t: usize,
    choose: &dyn Fn(u32) -> &'static Variant,
) -> Vec<(usize, usize, &'static Variant)> {
    let mut plan = Vec::new();
    let _ = crate::ops::routed::split_launches(t, MAX_LAUNCH_WIDTH, |first, width| {
        let v = runs_as(choose(width as u32), width as u32);
        if v.launch.max_width as usize >= width {
            plan.push((first, width, v));
            return Ok(());
        }
        crate::ops::routed::split_launches(width, v.launch.max_width as usize, |f, w| {
            plan.push((first + f, w, runs_as(choose(w as u32), w as u32)));
            Ok(())
        })
    });
    plan
}

pub fn quant_module() -> &'static Variant {
    catalog::module("quant_act_i8_q4").expect("catalog.toml declares module quant_act_i8_q4")
}

/// Quantizes x rows `first..first+width` into the same rows of `act` (quant_act_i8_q4).
pub fn quantize(
    gpu: &Gpu,
    x: &CudaSlice<bf16>,
    first: usize,
    width: usize,
    act: &mut I8Activations,
) -> anyhow::Result<()> {
    let k = act.k;
    ensure!(
        first + width <= act.capacity,
        "{} tokens exceed the int8 activation buffer ({})",
        first + width,
        act.capacity
    );
    let module = quant_module();
    let f = gpu.function(module)?;
    let groups = width * k / GROUP;
    let warps_per_block = module.launch.threads as usize / 32;
    let blocks = groups.div_ceil(warps_per_block);
    let pdl = gpu.pdl_for(module, LaunchOrder::First);
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, 1, 1),
        block_dim: (module.launch.threads, 1, 1),
        shared_mem_bytes: first_kernel_smem(gpu, f, module, blocks, pdl)?,
    };
    let x_rows = x.slice(first * k..);
    let xq_rows = act.xq.slice(first * k..);
    let aux_rows = act.aux.slice(first * (k / GROUP) * 2..);
    let (t_i, k_i) = (width as i32, k as i32);
    let mut args = KernelArgs::new();
    args.buffer(gpu, &x_rows)
        .buffer(gpu, &xq_rows)
        .buffer(gpu, &aux_rows)
        .value(t_i)
        .value(k_i);
    unsafe { launch(gpu, f, cfg, &mut args, pdl, module.name) }
}

/// One launch of `variant` over tokens `first..first+width`: residual rows
/// `first..first+width` += x rows `first..first+width` · Wᵀ. An `act_i8` variant first
/// quantizes those x rows (one more launch); an `x_tensor_map` one gets their tensor map.
#[allow(clippy::too_many_arguments)]
pub fn project(
    gpu: &Gpu,
    variant: &'static Variant,
    w: &DeviceWeights,
    scratch: &mut Workspace,
    x: &CudaSlice<bf16>,
    first: usize,
    width: usize,
    residual: &mut CudaSlice<bf16>,
) -> anyhow::Result<()> {
    let Shape { n, k } = w.shape;
    ensure!(
        width >= 1 && width as u32 <= variant.launch.max_width,
        "{} serves widths 1..={}, asked {width}",
        variant.name,
        variant.launch.max_width
    );
    ensure!(
        x.len() >= (first + width) * k && residual.len() >= (first + width) * n,
        "buffers too small"
    );
    ensure!(
        scratch.n == n && scratch.act.k == k,
        "workspace sized for {}x{}, shape is {n}x{k}",
        scratch.n,
        scratch.act.k
    );
    let int8 = reads_int8(variant);
    let tensor_map = takes_x_tensor_map(variant);
    let rows_per_cta = variant
        .launch
        .extra("rows_per_cta")
        .context("launch value rows_per_cta")? as usize;
    let k_split = variant
        .launch
        .extra("k_split")
        .context("launch value k_split")? as usize;
    let ws_per_row = variant
        .launch
        .extra("ws_per_row")
        .context("launch value ws_per_row")? as usize;
    if n % rows_per_cta != 0 || k % GROUP != 0 {
        bail!(
            "{} needs N a multiple of {rows_per_cta} and K of {GROUP}; shape is {n}x{k}",
            variant.name
        );
    }
    ensure!(
        scratch.ws.len() >= ws_per_row * n && scratch.counters.len() >= n / rows_per_cta,
        "workspace too small for {}",
        variant.name
    );
    if int8 {
        quantize(gpu, x, first, width, &mut scratch.act)?;
    }
    let f = gpu.function(variant)?;
    let grid = (n / rows_per_cta, k_split);
    // With PDL (sm_90 PTX) the first stage's weights go out before the wait (for the
    // quantization ahead, or the kernel before the op). Launched early, the CTAs land
    // wherever they fit as the SMs drain; the shared memory is padded so no SM takes more
    // than its share of the grid (unpadded, T = 1 was 5 % slower with PDL than without on
    // the H200: docs/perf-notes-q4.md).
    let order = if int8 {
        LaunchOrder::Second
    } else {
        LaunchOrder::First
    };
    let pdl = gpu.pdl_for(variant, order);
    let mut shared = shared_bytes(variant, width) as usize;
    if pdl {
        shared = even_share_smem(gpu, f, variant, shared, grid)?;
    }
    // Past 48 KiB less the kernel's static shared memory the launch needs the limit
    // raised (the 32-column producer rings carry 32 token rows per stage).
    gpu.allow_dynamic_shared(f, variant.name, shared)?;
    let cfg = LaunchConfig {
        grid_dim: (grid.0 as u32, grid.1 as u32, 1),
        block_dim: (variant.launch.threads, 1, 1),
        shared_mem_bytes: shared as u32,
    };
    let r_rows = residual.slice_mut(first * n..);
    let (n_i, k_i, t_i) = (n as i32, k as i32, width as i32);
    let mut args = KernelArgs::new();
    args.buffer(gpu, &w.codes).buffer(gpu, &w.scales);
    // x and x_aux: the int8 rows and their (scale, correction) pairs, or the BF16 rows
    // (x_aux then unused)
    let aux_rows = scratch.act.aux.slice(first * (k / GROUP) * 2..);
    let x_rows = x.slice(first * k..);
    if int8 {
        args.buffer(gpu, &scratch.act.xq.slice(first * k..));
    } else {
        args.buffer(gpu, &x_rows);
    }
    args.buffer(gpu, &aux_rows)
        .buffer(gpu, &r_rows)
        .buffer(gpu, &scratch.ws)
        .buffer(gpu, &scratch.counters)
        .value(n_i)
        .value(k_i)
        .value(t_i);
    if tensor_map {
        let (base, _sync) = x_rows.device_ptr(&gpu.stream);
        let map = x_tiles(variant, k, width)
            .encode(base)
            .with_context(|| format!("{}: x's tensor map", variant.name))?;
        args.tensor_map(map);
    }
    unsafe { launch(gpu, f, cfg, &mut args, pdl, variant.name) }
}

/// Dynamic shared memory of one launch: the catalog's fixed part plus, for the producer
/// ring, `shared_per_row` for each token row it carries.
pub fn shared_bytes(variant: &Variant, width: usize) -> u32 {
    let per_row = variant.launch.extra("shared_per_row").unwrap_or(0) as u32;
    variant.launch.shared_bytes + per_row * (width as u32).min(variant.launch.max_width)
}

/// The whole op, residual[t][n] += x[t][k] · Wᵀ: the launches of `launch_plan`.
#[allow(clippy::too_many_arguments)]
pub fn forward(
    gpu: &Gpu,
    w: &DeviceWeights,
    scratch: &mut Workspace,
    x: &CudaSlice<bf16>,
    t: usize,
    residual: &mut CudaSlice<bf16>,
    choose: &dyn Fn(u32) -> &'static Variant,
) -> anyhow::Result<()> {
    for (first, width, variant) in launch_plan(t, choose) {
        project(gpu, variant, w, scratch, x, first, width, residual)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse_and_count_bytes() {
        let s = Shape::parse("5120x17408").unwrap();
        assert_eq!(s, Shape { n: 5120, k: 17408 });
        // 4-bit codes + one FP16 scale per 64: 47.4 MB, the 11 µs floor at 4.3 TB/s.
        assert_eq!(weight_bytes(s), 5120 * 17408 / 2 + 5120 * 272 * 2);
        assert!(Shape::parse("5120").is_err());
    }

    /// Launches of at most 64 columns; a route naming a narrower schedule splits its launch
    /// again, each piece with its own width's route; every token in exactly one launch.
    #[test]
    fn launch_plan_splits_where_the_schedule_is_narrower() {
        let fam = family();
        let compiled = |w: u32| fam.compiled_variant(w);
        let plan =
            |t: usize, choose: &dyn Fn(u32) -> &'static Variant| -> Vec<(usize, usize, u32)> {
                launch_plan(t, choose)
                    .into_iter()
                    .map(|(f, w, v)| (f, w, v.launch.max_width))
                    .collect()
            };
        // the compiled route serves at most 32 columns per launch
        assert_eq!(plan(40, &compiled), vec![(0, 32, 32), (32, 8, 8)]);
        assert_eq!(plan(64, &compiled), vec![(0, 32, 32), (32, 32, 32)]);
        assert_eq!(
            plan(72, &compiled),
            vec![(0, 32, 32), (32, 32, 32), (64, 8, 8)]
        );
        // a 64-column schedule takes whole launches
        let wide = fam
            .candidates
            .iter()
            .map(|&i| &VARIANTS[i])
            .find(|v| v.launch.max_width == 64)
            .expect("a 64-column schedule");
        let routed = |w: u32| if w > 32 { wide } else { compiled(w) };
        assert_eq!(plan(64, &routed), vec![(0, 64, 64)]);
        assert_eq!(plan(70, &routed), vec![(0, 64, 64), (64, 6, 8)]);
        assert!(plan(0, &routed).is_empty());
    }

    /// `NINFER_Q4_INT8_ACT=0` (`runs_as`) falls back to the compiled route, and calibration
    /// always times the compiled route: so it must never round activations to int8.
    #[test]
    fn the_compiled_route_keeps_bf16_activations() {
        let fam = family();
        for &(last, schedule) in fam.compiled {
            let v = fam
                .candidate(schedule)
                .expect("compiled schedules are candidates");
            assert!(
                !reads_int8(v),
                "compiled band up to {last}: {schedule} reads int8 activations"
            );
        }
    }

    #[test]
    fn the_widest_launch_is_the_catalogs() {
        assert_eq!(family().widest_launch(), MAX_LAUNCH_WIDTH);
    }

    #[test]
    fn every_variant_serves_its_launch_values() {
        let fam = family();
        for &i in fam.candidates {
            let v = &VARIANTS[i];
            assert!(
                v.launch.max_width as usize <= MAX_LAUNCH_WIDTH,
                "{}",
                v.name
            );
            let rows = v.launch.extra("rows_per_cta").unwrap() as usize;
            assert!(5120 % rows == 0, "{}", v.name);
            let ks = v.launch.extra("k_split").unwrap();
            let per_row = v.launch.extra("ws_per_row").unwrap();
            assert_eq!(
                per_row,
                if ks > 1 {
                    ks * v.launch.max_width as i64
                } else {
                    0
                },
                "{}",
                v.name
            );
            // Within what every catalog architecture grants once the limit is raised
            // (sm_86 and sm_89: 99 KiB per CTA) at the widest launch.
            let widest = shared_bytes(v, v.launch.max_width as usize);
            assert!(widest <= 99 * 1024, "{}: {widest} bytes", v.name);
            assert!(shared_bytes(v, 1) <= widest, "{}", v.name);
        }
    }
}
