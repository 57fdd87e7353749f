//! Host packing of the 6-bit groupwise head weights into the kernel's layout
//! (docs/formats.md, "q6_head").
//!
//! Codes: signed 6-bit `code` in [−32, 31], stored offset-binary `u = code + 32`. One
//! 1536-byte block holds the 16 rows × 128 k (two 64-wide scale groups) of a 16-row tile;
//! block `tile * (k/128) + b` (tile-major: a tile's blocks along K are one contiguous
//! range). A block is three 512-byte planes `[plane 0..2][lane 0..31][16 B]`, so lane `L`'s 48
//! bytes are the little-endian 32-bit words `wi = 0..11` at `(wi/4)*512 + 16 L + 4 (wi%4)`
//! and every 16-byte load of a warp is one contiguous 512-byte range.
//! A lane's words form four sets `p` (words `3p..3p+2`), set `p` = block k-steps `2p`,
//! `2p + 1` (group `p/2`, in-group k-steps `2 (p%2)` and `2 (p%2) + 1`). Register `j` of
//! k-step `s` (the q4 fragment convention: low half = nibble slot `j`, high half = slot
//! `j + 4`; slot `i` = row `L/4 + 8 (i & 1)`, in-group k `16 (L%4) + 4 s' + 2 ((i>>1)&1) +
//! (i>>2)`) is register `R = 4 (s%2) + j` of its set, half `e`:
//!
//! ```text
//!   R 0..5: word R/2, bits 6 (R%2) + 16 e .. +5     (the whole u)
//!   R 6:    u & 15 at word 0 bits 12 + 16 e .. +3,  u >> 4 at word 2 bits 12 + 16 e .. +1
//!   R 7:    u & 15 at word 1 bits 12 + 16 e .. +3,  u >> 4 at word 2 bits 14 + 16 e .. +1
//! ```
//!
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

/// One piece of a code inside its block: `width` bits of `u` starting at bit `src` are
/// stored at bit `shift` of the block's 32-bit word `word` (0..384).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub word: usize,
    pub shift: u32,
    pub width: u32,
    pub src: u32,
}

/// The pieces of (row in tile, k in block): one (a whole 6-bit field) or two (a nibble
/// and two high bits).
pub fn code_pieces(row: usize, kb: usize) -> Vec<Piece> {
    debug_assert!(row < TILE_ROWS && kb < BLOCK_K);
    let (h, kk) = (kb / GROUP, kb % GROUP);
    let q = kk / 16;
    let s = 4 * h + (kk % 16) / 4; // k-step in the block
    let e = (kk % 2) as u32;
    let mid = (kk % 4) / 2;
    let lane = 4 * (row % 8) + q;
    let j = row / 8 + 2 * mid;
    let (p, r) = (s / 2, 4 * (s % 2) + j);
    let word = |w: usize| {
        let wi = 3 * p + w;
        (wi / 4) * 128 + 4 * lane + wi % 4
    };
    let piece = |w, shift, width, src| Piece {
        word: word(w),
        shift,
        width,
        src,
    };
    match r {
        0..=5 => vec![piece(r / 2, 6 * (r % 2) as u32 + 16 * e, 6, 0)],
        6 => vec![piece(0, 12 + 16 * e, 4, 0), piece(2, 12 + 16 * e, 2, 4)],
        _ => vec![piece(1, 12 + 16 * e, 4, 0), piece(2, 14 + 16 * e, 2, 4)],
    }
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
        n.is_multiple_of(TILE_ROWS),
        "n = {n} is not a multiple of {TILE_ROWS}"
    );
    assert!(
        k.is_multiple_of(BLOCK_K),
        "k = {k} is not a multiple of {BLOCK_K}"
    );
    assert_eq!(codes.len(), n * k);
    assert_eq!(scales.len(), n * (k / GROUP));
    let groups = k / GROUP;
    let tile_bytes = (k / BLOCK_K) * BLOCK_BYTES;
    // Pieces of every code of a block, computed once.
    let slots: Vec<Vec<Piece>> = (0..TILE_ROWS * BLOCK_K)
        .map(|i| code_pieces(i / BLOCK_K, i % BLOCK_K))
        .collect();
    let mut out = vec![0u8; n * k * 3 / 4];
    par_chunks(&mut out, tile_bytes, |tile0, chunk| {
        let mut words = vec![0u32; BLOCK_BYTES / 4];
        for (ti, tb) in chunk.chunks_mut(tile_bytes).enumerate() {
            let tile = tile0 + ti;
            for (b, blk) in tb.chunks_mut(BLOCK_BYTES).enumerate() {
                words.iter_mut().for_each(|w| *w = 0);
                for r in 0..TILE_ROWS {
                    let row = tile * TILE_ROWS + r;
                    let wrow = &codes[row * k + b * BLOCK_K..row * k + (b + 1) * BLOCK_K];
                    for (kb, &c) in wrow.iter().enumerate() {
                        assert!(
                            (-32..=31).contains(&c),
                            "code {c} at ({row}, {}) is outside -32..=31",
                            b * BLOCK_K + kb
                        );
                        let u = (c as i32 + 32) as u32;
                        for pc in &slots[r * BLOCK_K + kb] {
                            words[pc.word] |= ((u >> pc.src) & ((1 << pc.width) - 1)) << pc.shift;
                        }
                    }
                }
                for (d, w) in blk.chunks_exact_mut(4).zip(&words) {
                    d.copy_from_slice(&w.to_le_bytes());
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
            let base = block_index(tile, kcol / BLOCK_K, k) * BLOCK_BYTES;
            let mut u = 0u32;
            for pc in code_pieces(r, kcol % BLOCK_K) {
                let at = base + 4 * pc.word;
                let w = u32::from_le_bytes([
                    p.codes[at],
                    p.codes[at + 1],
                    p.codes[at + 2],
                    p.codes[at + 3],
                ]);
                u |= ((w >> pc.shift) & ((1 << pc.width) - 1)) << pc.src;
            }
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
                let pieces = code_pieces(row, kb);
                assert_eq!(pieces.iter().map(|p| p.width).sum::<u32>(), 6);
                for pc in pieces {
                    assert!(pc.shift + pc.width <= 32 && pc.word < BLOCK_BYTES / 4);
                    for b in 0..pc.width {
                        assert!(
                            seen.insert(pc.word * 32 + (pc.shift + b) as usize),
                            "({row}, {kb})"
                        );
                    }
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
        // row 0, k 0: lane 0, set 0, register 0, low half: bits 0..5 of word 0.
        let mut one = vec![-32i8; 16 * 128];
        one[0] = 31; // u = 63
        let p = pack_q6(&one, &[f16::ONE; 32], 16, 128);
        assert_eq!(p.codes[0], 0x3F);
        assert!(p.codes.iter().skip(1).all(|&b| b == 0));
        // row 15, k 127: lane 31, k-step 7 (set 3, register 7), high half: nibble at
        // bits 28..31 of set word 1 (lane word 10: plane 2, byte 8), high bits at bits
        // 30..31 of set word 2 (lane word 11: plane 2, byte 12).
        let mut one = vec![-32i8; 16 * 128];
        one[15 * 128 + 127] = 31;
        let p = pack_q6(&one, &[f16::ONE; 32], 16, 128);
        let lane = 1024 + 16 * 31;
        assert_eq!(p.codes[lane + 8 + 3], 0xF0);
        assert_eq!(p.codes[lane + 12 + 3], 0xC0);
        assert_eq!(p.codes.iter().filter(|&&b| b != 0).count(), 2);
    }
}
