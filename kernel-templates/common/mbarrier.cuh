// common/mbarrier.cuh: shared-memory mbarriers for producer/consumer rings (sm_80+ PTX:
// arrive, cp.async completion arrive, and the wait: try_wait on sm_90, test_wait with a
// short sleep between polls before).
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
#ifndef NINFER_COMMON_MBARRIER_CUH
#define NINFER_COMMON_MBARRIER_CUH

__device__ __forceinline__ unsigned int mbar_addr(const void* p)
{
    return (unsigned int)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(unsigned long long* b, unsigned int count)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(mbar_addr(b)), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned long long* b)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" ::"r"(mbar_addr(b)) : "memory");
}

// Arrives on `b` once every cp.async this thread issued before has landed.
__device__ __forceinline__ void mbar_arrive_on_cp_async(unsigned long long* b)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(mbar_addr(b)) : "memory");
}

#if __CUDA_ARCH__ >= 900
// sm_90: arrives on b, announcing `bytes` to come (its phase completes when they have).
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* b, unsigned int bytes)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(mbar_addr(b)), "r"(bytes)
                 : "memory");
}

// sm_90: makes the mbarrier inits before it visible to the cluster's other CTAs (after a
// cluster barrier) and to the async proxy.
__device__ __forceinline__ void mbar_fence_init_cluster()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
#endif

// Waits until the phase with parity `parity` of `b` has completed. sm_90: try_wait, which
// suspends the thread until the phase completes (or a system time limit passes), so a
// waiting warp takes no issue slots and resumes as soon as the data is there. Older
// targets poll with test_wait and a short sleep between polls, which keeps waiting warps
// from taking issue slots but adds up to twice the sleep to each wait.
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned int parity)
{
    for (;;) {
        unsigned int done;
#if __CUDA_ARCH__ >= 900
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
#else
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
#endif
                     : "=r"(done)
                     : "r"(mbar_addr(b)), "r"(parity)
                     : "memory");
        if (done) return;
#if __CUDA_ARCH__ < 900
        __nanosleep(32);
#endif
    }
}

#endif
