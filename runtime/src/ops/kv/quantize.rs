//! Quantization of one token's K row and V row (256 dims, one KV head, BF16) into the
//! stored codes and FP16 scales of a [`KvFormat`], and back. The append kernel must
//! produce exactly these bytes; the rules (docs/formats.md, "KV cache"):
//!
//! - **Rotation** (`rk8v4`, `rk4v4` K only): the BF16 row widened to f32 and rotated by
//!   [`fwht_f32`] (fixed stage order, exact 1/16); the groups below are taken over the
//!   rotated row. V is never rotated.
//! - **int8** (groups of 64): `absmax = max |x|` (f32), `s = fp16_rn(absmax / 127)`,
//!   `code = clamp(rne(x / float(s)), -127, 127)` (IEEE f32 division, ties to even);
//!   `s == 0` gives zero codes. For BF16 input this is `quant::quantize_group` bit for bit.
//! - **int4** (V of `rk8v4`, `rk4v4`; groups of 32): the same with 7 for 127, codes in
//!   [-7, 7], stored as 4-bit two's complement.
//! - **Lloyd-Max 4-bit** (K of `rk4v4`; groups of 32): `sumsq` of the 32 squares (each
//!   `x*x` rounded to f32, no FMA) by the XOR tree `v[i] += v[i ^ m]` for `m = 16, 8, 4,
//!   2, 1` (a warp's shuffle-xor reduction, one element per lane: every lane ends with the
//!   same bits), `s = fp16_rn(sqrtf(sumsq / 32))` (the group RMS), `y = x / float(s)`
//!   (IEEE f32), `code = codebook::encode(y)` (nearest FP16 level, ties to the even code);
//!   `s == 0` gives `y = 0`, code 8.
//! - **Nibbles**: element `2i` in the low nibble of byte `i`, `2i + 1` in the high one.
//! - **Dequantization**: `float(code) * float(s)` (int8, int4) or `float(level[code]) *
//!   float(s)` (Lloyd-Max), exact in f32. Rotated K dequantizes to the rotated space;
//!   [`fwht_f64`] (its own inverse) maps it back.
//!
//! Scales must be finite FP16: |K|, |V| below 65504 × 127 (int8), × 7 (int4) and an RMS
//! below 65504 (Lloyd-Max), far above any real activation.

use super::codebook::{encode, levels_f16, thresholds};
use super::format::KvFormat;
use super::hadamard::{fwht_f32, fwht_f64};
use super::HEAD_DIM;
use half::{bf16, f16};

/// One symmetric uniform group: `s = fp16_rn(absmax / qmax)`, codes `clamp(rne(x / s))`.
fn quantize_uniform(x: &[f32], qmax: f32, out: &mut [i8]) -> f16 {
    debug_assert_eq!(x.len(), out.len());
    let absmax = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let s = f16::from_f32(absmax / qmax);
    let sf = s.to_f32();
    for (o, v) in out.iter_mut().zip(x) {
        *o = if sf > 0.0 {
            (v / sf).round_ties_even().clamp(-qmax, qmax) as i8
        } else {
            0
        };
    }
    s
}

/// An int8 group (64 values): FP16 scale `absmax / 127`, codes in [-127, 127].
pub fn quantize_i8_group(x: &[f32], out: &mut [i8]) -> f16 {
    quantize_uniform(x, 127.0, out)
}

/// An int4 group (32 values): FP16 scale `absmax / 7`, codes in [-7, 7].
pub fn quantize_i4_group(x: &[f32], out: &mut [i8]) -> f16 {
    quantize_uniform(x, 7.0, out)
}

/// The sum of squares of 32 values in the XOR-tree order (module docs).
pub fn sumsq_xor_tree(x: &[f32]) -> f32 {
    assert_eq!(x.len(), 32);
    let mut v: Vec<f32> = x.iter().map(|a| a * a).collect();
    for m in [16, 8, 4, 2, 1] {
        v = (0..32).map(|i| v[i] + v[i ^ m]).collect();
    }
    v[0]
}

/// A Lloyd-Max group (32 values): FP16 scale = group RMS, codes 0..15 (module docs).
pub fn quantize_lm4_group(x: &[f32], out: &mut [u8]) -> f16 {
    let s = f16::from_f32((sumsq_xor_tree(x) / 32.0).sqrt());
    let sf = s.to_f32();
    let t = thresholds();
    for (o, v) in out.iter_mut().zip(x) {
        *o = encode(if sf > 0.0 { v / sf } else { 0.0 }, &t);
    }
    s
}

