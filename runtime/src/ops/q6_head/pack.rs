//! Host packing of the 6-bit groupwise head weights into the kernel's layout
//! (docs/formats.md, "q6_head").
//!
//! Codes: signed 6-bit `code` in [−32, 31], stored offset-binary `u = code + 32`, split
//! into a low nibble (`u & 15`) and two high bits (`u >> 4`). One 1536-byte block holds
//! the 16 rows × 128 k (two 64-wide scale groups) of a 16-row tile; block
//! `tile * (k/128) + b` (tile-major: a tile's blocks along K are one contiguous range).
//! A block is three 512-byte planes `[plane][lane 0..32][16 B]`: plane `h` (0, 1) holds
//! the low nibbles of group `h` exactly as q4 lays out a group (word `s` of lane `L` =
//! the A fragment of k-step `s`, nibble `i` = row `L/4 + 8 (i & 1)`, k
//! `16 (L%4) + 4 s + 2 ((i>>1)&1) + (i>>2)`); plane 2 holds the high bits: word
//! `2h + s/2` of lane `L` serves k-steps `s` (even and odd) of group `h`; the two bits of
//! the code in nibble `i = j + 4 e` of k-step `s` sit at bit `2 m + 16 e` with
//! `m = 4 (s & 1) + j`.
//! Scales: `[tile][k/128][8][4]` FP16: entry `(g, 2 h + r)` = row `g + 8 r` of the tile,
//! group `h` of the block (a lane `(g, q)` reads its 8 bytes with one load).

use half::f16;

use super::par_chunks;

/// Rows per MMA tile.
pub const TILE_ROWS: usize = 16;
/// K elements per weight scale.
pub const GROUP: usize = 64;
/// K elements per block (two groups).
pub const BLOCK_K: usize = 128;
/// Bytes of one (tile, 128-k) block.
pub const BLOCK_BYTES: usize = 1536;
/// FP16 scales per block.
pub const BLOCK_SCALES: usize = 32;

/// 6-bit weights in the kernel's layout.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedQ6 {
    pub n: usize,
    pub k: usize,
    /// `n * k * 3 / 4` bytes: 1536-byte blocks, tile-major.
    pub codes: Vec<u8>,
    /// `n * k / 64` FP16 scales, 32 per block.
    pub scales: Vec<f16>,
}

/// Where the bits of (row in tile, k in block) live inside the block: the low nibble's
/// (byte, shift) and the high bits' (byte, shift).
pub fn code_bits(row: usize, kb: usize) -> ((usize, usize), (usize, usize)) {
    debug_assert!(row < TILE_ROWS && kb < BLOCK_K);
    let (h, kk) = (kb / GROUP, kb % GROUP);
    let q = kk / 16;
    let s = (kk % 16) / 4;
    let e = kk % 2;
    let mid = (kk % 4) / 2;
    let lane = 4 * (row % 8) + q;
    let j = row / 8 + 2 * mid;
    let nibble = j + 4 * e;
    let low = (h * 512 + 16 * lane + 4 * s + nibble / 2, 4 * (nibble % 2));
    let m = 4 * (s % 2) + j;
    let bit = 2 * m + 16 * e;
    let hw = 2 * h + s / 2;
    let high = (1024 + 16 * lane + 4 * hw + bit / 8, bit % 8);
    (low, high)
}

/// Index of the (tile, 128-k block) block.
pub fn block_index(tile: usize, b: usize, k: usize) -> usize {
    tile * (k / BLOCK_K) + b
}

/// Scale index of (row, 64-group) in the packed scale array.
pub fn scale_index(row: usize, group: usize, k: usize) -> usize {
    let (tile, r) = (row / TILE_ROWS, row % TILE_ROWS);
    let (b, h) = (group / 2, group % 2);
    block_index(tile, b, k) * BLOCK_SCALES + (r % 8) * 4 + 2 * h + r / 8
}

