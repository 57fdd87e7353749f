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
//!   k in group  = 16 * q + 4 * s + 2 * ((i >> 1) & 1) + (i >> 2)
//! ```
//!
//! (see [`code_coord`] / [`code_slot`]). Scales are stored `[n/64][k/64][4][8]` FP16 pairs
//! (block order, 8 pairs per block):
//! pair `i` holds row `i` (low half) and row `i + 8` (high half) of the tile.

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
    let q = kk / 16;
    let s = (kk % 16) / 4;
    let hi = kk % 2;
    let mid = (kk % 4) / 2;
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
    let kk = 16 * (lane % 4) + 4 * s + 2 * ((i >> 1) & 1) + (i >> 2);
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

/// The activations in the k order of the warpgroup schedules (module q4_act_wg,
/// docs/formats.md): inside each 64-wide group, the BF16 pair at k = `16q + 4s + 2h` moves
/// to `16s + 8h + 2q`. wgmma reads B in natural k order, while lane `q`'s A registers of
/// k-step `s` hold the group's k = `16q + 4s ..` (word `s` of its 16 bytes): this puts
/// under each weight the activation at its own k.
pub fn warpgroup_order<T: Copy>(x: &[T], k: usize) -> Vec<T> {
    assert!(k.is_multiple_of(GROUP) && x.len().is_multiple_of(k));
    let mut out = x.to_vec();
    for (src, dst) in x.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
        for (q, s, h) in
            (0..4).flat_map(|q| (0..4).flat_map(move |s| (0..2).map(move |h| (q, s, h))))
        {
            let (from, to) = (16 * q + 4 * s + 2 * h, 16 * s + 8 * h + 2 * q);
            dst[to..to + 2].copy_from_slice(&src[from..from + 2]);
        }
    }
    out
}

/// What module q4_act_wg writes for `t` tokens of x (`[t][k]`): per 64-wide group `gi`, the
/// `t` rows in [`warpgroup_order`], one after the other (token `r` at element
/// `(gi * t + r) * 64`), the 16-byte chunk `c` of row `r` stored at chunk `c ^ (r % 8)`
/// (wgmma's 128-byte swizzle): a group's rows are the shared-memory image the warpgroup
/// schedules multiply, copied in one piece.
pub fn warpgroup_image<T: Copy>(x: &[T], t: usize, k: usize) -> Vec<T> {
    assert!(x.len() >= t * k);
    let ordered = warpgroup_order(&x[..t * k], k);
    let mut out = ordered.clone();
    let groups = k / GROUP;
    for r in 0..t {
        for gi in 0..groups {
            let src = &ordered[r * k + gi * GROUP..][..GROUP];
            let row = (gi * t + r) * GROUP;
            for c in 0..8 {
                let to = row + 8 * (c ^ (r % 8));
                out[to..to + 8].copy_from_slice(&src[8 * c..8 * c + 8]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// mma.sync's (and wgmma's register) A fragment of m16n8k16: lane (gq, q) register j
    /// holds row gq + 8 (j & 1) at k = 2q + 8 (j >> 1) (low half) and + 1 (high half); the
    /// decode puts nibble i of word s in register i % 4, half i / 4. wgmma reads k-step s
    /// of B at the group's offset 16 s + k. So the weight in (lane, s, i) meets the
    /// activation at 16 s + 2q + 8 ((i % 4) >> 1) + i / 4, which must be the one at its
    /// own k.
    #[test]
    fn warpgroup_order_pairs_each_weight_with_its_activation() {
        let k = 256;
        let x: Vec<u16> = (0..2 * k as u16).collect();
        let w = warpgroup_order(&x, k);
        for token in 0..2 {
            for g in 0..k / GROUP {
                for lane in 0..32 {
                    for word in 0..4 {
                        for nibble in 0..8 {
                            let (row, kk) = code_coord(Slot { lane, word, nibble });
                            assert_eq!(row, lane / 4 + 8 * ((nibble % 4) & 1));
                            let logical =
                                16 * word + 2 * (lane % 4) + 8 * ((nibble % 4) >> 1) + nibble / 4;
                            let base = token * k + g * GROUP;
                            assert_eq!(
                                w[base + logical],
                                x[base + kk],
                                "lane {lane} word {word} nibble {nibble}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The image is the ordered activations moved around whole 16-byte chunks: every
    /// (token, group, chunk) lands once, where wgmma's swizzled K-major layout reads it
    /// (byte `(r % 8) * 128 + ((c ^ r) % 8) * 16` of the row block, rows of a group
    /// contiguous).
    #[test]
    fn warpgroup_image_places_each_chunk_where_the_swizzle_reads_it() {
        let (t, k) = (11, 128);
        let x: Vec<u32> = (0..(t * k) as u32).collect();
        let ordered = warpgroup_order(&x, k);
        let image = warpgroup_image(&x, t, k);
        let mut seen = vec![false; t * k];
        for gi in 0..k / GROUP {
            for r in 0..t {
                for c in 0..8 {
                    // byte offset of chunk c of row r inside the group's rows (as the
                    // kernel's wgr_swz reads it), in elements
                    let at = gi * t * GROUP + (r / 8) * 512 + (r % 8) * GROUP + 8 * ((c ^ r) % 8);
                    assert!(!seen[at]);
                    seen[at] = true;
                    assert_eq!(
                        image[at..at + 8],
                        ordered[r * k + gi * GROUP + 8 * c..][..8],
                        "token {r} group {gi} chunk {c}"
                    );
                }
            }
        }
        assert!(seen.iter().step_by(8).all(|&v| v));
    }

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
        // With the K permutation MMA k 2q+e -> 16q+4s+e, 2q+8+e -> 16q+4s+2+e.
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
                        let want_k = 16 * q + 4 * s + 2 * (j >> 1) + half;
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
        let p = pack_q4(&one, &[f16::ONE; 64], 64, 64);
        assert_eq!(p.codes[0], 0x8F);
        assert_eq!(p.codes[2] & 0xF0, 0x00);
        assert_eq!(p.codes[1], 0x88);
    }
}
