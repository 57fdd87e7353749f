// Standalone experiment: the wgmma (sm_90a) operand layouts the prompt-attention P.V and
// Q.K would use, checked against the CPU, and the rate of wgmma against mma.sync.
// Not part of the build: ARCH="-gencode arch=compute_90a,code=sm_90a" experiments/build.sh wgmma_micro, run on the GPU machine.
// wgmma_ops.cuh is generated (the inline-asm operand lists of 128 accumulators).
//
// Tests (each prints max |err| against the CPU):
//   pv_mn  D[64][256] = P[64][64] . V[64 keys][256 dims], V FP16 in the MN-major 128-byte
//          swizzled layout [dim block of 64][key][128 B, 16-byte chunk ^ (key & 7)],
//          descriptor (LBO, SBO) given on the command line order below, trans-b = 1.
//   pv_k   the same with V^T stored K-major [dim][64 keys = 128 B, chunk ^ (dim & 7)], trans-b = 0.
//   qk_s8  S[64][64] = Q[64][256] . K[64][256]^T, int8, A = Q from registers, K K-major
//          [dim half][key][128 B, chunk ^ (key & 7)].
//   rate   wgmma m64n256k16 against mma.sync m16n8k16 (same FLOPs), all SMs.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include "harness.cuh"
#include "wgmma_ops.cuh"

