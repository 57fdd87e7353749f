//! `t2_i8_small` as a routed op for check, bench and calibration.

use anyhow::Context as _;
use cudarc::driver::CudaSlice;
use half::bf16;

use super::launch::{self as t2, Shape};
use super::{reference, synthetic};
use crate::catalog::{self, Family, Variant};
use crate::check::{compare_rows, poison};
use crate::gpu::Gpu;
use crate::ops::routed::{split_launches, Choose, HelperCheck, Prepared, RoutedOp};

pub struct T2I8Small;

impl RoutedOp for T2I8Small {
    fn family(&self) -> &'static Family {
        catalog::family("t2_i8_small").expect("catalog.toml declares t2_i8_small")
    }

    fn max_launch_width(&self) -> usize {
        t2::MAX_LAUNCH_WIDTH
    }

    fn weight_bytes(&self, shape: &str) -> anyhow::Result<usize> {
        Ok(t2::weight_bytes(Shape::parse(shape)?))
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
            .map(|_| t2::upload(gpu, &packed, shape))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let x_host = synthetic::random_activations(tokens, shape.k, seed ^ 0x5eed);
        Ok(Box::new(T2Prepared {
            shape,
            tokens,
            x: gpu.stream.clone_htod(&x_host)?,
            act: t2::Activations::new(gpu, tokens, shape.k)?,
            y: gpu.stream.alloc_zeros(tokens * shape.n)?,
            weights,
            dense,
            x_host,
            reference: None,
        }))
    }
}

struct T2Prepared {
    shape: Shape,
    tokens: usize,
    weights: Vec<t2::DeviceWeights>,
    x: CudaSlice<bf16>,
    act: t2::Activations,
    y: CudaSlice<bf16>,
    dense: synthetic::DenseTernary,
    x_host: Vec<bf16>,
    reference: Option<Vec<f64>>,
}

impl Prepared for T2Prepared {
    fn bytes(&self, t: usize) -> usize {
        t2::weight_bytes(self.shape) + t * self.shape.k * 2 + t * self.shape.n * 2
    }

    fn forward(&mut self, gpu: &Gpu, copy: usize, t: usize, choose: Choose) -> anyhow::Result<()> {
        t2::forward(
            gpu,
            &self.weights[copy],
            &self.x,
            t,
            &mut self.act,
            &mut self.y,
            choose,
        )
    }

    fn routed_only(
        &mut self,
        gpu: &Gpu,
        copy: usize,
        t: usize,
        choose: Choose,
    ) -> anyhow::Result<()> {
        let (weights, act, y) = (&self.weights[copy], &self.act, &mut self.y);
        split_launches(t, t2::MAX_LAUNCH_WIDTH, |first, width| {
            t2::project(gpu, choose(width as u32), weights, act, first, width, y)
        })
    }

    fn reset_output(&mut self, _gpu: &Gpu) -> anyhow::Result<()> {
        Ok(()) // y is overwritten by every call
    }

    fn output(&self, gpu: &Gpu, t: usize) -> anyhow::Result<Vec<f64>> {
        let y = gpu.stream.clone_dtoh(&self.y.slice(..t * self.shape.n))?;
        Ok(y.iter().map(|v| v.to_f64()).collect())
    }

    fn prepare_check(&mut self, gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>> {
        let Shape { n, k } = self.shape;
        let tokens = self.tokens;
        let (xq_ref, xs_ref) = crate::ops::quant::quantize_activations(&self.x_host, tokens, k);
        self.reference = Some(reference::reference_projection(
            &self.dense.codes,
            &self.dense.scales,
            &xq_ref,
            &xs_ref,
            n,
            k,
            tokens,
        ));
        // The activation quantization kernel, against the CPU rule: ties may round the
        // other way after a different division order, nothing else may differ.
        t2::quantize(gpu, &self.x, tokens, &mut self.act)?;
        let xq = gpu.stream.clone_dtoh(&self.act.xq)?;
        let xs = gpu.stream.clone_dtoh(&self.act.xs)?;
        let scale_mismatch = xs
            .iter()
            .zip(&xs_ref)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        let off_by_more = xq
            .iter()
            .zip(&xq_ref)
            .filter(|(a, b)| (**a as i32 - **b as i32).abs() > 1)
            .count();
        let off_by_one = xq.iter().zip(&xq_ref).filter(|(a, b)| a != b).count();
        Ok(vec![HelperCheck {
            variant: catalog::module("quant_act_i8").map(|v| v.name).unwrap_or("quant_act_i8").into(),
            error: off_by_one as f64 / xq.len() as f64,
            pass: scale_mismatch == 0 && off_by_more == 0 && off_by_one * 1000 <= xq.len(),
            note: format!("{scale_mismatch} scales differ, {off_by_one} codes differ by 1, {off_by_more} by more"),
        }])
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
        t2::project(
            gpu,
            variant,
            &self.weights[0],
            &self.act,
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
        Ok(compare_rows(
            &host,
            reference,
            self.shape.n,
            width,
            self.tokens,
        ))
    }
}
