// common/q4_warpgroup.cuh: q4_linear_add's warpgroup schedules (wgmma = 1), the main loop
// that q4_linear_add.cu.tera renders in place of its per-warp ones (the K-slice sum and the
// residual add after it are the template's, shared by every schedule).
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
//
// The arithmetic is the per-warp schedules' (a fresh fp32 sum per 64-wide group over its
// four k16 steps of exact BF16 products, then acc += sum x the row's FP16 scale, groups in
// order, the same K-slice sums). Scaling the weights in BF16 before the MMA instead (one
// fp32 sum over the slice, no wait per group) was at most 4 % faster (at 64 tokens; slower
// at some widths) and not accurate enough: a
// weight rounded at 2^-9 of its size errs in proportion to the product, not to the
// result, and with the check's outlier activations one output in call 10 of
// docs/results/h200-2026-12-04a came out 0.1226 for 0.1460.
//   - the CTA is one warpgroup: 4 tile warps, one 64-row band (one wgmma M tile), over one
//     K slice;
//   - one ring in shared memory, `stages` stages (4 or 8; stages - 1 groups in flight)
//     carries per 64-wide group the band's 2048 bytes of codes and 128 of scales and
//     the group's 64 values of every token row the launch serves (K-major, 128-byte
//     swizzle: the B operand as wgmma reads it; the weights' nibble order puts each weight
//     at the k its fragment names, so B is x in natural k order, docs/formats.md);
//   - on sm_90a one thread (warp 0's elected lane, behind a warp-uniform branch that warps
//     1-3 jump over) copies a group with two bulk copies and one tensor copy (TMA,
//     `x_map`: the copy engine swizzles the rows and fills those past the launch's tokens
//     with zeros; async proxy, so wgmma reads them without a proxy fence), counted on the
//     stage's `full` mbarrier. It refills group i - 1's stage while group i's MMAs run,
//     after a named barrier of the four warps:
//     3-11 % faster on the H200 than refilling before group i's decode (the warpgroup's
//     MMAs then waited for that thread's empty-mbarrier wait and copies every group;
//     docs/results/h200-2026-12-04d, call 4). Elsewhere every thread copies its share with
//     cp.async, with one __syncthreads per group;
//   - on sm_90a (compute_90a PTX) a group is four wgmma m64n<N>k16 with the decoded
//     weights (the per-warp schedules' mma.sync A fragments, q4_decode_word) as the
//     register operand and the stage as B, waited for before the rescale (the other CTAs
//     on the SM hide the wait); elsewhere each warp runs mma.sync on the same ring, so the
//     variant is correct on every architecture;
// Launch: grid (n / 64, k_split), block 128, dynamic shared memory Q4_SMEM (the catalog's
// shared_bytes: the ring, 1024-byte aligned inside, and the mbarriers; 128 bytes kept for
// them, of which the `full` ones take 8 per stage); a last parameter x_map, the tensor map
// of the launch's x rows in boxes of 64 values x Q4_N rows with the 128-byte swizzle
// (launch.rs x_tiles).
#define Q4_W {{ warps }}
#define Q4_CT {{ column_tiles }}
#define Q4_KS {{ k_split }}
#define Q4_ST {{ stages }}
#define Q4_N (Q4_CT * 8)   /* tokens per launch at most: the MMA's N */
#define Q4_THREADS (Q4_W * 32)
// cluster = 1 (sm_90 PTX): the k_split CTAs of a band are one cluster and sum their slices
// through distributed shared memory (the template's epilogue, as the producer rings do);
// the receiving buffer is the ring's start, free once the main loop is done.
#define Q4_CL ({{ cluster }} && NINFER_CLUSTER && Q4_KS > 1)
#if Q4_CL
#define Q4_CLUSTER_DIMS __cluster_dims__(1, Q4_KS, 1)
#else
#define Q4_CLUSTER_DIMS
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define Q4_WG 1
#else
#define Q4_WG 0
#endif
// Stage s: token rows at s * XB (N rows of 128 bytes, swizzled, 1024-aligned), then the
// band's codes (4 tiles x 512 bytes, the packed block order) and scales (4 x 32 bytes) at
// W0 + s * WB.
#define Q4_XB (Q4_N * 128)
#define Q4_WB 2176
#define Q4_W0 (Q4_ST * Q4_XB)
#define Q4_SMEM (1024 + Q4_W0 + Q4_ST * Q4_WB + 128) /* + the mbarriers */
// Resident CTAs per SM the registers must allow with wgmma: 5 up to 32 tokens, 4 at 64
// (32 more accumulator registers).
#define Q4_MIN_CTAS (Q4_WG ? (Q4_N >= 64 ? 4 : 5) : 1)
static_assert(Q4_W == 4, "one warpgroup: a 64-row band");
static_assert(Q4_ST >= 4 && Q4_ST <= 8 && (Q4_ST & (Q4_ST - 1)) == 0, "stages: 4 or 8 (128 bytes of mbarriers)");
static_assert(Q4_CT == 1 || Q4_CT == 2 || Q4_CT == 4 || Q4_CT == 8, "wgmma N = 8 .. 64");
static_assert({{ producer }} == 0 && {{ groups }} == 1 && {{ act_i8 }} == 0,
              "the warpgroup schedule: its own ring, BF16 activations");
