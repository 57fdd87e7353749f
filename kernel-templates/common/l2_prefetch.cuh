// common/l2_prefetch.cuh: ask L2 for the 128-byte line at p. No data returns to the SM and
// no register or shared memory is held, so a kernel can keep many more weight bytes in
// flight from HBM than its load pipeline holds (t2_i8_small's l2_prefetch axis).
#ifndef NINFER_COMMON_L2_PREFETCH_CUH
#define NINFER_COMMON_L2_PREFETCH_CUH
__device__ __forceinline__ void ninfer_prefetch_l2(const void* p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}
#endif
