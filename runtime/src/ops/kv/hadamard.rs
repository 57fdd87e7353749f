//! The normalized Walsh–Hadamard transform (Sylvester order) used to rotate K rows (and
//! the queries) of the rotated KV formats:
//!
//! ```text
//!   H[i][j] = (-1)^popcount(i & j) / sqrt(n)        y = H x        (n = 256: 1/16)
//! ```
//!
//! `H` is symmetric and orthonormal, so `H(H(x)) = x` (it is its own inverse) and
//! `(H q)·(H k) = q·k`: attention scores against rotated keys are unchanged when the
//! query is rotated the same way. The rotation spreads an outlier dimension over all
//! 256, so per-group scales of the quantized K are not set by one large channel.
//!
//! **The rule (f32, what the GPU append kernel must match bit for bit):** the unnormalized
//! butterfly in stages `h = 1, 2, 4, …, n/2` in that order, each stage replacing
//! `(x[j], x[j+h])` by `(x[j] + x[j+h], x[j] - x[j+h])` for every `j` with `j & h == 0`
//! (each an f32 add, round to nearest even), then one multiplication by `1/sqrt(n)`,
//! which for `n = 256` is `1/16`, exact. Within a stage the pairs are independent, so any
//! thread mapping gives the same bits as long as the stage order is kept.

use half::bf16;
use std::ops::{Add, Mul, Sub};

fn butterfly<T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T>>(x: &mut [T], norm: T) {
    let n = x.len();
    assert!(
        n.is_power_of_two(),
        "Hadamard length {n} is not a power of two"
    );
    let mut h = 1;
    while h < n {
        for i in (0..n).step_by(2 * h) {
            for j in i..i + h {
                let (a, b) = (x[j], x[j + h]);
                x[j] = a + b;
                x[j + h] = a - b;
            }
        }
        h *= 2;
    }
    for v in x.iter_mut() {
        *v = *v * norm;
    }
}

/// In-place normalized transform in f32 (the append kernel's rule, module docs).
pub fn fwht_f32(x: &mut [f32]) {
    let norm = (1.0 / (x.len() as f64).sqrt()) as f32;
    butterfly(x, norm);
}

/// In-place normalized transform in f64 (references).
pub fn fwht_f64(x: &mut [f64]) {
    let norm = 1.0 / (x.len() as f64).sqrt();
    butterfly(x, norm);
}

/// A BF16 row rotated in f32 (the rule the append kernel applies to K rows).
pub fn rotate_bf16_f32(x: &[bf16]) -> Vec<f32> {
    let mut y: Vec<f32> = x.iter().map(|v| v.to_f32()).collect();
    fwht_f32(&mut y);
    y
}

/// A BF16 row rotated in f64 (the references' query rotation).
pub fn rotate_bf16_f64(x: &[bf16]) -> Vec<f64> {
    let mut y: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
    fwht_f64(&mut y);
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::kv::HEAD_DIM;
    use rand::{Rng, SeedableRng};

    fn random(seed: u64) -> Vec<f64> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..HEAD_DIM).map(|_| rng.random_range(-3.0..3.0)).collect()
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn butterfly_equals_the_dense_matrix() {
        let x = random(1);
        let mut y = x.clone();
        fwht_f64(&mut y);
        for (i, yi) in y.iter().enumerate() {
            let d: f64 = (0..HEAD_DIM)
                .map(|j| {
                    let s = if (i & j).count_ones() % 2 == 0 {
                        1.0
                    } else {
                        -1.0
                    };
                    s * x[j] / 16.0
                })
                .sum();
            assert!((yi - d).abs() < 1e-12, "row {i}: {yi} vs {d}");
        }
    }

    #[test]
    fn is_its_own_inverse() {
        let x = random(2);
        let mut y = x.clone();
        fwht_f64(&mut y);
        fwht_f64(&mut y);
        for (a, b) in x.iter().zip(&y) {
            assert!((a - b).abs() < 1e-13);
        }
        let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut yf = xf.clone();
        fwht_f32(&mut yf);
        fwht_f32(&mut yf);
        for (a, b) in xf.iter().zip(&yf) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
    }

    #[test]
    fn preserves_norms_and_dot_products() {
        let (q, k) = (random(3), random(4));
        let (mut hq, mut hk) = (q.clone(), k.clone());
        fwht_f64(&mut hq);
        fwht_f64(&mut hk);
        let (n, hn) = (dot(&q, &q), dot(&hq, &hq));
        assert!((n - hn).abs() < 1e-12 * n, "{n} vs {hn}");
        let (d, hd) = (dot(&q, &k), dot(&hq, &hk));
        assert!((d - hd).abs() < 1e-12 * n, "{d} vs {hd}");
    }

    #[test]
    fn f32_rule_matches_f64_and_normalization_is_exact() {
        // A unit vector maps to a row of H: every entry exactly ±1/16.
        let mut e = vec![0.0f32; HEAD_DIM];
        e[77] = 1.0;
        fwht_f32(&mut e);
        assert!(e.iter().all(|v| v.abs() == 1.0 / 16.0));
        let x: Vec<bf16> = random(5).iter().map(|&v| bf16::from_f64(v)).collect();
        let (a, b) = (rotate_bf16_f32(&x), rotate_bf16_f64(&x));
        for (u, v) in a.iter().zip(&b) {
            assert!((*u as f64 - v).abs() < 1e-5, "{u} vs {v}");
        }
    }
}
