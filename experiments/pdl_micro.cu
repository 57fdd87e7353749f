// Standalone experiment: what does the split-KV decode attention pay for being two kernels,
// and how much of it does programmatic dependent launch (PDL, sm_90) take back?
// Not part of the build: experiments/build.sh pdl_micro, then run on the GPU machine.
//
// The pair is shaped like attn_i8_small at W = 1 on 4 KV heads: a split kernel of
// `splits` x 4 CTAs of 128 threads, each streaming its share of the window's cache bytes
// (2112 per token) from HBM and writing 6 rows x 256 FP32 partials plus (m, l); then the
// real reduce's shape (96 CTAs of 512 threads, one pass over the splits). Timed as graphs
// of 40 ops, the cache offsets rotated over 2 GB, L2 flushed before every sample, median
// of 9. Modes: the split kernel alone, the pair, PDL on the reduce, PDL on both kernels.
#include <cuda_runtime.h>
#include "harness.cuh"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>


constexpr int HD = 256, ROWS = 6, HEADS = 4;

__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void pdl_trigger() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

__device__ __forceinline__ uint4 ld_stream(const uint4* p)
{
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}


__device__ __forceinline__ unsigned ld_acquire(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// The reduce as the split kernel's tail. Every CTA stores its partial, then takes a ticket
// per KV head (fence, atomic). The last R = ROWS x parts_per_row CTAs to arrive each own
// one slice (a row's 256 / parts_per_row dims): they wait until all splits of their head
// have arrived (they are the last, so the wait is short, and they wait only for CTAs that
// do not wait: no residency assumption), merge that slice over every split, and write it.
// The last of them to leave resets the head's counters for the next launch.
// counters[2 * head]: arrivals, counters[2 * head + 1]: departures.
__device__ void fused_tail(const float* ws_o, const float2* ws_ml, unsigned* counters, float* out, int parts_per_row)
{
    __shared__ unsigned s_ticket;
    const int splits = gridDim.x, kvh = blockIdx.y, tid = threadIdx.x;
    const int spinners = min(ROWS * parts_per_row, splits);
    __syncthreads();
    if (tid == 0) {
        __threadfence();
        s_ticket = atomicAdd(&counters[2 * kvh], 1u);
    }
    __syncthreads();
    const int slot = (int)s_ticket - (splits - spinners);
    if (slot < 0) return;
    if (tid == 0) {
        while (ld_acquire(&counters[2 * kvh]) < (unsigned)splits) {
        }
    }
    __syncthreads();
    // Slice `slot`: row slot / parts_per_row, dims [d0, d0 + 256 / parts_per_row).
    const int r = slot / parts_per_row, width = HD / parts_per_row, d0 = (slot % parts_per_row) * width;
    const int lanes = width / 4, groups = 128 / lanes;  // float4 lanes x split groups
    const int lane = tid % lanes, grp = tid / lanes;
    const size_t part0 = (size_t)kvh * splits;
    float m = -INFINITY, l = 0.f;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    constexpr int B = 8;
    for (int s0 = grp; s0 < splits; s0 += B * groups) {
        float2 v[B];
        float4 o[B];
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const int s = s0 + j * groups;
            v[j] = s < splits ? __ldcg(&ws_ml[(part0 + s) * ROWS + r]) : make_float2(-INFINITY, 0.f);
            o[j] = s < splits ? __ldcg(reinterpret_cast<const float4*>(&ws_o[((part0 + s) * ROWS + r) * HD + d0]) + lane)
                              : make_float4(0.f, 0.f, 0.f, 0.f);
        }
        float mx = m;
#pragma unroll
        for (int j = 0; j < B; ++j) mx = fmaxf(mx, v[j].x);
        const float a = exp2f(m - mx);
        l *= a, acc.x *= a, acc.y *= a, acc.z *= a, acc.w *= a;
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const float w = exp2f(v[j].x - mx);
            l += v[j].y * w;
            acc.x += o[j].x * w, acc.y += o[j].y * w, acc.z += o[j].z * w, acc.w += o[j].w * w;
        }
        m = mx;
    }
    __shared__ float gm[32], gl[32];
    __shared__ float4 gsum[128];
    if (lane == 0) gm[grp] = m, gl[grp] = l;
    gsum[tid] = acc;
    __syncthreads();
    if (grp == 0) {
        float mx = -INFINITY, lt = 0.f;
        float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int g = 0; g < groups; ++g) mx = fmaxf(mx, gm[g]);
        for (int g = 0; g < groups; ++g) {
            const float w = exp2f(gm[g] - mx);
            const float4 o = gsum[g * lanes + lane];
            lt += gl[g] * w;
            sum.x += o.x * w, sum.y += o.y * w, sum.z += o.z * w, sum.w += o.w * w;
        }
        const float inv = 1.f / lt;
        reinterpret_cast<float4*>(out + (kvh * ROWS + r) * HD + d0)[lane] =
            make_float4(sum.x * inv, sum.y * inv, sum.z * inv, sum.w * inv);
    }
    if (tid == 0 && atomicAdd(&counters[2 * kvh + 1], 1u) == (unsigned)spinners - 1) {
        counters[2 * kvh] = 0;
        counters[2 * kvh + 1] = 0;
    }
}

