// common/t2_warpgroup.cuh: t2_i8_small's warpgroup schedules (wgmma = 1, suffix g), which
// t2_i8_small.cu.tera renders instead of its per-warp kernel.
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
//
// The arithmetic is the row_bands schedule's with one 16-row tile per warp (the same exact
// int32 sum per 64-wide chunk, the same fp32 rescale in the same group order, the same
// K-split sums), which emulate.rs's banded schedule reproduces on the CPU; `ninfer check`
// runs this kernel against the reference. What differs is where the activations live and
// who multiplies:
//   - each warpgroup (4 warps, 64 rows: one wgmma M tile) sums its rows over all of the
//     CTA's K range; one ring in shared memory, one stage per 128-wide group, `stages`
//     groups ahead, carries the CTA's activations (shared by its warpgroups) and each
//     warp's weights (so that no register holds a load in flight);
//   - on sm_90a warp 0's elected lane lands a group's activation codes with one tensor copy
//     (TMA, `x_map`: the copy engine writes wgmma's 128-byte swizzle and zero-fills the
//     rows past the launch's tokens; async proxy, so wgmma reads them without a proxy
//     fence), counted on the stage's `full` mbarrier; elsewhere every thread copies its
//     share with cp.async. The weights and the activation scales, which plain loads read,
//     come by every lane's cp.async everywhere;
//   - on sm_90a (compute_90a PTX) the chunk sums are wgmma m64n<8 x column_tiles>k32 with
//     the decoded weights as the register A operand and the ring stage as B, waited for
//     before their rescale (other warpgroups on the SM hide the wait; with words = 2 the
//     next group's wgmma runs during it too); elsewhere each warp
//     runs mma.sync on the same ring, so the variant is correct on every architecture;
//   - B must hold, at wgmma's k position (k-step s, k), the activation byte that the pair
//     codes put there for mma.sync lanes (docs/formats.md: lane q's 16-byte block of a
//     chunk holds its two k-steps' k = 4q.., 16 + 4q..): the kernel reads the activation
//     codes from quant_act_i8_wg's copy in that order (`xqw`, launch.rs passes it as xq,
//     and its tensor map as x_map).
// Launch: grid (n / (16 * k_warps), k_split), block 32 * k_warps, dynamic shared memory
// T2W_SMEM (catalog.toml's shared_bytes: the ring, 1024-byte aligned inside, and 128 bytes
// of mbarriers); a last parameter x_map, the tensor map of the launch's xqw rows in boxes
// of 128 codes x T2W_N rows with the 128-byte swizzle (launch.rs).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
{% include "common/types.cuh" %}
{% include "common/ternary_i8.cuh" %}
{% include "common/pdl.cuh" %}
{% include "common/l2_prefetch.cuh" %}
{% include "common/warpgroup_ring.cuh" %}
{% include "common/mbarrier.cuh" %}
{% include "common/cluster.cuh" %}
{% include "common/cluster_sum.cuh" %}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define T2W_WG 1
#else
#define T2W_WG 0
#endif
#define T2W_WARPS {{ k_warps }}
#define T2W_CT {{ column_tiles }}
#define T2W_N (T2W_CT * 8)          /* tokens per launch at most: the MMA's N */
#define T2W_D (T2W_CT * 4)          /* accumulator registers per thread and chunk */
#define T2W_LOOK {{ stages }}       /* groups ahead: ring copies of weights and activations */
// words = 2: a group's MMAs stay in flight while the previous group is rescaled (AHEAD = 1:
// step i issues group i's wgmma, then waits for group i - 1's and rescales it).
#define T2W_AHEAD ({{ words }} - 1)
// Ring stages: a power of two (stage = group & (RING - 1)) above LOOK + AHEAD (group i + LOOK
// refills the stage of group i - 1 - AHEAD or older, which every thread is done with, MMAs
// and rescale, after step i's barrier).
#define T2W_RING ((T2W_LOOK + T2W_AHEAD) < 4 ? 4 : (T2W_LOOK + T2W_AHEAD) < 8 ? 8 : 16)
#define T2W_KS {{ k_split }}
// cluster = 1 (sm_90 PTX): the k_split CTAs of a row tile are one cluster and sum their
// slices through distributed shared memory (as q4_linear_add's schedules do) instead of
// the workspace handshake; the receiving buffer is the ring's start, free after the loop.
#define T2W_CL ({{ cluster }} && NINFER_CLUSTER && T2W_KS > 1)
#if T2W_CL
#define T2W_CLUSTER_DIMS __cluster_dims__(1, T2W_KS, 1)
#else
#define T2W_CLUSTER_DIMS
#endif
#define T2W_L2PF {{ l2_prefetch }}
#define T2W_THREADS (T2W_WARPS * 32)
#define T2W_ROWS (T2W_WARPS * 16)
// Ring stage s: activation codes at s * XQ (N rows of 128 bytes, swizzled), the group's
// scales as floats {xs0, xs1, 0, 0} per token at XF0 + s * XF, the raw FP16
// pairs they are converted from at XR0 + s * XR.
#define T2W_XQ (T2W_N * 128)
#define T2W_XF (T2W_N * 16)
#define T2W_XR (T2W_N * 4)
// Each warp's weights of the group (its tile's 512-byte block and the 32 bytes of scales)
// come through the ring too, at XW0 + s * XW + warp * 544: no register holds a load in
// flight (with the weights in registers, `stages` ahead, the kernel spilled them).
#define T2W_XW (T2W_WARPS * 544)
#define T2W_XF0 (T2W_RING * T2W_XQ)
#define T2W_XR0 (T2W_XF0 + T2W_RING * T2W_XF)
#define T2W_XW0 (T2W_XR0 + T2W_RING * T2W_XR)
#define T2W_BAR0 (T2W_XW0 + T2W_RING * T2W_XW) /* full[stage]: 8 bytes each */
#define T2W_SMEM (1024 + T2W_BAR0 + 128)
// Resident CTAs per SM the registers must allow: with wgmma 5 of one warpgroup (96
// registers; with a 3-stage ring of 28 KiB five fit in shared memory too), 2 of two
// (call 9: 3-5 % faster than 4 CTAs with 115 registers and a ring of 8 stages, T = 20-32);
// the mma.sync path holds B fragments too and is bounded by the register file only.
// AHEAD holds two groups' sums and weights: at 128 registers ptxas serialized the wgmmas.
#define T2W_MIN_CTAS (T2W_WG ? (T2W_WARPS == 4 ? (T2W_AHEAD ? 3 : 5) : 2) : 1)
static_assert(T2W_WARPS == 4 || T2W_WARPS == 8, "one or two warpgroups");
static_assert(T2W_LOOK >= 2, "group i + 1 has landed when group i is consumed");
static_assert(T2W_LOOK + T2W_AHEAD < 16, "catalog.toml shared_bytes: the ring is the power of two above LOOK + AHEAD");
static_assert(T2W_CT == 1 || T2W_CT == 2 || T2W_CT == 4, "wgmma N = 8, 16, 32");
static_assert({{ tiles_per_warp }} == 1 && ({{ words }} == 1 || {{ words }} == 2) && {{ act_prefetch }} == 0 && {{ act_smem }} == 0 &&
                  {{ one_token }} == 0 && {{ row_bands }} == 0,
              "the warpgroup schedule: one 16-row tile per warp, its own activation path");
