//! CPU reference of the groupwise Q4 projection added into a residual, written from the
//! format's definition (docs/formats.md):
//!
//! ```text
//!   W[n][k] = code[n][k] * w_scale[n][k/64]          (code in -8..=7, FP16 scale)
//!   out[t][n] = residual[t][n] + sum_k W[n][k] * x[t][k]    (f64; x, residual BF16)
//! ```

use half::{bf16, f16};

use crate::ops::{groupwise, quant};

/// K elements per weight scale.
pub const W_GROUP: usize = 64;

/// How the kernels see the activations: BF16 as given, or (the `act_i8` schedules)
/// quantized per (token, 64-group) by the `quant_act_i8` rule (`ops::quant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activations {
    Bf16,
    Int8,
}

/// The op's expected output: `residual + x · Wᵀ` for tokens `0..t` (f64), with `x` as
/// `seen` by the kernel.
#[allow(clippy::too_many_arguments)]
pub fn reference_linear_add(
    residual: &[bf16],
    codes: &[i8],
    scales: &[f16],
    x: &[bf16],
    seen: Activations,
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    let mut y = match seen {
        Activations::Bf16 => groupwise::product(codes, scales, W_GROUP, x, n, k, t),
        Activations::Int8 => {
            let (xq, xs) = quant::quantize_activations(x, t, k);
            let xf = quant::dequantize_activations(&xq, &xs, t, k);
            groupwise::product_f64(codes, scales, W_GROUP, &xf, n, k, t)
        }
    };
    for (v, r) in y.iter_mut().zip(residual) {
        *v += r.to_f64();
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_residual_is_added_to_the_product() {
        let (n, k, t) = (16, 128, 2);
        let codes: Vec<i8> = (0..n * k).map(|i| (i % 16) as i8 - 8).collect();
        let scales: Vec<f16> = (0..n * k / W_GROUP)
            .map(|i| f16::from_f32(0.01 + i as f32 * 1e-3))
            .collect();
        let x: Vec<bf16> = (0..t * k)
            .map(|i| bf16::from_f32((i % 7) as f32 - 3.0))
            .collect();
        let r: Vec<bf16> = (0..t * n).map(|i| bf16::from_f32(i as f32 * 0.5)).collect();
        let a = groupwise::product_dense(&codes, &scales, W_GROUP, &x, n, k, t);
        let c = reference_linear_add(&r, &codes, &scales, &x, Activations::Bf16, n, k, t);
        for i in 0..t * n {
            assert!((c[i] - a[i] - r[i].to_f64()).abs() < 1e-12 * (1.0 + c[i].abs()));
        }
    }
}
