//! `q6_head` as a routed op for check, bench and calibration. The output (FP32 logits)
//! is poisoned before every checked launch: rows below the width must equal x·Wᵀ, rows
//! past it must stay poisoned.
//!
//! The head is large (1.27 G codes): `prepare` makes the weights with a fast generator
//! and packs them on every core; `prepare_check` computes the f64 reference of all
//! prepared tokens once, rows over threads.

use anyhow::Context as _;
use cudarc::driver::CudaSlice;
use half::bf16;

use super::launch::{self as q6, Shape};
use super::{reference, synthetic};
use crate::catalog::{Family, Variant};
use crate::check::{compare_rows_f32, poison};
use crate::gpu::Gpu;
use crate::ops::routed::{Choose, HelperCheck, Prepared, RoutedOp};

pub struct Q6Head;

impl RoutedOp for Q6Head {
    fn family(&self) -> &'static Family {
        q6::family()
    }

    fn max_launch_width(&self) -> usize {
        q6::MAX_LAUNCH_WIDTH
    }

    fn weight_bytes(&self, shape: &str) -> anyhow::Result<usize> {
        Ok(q6::weight_bytes(Shape::parse(shape)?))
    }

    fn prepare(
        &self,
        gpu: &Gpu,
        shape: &str,
        seed: u64,
        copies: usize,
        tokens: usize,
    ) -> anyhow::Result<Box<dyn Prepared>> {
        let shape = Shape::parse(shape)?;
        let dense = synthetic::random_weights(shape, seed);
        let packed = dense.pack();
        let weights = (0..copies.max(1))
            .map(|_| q6::upload(gpu, &packed, shape))
            .collect::<anyhow::Result<Vec<_>>>()?;
        drop(packed);
        let x_host = synthetic::random_activations(tokens, shape.k, seed ^ 0x5eed);
        Ok(Box::new(Q6Prepared {
            shape,
            tokens,
            x: gpu.stream.clone_htod(&x_host)?,
            y: gpu.stream.alloc_zeros(tokens.max(1) * shape.n)?,
            weights,
            dense,
            x_host,
            reference: None,
        }))
    }
}

struct Q6Prepared {
    shape: Shape,
    tokens: usize,
    weights: Vec<q6::DeviceWeights>,
    x: CudaSlice<bf16>,
    y: CudaSlice<f32>,
    dense: synthetic::DenseQ6,
    x_host: Vec<bf16>,
    reference: Option<Vec<f64>>,
}

impl Prepared for Q6Prepared {
    fn bytes(&self, t: usize) -> usize {
        // Weights, activations, and the FP32 logits written.
        q6::weight_bytes(self.shape) + t * self.shape.k * 2 + t * self.shape.n * 4
    }

    fn forward(&mut self, gpu: &Gpu, copy: usize, t: usize, choose: Choose) -> anyhow::Result<()> {
        q6::forward(gpu, &self.weights[copy], &self.x, t, &mut self.y, choose)
    }

    fn output(&self, gpu: &Gpu, t: usize) -> anyhow::Result<Vec<f64>> {
        let y = gpu.stream.clone_dtoh(&self.y.slice(..t * self.shape.n))?;
        Ok(y.iter().map(|&v| v as f64).collect())
    }

    fn prepare_check(&mut self, _gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>> {
        let Shape { n, k } = self.shape;
        self.reference = Some(reference::reference(
            &self.dense.codes,
            &self.dense.scales,
            &self.x_host,
            n,
            k,
            self.tokens,
        ));
        Ok(Vec::new())
    }

    fn ready_output_for_check(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        poison(gpu, &mut self.y)
    }

    fn launch_variant(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        width: usize,
    ) -> anyhow::Result<()> {
        q6::project(
            gpu,
            variant,
            &self.weights[0],
            &self.x,
            0,
            width,
            &mut self.y,
        )
    }

    fn compare_with_reference(
        &self,
        gpu: &Gpu,
        width: usize,
    ) -> anyhow::Result<(f64, Option<String>)> {
        let reference = self.reference.as_ref().context("prepare_check first")?;
        let host = gpu.stream.clone_dtoh(&self.y)?;
        Ok(compare_rows_f32(
            &host,
            reference,
            self.shape.n,
            width,
            self.tokens,
        ))
    }
}
