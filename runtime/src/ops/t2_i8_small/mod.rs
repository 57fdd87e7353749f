//! The ternary small-T projection `y[T,N] = x[T,K] · Wᵀ` (family `t2_i8_small`):
//! weight packing (`pack`), the CPU reference (`reference`), a lane-exact CPU emulation
//! of the kernel (`emulate`), synthetic inputs and the GPU launches. Format: docs/formats.md.

pub mod emulate;
pub mod launch;
pub mod op;
pub mod pack;
pub mod reference;
pub mod synthetic;
