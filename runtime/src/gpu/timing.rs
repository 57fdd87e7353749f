//! Timing from HBM: CUDA graphs of many launches (to hide launch gaps), the L2 cache
//! flushed before every sample, CUDA events, medians. Or, for analysis only, from L2:
//! one weight copy and no flush (`WeightsFrom::L2`).

use anyhow::Context as _;
use cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaEvent, CudaGraph, CudaSlice};

use super::Gpu;

/// Where the timed launches find their weights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum WeightsFrom {
    /// Rotated copies spanning three L2 sizes, L2 flushed before every sample: what the
    /// issues' targets and the calibrated routes mean.
    #[default]
    Hbm,
    /// One copy, L2 left warm: the time without the HBM stream's limit, which bounds what
    /// a card with more bandwidth can gain (analysis only; bytes past about a quarter of
    /// the L2 come partly from HBM, and `ninfer bench` flags them).
    L2,
}

/// Whether `bytes` are too many for `WeightsFrom::L2` times to be L2 times: past a quarter
/// of the L2. On an H100 (two L2 partitions, which may both hold a line) 22 MB of t2
/// weights measured 7.7 µs in one run and 8.7-9.1 in others (docs/results/h200-2026-12-06e).
pub fn partly_from_hbm(bytes: usize, l2_bytes: usize) -> bool {
    4 * bytes > l2_bytes
}

/// The line that names what `partly_from_hbm` flagged, if anything.
pub fn partly_from_hbm_note(flagged: &[String]) -> Option<String> {
    (!flagged.is_empty()).then(|| {
        format!(
            "larger than a quarter of the L2, partly from HBM (not trusted as L2 times): {}",
            flagged.join(", ")
        )
    })
}

pub struct Timer {
    weights_from: WeightsFrom,
    flush: CudaSlice<u8>,
    start: CudaEvent,
    end: CudaEvent,
}

impl Timer {
    /// A timer whose samples read their weights from HBM.
    pub fn new(gpu: &Gpu) -> anyhow::Result<Timer> {
        Timer::with_weights_from(gpu, WeightsFrom::Hbm)
    }

    pub fn with_weights_from(gpu: &Gpu, weights_from: WeightsFrom) -> anyhow::Result<Timer> {
        // Writing twice the L2's size evicts whatever an earlier sample left there.
        let bytes = (2 * gpu.info.l2_bytes).max(64 << 20);
        let flush = gpu.stream.alloc_zeros::<u8>(bytes)?;
        let start = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        Ok(Timer {
            weights_from,
            flush,
            start,
            end,
        })
    }

    pub fn weights_from(&self) -> WeightsFrom {
        self.weights_from
    }

    /// Weight copies to rotate through: `from_hbm` (enough to defeat the L2), or one
    /// when the weights are meant to stay in L2.
    pub fn copies(&self, from_hbm: usize) -> usize {
        match self.weights_from {
            WeightsFrom::Hbm => from_hbm,
            WeightsFrom::L2 => 1,
        }
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

    /// One sample: flush L2 (unless the weights are meant to stay there), replay the
    /// graph, and return its time in microseconds.
    pub fn sample_graph(&mut self, gpu: &Gpu, graph: &CudaGraph) -> anyhow::Result<f64> {
        if self.weights_from == WeightsFrom::Hbm {
            self.flush_l2(gpu)?;
        }
        self.start.record(&gpu.stream)?;
        graph.launch()?;
        self.end.record(&gpu.stream)?;
        let ms = self.start.elapsed_ms(&self.end)?;
        Ok(ms as f64 * 1e3)
    }

    /// One sample of work enqueued directly (no graph), L2 flushed first.
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
    /// The report's `weights_from` and the flag's values are the same words.
    #[test]
    fn weights_from_reads_and_prints_as_the_flag_says() {
        use clap::ValueEnum as _;
        for (v, word) in [
            (super::WeightsFrom::Hbm, "hbm"),
            (super::WeightsFrom::L2, "l2"),
        ] {
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{word}\""));
            assert_eq!(super::WeightsFrom::from_str(word, false).unwrap(), v);
        }
    }

    /// On a 50 MB L2 (H100): t2 5120x6144's 8 MB are L2 times, 5120x17408's 22 MB are not.
    #[test]
    fn a_quarter_of_the_l2_is_the_line() {
        let l2 = 50 << 20;
        assert!(!super::partly_from_hbm(8 << 20, l2));
        assert!(super::partly_from_hbm(22 << 20, l2));
        assert_eq!(super::partly_from_hbm_note(&[]), None);
        let note = super::partly_from_hbm_note(&["t2_i8_small/5120x17408".into()]).unwrap();
        assert!(note.ends_with("t2_i8_small/5120x17408"), "{note}");
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
