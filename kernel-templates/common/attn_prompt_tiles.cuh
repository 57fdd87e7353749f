// common/attn_prompt_tiles.cuh: the prompt-attention tile loop (prompt_body) and its
// helpers, shared by attn_prompt.cu.tera (prompt chunks) and attn_i8_small.cu.tera's
// warpgroup schedule (decode columns, prompt_body's DEC mode). The including template
// defines AP_W, AP_PAIR, AP_ST, AP_CPS, AP_THREADS, AP_PT and includes common/types.cuh
// and common/pdl.cuh first. Layout, loop and entry contracts: attn_prompt.cu.tera's header.
// 1: Q.K and P.V as warpgroup MMAs (wgmma, sm_90a PTX only), their shared-memory operands
// laid out for them (sw128); the standard kernel only (its warp owns 16 rows x all 256
// dims: four warps = one warpgroup's 64 x 256 accumulator)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && !AP_PAIR
#define AP_WG 1
#else
#define AP_WG 0
#endif
// FP16 V tiles: two with wgmma, so the next tile's decode overlaps this tile's last P.V
#define AP_VT (AP_WG ? 2 : 1)
#define AP_ROWS (AP_W * 16)
#define HD 256
#define GQA 6
#define KT 64                      // keys per tile = tokens per page
#define NEG_INF __int_as_float(0xff800000)
#define LOG2E_16 0.09016844005556021f   // log2(e) / sqrt(256): scores in the log2 domain
#define LAZY_RESCALE 8.f                // decode columns: the running max's slack (log2)
#define MAGIC 12582912.f                // 0x4B400000: int32 MMA sums read as floats

template <int FMT> struct Fmt;
template <> struct Fmt<0> { enum { KBITS = 8, KG = 64, VBITS = 8, VG = 64, ROT = 0 }; };   // int8
template <> struct Fmt<1> { enum { KBITS = 8, KG = 64, VBITS = 4, VG = 32, ROT = 1 }; };   // rk8v4
template <> struct Fmt<2> { enum { KBITS = 4, KG = 32, VBITS = 4, VG = 32, ROT = 1 }; };   // rk4v4

// Warp specialization (WS, the wgmma build's entries without PV16): one more warpgroup,
// the producer, copies the pages (a ring of 3) and decodes V and the K scales into two V
// tiles (Lloyd-Max K: also K, half a tile at a time, into the one FP16 K tile); the 8
// consumer warps only compute, handing tiles and stages back and forth through mbarriers
// instead of CTA barriers (prompt_body).
// Registers per thread after setmaxnreg (consumer x 256 + producer x 128 = the 168 x 384 the
// launch allocates), and the producer's decode batch. Decode columns (DEC): the consumers
// waited a third of their time for the producer's V decode (ncu, docs/perf-notes-attn.md),
// so the producer gets registers for twice the loads in flight.
template <int DEC> struct WsRegs { enum { CONSUMER = 232, PRODUCER = 40, DECODE_BATCH = 4 }; };
template <> struct WsRegs<1> { enum { CONSUMER = 224, PRODUCER = 56, DECODE_BATCH = 8 }; };
static_assert(WsRegs<0>::CONSUMER * 256 + WsRegs<0>::PRODUCER * 128 == 168 * 384, "the launch's registers");
static_assert(WsRegs<1>::CONSUMER * 256 + WsRegs<1>::PRODUCER * 128 == 168 * 384, "the launch's registers");
template <int FMT, int PV16> struct Ws {
    enum { ON = AP_WG && !PV16, THREADS = AP_THREADS + (ON ? AP_PT : 0) };
};

// Shared memory: ring of raw pages (K codes rows swizzled), the FP16 V tile(s), the query
// rows (int8 + fp32 scales per 64-group, or FP16), the Lloyd-Max table, the K scales, the
// mbarriers (WS). Mirrors attn_prompt::launch::smem_bytes.
template <int FMT, int WS = 0, int DEC = 0> struct ApLayout {
    typedef Fmt<FMT> F;
    enum {
        // DEC (decode columns, prompt_body): the warpgroups share 64 query rows and take
        // alternate key tiles; with the producer, a ring of three V tiles between them
        VT = (WS && DEC) ? 3 : AP_VT,
        QR = DEC ? 64 : AP_ROWS,               // query rows held
        KCB = HD * F::KBITS / 8, VCB = HD * F::VBITS / 8,
        KGS = HD / F::KG, VGS = HD / F::VG,
        P_V = KT * KCB, P_KS = P_V + KT * VCB, P_VS = P_KS + KT * 2 * KGS,
        PAGE_BYTES = P_VS + KT * 2 * VGS,
        // a stage is a page, sections in page order, padded to 1024 bytes: wgmma reads the
        // K rows of a stage and the V tile in 128-byte-swizzle atoms of 8 x 128 bytes,
        // which must start on a 1024-byte boundary (rk8v4's page is 26112 bytes)
        STAGE = (PAGE_BYTES + 1023) / 1024 * 1024,
        STAGES = WS ? 3 : AP_ST,
        VH = STAGES * STAGE,                   // VT FP16 V tiles [64][256], swizzled rows
        // Lloyd-Max K: the FP16 K tile [64][256], swizzled (next to the V tiles: on a
        // 1024-byte boundary for wgmma)
        KH = VH + VT * KT * HD * 2,
        Q = KH + ((F::KBITS == 4) ? KT * HD * 2 : 0),
        QROW = (F::KBITS == 8) ? HD : 2 * HD,  // swizzled rows
        QSC = Q + QR * QROW,                   // fp32 [rows][4] (int8 K)
        LUT = QSC + ((F::KBITS == 8) ? QR * 16 : 0),
        KSF = LUT + ((F::KBITS == 4) ? 1024 : 0),  // the tile's K scales as fp32 [group][key] (WS: one per V tile)
        KSF_BYTES = KGS * KT * 4,
        RED = KSF + (WS ? VT : 1) * KSF_BYTES,
        // pair: row maxima / sums [pairs][2][32] fp32, probabilities [pairs][2][16][32] u32
        PBUF = RED + (AP_PAIR ? (AP_W / 2) * 2 * 32 * 4 : 0),
        // WS: mbarriers full[VT], vfree[VT] (per V tile), kfree[STAGES] (per stage), khfull[2],
        // khfree[2] (per half of the Lloyd-Max K tile), 8 bytes each
        BAR = PBUF + (AP_PAIR ? (AP_W / 2) * 2 * 16 * 32 * 4 : 0),
        TOTAL = BAR + (WS ? 128 : 0)
    };
};

