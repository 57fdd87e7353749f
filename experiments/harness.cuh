// Shared by the standalone experiments (experiments/*.cu): error checks and the graph
// timer (graphs of `launches` ops, a flush before every sample, median of 9 after one
// warm-up replay, µs per op).
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

// Captures op(0) .. op(launches - 1) on `s` into one graph; each sample runs flush() and
// then the graph between two events.
inline float time_graph_us(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int launches,
                           const std::function<void()>& flush, const std::function<void(int)>& op)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < launches; ++i) op(i);
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphUpload(exec, s));
    std::vector<float> ts;
    for (int r = 0; r < 10; ++r) {
        flush();
        CK(cudaEventRecord(e0, s));
        CK(cudaGraphLaunch(exec, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) ts.push_back(ms * 1e3f / launches);
    }
    CK(cudaGetLastError());
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}
