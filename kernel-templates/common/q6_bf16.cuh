// common/q6_bf16.cuh: 6-bit groupwise weight decode to BF16 MMA fragments (q6_head).
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
// Format: docs/formats.md ("q6_head"); host side runtime/src/ops/q6_head/pack.rs.
// Needs common/q4_bf16.cuh (q4_lop_bias).
#ifndef NINFER_COMMON_Q6_BF16_CUH
#define NINFER_COMMON_Q6_BF16_CUH

// 8-byte read-only load (two FP16 pairs: the scales of one lane for one block).
__device__ __forceinline__ uint2 q6_ld_u2(const uint2* p)
{
    uint2 r;
    asm("ld.global.nc.v2.u32 { %0, %1 }, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
    return r;
}

// (a & 0x00300030) | b: the two high bits of both halves merged into a biased pair.
__device__ __forceinline__ unsigned int q6_lop_high(unsigned int a, unsigned int b)
{
    unsigned int r;
    asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(r) : "r"(a), "r"(0x00300030u), "r"(b));
    return r;
}

// BF16 pair (128 + u) * 1 - 160 = u - 32: the signed code, exact.
__device__ __forceinline__ unsigned int q6_unbias(unsigned int v)
{
    unsigned int r;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(0x3F803F80u), "r"(0xC320C320u));
    return r;
}

// The four BF16x2 A registers of one m16n8k16 k-step. `w`: the k-step's low-nibble word
// (register j = nibble j low half, nibble j+4 high half, as in q4); `hw`: the high-plane
// word shared by two k-steps, `odd` picks the second: register m = 4*odd + j has its two
// high bits at bits 2m..2m+1 (low half) and 16+2m..17+2m (high half).
__device__ __forceinline__ void q6_decode_step(unsigned int w, unsigned int hw, int odd, unsigned int (&a)[4])
{
    if (odd == 0) {
        a[0] = q6_unbias(q6_lop_high(hw << 4, q4_lop_bias(w)));
        a[1] = q6_unbias(q6_lop_high(hw << 2, q4_lop_bias(w >> 4)));
        a[2] = q6_unbias(q6_lop_high(hw, q4_lop_bias(w >> 8)));
        a[3] = q6_unbias(q6_lop_high(hw >> 2, q4_lop_bias(w >> 12)));
    } else {
        a[0] = q6_unbias(q6_lop_high(hw >> 4, q4_lop_bias(w)));
        a[1] = q6_unbias(q6_lop_high(hw >> 6, q4_lop_bias(w >> 4)));
        a[2] = q6_unbias(q6_lop_high(hw >> 8, q4_lop_bias(w >> 8)));
        a[3] = q6_unbias(q6_lop_high(hw >> 10, q4_lop_bias(w >> 12)));
    }
}

#endif
