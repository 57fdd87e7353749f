//! Kernel launches through `cuLaunchKernelEx`, so that a launch can carry programmatic
//! dependent launch (PDL): the kernel may be scheduled while the kernel ahead of it in the
//! stream is still running, and waits for it in `griddepcontrol.wait`
//! (kernel-templates/common/pdl.cuh). Only PTX built for compute_90 or newer has those
//! waits, so only its launches may carry the attribute ([`Gpu::pdl_for`]); stream capture
//! keeps the relation as a programmatic graph edge. `NINFER_PDL` (profile/overrides.rs;
//! A/B timing with one binary): `0` turns it off, `second` keeps it for the second kernel
//! of a pair only (the attention reduce), `1` or unset: every launch that can.

use std::ffi::c_void;

use anyhow::Context as _;
use cudarc::driver::sys;
use cudarc::driver::{CudaFunction, DevicePtr, DeviceRepr, LaunchConfig};

use super::Gpu;
use crate::catalog::{ArchPtx, Variant};
use crate::profile::overrides::{self, PdlPolicy};

/// Oldest PTX target with `griddepcontrol`.
const PDL_PTX_ARCH: u32 = 90;

/// A launch's place in its op: the first kernel, or one that follows a kernel of the same op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchOrder {
    First,
    Second,
}

impl Gpu {
    /// The PTX of `variant` this GPU loads: the newest it runs (`Variant::ptx_for`), or
    /// the compute_80 baseline with `NINFER_PTX=baseline` (a bad value is reported where
    /// the commands read the overrides; here it counts as unset).
    pub fn ptx_for(&self, variant: &Variant) -> ArchPtx {
        if overrides::get().is_ok_and(|o| o.baseline_ptx) {
            return variant.baseline_ptx();
        }
        let (major, minor) = self.info.identity.compute_capability;
        variant.ptx_for(major * 10 + minor)
    }

    /// Whether this launch of `variant` carries programmatic dependent launch: the PTX it
    /// loads on this GPU is compute_90 or newer and `NINFER_PDL` allows it (a bad value is
    /// reported where the commands read the overrides; here it counts as unset).
    pub fn pdl_for(&self, variant: &'static Variant, order: LaunchOrder) -> bool {
        let policy = overrides::get().map(|o| o.pdl).unwrap_or_default();
        let allowed = match policy {
            PdlPolicy::Off => false,
            PdlPolicy::SecondOnly => order == LaunchOrder::Second,
            PdlPolicy::All => true,
        };
        allowed && self.ptx_for(variant).arch >= PDL_PTX_ARCH
    }
}

/// A kernel's arguments, each in its own slot (`cuLaunchKernelEx` takes a pointer per
/// argument and reads as many bytes as the parameter has): 8 bytes for scalars and
/// addresses, a boxed 128-byte map for a tensor map.
#[derive(Default)]
pub struct KernelArgs {
    slots: Vec<Arg>,
}

enum Arg {
    Word(u64),
    TensorMap(Box<sys::CUtensorMap>),
}

impl KernelArgs {
    pub fn new() -> Self {
        Self::default()
    }

    /// A scalar argument (at most 8 bytes: int, float, pointer-sized values).
    pub fn value<T: DeviceRepr + Copy>(&mut self, v: T) -> &mut Self {
        assert!(
            std::mem::size_of::<T>() <= 8,
            "kernel argument wider than 8 bytes"
        );
        let mut slot = 0u64;
        // SAFETY: T is plain data of at most 8 bytes, copied into the slot's first bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                &v as *const T as *const u8,
                &mut slot as *mut u64 as *mut u8,
                std::mem::size_of::<T>(),
            )
        };
        self.slots.push(Arg::Word(slot));
        self
    }

    /// The device address of a buffer (slice or view) on `gpu`'s stream.
    pub fn buffer<T>(&mut self, gpu: &Gpu, b: &impl DevicePtr<T>) -> &mut Self {
        let (ptr, _sync) = b.device_ptr(&gpu.stream);
        self.value::<u64>(ptr)
    }

    /// A tensor map passed by value (a `const __grid_constant__` parameter of 128 bytes).
    pub fn tensor_map(&mut self, map: sys::CUtensorMap) -> &mut Self {
        self.slots.push(Arg::TensorMap(Box::new(map)));
        self
    }
}