static_assert(!{{ cluster }} || Q4_KS <= 8, "a cluster holds at most 8 CTAs (portable size)");

#if Q4_WG
// Registers through an empty volatile asm: computed before the fence (the A operands), or
// read after the wait (the sums); otherwise the compiler moves them across and ptxas
// waits for the MMAs in between or serializes them.
__device__ __forceinline__ void q4w_pin(unsigned int (&r)[4])
{
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(r[e])::"memory");
}
__device__ __forceinline__ void q4w_pin(float (&d)[Q4_CT][4])
{
#pragma unroll
    for (int c = 0; c < Q4_CT; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(d[c][e])::"memory");
}
// d[64 rows x N tokens] (= with ACCUMULATE 0, += with 1) A (the warp's 16 rows x 16 k,
// mma.sync's A fragment) x B (the stage's N tokens x 16 k at desc, K-major)
template <int ACCUMULATE>
__device__ __forceinline__ void q4w_wgmma(float (&acc)[Q4_CT][4], const unsigned int (&a)[4], uint64_t desc)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n{{ column_tiles * 8 }}k16.f32.bf16.bf16 { "
                 "{% for i in range(end=column_tiles * 4) %}%{{ i }}{% if not loop.last %}, {% endif %}{% endfor %} }, "
                 "{ %{{ column_tiles * 4 }}, %{{ column_tiles * 4 + 1 }}, %{{ column_tiles * 4 + 2 }}, %{{ column_tiles * 4 + 3 }} }, "
                 "%{{ column_tiles * 4 + 4 }}, %{{ column_tiles * 4 + 5 }}, 1, 1, 0;\n"
                 : {% for j in range(end=column_tiles) %}{% for e in range(end=4) %}"+f"(acc[{{ j }}][{{ e }}]){% if j * 4 + e < column_tiles * 4 - 1 %}, {% endif %}{% endfor %}{% endfor %}
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "n"(ACCUMULATE));
}
#endif

