//! Timing from HBM: CUDA graphs of many launches (to hide launch gaps), the L2 cache
//! flushed before every sample, CUDA events, medians.

use anyhow::Context as _;
use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaEvent, CudaGraph, CudaSlice};

use super::Gpu;

pub struct Timer {
    flush: CudaSlice<u8>,
    start: CudaEvent,
    end: CudaEvent,
}

impl Timer {
    pub fn new(gpu: &Gpu) -> anyhow::Result<Timer> {
        // Writing twice the L2's size evicts whatever an earlier sample left there.
        let bytes = (2 * gpu.info.l2_bytes).max(64 << 20);
        let flush = gpu.stream.alloc_zeros::<u8>(bytes)?;
        let start = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        Ok(Timer { flush, start, end })
    }

    pub fn flush_l2(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        gpu.stream.memset_zeros(&mut self.flush)?;
        Ok(())
    }

    /// Records what `enqueue` puts on the stream into a replayable graph.
    pub fn capture(
        gpu: &Gpu,
        mut enqueue: impl FnMut() -> anyhow::Result<()>,
    ) -> anyhow::Result<CudaGraph> {
        gpu.sync()?;
        gpu.stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
        let enqueued = enqueue();
        let graph = gpu.stream.end_capture(CUgraphInstantiate_flags(0));
        enqueued?;
        let graph = graph?.context("stream capture produced no graph")?;
        graph.upload()?;
        Ok(graph)
    }

    /// One sample: flush L2, replay the graph, and return its time in microseconds.
    pub fn sample_graph(&mut self, gpu: &Gpu, graph: &CudaGraph) -> anyhow::Result<f64> {
        self.flush_l2(gpu)?;
        self.time_graph(gpu, graph)
    }

    /// One sample with whatever the last replay left in L2 (`ninfer bench
    /// --weights-from l2`).
    pub fn sample_graph_warm(&mut self, gpu: &Gpu, graph: &CudaGraph) -> anyhow::Result<f64> {
        self.time_graph(gpu, graph)
    }

    fn time_graph(&mut self, gpu: &Gpu, graph: &CudaGraph) -> anyhow::Result<f64> {
        self.start.record(&gpu.stream)?;
        graph.launch()?;
        self.end.record(&gpu.stream)?;
        let ms = self.start.elapsed_ms(&self.end)?;
        Ok(ms as f64 * 1e3)
    }

    /// One sample of work enqueued directly (no graph).
    pub fn sample(
        &mut self,
        gpu: &Gpu,
        enqueue: impl FnOnce() -> anyhow::Result<()>,
    ) -> anyhow::Result<f64> {
        self.flush_l2(gpu)?;
        self.start.record(&gpu.stream)?;
        enqueue()?;
        self.end.record(&gpu.stream)?;
        let ms = self.start.elapsed_ms(&self.end)?;
        Ok(ms as f64 * 1e3)
    }
}

pub fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