/// Launches `f` on `gpu`'s stream with `args`, as a programmatic dependent launch when
/// `pdl` (see [`Gpu::pdl_for`]).
///
/// # Safety
/// The arguments must match the kernel's parameters in number, order and type, and the
/// kernel must stay within the buffers it is given. With `pdl`, the kernel must wait
/// (`griddepcontrol.wait`) before touching memory the kernel ahead of it may still use.
pub unsafe fn launch(
    gpu: &Gpu,
    f: &CudaFunction,
    cfg: LaunchConfig,
    args: &mut KernelArgs,
    pdl: bool,
    name: &str,
) -> anyhow::Result<()> {
    gpu.ctx.bind_to_thread()?;
    let mut params: Vec<*mut c_void> = args
        .slots
        .iter_mut()
        .map(|s| match s {
            Arg::Word(w) => w as *mut u64 as *mut c_void,
            Arg::TensorMap(m) => &mut **m as *mut sys::CUtensorMap as *mut c_void,
        })
        .collect();
    let mut attr: sys::CUlaunchAttribute = std::mem::zeroed();
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    let config = sys::CUlaunchConfig {
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: gpu.stream.cu_stream(),
        attrs: if pdl { &mut attr } else { std::ptr::null_mut() },
        numAttrs: u32::from(pdl),
    };
    sys::cuLaunchKernelEx(
        &config,
        f.cu_function(),
        params.as_mut_ptr(),
        std::ptr::null_mut(),
    )
    .result()
    .with_context(|| {
        format!(
            "launching {name}{}",
            if pdl {
                " (programmatic dependent launch)"
            } else {
                ""
            }
        )
    })
}

/// Dynamic shared memory of an op's first kernel (a helper that prepares the activations)
/// when it is launched with PDL: padded as `even_share_smem` pads the projections, so that
/// its CTAs, scheduled while the kernel ahead drains, spread over the SMs. Why it is used
/// for q4_linear_add's helpers and not t2_i8_small's: docs/perf-notes-q4.md, twenty-second
/// session, items 4-7 (H200: the q4 warpgroup op 1.9 µs faster at 5120x17408 T = 64, t2's
/// quantization up to 2.7 % slower at T = 16 when padded).
pub fn first_kernel_smem(
    gpu: &Gpu,
    f: &CudaFunction,
    variant: &Variant,
    blocks: usize,
    pdl: bool,
) -> anyhow::Result<u32> {
    let own = variant.launch.shared_bytes as usize;
    if !pdl {
        return Ok(own as u32);
    }
    let padded = even_share_smem(gpu, f, variant, own, (blocks, 1))?;
    gpu.allow_dynamic_shared(f, variant.name, padded)?;
    Ok(padded as u32)
}

/// Dynamic shared memory for an early-launched grid of `f` whose CTAs need `needed` bytes
/// each: padded (`pinned_smem`, counting `f`'s static shared memory) so that no SM fits
/// more than its even share, `ceil(CTAs / SMs)`. For grids of equal CTAs meant to run as
/// one wave (the K-split projections).
///
/// A kernel launched in clusters (`__cluster_dims__` in its PTX) places each cluster's
/// CTAs on one GPC, so the even share can leave too few places for whole clusters; the
/// bound on CTAs per SM is then raised until the driver holds every cluster of the grid
/// at once (`cuOccupancyMaxActiveClusters`), or the padding is gone.
pub fn even_share_smem(
    gpu: &Gpu,
    f: &CudaFunction,
    variant: &Variant,
    needed: usize,
    grid: (usize, usize),
) -> anyhow::Result<usize> {
    let (name, threads) = (variant.name, variant.launch.threads);
    let grid = (grid.0 as u32, grid.1 as u32);
    let sms = (gpu.info.identity.multiprocessors as usize).max(1);
    let ctas = grid.0 as usize * grid.1 as usize;
    let static_bytes = f
        .get_attribute(sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        .context("static shared memory of a kernel")? as usize;
    let share = |per_sm: usize| {
        pinned_smem(
            needed,
            per_sm,
            gpu.info.smem_per_sm,
            gpu.info.smem_reserved_per_cta + static_bytes,
        )
    };
    let cluster = cluster_ctas(f)?;
    let even = ctas.div_ceil(sms);
    if cluster == 1 {
        return Ok(share(even));
    }
    let memo = (name.to_string(), needed, grid);
    let known = gpu
        .cluster_share
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&memo)
        .copied();
    if let Some(smem) = known {
        return Ok(smem);
    }
    let clusters = ctas / cluster;
    for per_sm in even.. {
        let smem = share(per_sm);
        gpu.allow_dynamic_shared(f, name, smem)?;
        let resident = max_active_clusters(gpu, f, grid, threads, smem)?;
        if resident >= clusters || smem == needed {
            tracing::debug!(
                "{name}: {per_sm} CTAs per SM at most ({smem} bytes), {resident} clusters of {cluster} resident for {clusters}"
            );
            gpu.cluster_share
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(memo, smem);
            return Ok(smem);
        }
    }
    unreachable!("the padding shrinks to `needed` as the bound grows")
}

