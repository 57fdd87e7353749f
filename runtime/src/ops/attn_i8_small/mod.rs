//! Decode ("small-T") attention over the INT8-family KV caches (`attn_i8_small`): W new
//! query columns of the 24 query heads against a paged `int8`, `rk8v4` or `rk4v4`
//! cache, split-KV over whole waves of CTAs, then a reduce. Kernel:
//! `kernel-templates/attn_i8_small.cu.tera`; formats: docs/formats.md "KV cache".

pub mod bench;
pub mod launch;
pub mod op;
pub mod switches;