/// Packs dense codes `codes[n][k]` (each in −32..=31) and scales `scales[n][k/64]`.
/// Threads over tiles; linear in the size.
pub fn pack_q6(codes: &[i8], scales: &[f16], n: usize, k: usize) -> PackedQ6 {
    assert!(
        n % TILE_ROWS == 0,
        "n = {n} is not a multiple of {TILE_ROWS}"
    );
    assert!(k % BLOCK_K == 0, "k = {k} is not a multiple of {BLOCK_K}");
    assert_eq!(codes.len(), n * k);
    assert_eq!(scales.len(), n * (k / GROUP));
    let groups = k / GROUP;
    let tile_bytes = (k / BLOCK_K) * BLOCK_BYTES;
    // Bit positions of one block, computed once.
    let slots: Vec<((usize, usize), (usize, usize))> = (0..TILE_ROWS * BLOCK_K)
        .map(|i| code_bits(i / BLOCK_K, i % BLOCK_K))
        .collect();
    let mut out = vec![0u8; n * k * 3 / 4];
    par_chunks(&mut out, tile_bytes, |tile0, chunk| {
        for (ti, tb) in chunk.chunks_mut(tile_bytes).enumerate() {
            let tile = tile0 + ti;
            for r in 0..TILE_ROWS {
                let row = tile * TILE_ROWS + r;
                let wrow = &codes[row * k..(row + 1) * k];
                for (kcol, &c) in wrow.iter().enumerate() {
                    assert!(
                        (-32..=31).contains(&c),
                        "code {c} at ({row}, {kcol}) is outside -32..=31"
                    );
                    let u = (c as i32 + 32) as u8;
                    let ((lb, ls), (hb, hs)) = slots[r * BLOCK_K + kcol % BLOCK_K];
                    let blk = (kcol / BLOCK_K) * BLOCK_BYTES;
                    tb[blk + lb] |= (u & 15) << ls;
                    tb[blk + hb] |= (u >> 4) << hs;
                }
            }
        }
    });
    let mut sc = vec![f16::ZERO; scales.len()];
    for row in 0..n {
        for gi in 0..groups {
            sc[scale_index(row, gi, k)] = scales[row * groups + gi];
        }
    }
    PackedQ6 {
        n,
        k,
        codes: out,
        scales: sc,
    }
}

/// Inverse of [`pack_q6`]: dense codes and scales.
pub fn unpack_q6(p: &PackedQ6) -> (Vec<i8>, Vec<f16>) {
    let (n, k) = (p.n, p.k);
    let groups = k / GROUP;
    let mut codes = vec![0i8; n * k];
    let mut scales = vec![f16::ZERO; n * groups];
    for row in 0..n {
        let (tile, r) = (row / TILE_ROWS, row % TILE_ROWS);
        for kcol in 0..k {
            let ((lb, ls), (hb, hs)) = code_bits(r, kcol % BLOCK_K);
            let base = block_index(tile, kcol / BLOCK_K, k) * BLOCK_BYTES;
            let u = ((p.codes[base + lb] >> ls) & 15) | (((p.codes[base + hb] >> hs) & 3) << 4);
            codes[row * k + kcol] = u as i8 - 32;
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
    fn every_bit_of_a_block_is_used_once() {
        let mut seen = std::collections::HashSet::new();
        for row in 0..TILE_ROWS {
            for kb in 0..BLOCK_K {
                let ((lb, ls), (hb, hs)) = code_bits(row, kb);
                for b in 0..4 {
                    assert!(seen.insert(lb * 8 + ls + b), "low ({row}, {kb})");
                }
                for b in 0..2 {
                    assert!(seen.insert(hb * 8 + hs + b), "high ({row}, {kb})");
                }
            }
        }
        assert_eq!(seen.len(), BLOCK_BYTES * 8);
    }

    #[test]
    fn pack_round_trips() {
        let (n, k) = (48, 384);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let codes: Vec<i8> = (0..n * k).map(|_| rng.random_range(-32i8..=31)).collect();
        let scales: Vec<f16> = (0..n * k / 64)
            .map(|i| f16::from_f32(0.01 + i as f32 * 1e-4))
            .collect();
        let p = pack_q6(&codes, &scales, n, k);
        assert_eq!(p.codes.len(), n * k * 3 / 4);
        let (c2, s2) = unpack_q6(&p);
        assert_eq!(c2, codes);
        assert_eq!(s2, scales);
        // row 0, k 0: lane 0 word 0 nibble 0 (low plane) and bits 0..1 of high word 0.
        let mut one = vec![-32i8; 16 * 128];
        one[0] = 31; // u = 63
        let p = pack_q6(&one, &vec![f16::ONE; 32], 16, 128);
        assert_eq!(p.codes[0], 0x0F);
        assert_eq!(p.codes[1024], 0x03);
        assert!(p
            .codes
            .iter()
            .enumerate()
            .all(|(i, &b)| i == 0 || i == 1024 || b == 0));
    }
}
