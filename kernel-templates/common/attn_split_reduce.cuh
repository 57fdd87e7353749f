// common/attn_split_reduce.cuh: attn_i8_small's split-KV reduce (both of its builds: the
// mma.sync schedules and the warpgroup one include it after their kernels; HD, GQA,
// NEG_INF and common/pdl.cuh come from the includer).
// Merges the split partials: out[i][kvh * 6 + hh][d] (BF16) for row r = i * 6 + hh of
// tile z (column z * width + i). Grid (rows * RED_CHUNKS, kv_heads, tiles): CTA x owns row
// x / RED_CHUNKS and the RED_D output dims of chunk x % RED_CHUNKS, so a W = 1 reduce is
// 96 CTAs rather than 24. One pass: RED_GROUPS groups of RED_D threads (one per dim) each
// take every RED_GROUPS-th split, loading (m, l) and o of BATCH splits at once and merging
// them online (own running max); the groups' (m, l, sums) meet once in shared memory.
// Two entry points: _reduce (two splits per step, merged one at a time: 32 registers, four
// CTAs per SM, for the wide grids: a W = 8 reduce is 768 CTAs) and _reduce_b8 (eight splits'
// loads at once, ~58 registers: fewer dependent L2 round trips where the grid fits one
// wave; launch.rs picks).
#define RED_D 64
#define RED_CHUNKS (HD / RED_D)
#define RED_GROUPS 8
#define RED_THREADS (RED_GROUPS * RED_D)
template <int BATCH>
__device__ __forceinline__ void reduce_body(const float* __restrict__ ws_o, const float2* __restrict__ ws_ml,
                                            __nv_bfloat16* __restrict__ out, int splits, int width, int kv_heads)
{
    __shared__ float gm[RED_GROUPS], gl[RED_GROUPS];
    __shared__ float gsum[RED_GROUPS][RED_D];
    NINFER_PDL_TRIGGER(); // the next op's first kernel may be scheduled
    NINFER_PDL_WAIT();    // the split kernel's partials
    const int r = blockIdx.x / RED_CHUNKS, chunk = blockIdx.x % RED_CHUNKS;
    const int kvh = blockIdx.y, tile = blockIdx.z, tid = threadIdx.x;
    const int dl = tid % RED_D, grp = tid / RED_D, d = chunk * RED_D + dl;
    const int rows = GQA * width;
    const size_t part0 = ((size_t)tile * kv_heads + kvh) * splits;     // split s is part0 + s
    const float2* ml = ws_ml + part0 * rows + r;                       // split s at ml[s * rows]
    const float* o = ws_o + (part0 * rows + r) * HD + d;                // split s at o[s * stride]
    const size_t stride = (size_t)rows * HD;
    float m = NEG_INF, l = 0.f, acc = 0.f;
    if constexpr (BATCH == 2) {
        // Folds split partials (ms, ls, os) into the running (m, l, acc).
        auto merge = [&](float ms, float ls, float os) {
            const float mn = fmaxf(m, ms);
            if (mn == NEG_INF) return;                                 // nothing visible yet
            const float a = exp2f(m - mn), w = exp2f(ms - mn);        // exp2(-inf) = 0
            l = l * a + ls * w;
            acc = acc * a + os * w;
            m = mn;
        };
        int s = grp;
        for (; s + RED_GROUPS < splits; s += 2 * RED_GROUPS) {
            const float2 v0 = ml[(size_t)s * rows], v1 = ml[(size_t)(s + RED_GROUPS) * rows];
            const float o0 = o[(size_t)s * stride], o1 = o[(size_t)(s + RED_GROUPS) * stride];
            merge(v0.x, v0.y, o0);
            merge(v1.x, v1.y, o1);
        }
        if (s < splits) {
            const float2 v0 = ml[(size_t)s * rows];
            merge(v0.x, v0.y, o[(size_t)s * stride]);
        }
    } else {
        // BATCH splits' loads issued together, then folded into the running (m, l, acc) at
        // the batch's maximum: missing splits read as (m, l, o) = (-inf, 0, 0).
        for (int s = grp; s < splits; s += BATCH * RED_GROUPS) {
            float2 v[BATCH];
            float ov[BATCH];
#pragma unroll
            for (int j = 0; j < BATCH; ++j) {
                const int sj = s + j * RED_GROUPS;
                v[j] = sj < splits ? ml[(size_t)sj * rows] : make_float2(NEG_INF, 0.f);
                ov[j] = sj < splits ? o[(size_t)sj * stride] : 0.f;
            }
            float mb = m;
#pragma unroll
            for (int j = 0; j < BATCH; ++j) mb = fmaxf(mb, v[j].x);
            if (mb == NEG_INF) continue;                               // nothing visible yet
            const float a = exp2f(m - mb);                             // exp2(-inf) = 0
            l *= a;
            acc *= a;
#pragma unroll
            for (int j = 0; j < BATCH; ++j) {
                const float w = exp2f(v[j].x - mb);
                l += v[j].y * w;
                acc += ov[j] * w;
            }
            m = mb;
        }
    }
    if (dl == 0) gm[grp] = m, gl[grp] = l;
    gsum[grp][dl] = acc;
    __syncthreads();
    if (grp == 0) {
        float mx = NEG_INF;
#pragma unroll
        for (int g2 = 0; g2 < RED_GROUPS; ++g2) mx = fmaxf(mx, gm[g2]);
        float lt = 0.f, sum = 0.f;
        if (mx != NEG_INF) {
#pragma unroll
            for (int g2 = 0; g2 < RED_GROUPS; ++g2) {
                const float w = exp2f(gm[g2] - mx);
                lt += gl[g2] * w;
                sum += gsum[g2][dl] * w;
            }
        }
        const int i = tile * width + r / GQA, hh = r % GQA;
        out[((size_t)i * kv_heads * GQA + kvh * GQA + hh) * HD + d] = __float2bfloat16(lt > 0.f ? sum / lt : 0.f);
    }
}

extern "C" __global__ void __launch_bounds__(RED_THREADS) {{ entry }}_reduce(
    const float* __restrict__ ws_o, const float2* __restrict__ ws_ml, __nv_bfloat16* __restrict__ out,
    int splits, int width, int kv_heads)
{
    reduce_body<2>(ws_o, ws_ml, out, splits, width, kv_heads);
}

extern "C" __global__ void __launch_bounds__(RED_THREADS) {{ entry }}_reduce_b8(
    const float* __restrict__ ws_o, const float2* __restrict__ ws_ml, __nv_bfloat16* __restrict__ out,
    int splits, int width, int kv_heads)
{
    reduce_body<8>(ws_o, ws_ml, out, splits, width, kv_heads);
}
