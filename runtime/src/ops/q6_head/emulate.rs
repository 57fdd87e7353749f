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

fn bf16_pair(biased: u32) -> [f64; 2] {
    // q6_unbias: (128 + u) * 1 - 160, exact in BF16
    [
        bf16::from_bits(biased as u16).to_f64() - 160.0,
        bf16::from_bits((biased >> 16) as u16).to_f64() - 160.0,
    ]
}

/// `q6_decode_set`: the eight registers (even k-step's four, then the odd one's) of a set
/// from its three words, with the kernel's bit operations.
pub fn decode_set(w0: u32, w1: u32, w2: u32) -> [[f64; 2]; 8] {
    let bias6 = |w: u32| (w & 0x003f_003f) | 0x4300_4300; // q6_lop_bias6
    let bias4 = |w: u32| (w & 0x000f_000f) | 0x4300_4300; // q4_lop_bias
    let high = |a: u32, b: u32| (a & 0x0030_0030) | b; // q6_lop_high
    [
        bf16_pair(bias6(w0)),
        bf16_pair(bias6(w0 >> 6)),
        bf16_pair(bias6(w1)),
        bf16_pair(bias6(w1 >> 6)),
        bf16_pair(bias6(w2)),
        bf16_pair(bias6(w2 >> 6)),
        bf16_pair(high(w2 >> 8, bias4(w0 >> 12))),
        bf16_pair(high(w2 >> 10, bias4(w1 >> 12))),
    ]
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
                            // set p = 2h + s/2 (lane words 3p..3p+2), register 4 (s%2) + j
                            let p = 2 * h + s / 2;
                            let lw =
                                |wi: usize| word(block, (wi / 4) * 512 + 16 * lane + 4 * (wi % 4));
                            let set = decode_set(lw(3 * p), lw(3 * p + 1), lw(3 * p + 2));
                            let regs = &set[4 * (s % 2)..4 * (s % 2) + 4];
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
        // every u in 0..64 in every register and half of a set
        for u in 0..64u32 {
            let v = 63 - u;
            for r in 0..8 {
                let (mut w, mut lo, mut hi) = ([0u32; 3], 0u32, 0u32);
                for (e, x) in [(0u32, u), (1, v)] {
                    match r {
                        0..=5 => w[r / 2] |= x << (6 * (r % 2) as u32 + 16 * e),
                        _ => {
                            w[r - 6] |= (x & 15) << (12 + 16 * e);
                            w[2] |= (x >> 4) << (12 + 2 * (r - 6) as u32 + 16 * e);
                        }
                    }
                    if e == 0 {
                        lo = x
                    } else {
                        hi = x
                    }
                }
                let got = decode_set(w[0], w[1], w[2])[r];
                assert_eq!(
                    got,
                    [lo as f64 - 32.0, hi as f64 - 32.0],
                    "u {u} register {r}"
                );
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

    /// Writes a case for scripts/q6_cpu_sim/run.sh (the kernel source run on the CPU):
    /// packed codes and scales, x and the f64 reference, into `$Q6_SIM_DIR`.
    #[test]
    #[ignore = "a tool for scripts/q6_cpu_sim, not a check: run on demand"]
    fn dump_cpu_sim_case() {
        let env = |k: &str, d: usize| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let dir = std::path::PathBuf::from(std::env::var("Q6_SIM_DIR").expect("Q6_SIM_DIR"));
        let (n, k, t) = (
            env("Q6_SIM_N", 80),
            env("Q6_SIM_K", 384),
            env("Q6_SIM_T", 32),
        );
        let shape = Shape { n, k };
        let dense = synthetic::random_weights(shape, 77);
        let p = dense.pack();
        let x = synthetic::random_activations(t, k, 78);
        let want = reference::reference(&dense.codes, &dense.scales, &x, n, k, t);
        let bytes = |v: Vec<u8>, name: &str| std::fs::write(dir.join(name), v).unwrap();
        bytes(p.codes.clone(), "codes.bin");
        bytes(
            p.scales
                .iter()
                .flat_map(|h| h.to_bits().to_le_bytes())
                .collect(),
            "scales.bin",
        );
        bytes(
            x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect(),
            "x.bin",
        );
        bytes(
            want.iter().flat_map(|v| v.to_le_bytes()).collect(),
            "reference.bin",
        );
    }
}
