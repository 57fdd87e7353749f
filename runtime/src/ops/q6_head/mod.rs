//! The vocabulary head `logits[T,N] = x[T,K] · Wᵀ` with 6-bit groupwise weights
//! (family `q6_head`): weight packing (`pack`), the threaded f64 CPU reference
//! (`reference`), a lane-exact CPU emulation of the kernel's decode and fragments
//! (`emulate`), synthetic inputs and the GPU launches. Format: docs/formats.md.

pub mod emulate;
pub mod launch;
pub mod op;
pub mod pack;
pub mod reference;
pub mod synthetic;

pub(crate) use crate::ops::groupwise::par_chunks;
