//! Device identity as data (name, compute capability, SM count): everything the
//! profile rules need, with no GPU. `crate::gpu` fills it from the driver.

/// Who a GPU is, for matching profile entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceIdentity {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
}
