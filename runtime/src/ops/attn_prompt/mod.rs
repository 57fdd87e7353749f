//! Prompt ("prefill") attention over the INT8-family KV caches (issue 7): a chunk of C
//! new tokens, already appended, attends causally to the cache. Two kernels (catalog
//! modules `attn_prompt_w8`, `attn_prompt_fast_w8`, one template) and three route
//! switches (`attn_pack_gqa`, `attn_prompt_fast`, `attn_pv_f16`) choose per device
//! (`route`); `launch` sizes and launches them; `check` compares every kernel, format and
//! switch with the f64 reference; `bench` times the cases.

pub mod bench;
pub mod check;
pub mod launch;
pub mod route;
