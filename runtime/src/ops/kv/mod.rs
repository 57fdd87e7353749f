//! KV cache formats of the decode attention families (issue 6): the 256-point Hadamard
//! rotation (`hadamard`), the formats and their byte counts (`format`), the 4-bit
//! Lloyd-Max codebook (`codebook`), per-row quantization (`quantize`), a CPU paged cache
//! with the append rule the GPU append kernel must match (`cache`) and the CPU reference
//! of causal decode attention over it (`reference`), and the GPU paged cache with its
//! append kernels (`append`). Format: docs/formats.md, "KV cache".

pub mod append;
pub mod cache;
pub mod codebook;
pub mod format;
pub mod hadamard;
pub mod quantize;
pub mod reference;

/// Elements per K or V row (one token, one KV head).
pub const HEAD_DIM: usize = 256;
/// Tokens per KV cache page.
pub const PAGE_TOKENS: usize = 64;
/// Query heads of the seed's 27B model.
pub const Q_HEADS: usize = 24;
/// KV heads of the seed's 27B model.
pub const KV_HEADS: usize = 4;
/// Query heads per KV head (GQA group): query head `h` reads KV head `h / GQA`.
pub const GQA: usize = Q_HEADS / KV_HEADS;
