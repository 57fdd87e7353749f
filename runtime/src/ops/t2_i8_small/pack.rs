//! Host packing of ternary weights into the `t2_i8_small` kernel format (docs/formats.md).
//!
//! Pair codes: the weights `(x, y)` of rows `r` and `r + 8` of a 16-row tile at the same
//! k share one 4-bit nibble ([`encode_pair`]; nibbles 8..=14 are never produced). The
//! codes of 16-row tile `t` and 128-wide K group `g` form one 512-byte block at byte offset
//! `(t * (k/128) + g) * 512`. Lane `L` of a warp reads the 16 bytes at `+16 L` as four
//! little-endian 32-bit words; word `s` holds the A fragment of the group's k-step `s`
//! of the m16n8k32 MMA. Inside a lane, nibble `i` (bits `4i..4i+3`) of word `s` holds the
//! pair of
//!
//! ```text
//!   rows in tile = L/4 and L/4 + 8
//!   k in group   = 64 * (s >> 1) + 16 * (L % 4) + 8 * (s & 1) + 4 * (i >> 2) + (i & 3)
//! ```
//!
//! (see [`code_coord`] / [`code_slot`]). Scales are stored `[n/16][k/128][8][2]` FP16: the
//! scales of rows `i` and `i + 8` of a tile side by side (one 32-bit load).

use half::f16;

/// Rows per MMA tile.
pub const TILE_ROWS: usize = 16;
/// K elements per weight scale (and per 512-byte block).
pub const GROUP: usize = 128;
/// Bytes of one (tile, group) block.
pub const BLOCK_BYTES: usize = 512;

/// Ternary weights in the kernel's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedTernary {
    pub n: usize,
    pub k: usize,
    /// `n * k / 4` bytes, blocks of 512 bytes per (16-row tile, 128-wide group).
    pub codes: Vec<u8>,
    /// `[n/16][k/128][8][2]`: the scale of row `16*r + i`, group `g` at
    /// `(r*(k/128) + g)*16 + 2*(i % 8) + i / 8` (rows `i`, `i + 8` side by side).
    pub scales: Vec<f16>,
}

/// Where a weight lives inside its block: lane (0..32), word (0..4), nibble (0..8) and
/// the member of the nibble's pair (0: row `L/4`, 1: row `L/4 + 8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub lane: usize,
    pub word: usize,
    pub nibble: usize,
    pub member: usize,
}

impl Slot {
    /// Byte offset inside the block and bit shift of the nibble inside that byte.
    pub fn byte_and_shift(&self) -> (usize, usize) {
        (
            16 * self.lane + 4 * self.word + self.nibble / 2,
            4 * (self.nibble % 2),
        )
    }
}

/// (row in tile 0..16, k in group 0..128) → slot. Inverse of [`code_coord`].
pub fn code_slot(row: usize, kk: usize) -> Slot {
    debug_assert!(row < TILE_ROWS && kk < GROUP);
    let s_hi = kk / 64;
    let q = (kk % 64) / 16;
    let s_lo = (kk % 16) / 8;
    let h = (kk % 8) / 4;
    let j = kk % 4;
    Slot {
        lane: 4 * (row % 8) + q,
        word: 2 * s_hi + s_lo,
        nibble: 4 * h + j,
        member: row / 8,
    }
}

/// Slot → (row in tile, k in group). Inverse of [`code_slot`].
pub fn code_coord(slot: Slot) -> (usize, usize) {
    let Slot {
        lane,
        word: s,
        nibble: i,
        member,
    } = slot;
    debug_assert!(lane < 32 && s < 4 && i < 8 && member < 2);
    let row = lane / 4 + 8 * member;
    let kk = 64 * (s >> 1) + 16 * (lane % 4) + 8 * (s & 1) + 4 * (i >> 2) + (i & 3);
    (row, kk)
}

/// The activation codes `xq[t][k]` in the k order of the warpgroup (`wgmma`) schedules
/// (module quant_act_i8_wg's `xqw`, docs/formats.md): inside each 128-wide group, the 4
/// bytes at k offset `64h + 16q + 8s + 4e` move to offset `4 * (8 * (2h + s) + 4e + q)`.
/// wgmma reads B in natural k order, and lane `q`'s A fragment holds k-step `2h + s`'s
/// k = `4q..` (e = 0) and `16 + 4q..` (e = 1): this puts under each weight the activation
/// the pair codes pair it with.
pub fn warpgroup_order(xq: &[i8], k: usize) -> Vec<i8> {
    assert!(k.is_multiple_of(GROUP) && xq.len().is_multiple_of(k));
    let mut out = vec![0i8; xq.len()];
    for (src, dst) in xq.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
        for c in 0..GROUP / 4 {
            let (h, q, s, e) = (c / 16, (c % 16) / 4, (c / 2) % 2, c % 2);
            let to = 4 * (8 * (2 * h + s) + 4 * e + q);
            dst[to..to + 4].copy_from_slice(&src[4 * c..4 * c + 4]);
        }
    }
    out
}