// wgmma's descriptor of the token rows at shared address x_s: 128-byte swizzle, SBO 1024
// (the next 8 tokens), LBO unused for K-major.
__device__ __forceinline__ uint64_t q4w_desc(uint32_t x_s)
{
    return (uint64_t)((x_s & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}
// The group's sums d (fresh) from the decoded weights a[k-step] and the stage's token rows
// (at desc for wgmma, at x_s for mma.sync), complete on return; between() runs while the
// wgmma run (before the mma.sync elsewhere).
template <typename Between>
__device__ __forceinline__ void q4w_mma_group(float (&d)[Q4_CT][4], unsigned int (&a)[4][4], uint64_t desc, uint32_t x_s,
                                              int g, int q, Between between)
{
#if Q4_WG
    // k-step s is the next 32 bytes of the rows (2 in the 16-byte address field)
#pragma unroll
    for (int s = 0; s < 4; ++s) q4w_pin(a[s]);
    wgr_fence();
    q4w_wgmma<0>(d, a[0], desc);
    q4w_wgmma<1>(d, a[1], desc + 2);
    q4w_wgmma<1>(d, a[2], desc + 4);
    q4w_wgmma<1>(d, a[3], desc + 6);
    wgr_commit();
    between(); // while the MMAs run
    wgr_wait<0>();
    q4w_pin(d);
#else
    between();
#pragma unroll
    for (int c = 0; c < Q4_CT; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) d[c][e] = 0.0f;
#pragma unroll
    for (int s = 0; s < 4; ++s)
#pragma unroll
        for (int c = 0; c < Q4_CT; ++c) {
            const int r = 8 * c + g;
            const unsigned int b0 = wgr_lds_u32(x_s + wgr_swz(r, 32 * s + 4 * q));
            const unsigned int b1 = wgr_lds_u32(x_s + wgr_swz(r, 32 * s + 16 + 4 * q));
            q4_mma_bf16(d[c], a[s], b0, b1);
        }
#endif
}

extern "C" __global__ void __launch_bounds__(Q4_THREADS, Q4_MIN_CTAS) Q4_CLUSTER_DIMS {{ entry }}(const uint4* __restrict__ w_codes,
                                                                                const unsigned int* __restrict__ w_scales,
                                                                                const void* __restrict__ x_in,
                                                                                const float2* __restrict__ x_aux,
                                                                                __nv_bfloat16* residual, float* ws,
                                                                                unsigned int* counters, int n, int k, int t,
                                                                                const __grid_constant__ wgr_tensor_map x_map)
{
    extern __shared__ __align__(16) unsigned char q4_smem[];
    const uint32_t ring = (wgr_smem_u32(q4_smem) + 1023u) & ~1023u; // shared address, 1024-aligned
    {
        uint32_t dyn;
        asm("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(dyn));
        if (dyn < (uint32_t)Q4_SMEM) __trap(); // the catalog's shared_bytes disagrees
    }
    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int g = lane >> 2, q = lane & 3;
    const int G = k >> 6; // 64-wide groups
    const int tiles = n >> 4;
    const int band = blockIdx.x;
    const int tile = band * 4 + warp;
    const int slice = blockIdx.y;
    const int g0 = (int)(((long long)slice * G) / Q4_KS);
    const int ng = (int)(((long long)(slice + 1) * G) / Q4_KS) - g0;

    // Weights: a band's blocks along K are one contiguous range (band-major), 2048 bytes of
    // codes and 128 of scales per group, in the order the tile warps read them. Token rows:
    // x itself, a group's 128 bytes of each row landing at row r of the stage (128-byte
    // swizzle).
    const unsigned char* wsrc = (const unsigned char*)w_codes + ((size_t)band * G + g0) * 2048;
    const unsigned char* ssrc = (const unsigned char*)w_scales + ((size_t)band * G + g0) * 128;
    constexpr int LOOK = Q4_ST - 1; // groups in flight
#if Q4_CL
    // The K-slice sum's mbarrier (this CTA's share landed), after the stages' ones in the
    // 128 bytes past the ring; its init is fenced for the cluster before any CTA pushes
    // (the first cluster barrier comes after the main loop).
    static_assert(8 * Q4_ST + 8 <= 128, "the 128 bytes past the ring hold the mbarriers");
    unsigned long long* red_bar =
        reinterpret_cast<unsigned long long*>(q4_smem + (ring + Q4_W0 + Q4_ST * Q4_WB + 8 * Q4_ST - wgr_smem_u32(q4_smem)));
    if (tid == 0) {
        mbar_init(red_bar, 1); // thread 0's arrival with the share's bytes; the pushes count them
        mbar_fence_init_cluster();
    }
#endif
#if Q4_WG
    // Bulk and tensor copies (async proxy: wgmma reads them without a proxy fence), one
    // thread issues a group's three; full[s]: stage s landed (its bytes counted). Nothing
    // waits for a stage to be free: the refill follows a barrier of the four warps (in
    // `step`). (The `empty` mbarriers that once did are gone.)
    const uint32_t full = ring + Q4_W0 + Q4_ST * Q4_WB;
    // The copies' thread is warp 0's elected lane, behind a warp-uniform branch.
    const int warp_u = wgr_ring_start(full, Q4_ST, &x_map);
    auto fill_weights = [&](int j, int s) {
        if (j < ng)
            wgr_by_warp0_lane(warp_u, [&]() {
                wgr_mbar_expect(full + 8 * s, Q4_WB + Q4_XB); // the tensor copy's whole box
                wgr_bulk(ring + Q4_W0 + s * Q4_WB, wsrc + (size_t)j * 2048, 2048, full + 8 * s);
                wgr_bulk(ring + Q4_W0 + s * Q4_WB + 2048, ssrc + (size_t)j * 128, 128, full + 8 * s);
            });
    };
    auto fill_x = [&](int j, int s) {
        if (j < ng) wgr_by_warp0_lane(warp_u, [&]() { wgr_tma_2d(ring + s * Q4_XB, &x_map, (g0 + j) * 64, full + 8 * s); });
    };
#else
    // cp.async by every thread: 16 bytes of each group's codes, threads 0..7 16 bytes of
    // its scales, and chunks tid + 128 m of its token rows, each where the swizzle puts it
    // (rows of tokens >= t are not copied: they only reach columns that are never stored).
    const unsigned char* xsrc = reinterpret_cast<const unsigned char*>(x_in) + (size_t)g0 * 128;
    auto fill_weights = [&](int j, int s) {
        if (j < ng) {
            wgr_cp16(ring + Q4_W0 + s * Q4_WB + tid * 16, wsrc + (size_t)j * 2048 + tid * 16);
            if (tid < 8) wgr_cp16(ring + Q4_W0 + s * Q4_WB + 2048 + tid * 16, ssrc + (size_t)j * 128 + tid * 16);
        }
    };
    auto fill_x = [&](int j, int s) {
        if (j < ng) {
#pragma unroll
            for (int m = 0; m < (Q4_N * 8 + Q4_THREADS - 1) / Q4_THREADS; ++m) {
                const int idx = tid + m * Q4_THREADS, r = idx >> 3, c = idx & 7;
                if (idx < t * 8) wgr_cp16(ring + s * Q4_XB + wgr_swz(r, 16 * c), xsrc + ((size_t)r * k + j * 64) * 2 + 16 * c);
            }
        }
        q4_cp_async_commit(); // always: every thread counts the same groups
    };
#endif

    // The first groups' weights before the wait (they do not depend on the kernel ahead),
    // their token rows after it.
#pragma unroll
    for (int j = 0; j < LOOK; ++j) fill_weights(j, j);
    NINFER_PDL_WAIT(); // the activations: the kernel ahead writes them
#pragma unroll
    for (int j = 0; j < LOOK; ++j) fill_x(j, j);

    float acc[Q4_CT][4]; // the sums the K-slice handshake takes
#pragma unroll
    for (int c = 0; c < Q4_CT; ++c)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[c][e] = 0.0f;

    const uint32_t w_own = ring + Q4_W0 + warp * 512 + lane * 16;
    const uint32_t sc_own = ring + Q4_W0 + 2048 + warp * 32 + g * 4;
    // wgmma's descriptor of stage 0's token rows; stage s is s * XB / 16 further
    const uint64_t desc0 = q4w_desc(ring);
    // Step i: group i's MMAs and rescale; s = i mod stages, a constant where the caller
    // unrolls.
    auto step = [&](const int i, const int s) {
        const int sf = (s + LOOK) & (Q4_ST - 1); // the stage group i + LOOK takes: group i - 1's
#if Q4_WG
        wgr_mbar_wait(full + 8 * s, (i / Q4_ST) & 1); // group i landed
#else
        q4_cp_async_wait<LOOK - 1>(); // this thread's copies of group i have landed
        __syncthreads(); // everyone's have; and every warp is past group i - 1, whose stage i + LOOK takes
        fill_weights(i + LOOK, sf);
        fill_x(i + LOOK, sf);
#endif
        const uint4 cw = wgr_lds_u4(w_own + s * Q4_WB);
        const unsigned int sc = wgr_lds_u32(sc_own + s * Q4_WB);
        unsigned int a[4][4];
        q4_decode_word(cw.x, a[0]);
        q4_decode_word(cw.y, a[1]);
        q4_decode_word(cw.z, a[2]);
        q4_decode_word(cw.w, a[3]);
        float d[Q4_CT][4];
        q4w_mma_group(d, a, desc0 + (uint64_t)((s * Q4_XB) >> 4), ring + s * Q4_XB, g, q, [&]() {
#if Q4_WG
            // Group i - 1's stage takes group i + LOOK while group i's MMAs run: past this
            // barrier every warp has retired group i - 1 (its MMAs waited for, its weights
            // read). Not an mbarrier wait: a wait loop with MMAs in flight across its back
            // edge makes ptxas serialize every wgmma (C7514). At i = 0 the stage is the
            // last one, which the prologue left empty: no barrier.
            if (i + LOOK < ng) {
                if (i >= 1) asm volatile("bar.sync 1, %0;" ::"n"(Q4_THREADS) : "memory");
                fill_weights(i + LOOK, sf);
                fill_x(i + LOOK, sf);
            }
#endif
        });
        q4_scale_into<Q4_CT>(acc, d, sc);
    };
    // Whole rounds of the ring unrolled, so every stage index is a constant; then the last
    // groups (i is a multiple of stages, so their stages are 0, 1, ...).
    int i = 0;
    for (; i + Q4_ST <= ng; i += Q4_ST) {
#pragma unroll
        for (int u = 0; u < Q4_ST; ++u) step(i + u, u);
    }
#pragma unroll
    for (int u = 0; u < Q4_ST - 1; ++u)
        if (i + u < ng) step(i + u, u);
#if !Q4_WG
    q4_cp_async_wait<0>();
#endif
// the K-slice sum's receiving buffer (cluster = 1): the ring's start
#define Q4_RECV (q4_smem + (ring - wgr_smem_u32(q4_smem)))
static_assert(Q4_W * Q4_CT * 32 * 16 <= Q4_ST * Q4_XB, "the pushed fragments fit the ring's token rows");
#define Q4_TILE_BARRIER() __syncthreads()
