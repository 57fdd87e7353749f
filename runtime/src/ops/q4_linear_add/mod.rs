//! The groupwise Q4 small-T projection added into a residual,
//! `residual[T,N] += x[T,K] · Wᵀ` (family `q4_linear_add`): weight packing (`pack`), the
//! CPU reference (`reference`), a lane-exact CPU emulation of the kernel's fragments
//! (`emulate`), synthetic inputs and the GPU launches. Format: docs/formats.md.

pub mod emulate;
pub mod launch;
pub mod op;
pub mod pack;
pub mod reference;
pub mod synthetic;