static_assert(!{{ cluster }} || T2W_KS <= 8, "a cluster holds at most 8 CTAs (portable size)");

// More 32-bit shared-memory accesses (common/warpgroup_ring.cuh has the shared ones).
__device__ __forceinline__ void t2w_cp4(uint32_t dst, const void* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ float4 t2w_lds_f4(uint32_t a)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 { %0, %1, %2, %3 }, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a) : "memory");
    return v;
}
__device__ __forceinline__ void t2w_sts_f4(uint32_t a, float4 v)
{
    asm volatile("st.shared.v4.f32 [%0], { %1, %2, %3, %4 };\n" ::"r"(a), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

#if T2W_WG
// Registers through an empty volatile asm: computed before the next volatile asm (the A
// operands before the fence), or read after the previous one (the sums after the wait).
// Otherwise the compiler moves them across, and ptxas then waits for the MMAs in between
// or serializes every wgmma of the kernel.
template <typename R, int N> __device__ __forceinline__ void t2w_pin(R (&r)[N])
{
#pragma unroll
    for (int e = 0; e < N; ++e) asm volatile("" : "+r"(r[e])::"memory");
}
// d[64 rows of the warpgroup x N tokens] = (scale-d 0: a chunk's first k-step) or += A (the
// warp's 16 rows x 32 k, mma.sync's A fragment) x B (the stage's N tokens x 32 k at desc)
__device__ __forceinline__ void t2w_wgmma_first(int (&d)[T2W_D], const unsigned int (&a)[4], uint64_t desc)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n{{ column_tiles * 8 }}k32.s32.s8.s8 { "
                 "{% for i in range(end=column_tiles * 4) %}%{{ i }}{% if not loop.last %}, {% endif %}{% endfor %} }, "
                 "{ %{{ column_tiles * 4 }}, %{{ column_tiles * 4 + 1 }}, %{{ column_tiles * 4 + 2 }}, %{{ column_tiles * 4 + 3 }} }, "
                 "%{{ column_tiles * 4 + 4 }}, 0;\n"
                 : {% for i in range(end=column_tiles * 4) %}"=r"(d[{{ i }}]){% if not loop.last %}, {% endif %}{% endfor %}
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
__device__ __forceinline__ void t2w_wgmma(int (&d)[T2W_D], const unsigned int (&a)[4], uint64_t desc)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n{{ column_tiles * 8 }}k32.s32.s8.s8 { "
                 "{% for i in range(end=column_tiles * 4) %}%{{ i }}{% if not loop.last %}, {% endif %}{% endfor %} }, "
                 "{ %{{ column_tiles * 4 }}, %{{ column_tiles * 4 + 1 }}, %{{ column_tiles * 4 + 2 }}, %{{ column_tiles * 4 + 3 }} }, "
                 "%{{ column_tiles * 4 + 4 }}, 1;\n"
                 : {% for i in range(end=column_tiles * 4) %}"+r"(d[{{ i }}]){% if not loop.last %}, {% endif %}{% endfor %}
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
#endif

// The chunk sums of one group (d[c]: chunk c's exact int32 sum) from the decoded weights
// a[k-step] and the ring stage xq_s: issued (wgmma: in flight until t2w_mma_retire; a and
// d must not be touched until then), complete on return on the mma.sync path.
__device__ __forceinline__ void t2w_mma_issue(int (&d)[2][T2W_D], const unsigned int (&a)[4][4], uint32_t xq_s,
                                              int g, int q)
{
#if T2W_WG
    // 128-byte swizzle, SBO 1024 (the next 8 tokens), LBO unused for K-major; a k-step is
    // the next 32 bytes of the rows (2 in the 16-byte address field)
    const uint64_t desc = (uint64_t)((xq_s & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
#pragma unroll
    for (int s = 0; s < 4; ++s) t2w_pin(a[s]);
    wgr_fence();
    // each chunk's first k-step starts its sums (scale-d 0): no registers to clear first
    t2w_wgmma_first(d[0], a[0], desc);
    t2w_wgmma(d[0], a[1], desc + 2);
    t2w_wgmma_first(d[1], a[2], desc + 4);
    t2w_wgmma(d[1], a[3], desc + 6);
    wgr_commit();
#else
#pragma unroll
    for (int c = 0; c < 2; ++c)
#pragma unroll
        for (int e = 0; e < T2W_D; ++e) d[c][e] = 0;
#pragma unroll
    for (int s = 0; s < 4; ++s)
#pragma unroll
        for (int j = 0; j < T2W_CT; ++j) {
            const int r = 8 * j + g;
            const unsigned int b0 = wgr_lds_u32(xq_s + wgr_swz(r, 32 * s + 4 * q));
            const unsigned int b1 = wgr_lds_u32(xq_s + wgr_swz(r, 32 * s + 16 + 4 * q));
            int c[4] = {d[s >> 1][4 * j], d[s >> 1][4 * j + 1], d[s >> 1][4 * j + 2], d[s >> 1][4 * j + 3]};
            int o[4];
            ninfer_mma_s8(o, a[s], b0, b1, c);
#pragma unroll
            for (int e = 0; e < 4; ++e) d[s >> 1][4 * j + e] = o[e];
        }
#endif
}
// Waits until at most IN_FLIGHT groups' MMAs are in flight: the sums d of the group issued
// before them are complete.
template <int IN_FLIGHT> __device__ __forceinline__ void t2w_mma_retire(int (&d)[2][T2W_D])
{
#if T2W_WG
    wgr_wait<IN_FLIGHT>();
    t2w_pin(d[0]);
    t2w_pin(d[1]);
#endif
}

// acc += w_scale * (sum0 * xs0 + sum1 * xs1), t2_i8_small's rescale (same operations, same
// order, the same bits: the per-warp kernels' sums start at MAGIC, whose FMA with -MAGIC *
// xs0 gives the same rounded product as this FMUL of the converted sum; here the int32
// sums start at zero, so no register is cleared per group, and I2FP converts them at
// full rate on sm_90): element e of n-tile j is row g (e < 2) or g + 8, token 8j + 2q +
// (e & 1).
__device__ __forceinline__ void t2w_rescale(float (&acc)[T2W_D], const int (&d)[2][T2W_D], unsigned int sc,
                                            uint32_t xf, int q)
{
    const float wg = ninfer_half_lo(sc), wg8 = ninfer_half_hi(sc);
#pragma unroll
    for (int j = 0; j < T2W_CT; ++j) {
        const float4 x0 = t2w_lds_f4(xf + 16 * (8 * j + 2 * q)), x1 = t2w_lds_f4(xf + 16 * (8 * j + 2 * q + 1));
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const float4 x = (e & 1) ? x1 : x0;
            float p = __int2float_rn(d[0][4 * j + e]) * x.x;
            p = fmaf(__int2float_rn(d[1][4 * j + e]), x.y, p);
            acc[4 * j + e] = fmaf(p, e < 2 ? wg : wg8, acc[4 * j + e]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(T2W_THREADS, T2W_MIN_CTAS) T2W_CLUSTER_DIMS {{ entry }}(const uint4* __restrict__ w_codes,
                                                                                  const __half* __restrict__ w_scales,
                                                                                  const int8_t* __restrict__ xq,
                                                                                  const __half* __restrict__ xs,
                                                                                  __nv_bfloat16* __restrict__ y,
                                                                                  int n, int k, int t,
                                                                                  float* __restrict__ ws,
                                                                                  unsigned int* __restrict__ cnt,
                                                                                  const __grid_constant__ wgr_tensor_map x_map)
{
    extern __shared__ __align__(16) unsigned char t2w_dyn[];
    const uint32_t ring = (wgr_smem_u32(t2w_dyn) + 1023u) & ~1023u; // shared address, 1024-aligned
    {
        uint32_t dyn;
        asm("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(dyn));
        if (dyn < (uint32_t)T2W_SMEM) __trap(); // catalog.toml's shared_bytes disagrees
    }
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, q = lane & 3;
    const int G = k >> 7, ch = k >> 6;
    // This CTA's K range: groups gb .. gb + GL.
    const int gb = T2W_KS == 1 ? 0 : (int)(blockIdx.y * G / T2W_KS);
    const int GL = T2W_KS == 1 ? G : (int)((blockIdx.y + 1) * G / T2W_KS) - gb;
    const size_t tile = (size_t)blockIdx.x * T2W_WARPS + warp; // the warp's 16-row tile
    const uint4* wq = (const uint4*)wgr_opaque((size_t)(w_codes + (tile * G + gb) * 32 + lane)); // lane's 16 bytes
    const __half* sq = (const __half*)wgr_opaque((size_t)(w_scales + (tile * G + gb) * 16 + 8 * (lane & 1))); // lanes 0, 1
    const uint32_t w_own = wgr_opaque(ring + T2W_XW0 + warp * 544);          // + stage * XW
#if T2W_CL
    // The K-slice sum's mbarrier (this CTA's share landed), after the stages' ones; its
    // init is fenced for the cluster before any CTA pushes (the first cluster barrier comes
    // after the main loop).
    static_assert(8 * T2W_RING + 8 <= 128, "the 128 bytes past the ring hold the mbarriers");
    unsigned long long* red_bar =
        reinterpret_cast<unsigned long long*>(t2w_dyn + (ring + T2W_BAR0 + 8 * T2W_RING - wgr_smem_u32(t2w_dyn)));
    if (tid == 0) {
        mbar_init(red_bar, 1); // thread 0's arrival with the share's bytes; the pushes count them
        mbar_fence_init_cluster();
    }
#endif

#if T2W_WG
    // full[s]: stage s's activation codes landed (the tensor copy, its bytes counted).
    const uint32_t full = ring + T2W_BAR0;
    const int warp_u = wgr_ring_start(full, T2W_RING, &x_map); // warp-uniform: warps 1-3 skip the copy block
#else
    // Ring copies: 16-byte chunk c of token row r (xq here is quant_act_i8_wg's `xqw`, whose
    // 128-byte groups are already in wgmma's k order) lands on chunk c ^ (r & 7) of the
    // stage's row r. Thread tid takes chunks idx = tid + m * THREADS (r = idx / 8, c = idx %
    // 8) of tokens r < t. The rows of tokens >= t are not copied: whatever the stage holds
    // there only reaches columns that are not stored (int8 codes, and scales that are never
    // converted: NaN or Inf stays in those columns).
    constexpr int CHUNKS = T2W_N * 8;
    constexpr int PER_THREAD = (CHUNKS + T2W_THREADS - 1) / T2W_THREADS;
    const int8_t* src_row[PER_THREAD];
    uint32_t dst_off[PER_THREAD];
    int copies[PER_THREAD];
#pragma unroll
    for (int m = 0; m < PER_THREAD; ++m) {
        const int idx = tid + m * T2W_THREADS, r = idx >> 3, c = idx & 7;
        copies[m] = wgr_opaque((int)(idx < CHUNKS && r < t));
        src_row[m] = (const int8_t*)wgr_opaque((size_t)(xq + (size_t)(copies[m] ? r : 0) * k + (size_t)gb * 128 + 16 * c));
        dst_off[m] = wgr_opaque(ring + wgr_swz(r, 16 * c));
    }
#endif
    // the token whose scales it copies and converts
    const int copies_xs = wgr_opaque((int)(tid < T2W_N && tid < t));
    const __half* xs_src = (const __half*)wgr_opaque((size_t)(xs + (size_t)(copies_xs ? tid : 0) * ch + 2 * gb));
    const uint32_t xr_own = wgr_opaque(ring + T2W_XR0 + 4 * tid), xf_own = wgr_opaque(ring + T2W_XF0 + 16 * tid);
    // Group j's weights into its stage st (= j mod RING, a constant where the caller
    // unrolls): every lane 16 bytes of codes, lanes 0 and 1 the scales. guard = false: the
    // caller knows j < GL (no branch).
    auto fill_weights = [&](int j, int st, bool guard = true) {
        if (!guard || j < GL) {
            const uint32_t dst = w_own + st * T2W_XW;
            wgr_cp16(dst + 16 * lane, wq + (size_t)j * 32);
            if (lane < 2) wgr_cp16(dst + 512 + 16 * lane, sq + (size_t)j * 16);
        }
    };
    // Group j's activations into its stage st (the weights: fill_weights), committed.
    auto fill = [&](int j, int st, bool guard = true) {
        if (!guard || j < GL) {
#if T2W_WG
            wgr_by_warp0_lane(warp_u, [&]() {
                wgr_mbar_expect(full + 8 * st, T2W_XQ); // the tensor copy's whole box
                wgr_tma_2d(ring + st * T2W_XQ, &x_map, (gb + j) * 128, full + 8 * st);
            });
#else
#pragma unroll
            for (int m = 0; m < PER_THREAD; ++m)
                if (copies[m]) wgr_cp16(dst_off[m] + st * T2W_XQ, src_row[m] + (size_t)j * 128);
#endif
            if (copies_xs) t2w_cp4(xr_own + st * T2W_XR, xs_src + 2 * j);
        }
        ninfer_cp_async_commit(); // always: every thread counts the same groups
    };
    // The scales of the group in stage st (landed: this thread copied them) as the
    // rescale's floats.
    auto convert = [&](int st) {
        const unsigned int pr = wgr_lds_u32(xr_own + st * T2W_XR);
        const float x0 = ninfer_half_lo(pr), x1 = ninfer_half_hi(pr);
        t2w_sts_f4(xf_own + st * T2W_XF, make_float4(x0, x1, 0.0f, 0.0f));
    };

    // The first groups' weights before the wait (they do not depend on the kernel ahead),
    // committed with group 0's activations.
#pragma unroll
    for (int j = 0; j < T2W_LOOK; ++j) fill_weights(j, j);
#if T2W_L2PF
    // l2_prefetch: groups T2W_L2PF ahead asked into L2 (a line per 8 lanes, the scales' by
    // lane 0); LOOK .. L2PF - 1 now.
    auto prefetch = [&](int j) {
        if (j < GL) {
            if ((lane & 7) == 0) ninfer_prefetch_l2(wq + (size_t)j * 32);
            if (lane == 0) ninfer_prefetch_l2(sq + (size_t)j * 16);
        }
    };
    for (int j = T2W_LOOK; j < T2W_L2PF; ++j) prefetch(j);
#endif
    NINFER_PDL_WAIT(); // the activations: the quantization ahead writes them
#pragma unroll
    for (int j = 0; j < T2W_LOOK; ++j) fill(j, j);
    ninfer_cp_async_wait<T2W_LOOK - 1>();
    if (copies_xs) convert(0);

    float acc[T2W_D];
#pragma unroll
    for (int e = 0; e < T2W_D; ++e) acc[e] = 0.0f;
    // The decode tables' register operands, opaque and not uniform (tid + t >= 1: tz = 0)
    // so that the compiler keeps them in two registers instead of copying them from a
    // uniform register before every PRMT.
    const unsigned int tz = (unsigned int)(tid + t) >> 31;
    const unsigned int tab_x = NINFER_T2_XA | tz, tab_y = NINFER_T2_YA | tz;

    // Step i: group i's MMAs; with retire_prev group i - 1's rescale (its MMAs in flight
    // since step i - 1), with retire_own group i's. s = i mod RING, a constant where the
    // caller unrolls (every stage offset and register buffer b then folds into the
    // instructions; RING is even, so b = i & 1).
    int d[2][2][T2W_D];
    unsigned int a[2][4][4];
    unsigned int sc_prev = 0; // group i - 1's weight scales, kept for its rescale
    // guard = false: the caller knows that group i + LOOK is in the K range (so is i + 1).
    auto step = [&](const int i, const int s, const bool retire_prev, const bool retire_own, const bool guard) {
        const int b = s & 1;
        const int s1 = (s + 1) & (T2W_RING - 1), sf = (s + T2W_LOOK) & (T2W_RING - 1);
        // Stage i landed for every thread (after the barrier); i + 1 for this one.
        ninfer_cp_async_wait<T2W_LOOK - 2>();
        if (copies_xs && (!guard || i + 1 < GL)) convert(s1);
        // also: every thread is past step i - 1, so done with group i - 1 - AHEAD (MMAs
        // waited for, rescaled), whose stage group i + LOOK takes
        __syncthreads();
        fill_weights(i + T2W_LOOK, sf, guard);
        fill(i + T2W_LOOK, sf, guard);
        const uint32_t w_s = w_own + s * T2W_XW;
        const uint4 cw = wgr_lds_u4(w_s + 16 * lane);
        const unsigned int sc = wgr_lds_u32(w_s + 512 + 4 * g);
        ninfer_decode_ternary_word(cw.x, a[b][0], tab_x, tab_y);
        ninfer_decode_ternary_word(cw.y, a[b][1], tab_x, tab_y);
        ninfer_decode_ternary_word(cw.z, a[b][2], tab_x, tab_y);
        ninfer_decode_ternary_word(cw.w, a[b][3], tab_x, tab_y);
#if T2W_L2PF
        prefetch(i + T2W_L2PF);
#endif
#if T2W_WG
        // group i's codes landed (its stage's (i / RING)-th phase)
        wgr_mbar_wait(full + 8 * s, (i / T2W_RING) & 1);
#endif
        t2w_mma_issue(d[b], a[b], ring + s * T2W_XQ, g, q);
        if (retire_prev) {
            t2w_mma_retire<1>(d[b ^ 1]);
            t2w_rescale(acc, d[b ^ 1], sc_prev, ring + T2W_XF0 + ((s - 1) & (T2W_RING - 1)) * T2W_XF, q);
        }
        if (retire_own) {
            t2w_mma_retire<0>(d[b]);
            t2w_rescale(acc, d[b], sc, ring + T2W_XF0 + s * T2W_XF, q);
        }
        sc_prev = sc;
    };
    // Whole rounds of the ring unrolled, so every stage index is a constant; then the last
    // groups (i is a multiple of RING, so their stages are 0, 1, ...). AHEAD: within a
    // round each group's MMAs run during the previous group's rescale; none stays in
    // flight across the loop's back edge (ptxas serializes every wgmma then) or into the
    // tail, whose steps retire their own.
    //
    // First the rounds whose copies (LOOK groups ahead) all fall in the K range, with the
    // range checks (their branches) compiled out: 2-12 % faster on the H100
    // (docs/perf-notes-t2.md, thirty-fourth session). Not with AHEAD (the second copy of its
    // 8-stage round took it past its registers: 168, spilling) nor with 8 K-slices (their
    // short ranges, 6-17 groups, ran 10-18 % slower with it).
    int i = 0;
    if constexpr (!T2W_AHEAD && T2W_KS <= 4) {
        for (; i + T2W_RING + T2W_LOOK <= GL; i += T2W_RING) {
#pragma unroll
            for (int u = 0; u < T2W_RING; ++u) step(i + u, u, false, true, false);
        }
    }
    for (; i + T2W_RING <= GL; i += T2W_RING) {
#pragma unroll
        for (int u = 0; u < T2W_RING; ++u) step(i + u, u, T2W_AHEAD && u > 0, !T2W_AHEAD || u == T2W_RING - 1, true);
    }
#pragma unroll
    for (int u = 0; u < T2W_RING - 1; ++u)
        if (i + u < GL) step(i + u, u, false, true, true);

    NINFER_PDL_TRIGGER(); // the next kernel may be scheduled (it waits for this one)

    // Thread's sums: rows row0 + lr (e < 2) and + 8, tokens 8j + 2q + (e & 1).
    const int row0 = blockIdx.x * T2W_ROWS;
    const int lr = warp * 16 + g;
    if constexpr (T2W_KS == 1) {
#pragma unroll
        for (int j = 0; j < T2W_CT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int col = 8 * j + 2 * q + (e & 1);
                if (col < t) y[(size_t)col * n + row0 + lr + (e < 2 ? 0 : 8)] = __float2bfloat16_rn(acc[4 * j + e] + 0.0f);
            }
    } else {
#if T2W_CL
        // Split s of the row tile is cluster rank s, and rank r owns fragments [r CHUNK,
        // (r + 1) CHUNK) of the tile's F float4 fragments f = (warp, column tile j, lane).
        // Once every CTA is past its loop (its ring free: every copy landed and every MMA
        // waited for), each pushes its fragments to their owners' rings (st.async, counted
        // by bytes on the owner's mbarrier), then sums its share's slices in split order
        // from zero (the workspace path's order, so the same bits) and stores them.
        constexpr int F = T2W_WARPS * T2W_CT * 32;
        constexpr int CHUNK = F / T2W_KS;
        constexpr int PER = (CHUNK + T2W_THREADS - 1) / T2W_THREADS;
        static_assert(F % (32 * T2W_KS) == 0, "a rank's share: whole 32-fragment blocks");
        static_assert(F * 16 <= T2W_RING * T2W_XQ, "the pushed fragments fit the ring's activation stages");
        float4* recv = reinterpret_cast<float4*>(t2w_dyn + (ring - wgr_smem_u32(t2w_dyn))); // [split][CHUNK]
        const int split = blockIdx.y;
        cluster_arrive_relaxed();
        cluster_wait();
#pragma unroll
        for (int j = 0; j < T2W_CT; ++j) {
            if (8 * j >= t) continue;
            cluster_sum_push<CHUNK>(recv, red_bar, split, (warp * T2W_CT + j) * 32 + lane,
                                    make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
        }
        if (tid == 0) cluster_sum_expect<CHUNK, T2W_CT, T2W_KS>(red_bar, split, t);
        mbar_wait(red_bar, 0);
        // The share has landed. The barrier's wait, at the end, keeps every CTA until every
        // share has, so none exits with its pushes in flight (relaxed: it orders nothing).
        cluster_arrive_relaxed();
#pragma unroll
        for (int m = 0; m < PER; ++m) {
            const int fl = tid + T2W_THREADS * m;
            const int fo = split * CHUNK + fl, jt = (fo >> 5) % T2W_CT, lo = fo & 31;
            if (fl >= CHUNK || 8 * jt >= t) continue;
            float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
            for (int sp = 0; sp < T2W_KS; ++sp) {
                const float4 p = recv[sp * CHUNK + fl];
                s.x += p.x;
                s.y += p.y;
                s.z += p.z;
                s.w += p.w;
            }
            const float v[4] = {s.x, s.y, s.z, s.w};
            const int row = row0 + (fo / (T2W_CT * 32)) * 16 + (lo >> 2);
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int col = 8 * jt + 2 * (lo & 3) + (e & 1);
                if (col < t) y[(size_t)col * n + row + (e < 2 ? 0 : 8)] = __float2bfloat16_rn(v[e]);
            }
        }
        cluster_wait();
        return;
#endif
        // ws of this row tile: [k_split][N][ROWS] fp32 partials; the last CTA of the tile to
        // arrive (cnt) adds them in split order, stores BF16, sets cnt back to zero.
        float* part = ws + (size_t)blockIdx.x * (T2W_KS * T2W_N * T2W_ROWS);
#pragma unroll
        for (int j = 0; j < T2W_CT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int col = 8 * j + 2 * q + (e & 1);
                if (col < t) __stcg(part + (blockIdx.y * T2W_N + col) * T2W_ROWS + lr + (e < 2 ? 0 : 8), acc[4 * j + e] + 0.0f);
            }
        __shared__ unsigned int is_last;
        __threadfence();
        __syncthreads();
        if (tid == 0) is_last = atomicAdd(cnt + blockIdx.x, 1u) == T2W_KS - 1;
        __syncthreads();
        if (!is_last) return;
        __threadfence();
        const int cols = t < T2W_N ? t : T2W_N;
        for (int pi = tid; pi < cols * (T2W_ROWS / 2); pi += T2W_THREADS) {
            const int col = pi / (T2W_ROWS / 2), row = (pi % (T2W_ROWS / 2)) * 2;
            float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
            for (int sp = 0; sp < T2W_KS; ++sp) {
                const float2 v = __ldcg(reinterpret_cast<const float2*>(part + (sp * T2W_N + col) * T2W_ROWS + row));
                s0 += v.x;
                s1 += v.y;
            }
            *reinterpret_cast<__nv_bfloat162*>(y + (size_t)col * n + row0 + row) = __floats2bfloat162_rn(s0, s1);
        }
        if (tid == 0) cnt[blockIdx.x] = 0u; // every split has arrived: ready for the next launch
    }
}
