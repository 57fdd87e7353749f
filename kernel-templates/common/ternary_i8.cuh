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

// Predicated forms (one setp + a predicated load, no branch): r keeps its value when !pred.
__device__ __forceinline__ void ninfer_ld_stream_v4_if(uint4& r, const uint4* p, int pred)
{
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %5, 0; @p ld.global.nc.L1::no_allocate.v4.u32 { %0, %1, %2, %3 }, [%4]; }"
                 : "+r"(r.x), "+r"(r.y), "+r"(r.z), "+r"(r.w)
                 : "l"(p), "r"(pred));
}

__device__ __forceinline__ void ninfer_ld_u32_if(unsigned int& r, const void* p, int pred)
{
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0; @p ld.global.nc.u32 %0, [%1]; }" : "+r"(r) : "l"(p), "r"(pred));
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

// Pair codes: one nibble holds the ternary weights (x, y) of rows g and g+8 at one k
// (docs/formats.md). PRMT's 8-byte table {b, a} indexed by nibble bits 2:0 gives x (X
// table) or y (Y table); nibble 15 (bit 3, sign mode: the sign of table byte 7) gives
// (-1, 0). Tables, nibble 0..7 -> (x, y): (0,0) (1,0) (0,1) (1,1) (0,-1) (1,-1) (-1,-1) (-1,1).
#define NINFER_T2_XA 0x01000100u
#define NINFER_T2_XB 0xFFFF0100u
#define NINFER_T2_YA 0x01010000u
#define NINFER_T2_YB 0x01FFFFFFu

__device__ __forceinline__ unsigned int ninfer_prmt(unsigned int a, unsigned int b, unsigned int sel)
{
    unsigned int r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}

// Decode one 32-bit word (8 pair nibbles: 16 weights) into the four
// int8 A registers of one m16n8k32 k-step. Nibble j (bits 4j..4j+3, j < 4) is byte j of
// (a[0], a[1]); nibble 4 + j is byte j of (a[2], a[3]). PRMT reads selector bits 15:0:
//   a[0] = row g,   k-half 0    a[1] = row g+8, k-half 0
//   a[2] = row g,   k-half 1    a[3] = row g+8, k-half 1
// 5 instructions: 1 SHF, 4 PRMT.
// xa, ya: NINFER_T2_XA, NINFER_T2_YA, passed in registers (the caller can keep them live
// instead of letting the compiler rematerialize them per use).
__device__ __forceinline__ void ninfer_decode_ternary_word(unsigned int w, unsigned int (&a)[4],
                                                           unsigned int xa = NINFER_T2_XA,
                                                           unsigned int ya = NINFER_T2_YA)
{
    const unsigned int hi = w >> 16;
    a[0] = ninfer_prmt(xa, NINFER_T2_XB, w);
    a[1] = ninfer_prmt(ya, NINFER_T2_YB, w);
    a[2] = ninfer_prmt(xa, NINFER_T2_XB, hi);
    a[3] = ninfer_prmt(ya, NINFER_T2_YB, hi);
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
