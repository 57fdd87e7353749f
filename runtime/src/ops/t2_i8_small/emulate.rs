//! A CPU emulation of the `t2_i8_small` kernel, lane by lane: the same loads (the same
//! bytes of the packed weights and of the activations each lane reads), the same PRMT
//! decode, the m16n8k32 MMA through the PTX ISA's fragment layouts, the same fp32
//! rescaling, K split over warps and cross-warp reduction, K split over CTAs
//! (`k_split`) and the last CTA's sum of the partials in split order, BF16 rounding. It proves,
//! without a GPU, that `pack.rs`, the kernel's decode and its activation mapping agree
//! with the format's definition (`reference.rs`).

// Lane-by-lane loops: one index computes a fragment coordinate and addresses several
// per-lane arrays at once, as the kernel's lanes do.
#![allow(clippy::needless_range_loop)]

use half::{bf16, f16};

use super::launch::act_smem_layout;
use super::pack::{PackedTernary, BLOCK_BYTES, GROUP, TILE_ROWS};

/// The kernel's template parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub k_warps: usize,
    pub tiles_per_warp: usize,
    pub column_tiles: usize,
    pub stages: usize,
    pub words: usize,
    /// CTAs splitting K per row tile: CTA `s` takes groups `s*G/k_split .. (s+1)*G/k_split`.
    pub k_split: usize,
    /// `act_smem`: the lanes read the activations from the CTA's staged copy
    /// (`launch::act_smem_layout`) instead of from `xq`/`xs`.
    pub act_smem: bool,
    /// `row_bands`: warp `w` takes row band `w` of the CTA over all of its K range (no
    /// cross-warp sum); its activations come through the CTA's ring, which holds the same
    /// bytes as `xq`/`xs`.
    pub row_bands: bool,
}

impl Schedule {
    pub fn rows_per_cta(&self) -> usize {
        16 * self.tiles_per_warp * if self.row_bands { self.k_warps } else { 1 }
    }
    pub fn max_width(&self) -> usize {
        8 * self.column_tiles
    }
}

/// PTX `prmt.b32 d, a, b, c` (default mode): byte n of d is byte `c[4n+2:4n]` of the
/// 8 bytes {b, a}, or its sign replicated when `c[4n+3]` is set.
pub fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
    let mut d = 0u32;
    for n in 0..4 {
        let sel = (c >> (4 * n)) & 0xF;
        let mut v = bytes[(sel & 7) as usize];
        if sel & 8 != 0 {
            v = if v & 0x80 != 0 { 0xFF } else { 0 };
        }
        d |= u32::from(v) << (8 * n);
    }
    d
}

/// `ninfer_decode_ternary_word` of common/ternary_i8.cuh: one word → four A registers
/// (PRMT with the X and Y pair tables on the word and on its upper half).
pub fn decode_word(w: u32) -> [u32; 4] {
    const XA: u32 = 0x0100_0100;
    const XB: u32 = 0xFFFF_0100;
    const YA: u32 = 0x0101_0000;
    const YB: u32 = 0x01FF_FFFF;
    let hi = w >> 16;
    [
        prmt(XA, XB, w),
        prmt(YA, YB, w),
        prmt(XA, XB, hi),
        prmt(YA, YB, hi),
    ]
}

/// PTX ISA m16n8k32 (.s8) A fragment: lane, register (0..4), byte (0..4) → (row, k).
pub fn a_coord(lane: usize, reg: usize, byte: usize) -> (usize, usize) {
    let (g, q) = (lane / 4, lane % 4);
    let i = 4 * reg + byte;
    let row = if i < 4 || (8..12).contains(&i) {
        g
    } else {
        g + 8
    };
    let col = q * 4 + (i & 3) + if i >= 8 { 16 } else { 0 };
    (row, col)
}

/// PTX ISA m16n8k32 (.s8) B fragment: lane, register (0..2), byte (0..4) → (k, col).
pub fn b_coord(lane: usize, reg: usize, byte: usize) -> (usize, usize) {
    let (g, q) = (lane / 4, lane % 4);
    let i = 4 * reg + byte;
    (q * 4 + (i & 3) + if i >= 4 { 16 } else { 0 }, g)
}

/// PTX ISA m16n8k32 (.s32) C/D fragment: lane, element (0..4) → (row, col).
pub fn c_coord(lane: usize, i: usize) -> (usize, usize) {
    let (g, q) = (lane / 4, lane % 4);
    (g + if i >= 2 { 8 } else { 0 }, q * 2 + (i & 1))
}

