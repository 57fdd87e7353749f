//! CPU reference of the 6-bit groupwise vocabulary head, written from the format's
//! definition (docs/formats.md):
//!
//! ```text
//!   W[n][k] = code[n][k] * w_scale[n][k/64]          (code in -32..=31, FP16 scale)
//!   logits[t][n] = sum_k W[n][k] * x[t][k]            (f64; x BF16)
//! ```

use half::{bf16, f16};

use super::par_chunks;

/// K elements per weight scale.
pub const W_GROUP: usize = 64;

fn check(codes: &[i8], scales: &[f16], x: &[bf16], n: usize, k: usize, t: usize) {
    assert!(
        k.is_multiple_of(W_GROUP),
        "k = {k} is not a multiple of {W_GROUP}"
    );
    assert_eq!(codes.len(), n * k, "codes must hold n*k values");
    assert_eq!(
        scales.len(),
        n * (k / W_GROUP),
        "scales must hold n*(k/64) values"
    );
    assert!(x.len() >= t * k, "activations hold fewer than {t} tokens");
}

/// The definition, literally: dense dequantized W times x, in f64, O(n·k·t), one thread.
pub fn reference_dense(
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

/// `x · Wᵀ` as `[t][n]` f64, rows split over threads (one per core): per row the codes
/// are widened once, then per token and 64-group an 8-way f64 dot product times the
/// scale. Same value as [`reference_dense`] up to f64 rounding.
pub fn reference(
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
    let tt = t.max(1);
    let mut yt = vec![0.0f64; n * tt]; // [n][t]
    par_chunks(&mut yt, tt, |row0, out| {
        let mut w = vec![0.0f64; k];
        for (ri, yrow) in out.chunks_mut(tt).enumerate() {
            let row = row0 + ri;
            for (d, &c) in w.iter_mut().zip(&codes[row * k..(row + 1) * k]) {
                *d = c as f64;
            }
            let sc = &scales[row * groups..(row + 1) * groups];
            for (ti, yv) in yrow.iter_mut().enumerate().take(t) {
                let xrow = &xf[ti * k..(ti + 1) * k];
                let mut acc = 0.0f64;
                for (gi, s) in sc.iter().enumerate() {
                    let wg = &w[gi * W_GROUP..(gi + 1) * W_GROUP];
                    let xg = &xrow[gi * W_GROUP..(gi + 1) * W_GROUP];
                    let mut p = [0.0f64; 8];
                    for (wc, xc) in wg.chunks_exact(8).zip(xg.chunks_exact(8)) {
                        for l in 0..8 {
                            p[l] += wc[l] * xc[l];
                        }
                    }
                    acc += p.iter().sum::<f64>() * s.to_f64();
                }
                *yv = acc;
            }
        }
    });
    let mut y = vec![0.0f64; t * n];
    for row in 0..n {
        for ti in 0..t {
            y[ti * n + row] = yt[row * tt + ti];
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn fast_reference_equals_the_definition() {
        for (n, k, t) in [(16, 128, 1), (32, 256, 3), (48, 384, 9)] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
            let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(-32i8..=31)).collect();
            let scales: Vec<f16> = (0..n * k / 64)
                .map(|_| f16::from_f32(rng.random_range(0.001f32..0.01)))
                .collect();
            let x: Vec<bf16> = (0..t * k)
                .map(|_| bf16::from_f32(rng.random_range(-2.0f32..2.0)))
                .collect();
            let a = reference(&codes, &scales, &x, n, k, t);
            let b = reference_dense(&codes, &scales, &x, n, k, t);
            for (u, v) in a.iter().zip(&b) {
                assert!((u - v).abs() <= 1e-12 * (1.0 + v.abs()), "{u} vs {v}");
            }
        }
    }
}