/// Nibbles 0..=7 → (x, y): the kernel's PRMT tables (common/ternary_i8.cuh).
pub const PAIRS: [(i8, i8); 8] = [
    (0, 0),
    (1, 0),
    (0, 1),
    (1, 1),
    (0, -1),
    (1, -1),
    (-1, -1),
    (-1, 1),
];

/// Nibble of the pair (x, y) = (row r, row r + 8): 0..=7 from [`PAIRS`], `(-1, 0)` → 15
/// (PRMT sign mode on table byte 7: FF for x, 01 → 00 for y).
pub fn encode_pair(x: i8, y: i8) -> u8 {
    assert!(
        (-1..=1).contains(&x) && (-1..=1).contains(&y),
        "ternary values ({x}, {y}) are not in {{-1, 0, 1}}"
    );
    if (x, y) == (-1, 0) {
        return 15;
    }
    PAIRS.iter().position(|&p| p == (x, y)).unwrap() as u8
}

/// Pair of a nibble, as the kernel's PRMT decodes it (8..=14, never produced, decode to
/// the sign of the table byte they select).
pub fn decode_pair(n: u8) -> (i8, i8) {
    let n = n & 15;
    let (x, y) = PAIRS[(n & 7) as usize];
    if n & 8 != 0 {
        (x.min(0), y.min(0))
    } else {
        (x, y)
    }
}

fn check_shape(n: usize, k: usize) {
    assert!(
        n.is_multiple_of(TILE_ROWS),
        "n = {n} is not a multiple of {TILE_ROWS}"
    );
    assert!(
        k.is_multiple_of(GROUP),
        "k = {k} is not a multiple of {GROUP}"
    );
}

/// Packs dense ternary codes `codes[n][k]` (row-major, values in {-1, 0, 1}) and the
/// per-(row, 128-group) scales `scales[n][k/128]` into the kernel format.
pub fn pack_ternary(codes: &[i8], scales: &[f16], n: usize, k: usize) -> PackedTernary {
    check_shape(n, k);
    assert_eq!(codes.len(), n * k, "codes must hold n*k values");
    let groups = k / GROUP;
    assert_eq!(
        scales.len(),
        n * groups,
        "scales must hold n*(k/128) values"
    );
    // Byte positions of a block, computed once: (byte, shift) for (row < 8, kk).
    let table: Vec<(usize, usize)> = (0..8 * GROUP)
        .map(|i| code_slot(i / GROUP, i % GROUP).byte_and_shift())
        .collect();
    let mut out = vec![0u8; n * k / 4];
    let mut out_scales = vec![f16::ZERO; n * groups];
    for tile in 0..n / TILE_ROWS {
        for g in 0..groups {
            let block = (tile * groups + g) * BLOCK_BYTES;
            for r in 0..8 {
                let row = tile * TILE_ROWS + r;
                let lo = &codes[row * k + g * GROUP..row * k + (g + 1) * GROUP];
                let hi = &codes[(row + 8) * k + g * GROUP..(row + 8) * k + (g + 1) * GROUP];
                for kk in 0..GROUP {
                    let (byte, shift) = table[r * GROUP + kk];
                    out[block + byte] |= encode_pair(lo[kk], hi[kk]) << shift;
                }
                for m in 0..2 {
                    out_scales[(tile * groups + g) * TILE_ROWS + 2 * r + m] =
                        scales[(row + 8 * m) * groups + g];
                }
            }
        }
    }
    PackedTernary {
        n,
        k,
        codes: out,
        scales: out_scales,
    }
}