// Byte offset of byte `b` in a shared row of at least 128 bytes: 16-byte chunk XOR the
// row's low three bits (conflict-free ldmatrix over 8 consecutive rows).
__device__ __forceinline__ int swz(int r, int b) { return ((((b >> 4) ^ (r & 7))) << 4) | (b & 15); }
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(dst)), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
__device__ __forceinline__ void mma_s8(int* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// d = a.b + (c, c, c, c): the first k-step of a sum that starts at the constant c
__device__ __forceinline__ void mma_s8_from(int* d, const uint32_t* a, uint32_t b0, uint32_t b1, int c) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "r"(c));
}
// 2^x (MUFU.EX2; -inf -> 0): the scores are already in the log2 domain
__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ void mma_f16_f32(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_f16_f16(uint32_t* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void ldsm_x4(uint32_t* r, const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t* r, const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_u32(p)));
}
// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` in wgmma's 128-byte-swizzled
// layout [block][row][128 B], blocks of `rows` rows: the chunk XOR the row's low three
// bits. Every wgmma operand here is one: the V tile, the FP16 K tile and the raw K codes
// ([64 or 128 dims][key]), the query rows ([dims][row]).
__device__ __forceinline__ int sw128(int rows, int block, int row, int chunk) {
    return block * rows * 128 + row * 128 + ((chunk ^ (row & 7)) << 4);
}
#if AP_WG
// A shared-memory operand's descriptor, 128-byte swizzle (base on a 1024-byte atom):
// SBO = 1024 (the next 8 rows); LBO = the next block along the major dimension for the
// MN-major V tile (8192), unused (1) for the K-major operands. Checked on the H200 in
// experiments/wgmma_micro.cu.
__device__ __forceinline__ uint64_t wg_desc(const void* p, uint32_t lbo) {
    return (uint64_t)((smem_u32(p) & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(1024 >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ uint64_t wg_v_desc(const void* p) { return wg_desc(p, 8192); }
__device__ __forceinline__ uint64_t wg_kmajor_desc(const void* p) { return wg_desc(p, 16); }
// acc[64 rows x 32 keys of the warpgroup] += Q (64 x 32 dims, smem) x K^T (32 keys x 32 dims, smem)
__device__ __forceinline__ void wg_qk_s8(int (&acc)[16], uint64_t qd, uint64_t kd) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {"
                 "{% for i in range(end=16) %}%{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}}, %16, %17, 1;\n"
                 : {% for i in range(end=16) %}"+r"(acc[{{ i }}]){% if not loop.last %}, {% endif %}{% endfor %}
                 : "l"(qd), "l"(kd));
}
// s[64 rows x 32 keys of the warpgroup] += Q (64 x 16 dims, FP16, smem) x K^T (32 keys x 16
// dims, the FP16 K tile), both K-major
__device__ __forceinline__ void wg_qk_f16(float (&s)[4][4], uint64_t qd, uint64_t kd) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {"
                 "{% for i in range(end=16) %}%{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}}, %16, %17, 1, 1, 1, 0, 0;\n"
                 : {% for j in range(end=4) %}{% for e in range(end=4) %}"+f"(s[{{ j }}][{{ e }}]){% if j * 4 + e < 15 %}, {% endif %}{% endfor %}{% endfor %}
                 : "l"(qd), "l"(kd));
}
template <int N> __device__ __forceinline__ void wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// generic-proxy stores to shared memory visible to wgmma's (async-proxy) reads
__device__ __forceinline__ void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// mbarriers (WS): arrivals release this thread's shared-memory writes (and, after a
// wgmma wait, its MMAs' reads); a completed wait acquires them. Phase parity: the n-th
// completion of a barrier is waited for with parity n & 1.
__device__ __forceinline__ void mbar_init(uint64_t* bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, int parity) {
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
    } while (!done);
}
// o[64 x 256 of the warpgroup] += P (A: the warp's 16 rows x 16 keys, mma.sync A order) x V
__device__ __forceinline__ void wg_pv_f32(float (&o)[32][4], const uint32_t (&a)[4], uint64_t desc) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
                 "{% for n in range(end=32) %}{% for e in range(end=4) %}%{{ n * 4 + e }}{% if n * 4 + e < 127 %}, {% endif %}{% endfor %}{% endfor %}}, "
                 "{%128, %129, %130, %131}, %132, 1, 1, 1, 1;\n"
                 : {% for n in range(end=32) %}{% for e in range(end=4) %}"+f"(o[{{ n }}][{{ e }}]){% if n * 4 + e < 127 %}, {% endif %}{% endfor %}{% endfor %}
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}
// h (FP16 accumulators, 2 per 8-dim n-tile: rows g, g + 8) = P x V (+ h when acc)
__device__ __forceinline__ void wg_pv_f16(uint32_t (&h)[64], const uint32_t (&a)[4], uint64_t desc, int acc) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 {"
                 "{% for i in range(end=64) %}%{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}}, "
                 "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
                 : {% for i in range(end=64) %}"+r"(h[{{ i }}]){% if not loop.last %}, {% endif %}{% endfor %}
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(acc));
}
#endif

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
    return r;
}
__device__ __forceinline__ uint32_t lop_and_xor(uint32_t x, uint32_t m, uint32_t c) {
    uint32_t r;   // (x & m) ^ c
    asm("lop3.b32 %0, %1, %2, %3, 0x6a;\n" : "=r"(r) : "r"(x), "r"(m), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t h2u(__half2 h) { return *reinterpret_cast<uint32_t*>(&h); }
__device__ __forceinline__ __half2 u2h(uint32_t u) { return *reinterpret_cast<__half2*>(&u); }
__device__ __forceinline__ uint32_t pack_h2(float a, float b) { return h2u(__floats2half2_rn(a, b)); }

// Dims (2i, 2i+1) of a V word: int8 (4 codes, i = 0, 1) or int4 (8 codes, i = 0..3),
// decoded to an FP16 pair times the group scale (FP16). WORD_XOR (int8): the same bits with
// the sign flip done once per word (one lop3 per two pairs instead of one per pair).
template <int VBITS, bool WORD_XOR = false> __device__ __forceinline__ uint32_t v_dims(uint32_t w, int i, __half2 s2) {
    __half2 v;
    if (VBITS == 8 && WORD_XOR) {
        // bytes 2i, 2i+1 (sign bit flipped: c + 128) under the exponent byte 0x64: 1024 + 128 +
        // c - 1152
        const uint32_t x = prmt(w ^ 0x80808080u, 0x64646464u, i == 0 ? 0x4140u : 0x4342u);
        v = __hsub2(u2h(x), u2h(0x64806480u));
    } else if (VBITS == 8) {
        const uint32_t x = prmt(w, 0u, i == 0 ? 0x3120u : 0x3322u);           // bytes 2i, 2i+1 -> halves
        v = __hsub2(u2h(lop_and_xor(x, 0x00FF00FFu, 0x64806480u)), u2h(0x64806480u));   // 1152 + c - 1152
    } else {
        const uint32_t x = prmt(w, w >> 4, 0x0400u + 0x0101u * (uint32_t)i);  // nibbles 2i, 2i+1 -> halves
        v = __hsub2(u2h(lop_and_xor(x, 0x000F000Fu, 0x64086408u)), u2h(0x64086408u));   // 1032 + c - 1032
    }
    return h2u(__hmul2(v, s2));
}

// Phase (0) of a key tile, all threads: the K scales as an fp32 table x log2(e) / 16
// (scores come out in the log2 domain), V (and Lloyd-Max K) decoded to FP16 tiles.
template <int FMT>
__device__ __forceinline__ void dequant_tile(const uint8_t* st, uint8_t* vh, uint8_t* kh, float* ksf, const uint32_t* lut)
{
    typedef Fmt<FMT> F;
    typedef ApLayout<FMT> L;
    {   // K scales x log2(e) / 16 (scores come out in the log2 domain), fp32 [group][key]: a
        // lane reads its keys' pair with one 8-byte load
        const __half* ksc = reinterpret_cast<const __half*>(st + L::P_KS);
        for (int i = threadIdx.x; i < KT * L::KGS; i += AP_THREADS)
            ksf[(i % L::KGS) * KT + i / L::KGS] = __half2float(ksc[i]) * LOG2E_16;
    }

    // (0) V tile -> FP16 x group scale, 8 dims (16 bytes) per item
    {
        const __half* vsc = reinterpret_cast<const __half*>(st + L::P_VS);
        // two items in flight: unrolled further, the loads of every item are hoisted next
        // to the 128 live O registers and ptxas spills
#pragma unroll 2
        for (int c = threadIdx.x; c < KT * HD / 8; c += AP_THREADS) {
            const int key = c / (HD / 8), d0 = (c % (HD / 8)) * 8;
            const __half s = vsc[key * L::VGS + d0 / F::VG];
            const __half2 s2 = __halves2half2(s, s);
            uint4 hv;
            if (F::VBITS == 8) {
                const uint2 w = *reinterpret_cast<const uint2*>(st + L::P_V + key * L::VCB + d0);
                hv.x = v_dims<8>(w.x, 0, s2); hv.y = v_dims<8>(w.x, 1, s2);
                hv.z = v_dims<8>(w.y, 0, s2); hv.w = v_dims<8>(w.y, 1, s2);
            } else {
                const uint32_t w = *reinterpret_cast<const uint32_t*>(st + L::P_V + key * L::VCB + d0 / 2);
                hv.x = v_dims<4>(w, 0, s2); hv.y = v_dims<4>(w, 1, s2);
                hv.z = v_dims<4>(w, 2, s2); hv.w = v_dims<4>(w, 3, s2);
            }
#if AP_WG
            // wgmma's MN-major layout: [64-dim block][key][128 B], chunk ^ (key & 7)
            *reinterpret_cast<uint4*>(vh + sw128(KT, d0 >> 6, key, (d0 & 63) >> 3)) = hv;
#else
            *reinterpret_cast<uint4*>(vh + key * (HD * 2) + swz(key, d0 * 2)) = hv;
#endif
        }

        if (F::KBITS == 4) {
            // K: levels (byte -> half2 table) x group RMS scale x log2(e) / 16, FP16
            const __half* ksc = reinterpret_cast<const __half*>(st + L::P_KS);
#pragma unroll 2
            for (int c = threadIdx.x; c < KT * HD / 8; c += AP_THREADS) {
                const int key = c / (HD / 8), d0 = (c % (HD / 8)) * 8;
                const __half ks = __float2half(__half2float(ksc[key * L::KGS + d0 / F::KG]) * LOG2E_16);
                const __half2 s2 = __halves2half2(ks, ks);
                const uint32_t w = *reinterpret_cast<const uint32_t*>(st + key * L::KCB + swz(key, d0 / 2));
                uint4 hk;
                hk.x = h2u(__hmul2(u2h(lut[w & 0xff]), s2));
                hk.y = h2u(__hmul2(u2h(lut[(w >> 8) & 0xff]), s2));
                hk.z = h2u(__hmul2(u2h(lut[(w >> 16) & 0xff]), s2));
                hk.w = h2u(__hmul2(u2h(lut[w >> 24]), s2));
#if AP_WG
                // wgmma's K-major layout: [64-dim block][key][128 B], chunk ^ (key & 7)
                *reinterpret_cast<uint4*>(kh + sw128(KT, d0 >> 6, key, (d0 & 63) >> 3)) = hk;
#else
                *reinterpret_cast<uint4*>(kh + key * (HD * 2) + swz(key, d0 * 2)) = hk;
#endif
            }
        }
    }
#if AP_WG
    fence_async_smem();   // the V (and K) tiles are read by wgmma (async proxy) after the barrier
#endif
}


#if AP_WG
// N contiguous 16-byte chunks, thread p's every AP_PT-th: a fixed trip count, so the
// addresses are one base plus immediates (a strided loop over c spent ~6 instructions a chunk)
template <int N>
__device__ __forceinline__ void ws_copy_chunks(uint8_t* dst, const uint8_t* src, int p)
{
    dst += p * 16;
    src += p * 16;
#pragma unroll
    for (int j = 0; j < N / AP_PT; ++j) cp_async16(dst + j * AP_PT * 16, src + j * AP_PT * 16);
    if (N % AP_PT != 0 && p < N % AP_PT) cp_async16(dst + N / AP_PT * AP_PT * 16, src + N / AP_PT * AP_PT * 16);
}
// The WS producer's share of a tile (thread p = 0 .. AP_PT - 1): page kt's copy into a
// stage (the K codes in wgmma's K-major layout), and the decode of a landed stage into a V
// tile and its K-scale table. Thread p always handles the same 16-byte column of a row
// (rows p / 16 + 8 j of K codes, keys p / 32 + 4 j of V), so its swizzled offsets are
// fixed but for the row step: no per-item index arithmetic (the generic dequant_tile
// spends more on that than on the decode), and batches of four loads in flight.
// LEAN: see prompt_body.
template <int FMT, bool LEAN>
__device__ __forceinline__ void ws_copy(uint8_t* st, const uint8_t* page, int p)
{
    typedef ApLayout<FMT, 1> L;
    if constexpr (Fmt<FMT>::KBITS == 8) {
        static_assert(L::KCB == 256 && AP_PT == 128, "K rows of 16 chunks, 8 rows per pass");
        // K codes: chunk x = p % 16 of rows p / 16 + 8 j (row & 7 fixed: one swizzle)
        const int x = p & 15, r = p >> 4;
        uint8_t* dst = st + sw128(KT, x >> 3, r, x & 7);
        const uint8_t* src = page + p * 16;
#pragma unroll
        for (int j = 0; j < KT / 8; ++j) cp_async16(dst + j * 8 * 128, src + j * 8 * L::KCB);
        if (LEAN) {   // V codes and both scales
            ws_copy_chunks<(L::PAGE_BYTES - L::P_V) / 16>(st + L::P_V, page + L::P_V, p);
        } else {
            for (int c = p; c < (L::PAGE_BYTES - L::P_V) / 16; c += AP_PT)
                cp_async16(st + L::P_V + c * 16, page + L::P_V + c * 16);
        }
    } else {   // Lloyd-Max K codes are decoded by the producer only: the page as it is
        ws_copy_chunks<L::PAGE_BYTES / 16>(st, page, p);
    }
}
template <int FMT, int B, bool LEAN>   // B: items per batch, their loads in flight together
__device__ __forceinline__ void ws_decode(const uint8_t* st, uint8_t* vt, float* ksf, int p)
{
    typedef Fmt<FMT> F;
    typedef ApLayout<FMT, 1> L;
    if (F::KBITS == 8) {   // K scales x log2(e) / 16, fp32 [group][key] (Lloyd-Max K: in its tile)
        const __half* ksc = reinterpret_cast<const __half*>(st + L::P_KS);
        static_assert(KT * L::KGS % AP_PT == 0, "whole passes over the K scales");
        if (LEAN) {
#pragma unroll
            for (int j = 0; j < KT * L::KGS / AP_PT; ++j) {
                const int i = p + j * AP_PT;
                ksf[(i % L::KGS) * KT + i / L::KGS] = __half2float(ksc[i]) * LOG2E_16;
            }
        } else {
#pragma unroll
            for (int i = p; i < KT * L::KGS; i += AP_PT) ksf[(i % L::KGS) * KT + i / L::KGS] = __half2float(ksc[i]) * LOG2E_16;
        }
    }
    // V: 8 dims d0 = 8 (p % 32) of keys p / 32 + 4 j; key & 7 = (p / 32) ^ 4 (j & 1)
    const int x = p & 31, k0 = p >> 5, d0 = x * 8;
    const uint8_t* src = st + L::P_V + k0 * L::VCB + d0 * F::VBITS / 8;
    const __half* sc = reinterpret_cast<const __half*>(st + L::P_VS) + k0 * L::VGS + d0 / F::VG;
    uint8_t* dst[2] = {vt + sw128(KT, x >> 3, k0, x & 7), vt + sw128(KT, x >> 3, k0 + 4, x & 7) - 4 * 128};
#pragma unroll
    for (int j0 = 0; j0 < KT / 4; j0 += B) {
        uint2 w[B];
        __half s[B];
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int j = j0 + b;
            if (F::VBITS == 8) w[b] = *reinterpret_cast<const uint2*>(src + j * 4 * L::VCB);
            else w[b].x = *reinterpret_cast<const uint32_t*>(src + j * 4 * L::VCB);
            s[b] = sc[j * 4 * L::VGS];
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int j = j0 + b;
            const __half2 s2 = __halves2half2(s[b], s[b]);
            uint4 hv;
            if (F::VBITS == 8) {
                hv.x = v_dims<8, LEAN>(w[b].x, 0, s2); hv.y = v_dims<8, LEAN>(w[b].x, 1, s2);
                hv.z = v_dims<8, LEAN>(w[b].y, 0, s2); hv.w = v_dims<8, LEAN>(w[b].y, 1, s2);
            } else {
                hv.x = v_dims<4>(w[b].x, 0, s2); hv.y = v_dims<4>(w[b].x, 1, s2);
                hv.z = v_dims<4>(w[b].x, 2, s2); hv.w = v_dims<4>(w[b].x, 3, s2);
            }
            *reinterpret_cast<uint4*>(dst[j & 1] + j * 4 * 128) = hv;
        }
    }
    fence_async_smem();   // the V tile is read by wgmma (async proxy) once `full` completes
}
// Lloyd-Max K of a landed stage, keys 32 h .. 32 h + 31, into the FP16 K tile: level
// (byte -> half2 table) x FP16(group scale x log2(e) / 16), as dequant_tile writes it.
// Thread p: 8 dims d0 = 8 (p % 32) of keys 32 h + p / 32 + 4 j (a warp reads one key row).
template <int FMT>
__device__ __forceinline__ void ws_decode_k(const uint8_t* st, uint8_t* kt, const uint32_t* lut, int h, int p)
{
    typedef Fmt<FMT> F;
    typedef ApLayout<FMT, 1> L;
    static_assert(F::KBITS == 4 && L::KCB == 128, "8 dims of 4-bit codes per 32-bit word");
    const int x = p & 31, d0 = x * 8, k0 = 32 * h + (p >> 5);
    const uint8_t* src = st + k0 * L::KCB + d0 / 2;
    const __half* sc = reinterpret_cast<const __half*>(st + L::P_KS) + k0 * L::KGS + d0 / F::KG;
    constexpr int B = 4;   // items per batch: their loads in flight together
#pragma unroll
    for (int j0 = 0; j0 < 8; j0 += B) {
        uint32_t w[B];
        __half s[B];
#pragma unroll
        for (int b = 0; b < B; ++b) {
            w[b] = *reinterpret_cast<const uint32_t*>(src + (j0 + b) * 4 * L::KCB);
            s[b] = sc[(j0 + b) * 4 * L::KGS];
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int key = k0 + 4 * (j0 + b);
            const __half ks = __float2half(__half2float(s[b]) * LOG2E_16);
            const __half2 s2 = __halves2half2(ks, ks);
            uint4 hk;
            hk.x = h2u(__hmul2(u2h(lut[w[b] & 0xff]), s2));
            hk.y = h2u(__hmul2(u2h(lut[(w[b] >> 8) & 0xff]), s2));
            hk.z = h2u(__hmul2(u2h(lut[(w[b] >> 16) & 0xff]), s2));
            hk.w = h2u(__hmul2(u2h(lut[w[b] >> 24]), s2));
            *reinterpret_cast<uint4*>(kt + sw128(KT, d0 >> 6, key, (d0 & 63) >> 3)) = hk;
        }
    }
    fence_async_smem();   // the K tile is read by wgmma (async proxy) once `khfull` completes
}
#endif

// The CTA's row tile and head (query head, or KV head with PackGQA). Blocks start in
// linear order (x fastest), so the linear index of (x, y) walks the row tiles longest
// first across every head: longest-processing-time order over the whole grid. (Tile =
// x alone ran each head's tiles longest to shortest, one head after the other; the 16K
// prompt's last wave then waited on the last head's long tiles.)
struct TileHead { int tile, head; };
__device__ __forceinline__ TileHead cta_tile_head() {
    const int lin = blockIdx.y * gridDim.x + blockIdx.x;
    return {(int)gridDim.x - 1 - lin / (int)gridDim.y, lin % (int)gridDim.y};
}

__device__ __forceinline__ void pair_sync(int pair) {   // the two warps of a pair
    asm volatile("bar.sync %0, 64;\n" ::"r"(1 + pair) : "memory");
}

// The fast kernel's key loop (pair = 1; header). Warp w: pair w / 2 owns CTA rows
// 32 (w / 2) .. + 31 (m-tiles mt = 0, 1); kh = w % 2 is its key half in Q.K and its dim
// half in P.V.
template <int FMT, int PACK, int PV16, class Issue, class RowToken>
__device__ __forceinline__ void pair_loop(Issue issue, RowToken row_token, int kt0,
                                          int tiles, int first_masked, int rows_total, int row0, int pos,
                                          int q_heads, int chunk, int split, int splits,
                                          __nv_bfloat16* __restrict__ out, float* __restrict__ ws_o,
                                          float2* __restrict__ ws_ml)
{
    typedef Fmt<FMT> F;
    typedef ApLayout<FMT> L;
    extern __shared__ __align__(16) uint8_t smem[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, t = lane & 3;
    const int pr = warp >> 1, kh = warp & 1;
    const int wr = pr * 32;
    uint8_t* vh = smem + L::VH;
    uint8_t* khs = smem + L::KH;
    const uint8_t* qs = smem + L::Q;
    const float* qsc = reinterpret_cast<const float*>(smem + L::QSC);
    const uint32_t* lut = reinterpret_cast<const uint32_t*>(smem + L::LUT);
    float* ksf = reinterpret_cast<float*>(smem + L::KSF);
    float* red = reinterpret_cast<float*>(smem + L::RED) + pr * 64;            // [kh][32 rows]
    uint32_t* pbuf = reinterpret_cast<uint32_t*>(smem + L::PBUF) + pr * 1024;  // [kh][16][32 lanes]

    // ldmatrix lane offsets (see prompt_body): Q rows of m-tile 0, the key half's K rows,
    // V columns of the dim half
    const int r7 = lane & 7, hi = lane >> 4, b1 = (lane >> 3) & 1;
    int q_off[4], k_off[4], v_off[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        q_off[i] = (wr + r7 + 8 * b1) * L::QROW + (((2 * i + hi) ^ r7) << 4);
        k_off[i] = (kh * 32 + r7 + 8 * hi) * (F::KBITS == 8 ? L::KCB : 2 * HD) + (((2 * i + b1) ^ r7) << 4);
        v_off[i] = (r7 + 8 * b1) * (HD * 2) + (((2 * i + hi) ^ r7) << 4) + kh * 256;
    }
    // the lane's rows: (mt, h) = CTA row wr + 16 mt + g + 8 h; last visible key or -1
    int lim[2][2];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = wr + 16 * mt + g + 8 * h;
            lim[mt][h] = (row0 + r < rows_total) ? pos + row_token(r) : -1;
        }
    const uint32_t ident = (g == 2 * t ? 0x3C00u : 0u) | (g == 2 * t + 1 ? 0x3C000000u : 0u);
    float o[2][16][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int n = 0; n < 16; ++n)
#pragma unroll
            for (int e = 0; e < 4; ++e) o[mt][n][e] = 0.f;
    float m[2][2], l[2][2];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) { m[mt][h] = NEG_INF; l[mt][h] = 0.f; }

    for (int kt = kt0; kt < tiles; ++kt) {
        cp_wait<0>();
        __syncthreads();   // page kt landed; every warp done with tile kt - 1 (tiles, exchange buffers)
        if (AP_ST == 2) {
            if (kt + 1 < tiles) issue(kt + 1);
            cp_commit();
        }
        const uint8_t* st = smem + (kt % AP_ST) * L::STAGE;
        dequant_tile<FMT>(st, vh, khs, ksf, lut);
        __syncthreads();

        // (1) S = Q K^T: rows of m-tiles 0, 1 x the 32 keys of half kh (n-tile j: keys 32 kh + 8 j)
        float s[2][4][4];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) s[mt][j][e] = 0.f;
        if (F::KBITS == 8) {
#pragma unroll 1
            for (int gp = 0; gp < 2; ++gp)
#pragma unroll
            for (int gl = 0; gl < 2; ++gl) {
                const int grp = 2 * gp + gl;
                // per pair of key n-tiles: their K fragments (8 registers) serve both m-tiles,
                // 8 accumulators live (all four n-tiles of both m-tiles at once spilled)
#pragma unroll
                for (int jp = 0; jp < 2; ++jp) {
                    uint32_t bf[2][4];
#pragma unroll
                    for (int ks = 0; ks < 2; ++ks) ldsm_x4(bf[ks], st + k_off[gl * 2 + ks] + jp * 16 * L::KCB + gp * 128);
                    const int k0 = kh * 32 + jp * 16 + 2 * t;
                    const float2 ks0 = *reinterpret_cast<const float2*>(ksf + grp * KT + k0);
                    const float2 ks1 = *reinterpret_cast<const float2*>(ksf + grp * KT + k0 + 8);
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt) {
                        int acc[2][4];
#pragma unroll
                        for (int ks = 0; ks < 2; ++ks) {
                            uint32_t af[4];
                            ldsm_x4(af, qs + q_off[gl * 2 + ks] + mt * 16 * L::QROW + gp * 128);
                            if (ks == 0) {
                                mma_s8_from(acc[0], af, bf[ks][0], bf[ks][1], 0x4B400000);
                                mma_s8_from(acc[1], af, bf[ks][2], bf[ks][3], 0x4B400000);
                            } else {
                                mma_s8(acc[0], af, bf[ks][0], bf[ks][1]);
                                mma_s8(acc[1], af, bf[ks][2], bf[ks][3]);
                            }
                        }
                        const float qa = qsc[(wr + 16 * mt + g) * 4 + grp], qb = qsc[(wr + 16 * mt + g + 8) * 4 + grp];
#pragma unroll
                        for (int jj = 0; jj < 2; ++jj) {
                            const float2 ks = jj ? ks1 : ks0;
                            float* sj = s[mt][2 * jp + jj];
                            sj[0] = fmaf(__int_as_float(acc[jj][0]) - MAGIC, qa * ks.x, sj[0]);
                            sj[1] = fmaf(__int_as_float(acc[jj][1]) - MAGIC, qa * ks.y, sj[1]);
                            sj[2] = fmaf(__int_as_float(acc[jj][2]) - MAGIC, qb * ks.x, sj[2]);
                            sj[3] = fmaf(__int_as_float(acc[jj][3]) - MAGIC, qb * ks.y, sj[3]);
                        }
                    }
                }
            }
        } else {
#pragma unroll 1
            for (int kq = 0; kq < 4; ++kq)
#pragma unroll
            for (int k4 = 0; k4 < 4; ++k4) {
                uint32_t bf[2][4];
#pragma unroll
                for (int jp = 0; jp < 2; ++jp) ldsm_x4(bf[jp], khs + k_off[k4] + jp * 16 * (HD * 2) + kq * 128);
#pragma unroll
                for (int mt = 0; mt < 2; ++mt) {
                    uint32_t af[4];
                    ldsm_x4(af, qs + q_off[k4] + mt * 16 * L::QROW + kq * 128);
#pragma unroll
                    for (int jp = 0; jp < 2; ++jp) {
                        mma_f16_f32(s[mt][2 * jp], af, bf[jp][0], bf[jp][1]);
                        mma_f16_f32(s[mt][2 * jp + 1], af, bf[jp][2], bf[jp][3]);
                    }
                }
            }
        }
        if (AP_ST == 1) {   // one stage: the refill waits for every warp's Q.K
            __syncthreads();
            if (kt + 1 < tiles) issue(kt + 1);
            cp_commit();
        }

        // (2) online softmax over the pair's 64 keys: partial row maxima over this warp's 32
        const bool masked = kt >= first_masked;
        float mx[2][2];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
            mx[mt][0] = NEG_INF; mx[mt][1] = NEG_INF;
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    float v = s[mt][j][e];
                    if (masked) {
                        const int key = kt * KT + kh * 32 + 8 * j + 2 * t + (e & 1);
                        if (key > lim[mt][e >> 1]) v = NEG_INF;
                    }
                    s[mt][j][e] = v;
                    mx[mt][e >> 1] = fmaxf(mx[mt][e >> 1], v);
                }
        }
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
#pragma unroll
                for (int sh = 1; sh < 4; sh <<= 1) mx[mt][h] = fmaxf(mx[mt][h], __shfl_xor_sync(0xffffffffu, mx[mt][h], sh));
                if (t == 0) red[kh * 32 + 16 * mt + g + 8 * h] = mx[mt][h];
            }
        pair_sync(pr);
        bool grew = false;
        float base[2][2], al[2][2];
