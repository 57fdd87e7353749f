//! A lane-exact CPU emulation of the `q4_linear_add` kernel's data movement: each lane's
//! 16-byte weight word, the nibble → BF16 register decode, the activation registers as the
//! BF16 schedules load them (ldmatrix from the stage's token rows), the m16n8k16 fragment
//! layout, and the per-group FP16 scale pair.
//! It checks, without a GPU, that packing, decode and fragment mapping agree with the
//! reference (arithmetic in f64; the kernel sums in fp32).

use half::{bf16, f16};

use super::pack::{block_index, PackedQ4, BLOCK_BYTES, GROUP, TILE_ROWS};

/// Nibble `j` (low half) and `j + 4` (high half) of `w`, decoded as the kernel does:
/// BF16 `128 + u`, minus 136.
pub fn decode_register(w: u32, j: usize) -> [f64; 2] {
    let biased = ((w >> (4 * j)) & 0x000f_000f) | 0x4300_4300;
    let lo = bf16::from_bits(biased as u16).to_f64() - 136.0;
    let hi = bf16::from_bits((biased >> 16) as u16).to_f64() - 136.0;
    [lo, hi]
}

/// `residual + x · Wᵀ` computed through the kernel's fragments, for tokens `0..t`.
pub fn emulate(p: &PackedQ4, x: &[bf16], residual: &[bf16], t: usize) -> Vec<f64> {
    let (n, k) = (p.n, p.k);
    let groups = k / GROUP;
    let mut y: Vec<f64> = residual[..t * n].iter().map(|v| v.to_f64()).collect();
    let col_tiles = t.div_ceil(8);
    for r in 0..n / TILE_ROWS {
        for gi in 0..groups {
            let block = &p.codes[block_index(r, gi, k) * BLOCK_BYTES..][..BLOCK_BYTES];
            for c in 0..col_tiles {
                // Rebuild the MMA operands of each k-step from the lanes' registers.
                let mut d = [[0.0f64; 8]; 16];
                for s in 0..4 {
                    let mut a = [[0.0f64; 16]; 16];
                    let mut b = [[0.0f64; 8]; 16];
                    for lane in 0..32 {
                        let (g, q) = (lane / 4, lane % 4);
                        let wb = &block[16 * lane + 4 * s..][..4];
                        let w = u32::from_le_bytes([wb[0], wb[1], wb[2], wb[3]]);
                        let regs: Vec<[f64; 2]> = (0..4).map(|j| decode_register(w, j)).collect();
                        // a0 = A[g][2q..], a1 = A[g+8][2q..], a2 = A[g][2q+8..], a3 = A[g+8][2q+8..]
                        for e in 0..2 {
                            a[g][2 * q + e] = regs[0][e];
                            a[g + 8][2 * q + e] = regs[1][e];
                            a[g][2 * q + 8 + e] = regs[2][e];
                            a[g + 8][2 * q + 8 + e] = regs[3][e];
                        }
                        // b0 = B[2q..][g], b1 = B[2q+8..][g] of step s: the lane's
                        // registers of the kernel's two ldmatrix.x4 (q4_bf16.cuh), the token
                        // rows' natural k order.
                        let token = 8 * c + g;
                        let regs = ldmatrix_b(
                            |tok, kk| {
                                if tok < t {
                                    x[tok * k + gi * GROUP + kk]
                                } else {
                                    bf16::ZERO
                                }
                            },
                            c,
                            lane,
                        );
                        let (b0, b1) = (regs[s / 2][2 * (s % 2)], regs[s / 2][2 * (s % 2) + 1]);
                        if token < t {
                            for e in 0..2 {
                                b[2 * q + e][g] = b0[e].to_f64();
                                b[2 * q + 8 + e][g] = b1[e].to_f64();
                            }
                        }
                    }
                    for (row, drow) in d.iter_mut().enumerate() {
                        for (col, dv) in drow.iter_mut().enumerate() {
                            *dv += (0..16).map(|kk| a[row][kk] * b[kk][col]).sum::<f64>();
                        }
                    }
                }
                // Lane (g, q): C (g, 2q+e) and (g+8, 2q+e), scaled by its FP16 pair g.
                for lane in 0..32 {
                    let (g, q) = (lane / 4, lane % 4);
                    let pair = (block_index(r, gi, k) * 8 + g) * 2;
                    let (s0, s8): (f16, f16) = (p.scales[pair], p.scales[pair + 1]);
                    for e in 0..2 {
                        let col = 8 * c + 2 * q + e;
                        if col < t {
                            y[col * n + r * TILE_ROWS + g] += d[g][2 * q + e] * s0.to_f64();
                            y[col * n + r * TILE_ROWS + g + 8] += d[g + 8][2 * q + e] * s8.to_f64();
                        }
                    }
                }
            }
        }
    }
    y
}

