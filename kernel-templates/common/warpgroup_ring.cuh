// common/warpgroup_ring.cuh: shared-memory and wgmma helpers of the warpgroup schedules
// (common/t2_warpgroup.cuh, common/q4_warpgroup.cuh): 32-bit shared addresses computed once
// (generic pointers cost a window conversion at every access), the 128-byte swizzle of a
// K-major wgmma operand, the ring's mbarriers and bulk and tensor (TMA) copies, and the
// wgmma fence, commit and wait.
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
#ifndef NINFER_COMMON_WARPGROUP_RING_CUH
#define NINFER_COMMON_WARPGROUP_RING_CUH

__device__ __forceinline__ uint32_t wgr_smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
// One value made opaque: the compiler keeps it in a register instead of recomputing it
// from the thread index at every use (which it did for every copy address, every step).
template <typename T> __device__ __forceinline__ T wgr_opaque(T v)
{
    if constexpr (sizeof(T) == 8) {
        unsigned long long u = (unsigned long long)v;
        asm volatile("" : "+l"(u));
        return (T)u;
    } else {
        unsigned int u = (unsigned int)v;
        asm volatile("" : "+r"(u));
        return (T)u;
    }
}
__device__ __forceinline__ void wgr_cp16(uint32_t dst, const void* src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ unsigned int wgr_lds_u32(uint32_t a)
{
    unsigned int v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(a) : "memory");
    return v;
}
__device__ __forceinline__ uint4 wgr_lds_u4(uint32_t a)
{
    uint4 v;
    asm volatile("ld.shared.v4.u32 { %0, %1, %2, %3 }, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a) : "memory");
    return v;
}
// Byte `b` (0..127) of row r of a K-major wgmma operand with the 128-byte swizzle (8-row
// atoms of 1024 bytes, 16-byte chunk XOR the row's low three bits).
__device__ __forceinline__ int wgr_swz(int r, int b)
{
    return (r >> 3) * 1024 + (r & 7) * 128 + ((((b >> 4) ^ r) & 7) << 4) + (b & 15);
}

// CUtensorMap (cuda.h, which NVRTC does not see): 128 opaque bytes, 64-byte aligned.
struct __align__(64) wgr_tensor_map {
    unsigned long long opaque[16];
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// The rings' mbarriers, by 32-bit shared address (sm_90: bulk and tensor copies count
// their bytes on them; common/mbarrier.cuh has the generic-pointer ones of the producer
// rings).
__device__ __forceinline__ void wgr_mbar_init(uint32_t bar, unsigned int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// The issuing thread's arrival, announcing `bytes` to come from its bulk copies.
__device__ __forceinline__ void wgr_mbar_expect(uint32_t bar, unsigned int bytes)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void wgr_mbar_wait(uint32_t bar, unsigned int parity)
{
    unsigned int done;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
// `bytes` (a multiple of 16) from global src to shared dst, counted on bar.
__device__ __forceinline__ void wgr_bulk(uint32_t dst, const void* src, int bytes, uint32_t bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
// The box of `map` at (k0, row 0) to shared dst (1024-byte aligned), counted on bar: the
// whole box's bytes, rows past the matrix zero-filled.
__device__ __forceinline__ void wgr_tma_2d(uint32_t dst, const void* map, int k0, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, { %2, %3 }], [%4];\n"
                 ::"r"(dst), "l"(map), "r"(k0), "r"(0), "r"(bar) : "memory");
}

// The ring's `full` mbarriers (one arrival each, `stages` of them 8 bytes apart from
// `full`) initialized by thread 0 and made visible to the async proxy, the tensor map
// prefetched; the CTA synchronized. Returns the warp index through a shuffle, which ptxas
// takes as warp-uniform: a copy block behind `warp == 0` then is a branch that the other
// warps jump over instead of issuing it predicated off.
__device__ __forceinline__ int wgr_ring_start(uint32_t full, int stages, const void* map)
{
    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int st = 0; st < stages; ++st) wgr_mbar_init(full + 8 * st, 1);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
    }
    __syncthreads();
    return __shfl_sync(0xffffffffu, tid >> 5, 0);
}
// Whether this lane is the one `elect.sync` picks in the (converged) warp: a single issuer
// that ptxas does not wrap in an ELECT loop.
__device__ __forceinline__ bool wgr_elect_one()
{
    unsigned int is;
    asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; selp.u32 %0, 1, 0, p; }\n" : "=r"(is));
    return is != 0;
}
// f() by one lane of warp 0 (warp_u: wgr_ring_start's warp-uniform warp index): the
// other warps branch around it, and warp 0 reconverges after it.
template <typename F> __device__ __forceinline__ void wgr_by_warp0_lane(int warp_u, F f)
{
    if (warp_u == 0) {
        if (wgr_elect_one()) f();
        __syncwarp();
    }
}

__device__ __forceinline__ void wgr_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgr_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgr_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
#endif

#endif