/// Packs 4-bit values (low nibbles of `codes`) two per byte, element `2i` low.
pub fn pack_nibbles(codes: &[u8], out: &mut [u8]) {
    assert_eq!(codes.len(), 2 * out.len());
    for (o, p) in out.iter_mut().zip(codes.chunks_exact(2)) {
        *o = (p[0] & 15) | (p[1] << 4);
    }
}

/// Unpacks two 4-bit values per byte, element `2i` from the low nibble.
pub fn unpack_nibbles(bytes: &[u8]) -> Vec<u8> {
    bytes.iter().flat_map(|b| [b & 15, b >> 4]).collect()
}

/// A signed int4 code from its two's-complement nibble.
pub fn nibble_to_i4(n: u8) -> i8 {
    ((n & 15) ^ 8) as i8 - 8
}

fn check(format: KvFormat, x: &[bf16], codes: &[u8], scales: &[f16], k: bool) {
    let (bytes, groups) = if k {
        (format.k_code_bytes(), format.k_groups())
    } else {
        (format.v_code_bytes(), format.v_groups())
    };
    assert_eq!(x.len(), HEAD_DIM, "a row holds {HEAD_DIM} values");
    assert_eq!(codes.len(), bytes, "{format}: {bytes} code bytes per row");
    assert_eq!(scales.len(), groups, "{format}: {groups} scales per row");
}

/// Quantizes one K row into `codes` (`format.k_code_bytes()`) and `scales`
/// (`format.k_groups()`), rotating first for the rotated formats.
pub fn quantize_k(format: KvFormat, k: &[bf16], codes: &mut [u8], scales: &mut [f16]) {
    check(format, k, codes, scales, true);
    let mut x: Vec<f32> = k.iter().map(|v| v.to_f32()).collect();
    if format.rotated() {
        fwht_f32(&mut x);
    }
    let g = format.k_group();
    match format {
        KvFormat::Int8 | KvFormat::Rk8v4 => {
            let mut q = [0i8; 64];
            for (gi, (xg, cg)) in x.chunks(g).zip(codes.chunks_mut(g)).enumerate() {
                scales[gi] = quantize_i8_group(xg, &mut q);
                for (c, v) in cg.iter_mut().zip(q) {
                    *c = v as u8;
                }
            }
        }
        KvFormat::Rk4v4 => {
            let mut u = [0u8; 32];
            for (gi, (xg, cg)) in x.chunks(g).zip(codes.chunks_mut(g / 2)).enumerate() {
                scales[gi] = quantize_lm4_group(xg, &mut u);
                pack_nibbles(&u, cg);
            }
        }
    }
}

/// Quantizes one V row into `codes` (`format.v_code_bytes()`) and `scales`
/// (`format.v_groups()`).
pub fn quantize_v(format: KvFormat, v: &[bf16], codes: &mut [u8], scales: &mut [f16]) {
    check(format, v, codes, scales, false);
    let x: Vec<f32> = v.iter().map(|a| a.to_f32()).collect();
    let g = format.v_group();
    match format {
        KvFormat::Int8 => {
            let mut q = [0i8; 64];
            for (gi, (xg, cg)) in x.chunks(g).zip(codes.chunks_mut(g)).enumerate() {
                scales[gi] = quantize_i8_group(xg, &mut q);
                for (c, v) in cg.iter_mut().zip(q) {
                    *c = v as u8;
                }
            }
        }
        KvFormat::Rk8v4 | KvFormat::Rk4v4 => {
            let (mut q, mut n) = ([0i8; 32], [0u8; 32]);
            for (gi, (xg, cg)) in x.chunks(g).zip(codes.chunks_mut(g / 2)).enumerate() {
                scales[gi] = quantize_i4_group(xg, &mut q);
                for (a, b) in n.iter_mut().zip(q) {
                    *a = b as u8 & 15;
                }
                pack_nibbles(&n, cg);
            }
        }
    }
}

/// The dequantized K row in the stored space (rotated for the rotated formats), f32
/// (exact: every value is a code times an FP16 scale).
pub fn dequantize_k(format: KvFormat, codes: &[u8], scales: &[f16]) -> Vec<f32> {
    assert_eq!(codes.len(), format.k_code_bytes());
    assert_eq!(scales.len(), format.k_groups());
    let g = format.k_group();
    match format {
        KvFormat::Int8 | KvFormat::Rk8v4 => codes
            .iter()
            .enumerate()
            .map(|(i, &c)| c as i8 as f32 * scales[i / g].to_f32())
            .collect(),
        KvFormat::Rk4v4 => {
            let l = levels_f16();
            unpack_nibbles(codes)
                .iter()
                .enumerate()
                .map(|(i, &u)| l[u as usize].to_f32() * scales[i / g].to_f32())
                .collect()
        }
    }
}

