//! Operations: host packing, CPU references and GPU launchers of the kernel families,
//! and the `routed` interface check, bench and calibration drive them through.

pub mod attn_i8_small;
pub mod attn_prompt;
pub mod groupwise;
pub mod kv;
pub mod prefill_chunk;
pub mod q4_linear_add;
pub mod q6_head;
pub mod quant;
pub mod routed;
pub mod shape;
pub mod t2_i8_small;
