// common/mbarrier.cuh: shared-memory mbarriers for producer/consumer rings (sm_80+ PTX:
// arrive, cp.async completion arrive, test_wait with a short sleep between polls).
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

// Waits until the phase with parity `parity` of `b` has completed. The sleep keeps
// waiting warps from taking issue slots from the warps doing the work.
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned int parity)
{
    for (;;) {
        unsigned int done;
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(mbar_addr(b)), "r"(parity)
                     : "memory");
        if (done) return;
        __nanosleep(32);
    }
}

#endif
