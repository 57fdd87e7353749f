//! The 16-level Lloyd-Max codebook of `rk4v4`'s K: the quantizer of a unit Gaussian with
//! least mean squared error (Max, 1960), the distribution of a Hadamard-rotated K
//! coordinate divided by its group's RMS.
//!
//! Levels are symmetric, `±LLOYD_MAX_16[i]`. The stored code is the unsigned index `u`
//! (0..15) of the level in ascending order: `u = 8 + i` for `+LLOYD_MAX_16[i]`, `u = 7 - i`
//! for `-LLOYD_MAX_16[i]` (so the code's top bit is the sign). The kernels and the CPU
//! rule use the levels rounded to FP16 ([`levels_f16`]): a level times an FP16 scale is
//! exact in f32 (11 × 11 significant bits).
//!
//! **Encoding rule:** `u` is the index of the FP16 level nearest to `y` (f32); the
//! decision thresholds are the f32 midpoints `t[j] = (level[j] + level[j+1]) / 2`, exact
//! (the sum of two FP16 values of these magnitudes is exact in f32, halving is exact);
//! `y` exactly on `t[j]` goes to the even one of `j`, `j + 1` ("nearest, ties to even
//! code"):
//!
//! ```text
//!   u = sum over j in 0..15 of [ y > t[j]  or  (y == t[j] and j odd) ]
//! ```

use half::f16;

/// The positive levels of the 16-level Lloyd-Max quantizer of N(0, 1), ascending (f64, the
/// fixed point of Lloyd's iteration; test `lloyd_iteration_converges_to_the_table`).
pub const LLOYD_MAX_16: [f64; 8] = [
    0.128_395_029_851_147,
    0.388_048_299_490_292,
    0.656_759_118_532_465,
    0.942_340_456_486_965,
    1.256_231_197_347_18,
    1.618_046_386_021_887,
    2.069_017_226_531_388,
    2.732_589_570_995_164,
];

/// Mean squared error of [`LLOYD_MAX_16`] on N(0, 1): 0.0095010 (Max's 1960 table prints
/// 0.009497; the integral of its own levels gives 0.009501, test
/// `mse_on_a_unit_gaussian`). Relative RMS error 9.75 %.
pub const LLOYD_MAX_16_MSE: f64 = 0.009_501_008;

/// The 16 levels in code order (ascending), rounded to FP16.
pub fn levels_f16() -> [f16; 16] {
    std::array::from_fn(|u| {
        if u >= 8 {
            f16::from_f64(LLOYD_MAX_16[u - 8])
        } else {
            f16::from_f64(-LLOYD_MAX_16[7 - u])
        }
    })
}

/// The 15 decision thresholds (f32), `t[j]` between codes `j` and `j + 1`.
pub fn thresholds() -> [f32; 15] {
    let l = levels_f16();
    std::array::from_fn(|j| (l[j].to_f32() + l[j + 1].to_f32()) / 2.0)
}

