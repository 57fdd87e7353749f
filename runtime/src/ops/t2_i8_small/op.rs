//! `t2_i8_small` as a routed op for check, bench and calibration.

use anyhow::Context as _;
use cudarc::driver::CudaSlice;
use half::bf16;

use super::launch::{self as t2, Shape};
use super::{pack, reference, synthetic};
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
        let x = gpu.stream.clone_htod(&x_host)?;
        // Every layout filled once, so that launches timed alone (routed_only) read these
        // activations whichever variant they run.
        let mut act = t2::Activations::new(gpu, tokens, shape.k)?;
        t2::quantize(gpu, &x, tokens, &mut act, t2::ActOrder::AlsoWarpgroup)?;
        Ok(Box::new(T2Prepared {
            shape,
            tokens,
            x,
            act,
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
        // The activation quantization kernels, against the CPU rule: ties may round the
        // other way after a different division order, nothing else may differ; the
        // warpgroup copy must be the plain codes in its order (docs/formats.md). The
        // second (AlsoWarpgroup) run leaves every layout filled for the variants.
        let mut checks = Vec::new();
        for order in [t2::ActOrder::Plain, t2::ActOrder::AlsoWarpgroup] {
            gpu.stream.memset_zeros(&mut self.act.xq)?;
            gpu.stream.memset_zeros(&mut self.act.xqw)?;
            t2::quantize(gpu, &self.x, tokens, &mut self.act, order)?;
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
            let mut pass = scale_mismatch == 0 && off_by_more == 0 && off_by_one * 1000 <= xq.len();
            let mut note = format!("{scale_mismatch} scales differ, {off_by_one} codes differ by 1, {off_by_more} by more");
            if order == t2::ActOrder::AlsoWarpgroup {
                let xqw = gpu.stream.clone_dtoh(&self.act.xqw)?;
                let misplaced = xqw
                    .iter()
                    .zip(pack::warpgroup_order(&xq, k))
                    .filter(|(a, b)| *a != b)
                    .count();
                pass &= misplaced == 0;
                note.push_str(&format!(", {misplaced} warpgroup-order codes misplaced"));
            }
            checks.push(HelperCheck {
                variant: t2::quant_variant(order).name.into(),
                error: off_by_one as f64 / xq.len() as f64,
                pass,
                note,
            });
        }
        Ok(checks)
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