/// `mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32` over a warp's fragments.
pub fn mma_m16n8k32(a: &[[u32; 4]; 32], b: &[[u32; 2]; 32], c: &[[i32; 4]; 32]) -> [[i32; 4]; 32] {
    let mut am = [[0i32; 32]; 16];
    let mut bm = [[0i32; 8]; 32];
    for lane in 0..32 {
        for reg in 0..4 {
            for byte in 0..4 {
                let (r, k) = a_coord(lane, reg, byte);
                am[r][k] = (a[lane][reg] >> (8 * byte)) as u8 as i8 as i32;
            }
        }
        for reg in 0..2 {
            for byte in 0..4 {
                let (k, n) = b_coord(lane, reg, byte);
                bm[k][n] = (b[lane][reg] >> (8 * byte)) as u8 as i8 as i32;
            }
        }
    }
    let mut d = [[0i32; 4]; 32];
    for lane in 0..32 {
        for i in 0..4 {
            let (r, n) = c_coord(lane, i);
            d[lane][i] = c[lane][i] + (0..32).map(|k| am[r][k] * bm[k][n]).sum::<i32>();
        }
    }
    d
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn half_lo(v: u32) -> f32 {
    f16::from_bits(v as u16).to_f32()
}

fn half_hi(v: u32) -> f32 {
    f16::from_bits((v >> 16) as u16).to_f32()
}

/// Runs the kernel's algorithm on the CPU. Returns `y[t][n]` as the kernel's fp32 sums
/// (before BF16 rounding) and as the BF16 it stores. `xq` is `[t][k]`, `xs` `[t][k/64]`.
pub fn emulate(
    p: &PackedTernary,
    xq: &[i8],
    xs: &[f16],
    t: usize,
    s: Schedule,
) -> (Vec<f32>, Vec<bf16>) {
    let (n, k) = (p.n, p.k);
    assert!(n % s.rows_per_cta() == 0 && k % GROUP == 0);
    assert!(t >= 1 && t <= s.max_width());
    assert!(xq.len() >= t * k && xs.len() >= t * (k / 64));
    let groups = k / GROUP;
    let chunks = k / 64;
    // Raw FP16 bits of xs, read as the kernel does (u32 pairs).
    let xs_bits: Vec<u16> = xs.iter().map(|v| v.to_bits()).collect();
    let xs_pair = |idx: usize| u32::from(xs_bits[idx]) | u32::from(xs_bits[idx + 1]) << 16;
    let (tpw, ct) = (s.tiles_per_warp, s.column_tiles);
    let mut y32 = vec![0.0f32; t * n];

    let rows = s.rows_per_cta();
    let cols = s.max_width();
    assert!(s.k_split >= 1 && s.k_split <= groups);
    for cta in 0..n / s.rows_per_cta() {
        let cta_tile0 = cta * rows / 16;
        // part[split][col][row]: each K-split CTA's cross-warp sums.
        let mut part = vec![0.0f32; s.k_split * cols * rows];
        for split in 0..s.k_split {
            let gb = split * groups / s.k_split;
            let gl = (split + 1) * groups / s.k_split - gb;
            // act_smem: the CTA's staged activations, byte for byte the kernel's dynamic
            // shared memory (tokens < min(t, width), groups gb..gb+gl; padding stays 0).
            let rows_s = t.min(cols);
            let lay = act_smem_layout(k, s.k_split, rows_s);
            let mut smem = vec![0u8; if s.act_smem { lay.bytes } else { 0 }];
            if s.act_smem {
                let xs_base = rows_s * lay.xq_pitch;
                for tok in 0..rows_s {
                    for j in 0..gl * 128 {
                        smem[tok * lay.xq_pitch + j] = xq[tok * k + gb * 128 + j] as u8;
                    }
                    for j in 0..2 * gl {
                        let o = xs_base + 2 * (tok * lay.xs_pitch + j);
                        smem[o..o + 2]
                            .copy_from_slice(&xs_bits[tok * chunks + 2 * gb + j].to_le_bytes());
                    }
                }
            }
            let xs_base = rows_s * lay.xq_pitch;
            let smem_pair = |tok: usize, grp: usize| {
                let o = xs_base + 2 * (tok * lay.xs_pitch + 2 * (grp - gb));
                le_u32(&smem[o..o + 4])
            };
            // red[warp][col][row]
            let mut red = vec![0.0f32; s.k_warps * cols * rows];
            for warp in 0..s.k_warps {
                // The warp's first tile and row, and how it interleaves the K range.
                let (tile0, row_off, warp_slot, warp_stride) = if s.row_bands {
                    (cta_tile0 + warp * tpw, warp * tpw * 16, 0, 1)
                } else {
                    (cta_tile0, 0, warp, s.k_warps)
                };
                // acc[tile][ctile][lane][4]
                let mut acc = vec![[[0.0f32; 4]; 32]; tpw * ct];
                let mut i = 0;
                loop {
                    let base = (i * warp_stride + warp_slot) * s.words;
                    if base >= gl {
                        break;
                    }
                    for j in 0..s.words {
                        if base + j >= gl {
                            continue;
                        }
                        let grp = gb + base + j;
                        // Activations, per lane: xa[c][h] (16 bytes), xs0[c], xs1[c].
                        let mut xa = vec![[[0u8; 16]; 2]; ct * 32];
                        let mut xs0 = vec![0u32; ct * 32];
                        let mut xs1 = vec![0u32; ct * 32];
                        for c in 0..ct {
                            if c * 8 >= t {
                                continue;
                            }
                            for lane in 0..32 {
                                let (g, q) = (lane / 4, lane % 4);
                                let tb = c * 8 + g;
                                if tb < t {
                                    for h in 0..2 {
                                        let dst = &mut xa[c * 32 + lane][h];
                                        if s.act_smem {
                                            let off = tb * lay.xq_pitch
                                                + (grp - gb) * 128
                                                + h * 64
                                                + q * 16;
                                            dst.copy_from_slice(&smem[off..off + 16]);
                                        } else {
                                            let off = tb * k + grp * 128 + h * 64 + q * 16;
                                            for (d, &v) in dst.iter_mut().zip(&xq[off..off + 16]) {
                                                *d = v as u8;
                                            }
                                        }
                                    }
                                }
                                let tc = c * 8 + 2 * q;
                                let pair = |tok: usize| {
                                    if s.act_smem {
                                        smem_pair(tok, grp)
                                    } else {
                                        xs_pair(tok * chunks + 2 * grp)
                                    }
                                };
                                if tc < t {
                                    xs0[c * 32 + lane] = pair(tc);
                                }
                                if tc + 1 < t {
                                    xs1[c * 32 + lane] = pair(tc + 1);
                                }
                            }
                        }
                        for r in 0..tpw {
                            let blk = ((tile0 + r) * groups + grp) * BLOCK_BYTES;
                            let sblk = ((tile0 + r) * groups + grp) * TILE_ROWS;
                            // a[step][lane][reg], scales per lane
                            let mut a = [[[0u32; 4]; 32]; 4];
                            let mut wg = [0.0f32; 32];
                            let mut wg8 = [0.0f32; 32];
                            for lane in 0..32 {
                                let bytes = &p.codes[blk + 16 * lane..blk + 16 * lane + 16];
                                for (step, a_step) in a.iter_mut().enumerate() {
                                    a_step[lane] = decode_word(le_u32(&bytes[4 * step..]));
                                }
                                let g = lane / 4;
                                // one u32 pair: rows g, g+8
                                wg[lane] = p.scales[sblk + 2 * g].to_f32();
                                wg8[lane] = p.scales[sblk + 2 * g + 1].to_f32();
                            }
                            for c in 0..ct {
                                if c * 8 >= t {
                                    continue;
                                }
                                // Chunk sums d[h] (exact int32), then per element
                                // p = d0*x0 (one rounding), p = fma(d1, x1, p),
                                // acc = fma(p, wg, acc): the kernel's order.
                                let mut d = [[[0i32; 4]; 32]; 2];
                                for (h, dh) in d.iter_mut().enumerate() {
                                    let mut b0 = [[0u32; 2]; 32];
                                    let mut b1 = [[0u32; 2]; 32];
                                    for lane in 0..32 {
                                        let v = &xa[c * 32 + lane][h];
                                        b0[lane] = [le_u32(&v[0..]), le_u32(&v[4..])];
                                        b1[lane] = [le_u32(&v[8..]), le_u32(&v[12..])];
                                    }
                                    let m = mma_m16n8k32(&a[2 * h], &b0, &[[0; 4]; 32]);
                                    *dh = mma_m16n8k32(&a[2 * h + 1], &b1, &m);
                                }
                                for lane in 0..32 {
                                    let (s0, s1) = (xs0[c * 32 + lane], xs1[c * 32 + lane]);
                                    let xcol =
                                        [(half_lo(s0), half_hi(s0)), (half_lo(s1), half_hi(s1))];
                                    let e = &mut acc[r * ct + c][lane];
                                    for (i, ei) in e.iter_mut().enumerate() {
                                        let (x0, x1) = xcol[i & 1];
                                        let w = if i < 2 { wg[lane] } else { wg8[lane] };
                                        let p = d[0][lane][i] as f32 * x0;
                                        let p = (d[1][lane][i] as f32).mul_add(x1, p);
                                        *ei = p.mul_add(w, *ei);
                                    }
                                }
                            }
                        }
                    }
                    i += 1;
                }
                for r in 0..tpw {
                    for c in 0..ct {
                        for lane in 0..32 {
                            for e in 0..4 {
                                let (row, col) = c_coord(lane, e);
                                red[(warp * cols + c * 8 + col) * rows + row_off + r * 16 + row] =
                                    acc[r * ct + c][lane][e];
                            }
                        }
                    }
                }
            }
            for col in 0..t.min(cols) {
                for row in 0..rows {
                    let mut sum = 0.0f32;
                    for warp in 0..s.k_warps {
                        sum += red[(warp * cols + col) * rows + row];
                    }
                    part[(split * cols + col) * rows + row] = sum;
                }
            }
        }
        // k_split = 1 stores the CTA's sum; else the last CTA adds the partials in order.
        for col in 0..t.min(cols) {
            for row in 0..rows {
                y32[col * n + cta * rows + row] = if s.k_split == 1 {
                    part[col * rows + row]
                } else {
                    let mut sum = 0.0f32;
                    for split in 0..s.k_split {
                        sum += part[(split * cols + col) * rows + row];
                    }
                    sum
                };
            }
        }
    }
    let y16 = y32.iter().map(|&v| bf16::from_f32(v)).collect();
    (y32, y16)
}

#[cfg(test)]
mod tests {
    use super::super::pack::pack_ternary;
    use super::super::reference::{quantize_activations, reference_projection};
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn decode_word_matches_the_pair_mapping() {
        // Nibble j (< 4) → byte j of (a0, a1); nibble 4 + j → byte j of (a2, a3).
        use super::super::pack::{decode_pair, encode_pair};
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for _ in 0..1000 {
            let vals: Vec<i8> = (0..16).map(|_| rng.random_range(-1i8..=1)).collect();
            let mut w = 0u32;
            for h in 0..2 {
                for j in 0..4 {
                    let n = encode_pair(vals[8 * h + j], vals[8 * h + 4 + j]);
                    w |= u32::from(n) << (4 * (4 * h + j));
                }
            }
            let a = decode_word(w);
            for h in 0..2 {
                for j in 0..4 {
                    assert_eq!((a[2 * h] >> (8 * j)) as u8 as i8, vals[8 * h + j]);
                    assert_eq!((a[2 * h + 1] >> (8 * j)) as u8 as i8, vals[8 * h + 4 + j]);
                }
            }
        }
        // Every nibble decodes as decode_pair says (8..=14 included).
        for n in 0..16u32 {
            let a = decode_word(n);
            let (x, y) = decode_pair(n as u8);
            assert_eq!((a[0] as u8 as i8, a[1] as u8 as i8), (x, y), "nibble {n}");
        }
    }

    #[test]
    fn fragment_layouts_are_bijections() {
        let mut a = [[0u8; 32]; 16];
        let mut b = [[0u8; 8]; 32];
        let mut c = [[0u8; 8]; 16];
        for lane in 0..32 {
            for reg in 0..4 {
                for byte in 0..4 {
                    let (r, k) = a_coord(lane, reg, byte);
                    a[r][k] += 1;
                }
            }
            for reg in 0..2 {
                for byte in 0..4 {
                    let (k, n) = b_coord(lane, reg, byte);
                    b[k][n] += 1;
                }
            }
            for i in 0..4 {
                let (r, n) = c_coord(lane, i);
                c[r][n] += 1;
            }
        }
        assert!(a.iter().flatten().all(|&v| v == 1));
        assert!(b.iter().flatten().all(|&v| v == 1));
        assert!(c.iter().flatten().all(|&v| v == 1));
    }

    fn case(n: usize, k: usize, t: usize, s: Schedule, seed: u64) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(-1i8..=1)).collect();
        let scales: Vec<f16> = (0..n * k / 128)
            .map(|_| f16::from_f32(rng.random_range(0.5f32..1.5) * 0.02))
            .collect();
        let x: Vec<bf16> = (0..t * k)
            .map(|_| {
                let out = if rng.random_range(0..64) == 0 {
                    8.0
                } else {
                    1.0
                };
                bf16::from_f32(rng.random_range(-1.0f32..1.0) * out)
            })
            .collect();
        let (xq, xs) = quantize_activations(&x, t, k);
        let want = reference_projection(&codes, &scales, &xq, &xs, n, k, t);
        let packed = pack_ternary(&codes, &scales, n, k);
        let (got32, got16) = emulate(&packed, &xq, &xs, t, s);
        let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
        for (i, (g, w)) in got32.iter().zip(&want).enumerate() {
            let d = (*g as f64 - w).abs();
            assert!(
                d <= 1e-5 * (w.abs() + rms),
                "{s:?} n={n} k={k} t={t}: [{}][{}] got {g}, want {w}",
                i / n,
                i % n
            );
        }
        for (g16, g32) in got16.iter().zip(&got32) {
            assert_eq!(*g16, bf16::from_f32(*g32));
        }
    }

    #[test]
    fn emulated_kernel_equals_reference() {
        let sched = |k_warps, tiles_per_warp, column_tiles, words| Schedule {
            k_warps,
            tiles_per_warp,
            column_tiles,
            stages: 2,
            words,
            k_split: 1,
            act_smem: false,
            row_bands: false,
        };
        let split = |s: Schedule, k_split| Schedule { k_split, ..s };
        let staged = |s: Schedule| Schedule {
            act_smem: true,
            ..s
        };
        let stages = |s: Schedule, stages| Schedule { stages, ..s };
        let banded = |s: Schedule| Schedule {
            row_bands: true,
            ..s
        };
        // k = 640: 5 groups, not divisible by k_warps*words (tails); widths with partial tiles.
        case(32, 640, 1, sched(8, 1, 1, 1), 1);
        case(32, 640, 8, sched(4, 1, 1, 2), 2);
        case(64, 640, 5, sched(4, 2, 1, 1), 3);
        case(32, 1024, 13, sched(8, 1, 2, 1), 4);
        case(64, 384, 32, sched(4, 2, 4, 1), 5);
        case(32, 128, 27, sched(8, 1, 4, 2), 6);
        case(16, 2176, 3, sched(8, 1, 1, 2), 7);
        // K split over CTAs: uneven ranges (5 groups over 2, 3, 4 CTAs), one group each.
        case(32, 640, 1, split(sched(8, 1, 1, 1), 2), 8);
        case(32, 640, 7, split(sched(4, 1, 1, 1), 3), 9);
        case(64, 640, 20, split(sched(8, 2, 4, 1), 4), 10);
        case(32, 640, 16, split(sched(4, 1, 2, 2), 5), 11);
        case(16, 2176, 32, split(sched(8, 1, 4, 1), 8), 12);
        // act_smem (T = 1 candidates and wider): staged layout, uneven K ranges, tails.
        case(32, 640, 1, staged(sched(8, 1, 1, 1)), 13);
        case(32, 640, 1, staged(stages(sched(8, 1, 1, 1), 3)), 14);
        case(32, 2176, 1, staged(split(sched(8, 1, 1, 1), 2)), 15);
        case(64, 640, 1, staged(sched(8, 2, 1, 1)), 16);
        case(16, 1152, 1, staged(split(sched(4, 1, 1, 1), 3)), 17);
        case(32, 640, 6, staged(split(sched(8, 1, 1, 1), 2)), 18);
        case(32, 1024, 13, staged(sched(4, 1, 2, 1)), 19);
        // row_bands: 4 or 8 warps of 16 rows, K split over CTAs (uneven), partial widths.
        case(64, 640, 32, banded(split(sched(4, 1, 4, 1), 4)), 20);
        case(128, 640, 13, banded(split(sched(8, 1, 2, 1), 2)), 21);
        case(64, 1152, 5, banded(sched(4, 1, 1, 1)), 22);
        case(128, 2176, 27, banded(split(sched(4, 2, 4, 1), 3)), 23);
    }
}