/// The registers lane `lane` gets from the BF16 schedules' two `ldmatrix.x4` of column
/// tile `c` (q4_linear_add.cu.tera `xa`, loaded in q4_bf16.cuh `q4_group`): for load `p`, lane `l` supplies the address of
/// token `8c + l % 8` at the group's k `32p + 8 (l / 8)`, the row `l % 8` of matrix `l / 8`;
/// register `j` of lane `lane` is elements `2 (lane % 4)`, `+1` of row `lane / 4` of matrix
/// `j`. `at(token, k in group)` reads the stage.
pub fn ldmatrix_b(at: impl Fn(usize, usize) -> bf16, c: usize, lane: usize) -> [[[bf16; 2]; 4]; 2] {
    let address = |l: usize, p: usize| (8 * c + (l & 7), 32 * p + 8 * (l >> 3));
    let mut out = [[[bf16::ZERO; 2]; 4]; 2];
    for (p, regs) in out.iter_mut().enumerate() {
        for (j, reg) in regs.iter_mut().enumerate() {
            let (token, k0) = address(8 * j + lane / 4, p);
            let kk = k0 + 2 * (lane % 4);
            *reg = [at(token, kk), at(token, kk + 1)];
        }
    }
    out
}

/// Where the int8 code at k `kk` of a 64-wide group sits in `quant_act_i8_q4`'s output:
/// position `16q + 4s + e` holds k `16s + 2q + 8(e % 2) + e / 2`, the bytes the Q4 weight
/// word `s` of lane block `q` pairs with (nibbles 0, 2, 4, 6 of a word: k `2q`, `2q + 8`,
/// `2q + 1`, `2q + 9` of step `s`), so a lane reads its 16 codes in one piece.
pub fn q4_position(kk: usize) -> usize {
    let (s, q, e) = (kk / 16, (kk % 8) / 2, ((kk % 16) / 8) + 2 * (kk % 2));
    16 * q + 4 * s + e
}

/// The int8 layout of `quant_act_i8_q4`: each 64-wide group's codes at [`q4_position`].
pub fn q4_order(xq: &[i8]) -> Vec<i8> {
    let mut out = xq.to_vec();
    for (src, dst) in xq.chunks_exact(GROUP).zip(out.chunks_exact_mut(GROUP)) {
        for (kk, &v) in src.iter().enumerate() {
            dst[q4_position(kk)] = v;
        }
    }
    out
}

/// The 4-byte words quant_act_i8_q4 stores for one group, emulated lane by lane: lane `L`
/// holds the codes of k `2L`, `2L + 1`; a lane with `L & 4 == 0` takes lane `L + 4`'s two
/// (k `2L + 8`, `2L + 9`) and stores (`2L`, `2L + 8`, `2L + 1`, `2L + 9`) at word
/// `4 (L % 4) + L / 8`. Returns the group's 64 bytes.
pub fn quant_q4_stores(codes: &[i8; GROUP]) -> [i8; GROUP] {
    let mut out = [0i8; GROUP];
    for lane in (0..32).filter(|l| l & 4 == 0) {
        let (qa, qb) = (codes[2 * lane], codes[2 * lane + 1]);
        let (pa, pb) = (codes[2 * (lane + 4)], codes[2 * (lane + 4) + 1]);
        let word = 4 * (lane % 4) + lane / 8;
        out[4 * word..4 * word + 4].copy_from_slice(&[qa, pa, qb, pb]);
    }
    out
}

