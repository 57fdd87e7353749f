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
    /// Shared memory of one SM, and what the driver reserves per resident CTA out of it.
    pub smem_per_sm: usize,
    pub smem_reserved_per_cta: usize,
    pub total_memory: usize,
    /// CUDA version of the driver, e.g. 13000.
    pub cuda_driver: i32,
    /// CUDA version of the runtime side this build brings: the NVRTC that compiled its PTX
    /// (the binary links no cudart), e.g. 13000.
    pub cuda_runtime: i32,
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
    let smem_per_sm = attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?;
    let smem_reserved = attr(Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?;
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
        smem_per_sm: smem_per_sm as usize,
        smem_reserved_per_cta: smem_reserved as usize,
        total_memory,
        cuda_driver: driver,
        cuda_runtime: crate::build_info::cuda_runtime(),
    })
}

/// An opened GPU. Modules load lazily, once per variant.
pub struct Gpu {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub info: DeviceInfo,
    functions: Vec<OnceLock<CudaFunction>>,
    modules: Vec<OnceLock<Arc<cudarc::driver::CudaModule>>>,
    /// Entry points `<variant>_<suffix>` (families with several kernels per variant).
    suffixed: std::sync::Mutex<std::collections::HashMap<(usize, String), CudaFunction>>,
    /// Dynamic shared memory each entry point (by name) is allowed so far.
    dynamic_shared: std::sync::Mutex<std::collections::HashMap<String, usize>>,
    /// `launch::even_share_smem` of cluster launches, by (entry point, bytes needed,
    /// grid): its occupancy queries run once per launch shape, not per launch.
    pub(crate) cluster_share: std::sync::Mutex<ClusterShares>,
}

/// (entry point, bytes needed, grid) -> dynamic shared memory of a cluster launch.
pub(crate) type ClusterShares = std::collections::HashMap<(String, usize, (u32, u32)), usize>;

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
            modules: VARIANTS.iter().map(|_| OnceLock::new()).collect(),
            suffixed: Default::default(),
            dynamic_shared: Default::default(),
            cluster_share: Default::default(),
        }))
    }

    fn index_of(variant: &'static Variant) -> usize {
        VARIANTS
            .iter()
            .position(|v| std::ptr::eq(v, variant))
            .expect("variant from this build's table")
    }

    /// The variant's module, loaded on first use: the newest PTX of the variant this GPU
    /// runs (`Gpu::ptx_for`: or the baseline with `NINFER_PTX=baseline`), after checking
    /// the driver takes it.
    fn module(
        &self,
        variant: &'static Variant,
    ) -> anyhow::Result<&Arc<cudarc::driver::CudaModule>> {
        let index = Self::index_of(variant);
        if let Some(m) = self.modules[index].get() {
            return Ok(m);
        }
        let chosen = self.ptx_for(variant);
        ptx_isa::check_driver_accepts(chosen.ptx, variant.name, self.info.cuda_driver)?;
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(chosen.ptx))
            .with_context(|| {
                format!(
                    "loading the module of {} ({} PTX)",
                    variant.name,
                    chosen.name()
                )
            })?;
        let _ = self.modules[index].set(module);
        Ok(self.modules[index].get().unwrap())
    }

    /// The variant's kernel, loading its module on first use.
    pub fn function(&self, variant: &'static Variant) -> anyhow::Result<&CudaFunction> {
        let index = Self::index_of(variant);
        if let Some(f) = self.functions[index].get() {
            return Ok(f);
        }
        let function = self
            .module(variant)?
            .load_function(variant.name)
            .with_context(|| format!("finding entry point {} in its module", variant.name))?;
        let _ = self.functions[index].set(function);
        Ok(self.functions[index].get().unwrap())
    }

    /// The entry point `<variant>_<suffix>` of the variant's module.
    pub fn entry(&self, variant: &'static Variant, suffix: &str) -> anyhow::Result<CudaFunction> {
        let key = (Self::index_of(variant), suffix.to_string());
        if let Some(f) = self
            .suffixed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(f.clone());
        }
        let name = format!("{}_{suffix}", variant.name);
        let function = self
            .module(variant)?
            .load_function(&name)
            .with_context(|| format!("finding entry point {name} in its module"))?;
        self.suffixed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, function.clone());
        Ok(function)
    }

    /// Entry point `<variant>_<suffix>` ready to launch with `smem` bytes of dynamic shared
    /// memory: the limit raised where needed, and the CTAs of `threads` threads the driver
    /// fits per SM, which must be at least one.
    pub fn sized_entry(
        &self,
        variant: &'static Variant,
        suffix: &str,
        threads: u32,
        smem: usize,
    ) -> anyhow::Result<SizedEntry> {
        let function = self.entry(variant, suffix)?;
        let name = format!("{}_{suffix}", variant.name);
        self.allow_dynamic_shared(&function, &name, smem)?;
        let resident = function
            .occupancy_max_active_blocks_per_multiprocessor(threads, smem, None)
            .with_context(|| format!("{name}: occupancy"))? as usize;
        anyhow::ensure!(
            resident >= 1,
            "{name}: one CTA ({smem} bytes of shared memory, {threads} threads) does not fit on an SM of this GPU"
        );
        Ok(SizedEntry {
            function,
            name,
            resident,
        })
    }

    /// Raises entry point `name`'s dynamic shared-memory limit to at least `bytes` (needed
    /// past 48 KiB), once per entry point and size on this device.
    pub fn allow_dynamic_shared(
        &self,
        f: &CudaFunction,
        name: &str,
        bytes: usize,
    ) -> anyhow::Result<()> {
        let mut allowed = self
            .dynamic_shared
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if allowed.get(name).is_some_and(|&b| b >= bytes) {
            return Ok(());
        }
        f.set_attribute(
            cudarc::driver::sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
        .with_context(|| format!("{name}: allowing {bytes} bytes of dynamic shared memory"))?;
        allowed.insert(name.to_string(), bytes);
        Ok(())
    }

    pub fn sync(&self) -> anyhow::Result<()> {
        self.stream
            .synchronize()
            .context("CUDA stream synchronize (a kernel failed?)")
    }
}

/// An entry point sized for its launch ([`Gpu::sized_entry`]).
pub struct SizedEntry {
    pub function: CudaFunction,
    /// `<variant>_<suffix>`, for errors.
    pub name: String,
    /// CTAs resident per SM at the launch's threads and shared memory (at least 1).
    pub resident: usize,
}