#pragma unroll
        for (int mt = 0; mt < 2; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float other = red[(1 - kh) * 32 + 16 * mt + g + 8 * h];
                const float mn = fmaxf(m[mt][h], fmaxf(mx[mt][h], other));
                grew |= mn > m[mt][h];
                base[mt][h] = mn == NEG_INF ? 0.f : mn;
                al[mt][h] = ex2(m[mt][h] - base[mt][h]);
                m[mt][h] = mn;
            }
        grew = __any_sync(0xffffffffu, grew);
        // probabilities (FP16) as P.V A fragments, to the exchange buffer: k-step c (16 keys
        // of this half) of m-tile mt = registers (mt * 2 + c) * 4 .. + 3
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
            float sa = 0.f, sb = 0.f;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const __half2 pa = __floats2half2_rn(ex2(s[mt][j][0] - base[mt][0]), ex2(s[mt][j][1] - base[mt][0]));
                const __half2 pb = __floats2half2_rn(ex2(s[mt][j][2] - base[mt][1]), ex2(s[mt][j][3] - base[mt][1]));
                const float2 fa = __half22float2(pa), fb = __half22float2(pb);
                sa += fa.x + fa.y; sb += fb.x + fb.y;
                // j = 2 c + jj: A regs {row g: jj 0 -> a0, 1 -> a2; row g + 8: a1, a3}
                const int base_reg = (mt * 2 + (j >> 1)) * 4 + (j & 1) * 2;
                pbuf[(kh * 16 + base_reg) * 32 + lane] = h2u(pa);
                pbuf[(kh * 16 + base_reg + 1) * 32 + lane] = h2u(pb);
            }
            l[mt][0] = l[mt][0] * al[mt][0] + sa;
            l[mt][1] = l[mt][1] * al[mt][1] + sb;
        }
        if (grew) {
#pragma unroll
            for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                for (int n = 0; n < 16; ++n) {
                    o[mt][n][0] *= al[mt][0]; o[mt][n][1] *= al[mt][0];
                    o[mt][n][2] *= al[mt][1]; o[mt][n][3] *= al[mt][1];
                }
        }
        pair_sync(pr);

        // (3) O[rows][dims of half kh] += P V over the 64 keys: key half hf's probabilities
        // (either warp's), k-step c = keys 32 hf + 16 c ..; PV16: FP16 accumulators over the
        // half's 32 keys, folded into FP32 by an identity MMA
