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

// (w & 0x003F003F) | 0x43004300: two BF16 values 128 + u from two whole 6-bit fields.
__device__ __forceinline__ unsigned int q6_lop_bias6(unsigned int w)
{
    unsigned int r;
    asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(r) : "r"(w), "r"(0x003F003Fu), "r"(0x43004300u));
    return r;
}

// The eight BF16x2 A registers of two m16n8k16 k-steps (a0: the even step, a1: the odd)
// from a lane's three words of one set (docs/formats.md "q6_head"): registers 0..5 are
// whole 6-bit fields at bits 0..5 / 16..21 and 6..11 / 22..27 of w0, w1, w2; registers 6
// and 7 take their low nibbles from bits 12..15 / 28..31 of w0 and w1 and their two high
// bits from bits 12..13 / 28..29 and 14..15 / 30..31 of w2.
// 17 integer instructions (11 LOP3, 6 SHF) + 8 FMA.BF16x2 per 16 weights.
__device__ __forceinline__ void q6_decode_set(unsigned int w0, unsigned int w1, unsigned int w2,
                                              unsigned int (&a0)[4], unsigned int (&a1)[4])
{
    a0[0] = q6_unbias(q6_lop_bias6(w0));
    a0[1] = q6_unbias(q6_lop_bias6(w0 >> 6));
    a0[2] = q6_unbias(q6_lop_bias6(w1));
    a0[3] = q6_unbias(q6_lop_bias6(w1 >> 6));
    a1[0] = q6_unbias(q6_lop_bias6(w2));
    a1[1] = q6_unbias(q6_lop_bias6(w2 >> 6));
    a1[2] = q6_unbias(q6_lop_high(w2 >> 8, q4_lop_bias(w0 >> 12)));
    a1[3] = q6_unbias(q6_lop_high(w2 >> 10, q4_lop_bias(w1 >> 12)));
}

#endif
