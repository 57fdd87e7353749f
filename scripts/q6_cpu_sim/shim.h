// CPU stand-ins for the CUDA built-ins and the q4/q6 device helpers, so the rendered
// q6_head kernel source runs on the host: one std::thread per lane, warps one at a time,
// mma.sync emulated across the warp's lanes with a barrier (see run.sh).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

struct uint4 { unsigned int x, y, z, w; };
struct uint2 { unsigned int x, y; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }
struct __nv_bfloat16 { uint16_t bits; };
struct dim3s { unsigned int x = 0, y = 0, z = 0; };
thread_local dim3s threadIdx, blockIdx;
using std::max;
using std::min;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__

static float bf16_to_f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f_to_bf16(float f) { uint32_t u; memcpy(&u, &f, 4); u += 0x7fff + ((u >> 16) & 1); return (uint16_t)(u >> 16); }
static float h_to_f(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? std::ldexp((float)m, -24) : std::ldexp((float)(m | 1024), e - 25);
    return s ? -v : v;
}

inline uint4 q4_ld_stream_v4(const uint4* p) { return *p; }
inline uint4 q4_ld_v4(const void* p) { uint4 r; memcpy(&r, p, 16); return r; }
inline uint2 q6_ld_u2(const uint2* p) { return *p; }
inline unsigned int q4_lop_bias(unsigned int w) { return (w & 0x000f000fu) | 0x43004300u; }
inline unsigned int q6_lop_bias6(unsigned int w) { return (w & 0x003f003fu) | 0x43004300u; }
inline unsigned int q6_lop_high(unsigned int a, unsigned int b) { return (a & 0x00300030u) | b; }
inline unsigned int q6_unbias(unsigned int v) {
    uint16_t lo = f_to_bf16(bf16_to_f((uint16_t)v) * 1.0f - 160.0f);
    uint16_t hi = f_to_bf16(bf16_to_f((uint16_t)(v >> 16)) * 1.0f - 160.0f);
    return (unsigned)lo | ((unsigned)hi << 16);
}
inline void q6_decode_set(unsigned int w0, unsigned int w1, unsigned int w2, unsigned int (&a0)[4], unsigned int (&a1)[4]) {
    a0[0] = q6_unbias(q6_lop_bias6(w0));
    a0[1] = q6_unbias(q6_lop_bias6(w0 >> 6));
    a0[2] = q6_unbias(q6_lop_bias6(w1));
    a0[3] = q6_unbias(q6_lop_bias6(w1 >> 6));
    a1[0] = q6_unbias(q6_lop_bias6(w2));
    a1[1] = q6_unbias(q6_lop_bias6(w2 >> 6));
    a1[2] = q6_unbias(q6_lop_high(w2 >> 8, q4_lop_bias(w0 >> 12)));
    a1[3] = q6_unbias(q6_lop_high(w2 >> 10, q4_lop_bias(w1 >> 12)));
}
inline float q4_half_lo(unsigned int v) { return h_to_f((uint16_t)(v & 0xffff)); }
inline float q4_half_hi(unsigned int v) { return h_to_f((uint16_t)(v >> 16)); }

// mma.sync m16n8k16 row.col bf16 -> f32 across the 32 lane threads of one warp (PTX ISA
// fragment layout: a0 (g, 2q..), a1 (g+8, 2q..), a2 (g, 2q+8..), a3 (g+8, 2q+8..);
// b0 (k 2q.., col g), b1 (k 2q+8.., col g); d (g | g+8, cols 2q, 2q+1); low half = lower k).
struct MmaSlot { unsigned a[4], b0, b1; };
static MmaSlot g_slots[32];
static std::barrier<>* g_bar = nullptr;
thread_local int t_lane = 0;
inline void q4_mma_bf16(float (&d)[4], const unsigned int (&a)[4], unsigned int b0, unsigned int b1) {
    MmaSlot& me = g_slots[t_lane];
    memcpy(me.a, a, 16); me.b0 = b0; me.b1 = b1;
    g_bar->arrive_and_wait();
    auto A = [&](int row, int k) {
        int g = row % 8, q = (k % 8) / 2, e = k % 2, reg = (row / 8) + 2 * (k / 8);
        unsigned v = g_slots[4 * g + q].a[reg];
        return bf16_to_f((uint16_t)(e ? v >> 16 : v));
    };
    auto B = [&](int k, int col) {
        int q = (k % 8) / 2, e = k % 2;
        unsigned v = k < 8 ? g_slots[4 * col + q].b0 : g_slots[4 * col + q].b1;
        return bf16_to_f((uint16_t)(e ? v >> 16 : v));
    };
    int g = t_lane / 4, q = t_lane % 4;
    for (int i = 0; i < 4; ++i) {
        int row = g + 8 * (i / 2), col = 2 * q + (i % 2);
        double s = d[i];
        for (int k = 0; k < 16; ++k) s += (double)A(row, k) * (double)B(k, col);
        d[i] = (float)s;
    }
    g_bar->arrive_and_wait();
}