#pragma unroll
        for (int hf = 0; hf < 2; ++hf) {
            uint32_t a[2][2][4];                   // [c][mt][A register]
#pragma unroll
            for (int c = 0; c < 2; ++c)
#pragma unroll
                for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) a[c][mt][e] = pbuf[(hf * 16 + (mt * 2 + c) * 4 + e) * 32 + lane];
#pragma unroll
            for (int dq = 0; dq < 8; ++dq) {        // 16 dims (2 n-tiles) at a time
                uint32_t hacc[2][2][2];
                if (PV16) {
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt) hacc[mt][0][0] = hacc[mt][0][1] = hacc[mt][1][0] = hacc[mt][1][1] = 0u;
                }
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    uint32_t b[4];
                    ldsm_x4_t(b, vh + v_off[dq & 3] + (hf * 32 + c * 16) * (HD * 2) + (dq >> 2) * 128);
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt) {
                        if (PV16) {
                            mma_f16_f16(hacc[mt][0], a[c][mt], b[0], b[1]);
                            mma_f16_f16(hacc[mt][1], a[c][mt], b[2], b[3]);
                        } else {
                            mma_f16_f32(o[mt][2 * dq], a[c][mt], b[0], b[1]);
                            mma_f16_f32(o[mt][2 * dq + 1], a[c][mt], b[2], b[3]);
                        }
                    }
                }
                if (PV16) {
#pragma unroll
                    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                        for (int n = 0; n < 2; ++n) {
                            const uint32_t fa[4] = {hacc[mt][n][0], hacc[mt][n][1], 0u, 0u};
                            mma_f16_f32(o[mt][2 * dq + n], fa, ident, 0u);
                        }
                }
            }
        }
    }
    cp_wait<0>();

    // row sums: the lane's partial over its keys, the quad's, then the partner's
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
            for (int sh = 1; sh < 4; sh <<= 1) l[mt][h] += __shfl_xor_sync(0xffffffffu, l[mt][h], sh);
        }
    __syncthreads();   // every warp is past its last exchange
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            if (t == 0) red[kh * 32 + 16 * mt + g + 8 * h] = l[mt][h];
    pair_sync(pr);
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) l[mt][h] += red[(1 - kh) * 32 + 16 * mt + g + 8 * h];

    const size_t rows_out = (size_t)chunk * q_heads;
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if (lim[mt][h] < 0) continue;
            // the row's query head from the grid (not row_head: its captures would stay live
            // through the key loop, and the packed form spilled)
            const TileHead th = cta_tile_head();
            const int crow = th.tile * AP_ROWS + wr + 16 * mt + g + 8 * h;
            const int qh = PACK ? th.head * GQA + crow % GQA : th.head;
            const size_t r = (size_t)(lim[mt][h] - pos) * q_heads + qh;
            const int d0 = kh * 128 + 2 * t;
            if (splits > 1) {
                float* dst = ws_o + ((size_t)split * rows_out + r) * HD + d0;
#pragma unroll
                for (int n = 0; n < 16; ++n)
                    *reinterpret_cast<float2*>(dst + 8 * n) = make_float2(o[mt][n][2 * h], o[mt][n][2 * h + 1]);
                if (t == 0 && kh == 0) ws_ml[split * rows_out + r] = make_float2(m[mt][h], l[mt][h]);
            } else {
                const float inv = l[mt][h] > 0.f ? 1.f / l[mt][h] : 0.f;
                __nv_bfloat16* dst = out + r * HD + d0;
#pragma unroll
                for (int n = 0; n < 16; ++n)
                    *reinterpret_cast<__nv_bfloat162*>(dst + 8 * n) =
                        __floats2bfloat162_rn(o[mt][n][2 * h] * inv, o[mt][n][2 * h + 1] * inv);
            }
        }
}

