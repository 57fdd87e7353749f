// common/cluster_sum.cuh: the K-slice sum through a thread-block cluster that the
// q4_linear_add (rings and warpgroup) and t2_i8_small warpgroup schedules share: split s of a
// row block is cluster rank s; rank r owns fragments [r CHUNK, (r + 1) CHUNK) of the F
// float4 fragments a CTA holds, f = (warp, column tile, lane) in whole blocks of 32 (one
// column tile each). Each CTA pushes its fragments to their owners (st.async, counted by
// bytes on the owner's mbarrier: no fence, no remote loads); each owner then sums its share
// over the splits in split order (the caller, which also stores the result).
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
#ifndef NINFER_COMMON_CLUSTER_SUM_CUH
#define NINFER_COMMON_CLUSTER_SUM_CUH
#if NINFER_CLUSTER

// Fragment f of split `split` to its owner, rank f / CHUNK, at recv[split][f mod CHUNK] of
// the owner's shared memory, counted on the owner's `bar`.
template <int CHUNK>
__device__ __forceinline__ void cluster_sum_push(float4* recv, unsigned long long* bar, int split, int f, float4 v)
{
    const int r = f / CHUNK;
    cluster_st_async_f4(cluster_map(recv + split * CHUNK + (f - r * CHUNK), r), v, cluster_map(bar, r));
}

// Thread 0 of the owner: the bytes its share receives, from every one of the KS splits: the
// share's blocks of 32 whose column tile (block mod CT) holds tokens below t.
template <int CHUNK, int CT, int KS>
__device__ __forceinline__ void cluster_sum_expect(unsigned long long* bar, int split, int t)
{
    constexpr int CB = CHUNK / 32;
    int blocks = 0;
#pragma unroll
    for (int b = 0; b < CB; ++b) blocks += ((split * CB + b) % CT) * 8 < t;
    mbar_arrive_expect_tx(bar, (unsigned int)(blocks * 32 * 16 * KS));
}

#endif
#endif
