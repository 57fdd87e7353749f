//! One GPU: its context and stream, its identity and limits, and the variants' modules,
//! each loaded the first time it is launched.

use std::sync::{Arc, OnceLock};

use anyhow::{bail, Context as _};
use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};

use super::ptx_isa;
use crate::catalog::{Variant, VARIANTS};
use crate::device::DeviceIdentity;

/// What the engine knows about a device beyond its identity.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub identity: DeviceIdentity,
    pub l2_bytes: usize,
    pub total_memory: usize,
    /// CUDA version of the driver, e.g. 13000.
    pub cuda_driver: i32,
}

/// Loads libcuda and reads device `ordinal`'s identity, with one-line errors for
/// every way a machine can lack a usable GPU.
pub(super) fn probe(ordinal: usize) -> anyhow::Result<DeviceInfo> {
    // cudarc panics when libcuda is missing; ask first.
    let present = std::panic::catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() })
        .unwrap_or(false);
    if !present {
        bail!("no NVIDIA GPU driver found (libcuda.so is not loadable): this command needs a CUDA GPU");
    }
    cudarc::driver::result::init()
        .map_err(|e| anyhow::anyhow!("the CUDA driver failed to initialise: {e}"))?;
    let count = cudarc::driver::result::device::get_count().unwrap_or(0);
    if count <= 0 {
        bail!("the CUDA driver reports no GPU on this machine");
    }
    if ordinal >= count as usize {
        bail!(
            "there is no CUDA device {ordinal}: this machine has {count} (0..{})",
            count - 1
        );
    }
    let dev = cudarc::driver::result::device::get(ordinal as i32)?;
    let attr = |a| unsafe { cudarc::driver::result::device::get_attribute(dev, a) };
    let name = cudarc::driver::result::device::get_name(dev)?;
    let major = attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let sms = attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let l2 = attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
    let total_memory = unsafe { cudarc::driver::result::device::total_mem(dev)? };
    let mut driver = 0;
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut driver) }
        .result()
        .context("cuDriverGetVersion")?;
    Ok(DeviceInfo {
        ordinal,
        identity: DeviceIdentity {
            name,
            compute_capability: (major as u32, minor as u32),
            multiprocessors: sms as u32,
        },
        l2_bytes: l2 as usize,
        total_memory,
        cuda_driver: driver,
    })
}

/// An opened GPU. Modules load lazily, once per variant.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
    functions: Vec<OnceLock<CudaFunction>>,
}

impl Gpu {
    pub fn open(ordinal: usize) -> anyhow::Result<Arc<Gpu>> {
        let info = probe(ordinal)?;
        let ctx = CudaContext::new(ordinal).context("creating a CUDA context")?;
        // One stream, explicit synchronisation: cudarc's per-buffer events would only
        // add work and get in the way of graph capture.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        Ok(Arc::new(Gpu {
            ctx,
            stream,
            info,
            functions: VARIANTS.iter().map(|_| OnceLock::new()).collect(),
        }))
    }

    /// The variant's kernel, loading its module on first use.
    pub fn function(&self, variant: &'static Variant) -> anyhow::Result<&CudaFunction> {
        let index = VARIANTS
            .iter()
            .position(|v| std::ptr::eq(v, variant))
            .expect("variant from this build's table");
        if let Some(f) = self.functions[index].get() {
            return Ok(f);
        }
        ptx_isa::check_driver_accepts(variant.ptx, variant.name, self.info.cuda_driver)?;
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(variant.ptx))
            .with_context(|| format!("loading the module of {}", variant.name))?;
        let function = module
            .load_function(variant.name)
            .with_context(|| format!("finding entry point {} in its module", variant.name))?;
        let _ = self.functions[index].set(function);
        Ok(self.functions[index].get().unwrap())
    }

    pub fn sync(&self) -> anyhow::Result<()> {
        self.stream
            .synchronize()
            .context("CUDA stream synchronize (a kernel failed?)")
    }
}
