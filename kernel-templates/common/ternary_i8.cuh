// common/ternary_i8.cuh: device helpers of the int8 tensor-core ternary families
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
// (2-bit weight decode through PRMT, m16n8k32 s8 MMA, cache-hinted loads).
// The weight format is documented in docs/formats.md; pack.rs is the host side.
#ifndef NINFER_COMMON_TERNARY_I8_CUH
#define NINFER_COMMON_TERNARY_I8_CUH

// 16-byte streaming load of weight codes: read-only path, no L1 allocation (each weight
// byte is read once; L1 stays for the activations, which every CTA re-reads).
__device__ __forceinline__ uint4 ninfer_ld_stream_v4(const uint4* p)
{
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 { %0, %1, %2, %3 }, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

// 16-byte read-only load through L1 (activations: re-read by every CTA, L2/L1 resident).
__device__ __forceinline__ uint4 ninfer_ld_v4(const void* p)
{
    uint4 r;
    asm("ld.global.nc.v4.u32 { %0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

// 4-byte read-only load (an FP16 pair).
__device__ __forceinline__ unsigned int ninfer_ld_u32(const void* p)
{
    unsigned int r;
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(r) : "l"(p));
    return r;
}

// 2-byte read-only load (one FP16).
__device__ __forceinline__ unsigned short ninfer_ld_u16(const void* p)
{
    unsigned short r;
    asm("ld.global.nc.u16 %0, [%1];" : "=h"(r) : "l"(p));
    return r;
}

// cp.async (sm_80+): 16 bytes global -> shared, L2 only (no L1 allocation).
__device__ __forceinline__ void ninfer_cp_async16(void* smem, const void* gmem)
{
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}

// cp.async of 4 bytes (.ca: the only cache mode for sizes below 16).
__device__ __forceinline__ void ninfer_cp_async4(void* smem, const void* gmem)
{
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(gmem) : "memory");
}

__device__ __forceinline__ void ninfer_cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Waits until at most N committed groups of this thread are pending.
template <int N> __device__ __forceinline__ void ninfer_cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// PRMT with both sources equal to 0xFF000100: selector nibble 0 -> 0x00, 1 -> 0x01,
// 3 -> 0xFF (2 -> 0x00, never produced); nibble bit 2 is don't-care, bit 3 must be 0.
__device__ __forceinline__ unsigned int ninfer_prmt_ternary(unsigned int sel)
{
    unsigned int r;
    asm("prmt.b32 %0, %1, %1, %2;" : "=r"(r) : "r"(0xFF000100u), "r"(sel));
    return r;
}

// Decode one 32-bit word (16 codes) into the four int8 A registers of one m16n8k32
// k-step. Word bit 16*h + 4*j + 2*r holds the code of A register (2*h + r), byte j.
//   a[0] = row g,   k-half 0    a[1] = row g+8, k-half 0
//   a[2] = row g,   k-half 1    a[3] = row g+8, k-half 1
// 9 instructions: LOP3, SHF+LOP3, 2 SHF, 4 PRMT (PRMT reads only selector bits 15:0).
__device__ __forceinline__ void ninfer_decode_ternary_word(unsigned int w, unsigned int (&a)[4])
{
    const unsigned int m0 = w & 0x33333333u;
    const unsigned int m1 = (w >> 2) & 0x33333333u;
    a[0] = ninfer_prmt_ternary(m0);
    a[1] = ninfer_prmt_ternary(m1);
    a[2] = ninfer_prmt_ternary(m0 >> 16);
    a[3] = ninfer_prmt_ternary(m1 >> 16);
}

// d = A(16x32 s8, row) * B(32x8 s8, col) + c, int32 accumulate.
__device__ __forceinline__ void ninfer_mma_s8(int (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                              unsigned int b1, const int (&c)[4])
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 { %0, %1, %2, %3}, { %4, %5, %6, %7}, { %8, %9}, "
        "{ %10, %11, %12, %13};"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c[0]), "r"(c[1]), "r"(c[2]),
          "r"(c[3]));
}

__device__ __forceinline__ float ninfer_half_lo(unsigned int v)
{
    return __half2float(__ushort_as_half((unsigned short)(v & 0xffffu)));
}

__device__ __forceinline__ float ninfer_half_hi(unsigned int v)
{
    return __half2float(__ushort_as_half((unsigned short)(v >> 16)));
}

#endif