// Prologue: query row r of the CTA, 8 elements per lane of the warp: rotated for rk8v4 /
// rk4v4 (f32 butterflies h = 1, 2, 4 within a lane, 8 .. 128 across lanes, then x 1/16),
// int8 per 64-group (scale absmax / 127, code rint(x * 127 / absmax), fp32) or FP16, into
// the query rows (WGK / WGK16: wgmma's layout).
template <int FMT, bool WGK, bool WGK16, int QR = AP_ROWS>
__device__ __forceinline__ void convert_q_row(uint8_t* qs, float* qsc, int r, int lane, const uint4& raw)
{
    typedef Fmt<FMT> F;
    typedef ApLayout<FMT> L;
    float x[8];
    {
        const __nv_bfloat16* b = reinterpret_cast<const __nv_bfloat16*>(&raw);
#pragma unroll
        for (int e = 0; e < 8; ++e) x[e] = __bfloat162float(b[e]);
    }
    if (F::ROT) {
#pragma unroll
        for (int h = 1; h < 8; h <<= 1)
#pragma unroll
            for (int e = 0; e < 8; ++e)
                if (!(e & h)) { float a = x[e], c = x[e + h]; x[e] = a + c; x[e + h] = a - c; }
#pragma unroll
        for (int m = 1; m < 32; m <<= 1) {
            const bool upper = lane & m;
#pragma unroll
            for (int e = 0; e < 8; ++e) {
                float o = __shfl_xor_sync(0xffffffffu, x[e], m);
                x[e] = upper ? o - x[e] : x[e] + o;
            }
        }
#pragma unroll
        for (int e = 0; e < 8; ++e) x[e] *= 0.0625f;
    }
    if (F::KBITS == 8) {
        float a = 0.f;
#pragma unroll
        for (int e = 0; e < 8; ++e) a = fmaxf(a, fabsf(x[e]));
#pragma unroll
        for (int m = 1; m < 8; m <<= 1) a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, m));
        const float sc = a / 127.f, inv = a > 0.f ? 127.f / a : 0.f;
        uint32_t w[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            uint32_t v = 0;
#pragma unroll
            for (int e = 0; e < 4; ++e) v |= ((uint32_t)(int)rintf(x[h * 4 + e] * inv) & 0xffu) << (8 * e);
            w[h] = v;
        }
        if (WGK)   // [128-dim half][row][128 B], chunk ^ (row & 7)
            *reinterpret_cast<uint2*>(qs + sw128(QR, lane >> 4, r, (lane >> 1) & 7) + (lane & 1) * 8) = make_uint2(w[0], w[1]);
        else
            *reinterpret_cast<uint2*>(qs + r * L::QROW + swz(r, lane * 8)) = make_uint2(w[0], w[1]);
        if ((lane & 7) == 0) qsc[r * 4 + (lane >> 3)] = sc;
    } else {
        uint4 h;
        h.x = pack_h2(x[0], x[1]); h.y = pack_h2(x[2], x[3]);
        h.z = pack_h2(x[4], x[5]); h.w = pack_h2(x[6], x[7]);
        if (WGK16)   // [64-dim block][row][128 B], chunk ^ (row & 7)
            *reinterpret_cast<uint4*>(qs + sw128(QR, lane >> 3, r, lane & 7)) = h;
        else
            *reinterpret_cast<uint4*>(qs + r * L::QROW + swz(r, lane * 16)) = h;
    }
}

