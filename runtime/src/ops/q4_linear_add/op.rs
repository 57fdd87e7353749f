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

    /// One launch and a bit (the CPU reference of 2 x 64 tokens at 5120x17408 would double
    /// the check's time for no launch it does not already cover).
    fn check_tokens(&self) -> usize {
        q4::MAX_LAUNCH_WIDTH + 8
    }

    /// Past the compiled route's widest band (where it splits a launch again) and past
    /// one launch of the widest schedules.
    fn forward_check_widths(&self) -> Vec<usize> {
        let compiled = self.family().compiled.last().map_or(1, |b| b.0 as usize);
        let w = q4::MAX_LAUNCH_WIDTH;
        vec![compiled + 1, compiled + 8, w + 1, w + 8]
    }

    fn launch_schedules(&self, t: usize, choose: Choose) -> Vec<&'static str> {
        q4::launch_plan(t, choose)
            .into_iter()
            .map(|(_, _, v)| v.schedule)
            .collect()
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
            int8_rows: vec![false; tokens],
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
    /// which token rows the last checked output got from one of them.
    reference_int8: Option<Vec<f64>>,
    int8_rows: Vec<bool>,
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
        // The check's reference per token row: the int8-activation one for the rows of a
        // launch that reads int8 activations (the launches `q4::forward` makes).
        self.int8_rows.fill(false);
        for (first, width, v) in q4::launch_plan(t, choose) {
            self.int8_rows[first..first + width].fill(q4::reads_int8(v));
        }
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

    fn prepare_check(&mut self, gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>> {
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
        // The int8 schedules' quantization (quant_act_i8_q4) against the CPU rule in its k
        // order (emulate::q4_order): ties may round the other way after a different
        // division order, nothing else may differ, and a misplaced code differs by more.
        let mut checks = Vec::new();
        if self.reference_int8.is_some() {
            let (xq_ref, _) = crate::ops::quant::quantize_activations(&self.x_host, self.tokens, k);
            let want = super::emulate::q4_order(&xq_ref);
            gpu.stream.memset_zeros(&mut self.scratch.act.xq)?;
            q4::quantize(gpu, &self.x, 0, self.tokens, &mut self.scratch.act)?;
            let xq = gpu
                .stream
                .clone_dtoh(&self.scratch.act.xq.slice(..self.tokens * k))?;
            let off_by_more = xq
                .iter()
                .zip(&want)
                .filter(|(a, b)| (**a as i32 - **b as i32).abs() > 1)
                .count();
            let off_by_one = xq.iter().zip(&want).filter(|(a, b)| a != b).count();
            checks.push(HelperCheck {
                variant: q4::quant_module().name.into(),
                error: off_by_one as f64 / xq.len() as f64,
                pass: off_by_more == 0 && off_by_one * 1000 <= xq.len(),
                note: format!("{off_by_one} codes differ by 1, {off_by_more} by more"),
            });
        }
        Ok(checks)
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
        self.int8_rows.fill(false);
        self.int8_rows[..width].fill(q4::reads_int8(variant));
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
        // Each token row against the reference of the activations its launch read.
        let n = self.shape.n;
        let mut reference =
            std::borrow::Cow::from(self.reference.as_deref().context("prepare_check first")?);
        for row in (0..self.tokens).filter(|&r| self.int8_rows[r]) {
            let int8 = self
                .reference_int8
                .as_deref()
                .context("prepare_check first")?;
            reference.to_mut()[row * n..(row + 1) * n]
                .copy_from_slice(&int8[row * n..(row + 1) * n]);
        }
        let host = gpu.stream.clone_dtoh(&self.residual)?;
        Ok(compare_rows_add(
            &host,
            &self.r_host,
            &reference,
            self.shape.n,
            width,
            self.tokens,
        ))
    }
}
