//! Host packing of ternary weights into the `t2_i8_small` kernel format (docs/formats.md).
//!
//! Codes: 2 bits, `00` → 0, `01` → +1, `11` → −1 (`10` is never produced). The codes of
//! 16-row tile `r` and 128-wide K group `g` form one 512-byte block at byte offset
//! `(r * (k/128) + g) * 512`. Lane `L` of a warp reads the 16 bytes at `+16 L` as four
//! little-endian 32-bit words; word `s` holds the A fragment of the group's k-step `s`
//! of the m16n8k32 MMA. Inside a lane, bit `b` (even) of word `s` is the code of
//!
//! ```text
//!   row in tile  = L/4 + 8 * ((b >> 1) & 1)
//!   k in group   = 64 * (s >> 1) + 16 * (L % 4) + 8 * (s & 1) + 4 * (b >> 4) + ((b >> 2) & 3)
//! ```
//!
//! (see [`code_coord`] / [`code_slot`]). Scales are stored `[n/16][k/128][16]` FP16.

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
    /// `[n/16][k/128][16]`: the scale of row `16*r + i`, group `g` at `(r*(k/128) + g)*16 + i`.
    pub scales: Vec<f16>,
}

/// Where a code lives inside its block: lane (0..32), word (0..4), bit (even, 0..32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub lane: usize,
    pub word: usize,
    pub bit: usize,
}

impl Slot {
    /// Byte offset inside the block and bit shift inside that byte.
    pub fn byte_and_shift(&self) -> (usize, usize) {
        (16 * self.lane + 4 * self.word + self.bit / 8, self.bit % 8)
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
    let g = row % 8;
    let rh = row / 8;
    Slot {
        lane: 4 * g + q,
        word: 2 * s_hi + s_lo,
        bit: 16 * h + 4 * j + 2 * rh,
    }
}

/// Slot → (row in tile, k in group). Inverse of [`code_slot`].
pub fn code_coord(slot: Slot) -> (usize, usize) {
    let Slot {
        lane,
        word: s,
        bit: b,
    } = slot;
    debug_assert!(lane < 32 && s < 4 && b < 32 && b % 2 == 0);
    let row = lane / 4 + 8 * ((b >> 1) & 1);
    let kk = 64 * (s >> 1) + 16 * (lane % 4) + 8 * (s & 1) + 4 * (b >> 4) + ((b >> 2) & 3);
    (row, kk)
}

/// 2-bit code of a ternary value.
pub fn encode(v: i8) -> u8 {
    match v {
        0 => 0b00,
        1 => 0b01,
        -1 => 0b11,
        _ => panic!("ternary value {v} is not in {{-1, 0, 1}}"),
    }
}

/// Value of a 2-bit code (`10` decodes to 0, as the kernel's PRMT does; never produced).
pub fn decode(c: u8) -> i8 {
    match c & 3 {
        0b01 => 1,
        0b11 => -1,
        _ => 0,
    }
}

fn check_shape(n: usize, k: usize) {
    assert!(
        n % TILE_ROWS == 0,
        "n = {n} is not a multiple of {TILE_ROWS}"
    );
    assert!(k % GROUP == 0, "k = {k} is not a multiple of {GROUP}");
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
    // Byte positions of a block, computed once: (byte, shift) for (row, kk).
    let table: Vec<(usize, usize)> = (0..TILE_ROWS * GROUP)
        .map(|i| code_slot(i / GROUP, i % GROUP).byte_and_shift())
        .collect();
    let mut out = vec![0u8; n * k / 4];
    let mut out_scales = vec![f16::ZERO; n * groups];
    for tile in 0..n / TILE_ROWS {
        for g in 0..groups {
            let block = (tile * groups + g) * BLOCK_BYTES;
            for r in 0..TILE_ROWS {
                let row = tile * TILE_ROWS + r;
                let src = &codes[row * k + g * GROUP..row * k + (g + 1) * GROUP];
                for (kk, &v) in src.iter().enumerate() {
                    let (byte, shift) = table[r * GROUP + kk];
                    out[block + byte] |= encode(v) << shift;
                }
                out_scales[(tile * groups + g) * TILE_ROWS + r] = scales[row * groups + g];
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
                    for bit in (0..32).step_by(2) {
                        let slot = Slot { lane, word, bit };
                        let (byte, shift) = slot.byte_and_shift();
                        let (r, kk) = code_coord(slot);
                        let row = tile * TILE_ROWS + r;
                        codes[row * k + g * GROUP + kk] = decode(block[byte] >> shift);
                    }
                }
            }
            for r in 0..TILE_ROWS {
                scales[(tile * TILE_ROWS + r) * groups + g] =
                    p.scales[(tile * groups + g) * TILE_ROWS + r];
            }
        }
    }
    (codes, scales)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn slot_mapping_is_a_bijection() {
        let mut seen = vec![false; 32 * 4 * 16];
        for row in 0..TILE_ROWS {
            for kk in 0..GROUP {
                let s = code_slot(row, kk);
                assert_eq!(code_coord(s), (row, kk));
                let i = (s.lane * 4 + s.word) * 16 + s.bit / 2;
                assert!(!seen[i], "slot {s:?} used twice");
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&b| b));
    }

    #[test]
    fn encode_decode() {
        for v in [-1i8, 0, 1] {
            assert_eq!(decode(encode(v)), v);
        }
        assert_eq!(encode(1), 0b01);
        assert_eq!(encode(-1), 0b11);
        assert_eq!(decode(0b10), 0);
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
            // 10 is never produced.
            assert!(p
                .codes
                .iter()
                .all(|b| (0..4).all(|i| (b >> (2 * i)) & 3 != 0b10)));
            let (c2, s2) = unpack_ternary(&p);
            assert_eq!(c2, codes);
            assert_eq!(s2, scales);
        }
    }

    #[test]
    fn known_positions() {
        // Row 0, k 0 → lane 0, word 0, bit 0; row 8 → bit 2; k 4 → bit 16; k 8 → word 1;
        // k 16 → lane 1; k 64 → word 2; row 1 → lane 4.
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
            (i / 4, i % 4, words[i].trailing_zeros())
        };
        assert_eq!(one(0, 0), (0, 0, 0));
        assert_eq!(one(8, 0), (0, 0, 2));
        assert_eq!(one(0, 1), (0, 0, 4));
        assert_eq!(one(0, 4), (0, 0, 16));
        assert_eq!(one(0, 8), (0, 1, 0));
        assert_eq!(one(0, 16), (1, 0, 0));
        assert_eq!(one(0, 64), (0, 2, 0));
        assert_eq!(one(1, 0), (4, 0, 0));
        assert_eq!(one(15, 127), (31, 3, 16 + 12 + 2));
    }

    #[test]
    fn scales_are_tile_major() {
        let (n, k) = (32, 256);
        let scales: Vec<f16> = (0..n * 2).map(|i| f16::from_f32(i as f32)).collect();
        let p = pack_ternary(&vec![0; n * k], &scales, n, k);
        // row 17 (tile 1, i 1), group 1 → (1*2 + 1)*16 + 1
        assert_eq!(p.scales[(2 + 1) * 16 + 1], scales[17 * 2 + 1]);
    }
}