// DEC = 1 (decode columns, attn_i8_small's warpgroup schedule): PACK rows of one KV head
// (grid y) and one query tile (grid z: the caller offsets q and pos), the key tiles of
// split blockIdx.x ([x, x + 1) * keys_per_split keys); the two consumer warpgroups hold the
// same 64 rows and take alternate key tiles (with the producer; otherwise both take every
// tile and warpgroup 1's partial is empty), each writing its own split partial in
// attn_i8_small's workspace layout (2 partials per CTA), merged by its reduce.
template <int FMT, int PACK, int PV16, int DEC = 0>
__device__ __forceinline__ void prompt_body(const uint8_t* __restrict__ pool, const int* __restrict__ page_table,
                                            const __nv_bfloat16* __restrict__ q, __nv_bfloat16* __restrict__ out,
                                            int pos, int chunk, int kv_heads,
                                            float* __restrict__ ws_o, float2* __restrict__ ws_ml,
                                            int keys_per_split = 0)
{
    static_assert(!DEC || PACK, "decode columns are packed rows");
    typedef Fmt<FMT> F;
    constexpr bool WS = Ws<FMT, PV16>::ON;
    typedef ApLayout<FMT, WS, DEC> L;
    // WS: V tiles handed round (tile i uses V tile i % NV); consumer threads per hand-back;
    // the warpgroups' ping-pong at Q.K (both take every tile: not in DEC)
    constexpr int NV = L::VT, NS = L::STAGES;
    static_assert(!WS || (NS >= 3 && 2 * NV + NS + 4 <= 16), "a ring of 3+ pages; the mbarriers in 128 bytes");
    constexpr int CONSUMERS = DEC ? AP_THREADS / 2 : AP_THREADS;
    // The producer's lean code (fixed-trip copies and K-scale table, the int8 V decode's XOR
    // per word, the next page's index loaded ahead): 9-12 % faster decode columns at 64K and
    // 262K, and 6 % faster prompts for rk4v4; the prompt's int8-K entries measured 4 %
    // slower with it (int8 16K, docs/results/h200-2026-12-02e call 2) and keep the old code.
    constexpr bool LEAN = DEC || F::KBITS == 4;
    constexpr bool PP = WS && !DEC;
    auto vbuf = [](int i) { return NV == 2 ? (i & 1) : i % NV; };
    auto vpar = [](int i) { return NV == 2 ? ((i >> 1) & 1) : (i / NV) & 1; };
    if (DEC) NINFER_PDL_WAIT();   // the append kernel ahead writes the newest keys
    // Q.K as wgmma on the raw int8 K codes (int8, rk8v4): Q and K rows in wgmma's layout.
    // Not with PV16: its FP16 accumulators next to the second accumulator set spill.
    constexpr bool WGK = AP_WG && F::KBITS == 8 && !PV16;
    // Q.K as FP16 wgmma on the decoded K tile (rk4v4): FP16 Q rows in wgmma's layout
    constexpr bool WGK16 = AP_WG && F::KBITS == 4;
    constexpr int NJ = 4;                            // key n-tiles per Q.K pass (a half tile)
    extern __shared__ __align__(16) uint8_t smem[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = lane >> 2, t = lane & 3;
    const int q_heads = kv_heads * GQA;
    const TileHead th = DEC ? TileHead{0, (int)blockIdx.y} : cta_tile_head();
    const int tile = th.tile;                           // longest first
    const int head = th.head;                           // query head, or KV head (PACK)
    const int kvh = PACK ? head : head / GQA;
    const int rows_total = PACK ? chunk * GQA : chunk;
    const int row0 = tile * AP_ROWS;
    // token and query head of CTA row r (rows past the chunk: token >= chunk)
    auto row_token = [&](int r) { return PACK ? (row0 + r) / GQA : row0 + r; };
    auto row_head = [&](int r) { return PACK ? kvh * GQA + (row0 + r) % GQA : head; };
    const int last_row = min(rows_total, row0 + L::QR) - 1;
    const int all_tiles = (pos + row_token(last_row - row0) + KT) / KT;   // key tiles up to the last row's key
    // Split-KV (grid z): split z takes key tiles [kt0, tiles) of the row tile's; partials
    // (unnormalized O, max, sum) go to the workspace for {{ entry }}_reduce
    const int splits = gridDim.z, split = blockIdx.z;
    const int kt0 = DEC ? (int)blockIdx.x * keys_per_split / KT : (int)((long long)split * all_tiles / splits);
    const int tiles = DEC ? min(((int)blockIdx.x + 1) * keys_per_split / KT, all_tiles)
                          : (int)((long long)(split + 1) * all_tiles / splits);
    const int first_masked = (pos + row_token(0)) / KT;                // tiles from here need the causal mask

    uint8_t* vh = smem + L::VH;
    uint8_t* kh = smem + L::KH;
    uint8_t* qs = smem + L::Q;
    float* qsc = reinterpret_cast<float*>(smem + L::QSC);
    uint32_t* lut = reinterpret_cast<uint32_t*>(smem + L::LUT);
    float* ksf = reinterpret_cast<float*>(smem + L::KSF);

    auto page_at = [&](int page) { return pool + ((size_t)page * kv_heads + kvh) * L::PAGE_BYTES; };
    auto page_of = [&](int kt) { return page_at(page_table[kt]); };
    auto issue = [&](int kt) {
        uint8_t* st = smem + (kt % AP_ST) * L::STAGE;
        const uint8_t* page = page_of(kt);
        constexpr int KC = L::KCB / 16;
        for (int c = threadIdx.x; c < KT * KC; c += AP_THREADS) {
            const int r = c / KC, x = c % KC;
            if (WGK)   // wgmma's K-major layout: [128-dim half][key][128 B], chunk ^ (key & 7)
                cp_async16(st + sw128(KT, x >> 3, r, x & 7), page + c * 16);
            else
                cp_async16(st + r * L::KCB + swz(r, x * 16), page + c * 16);
        }
        for (int c = threadIdx.x; c < (L::PAGE_BYTES - L::P_V) / 16; c += AP_THREADS)
            cp_async16(st + L::P_V + c * 16, page + L::P_V + c * 16);
    };
#if AP_WG
    if (!AP_PAIR && threadIdx.x == 0) {
        uint32_t dyn;
        asm("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(dyn));
        // the base on a swizzle atom, and the host's size (launch::smem_bytes) this layout's
        if ((smem_u32(vh) & 1023u) || dyn < (uint32_t)L::TOTAL) __trap();
    }
#endif
    // WS: tile kt0 + i uses stage i % NS and V tile (with its K scales) i % NV
    uint64_t* bars = reinterpret_cast<uint64_t*>(smem + L::BAR);
    uint64_t* full = bars;          // V tile b decoded, its page's K codes landed (every producer thread)
    uint64_t* vfree = bars + NV;    // V tile b's P.V done (every consumer thread of the tile)
    uint64_t* kfree = bars + 2 * NV;   // stage s's Q.K done (every consumer thread of the tile; int8 K)
    uint64_t* khfull = kfree + NS;  // Lloyd-Max K tile half h decoded (every producer thread)
    uint64_t* khfree = khfull + 2;  // K tile half h's Q.K done (every consumer thread of the tile)
    if (F::KBITS == 4) {
        // byte -> (level[low nibble], level[high nibble]); level[u] = -level[15 - u]
        // FP16 levels of codes 8..15, four per 64-bit word (no local array: no stack frame).
        // Before the WS split: the producer decodes K with it.
        auto level = [](int c) -> uint32_t {
            const unsigned long long w = c < 4 ? 0x3b8a39413635301cull : 0x417740233e793d06ull;
            return (uint32_t)(w >> (16 * (c & 3))) & 0xffffu;
        };
        for (int b = threadIdx.x; b < 256; b += AP_THREADS) {
            const int lo = b & 15, hi = b >> 4;
            const uint32_t l = lo >= 8 ? level(lo - 8) : (level(7 - lo) | 0x8000u);
            const uint32_t h = hi >= 8 ? level(hi - 8) : (level(7 - hi) | 0x8000u);
            lut[b] = l | (h << 16);
        }
    }
#if AP_WG
    if constexpr (WS) {
        if (threadIdx.x == 0) {
            for (int b = 0; b < NV; ++b) { mbar_init(full + b, AP_PT); mbar_init(vfree + b, CONSUMERS); }
            for (int b = 0; b < NS; ++b) mbar_init(kfree + b, CONSUMERS);
            for (int b = 0; b < 2; ++b) { mbar_init(khfull + b, AP_PT); mbar_init(khfree + b, CONSUMERS); }
        }
        __syncthreads();   // the only CTA barrier of a WS launch: the producer leaves here
        if (warp >= AP_W) {
            asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"((int)WsRegs<DEC>::PRODUCER) : "memory");
            const int ptid = threadIdx.x - AP_THREADS;
            // Producer: pages i + 1 .. i + NS - 1 in flight while tile i is decoded; V tile
            // i % NV is refilled once the consumers' P.V of tile i - NV is done, stage
            // (i + NS - 1) % NS once their Q.K of tile i - 1 is (int8 K: wgmma reads the
            // stage's codes), and (Lloyd-Max K) the K tile's half h once their Q.K of tile
            // i - 1's half h is.
            for (int j = 0; j < NS - 1; ++j) {
                if (kt0 + j < tiles) ws_copy<FMT, LEAN>(smem + j * L::STAGE, page_of(kt0 + j), ptid);
                cp_commit();
            }
            for (int kt = kt0; kt < tiles; ++kt) {
                const int i = kt - kt0;
                // LEAN: the page this iteration copies, loaded before the decode that hides
                // its latency (an L2 round trip the copy would otherwise wait for)
                const int next_page = LEAN && kt + NS - 1 < tiles ? page_table[kt + NS - 1] : 0;
                cp_wait<NS - 2>();     // this thread's part of page kt
                fence_async_smem();    // its K codes are read by wgmma
                asm volatile("bar.sync 2, %0;\n" ::"n"(AP_PT) : "memory");   // every producer thread's part
                if (i >= NV) mbar_wait(vfree + vbuf(i), vpar(i) ^ 1);
                ws_decode<FMT, WsRegs<DEC>::DECODE_BATCH, LEAN>(smem + (i % NS) * L::STAGE, vh + vbuf(i) * (KT * HD * 2),
                                                                ksf + vbuf(i) * (L::KSF_BYTES / 4), ptid);
                mbar_arrive(full + vbuf(i));
                if constexpr (F::KBITS == 4) {
                    for (int h = 0; h < 2; ++h) {
                        if (i >= 1) mbar_wait(khfree + h, (i - 1) & 1);
                        ws_decode_k<FMT>(smem + (i % NS) * L::STAGE, kh, lut, h, ptid);
                        mbar_arrive(khfull + h);
                    }
                }
                if (kt + NS - 1 < tiles) {
                    if (F::KBITS == 8 && i >= 1) mbar_wait(kfree + (i + NS - 1) % NS, ((i - 1) / NS) & 1);
                    ws_copy<FMT, LEAN>(smem + ((i + NS - 1) % NS) * L::STAGE,
                                       LEAN ? page_at(next_page) : page_of(kt + NS - 1), ptid);
                }
                cp_commit();
            }
            cp_wait<0>();
            return;
        }
    } else
#endif
    {
        if (kt0 < tiles) issue(kt0);
        cp_commit();
    }
#if AP_WG
    if (WS) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"((int)WsRegs<DEC>::CONSUMER) : "memory");
#endif
    // the consumers' barrier: the CTA's, or (WS) the 8 consumer warps'
    auto consumer_sync = [&]() {
        if (WS) asm volatile("bar.sync 1, %0;\n" ::"n"(AP_THREADS) : "memory");
        else __syncthreads();
    };

    // Prologue: the query rows (convert_q_row), one warp per row.
    // The row loads are the prologue's latency (one DRAM round trip each, 16 per warp;
    // ~3 % of a 16K prompt's int8 CTAs of 129 tiles when serialized). The WS entries load
    // ahead: int8 every row of the warp before converting any; the rotated formats, whose
    // conversion is long (the butterflies), two rows ahead with the loop rolled (rk8v4
    // unrolled 16 times measured 1-2 % slower on the chunks). The other entries (PV16, the
    // mma.sync builds) keep the loop they had, one row at a time and zero rows converted
    // apart: written otherwise, ptxas gave rk4v4's key loop (before it had a producer)
    // ~3 % more instructions.
    constexpr int QRPW = L::QR / AP_W;     // query rows per warp
    auto load_row = [&](int r) {
        uint4 u = make_uint4(0u, 0u, 0u, 0u);   // rows past the chunk: BF16 zeros
        if (row0 + r < rows_total)
            u = *reinterpret_cast<const uint4*>(q + ((size_t)row_token(r) * q_heads + row_head(r)) * HD + lane * 8);
        return u;
    };
    if (!WS) {
        for (int r = warp; r < L::QR; r += AP_W) {
            if (row0 + r < rows_total) convert_q_row<FMT, WGK, WGK16, L::QR>(qs, qsc, r, lane, load_row(r));
            else convert_q_row<FMT, WGK, WGK16, L::QR>(qs, qsc, r, lane, make_uint4(0u, 0u, 0u, 0u));
        }
    } else if (F::ROT) {
        uint4 next = load_row(warp), after = load_row(warp + AP_W);
#pragma unroll 1
        for (int i = 0; i < QRPW; ++i) {
            const uint4 raw = next;
            next = after;
            if (i + 2 < QRPW) after = load_row(warp + (i + 2) * AP_W);
            convert_q_row<FMT, WGK, WGK16, L::QR>(qs, qsc, warp + i * AP_W, lane, raw);
        }
    } else {
        uint4 raw[QRPW];
#pragma unroll
        for (int i = 0; i < QRPW; ++i) raw[i] = load_row(warp + i * AP_W);
#pragma unroll
        for (int i = 0; i < QRPW; ++i) convert_q_row<FMT, WGK, WGK16, L::QR>(qs, qsc, warp + i * AP_W, lane, raw[i]);
    }
#if AP_WG
    fence_async_smem();   // the query rows are read by wgmma (async proxy)
#endif
    consumer_sync();

    if (AP_PAIR) {
        pair_loop<FMT, PACK, PV16>(issue, row_token, kt0, tiles, first_masked, rows_total, row0,
                                   pos, q_heads, chunk, split, splits, out, ws_o, ws_ml);
        return;
    }

#if AP_WG
    static_assert(L::STAGE % 1024 == 0 && L::VH % 1024 == 0 && L::KH % 1024 == 0 && L::Q % 1024 == 0,
                  "wgmma's operands need 1024-byte alignment (128-byte swizzle atoms)");
    static_assert(AP_ST == 2, "the wgmma loop decodes tile kt + 1 while tile kt's copy of kt + 2 is in flight");
    static_assert(!WS || AP_VT == 2, "WS hands two V tiles back and forth (DEC: three)");
#endif
    const int wr = DEC ? (warp & 3) * 16 : warp * 16;   // the warp's first CTA row
    // Per-lane byte offsets of the ldmatrix rows. A swizzled address is not linear in the
    // tile indices, so the compiler cannot fold it into one base plus immediates; with the
    // lane's part spelled out (r7 = row & 7 is the lane's for every tile), each load is
    // base + constant, and no per-load address stays live across the loop.
    const int r7 = lane & 7, hi = lane >> 4, b1 = (lane >> 3) & 1;
    int q_off[4], k_off[4], v_off[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        // int8 Q rows / FP16 Q rows (x = 2 i + hi; rk4v4: chunk = 4 grp + 2 ks + hi)
        q_off[i] = (wr + r7 + 8 * b1) * L::QROW + (((2 * i + hi) ^ r7) << 4);
        k_off[i] = (r7 + 8 * hi) * (F::KBITS == 8 ? L::KCB : 2 * HD) + (((2 * i + b1) ^ r7) << 4);
        v_off[i] = (r7 + 8 * b1) * (HD * 2) + (((2 * i + hi) ^ r7) << 4);
    }
    // causal limits of the lane's two rows: last visible key (rows past the chunk: -1)
    const int lim_a = (row0 + wr + g < rows_total) ? pos + row_token(wr + g) : -1;
    const int lim_b = (row0 + wr + g + 8 < rows_total) ? pos + row_token(wr + g + 8) : -1;

    // B fragment of the 8 x 8 identity (rows k < 8 of a 16 x 8 B): b0 = (k = 2t, 2t + 1; n = g)
    const uint32_t ident = (g == 2 * t ? 0x3C00u : 0u) | (g == 2 * t + 1 ? 0x3C000000u : 0u);
    float o[32][4];
#pragma unroll
    for (int n = 0; n < 32; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) o[n][e] = 0.f;
    float m_a = NEG_INF, m_b = NEG_INF, l_a = 0.f, l_b = 0.f;   // l: this lane's partial sums

#if AP_WG
    // WS ping-pong: the warpgroups take turns at Q.K (named barriers 3 + warpgroup, the
    // other one arrives), so that one's softmax and P.V overlap the other's Q.K. WG 0
    // goes first; WG 1 skips its pass after its last Q.K (nobody waits for it).
    const int wg = warp >> 2;
    auto turn_wait = [&]() { asm volatile("bar.sync %0, %1;\n" ::"r"(3 + wg), "n"(AP_THREADS) : "memory"); };
    auto turn_pass = [&]() { asm volatile("bar.arrive %0, %1;\n" ::"r"(4 - wg), "n"(AP_THREADS) : "memory"); };
    if (PP && wg == 1 && kt0 < tiles) turn_pass();
    // Tile kt ready: its page landed (K codes visible to wgmma), the copy of kt + 1 out,
    // its V (and K) tile decoded into V tile kt & 1; the barrier before the decode also
    // means every warp is past tile kt - 1's Q.K (its stage, K scales, K tile). Tile kt0
    // first; in the loop, tile kt + 1 after tile kt's last P.V is issued, so that the
    // decode overlaps it.
    auto make_ready = [&](int kt) {
        cp_wait<0>();
        fence_async_smem();
        __syncthreads();
        if (kt + 1 < tiles) issue(kt + 1);
        cp_commit();
        dequant_tile<FMT>(smem + (kt % AP_ST) * L::STAGE, vh + (kt & 1) * (KT * HD * 2), kh, ksf, lut);
        __syncthreads();
    };
    if (!WS && kt0 < tiles) make_ready(kt0);
#endif
    // DEC with the producer: warpgroup w takes tiles kt0 + w, kt0 + w + 2, ... The warpgroup
    // index comes through a shuffle so that ptxas sees a warp-uniform loop: from `warp >> 2`
    // it took the loop for a divergent path and serialized every wgmma in it (C7518).
    constexpr int KSTEP = (DEC && WS) ? 2 : 1;
    const int first_kt = kt0 + ((DEC && WS) ? __shfl_sync(0xffffffffu, warp >> 2, 0) : 0);
    for (int kt = first_kt; kt < tiles; kt += KSTEP) {
#if AP_WG
        const int ti = kt - kt0;                       // WS: the producer's tile index
        if (WS) mbar_wait(full + vbuf(ti), vpar(ti));
        const uint8_t* st = smem + (WS ? ti % NS : kt % AP_ST) * L::STAGE;
        const uint8_t* vt = vh + (WS ? vbuf(ti) : (kt & 1)) * (KT * HD * 2);
        const float* ksf_t = ksf + (WS ? vbuf(ti) * (L::KSF_BYTES / 4) : 0);
#else
        const float* ksf_t = ksf;
        // Page kt has landed; every warp is done with tile kt - 1 (its stage and the V tile).
        cp_wait<0>();
        __syncthreads();
        if (AP_ST == 2) {
            if (kt + 1 < tiles) issue(kt + 1);
            cp_commit();
        }
        const uint8_t* st = smem + (kt % AP_ST) * L::STAGE;
        dequant_tile<FMT>(st, vh, kh, ksf, lut);

        __syncthreads();                             // the V tile and K scales are complete
#endif

        // Two halves of 32 keys, each a step of the online softmax: half the score and
        // probability registers live next to the 128 of O (a 64-key step spilled).
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            // (1) S = Q K^T for the warp's 16 rows x 32 keys (n-tile j: keys 32 half + 8j ..)
            float s[4][4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) s[j][e] = 0.f;
#if AP_WG
            if (WGK) {
                // the warpgroup's 64 rows x the half's 32 keys, per 64-dim group two k-steps
                // into int32 sums that start at MAGIC; group g + 1 is issued before group g
                // is scaled (two accumulator sets)
                const int wg_row = DEC ? 0 : (warp >> 2) * 64;
                int acc[2][16];
                auto issue_group = [&](int grp, int (&a)[16]) {
#pragma unroll
                    for (int i = 0; i < 16; ++i) a[i] = 0x4B400000;
                    wg_fence();
#pragma unroll
                    for (int ks = 0; ks < 2; ++ks) {
                        const int k = 2 * grp + ks;   // 32-dim k-step: half k >> 2, 32-byte column (k & 3)
                        wg_qk_s8(a, wg_kmajor_desc(qs + (k >> 2) * (L::QR * 128) + wg_row * 128 + (k & 3) * 32),
                                 wg_kmajor_desc(st + (k >> 2) * (KT * 128) + half * 32 * 128 + (k & 3) * 32));
                    }
                    wg_commit();
                };
                if (PP) turn_wait();
                issue_group(0, acc[0]);
#pragma unroll
                for (int grp = 0; grp < 4; ++grp) {
                    if (grp + 1 < 4) {
                        issue_group(grp + 1, acc[(grp + 1) & 1]);
                        wg_wait<1>();
                    } else {
                        wg_wait<0>();
                    }
                    // WS: the waits drained tile ti - 1's last P.V (half 0, group 0) and this
                    // tile's Q.K (half 1, group 3): hand V tile / stage back to the producer
                    if (WS && half == 0 && grp == 0 && ti >= KSTEP) mbar_arrive(vfree + vbuf(ti - KSTEP));
                    if (WS && half == 1 && grp == 3) mbar_arrive(kfree + ti % NS);
                    const int (&a)[16] = acc[grp & 1];
                    // (MAGIC + sum) x qs - MAGIC x qs = sum x qs, then x the key's scale: two
                    // FMAs a score and group (the row's -MAGIC x qs is rounded once: an error
                    // under one unit of the int32 sum, which the codes' rounding moves by
                    // hundreds)
                    const float qa = qsc[(wr + g) * 4 + grp], qb = qsc[(wr + g + 8) * 4 + grp];
                    const float qa_m = -MAGIC * qa, qb_m = -MAGIC * qb;
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const float2 ks = *reinterpret_cast<const float2*>(ksf_t + grp * KT + half * 32 + 8 * j + 2 * t);
                        s[j][0] = fmaf(fmaf(__int_as_float(a[4 * j + 0]), qa, qa_m), ks.x, s[j][0]);
                        s[j][1] = fmaf(fmaf(__int_as_float(a[4 * j + 1]), qa, qa_m), ks.y, s[j][1]);
                        s[j][2] = fmaf(fmaf(__int_as_float(a[4 * j + 2]), qb, qb_m), ks.x, s[j][2]);
                        s[j][3] = fmaf(fmaf(__int_as_float(a[4 * j + 3]), qb, qb_m), ks.y, s[j][3]);
                    }
                }
                if (PP && !(kt + 1 == tiles && half == 1 && warp >= 4)) turn_pass();
            } else if (WGK16) {
                // 16 k-steps of 16 dims straight into the fp32 scores (the K scale is in the tile)
                const int wg_row = DEC ? 0 : (warp >> 2) * 64;
                if (WS) {
                    if (PP) turn_wait();
                    mbar_wait(khfull + half, ti & 1);
                }
                wg_fence();
#pragma unroll
                for (int k = 0; k < HD / 16; ++k)   // 64-dim block k >> 2, 32-byte column (k & 3)
                    wg_qk_f16(s, wg_kmajor_desc(qs + (k >> 2) * (L::QR * 128) + wg_row * 128 + (k & 3) * 32),
                              wg_kmajor_desc(kh + (k >> 2) * (KT * 128) + half * 32 * 128 + (k & 3) * 32));
                wg_commit();
                wg_wait<0>();
                if (WS) {
                    // the wait drained tile ti - 1's last P.V (half 0) and this half's Q.K:
                    // hand the V tile and the K tile's half back to the producer
                    if (half == 0 && ti >= KSTEP) mbar_arrive(vfree + vbuf(ti - KSTEP));
                    mbar_arrive(khfree + half);
                    if (PP && !(kt + 1 == tiles && half == 1 && warp >= 4)) turn_pass();
                }
            } else
#endif
            // 4 accumulators per key n-tile and group are live (NJ n-tiles per pass)
#pragma unroll
            for (int part = 0; part < 4 / NJ; ++part) {
                if (F::KBITS == 8) {
                    // group pairs not unrolled: unrolled, ptxas overlaps the four groups' loads
                    // and accumulators and spills
#pragma unroll 1
                    for (int gp = 0; gp < 2; ++gp)
#pragma unroll
                    for (int gl = 0; gl < 2; ++gl) {
                        const int grp = 2 * gp + gl;
                        int acc[NJ][4];
#pragma unroll
                        for (int ks = 0; ks < 2; ++ks) {
                            const int s4 = gl * 2 + ks;      // (k-step index) & 3; k-step >> 2 = gp
                            uint32_t af[4];
                            ldsm_x4(af, qs + q_off[s4] + gp * 128);
#pragma unroll
                            for (int jp = 0; jp < NJ / 2; ++jp) {
                                uint32_t bf[4];
                                ldsm_x4(bf, st + k_off[s4] + (half * 32 + part * NJ * 8 + jp * 16) * L::KCB + gp * 128);
                                if (ks == 0) {   // sums start at 0x4B400000 (MAGIC as a float)
                                    mma_s8_from(acc[2 * jp], af, bf[0], bf[1], 0x4B400000);
                                    mma_s8_from(acc[2 * jp + 1], af, bf[2], bf[3], 0x4B400000);
                                } else {
                                    mma_s8(acc[2 * jp], af, bf[0], bf[1]);
                                    mma_s8(acc[2 * jp + 1], af, bf[2], bf[3]);
                                }
                            }
                        }
#pragma unroll
                        for (int j = 0; j < NJ; ++j) {
                            const int k0 = half * 32 + 8 * (part * NJ + j) + 2 * t;
                            const float2 ks = *reinterpret_cast<const float2*>(ksf_t + grp * KT + k0);
                            const float k0s = ks.x, k1s = ks.y;
                            float* sj = s[part * NJ + j];
                            const float qa = qsc[(wr + g) * 4 + grp], qb = qsc[(wr + g + 8) * 4 + grp];
                            sj[0] = fmaf(__int_as_float(acc[j][0]) - MAGIC, qa * k0s, sj[0]);
                            sj[1] = fmaf(__int_as_float(acc[j][1]) - MAGIC, qa * k1s, sj[1]);
                            sj[2] = fmaf(__int_as_float(acc[j][2]) - MAGIC, qb * k0s, sj[2]);
                            sj[3] = fmaf(__int_as_float(acc[j][3]) - MAGIC, qb * k1s, sj[3]);
                        }
                    }
                } else {
                    // Lloyd-Max K, decoded with its scale into the FP16 K tile in phase (0):
                    // FP16 MMA over 16 k-steps of 16 dims, straight into the fp32 scores
#pragma unroll 1
                    for (int kq = 0; kq < 4; ++kq)      // 64-dim quarters (chunk 8 kq + ...)
#pragma unroll
                    for (int k4 = 0; k4 < 4; ++k4) {
                        uint32_t af[4];
                        ldsm_x4(af, qs + q_off[k4] + kq * 128);
#pragma unroll
                        for (int jp = 0; jp < NJ / 2; ++jp) {
                            uint32_t bf[4];
                            ldsm_x4(bf, kh + k_off[k4] + (half * 32 + part * NJ * 8 + jp * 16) * (HD * 2) + kq * 128);
                            mma_f16_f32(s[part * NJ + 2 * jp], af, bf[0], bf[1]);
                            mma_f16_f32(s[part * NJ + 2 * jp + 1], af, bf[2], bf[3]);
                        }
                    }
                }
            }

#if AP_WG
            wg_wait<0>();   // the previous P.V (it reads p and o); Q.K's own waits drained it already
#endif
            // (2) online softmax (log2 domain); the four lanes of a row reduce by shuffles
            const int kbase = kt * KT + half * 32;
            const bool masked = kt >= first_masked;
            float mx_a = m_a, mx_b = m_b;
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    float v = s[j][e];             // log2 domain: the K scale table holds x LOG2E_16
                    if (masked) {
                        const int key = kbase + 8 * j + 2 * t + (e & 1);
                        if (key > (e < 2 ? lim_a : lim_b)) v = NEG_INF;
                    }
                    s[j][e] = v;
                    if (e < 2) mx_a = fmaxf(mx_a, v); else mx_b = fmaxf(mx_b, v);
                }
#pragma unroll
            for (int m = 1; m < 4; m <<= 1) {
                mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, m));
                mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, m));
            }
            if (DEC) {
                // lazy rescale: a row keeps its running max until a score passes it by more
                // than LAZY_RESCALE (log2), so probabilities stay <= 2^LAZY_RESCALE in FP16 and
                // O is rescaled a few times per split instead of in most key halves
                if (!(mx_a > m_a + LAZY_RESCALE)) mx_a = m_a;
                if (!(mx_b > m_b + LAZY_RESCALE)) mx_b = m_b;
            }
            const float base_a = mx_a == NEG_INF ? 0.f : mx_a, base_b = mx_b == NEG_INF ? 0.f : mx_b;
            const float al_a = ex2(m_a - base_a), al_b = ex2(m_b - base_b);
            // O needs rescaling only where a row's max grew (else alpha is exactly 1); past
            // the first tiles a warp's 16 rows rarely do, and the rescale is 128 multiplies
            const bool grew = __any_sync(0xffffffffu, mx_a > m_a || mx_b > m_b);
            m_a = mx_a; m_b = mx_b;
            uint32_t p[4][2];                        // FP16 probabilities, (row g) and (row g + 8) pairs
            float sum_a = 0.f, sum_b = 0.f;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const __half2 pa = __floats2half2_rn(ex2(s[j][0] - base_a), ex2(s[j][1] - base_a));
                const __half2 pb = __floats2half2_rn(ex2(s[j][2] - base_b), ex2(s[j][3] - base_b));
                const float2 fa = __half22float2(pa), fb = __half22float2(pb);   // l sums what P.V multiplies
                sum_a += fa.x + fa.y; sum_b += fb.x + fb.y;
                p[j][0] = h2u(pa); p[j][1] = h2u(pb);
            }
            l_a = l_a * al_a + sum_a;
            l_b = l_b * al_b + sum_b;
            if (grew) {
#pragma unroll
                for (int n = 0; n < 32; ++n) {
                    o[n][0] *= al_a; o[n][1] *= al_a;
                    o[n][2] *= al_b; o[n][3] *= al_b;
                }
            }
            if (AP_ST == 1 && half == 1) {           // one stage: every warp is done with its K
                __syncthreads();
                if (kt + 1 < tiles) issue(kt + 1);
                cp_commit();
            }

            // (3) O += P V: k-step kk = keys 32 half + 16 kk .. + 15 (A = n-tiles 2 kk, 2 kk + 1 of P).
            // PV16: FP16 accumulators over the half's 32 keys, folded into FP32 after it
            // (over a 64-key tile, outlier V channels at 6x the RMS lost 1.4 % of an element)
