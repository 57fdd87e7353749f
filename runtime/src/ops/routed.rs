//! What check, bench and calibration need from a routed operation family: synthetic
//! inputs of a route key's shape on the GPU, the op through the dispatch inference uses,
//! and checks of single variants against the CPU reference. One implementation per
//! family (`ops::<family>::op`); `implemented()` lists them.

use crate::catalog::{Family, Variant};
use crate::gpu::Gpu;

/// Maps a launch width to the variant serving it.
pub type Choose<'a> = &'a dyn Fn(u32) -> &'static Variant;

pub trait RoutedOp: Sync {
    /// The catalog family whose variants this op launches.
    fn family(&self) -> &'static Family;
    /// Widest single launch; `forward` splits wider inputs.
    fn max_launch_width(&self) -> usize;
    /// Bytes of one copy of the weights of `shape` (to size rotations past L2).
    fn weight_bytes(&self, shape: &str) -> anyhow::Result<usize>;
    /// Whether calibration may time `variant` in this process (an environment override
    /// can rule a family's schedules out; checks still run every variant).
    fn may_calibrate(&self, _variant: &Variant) -> bool {
        true
    }
    /// The variant a route's `chosen` one runs as at `width` in this process (`forward`
    /// applies the same rule; reports name what really runs).
    fn runs_as(&self, chosen: &'static Variant, _width: u32) -> &'static Variant {
        chosen
    }
    /// The schedules the launches of `t` columns run, in order: `forward`'s own split of
    /// the op (what reports name).
    fn launch_schedules(&self, t: usize, choose: Choose) -> Vec<&'static str> {
        let mut out = Vec::new();
        let _ = split_launches(t, self.max_launch_width(), |_, width| {
            out.push(self.runs_as(choose(width as u32), width as u32).schedule);
            Ok(())
        });
        out
    }
    /// Weight copies a timing graph at width `t` rotates through so that every launch
    /// reads from HBM (ops whose bytes grow with the width, like attention's window,
    /// need fewer at wide widths).
    fn copies_at(&self, l2_bytes: usize, shape: &str, _t: usize) -> anyhow::Result<usize> {
        Ok(crate::bench::weight_copies(
            l2_bytes,
            self.weight_bytes(shape)?,
        ))
    }
    /// Tokens `ninfer check` prepares: twice the widest launch by default (every
    /// single-launch width, plus split launches).
    fn check_tokens(&self) -> usize {
        2 * self.max_launch_width()
    }
    /// Widths `ninfer check` runs `variant` at: every width it serves by default.
    fn check_widths(&self, variant: &Variant) -> Vec<usize> {
        (1..=variant.launch.max_width as usize).collect()
    }
    /// Widths of the whole-op checks through the compiled route: past one launch by default.
    fn forward_check_widths(&self) -> Vec<usize> {
        let w = self.max_launch_width();
        vec![w + 1, w + 8, self.check_tokens()]
    }
    /// Synthetic weights of `shape` (`copies` copies, so timing can rotate them past
    /// L2) and inputs for `tokens` tokens, on the GPU.
    fn prepare(
        &self,
        gpu: &Gpu,
        shape: &str,
        seed: u64,
        copies: usize,
        tokens: usize,
    ) -> anyhow::Result<Box<dyn Prepared>>;
}

/// A helper kernel's check row (e.g. activation quantization against its CPU rule).
pub struct HelperCheck {
    pub variant: String,
    pub error: f64,
    pub pass: bool,
    pub note: String,
}

