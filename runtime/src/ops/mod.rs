//! Operations: host packing, CPU references and GPU launchers of the kernel families.

pub mod quant;
pub mod t2_i8_small;
