// common/q4_bf16.cuh: device helpers of the groupwise Q4 families with BF16 activations
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
// (4-bit weight decode to BF16 pairs, m16n8k16 bf16 MMA, cache-hinted loads).
// The weight format is documented in docs/formats.md; runtime/src/ops/q4_linear_add/pack.rs
// is the host side.
#ifndef NINFER_COMMON_Q4_BF16_CUH
#define NINFER_COMMON_Q4_BF16_CUH

// 16-byte streaming load of weight codes: read-only path, no L1 allocation.
__device__ __forceinline__ uint4 q4_ld_stream_v4(const uint4* p)
{
    uint4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 { %0, %1, %2, %3 }, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
}

// 16-byte read-only load through L1 (activations: re-read by every warp of a CTA).
__device__ __forceinline__ uint4 q4_ld_v4(const void* p)
{
    uint4 r;
    asm("ld.global.nc.v4.u32 { %0, %1, %2, %3 }, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return r;
}

// 4-byte read-only load (an FP16 pair).
__device__ __forceinline__ unsigned int q4_ld_u32(const void* p)
{
    unsigned int r;
    asm("ld.global.nc.u32 %0, [%1];" : "=r"(r) : "l"(p));
    return r;
}

// Four 8x8 BF16 matrices from shared memory (ldmatrix.x4): lane l gives the address of row
// l % 8 of matrix l / 8 (16 bytes), and gets in register j elements 2 (l % 4), +1 of row
// l / 4 of matrix j: with the rows a column tile's 8 token rows at k 16s + 8h, matrix
// (s, h) is the m16n8k16 B register b_h of k-step s.
__device__ __forceinline__ uint4 q4_ldsm_x4(unsigned int addr)
{
    uint4 v;
    // volatile keeps it after the barrier asm ahead (also volatile); no memory clobber, so
    // the compiler still schedules the plain shared loads around it
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 { %0, %1, %2, %3 }, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr));
    return v;
}

// (w & 0x000f000f) | 0x43004300: two BF16 values 128 + nibble (one LOP3).
__device__ __forceinline__ unsigned int q4_lop_bias(unsigned int w)
{
    unsigned int r;
    asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(r) : "r"(w), "r"(0x000f000fu), "r"(0x43004300u));
    return r;
}

// BF16 pair (128 + u) * 1 - 136 = u - 8: the signed code, exact.
__device__ __forceinline__ unsigned int q4_unbias(unsigned int v)
{
    unsigned int r;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(0x3F803F80u), "r"(0xC308C308u));
    return r;
}

// Decode one 32-bit word (8 offset-binary nibbles, u = code + 8) into the four BF16x2 A
// registers of one m16n8k16 k-step: register j takes nibble j (low half) and nibble j+4
// (high half). a[0] = row g, a[1] = row g+8, a[2] = row g (upper k), a[3] = row g+8 (upper k).
// 11 instructions: 4 LOP3, 3 SHF, 4 FMA.BF16x2.
__device__ __forceinline__ void q4_decode_word(unsigned int w, unsigned int (&a)[4])
{
    a[0] = q4_unbias(q4_lop_bias(w));
    a[1] = q4_unbias(q4_lop_bias(w >> 4));
    a[2] = q4_unbias(q4_lop_bias(w >> 8));
    a[3] = q4_unbias(q4_lop_bias(w >> 12));
}

// d = A(16x16 bf16, row) * B(16x8 bf16, col) + d, fp32 accumulate.
__device__ __forceinline__ void q4_mma_bf16(float (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                            unsigned int b1)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 { %0, %1, %2, %3 }, { %4, %5, %6, %7 }, { %8, %9 }, "
        "{ %0, %1, %2, %3 };"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float q4_half_lo(unsigned int v)
{
    return __half2float(__ushort_as_half((unsigned short)(v & 0xffffu)));
}

__device__ __forceinline__ float q4_half_hi(unsigned int v)
{
    return __half2float(__ushort_as_half((unsigned short)(v >> 16)));
}

// acc += d x the FP16 scales of the fragment's rows (sc: row g low half, row g + 8 high).
template <int CT>
__device__ __forceinline__ void q4_scale_into(float (&acc)[CT][4], const float (&d)[CT][4], unsigned int sc)
{
    const float s0 = q4_half_lo(sc);
    const float s8 = q4_half_hi(sc);
#pragma unroll
    for (int c = 0; c < CT; ++c) {
        acc[c][0] = fmaf(d[c][0], s0, acc[c][0]);
        acc[c][1] = fmaf(d[c][1], s0, acc[c][1]);
        acc[c][2] = fmaf(d[c][2], s8, acc[c][2]);
        acc[c][3] = fmaf(d[c][3], s8, acc[c][3]);
    }
}

// One 64-wide K group of one 16-row tile: the lane's 16 weight bytes decoded into the four
// m16n8k16 k-steps against the activations of each column tile with c * 8 < live, summed
// into a fresh fp32 fragment, then acc += fragment x the rows' FP16 scales `sc` (rows g,
// g + 8). k-step s: word s of the lane's 16 bytes; B of steps 2h, 2h + 1 is one
// q4_ldsm_x4 at xa[c] + 64 h (xa[c]: this lane's ldmatrix row address of the group's
// token rows), loaded just before those steps so only half a group's B is live.
template <int CT>
__device__ __forceinline__ void q4_group(float (&acc)[CT][4], const uint4& w, unsigned int sc,
                                         const unsigned int (&xa)[CT], int live)
{
    float d[CT][4];
#pragma unroll
    for (int c = 0; c < CT; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) d[c][e] = 0.0f;
    uint4 v[CT];
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        if ((s & 1) == 0) {
#pragma unroll
            for (int c = 0; c < CT; ++c)
                if (c * 8 < live) v[c] = q4_ldsm_x4(xa[c] + 32 * s);
        }
        const unsigned int wd = s == 0 ? w.x : s == 1 ? w.y : s == 2 ? w.z : w.w;
        unsigned int a[4];
        q4_decode_word(wd, a);
#pragma unroll
        for (int c = 0; c < CT; ++c) {
            if (c * 8 < live) q4_mma_bf16(d[c], a, (s & 1) ? v[c].z : v[c].x, (s & 1) ? v[c].w : v[c].y);
        }
    }
    q4_scale_into(acc, d, sc);
}