#if AP_WG
            {   // the warpgroup's 64 rows x 256 dims, two k-steps of 16 keys
                const uint32_t a0[4] = {p[0][0], p[0][1], p[1][0], p[1][1]};
                const uint32_t a1[4] = {p[2][0], p[2][1], p[3][0], p[3][1]};
                const uint64_t d0 = wg_v_desc(vt + (half * 32) * 128), d1 = wg_v_desc(vt + (half * 32 + 16) * 128);
                if (PV16) {
                    uint32_t hacc[64] = {};   // the first k-step overwrites them (scale-d = 0)
                    wg_fence();
                    wg_pv_f16(hacc, a0, d0, 0);
                    wg_pv_f16(hacc, a1, d1, 1);
                    wg_commit();
                    wg_wait<0>();
#pragma unroll
                    for (int n = 0; n < 32; ++n) {
                        const float2 fa = __half22float2(u2h(hacc[2 * n])), fb = __half22float2(u2h(hacc[2 * n + 1]));
                        o[n][0] += fa.x; o[n][1] += fa.y; o[n][2] += fb.x; o[n][3] += fb.y;
                    }
                } else {   // left in flight: the next Q.K / softmax or the tile's end waits
                    wg_fence();
                    wg_pv_f32(o, a0, d0);
                    wg_pv_f32(o, a1, d1);
                    wg_commit();
                }
            }