__device__ __forceinline__ uint64_t sw128_desc(const void* p, uint32_t lbo, uint32_t sbo) {
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
    return (uint64_t)((a & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
           ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
__device__ __forceinline__ uint32_t pack2(__half a, __half b) {
    __half2 h = __halves2half2(a, b); return *reinterpret_cast<uint32_t*>(&h);
}

// mode 0: MN-major V, mode 1: K-major V^T
__global__ void pv_kernel(const __half* P, const __half* V, float* D, int mode, uint32_t lbo, uint32_t sbo)
{
    __shared__ __align__(1024) uint8_t vs[64 * 256 * 2];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    for (int i = tid; i < 64 * 256; i += 128) {
        const int key = i / 256, dim = i % 256;
        int off;
        if (mode == 0) { const int c = (dim % 64) / 8; off = (dim / 64) * 8192 + key * 128 + ((c ^ (key & 7)) << 4) + (dim % 8) * 2; }
        else { const int c = key / 8; off = dim * 128 + ((c ^ (dim & 7)) << 4) + (key % 8) * 2; }
        *reinterpret_cast<__half*>(vs + off) = V[i];
    }
    __syncthreads();
    float d[128];
    for (int i = 0; i < 128; ++i) d[i] = 0.f;
    const int r0 = warp * 16 + g;
    wg_fence();
    for (int s = 0; s < 4; ++s) {
        uint32_t a[4];
        const int k0 = s * 16 + 2 * t;
        a[0] = pack2(P[r0 * 64 + k0], P[r0 * 64 + k0 + 1]);
        a[1] = pack2(P[(r0 + 8) * 64 + k0], P[(r0 + 8) * 64 + k0 + 1]);
        a[2] = pack2(P[r0 * 64 + k0 + 8], P[r0 * 64 + k0 + 9]);
        a[3] = pack2(P[(r0 + 8) * 64 + k0 + 8], P[(r0 + 8) * 64 + k0 + 9]);
        if (mode == 0) wgmma_m64n256k16_f16_rs_t(d, a, sw128_desc(vs + s * 2048, lbo, sbo), 1);
        else wgmma_m64n256k16_f16_rs(d, a, sw128_desc(vs + s * 32, lbo, sbo), 1);
    }
    wg_commit();
    wg_wait0();
    for (int j = 0; j < 32; ++j) {
        const int c = 8 * j + 2 * t;
        D[r0 * 256 + c] = d[4 * j]; D[r0 * 256 + c + 1] = d[4 * j + 1];
        D[(r0 + 8) * 256 + c] = d[4 * j + 2]; D[(r0 + 8) * 256 + c + 1] = d[4 * j + 3];
    }
}

__global__ void qk_kernel(const int8_t* Q, const int8_t* K, int* S)
{
    __shared__ __align__(1024) uint8_t ks[64 * 256];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    for (int i = tid; i < 64 * 256; i += 128) {
        const int key = i / 256, dim = i % 256;
        const int c = (dim % 128) / 16;
        ks[(dim / 128) * 8192 + key * 128 + ((c ^ (key & 7)) << 4) + dim % 16] = (uint8_t)K[i];
    }
    __syncthreads();
    int d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0;
    const int r0 = warp * 16 + g;
    wg_fence();
    for (int s = 0; s < 8; ++s) {
        uint32_t a[4];
        const int k0 = s * 32 + 4 * t;
        a[0] = *reinterpret_cast<const uint32_t*>(Q + r0 * 256 + k0);
        a[1] = *reinterpret_cast<const uint32_t*>(Q + (r0 + 8) * 256 + k0);
        a[2] = *reinterpret_cast<const uint32_t*>(Q + r0 * 256 + k0 + 16);
        a[3] = *reinterpret_cast<const uint32_t*>(Q + (r0 + 8) * 256 + k0 + 16);
        wgmma_m64n64k32_s8_rs(d, a, sw128_desc(ks + (s / 4) * 8192 + (s % 4) * 32, 16, 1024), 1);
    }
    wg_commit();
    wg_wait0();
    for (int j = 0; j < 8; ++j) {
        const int c = 8 * j + 2 * t;
        S[r0 * 64 + c] = d[4 * j]; S[r0 * 64 + c + 1] = d[4 * j + 1];
        S[(r0 + 8) * 64 + c] = d[4 * j + 2]; S[(r0 + 8) * 64 + c + 1] = d[4 * j + 3];
    }
}

// rate: `iters` x 4 wgmma m64n256k16 per warpgroup, against the same FLOPs as mma.sync
__global__ void rate_wgmma(float* out, int iters)
{
    __shared__ __align__(1024) uint8_t vs[64 * 256 * 2];
    for (int i = threadIdx.x; i < 64 * 256; i += blockDim.x) reinterpret_cast<__half*>(vs)[i] = __float2half(0.001f * (i % 7));
    __syncthreads();
    float d[128];
    for (int i = 0; i < 128; ++i) d[i] = 0.f;
    uint32_t a[4] = {0x3C003C00u, 0x3C003C00u, 0x3C003C00u, 0x3C003C00u};
    for (int it = 0; it < iters; ++it) {
        wg_fence();
        for (int s = 0; s < 4; ++s) wgmma_m64n256k16_f16_rs_t(d, a, sw128_desc(vs + s * 2048, 8192, 1024), 1);
        wg_commit();
        wg_wait0();
    }
    float acc = 0.f;
    for (int i = 0; i < 128; ++i) acc += d[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void rate_mma(float* out, int iters)
{
    float d[32][4];
    for (int i = 0; i < 32; ++i) for (int e = 0; e < 4; ++e) d[i][e] = 0.f;
    uint32_t a[4] = {0x3C003C00u, 0x3C003C00u, 0x3C003C00u, 0x3C003C00u};
    uint32_t b0 = 0x1C001C00u + threadIdx.x, b1 = 0x1C001C00u;
    for (int it = 0; it < iters; ++it)
        for (int s = 0; s < 4; ++s)
#pragma unroll
            for (int n = 0; n < 32; ++n)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(d[n][0]), "+f"(d[n][1]), "+f"(d[n][2]), "+f"(d[n][3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    float acc = 0.f;
    for (int i = 0; i < 32; ++i) for (int e = 0; e < 4; ++e) acc += d[i][e];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static float frand(uint32_t& s) { s = s * 1664525u + 1013904223u; return ((s >> 9) & 0xFFFF) / 65536.f - 0.5f; }

int main()
{
    uint32_t seed = 12345;
    std::vector<__half> P(64 * 64), V(64 * 256);
    std::vector<float> Pf(64 * 64), Vf(64 * 256);
    for (int i = 0; i < 64 * 64; ++i) { P[i] = __float2half(frand(seed)); Pf[i] = __half2float(P[i]); }
    for (int i = 0; i < 64 * 256; ++i) { V[i] = __float2half(frand(seed)); Vf[i] = __half2float(V[i]); }
    std::vector<float> ref(64 * 256, 0.f);
    for (int r = 0; r < 64; ++r) for (int c = 0; c < 256; ++c) { double s = 0; for (int k = 0; k < 64; ++k) s += (double)Pf[r * 64 + k] * Vf[k * 256 + c]; ref[r * 256 + c] = (float)s; }
    __half *dP, *dV; float* dD;
    CK(cudaMalloc(&dP, 64 * 64 * 2)); CK(cudaMalloc(&dV, 64 * 256 * 2)); CK(cudaMalloc(&dD, 64 * 256 * 4));
    CK(cudaMemcpy(dP, P.data(), 64 * 64 * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dV, V.data(), 64 * 256 * 2, cudaMemcpyHostToDevice));
    struct Cfg { int mode; uint32_t lbo, sbo; const char* name; };
    const Cfg cfgs[] = {{0, 8192, 1024, "pv_mn lbo=8192 sbo=1024"}, {0, 1024, 8192, "pv_mn lbo=1024 sbo=8192"},
                        {1, 16, 1024, "pv_k  lbo=16 sbo=1024"}};
    std::vector<float> D(64 * 256);
    for (const Cfg& c : cfgs) {
        CK(cudaMemset(dD, 0xFF, 64 * 256 * 4));
        pv_kernel<<<1, 128>>>(dP, dV, dD, c.mode, c.lbo, c.sbo);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(D.data(), dD, 64 * 256 * 4, cudaMemcpyDeviceToHost));
        double e = 0; for (int i = 0; i < 64 * 256; ++i) e = fmax(e, fabs((double)D[i] - ref[i]));
        printf("%-28s max|err| %.3g %s\n", c.name, e, e < 1e-3 ? "PASS" : "FAIL");
    }
    {   // int8 Q.K
        std::vector<int8_t> Q(64 * 256), K(64 * 256);
        for (auto& x : Q) x = (int8_t)((int)(frand(seed) * 254)); for (auto& x : K) x = (int8_t)((int)(frand(seed) * 254));
        std::vector<int> Sref(64 * 64), S(64 * 64);
        for (int r = 0; r < 64; ++r) for (int j = 0; j < 64; ++j) { int s = 0; for (int k = 0; k < 256; ++k) s += Q[r * 256 + k] * K[j * 256 + k]; Sref[r * 64 + j] = s; }
        int8_t *dQ, *dK; int* dS;
        CK(cudaMalloc(&dQ, 64 * 256)); CK(cudaMalloc(&dK, 64 * 256)); CK(cudaMalloc(&dS, 64 * 64 * 4));
        CK(cudaMemcpy(dQ, Q.data(), 64 * 256, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dK, K.data(), 64 * 256, cudaMemcpyHostToDevice));
        CK(cudaMemset(dS, 0xFF, 64 * 64 * 4));
        qk_kernel<<<1, 128>>>(dQ, dK, dS);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(S.data(), dS, 64 * 64 * 4, cudaMemcpyDeviceToHost));
        int bad = 0; for (int i = 0; i < 64 * 64; ++i) bad += S[i] != Sref[i];
        printf("%-28s mismatches %d %s\n", "qk_s8 K-major sbo=1024", bad, bad ? "FAIL" : "PASS");
    }
    {   // rate
        float* out; CK(cudaMalloc(&out, 132 * 256 * 4));
        cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        const int iters = 4000;
        for (int rep = 0; rep < 2; ++rep) {
            float ms_w, ms_m;
            CK(cudaEventRecord(e0)); rate_wgmma<<<132, 256>>>(out, iters); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms_w, e0, e1));
            CK(cudaEventRecord(e0)); rate_mma<<<132, 256>>>(out, iters); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms_m, e0, e1));
            // per CTA: 2 warpgroups x iters x 4 x (64 x 256 x 16) MACs
            const double flops = 2.0 * 132 * 2 * (double)iters * 4 * 64 * 256 * 16;
            printf("rate: wgmma %.1f TFLOP/s, mma.sync %.1f TFLOP/s (same FLOPs)\n", flops / ms_w / 1e9, flops / ms_m / 1e9);
        }
    }
    return 0;
}