pub trait Prepared {
    /// Bytes one call at width `t` must move at least (weights, inputs, outputs).
    fn bytes(&self, t: usize) -> usize;
    /// The whole op for tokens `0..t` on weight copy `copy`.
    fn forward(&mut self, gpu: &Gpu, copy: usize, t: usize, choose: Choose) -> anyhow::Result<()>;
    /// Only the routed launches of `forward` (its helper kernels already ran); the whole
    /// `forward` for ops without helper kernels.
    fn routed_only(
        &mut self,
        gpu: &Gpu,
        copy: usize,
        t: usize,
        choose: Choose,
    ) -> anyhow::Result<()> {
        self.forward(gpu, copy, t, choose)
    }
    /// Puts the output back in its prepared state (ops that add into their output, such
    /// as residual adds, need this before outputs of two routes can be compared); nothing
    /// for ops that overwrite their output.
    fn reset_output(&mut self, _gpu: &Gpu) -> anyhow::Result<()> {
        Ok(())
    }
    /// Output rows `0..t`, for comparing two routes.
    fn output(&self, gpu: &Gpu, t: usize) -> anyhow::Result<Vec<f64>>;
    /// Computes the CPU reference of every prepared token (weights of copy 0) and runs
    /// the helper kernels for all of them, checking those against their CPU rules.
    fn prepare_check(&mut self, gpu: &Gpu) -> anyhow::Result<Vec<HelperCheck>>;
    /// Readies the output for a checked launch: poisoned, so whatever a kernel does not
    /// write stays recognisable (ops that add into their output: its prepared values).
    fn ready_output_for_check(&mut self, gpu: &Gpu) -> anyhow::Result<()>;
    /// One launch of `variant` for tokens `0..width` on weight copy 0.
    fn launch_variant(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        width: usize,
    ) -> anyhow::Result<()>;
    /// The output after a checked launch at `width` against the CPU reference: (max
    /// relative error, what is wrong if anything).
    fn compare_with_reference(
        &self,
        gpu: &Gpu,
        width: usize,
    ) -> anyhow::Result<(f64, Option<String>)>;
    /// Readies the output, launches `variant` once for tokens `0..width`, and compares
    /// with the reference.
    fn check_variant(
        &mut self,
        gpu: &Gpu,
        variant: &'static Variant,
        width: usize,
    ) -> anyhow::Result<(f64, Option<String>)> {
        self.ready_output_for_check(gpu)?;
        let launched = self
            .launch_variant(gpu, variant, width)
            .and_then(|_| gpu.sync());
        check_outcome(launched, || self.compare_with_reference(gpu, width))
    }
    /// The same for the whole op at width `t` (split launches) through `choose`.
    fn check_forward(
        &mut self,
        gpu: &Gpu,
        t: usize,
        choose: Choose,
    ) -> anyhow::Result<(f64, Option<String>)> {
        self.ready_output_for_check(gpu)?;
        let launched = self.forward(gpu, 0, t, choose).and_then(|_| gpu.sync());
        check_outcome(launched, || self.compare_with_reference(gpu, t))
    }
}

/// Every family with a GPU implementation, in catalog order.
pub fn implemented() -> Vec<&'static dyn RoutedOp> {
    vec![
        &super::t2_i8_small::op::T2I8Small,
        &super::q4_linear_add::op::Q4LinearAdd,
        &super::q6_head::op::Q6Head,
        &super::attn_i8_small::op::AttnI8Small,
    ]
}

/// One route key of an implemented family.
pub struct KeyOf {
    pub op: &'static dyn RoutedOp,
    /// The key instance (`5120x17408`).
    pub shape: &'static str,
    /// `family/shape`.
    pub key: String,
}

/// Every route key of the implemented families, optionally only those starting with
/// `prefix`, in catalog order.
pub fn implemented_keys(prefix: Option<&str>) -> Vec<KeyOf> {
    implemented()
        .into_iter()
        .flat_map(|op| {
            let family = op.family();
            family.keys.iter().map(move |shape| KeyOf {
                op,
                shape,
                key: format!("{}/{}", family.name, shape),
            })
        })
        .filter(|k| prefix.is_none_or(|p| k.key.starts_with(p)))
        .collect()
}

/// The implementation of a catalog family, if it has one.
pub fn for_family(name: &str) -> Option<&'static dyn RoutedOp> {
    implemented()
        .into_iter()
        .find(|op| op.family().name == name)
}

/// Calls `launch(first, width)` for consecutive launches of at most `widest` columns
/// covering tokens `0..t`: how every op splits inputs wider than one launch serves.
pub fn split_launches(
    t: usize,
    widest: usize,
    mut launch: impl FnMut(usize, usize) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut first = 0;
    while first < t {
        let width = (t - first).min(widest);
        launch(first, width)?;
        first += width;
    }
    Ok(())
}

/// A checked launch's verdict: a launch or sync error is a failed check with its
/// message, not an error of the whole check run.
pub fn check_outcome(
    launched: anyhow::Result<()>,
    compare: impl FnOnce() -> anyhow::Result<(f64, Option<String>)>,
) -> anyhow::Result<(f64, Option<String>)> {
    match launched {
        Ok(()) => compare(),
        Err(e) => Ok((f64::INFINITY, Some(format!("{e:#}")))),
    }
}

/// `‖a − b‖ / ‖b‖`.
pub fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let (mut d2, mut b2) = (0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        d2 += (x - y) * (x - y);
        b2 += y * y;
    }
    if b2 > 0.0 {
        (d2 / b2).sqrt()
    } else if d2 > 0.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// A seed for "fresh" inputs: the clock, printed by callers so a failure can be replayed.
pub fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x9e3779b97f4a7c15)
}

#[cfg(test)]
mod tests {
    #[test]
    fn split_launches_covers_every_token_once() {
        let mut seen = Vec::new();
        super::split_launches(70, 32, |first, width| {
            seen.push((first, width));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(0, 32), (32, 32), (64, 6)]);
        let mut none = 0;
        super::split_launches(0, 32, |_, _| {
            none += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(none, 0);
    }
}
