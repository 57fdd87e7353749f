//! The GPU: device identity from the driver, module loading, launches (cudarc driver API,
//! libcuda loaded dynamically so a machine without a GPU gets an error, not a crash).

use crate::device::DeviceIdentity;

/// Identity of CUDA device `ordinal`, or a one-line error when there is no usable GPU.
pub fn detect_identity(ordinal: usize) -> anyhow::Result<DeviceIdentity> {
    let _ = ordinal;
    anyhow::bail!("GPU support is not built yet")
}