/// The `act_i8` schedules' integer sums, emulated lane by lane: per (16-row tile, group,
/// 8-token column tile) the two m16n8k32 s8 x s8 MMAs built from each lane's weight words
/// (each nibble u moved to the top of its byte, top bit flipped: the signed byte
/// 16 (u - 8)) and its 16 activation bytes of `xq_ordered` (tokens `0..t`, k per token, in
/// [`q4_order`]), divided by the 16 once at the end. Returns `[t][n][group]` sums, which
/// must equal `sum(code * xq)` over each group exactly.
pub fn emulate_int8_sums(p: &PackedQ4, xq_ordered: &[i8], t: usize) -> Vec<i64> {
    let (n, k) = (p.n, p.k);
    let groups = k / GROUP;
    let mut out = vec![0i64; t * n * groups];
    let bytes = |w: u32| -> [i64; 4] { [0, 8, 16, 24].map(|sh| (w >> sh) as u8 as i8 as i64) };
    let (hi, flip) = (0xf0f0_f0f0u32, 0x8080_8080u32);
    for r in 0..n / TILE_ROWS {
        for gi in 0..groups {
            let block = &p.codes[block_index(r, gi, k) * BLOCK_BYTES..][..BLOCK_BYTES];
            for c in 0..t.div_ceil(8) {
                let mut d = [[0i64; 8]; 16];
                for step in 0..2 {
                    let mut a = [[0i64; 32]; 16];
                    let mut b = [[0i64; 8]; 32];
                    for lane in 0..32 {
                        let (g, q) = (lane / 4, lane % 4);
                        let word = |s: usize| {
                            let wb = &block[16 * lane + 4 * s..][..4];
                            u32::from_le_bytes([wb[0], wb[1], wb[2], wb[3]])
                        };
                        let (w0, w1) = (word(2 * step), word(2 * step + 1));
                        // a0 = A[g][4q..], a1 = A[g+8][4q..], a2 = A[g][16+4q..], a3 = A[g+8][16+4q..]
                        let regs = [
                            ((w0 << 4) & hi) ^ flip,
                            (w0 & hi) ^ flip,
                            ((w1 << 4) & hi) ^ flip,
                            (w1 & hi) ^ flip,
                        ];
                        for i in 0..4 {
                            a[g][4 * q + i] = bytes(regs[0])[i];
                            a[g + 8][4 * q + i] = bytes(regs[1])[i];
                            a[g][16 + 4 * q + i] = bytes(regs[2])[i];
                            a[g + 8][16 + 4 * q + i] = bytes(regs[3])[i];
                        }
                        // b0 = B[4q..][g], b1 = B[16+4q..][g]: token 8c+g, its 16 bytes at
                        // k 16q of the group, words 2 step and 2 step + 1.
                        let token = 8 * c + g;
                        if token < t {
                            let base = token * k + gi * GROUP + 16 * q + 8 * step;
                            for i in 0..4 {
                                b[4 * q + i][g] = xq_ordered[base + i] as i64;
                                b[16 + 4 * q + i][g] = xq_ordered[base + 4 + i] as i64;
                            }
                        }
                    }
                    for (row, drow) in d.iter_mut().enumerate() {
                        for (col, dv) in drow.iter_mut().enumerate() {
                            *dv += (0..32).map(|kk| a[row][kk] * b[kk][col]).sum::<i64>();
                        }
                    }
                }
                for col in 8 * c..(8 * c + 8).min(t) {
                    for row in 0..TILE_ROWS {
                        let sum16 = d[row][col - 8 * c];
                        assert_eq!(sum16 % 16, 0, "the decoded codes are 16x");
                        out[(col * n + r * TILE_ROWS + row) * groups + gi] = sum16 / 16;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::q4_linear_add::launch::Shape;
    use crate::ops::q4_linear_add::{reference, synthetic};

    #[test]
    fn decode_gives_the_signed_codes() {
        for u in 0..16u32 {
            let w = u | (15 - u) << 16;
            assert_eq!(decode_register(w, 0), [u as f64 - 8.0, 7.0 - u as f64]);
            assert_eq!(
                decode_register(w << 12, 3),
                [u as f64 - 8.0, 7.0 - u as f64]
            );
        }
    }

    #[test]
    fn q4_order_is_a_permutation_the_quant_kernel_stores() {
        let codes: [i8; GROUP] = std::array::from_fn(|i| i as i8);
        let ordered = q4_order(&codes);
        let mut seen = [false; GROUP];
        for &v in &ordered {
            assert!(!seen[v as usize]);
            seen[v as usize] = true;
        }
        assert_eq!(quant_q4_stores(&codes).to_vec(), ordered);
    }

    #[test]
    fn int8_fragments_give_the_exact_group_sums() {
        let shape = Shape { n: 128, k: 192 };
        let dense = synthetic::random_weights(shape, 12);
        let p = dense.pack();
        let groups = shape.k / GROUP;
        for t in [1usize, 5, 8, 11] {
            let x = synthetic::random_activations(t, shape.k, 6);
            let (xq, _) = crate::ops::quant::quantize_activations(&x, t, shape.k);
            let got = emulate_int8_sums(&p, &q4_order(&xq), t);
            for tt in 0..t {
                for row in 0..shape.n {
                    for gi in 0..groups {
                        let want: i64 = (0..GROUP)
                            .map(|j| {
                                let kk = gi * GROUP + j;
                                dense.codes[row * shape.k + kk] as i64
                                    * xq[tt * shape.k + kk] as i64
                            })
                            .sum();
                        assert_eq!(
                            got[(tt * shape.n + row) * groups + gi],
                            want,
                            "t {t} token {tt} row {row} group {gi}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn emulation_matches_the_reference() {
        let shape = Shape { n: 128, k: 192 };
        let dense = synthetic::random_weights(shape, 11);
        let p = dense.pack();
        for t in [1usize, 3, 8, 13] {
            let x = synthetic::random_activations(t, shape.k, 5);
            let res = synthetic::random_residual(t, shape.n, 9);
            let want = reference::reference_linear_add(
                &res,
                &dense.codes,
                &dense.scales,
                &x,
                reference::Activations::Bf16,
                shape.n,
                shape.k,
                t,
            );
            let got = emulate(&p, &x, &res, t);
            for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
                    "t {t} elem {i}: {a} vs {b}"
                );
            }
        }
    }
}
