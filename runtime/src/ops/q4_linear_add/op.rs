//! `q4_linear_add` as a routed op for check, bench and calibration. The op adds into its
//! output, so every checked launch starts from the residual's random initial values
//! (`reset_output`); rows below the width must equal initial + x·Wᵀ, rows past it must
//! keep the initial values bit for bit.

use anyhow::Context as _;
use cudarc::driver::CudaSlice;
use half::bf16;

use super::launch::{self as q4, Shape};
use super::{reference, synthetic};
use crate::catalog::{Family, Variant};
use crate::check::compare_rows_add;
use crate::gpu::Gpu;
use crate::ops::routed::{Choose, HelperCheck, Prepared, RoutedOp};

pub struct Q4LinearAdd;

impl RoutedOp for Q4LinearAdd {
    fn family(&self) -> &'static Family {
        q4::family()
    }

    fn max_launch_width(&self) -> usize {
        q4::MAX_LAUNCH_WIDTH
    }

    fn weight_bytes(&self, shape: &str) -> anyhow::Result<usize> {
        Ok(q4::weight_bytes(Shape::parse(shape)?))
    }

    fn may_calibrate(&self, variant: &Variant) -> bool {
        !q4::reads_int8(variant) || q4::int8_activations_allowed()
    }

    fn runs_as(&self, chosen: &'static Variant, width: u32) -> &'static Variant {
        q4::runs_as(chosen, width)
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
            .map(|_| q4::upload(gpu, &packed, shape))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let x_host = synthetic::random_activations(tokens, shape.k, seed ^ 0x5eed);
        let r_host = synthetic::random_residual(tokens, shape.n, seed ^ 0x7e51);
        Ok(Box::new(Q4Prepared {
            shape,
            tokens,
            x: gpu.stream.clone_htod(&x_host)?,
            initial: gpu.stream.clone_htod(&r_host)?,
            residual: gpu.stream.clone_htod(&r_host)?,
            scratch: q4::Workspace::new(gpu, shape, tokens)?,
            weights,
            dense,
            x_host,
            r_host,
            reference: None,
            reference_int8: None,
            int8_launched: false,
        }))
    }
}

struct Q4Prepared {
    shape: Shape,
    tokens: usize,
    weights: Vec<q4::DeviceWeights>,
    x: CudaSlice<bf16>,
    /// The residual's prepared values (device copy, for resets) and the working buffer.
    initial: CudaSlice<bf16>,
    residual: CudaSlice<bf16>,
    scratch: q4::Workspace,
    dense: synthetic::DenseQ4,
    x_host: Vec<bf16>,
    r_host: Vec<bf16>,
    reference: Option<Vec<f64>>,
    /// The expected output of the `act_i8` schedules (activations quantized first), and
    /// whether the last checked launch was one of them.
    reference_int8: Option<Vec<f64>>,
    int8_launched: bool,
}

impl Q4Prepared {
    fn reset(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        gpu.stream.memcpy_dtod(&self.initial, &mut self.residual)?;
        Ok(())
    }
}

impl Prepared for Q4Prepared {
    fn bytes(&self, t: usize) -> usize {
        // Weights, activations, and the residual read and written.
        q4::weight_bytes(self.shape) + t * self.shape.k * 2 + 2 * t * self.shape.n * 2
    }

    fn forward(&mut self, gpu: &Gpu, copy: usize, t: usize, choose: Choose) -> anyhow::Result<()> {
        // The check's reference for this output: the int8-activation one when a launch of
        // the op reads int8 activations (launches of at most MAX_LAUNCH_WIDTH columns).
        let (full, rest) = (t / q4::MAX_LAUNCH_WIDTH, t % q4::MAX_LAUNCH_WIDTH);
        let int8_at = |w: usize| q4::reads_int8(q4::runs_as(choose(w as u32), w as u32));
        self.int8_launched =
            (full > 0 && int8_at(q4::MAX_LAUNCH_WIDTH)) || (rest > 0 && int8_at(rest));
        q4::forward(
            gpu,
            &self.weights[copy],
            &mut self.scratch,
            &self.x,
            t,
            &mut self.residual,
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
        // No helper kernels: the whole op is routed launches.
        self.forward(gpu, copy, t, choose)
    }

    fn reset_output(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        self.reset(gpu)
    }

    fn output(&self, gpu: &Gpu, t: usize) -> anyhow::Result<Vec<f64>> {
        let y = gpu
            .stream
            .clone_dtoh(&self.residual.slice(..t * self.shape.n))?;
        Ok(y.iter().map(|v| v.to_f64()).collect())
    }

    fn prepare_check(&mut self, _gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>> {
        let Shape { n, k } = self.shape;
        let expected = |seen| {
            reference::reference_linear_add(
                &self.r_host,
                &self.dense.codes,
                &self.dense.scales,
                &self.x_host,
                seen,
                n,
                k,
                self.tokens,
            )
        };
        self.reference = Some(expected(reference::Activations::Bf16));
        if q4::family()
            .candidates
            .iter()
            .any(|&i| q4::reads_int8(&crate::catalog::VARIANTS[i]))
        {
            self.reference_int8 = Some(expected(reference::Activations::Int8));
        }
        Ok(Vec::new())
    }

    fn ready_output_for_check(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        // Adds into the residual: start from its prepared values, which rows past the
        // width must keep bit for bit.
        self.reset(gpu)
    }

    fn launch_variant(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        width: usize,
    ) -> anyhow::Result<()> {
        self.int8_launched = q4::reads_int8(variant);
        q4::project(
            gpu,
            variant,
            &self.weights[0],
            &mut self.scratch,
            &self.x,
            0,
            width,
            &mut self.residual,
        )
    }

    fn compare_with_reference(
        &self,
        gpu: &Gpu,
        width: usize,
    ) -> anyhow::Result<(f64, Option<String>)> {
        let reference = if self.int8_launched {
            self.reference_int8.as_ref()
        } else {
            self.reference.as_ref()
        }
        .context("prepare_check first")?;
        let host = gpu.stream.clone_dtoh(&self.residual)?;
        Ok(compare_rows_add(
            &host,
            &self.r_host,
            reference,
            self.shape.n,
            width,
            self.tokens,
        ))
    }
}
