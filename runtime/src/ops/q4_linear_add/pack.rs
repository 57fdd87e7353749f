//! Host packing of groupwise Q4 weights into the `q4_linear_add` kernel format
//! (docs/formats.md).
//!
//! Codes: signed 4-bit `code` in [−8, 7], stored offset-binary as the nibble `u = code + 8`.
//! The codes of 16-row tile `r` and 64-wide K group `g` form one 512-byte block, block
//! `((r/4) * (k/64) + g) * 4 + r%4` (band-major: 64-row bands of four tiles, then groups,
//! then the band's tiles; a band's blocks along K are one contiguous range). Lane `L` (`gq = L/4`, `q = L%4`) reads the 16 bytes at
//! `+16 L` as four little-endian 32-bit words; word `s` is the A fragment of the group's
//! m16n8k16 k-step `s`. Nibble `i` (bits `4i..4i+3`) of word `s` is the code of
//!
//! ```text
//!   row in tile = gq + 8 * (i & 1)
//!   k in group  = 16 * s + 2 * q + 8 * ((i >> 1) & 1) + (i >> 2)
//! ```
//!
//! (see [`code_coord`] / [`code_slot`]): the k the fragment itself names (the m16n8k16 A
//! operand of k-step `s`, for mma.sync and wgmma alike), so the activations are B in
//! natural k order and the kernels read plain rows of x. Scales are stored
//! `[n/64][k/64][4][8]` FP16 pairs (block order, 8 pairs per block): pair `i` holds row `i`
//! (low half) and row `i + 8` (high half) of the tile.

use half::f16;

/// Rows per MMA tile.
pub const TILE_ROWS: usize = 16;
/// K elements per weight scale (and per 512-byte block).
pub const GROUP: usize = 64;
/// Bytes of one (tile, group) block.
pub const BLOCK_BYTES: usize = 512;

/// Q4 weights in the kernel's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedQ4 {
    pub n: usize,
    pub k: usize,
    /// `n * k / 2` bytes, blocks of 512 bytes per (16-row tile, 64-wide group), band-major.
    pub codes: Vec<u8>,
    /// `[n/64][k/64][4][8][2]`: the scale of row `16*r + i`, group `g` at
    /// `(block_index(r, g, k)*8 + i%8)*2 + i/8`.
    pub scales: Vec<f16>,
}

/// Where a code lives inside its block: lane (0..32), word (0..4), nibble (0..8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub lane: usize,
    pub word: usize,
    pub nibble: usize,
}

impl Slot {
    /// Byte offset inside the block and bit shift inside that byte.
    pub fn byte_and_shift(&self) -> (usize, usize) {
        (
            16 * self.lane + 4 * self.word + self.nibble / 2,
            4 * (self.nibble % 2),
        )
    }
}

/// (row in tile 0..16, k in group 0..64) → slot. Inverse of [`code_coord`].
pub fn code_slot(row: usize, kk: usize) -> Slot {
    debug_assert!(row < TILE_ROWS && kk < GROUP);
    let s = kk / 16;
    let q = (kk % 8) / 2;
    let hi = kk % 2;
    let mid = (kk % 16) / 8;
    Slot {
        lane: 4 * (row % 8) + q,
        word: s,
        nibble: (row / 8) + 2 * mid + 4 * hi,
    }
}

/// Slot → (row in tile, k in group). Inverse of [`code_slot`].
pub fn code_coord(slot: Slot) -> (usize, usize) {
    let Slot {
        lane,
        word: s,
        nibble: i,
    } = slot;
    debug_assert!(lane < 32 && s < 4 && i < 8);
    let row = lane / 4 + 8 * (i & 1);
    let kk = 16 * s + 2 * (lane % 4) + 8 * ((i >> 1) & 1) + (i >> 2);
    (row, kk)
}

/// Tiles per band: blocks are stored band-major (64-row bands, then groups, then the
/// band's four tiles), so a CTA of whole bands streams contiguous memory along K.
pub const BAND_TILES: usize = 4;

/// Index of the (16-row tile, group) block.
pub fn block_index(tile: usize, group: usize, k: usize) -> usize {
    ((tile / BAND_TILES) * (k / GROUP) + group) * BAND_TILES + tile % BAND_TILES
}

/// Scale index of (row, group) in the packed scale array.
pub fn scale_index(row: usize, group: usize, k: usize) -> usize {
    let (r, i) = (row / TILE_ROWS, row % TILE_ROWS);
    (block_index(r, group, k) * 8 + i % 8) * 2 + i / 8
}

