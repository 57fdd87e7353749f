//! CPU reference of the groupwise Q4 projection added into a residual, written from the
//! format's definition (docs/formats.md):
//!
//! ```text
//!   W[n][k] = code[n][k] * w_scale[n][k/64]          (code in -8..=7, FP16 scale)
//!   out[t][n] = residual[t][n] + sum_k W[n][k] * x[t][k]    (f64; x, residual BF16)
//! ```

use half::{bf16, f16};

/// K elements per weight scale.
pub const W_GROUP: usize = 64;

fn check(codes: &[i8], scales: &[f16], x: &[bf16], n: usize, k: usize, t: usize) {
    assert!(k % W_GROUP == 0, "k = {k} is not a multiple of {W_GROUP}");
    assert_eq!(codes.len(), n * k, "codes must hold n*k values");
    assert_eq!(
        scales.len(),
        n * (k / W_GROUP),
        "scales must hold n*(k/64) values"
    );
    assert!(x.len() >= t * k, "activations hold fewer than {t} tokens");
}

/// The definition, literally: dense dequantized W times x, in f64, O(n·k·t).
pub fn reference_product_dense(
    codes: &[i8],
    scales: &[f16],
    x: &[bf16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    check(codes, scales, x, n, k, t);
    let groups = k / W_GROUP;
    let mut y = vec![0.0f64; t * n];
    for tt in 0..t {
        for row in 0..n {
            y[tt * n + row] = (0..k)
                .map(|kk| {
                    codes[row * k + kk] as f64
                        * scales[row * groups + kk / W_GROUP].to_f64()
                        * x[tt * k + kk].to_f64()
                })
                .sum();
        }
    }
    y
}

/// `x · Wᵀ` as `[t][n]` f64, rows split over threads: per group the exact sum of
/// code × x (f64), times the scale. Same value as [`reference_product_dense`] up to f64
/// rounding.
pub fn reference_product(
    codes: &[i8],
    scales: &[f16],
    x: &[bf16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    check(codes, scales, x, n, k, t);
    let groups = k / W_GROUP;
    let xf: Vec<f64> = x[..t * k].iter().map(|v| v.to_f64()).collect();
    let mut yt = vec![0.0f64; n * t];
    let threads = std::thread::available_parallelism()
        .map(|v| v.get())
        .unwrap_or(1)
        .min(n.max(1));
    let band = n.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (bi, out) in yt.chunks_mut(band * t.max(1)).enumerate() {
            let xf = &xf;
            scope.spawn(move || {
                for (ri, yrow) in out.chunks_mut(t.max(1)).enumerate() {
                    let row = bi * band + ri;
                    let wrow = &codes[row * k..(row + 1) * k];
                    for (tt, yv) in yrow.iter_mut().enumerate().take(t) {
                        let xrow = &xf[tt * k..(tt + 1) * k];
                        let mut acc = 0.0f64;
                        for gi in 0..groups {
                            let r = gi * W_GROUP..(gi + 1) * W_GROUP;
                            let dot: f64 = wrow[r.clone()]
                                .iter()
                                .zip(&xrow[r])
                                .map(|(&a, &b)| a as f64 * b)
                                .sum();
                            acc += dot * scales[row * groups + gi].to_f64();
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

/// The op's expected output: `residual + x · Wᵀ` for tokens `0..t` (f64).
pub fn reference_linear_add(
    residual: &[bf16],
    codes: &[i8],
    scales: &[f16],
    x: &[bf16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    let mut y = reference_product(codes, scales, x, n, k, t);
    for (v, r) in y.iter_mut().zip(residual) {
        *v += r.to_f64();
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn fast_reference_equals_the_definition() {
        for (n, k, t) in [(16, 64, 1), (32, 256, 3), (48, 384, 9)] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
            let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(-8i8..=7)).collect();
            let scales: Vec<f16> = (0..n * k / 64)
                .map(|_| f16::from_f32(rng.random_range(0.001f32..0.01)))
                .collect();
            let x: Vec<bf16> = (0..t * k)
                .map(|_| bf16::from_f32(rng.random_range(-2.0f32..2.0)))
                .collect();
            let a = reference_product(&codes, &scales, &x, n, k, t);
            let b = reference_product_dense(&codes, &scales, &x, n, k, t);
            for (u, v) in a.iter().zip(&b) {
                assert!((u - v).abs() <= 1e-12 * (1.0 + v.abs()), "{u} vs {v}");
            }
            let r: Vec<bf16> = (0..t * n).map(|i| bf16::from_f32(i as f32 * 0.5)).collect();
            let c = reference_linear_add(&r, &codes, &scales, &x, n, k, t);
            for i in 0..t * n {
                assert!((c[i] - a[i] - r[i].to_f64()).abs() < 1e-12 * (1.0 + c[i].abs()));
            }
        }
    }
}
