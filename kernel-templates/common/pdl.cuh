// common/pdl.cuh: programmatic dependent launch (PTX griddepcontrol, sm_90 and newer).
// A kernel launched with the programmatic-serialization attribute may start before the
// kernel ahead of it in the stream has finished: NINFER_PDL_WAIT() blocks until that kernel
// has completed and its memory is visible, so everything before it may only read what no
// kernel still running writes. NINFER_PDL_TRIGGER() lets the next such kernel be scheduled
// (its CTAs then wait in their own NINFER_PDL_WAIT()). Both are no-ops in PTX for older
// architectures and when the launch carries no attribute; the runtime sets the attribute
// only for PTX built for compute_90 or newer (gpu/launch.rs).
#ifndef NINFER_COMMON_PDL_CUH
#define NINFER_COMMON_PDL_CUH
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define NINFER_PDL 1
#define NINFER_PDL_TRIGGER() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#define NINFER_PDL_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#else
#define NINFER_PDL 0
#define NINFER_PDL_TRIGGER() ((void)0)
#define NINFER_PDL_WAIT() ((void)0)
#endif
#endif