/// Packs dense codes `codes[n][k]` (each in −8..=7) and scales `scales[n][k/64]`.
pub fn pack_q4(codes: &[i8], scales: &[f16], n: usize, k: usize) -> PackedQ4 {
    assert!(
        n.is_multiple_of(TILE_ROWS * BAND_TILES),
        "n = {n} is not a multiple of 64"
    );
    assert!(
        k.is_multiple_of(GROUP),
        "k = {k} is not a multiple of {GROUP}"
    );
    assert_eq!(codes.len(), n * k);
    assert_eq!(scales.len(), n * (k / GROUP));
    let groups = k / GROUP;
    let mut out = vec![0u8; n * k / 2];
    for (row, wrow) in codes.chunks(k).enumerate() {
        let (r, ri) = (row / TILE_ROWS, row % TILE_ROWS);
        for (kk, &c) in wrow.iter().enumerate() {
            assert!(
                (-8..=7).contains(&c),
                "code {c} at ({row}, {kk}) is outside -8..=7"
            );
            let (gi, kg) = (kk / GROUP, kk % GROUP);
            let (byte, shift) = code_slot(ri, kg).byte_and_shift();
            out[block_index(r, gi, k) * BLOCK_BYTES + byte] |= ((c + 8) as u8) << shift;
        }
    }
    let mut sc = vec![f16::ZERO; scales.len()];
    for row in 0..n {
        for gi in 0..groups {
            sc[scale_index(row, gi, k)] = scales[row * groups + gi];
        }
    }
    PackedQ4 {
        n,
        k,
        codes: out,
        scales: sc,
    }
}

/// Inverse of [`pack_q4`]: dense codes and scales.
pub fn unpack_q4(p: &PackedQ4) -> (Vec<i8>, Vec<f16>) {
    let (n, k) = (p.n, p.k);
    let groups = k / GROUP;
    let mut codes = vec![0i8; n * k];
    let mut scales = vec![f16::ZERO; n * groups];
    for row in 0..n {
        let (r, ri) = (row / TILE_ROWS, row % TILE_ROWS);
        for kk in 0..k {
            let (gi, kg) = (kk / GROUP, kk % GROUP);
            let (byte, shift) = code_slot(ri, kg).byte_and_shift();
            let u = (p.codes[block_index(r, gi, k) * BLOCK_BYTES + byte] >> shift) & 0xF;
            codes[row * k + kk] = u as i8 - 8;
        }
        for gi in 0..groups {
            scales[row * groups + gi] = p.scales[scale_index(row, gi, k)];
        }
    }
    (codes, scales)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn slot_and_coord_are_inverse_bijections() {
        let mut seen = std::collections::HashSet::new();
        for row in 0..TILE_ROWS {
            for kk in 0..GROUP {
                let s = code_slot(row, kk);
                assert_eq!(code_coord(s), (row, kk));
                assert!(seen.insert(s.byte_and_shift()));
            }
        }
        assert_eq!(seen.len(), TILE_ROWS * GROUP);
    }

    #[test]
    fn fragment_registers_hold_the_mma_elements() {
        // Register j of word s takes nibble j (low half) and j+4 (high half): a0 = row g,
        // k 2q,2q+1 (MMA order); a1 = row g+8; a2 = row g, k 2q+8,2q+9; a3 = row g+8.
        // The group's k of k-step s is 16s + the MMA k (natural order).
        for lane in 0..32 {
            let (g, q) = (lane / 4, lane % 4);
            for s in 0..4 {
                for j in 0..4 {
                    for half in 0..2 {
                        let (row, kk) = code_coord(Slot {
                            lane,
                            word: s,
                            nibble: j + 4 * half,
                        });
                        let want_row = g + 8 * (j & 1);
                        let want_k = 16 * s + 2 * q + 8 * (j >> 1) + half;
                        assert_eq!(
                            (row, kk),
                            (want_row, want_k),
                            "lane {lane} word {s} reg {j} half {half}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pack_round_trips() {
        let (n, k) = (128, 192);
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(-8i8..=7)).collect();
        let scales: Vec<f16> = (0..n * k / 64)
            .map(|i| f16::from_f32(0.01 + i as f32 * 1e-4))
            .collect();
        let p = pack_q4(&codes, &scales, n, k);
        assert_eq!(p.codes.len(), n * k / 2);
        let (c2, s2) = unpack_q4(&p);
        assert_eq!(c2, codes);
        assert_eq!(s2, scales);
        // code -8 is nibble 0, 7 is nibble 15; row 0, k 0 is lane 0, word 0, nibble 0.
        let mut one = vec![0i8; 64 * 64];
        one[0] = 7;
        one[8 * 64 + 1] = -8; // row 8, k 1: nibble 5 of lane 0 word 0 (u = 0)
        one[3 * 64 + 18] = 7; // row 3, k 18: lane 13 (q 1), word 1, nibble 0 (u = 15)
        let p = pack_q4(&one, &[f16::ONE; 64], 64, 64);
        assert_eq!(p.codes[0], 0x8F);
        assert_eq!(p.codes[2] & 0xF0, 0x00);
        assert_eq!(p.codes[1], 0x88);
        assert_eq!(p.codes[16 * 13 + 4] & 0x0F, 0x0F);
    }
}
