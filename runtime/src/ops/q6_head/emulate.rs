//! A lane-exact CPU emulation of the `q6_head` kernel's data movement: each lane's three
//! 16-byte words per block, the low-nibble / high-bit → BF16 register decode (the same
//! bit operations as common/q6_bf16.cuh), the activation registers under the K
//! permutation, the m16n8k16 fragment layout, and the per-group FP16 scale pairs. It
//! checks, without a GPU, that packing, decode and fragment mapping agree with the
//! reference (arithmetic in f64; the kernel sums in fp32).

use half::{bf16, f16};

use super::pack::{block_index, PackedQ6, BLOCK_BYTES, BLOCK_K, BLOCK_SCALES, TILE_ROWS};

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// `q6_decode_step`: register j of a k-step from the low word `w` and high word `hw`.
pub fn decode_register(w: u32, hw: u32, odd: bool, j: usize) -> [f64; 2] {
    let low = ((w >> (4 * j)) & 0x000f_000f) | 0x4300_4300; // q4_lop_bias
    let m = 4 * odd as i32 + j as i32;
    let shifted = if m <= 2 {
        hw << (4 - 2 * m)
    } else {
        hw >> (2 * m - 4)
    };
    let biased = (shifted & 0x0030_0030) | low; // q6_lop_high
                                                // q6_unbias: (128 + u) * 1 - 160, exact in BF16
    let lo = bf16::from_bits(biased as u16).to_f64() - 160.0;
    let hi = bf16::from_bits((biased >> 16) as u16).to_f64() - 160.0;
    [lo, hi]
}

/// `x · Wᵀ` computed through the kernel's fragments, for tokens `0..t`, `[t][n]`.
pub fn emulate(p: &PackedQ6, x: &[bf16], t: usize) -> Vec<f64> {
    let (n, k) = (p.n, p.k);
    let mut y = vec![0.0f64; t * n];
    let col_tiles = t.div_ceil(8);
    for tile in 0..n / TILE_ROWS {
        for b in 0..k / BLOCK_K {
            let bi = block_index(tile, b, k);
            let block = &p.codes[bi * BLOCK_BYTES..][..BLOCK_BYTES];
            for h in 0..2 {
                for c in 0..col_tiles {
                    let mut d = [[0.0f64; 8]; 16];
                    for s in 0..4 {
                        let mut a = [[0.0f64; 16]; 16];
                        let mut bm = [[0.0f64; 8]; 16];
                        for lane in 0..32 {
                            let (g, q) = (lane / 4, lane % 4);
                            let w = word(block, h * 512 + 16 * lane + 4 * s);
                            let hw = word(block, 1024 + 16 * lane + 4 * (2 * h + s / 2));
                            let regs: Vec<[f64; 2]> = (0..4)
                                .map(|j| decode_register(w, hw, s % 2 == 1, j))
                                .collect();
                            for e in 0..2 {
                                a[g][2 * q + e] = regs[0][e];
                                a[g + 8][2 * q + e] = regs[1][e];
                                a[g][2 * q + 8 + e] = regs[2][e];
                                a[g + 8][2 * q + 8 + e] = regs[3][e];
                            }
                            // b0 = B[2q..][g], b1 = B[2q+8..][g]: token 8c+g, k 16q+4s+{0,1} / +{2,3}.
                            let token = 8 * c + g;
                            if token < t {
                                let base = token * k + b * BLOCK_K + h * 64 + 16 * q + 4 * s;
                                for e in 0..2 {
                                    bm[2 * q + e][g] = x[base + e].to_f64();
                                    bm[2 * q + 8 + e][g] = x[base + 2 + e].to_f64();
                                }
                            }
                        }
                        for (row, drow) in d.iter_mut().enumerate() {
                            for (col, dv) in drow.iter_mut().enumerate() {
                                *dv += (0..16).map(|kk| a[row][kk] * bm[kk][col]).sum::<f64>();
                            }
                        }
                    }
                    for lane in 0..32 {
                        let (g, q) = (lane / 4, lane % 4);
                        // the lane's 8-byte scale load: halves (g, 2h) and (g, 2h + 1)
                        let at = bi * BLOCK_SCALES + g * 4 + 2 * h;
                        let (s0, s8): (f16, f16) = (p.scales[at], p.scales[at + 1]);
                        for e in 0..2 {
                            let col = 8 * c + 2 * q + e;
                            if col < t {
                                y[col * n + tile * TILE_ROWS + g] += d[g][2 * q + e] * s0.to_f64();
                                y[col * n + tile * TILE_ROWS + g + 8] +=
                                    d[g + 8][2 * q + e] * s8.to_f64();
                            }
                        }
                    }
                }
            }
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::q6_head::launch::Shape;
    use crate::ops::q6_head::{reference, synthetic};

    #[test]
    fn decode_gives_the_signed_codes() {
        // every u in 0..64 at every register position, both halves
        for u in 0..64u32 {
            let v = 63 - u;
            for odd in [false, true] {
                for j in 0..4 {
                    let m = 4 * odd as u32 + j as u32;
                    let w = ((u & 15) | (v & 15) << 16) << (4 * j);
                    let hw = ((u >> 4) << (2 * m)) | ((v >> 4) << (16 + 2 * m));
                    assert_eq!(
                        decode_register(w, hw, odd, j),
                        [u as f64 - 32.0, v as f64 - 32.0]
                    );
                }
            }
        }
    }

    #[test]
    fn emulation_matches_the_reference() {
        // 256 x 512 (the small shape of the brief) and 48 x 384 (odd tile count).
        for (n, k) in [(256usize, 512usize), (48, 384)] {
            let shape = Shape { n, k };
            let dense = synthetic::random_weights(shape, 11 + n as u64);
            let p = dense.pack();
            for t in [1usize, 2, 3, 8, 13, 32] {
                let x = synthetic::random_activations(t, k, 5);
                let want = reference::reference(&dense.codes, &dense.scales, &x, n, k, t);
                let got = emulate(&p, &x, t);
                for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-9 * (1.0 + b.abs()),
                        "{n}x{k} t {t} elem {i}: {a} vs {b}"
                    );
                }
            }
        }
    }
}
