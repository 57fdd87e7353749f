//! CPU reference of the ternary small-T projection, written from the format's
//! definition (docs/formats.md):
//!
//! ```text
//!   W[n][k] = code[n][k] * w_scale[n][k/128]      X[t][k] = xq[t][k] * xs[t][k/64]
//!   y[t][n] = sum_k W[n][k] * X[t][k]             (f64)
//! ```

use half::{bf16, f16};

pub use crate::ops::quant::{dequantize_activations, quantize_activations, ACT_GROUP};

/// K elements per weight scale.
pub const W_GROUP: usize = 128;

fn check(codes: &[i8], scales: &[f16], xq: &[i8], xs: &[f16], n: usize, k: usize, t: usize) {
    assert!(
        k.is_multiple_of(W_GROUP),
        "k = {k} is not a multiple of {W_GROUP}"
    );
    assert_eq!(codes.len(), n * k, "codes must hold n*k values");
    assert_eq!(
        scales.len(),
        n * (k / W_GROUP),
        "scales must hold n*(k/128) values"
    );
    assert!(
        xq.len() >= t * k && xs.len() >= t * (k / ACT_GROUP),
        "activations hold fewer than {t} tokens"
    );
}

/// The definition, literally: dense dequantized W times dequantized X, in f64.
/// O(n·k·t) with no shortcuts; for small shapes and to cross-check [`reference_projection`].
pub fn reference_projection_dense(
    codes: &[i8],
    scales: &[f16],
    xq: &[i8],
    xs: &[f16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    check(codes, scales, xq, xs, n, k, t);
    let groups = k / W_GROUP;
    let w: Vec<f64> = (0..n * k)
        .map(|i| codes[i] as f64 * scales[(i / k) * groups + (i % k) / W_GROUP].to_f64())
        .collect();
    let x = dequantize_activations(xq, xs, t, k);
    let mut y = vec![0.0f64; t * n];
    for tt in 0..t {
        for row in 0..n {
            y[tt * n + row] = (0..k).map(|kk| w[row * k + kk] * x[tt * k + kk]).sum();
        }
    }
    y
}

/// `y[t][n]` (f64, row-major) of the projection of quantized activations by the dense
/// ternary weights `codes[n][k]` with scales `scales[n][k/128]`. Same value as
/// [`reference_projection_dense`] (each 64-wide chunk's integer sum is exact, then
/// scaled in f64), fast enough for the registered shapes; rows are split over threads.
pub fn reference_projection(
    codes: &[i8],
    scales: &[f16],
    xq: &[i8],
    xs: &[f16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    check(codes, scales, xq, xs, n, k, t);
    let groups = k / W_GROUP;
    let chunks = k / ACT_GROUP;
    // yt[row][t], filled per row band by a thread, transposed at the end.
    let mut yt = vec![0.0f64; n * t];
    let threads = std::thread::available_parallelism()
        .map(|v| v.get())
        .unwrap_or(1)
        .min(n.max(1));
    let band = n.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (bi, out) in yt.chunks_mut(band * t.max(1)).enumerate() {
            scope.spawn(move || {
                for (ri, yrow) in out.chunks_mut(t.max(1)).enumerate() {
                    let row = bi * band + ri;
                    let wrow = &codes[row * k..(row + 1) * k];
                    for (tt, yv) in yrow.iter_mut().enumerate().take(t) {
                        let xrow = &xq[tt * k..(tt + 1) * k];
                        let mut acc = 0.0f64;
                        for c in 0..chunks {
                            let dot: i32 = wrow[c * ACT_GROUP..(c + 1) * ACT_GROUP]
                                .iter()
                                .zip(&xrow[c * ACT_GROUP..(c + 1) * ACT_GROUP])
                                .map(|(&a, &b)| a as i32 * b as i32)
                                .sum();
                            let ws = scales[row * groups + c / 2].to_f64();
                            acc += dot as f64 * ws * xs[tt * chunks + c].to_f64();
                        }
                        *yv = acc;
                    }
                }
            });
        }
    });
    let mut y = vec![0.0f64; t * n];
    for row in 0..n {
        for tt in 0..t {
            y[tt * n + row] = yt[row * t + tt];
        }
    }
    y
}

/// The whole op from BF16 activations: quantize (the kernel's rule), then project.
pub fn reference_forward(
    x: &[bf16],
    codes: &[i8],
    scales: &[f16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    let (xq, xs) = quantize_activations(x, t, k);
    reference_projection(codes, scales, &xq, &xs, n, k, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random(n: usize, k: usize, t: usize, seed: u64) -> (Vec<i8>, Vec<f16>, Vec<bf16>) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let codes = (0..n * k).map(|_| rng.random_range(-1i8..=1)).collect();
        let scales = (0..n * k / 128)
            .map(|_| f16::from_f32(rng.random_range(0.01f32..0.03)))
            .collect();
        let x = (0..t * k)
            .map(|_| bf16::from_f32(rng.random_range(-2.0f32..2.0)))
            .collect();
        (codes, scales, x)
    }

    #[test]
    fn fast_reference_equals_the_definition() {
        for (n, k, t) in [(16, 128, 1), (32, 256, 3), (48, 384, 9)] {
            let (codes, scales, x) = random(n, k, t, n as u64);
            let (xq, xs) = quantize_activations(&x, t, k);
            let a = reference_projection(&codes, &scales, &xq, &xs, n, k, t);
            let b = reference_projection_dense(&codes, &scales, &xq, &xs, n, k, t);
            for (u, v) in a.iter().zip(&b) {
                assert!((u - v).abs() <= 1e-12 * (1.0 + v.abs()), "{u} vs {v}");
            }
        }
    }

    #[test]
    fn forward_is_close_to_the_unquantized_product() {
        let (n, k, t) = (32, 512, 2);
        let (codes, scales, x) = random(n, k, t, 3);
        let y = reference_forward(&x, &codes, &scales, n, k, t);
        for tt in 0..t {
            for row in 0..n {
                let exact: f64 = (0..k)
                    .map(|kk| {
                        codes[row * k + kk] as f64
                            * scales[row * 4 + kk / 128].to_f64()
                            * x[tt * k + kk].to_f64()
                    })
                    .sum();
                // int8 activations: relative error ~ 1/127 per element, averaging out.
                assert!(
                    (y[tt * n + row] - exact).abs() < 0.02,
                    "{} vs {exact}",
                    y[tt * n + row]
                );
            }
        }
    }
}
