//! Activation quantization for the int8 families (the `quant_act_i8` kernel's rule,
//! docs/formats.md): per token and 64-wide K group, `s = absmax / 127` in f32, stored
//! as FP16 (round to nearest even); `xq = rne(x / s_fp16)` in f32, clamped to
//! [-127, 127]; a zero (FP16) scale gives zero codes.

use half::{bf16, f16};

/// K elements per activation scale.
pub const ACT_GROUP: usize = 64;

/// Quantizes one 64-wide group: returns its FP16 scale and writes the codes.
pub fn quantize_group(x: &[bf16], out: &mut [i8]) -> f16 {
    debug_assert_eq!(x.len(), out.len());
    let absmax = x.iter().fold(0.0f32, |m, v| m.max(v.to_f32().abs()));
    let s = f16::from_f32(absmax / 127.0);
    let sf = s.to_f32();
    for (o, v) in out.iter_mut().zip(x) {
        *o = if sf > 0.0 {
            (v.to_f32() / sf).round_ties_even().clamp(-127.0, 127.0) as i8
        } else {
            0
        };
    }
    s
}

/// BF16 `x[t][k]` → (int8 `xq[t][k]`, FP16 `xs[t][k/64]`).
pub fn quantize_activations(x: &[bf16], t: usize, k: usize) -> (Vec<i8>, Vec<f16>) {
    assert!(
        k.is_multiple_of(ACT_GROUP),
        "k = {k} is not a multiple of {ACT_GROUP}"
    );
    assert!(x.len() >= t * k, "x holds fewer than {t} x {k} values");
    let mut xq = vec![0i8; t * k];
    let mut xs = vec![f16::ZERO; t * k / ACT_GROUP];
    for (i, (src, dst)) in x[..t * k]
        .chunks(ACT_GROUP)
        .zip(xq.chunks_mut(ACT_GROUP))
        .enumerate()
    {
        xs[i] = quantize_group(src, dst);
    }
    (xq, xs)
}

/// Dequantized activations `xq * xs` as f64 (for references).
pub fn dequantize_activations(xq: &[i8], xs: &[f16], t: usize, k: usize) -> Vec<f64> {
    (0..t * k)
        .map(|i| xq[i] as f64 * xs[i / ACT_GROUP].to_f64())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(v: f32) -> bf16 {
        bf16::from_f32(v)
    }

    #[test]
    fn absmax_maps_to_127_and_zero_group_to_zero() {
        let mut x = vec![b(0.0); 128];
        x[3] = b(-2.5);
        x[10] = b(1.0);
        let (q, s) = quantize_activations(&x, 1, 128);
        assert_eq!(s[0], f16::from_f32(2.5 / 127.0));
        assert_eq!(q[3], -127);
        assert_eq!(q[10], (1.0 / s[0].to_f32()).round_ties_even() as i8);
        assert_eq!(s[1], f16::ZERO);
        assert!(q[64..].iter().all(|&v| v == 0));
    }

    #[test]
    fn quantizes_with_the_rounded_scale_and_clamps() {
        // A tiny group: absmax/127 is an FP16 subnormal that rounds down a lot, so
        // x / s exceeds 127.5 and is clamped; a smaller one rounds to a zero scale.
        let mut found = false;
        for m in 0..200 {
            let v = b(1.0e-5 + m as f32 * 1.0e-7);
            let s = f16::from_f32(v.to_f32() / 127.0).to_f32();
            if s > 0.0 && v.to_f32() / s > 127.5 {
                let mut x = vec![b(0.0); 64];
                x[0] = v;
                x[1] = b(-v.to_f32());
                let (q, xs) = quantize_activations(&x, 1, 64);
                assert_eq!(xs[0].to_f32(), s);
                assert_eq!((q[0], q[1]), (127, -127));
                found = true;
                break;
            }
        }
        assert!(found, "no value whose FP16 scale rounds down enough");
        let mut x = vec![b(0.0); 64];
        x[5] = b(1.0e-7);
        let (q, xs) = quantize_activations(&x, 1, 64);
        assert_eq!(xs[0], f16::ZERO);
        assert_eq!(q[5], 0);
    }

    #[test]
    fn ties_round_to_even() {
        // Scale exactly 1.0 (absmax 127): 2.5 → 2, 3.5 → 4, -2.5 → -2.
        let mut x = vec![b(0.0); 64];
        x[0] = b(127.0);
        x[1] = b(2.5);
        x[2] = b(3.5);
        x[3] = b(-2.5);
        let (q, s) = quantize_activations(&x, 1, 64);
        assert_eq!(s[0], f16::ONE);
        assert_eq!(&q[..4], &[127, 2, 4, -2]);
    }

    #[test]
    fn layout_is_token_major() {
        let (t, k) = (3, 128);
        let x: Vec<bf16> = (0..t * k).map(|i| b((i / 64) as f32 + 1.0)).collect();
        let (q, s) = quantize_activations(&x, t, k);
        for (i, sv) in s.iter().enumerate() {
            assert_eq!(*sv, f16::from_f32((i as f32 + 1.0) / 127.0));
        }
        assert!(q.iter().all(|&v| v == 127));
    }
}
