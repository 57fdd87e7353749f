//! CPU reference of the 6-bit groupwise vocabulary head, written from the format's
//! definition (docs/formats.md):
//!
//! ```text
//!   W[n][k] = code[n][k] * w_scale[n][k/64]          (code in -32..=31, FP16 scale)
//!   logits[t][n] = sum_k W[n][k] * x[t][k]            (f64; x BF16)
//! ```

use half::{bf16, f16};

use crate::ops::groupwise;

/// K elements per weight scale.
pub const W_GROUP: usize = 64;

/// `logits` as `[t][n]` f64 (threaded; see `ops::groupwise::product`).
pub fn reference(
    codes: &[i8],
    scales: &[f16],
    x: &[bf16],
    n: usize,
    k: usize,
    t: usize,
) -> Vec<f64> {
    groupwise::product(codes, scales, W_GROUP, x, n, k, t)
}