/// The dequantized K row in the original (unrotated) space, f64: the inverse rotation of
/// [`dequantize_k`] for the rotated formats.
pub fn dequantize_k_unrotated(format: KvFormat, codes: &[u8], scales: &[f16]) -> Vec<f64> {
    let mut x: Vec<f64> = dequantize_k(format, codes, scales)
        .iter()
        .map(|&v| v as f64)
        .collect();
    if format.rotated() {
        fwht_f64(&mut x);
    }
    x
}

/// The dequantized V row, f32 (exact).
pub fn dequantize_v(format: KvFormat, codes: &[u8], scales: &[f16]) -> Vec<f32> {
    assert_eq!(codes.len(), format.v_code_bytes());
    assert_eq!(scales.len(), format.v_groups());
    let g = format.v_group();
    match format {
        KvFormat::Int8 => codes
            .iter()
            .enumerate()
            .map(|(i, &c)| c as i8 as f32 * scales[i / g].to_f32())
            .collect(),
        KvFormat::Rk8v4 | KvFormat::Rk4v4 => unpack_nibbles(codes)
            .iter()
            .enumerate()
            .map(|(i, &n)| nibble_to_i4(n) as f32 * scales[i / g].to_f32())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::kv::codebook::LLOYD_MAX_16_MSE;
    use rand::{Rng, SeedableRng};

    fn gaussian_row(rng: &mut impl Rng, sigma: f64) -> Vec<bf16> {
        (0..HEAD_DIM)
            .map(|_| {
                // Box-Muller.
                let (u1, u2): (f64, f64) = (rng.random_range(1e-12..1.0), rng.random());
                let g = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                bf16::from_f64(g * sigma)
            })
            .collect()
    }

    fn k_round_trip(f: KvFormat, k: &[bf16]) -> (Vec<u8>, Vec<f16>, Vec<f64>) {
        let (mut c, mut s) = (vec![0u8; f.k_code_bytes()], vec![f16::ZERO; f.k_groups()]);
        quantize_k(f, k, &mut c, &mut s);
        let d = dequantize_k_unrotated(f, &c, &s);
        (c, s, d)
    }

    fn v_round_trip(f: KvFormat, v: &[bf16]) -> (Vec<u8>, Vec<f16>, Vec<f32>) {
        let (mut c, mut s) = (vec![0u8; f.v_code_bytes()], vec![f16::ZERO; f.v_groups()]);
        quantize_v(f, v, &mut c, &mut s);
        let d = dequantize_v(f, &c, &s);
        (c, s, d)
    }

    fn rel_mse(x: &[bf16], d: &[f64]) -> f64 {
        let e: f64 = x.iter().zip(d).map(|(a, b)| (a.to_f64() - b).powi(2)).sum();
        e / x.iter().map(|a| a.to_f64().powi(2)).sum::<f64>()
    }

    #[test]
    fn int8_k_is_the_activation_rule() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let k = gaussian_row(&mut rng, 0.7);
        let (c, s, _) = k_round_trip(KvFormat::Int8, &k);
        let (q, qs) = crate::ops::quant::quantize_activations(&k, 1, HEAD_DIM);
        assert_eq!(s, qs);
        assert!(c.iter().zip(&q).all(|(&a, &b)| a as i8 == b));
        let (cv, sv, _) = v_round_trip(KvFormat::Int8, &k);
        assert_eq!((cv, sv), (c, s));
    }

    #[test]
    fn uniform_codes_are_within_half_a_step() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for f in KvFormat::ALL {
            let v = gaussian_row(&mut rng, 2.0);
            let (c, s, d) = v_round_trip(f, &v);
            let g = f.v_group();
            let qmax = if f.v_bits() == 8 { 127.0 } else { 7.0 };
            for (i, (a, b)) in v.iter().zip(&d).enumerate() {
                let sf = s[i / g].to_f32();
                let absmax = v[i / g * g..][..g]
                    .iter()
                    .fold(0f32, |m, x| m.max(x.to_f32().abs()));
                let bound = 0.5 * sf + (absmax - qmax * sf).abs();
                assert!(
                    (a.to_f32() - b).abs() <= bound * 1.0001,
                    "{f} {i}: {a} vs {b}"
                );
            }
            if f.v_bits() == 4 {
                assert!(unpack_nibbles(&c)
                    .iter()
                    .all(|&n| nibble_to_i4(n).abs() <= 7));
            }
        }
    }

    #[test]
    fn int4_ties_round_to_even_and_nibbles_are_twos_complement() {
        // Scale exactly 1.0 (absmax 7): 2.5 → 2, 3.5 → 4, -2.5 → -2, -7 → 0x9.
        let mut v = vec![bf16::ZERO; HEAD_DIM];
        for (i, x) in [7.0f32, 2.5, 3.5, -2.5, -7.0, 1.0].iter().enumerate() {
            v[i] = bf16::from_f32(*x);
        }
        let (c, s, d) = v_round_trip(KvFormat::Rk8v4, &v);
        assert_eq!(s[0], f16::ONE);
        assert_eq!(&c[..3], &[0x27, 0xE4, 0x19]);
        assert_eq!(&d[..6], &[7.0, 2.0, 4.0, -2.0, -7.0, 1.0]);
        assert_eq!(s[1], f16::ZERO);
        assert!(c[16..].iter().all(|&b| b == 0));
        for n in 0..16u8 {
            assert_eq!(nibble_to_i4(n) as u8 & 15, n);
            // The documented GPU decode: (w & 0x000F000F) ^ 0x64086408 is the FP16 pair
            // 1024 + (code + 8), exact; minus 1032 leaves the code.
            let w = n as u32 | ((15 - n as u32) << 16);
            let r = (w & 0x000F_000F) ^ 0x6408_6408;
            let lo = f16::from_bits(r as u16).to_f32() - 1032.0;
            let hi = f16::from_bits((r >> 16) as u16).to_f32() - 1032.0;
            assert_eq!(
                (lo, hi),
                (nibble_to_i4(n) as f32, nibble_to_i4(15 - n) as f32)
            );
        }
    }

    #[test]
    fn rotated_int8_k_round_trips() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let k = gaussian_row(&mut rng, 1.0);
        let (_, _, d) = k_round_trip(KvFormat::Rk8v4, &k);
        let e = rel_mse(&k, &d);
        // int8 absmax over 64 Gaussians (~2.4σ): step ~0.019σ, MSE step²/12 ~ 3e-5.
        assert!(e < 1e-4, "{e}");
    }

    #[test]
    fn rotation_tames_an_outlier_channel() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let mut k = gaussian_row(&mut rng, 1.0);
        k[13] = bf16::from_f32(100.0);
        let plain = rel_mse(&k, &k_round_trip(KvFormat::Int8, &k).2);
        let rotated = rel_mse(&k, &k_round_trip(KvFormat::Rk8v4, &k).2);
        assert!(rotated * 4.0 < plain, "rotated {rotated} vs plain {plain}");
    }

    #[test]
    fn lloyd_max_k_error_is_near_the_gaussian_optimum() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let (mut err, mut norm) = (0.0, 0.0);
        for _ in 0..16 {
            let k = gaussian_row(&mut rng, 0.3);
            let d = k_round_trip(KvFormat::Rk4v4, &k).2;
            err += k
                .iter()
                .zip(&d)
                .map(|(a, b)| (a.to_f64() - b).powi(2))
                .sum::<f64>();
            norm += k.iter().map(|a| a.to_f64().powi(2)).sum::<f64>();
        }
        let e = err / norm;
        // 0.0095 for a known σ; the per-group RMS estimate over 32 values costs a little.
        assert!(
            e > LLOYD_MAX_16_MSE * 0.8 && e < LLOYD_MAX_16_MSE * 1.3,
            "{e}"
        );
    }

    #[test]
    fn lloyd_max_scale_is_the_group_rms() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        let k = gaussian_row(&mut rng, 1.5);
        let (c, s, _) = k_round_trip(KvFormat::Rk4v4, &k);
        let x: Vec<f64> = crate::ops::kv::hadamard::rotate_bf16_f64(&k);
        for (gi, sg) in s.iter().enumerate() {
            let rms = (x[gi * 32..][..32].iter().map(|v| v * v).sum::<f64>() / 32.0).sqrt();
            assert!(
                (sg.to_f64() - rms).abs() <= rms * 1e-3,
                "{gi}: {sg} vs {rms}"
            );
        }
        // Tree order: a permutation-sensitive case is still a correct sum.
        let y: Vec<f32> = (0..32).map(|i| 1.0 + i as f32 * 1e-3).collect();
        let exact: f64 = y.iter().map(|&v| (v as f64) * (v as f64)).sum();
        assert!((sumsq_xor_tree(&y) as f64 - exact).abs() < 1e-5);
        assert_eq!(c.len(), 128);
        // A zero group: scale 0, codes 8, dequantizes to 0.
        let z = vec![bf16::ZERO; HEAD_DIM];
        let (cz, sz, dz) = k_round_trip(KvFormat::Rk4v4, &z);
        assert!(sz.iter().all(|s| *s == f16::ZERO));
        assert!(cz.iter().all(|&b| b == 0x88));
        assert!(dz.iter().all(|&v| v == 0.0));
    }
}
