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

/// Runs `f(first_index, chunk)` over `data` split into chunks of whole `unit`s, one
/// thread per chunk (at most one per core).
pub(crate) fn par_chunks<T: Send>(data: &mut [T], unit: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let units = data.len() / unit.max(1);
    let threads = std::thread::available_parallelism()
        .map(|v| v.get())
        .unwrap_or(1)
        .clamp(1, units.max(1));
    let per = units.div_ceil(threads).max(1) * unit;
    std::thread::scope(|s| {
        for (i, chunk) in data.chunks_mut(per).enumerate() {
            let f = &f;
            s.spawn(move || f(i * per / unit.max(1), chunk));
        }
    });
}