#else
#pragma unroll
            for (int dq = 0; dq < 16; ++dq) {        // 16 output dims (2 n-tiles) at a time
                const int n0 = dq * 2;
                uint32_t hacc[2][2];
                if (PV16) hacc[0][0] = hacc[0][1] = hacc[1][0] = hacc[1][1] = 0u;
#pragma unroll
                for (int kk = 0; kk < 2; ++kk) {
                    const uint32_t a[4] = {p[2 * kk][0], p[2 * kk][1], p[2 * kk + 1][0], p[2 * kk + 1][1]};
                    uint32_t b[4];
                    ldsm_x4_t(b, vh + v_off[dq & 3] + (half * 32 + kk * 16) * (HD * 2) + (dq >> 2) * 128);
                    if (PV16) {
                        mma_f16_f16(hacc[0], a, b[0], b[1]);
                        mma_f16_f16(hacc[1], a, b[2], b[3]);
                    } else {
                        mma_f16_f32(o[n0], a, b[0], b[1]);
                        mma_f16_f32(o[n0 + 1], a, b[2], b[3]);
                    }
                }
                if (PV16) {
                    // fold into FP32 as one more MMA: [hacc | 0] x I + o (exact products, FP32
                    // sum: what a FADD gives); converted with cvt + FADD, ptxas hoisted all 64
                    // FP16 MMAs of the half ahead of their folds and spilled
#pragma unroll
                    for (int n = 0; n < 2; ++n) {
                        const uint32_t fa[4] = {hacc[n][0], hacc[n][1], 0u, 0u};
                        mma_f16_f32(o[n0 + n], fa, ident, 0u);
                    }
                }
            }
#endif
        }
#if AP_WG
        if (!WS && kt + 1 < tiles) make_ready(kt + 1);
#endif
    }
    cp_wait<0>();
#if AP_WG
    wg_wait<0>();   // the last P.V
#endif

    // Normalize and store: rows g and g + 8 of the warp, dims 8n + 2t, + 1.
#pragma unroll
    for (int m = 1; m < 4; m <<= 1) {
        l_a += __shfl_xor_sync(0xffffffffu, l_a, m);
        l_b += __shfl_xor_sync(0xffffffffu, l_b, m);
    }
    const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f, inv_b = l_b > 0.f ? 1.f / l_b : 0.f;
    if constexpr (DEC) {
        NINFER_PDL_TRIGGER();   // the reduce may be scheduled
        // the warpgroup's partial o[part][row][d], (m, l)[part][row] of row r = column * 6 +
        // head in group, part = (query tile * KV heads + KV head) * 2 splits + 2 split + warpgroup;
        // without the producer warpgroup 1 computed warpgroup 0's rows again: an empty one
        const bool empty = !WS && warp >= 4;
        const size_t part = ((size_t)blockIdx.z * kv_heads + kvh) * (2 * gridDim.x) + 2 * blockIdx.x + (warp >> 2);
        const int ra = wr + g, rb = ra + 8;
        auto store = [&](int r, float m, float l, int e) {
            float* dst = ws_o + (part * rows_total + r) * HD + 2 * t;
#pragma unroll
            for (int n = 0; n < 32; ++n)
                *reinterpret_cast<float2*>(dst + 8 * n) = empty ? make_float2(0.f, 0.f) : make_float2(o[n][e], o[n][e + 1]);
            if (t == 0) ws_ml[part * rows_total + r] = empty ? make_float2(NEG_INF, 0.f) : make_float2(m, l);
        };
        if (ra < rows_total) store(ra, m_a, l_a, 0);
        if (rb < rows_total) store(rb, m_b, l_b, 2);
        return;
    }
    // (token, head) recomputed here rather than held in registers through the key loop
    if (splits > 1) {
        // partial of output row token * 24 + head: O unnormalized, (m, l) in the log2 domain
        const size_t rows_out = (size_t)chunk * q_heads;
        if (lim_a >= 0) {
            const size_t r = (size_t)(lim_a - pos) * q_heads + row_head(wr + g);
            float* dst = ws_o + ((size_t)split * rows_out + r) * HD + 2 * t;
#pragma unroll
            for (int n = 0; n < 32; ++n) *reinterpret_cast<float2*>(dst + 8 * n) = make_float2(o[n][0], o[n][1]);
            if (t == 0) ws_ml[split * rows_out + r] = make_float2(m_a, l_a);
        }
        if (lim_b >= 0) {
            const size_t r = (size_t)(lim_b - pos) * q_heads + row_head(wr + g + 8);
            float* dst = ws_o + ((size_t)split * rows_out + r) * HD + 2 * t;
#pragma unroll
            for (int n = 0; n < 32; ++n) *reinterpret_cast<float2*>(dst + 8 * n) = make_float2(o[n][2], o[n][3]);
            if (t == 0) ws_ml[split * rows_out + r] = make_float2(m_b, l_b);
        }
        return;
    }
    if (lim_a >= 0) {
        __nv_bfloat16* dst = out + ((size_t)(lim_a - pos) * q_heads + row_head(wr + g)) * HD + 2 * t;
#pragma unroll
        for (int n = 0; n < 32; ++n)
            *reinterpret_cast<__nv_bfloat162*>(dst + 8 * n) = __floats2bfloat162_rn(o[n][0] * inv_a, o[n][1] * inv_a);
    }
    if (lim_b >= 0) {
        __nv_bfloat16* dst = out + ((size_t)(lim_b - pos) * q_heads + row_head(wr + g + 8)) * HD + 2 * t;
#pragma unroll
        for (int n = 0; n < 32; ++n)
            *reinterpret_cast<__nv_bfloat162*>(dst + 8 * n) = __floats2bfloat162_rn(o[n][2] * inv_b, o[n][3] * inv_b);
    }
}