/// CTAs per cluster the loaded kernel requires (`__cluster_dims__`); 1 for none.
pub fn cluster_ctas(f: &CudaFunction) -> anyhow::Result<usize> {
    use sys::CUfunction_attribute_enum as A;
    let mut ctas = 1;
    for dim in [
        A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
        A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
        A::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
    ] {
        let n = f
            .get_attribute(dim)
            .context("required cluster size of a kernel")?;
        ctas *= n.max(1) as usize;
    }
    Ok(ctas)
}

/// Clusters of `f` the GPU holds at once with `smem` bytes of dynamic shared memory.
fn max_active_clusters(
    gpu: &Gpu,
    f: &CudaFunction,
    grid: (u32, u32),
    threads: u32,
    smem: usize,
) -> anyhow::Result<usize> {
    gpu.ctx.bind_to_thread()?;
    let config = sys::CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: 1,
        blockDimX: threads,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: smem as u32,
        hStream: gpu.stream.cu_stream(),
        attrs: std::ptr::null_mut(),
        numAttrs: 0,
    };
    let mut clusters = 0;
    // SAFETY: `config` outlives the call, which only reads it.
    unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, f.cu_function(), &config) }
        .result()
        .context("cuOccupancyMaxActiveClusters")?;
    Ok(clusters.max(0) as usize)
}

/// Dynamic shared memory for a CTA that needs `needed` bytes such that at most `ctas` of
/// them fit on an SM of `per_sm` bytes (`reserved` more per CTA): `needed`, or enough more
/// that `ctas + 1` would not fit. Bounded by what `ctas` of them may take.
///
/// Why: a grid launched early (programmatic dependent launch) places its CTAs wherever
/// they fit while the kernel ahead drains, so an SM that frees up first takes more than
/// its share, and the wave ends with it (docs/perf-notes-attn.md).
pub fn pinned_smem(needed: usize, ctas: usize, per_sm: usize, reserved: usize) -> usize {
    let ctas = ctas.max(1);
    let too_many = (per_sm / (ctas + 1)).saturating_sub(reserved) + 1;
    let most = (per_sm / ctas).saturating_sub(reserved);
    needed.max(too_many.min(most))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_shared_memory_admits_the_plans_ctas_and_no_more() {
        // H200: 228 KiB per SM, 1 KiB reserved per CTA.
        let (per_sm, reserved) = (233_472, 1024);
        for ctas in 1..=8 {
            for needed in [10_000, 27_000, 40_000, 70_000] {
                let s = pinned_smem(needed, ctas, per_sm, reserved);
                assert!(s >= needed);
                let fit = per_sm / (s + reserved);
                if needed * ctas + reserved * ctas <= per_sm {
                    assert_eq!(
                        fit, ctas,
                        "ctas {ctas}, needed {needed}: {s} bytes fit {fit}"
                    );
                }
            }
        }
        // Already too large for two more: unchanged.
        assert_eq!(pinned_smem(100_000, 2, per_sm, reserved), 100_000);
    }

    #[test]
    fn arguments_fill_the_low_bytes_of_their_slots() {
        let mut a = KernelArgs::new();
        a.value(-2i32).value(1.5f32).value(0x1234_5678_9abc_def0u64);
        let words: Vec<u64> = a
            .slots
            .iter()
            .map(|s| match s {
                Arg::Word(w) => *w,
                Arg::TensorMap(_) => panic!("a scalar went into a tensor-map slot"),
            })
            .collect();
        assert_eq!(words.len(), 3);
        assert_eq!(words[0] as u32 as i32, -2);
        assert_eq!(f32::from_bits(words[1] as u32), 1.5);
        assert_eq!(words[2], 0x1234_5678_9abc_def0);
    }

    /// A tensor map travels whole, 128 bytes at the alignment the driver asks of the type.
    #[test]
    fn a_tensor_map_keeps_its_bytes_and_alignment() {
        let mut map: sys::CUtensorMap = unsafe { std::mem::zeroed() };
        map.opaque[15] = 0xfeed;
        let mut a = KernelArgs::new();
        a.value(7i32).tensor_map(map);
        match &a.slots[1] {
            Arg::TensorMap(m) => {
                assert_eq!(m.opaque[15], 0xfeed);
                assert_eq!(std::mem::size_of_val(&**m), 128);
                assert_eq!((&**m as *const sys::CUtensorMap as usize) % 64, 0);
            }
            Arg::Word(_) => panic!("the map went into a scalar slot"),
        }
    }
}