// TRIGGER: 0 none, 1 at the top, 2 after the streaming loop. FUSED: the reduce as the
// kernel's tail (fused_tail below) instead of a second kernel.
template <bool WAIT, int TRIGGER, bool FUSED = false>
__global__ void __launch_bounds__(128) split_kernel(const uint4* __restrict__ kv, size_t per_cta16, float* ws_o,
                                                    float2* ws_ml, unsigned* counters, float* out, int parts_per_row)
{
    if (WAIT) pdl_wait();
    if (TRIGGER == 1) pdl_trigger();
    const size_t part = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    const uint4* src = kv + part * per_cta16;
    unsigned acc = 0;
    size_t i = threadIdx.x;
    for (; i + 3 * 128 < per_cta16; i += 4 * 128) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = ld_stream(src + i + u * 128);
#pragma unroll
        for (int u = 0; u < 4; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < per_cta16; i += 128) {
        uint4 v = ld_stream(src + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (TRIGGER == 2) pdl_trigger();
    const float f = (float)(acc & 0xff) * 1e-3f;
    for (int e = threadIdx.x; e < ROWS * HD; e += 128) ws_o[part * ROWS * HD + e] = f + e;
    if (threadIdx.x < ROWS) ws_ml[part * ROWS + threadIdx.x] = make_float2(f, 1.f);
    if (FUSED) fused_tail(ws_o, ws_ml, counters, out, parts_per_row);
}

// The reduce's last step: the 8 groups' (m, l, sum) of one output meet in shared memory.
__device__ __forceinline__ void merge_groups(float m, float l, float acc, float* out)
{
    __shared__ float gm[8], gl[8], gsum[8][64];
    const int dl = threadIdx.x % 64, grp = threadIdx.x / 64;
    if (dl == 0) gm[grp] = m, gl[grp] = l;
    gsum[grp][dl] = acc;
    __syncthreads();
    if (grp == 0) {
        float mx = -INFINITY, lt = 0.f, sum = 0.f;
        for (int g = 0; g < 8; ++g) mx = fmaxf(mx, gm[g]);
        for (int g = 0; g < 8; ++g) {
            const float w = exp2f(gm[g] - mx);
            lt += gl[g] * w;
            sum += gsum[g][dl] * w;
        }
        *out = sum / lt;
    }
}

// The shape of attn_i8_small's reduce (grid ROWS * 4 x HEADS, 8 groups of 64 threads).
template <bool WAIT>
__global__ void __launch_bounds__(512) reduce_kernel(const float* __restrict__ ws_o, const float2* __restrict__ ws_ml,
                                                     float* out, int splits)
{
    if (WAIT) pdl_wait();
    const int r = blockIdx.x / 4, chunk = blockIdx.x % 4, kvh = blockIdx.y, tid = threadIdx.x;
    const int dl = tid % 64, grp = tid / 64, d = chunk * 64 + dl;
    const size_t part0 = (size_t)kvh * splits;
    float m = -INFINITY, l = 0.f, acc = 0.f;
    for (int s = grp; s < splits; s += 8) {
        const float2 v = ws_ml[(part0 + s) * ROWS + r];
        const float o = ws_o[((part0 + s) * ROWS + r) * HD + d];
        const float mn = fmaxf(m, v.x);
        const float a = exp2f(m - mn), w = exp2f(v.x - mn);
        l = l * a + v.y * w;
        acc = acc * a + o * w;
        m = mn;
    }
    merge_groups(m, l, acc, out + (kvh * ROWS + r) * HD + d);
}


// A small-T projection's shape: stream `n16` x 16 bytes of weights (grid-stride, U loads in
// flight per thread), read the previous op's output, write this op's. MODE 0: plain launch;
// 1: PDL, wait at the top; 2: PDL, the first U weight loads issued before the wait (weights
// never depend on the previous op), trigger at the top; 3: as 2, trigger after the loop.
template <int MODE>
__global__ void __launch_bounds__(256) chain_kernel(const uint4* __restrict__ w, size_t n16, const float* x_in, float* y_out)
{
    constexpr int U = 8;
    if (MODE == 1) pdl_wait();
    if (MODE == 1 || MODE == 2) pdl_trigger();
    const size_t stride = (size_t)gridDim.x * 256;
    size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = i + u * stride < n16 ? ld_stream(w + i + u * stride) : make_uint4(0, 0, 0, 0);
    if (MODE >= 2) pdl_wait();
    const float xv = x_in[(blockIdx.x * 256 + threadIdx.x) % 4096];
    unsigned acc = 0;
    for (;;) {
#pragma unroll
        for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
        i += U * stride;
        if (i >= n16) break;
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = i + u * stride < n16 ? ld_stream(w + i + u * stride) : make_uint4(0, 0, 0, 0);
    }
    if (MODE == 3) pdl_trigger();
    if (threadIdx.x < 16) y_out[(blockIdx.x * 16 + threadIdx.x) % 4096] = xv + (float)(acc & 0xff) * 1e-9f;
}


// The reduce with every split's loads issued before any merge (up to 16 per thread).
__global__ void __launch_bounds__(512) reduce_batched(const float* __restrict__ ws_o, const float2* __restrict__ ws_ml,
                                                      float* out, int splits)
{
    const int r = blockIdx.x / 4, chunk = blockIdx.x % 4, kvh = blockIdx.y, tid = threadIdx.x;
    const int dl = tid % 64, grp = tid / 64, d = chunk * 64 + dl;
    const size_t part0 = (size_t)kvh * splits;
    float m = -INFINITY, l = 0.f, acc = 0.f;
    constexpr int B = 16;
    float2 v[B];
    float o[B];
#pragma unroll
    for (int j = 0; j < B; ++j) {
        const int s = grp + 8 * j;
        v[j] = s < splits ? ws_ml[(part0 + s) * ROWS + r] : make_float2(-INFINITY, 0.f);
        o[j] = s < splits ? ws_o[((part0 + s) * ROWS + r) * HD + d] : 0.f;
    }
    float mx = -INFINITY;
#pragma unroll
    for (int j = 0; j < B; ++j) mx = fmaxf(mx, v[j].x);
#pragma unroll
    for (int j = 0; j < B; ++j) {
        const float w = exp2f(v[j].x - mx);
        l += v[j].y * w;
        acc += o[j] * w;
    }
    m = mx;
    merge_groups(m, l, acc, out + (kvh * ROWS + r) * HD + d);
}

__global__ void flush_kernel(const uint4* src, size_t n16, unsigned* sink)
{
    unsigned acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = ld_stream(src + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x12345678u) sink[0] = acc;
}

template <typename... K, typename... A>
static void launch(bool programmatic, cudaStream_t s, void (*k)(K...), dim3 grid, dim3 block, A... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = programmatic ? 1 : 0;
    CK(cudaLaunchKernelEx(&cfg, k, args...));
}

static float time_graph(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int sms, const uint4* flush, size_t flush_bytes,
                        unsigned* sink, int launches, const std::function<void(int)>& op)
{
    return time_graph_us(s, e0, e1, launches,
                         [&] { flush_kernel<<<sms * 8, 256, 0, s>>>(flush, flush_bytes / 16, sink); }, op);
}

int main(int argc, char** argv)
{
    // suites: pair (the attention-shaped pair), chain (dependent projections), fused (the
    // reduce as the split kernel's tail); default: pair and chain, as first committed
    const std::string suite = argc > 1 ? argv[1] : "pair,chain";
    const auto has = [&](const char* s) { return suite.find(s) != std::string::npos; };
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const size_t pool_bytes = (size_t)2 << 30, flush_bytes = (size_t)256 << 20;
    uint4 *pool, *flush;
    float *ws_o, *out;
    float2* ws_ml;
    unsigned* sink;
    CK(cudaMalloc(&pool, pool_bytes));
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaMemset(pool, 0x5a, pool_bytes));
    CK(cudaMemset(flush, 0x3c, flush_bytes));
    CK(cudaMalloc(&ws_o, (size_t)HEADS * 1024 * ROWS * HD * 4));
    CK(cudaMalloc(&ws_ml, (size_t)HEADS * 1024 * ROWS * 8));
    CK(cudaMalloc(&out, (size_t)HEADS * ROWS * HD * 4));
    CK(cudaMalloc(&sink, 4));

    if (has("pair")) {
    const char* mode_names[] = {"split only", "pair", "pair, PDL reduce", "pair, PDL both", "pair, batched red"};
    // windows and split counts as attn_i8_small's plan gives them (key block 64, 3 CTAs/SM)
    const int windows[] = {1024, 8192, 65536, 262144};
    printf("%-8s %-7s", "window", "splits");
    for (auto m : mode_names) printf(" %18s", m);
    printf("   (us per op, graphs of 40, L2 flushed, median of 9)\n");
    for (int window : windows) {
        const int blocks = window / 64, wave = sms * 3 / HEADS;
        const int per_split = (blocks + std::min(wave, blocks) - 1) / std::min(wave, blocks);
        const int splits = (blocks + per_split - 1) / per_split;
        const size_t op_bytes = (size_t)window * 2112;
        const size_t per_cta16 = op_bytes / (HEADS * splits) / 16;
        printf("%-8d %-7d", window, splits);
        for (int mode = 0; mode < 5; ++mode) {
            const float us = time_graph(s, e0, e1, sms, flush, flush_bytes, sink, 40, [&](int i) {
                const size_t off16 = ((size_t)i * op_bytes % (pool_bytes - op_bytes)) / 16;
                const dim3 sg(splits, HEADS), rg(ROWS * 4, HEADS);
                if (mode == 3)
                    launch(true, s, split_kernel<true, 1>, sg, dim3(128), (const uint4*)(pool + off16), per_cta16, ws_o, ws_ml,
                           (unsigned*)nullptr, (float*)nullptr, 1);
                else if (mode == 2)
                    launch(false, s, split_kernel<false, 1>, sg, dim3(128), (const uint4*)(pool + off16), per_cta16, ws_o, ws_ml,
                           (unsigned*)nullptr, (float*)nullptr, 1);
                else
                    launch(false, s, split_kernel<false, 0>, sg, dim3(128), (const uint4*)(pool + off16), per_cta16, ws_o, ws_ml,
                           (unsigned*)nullptr, (float*)nullptr, 1);
                if (mode == 1) launch(false, s, reduce_kernel<false>, rg, dim3(512), (const float*)ws_o, (const float2*)ws_ml, out, splits);
                if (mode == 4) launch(false, s, reduce_batched, rg, dim3(512), (const float*)ws_o, (const float2*)ws_ml, out, splits);
                if (mode == 2 || mode == 3) launch(true, s, reduce_kernel<true>, rg, dim3(512), (const float*)ws_o, (const float2*)ws_ml, out, splits);
            });
            printf(" %18.2f", us);
        }
        printf("   floor %.2f\n", op_bytes / 4.3e12 * 1e6);
    }

    }

    if (has("fused")) {
        // The reduce fused into the split kernel's tail against the pair, both with PDL
        // between every kernel (wait at the top, trigger after the streaming loop), at the
        // split counts of 2 and 3 CTAs per SM. parts: slices per output row (spinners =
        // 6 x parts per KV head).
        unsigned* counters;
        CK(cudaMalloc(&counters, 2 * HEADS * 4));
        CK(cudaMemset(counters, 0, 2 * HEADS * 4));
        const char* names[] = {"split only", "pair", "fused p1", "fused p2", "fused p4"};
        printf("\n%-8s %-4s %-7s", "window", "c/SM", "splits");
        for (auto m : names) printf(" %12s", m);
        printf("   (us per op, graphs of 40, PDL between all kernels, L2 flushed, median of 9)\n");
        for (int window : {1024, 8192, 16384, 65536, 262144}) {
            for (int cps : {2, 3}) {
                const int blocks = window / 64, wave = sms * cps / HEADS;
                const int per_split = (blocks + std::min(wave, blocks) - 1) / std::min(wave, blocks);
                const int splits = (blocks + per_split - 1) / per_split;
                const size_t op_bytes = (size_t)window * 2112;
                const size_t per_cta16 = op_bytes / (HEADS * splits) / 16;
                printf("%-8d %-4d %-7d", window, cps, splits);
                for (int mode = 0; mode < 5; ++mode) {
                    const int parts = mode == 2 ? 1 : mode == 3 ? 2 : 4;
                    const float us = time_graph(s, e0, e1, sms, flush, flush_bytes, sink, 40, [&](int i) {
                        const uint4* kv = pool + ((size_t)i * op_bytes % (pool_bytes - op_bytes)) / 16;
                        const dim3 sg(splits, HEADS), rg(ROWS * 4, HEADS);
                        if (mode < 2)
                            launch(true, s, split_kernel<true, 2>, sg, dim3(128), kv, per_cta16, ws_o, ws_ml,
                                   (unsigned*)nullptr, (float*)nullptr, 1);
                        else
                            launch(true, s, split_kernel<true, 2, true>, sg, dim3(128), kv, per_cta16, ws_o, ws_ml,
                                   counters, out, parts);
                        if (mode == 1)
                            launch(true, s, reduce_kernel<true>, rg, dim3(512), (const float*)ws_o, (const float2*)ws_ml,
                                   out, splits);
                    });
                    printf(" %12.2f", us);
                }
                printf("   floor %.2f\n", op_bytes / 4.3e12 * 1e6);
            }
        }
        // the fused tail's result against the reduce kernel's, on the same partials
        std::vector<float> a(HEADS * ROWS * HD), b(HEADS * ROWS * HD);
        const int splits = 64;
        const size_t per_cta16 = (size_t)8192 * 2112 / (HEADS * splits) / 16;
        launch(false, s, split_kernel<false, 0>, dim3(splits, HEADS), dim3(128), (const uint4*)pool, per_cta16, ws_o, ws_ml,
               (unsigned*)nullptr, (float*)nullptr, 1);
        launch(false, s, reduce_kernel<false>, dim3(ROWS * 4, HEADS), dim3(512), (const float*)ws_o, (const float2*)ws_ml,
               out, splits);
        CK(cudaMemcpyAsync(a.data(), out, a.size() * 4, cudaMemcpyDeviceToHost, s));
        CK(cudaMemsetAsync(out, 0xff, a.size() * 4, s));
        launch(false, s, split_kernel<false, 0, true>, dim3(splits, HEADS), dim3(128), (const uint4*)pool, per_cta16, ws_o,
               ws_ml, counters, out, 2);
        CK(cudaMemcpyAsync(b.data(), out, b.size() * 4, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        double worst = 0;
        for (size_t e = 0; e < a.size(); ++e) worst = std::max(worst, (double)std::fabs(a[e] - b[e]) / std::fabs(a[e]));
        printf("fused tail against the reduce kernel: max relative difference %.2e%s\n", worst,
               worst < 1e-5 ? "" : "  MISMATCH");
    }

    if (has("chain")) {
    // Chains of small-T projections: op i reads op i-1's output (ping-pong buffers).
    float* xy;
    CK(cudaMalloc(&xy, 2 * 4096 * 4));
    CK(cudaMemset(xy, 0, 2 * 4096 * 4));
    const char* chain_names[] = {"plain", "PDL wait top", "PDL prefetch", "PDL prefetch, late"};
    printf("\n%-10s %-6s", "weights", "CTAs");
    for (auto m : chain_names) printf(" %18s", m);
    printf("   (us per op, graphs of 40 dependent ops)\n");
    for (double mb : {7.86, 15.73, 22.28, 44.56}) {
        for (int per_sm : {4, 8}) {
            const size_t bytes = (size_t)(mb * 1e6) / 16 * 16, n16 = bytes / 16;
            const int grid = sms * per_sm;
            printf("%-10.2f %-6d", mb, grid);
            for (int mode = 0; mode < 4; ++mode) {
                const float us = time_graph(s, e0, e1, sms, flush, flush_bytes, sink, 40, [&](int i) {
                    const uint4* w = pool + ((size_t)i * bytes % (pool_bytes - bytes)) / 16;
                    const float* x = xy + (i & 1) * 4096;
                    float* y = xy + ((i + 1) & 1) * 4096;
                    if (mode == 0) launch(false, s, chain_kernel<0>, dim3(grid), dim3(256), w, n16, x, y);
                    if (mode == 1) launch(true, s, chain_kernel<1>, dim3(grid), dim3(256), w, n16, x, y);
                    if (mode == 2) launch(true, s, chain_kernel<2>, dim3(grid), dim3(256), w, n16, x, y);
                    if (mode == 3) launch(true, s, chain_kernel<3>, dim3(grid), dim3(256), w, n16, x, y);
                });
                printf(" %18.2f", us);
            }
            printf("   floor %.2f\n", bytes / 4.3e12 * 1e6);
        }
    }
    }
    return 0;
}