// d += A(16x32 s8, row) * B(32x8 s8, col), exact int32 sums.
__device__ __forceinline__ void q4_mma_s8s8(int (&d)[4], const unsigned int (&a)[4], unsigned int b0, unsigned int b1)
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 { %0, %1, %2, %3 }, { %4, %5, %6, %7 }, { %8, %9 }, "
        "{ %0, %1, %2, %3 };"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// One 64-wide K group of one 16-row tile with int8 activations (act_i8 = 1): word s of the
// lane's 16 weight bytes gives row gq's four codes (bytes at k 16s + 2q + {0, 8, 1, 9}:
// nibbles 0, 2, 4, 6) and row gq + 8's (nibbles 1, 3, 5, 7): the A registers of m16n8k32
// k-step s / 2 (a0, a1 from word 2t, a2, a3 from word 2t + 1). A nibble u = code + 8 moved
// to the top of its byte and its top bit flipped is the signed byte 16 * code, so one
// LOP3 (and a shift for the low nibbles) decodes four codes with no offset to correct:
// the sums come out 16x, which Q4_A8_UNSCALE takes back once after the loop (a power of
// two: fmaf rounds 16x the same way, so the bits are those of the unscaled sums).
// v[c]: the lane's token row (its 16 codes at byte 16q of the group, which quant_act_i8_q4
// stores in that same order); u0[c].x, u1[c].x: the x scales of its C-fragment tokens
// (.y, -8 * sum of codes, corrected the unsigned codes of an earlier decode; a trial
// without it, the scales alone, was 3 % slower at T = 1 on 5120x17408 and no faster
// elsewhere: docs/results/h200-2026-12-06d, calls 2-3).
// Per column tile two MMAs from zero, then acc += 16 d * w_scale * x_scale (16 d is an
// integer below 2^24: exact in f32).
// hi: Q4_I8_HI_NIBBLES() (a LOP3 takes one immediate, so the mask must sit in a register).
template <int CT>
__device__ __forceinline__ void q4_group_i8(float (&acc)[CT][4], const uint4& w, unsigned int sc, const uint4 (&v)[CT],
                                            const float2 (&u0)[CT], const float2 (&u1)[CT], unsigned int hi)
{
    constexpr unsigned int flip = 0x80808080u;
    const unsigned int a0[4] = {((w.x << 4) & hi) ^ flip, (w.x & hi) ^ flip, ((w.y << 4) & hi) ^ flip, (w.y & hi) ^ flip};
    const unsigned int a1[4] = {((w.z << 4) & hi) ^ flip, (w.z & hi) ^ flip, ((w.w << 4) & hi) ^ flip, (w.w & hi) ^ flip};
    const float s0 = q4_half_lo(sc), s8 = q4_half_hi(sc);
#pragma unroll
    for (int c = 0; c < CT; ++c) {
        int d[4] = {0, 0, 0, 0};
        q4_mma_s8s8(d, a0, v[c].x, v[c].y);
        q4_mma_s8s8(d, a1, v[c].z, v[c].w);
        acc[c][0] = fmaf(__int2float_rn(d[0]), s0 * u0[c].x, acc[c][0]);
        acc[c][1] = fmaf(__int2float_rn(d[1]), s0 * u1[c].x, acc[c][1]);
        acc[c][2] = fmaf(__int2float_rn(d[2]), s8 * u0[c].x, acc[c][2]);
        acc[c][3] = fmaf(__int2float_rn(d[3]), s8 * u1[c].x, acc[c][3]);
    }
}

// What q4_group_i8's sums carry: 16x (its decoded codes).
#define Q4_A8_UNSCALE 0.0625f
// q4_group_i8's nibble mask, through a shuffle so that ptxas keeps it in a register
// instead of folding it into a second LOP3 per word.
#define Q4_I8_HI_NIBBLES() __shfl_sync(0xffffffffu, 0xf0f0f0f0u, 0)

// Asynchronous global -> shared copies (sm_80+): 16 bytes through L2 only, with
// src_bytes < 16 zero-filling the rest (0: nothing is read); 4 bytes through L1.
__device__ __forceinline__ void q4_cp_async16_shared(unsigned int s, const void* gmem, unsigned int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(src_bytes) : "memory");
}

// 8 bytes through L1 (cp.async.cg copies 16 only).
__device__ __forceinline__ void q4_cp_async8_shared(unsigned int s, const void* gmem)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(gmem) : "memory");
}

// The same from a generic pointer into shared memory.
__device__ __forceinline__ void q4_cp_async16(void* smem, const void* gmem, unsigned int src_bytes)
{
    q4_cp_async16_shared((unsigned int)__cvta_generic_to_shared(smem), gmem, src_bytes);
}

__device__ __forceinline__ void q4_cp_async4(void* smem, const void* gmem)
{
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(gmem) : "memory");
}

__device__ __forceinline__ void q4_cp_async_commit()
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N> __device__ __forceinline__ void q4_cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

#endif