/// The code of `y` (module docs: nearest FP16 level, ties to the even code).
pub fn encode(y: f32, t: &[f32; 15]) -> u8 {
    t.iter()
        .enumerate()
        .map(|(j, &tj)| (y > tj || (y == tj && j % 2 == 1)) as u8)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdf(x: f64) -> f64 {
        (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt()
    }

    /// Φ(x) for x >= 0 from erf(z) = 2/√π e^{-z²} Σ 2^n z^{2n+1} / (2n+1)!! (positive
    /// terms, no cancellation; ample for the thresholds here, all below 2.5).
    fn cdf(x: f64) -> f64 {
        let z = x / std::f64::consts::SQRT_2;
        let (mut term, mut sum, mut n) = (z, 0.0f64, 0.0f64);
        while term > 1e-18 * sum.max(1e-300) || n < 2.0 {
            sum += term;
            term *= 2.0 * z * z / (2.0 * n + 3.0);
            n += 1.0;
        }
        let erf = 2.0 / std::f64::consts::PI.sqrt() * (-z * z).exp() * sum;
        0.5 * (1.0 + erf)
    }

    /// One Lloyd step on the positive half (the codebook is symmetric, 0 a threshold):
    /// each level becomes the centroid of its cell, E[x | a < x < b] = (φ(a) - φ(b)) /
    /// (Φ(b) - Φ(a)).
    fn lloyd_step(l: &[f64; 8]) -> [f64; 8] {
        std::array::from_fn(|i| {
            let a = if i == 0 { 0.0 } else { (l[i - 1] + l[i]) / 2.0 };
            if i == 7 {
                pdf(a) / (1.0 - cdf(a))
            } else {
                let b = (l[i] + l[i + 1]) / 2.0;
                (pdf(a) - pdf(b)) / (cdf(b) - cdf(a))
            }
        })
    }

    #[test]
    fn fp16_levels_are_pinned() {
        // The kernels' constant table (docs/formats.md, "KV cache").
        let bits: Vec<u16> = levels_f16()[8..].iter().map(|l| l.to_bits()).collect();
        assert_eq!(
            bits,
            [0x301c, 0x3635, 0x3941, 0x3b8a, 0x3d06, 0x3e79, 0x4023, 0x4177]
        );
        assert_eq!(levels_f16()[0].to_bits(), 0xc177);
        assert_eq!(thresholds()[14], 2.400_390_6);
    }

    #[test]
    fn cdf_is_accurate() {
        assert!((cdf(0.0) - 0.5).abs() < 1e-15);
        assert!((cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-14);
        assert!((cdf(2.0) - 0.977_249_868_051_820_8).abs() < 1e-14);
    }

    #[test]
    fn table_is_a_lloyd_fixed_point() {
        let next = lloyd_step(&LLOYD_MAX_16);
        for (a, b) in LLOYD_MAX_16.iter().zip(&next) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn lloyd_iteration_converges_to_the_table() {
        let mut l: [f64; 8] = std::array::from_fn(|i| (i as f64 + 0.5) * 0.35);
        for _ in 0..3000 {
            l = lloyd_step(&l);
        }
        for (a, b) in l.iter().zip(&LLOYD_MAX_16) {
            assert!((a - b).abs() < 1e-10, "{a} vs {b}");
        }
    }

    #[test]
    fn mse_on_a_unit_gaussian() {
        // E[(x - q(x))²] over the positive half, times 2, by the midpoint rule on [0, 9].
        let t: Vec<f64> = (0..7)
            .map(|i| (LLOYD_MAX_16[i] + LLOYD_MAX_16[i + 1]) / 2.0)
            .collect();
        let (n, hi) = (90_000, 9.0);
        let h = hi / n as f64;
        let mse: f64 = (0..n)
            .map(|k| {
                let x = (k as f64 + 0.5) * h;
                let c = LLOYD_MAX_16[t.iter().filter(|&&tj| x > tj).count()];
                (x - c) * (x - c) * pdf(x) * h
            })
            .sum::<f64>()
            * 2.0;
        assert!((mse - LLOYD_MAX_16_MSE).abs() < 1e-7, "{mse}");
        // At a Lloyd fixed point E[x q(x)] = E[q(x)²], so MSE = 1 - Σ c² P(cell).
        let closed = 1.0
            - 2.0
                * (0..8)
                    .map(|i| {
                        let lo = if i == 0 { 0.5 } else { cdf(t[i - 1]) };
                        let hi = if i == 7 { 1.0 } else { cdf(t[i]) };
                        LLOYD_MAX_16[i] * LLOYD_MAX_16[i] * (hi - lo)
                    })
                    .sum::<f64>();
        assert!((closed - LLOYD_MAX_16_MSE).abs() < 1e-9, "{closed}");
    }

    #[test]
    fn encode_is_nearest_level_with_ties_to_even() {
        let (l, t) = (levels_f16(), thresholds());
        assert!(l.windows(2).all(|w| w[0] < w[1]));
        for u in 0..16 {
            assert_eq!(l[u].to_f32(), -l[15 - u].to_f32());
            assert_eq!(encode(l[u].to_f32(), &t), u as u8);
        }
        for j in 0..15 {
            // Exact midpoint of two FP16 levels.
            assert_eq!(
                t[j] as f64,
                (l[j].to_f64() + l[j + 1].to_f64()) / 2.0,
                "threshold {j} is not exact"
            );
            let even = if j % 2 == 0 { j } else { j + 1 };
            assert_eq!(encode(t[j], &t), even as u8);
            assert_eq!(encode(t[j].next_down(), &t), j as u8);
            assert_eq!(encode(t[j].next_up(), &t), j as u8 + 1);
        }
        assert_eq!(encode(0.0, &t), 8);
        assert_eq!(encode(-100.0, &t), 0);
        assert_eq!(encode(100.0, &t), 15);
        // Brute force: nearest level.
        for k in -4000..4000 {
            let y = k as f32 * 0.001_37;
            let u = encode(y, &t) as usize;
            let d = (y - l[u].to_f32()).abs();
            assert!(l.iter().all(|c| (y - c.to_f32()).abs() >= d), "{y}");
        }
    }
}