/// Inverse of [`pack_ternary`]: dense codes `[n][k]` and scales `[n][k/128]`.
pub fn unpack_ternary(p: &PackedTernary) -> (Vec<i8>, Vec<f16>) {
    let (n, k) = (p.n, p.k);
    check_shape(n, k);
    let groups = k / GROUP;
    assert_eq!(p.codes.len(), n * k / 4);
    assert_eq!(p.scales.len(), n * groups);
    let mut codes = vec![0i8; n * k];
    let mut scales = vec![f16::ZERO; n * groups];
    for tile in 0..n / TILE_ROWS {
        for g in 0..groups {
            let block = &p.codes[(tile * groups + g) * BLOCK_BYTES..][..BLOCK_BYTES];
            for lane in 0..32 {
                for word in 0..4 {
                    for nibble in 0..8 {
                        let mut slot = Slot {
                            lane,
                            word,
                            nibble,
                            member: 0,
                        };
                        let (byte, shift) = slot.byte_and_shift();
                        let (x, y) = decode_pair(block[byte] >> shift);
                        for (member, v) in [(0, x), (1, y)] {
                            slot.member = member;
                            let (r, kk) = code_coord(slot);
                            codes[(tile * TILE_ROWS + r) * k + g * GROUP + kk] = v;
                        }
                    }
                }
            }
            for r in 0..TILE_ROWS {
                scales[(tile * TILE_ROWS + r) * groups + g] =
                    p.scales[(tile * groups + g) * TILE_ROWS + 2 * (r % 8) + r / 8];
            }
        }
    }
    (codes, scales)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Against the fragment layouts: wgmma's register A operand of a k32 s8 step is
    /// mma.m16n8k32's (lane q: a[0..1] k = 4q + j, a[2..3] k = 16 + 4q + j), the decode
    /// puts nibble i of word s in byte i % 4 of a[2 * (i / 4) + member], and B is read at
    /// k-step s's natural offset 32 s + k. So the weight in (lane, s, i) meets the
    /// activation at 32 s + 16 (i / 4) + 4 q + i % 4, which must be the one at its own k.
    #[test]
    fn warpgroup_order_pairs_each_weight_with_its_activation() {
        let k = 256;
        let xq: Vec<i8> = (0..2 * k).map(|i| (i % 251) as i8).collect();
        let w = warpgroup_order(&xq, k);
        for token in 0..2 {
            for g in 0..k / GROUP {
                for lane in 0..4 {
                    for word in 0..4 {
                        for nibble in 0..8 {
                            let (_, kk) = code_coord(Slot {
                                lane,
                                word,
                                nibble,
                                member: 0,
                            });
                            let logical = 32 * word + 16 * (nibble / 4) + 4 * lane + nibble % 4;
                            let base = token * k + g * GROUP;
                            assert_eq!(
                                w[base + logical],
                                xq[base + kk],
                                "lane {lane} word {word} nibble {nibble}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn slot_mapping_is_a_bijection() {
        let mut seen = vec![false; 32 * 4 * 8 * 2];
        for row in 0..TILE_ROWS {
            for kk in 0..GROUP {
                let s = code_slot(row, kk);
                assert_eq!(code_coord(s), (row, kk));
                let i = ((s.lane * 4 + s.word) * 8 + s.nibble) * 2 + s.member;
                assert!(!seen[i], "slot {s:?} used twice");
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&b| b));
    }

    #[test]
    fn encode_decode_pairs() {
        let mut nibbles = Vec::new();
        for x in -1i8..=1 {
            for y in -1i8..=1 {
                let n = encode_pair(x, y);
                assert_eq!(decode_pair(n), (x, y));
                nibbles.push(n);
            }
        }
        nibbles.sort();
        assert_eq!(nibbles, [0, 1, 2, 3, 4, 5, 6, 7, 15]);
        assert_eq!(encode_pair(0, 0), 0);
    }

    #[test]
    fn pack_unpack_round_trip() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for (n, k) in [(16, 128), (32, 256), (48, 384)] {
            let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(-1i8..=1)).collect();
            let scales: Vec<f16> = (0..n * k / 128)
                .map(|_| f16::from_f32(rng.random_range(0.01f32..1.0)))
                .collect();
            let p = pack_ternary(&codes, &scales, n, k);
            assert_eq!(p.codes.len(), n * k / 4);
            // nibbles 8..=14 are never produced.
            assert!(p
                .codes
                .iter()
                .all(|b| [b & 15, b >> 4].iter().all(|&v| v < 8 || v == 15)));
            let (c2, s2) = unpack_ternary(&p);
            assert_eq!(c2, codes);
            assert_eq!(s2, scales);
        }
    }

    #[test]
    fn known_positions() {
        // Rows 0 and 8, k 0 → lane 0, word 0, nibble 0; k 4 → nibble 4; k 8 → word 1;
        // k 16 → lane 1; k 64 → word 2; row 1 → lane 4. Returns (lane, word, nibble, value).
        let (n, k) = (16, 128);
        let one = |row: usize, kk: usize| {
            let mut c = vec![0i8; n * k];
            c[row * k + kk] = -1;
            let p = pack_ternary(&c, &vec![f16::ONE; n], n, k);
            let words: Vec<u32> = p
                .codes
                .chunks(4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
                .collect();
            let i = words.iter().position(|&w| w != 0).unwrap();
            let nib = words[i].trailing_zeros() / 4;
            (i / 4, i % 4, nib, (words[i] >> (4 * nib)) & 15)
        };
        assert_eq!(one(0, 0), (0, 0, 0, 15));
        assert_eq!(one(8, 0), (0, 0, 0, 4));
        assert_eq!(one(0, 1), (0, 0, 1, 15));
        assert_eq!(one(0, 4), (0, 0, 4, 15));
        assert_eq!(one(0, 8), (0, 1, 0, 15));
        assert_eq!(one(0, 16), (1, 0, 0, 15));
        assert_eq!(one(0, 64), (0, 2, 0, 15));
        assert_eq!(one(1, 0), (4, 0, 0, 15));
        assert_eq!(one(15, 127), (31, 3, 7, 4));
    }

    #[test]
    fn scales_are_paired() {
        let (n, k) = (32, 256);
        let scales: Vec<f16> = (0..n * 2).map(|i| f16::from_f32(i as f32)).collect();
        let p = pack_ternary(&vec![0; n * k], &scales, n, k);
        // row 17 (tile 1, i 1), group 1 → block (1*2 + 1), pair 1, member 0
        assert_eq!(p.scales[(2 + 1) * 16 + 2], scales[17 * 2 + 1]);
        // row 25 (tile 1, i 9), group 1 → pair 1, member 1
        assert_eq!(p.scales[(2 + 1) * 16 + 3], scales[25 * 2 + 1]);
    }
}
