//! What the groupwise families share on the CPU: weights as integer codes with one FP16
//! scale per `group` elements along K, times BF16 activations, in f64 (the reference
//! `q4_linear_add` and `q6_head` are checked against), and a helper that splits work
//! over the cores.
//!
//! ```text
//!   W[n][k] = code[n][k] * scale[n][k/group]
//!   y[t][n] = sum_k W[n][k] * x[t][k]
//! ```

use half::{bf16, f16};

/// Runs `f(first_index, chunk)` over `data` split into chunks of whole `unit`s, one
/// thread per chunk (at most one per core).
pub fn par_chunks<T: Send>(data: &mut [T], unit: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let units = data.len() / unit.max(1);
    let threads = std::thread::available_parallelism()
        .map(|v| v.get())
        .unwrap_or(1)
        .clamp(1, units.max(1));
    let per = units.div_ceil(threads).max(1) * unit;
    std::thread::scope(|s| {
        for (i, chunk) in data.chunks_mut(per).enumerate() {
            let f = &f;
            s.spawn(move || f(i * per / unit.max(1), chunk));
        }
    });
}

fn check(codes: &[i8], scales: &[f16], group: usize, x: &[bf16], n: usize, k: usize, t: usize) {
    assert!(
        group.is_multiple_of(8),
        "group {group} is not a multiple of 8"
    );
    assert!(
        k.is_multiple_of(group),
        "k = {k} is not a multiple of {group}"
    );
    assert_eq!(codes.len(), n * k, "codes must hold n*k values");
    assert_eq!(
        scales.len(),
        n * (k / group),
        "scales must hold n*(k/group) values"
    );
    assert!(x.len() >= t * k, "activations hold fewer than {t} tokens");
}

/// The definition, literally: dense dequantized W times x, in f64, O(n·k·t), one thread.
pub fn product_dense(
    codes: &[i8],
    scales: &[f16],
    group: usize,
    x: &[bf16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    check(codes, scales, group, x, n, k, t);
    let groups = k / group;
    let mut y = vec![0.0f64; t * n];
    for tt in 0..t {
        for row in 0..n {
            y[tt * n + row] = (0..k)
                .map(|kk| {
                    codes[row * k + kk] as f64
                        * scales[row * groups + kk / group].to_f64()
                        * x[tt * k + kk].to_f64()
                })
                .sum();
        }
    }
    y
}

/// `x · Wᵀ` as `[t][n]` f64, rows split over threads (one per core): per row the codes
/// are widened once, then per token and group an 8-way f64 dot product times the
/// scale. Same value as [`product_dense`] up to f64 rounding.
pub fn product(
    codes: &[i8],
    scales: &[f16],
    group: usize,
    x: &[bf16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    check(codes, scales, group, x, n, k, t);
    let xf: Vec<f64> = x[..t * k].iter().map(|v| v.to_f64()).collect();
    product_f64(codes, scales, group, &xf, n, k, t)
}

/// [`product`] of activations already in f64 (e.g. dequantized int8 ones).
pub fn product_f64(
    codes: &[i8],
    scales: &[f16],
    group: usize,
    xf: &[f64],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    assert!(xf.len() >= t * k, "activations hold fewer than {t} tokens");
    assert_eq!(codes.len(), n * k, "codes must hold n*k values");
    let groups = k / group;
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
                    let wg = &w[gi * group..(gi + 1) * group];
                    let xg = &xrow[gi * group..(gi + 1) * group];
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
    fn threaded_product_equals_the_definition() {
        for (n, k, t, group, lo, hi) in [
            (16, 128, 1, 64, -32i8, 31i8),
            (32, 256, 3, 64, -8, 7),
            (48, 384, 9, 128, -1, 1),
        ] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
            let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(lo..=hi)).collect();
            let scales: Vec<f16> = (0..n * k / group)
                .map(|_| f16::from_f32(rng.random_range(0.001f32..0.01)))
                .collect();
            let x: Vec<bf16> = (0..t * k)
                .map(|_| bf16::from_f32(rng.random_range(-2.0f32..2.0)))
                .collect();
            let a = product(&codes, &scales, group, &x, n, k, t);
            let b = product_dense(&codes, &scales, group, &x, n, k, t);
            for (u, v) in a.iter().zip(&b) {
                assert!((u - v).abs() <= 1e-12 * (1.0 + v.abs()), "{u} vs {v}");
            }
        }
    }
}
