//! The wave-aligned prefill chunk (issue 7): a requested prompt chunk is moved to the
//! nearby multiple of 128 whose prompt-attention grid leaves the least of its last wave
//! idle on this GPU; `NINFER_PREFILL_ALIGN=0` keeps the requested chunk.
//!
//! The grid is a parameter ([`PromptGrid`]: query rows per CTA, CTAs per row tile, CTAs
//! resident per SM): the prompt-attention kernels report theirs when they land; this
//! file is only the choice, so it is tested over SM counts without a GPU.

/// Chunks are multiples of this many tokens.
pub const CHUNK_QUANTUM: usize = 128;

/// "Nearby": candidates within this fraction of the requested chunk, either side.
pub const NEARBY: f64 = 0.25;

/// The launch shape of a prompt-attention kernel for a chunk of `t` query tokens:
/// `ceil(t * rows_per_token / rows_per_cta) * ctas_per_row_tile` CTAs, `resident_per_sm`
/// of them per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptGrid {
    /// Query rows one CTA covers.
    pub rows_per_cta: usize,
    /// Rows per token: 1, or the GQA group with PackGQA (a row per (token, head)).
    pub rows_per_token: usize,
    /// CTAs per row tile (query heads, or KV heads with PackGQA).
    pub ctas_per_row_tile: usize,
    /// CTAs resident per SM (occupancy).
    pub resident_per_sm: usize,
}

impl PromptGrid {
    pub fn ctas(&self, chunk: usize) -> usize {
        (chunk * self.rows_per_token.max(1)).div_ceil(self.rows_per_cta.max(1))
            * self.ctas_per_row_tile
    }

    /// Fraction of the last wave's CTA slots left idle (0 = whole waves).
    pub fn idle_fraction(&self, chunk: usize, sms: usize) -> f64 {
        let wave = (sms * self.resident_per_sm).max(1);
        let ctas = self.ctas(chunk);
        let rest = ctas % wave;
        if rest == 0 {
            0.0
        } else {
            (wave - rest) as f64 / wave as f64
        }
    }
}

/// The multiple of [`CHUNK_QUANTUM`] within [`NEARBY`] of `requested` (at least one
/// quantum) whose grid leaves the least of its last wave idle on `sms` SMs; ties go to
/// the candidate closest to `requested`, then to the smaller. `align = false`
/// (`NINFER_PREFILL_ALIGN=0`) returns `requested` unchanged.
pub fn aligned_chunk(requested: usize, sms: usize, grid: PromptGrid, align: bool) -> usize {
    if !align || requested == 0 {
        return requested;
    }
    let lo = ((requested as f64 * (1.0 - NEARBY)) as usize)
        .div_ceil(CHUNK_QUANTUM)
        .max(1);
    let hi = ((requested as f64 * (1.0 + NEARBY)) as usize / CHUNK_QUANTUM).max(lo);
    (lo..=hi)
        .map(|q| q * CHUNK_QUANTUM)
        .min_by(|&a, &b| {
            let (ia, ib) = (grid.idle_fraction(a, sms), grid.idle_fraction(b, sms));
            ia.total_cmp(&ib)
                .then(a.abs_diff(requested).cmp(&b.abs_diff(requested)))
                .then(a.cmp(&b))
        })
        .unwrap_or(requested)
}

#[cfg(test)]
mod tests {
    use super::*;

    // 64-row tiles over 24 query heads, one CTA per SM (a fast-kernel-like shape).
    const G: PromptGrid = PromptGrid {
        rows_per_cta: 64,
        rows_per_token: 1,
        ctas_per_row_tile: 24,
        resident_per_sm: 1,
    };

    #[test]
    fn off_keeps_the_requested_chunk() {
        for r in [1, 100, 1000, 2048, 3000] {
            assert_eq!(aligned_chunk(r, 132, G, false), r);
        }
    }

    #[test]
    fn the_result_is_a_nearby_multiple_of_128() {
        for sms in [20, 28, 46, 68, 82, 84, 108, 128, 132, 170] {
            for r in [256, 512, 1000, 1024, 2048, 4096, 8192] {
                let c = aligned_chunk(r, sms, G, true);
                assert_eq!(c % CHUNK_QUANTUM, 0, "{sms} SMs, {r}");
                assert!(
                    (c as f64) >= r as f64 * (1.0 - NEARBY) - CHUNK_QUANTUM as f64
                        && (c as f64) <= r as f64 * (1.0 + NEARBY),
                    "{sms} SMs, {r} -> {c}"
                );
                // no nearby candidate idles less of its last wave
                let best = G.idle_fraction(c, sms);
                let mut q = CHUNK_QUANTUM;
                while q as f64 <= r as f64 * (1.0 + NEARBY) {
                    if q as f64 >= r as f64 * (1.0 - NEARBY) {
                        assert!(
                            G.idle_fraction(q, sms) >= best,
                            "{sms} SMs, {r}: {q} beats {c}"
                        );
                    }
                    q += CHUNK_QUANTUM;
                }
            }
        }
    }

    #[test]
    fn known_cases() {
        // H200, 132 SMs: 1024 tokens = 16 tiles x 24 = 384 CTAs = 2.91 waves (9 % idle);
        // 1152 = 18 x 24 = 432 = 3.27 (73 % idle); 896 = 14 x 24 = 336 = 2.55 (45 %);
        // 768 = 288 = 2.18 (82 %); 1280 = 480 = 3.64 (36 %): 1024 stays.
        assert_eq!(aligned_chunk(1024, 132, G, true), 1024);
        // 128 SMs (multiples of 24 x tiles = 128 k): 2048 = 32 tiles x 24 = 768 = 6 waves.
        assert_eq!(aligned_chunk(2000, 128, G, true), 2048);
        // 84 SMs, 2048 requested: 2048 -> 768 CTAs = 9.14 waves (86 % idle); 1792 -> 672 =
        // 8 waves exactly.
        assert_eq!(aligned_chunk(2048, 84, G, true), 1792);
        assert_eq!(G.idle_fraction(1792, 84), 0.0);
    }

    #[test]
    fn packed_rows_count_six_per_token() {
        // 128-row CTAs over 4 KV heads, 1 per SM: 1024 tokens = 48 tiles x 4 = 192 CTAs on
        // 132 SMs (1.45 waves, 55 % of the last idle); 1408 = 66 x 4 = 264 = 2 waves exactly.
        let p = PromptGrid {
            rows_per_cta: 128,
            rows_per_token: 6,
            ctas_per_row_tile: 4,
            resident_per_sm: 1,
        };
        assert_eq!(p.ctas(1024), 192);
        assert_eq!(p.idle_fraction(1408, 132), 0.0);
        assert_eq!(aligned_chunk(1280, 132, p, true), 1408);
    }

    #[test]
    fn small_requests_stay_at_least_one_quantum() {
        assert_eq!(aligned_chunk(1, 132, G, true), CHUNK_QUANTUM);
        assert_eq!(aligned_chunk(64, 132, G, true) % CHUNK_QUANTUM, 0);
    }
}
