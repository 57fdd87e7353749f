//! The GPU: device identity from the driver, lazy module loading, launches and
//! timing, on cudarc's driver API. libcuda is loaded dynamically, so a machine
//! without a GPU gets a one-line error, never a panic.

mod context;
pub mod launch;
pub mod ptx_isa;
pub mod tensor_map;
pub mod timing;

pub use context::{DeviceInfo, Gpu};

use crate::device::DeviceIdentity;

/// Identity of CUDA device `ordinal`, or a one-line error when there is no usable GPU.
pub fn detect_identity(ordinal: usize) -> anyhow::Result<DeviceIdentity> {
    Ok(context::probe(ordinal)?.identity)
}
