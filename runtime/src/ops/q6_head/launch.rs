//! Host side of the 6-bit vocabulary head on the GPU: weight upload and the launches,
//! split into column chunks no wider than a variant serves. Inference and calibration
//! both go through `forward`; they differ only in how a width is mapped to a variant.

use anyhow::{bail, ensure, Context as _};
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use half::{bf16, f16};

use super::pack::{PackedQ6, BLOCK_K, GROUP, TILE_ROWS};
use crate::catalog::{self, Family, Variant};
use crate::gpu::Gpu;

/// Widest launch any q6_head variant serves; wider inputs are split.
pub const MAX_LAUNCH_WIDTH: usize = 32;

pub use crate::ops::shape::Shape;

/// Bytes the op must read from memory: 6-bit codes and FP16 scales per 64.
pub fn weight_bytes(shape: Shape) -> usize {
    shape.groupwise_weight_bytes(6, GROUP)
}

/// Packed 6-bit weights resident on the GPU.
pub struct DeviceWeights {
    pub shape: Shape,
    pub codes: CudaSlice<u8>,
    pub scales: CudaSlice<f16>,
}

pub fn upload(gpu: &Gpu, packed: &PackedQ6, shape: Shape) -> anyhow::Result<DeviceWeights> {
    Ok(DeviceWeights {
        shape,
        codes: gpu.stream.clone_htod(&packed.codes)?,
        scales: gpu.stream.clone_htod(&packed.scales)?,
    })
}

pub fn family() -> &'static Family {
    catalog::family("q6_head").expect("catalog.toml declares q6_head")
}

/// One launch of `variant` over tokens `first..first+width`: logits rows
/// `first..first+width` = x rows `first..first+width` · Wᵀ (FP32).
pub fn project(
    gpu: &Gpu,
    variant: &'static Variant,
    w: &DeviceWeights,
    x: &CudaSlice<bf16>,
    first: usize,
    width: usize,
    logits: &mut CudaSlice<f32>,
) -> anyhow::Result<()> {
    let Shape { n, k } = w.shape;
    ensure!(
        width >= 1 && width as u32 <= variant.launch.max_width,
        "{} serves widths 1..={}, asked {width}",
        variant.name,
        variant.launch.max_width
    );
    ensure!(
        x.len() >= (first + width) * k && logits.len() >= (first + width) * n,
        "buffers too small"
    );
    if n % TILE_ROWS != 0 || k % BLOCK_K != 0 {
        bail!(
            "{} needs N a multiple of {TILE_ROWS} and K of {BLOCK_K}; shape is {n}x{k}",
            variant.name
        );
    }
    let rows_per_cta = variant
        .launch
        .extra("rows_per_cta")
        .context("launch value rows_per_cta")? as usize;
    let f = gpu.function(variant)?;
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(rows_per_cta) as u32, 1, 1),
        block_dim: (variant.launch.threads, 1, 1),
        shared_mem_bytes: variant.launch.shared_bytes,
    };
    let x_rows = x.slice(first * k..);
    let mut y_rows = logits.slice_mut(first * n..);
    let (n_i, k_i, t_i) = (n as i32, k as i32, width as i32);
    let mut b = gpu.stream.launch_builder(f);
    b.arg(&w.codes)
        .arg(&w.scales)
        .arg(&x_rows)
        .arg(&mut y_rows)
        .arg(&n_i)
        .arg(&k_i)
        .arg(&t_i);
    unsafe { b.launch(cfg) }.with_context(|| format!("launching {}", variant.name))?;
    Ok(())
}

/// The whole op, logits[t][n] = x[t][k] · Wᵀ: launches of at most `MAX_LAUNCH_WIDTH`
/// columns, each with the variant `choose(width)` names.
pub fn forward(
    gpu: &Gpu,
    w: &DeviceWeights,
    x: &CudaSlice<bf16>,
    t: usize,
    logits: &mut CudaSlice<f32>,
    choose: &dyn Fn(u32) -> &'static Variant,
) -> anyhow::Result<()> {
    crate::ops::routed::split_launches(t, MAX_LAUNCH_WIDTH, |first, width| {
        project(gpu, choose(width as u32), w, x, first, width, logits)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::VARIANTS;

    #[test]
    fn shapes_parse_and_count_bytes() {
        let s = Shape::parse("248320x5120").unwrap();
        assert_eq!(s, Shape { n: 248320, k: 5120 });
        // 6-bit codes + one FP16 scale per 64: 993.3 MB, the 240 us floor at 4.13 TB/s.
        assert_eq!(weight_bytes(s), 953_548_800 + 39_731_200);
        assert!(Shape::parse("5120").is_err());
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
            let tpw = v
                .params
                .iter()
                .find(|(k, _)| *k == "tiles_per_warp")
                .map(|p| p.1 as usize)
                .unwrap();
            assert_eq!(rows, v.launch.threads as usize / 2 * tpw, "{}", v.name);
            assert_eq!(v.launch.shared_bytes, 0, "{}", v.name);
            if v.schedule.starts_with("gemv") {
                assert_eq!(v.launch.max_width, 2, "{}", v.name);
            }
        }
    }
}
