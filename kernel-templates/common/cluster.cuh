// common/cluster.cuh: thread-block clusters (sm_90 and newer): the cluster barrier and
// loads from another CTA's shared memory (distributed shared memory). NINFER_CLUSTER is 1
// only in PTX for compute_90 or newer; kernels keep a fallback for older PTX.
// NOTE: this file is rendered through tera: never write "{" directly followed by "%", "{" or "#".
#ifndef NINFER_COMMON_CLUSTER_CUH
#define NINFER_COMMON_CLUSTER_CUH
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define NINFER_CLUSTER 1

// Every thread of every CTA of the cluster: what a thread wrote to its shared memory
// before its arrive is visible to the cluster after the wait.
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
__device__ __forceinline__ void cluster_sync()
{
    cluster_arrive();
    cluster_wait();
}
// An arrival that orders nothing (no memory fence: the release costs a GPU-scope memory
// barrier in SASS), for threads whose memory operations no other CTA reads after the wait.
__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }

// The cluster address of `p` (this CTA's shared memory) in the CTA of cluster rank `rank`.
__device__ __forceinline__ unsigned int cluster_map(const void* p, unsigned int rank)
{
    unsigned int out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(out)
                 : "r"((unsigned int)__cvta_generic_to_shared(p)), "r"(rank));
    return out;
}

// 16 bytes into the shared memory at cluster address `addr` (another CTA's, or this
// one's), counted off the transaction count of the mbarrier at cluster address `bar` (in
// the same CTA as `addr`) when they land. No fence: the mbarrier is the synchronization.
__device__ __forceinline__ void cluster_st_async_f4(unsigned int addr, float4 v, unsigned int bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(addr),
                 "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ float2 cluster_ld_f2(unsigned int addr)
{
    float2 v;
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
    return v;
}
#else
#define NINFER_CLUSTER 0
#endif
#endif
