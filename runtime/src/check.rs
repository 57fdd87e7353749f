//! `ninfer check`: every generated variant of every implemented family, on the GPU,
//! against the CPU reference, on fresh random inputs, with poisoned outputs, at every
//! width the variant serves. GPU integration tests call the same code.

use half::bf16;
use serde::Serialize;

use crate::catalog::{Variant, VARIANTS};
use crate::gpu::Gpu;
use crate::ops::routed;

/// A row passes when its relative L2 error is under this and every element is within
/// `ELEMENT_TOLERANCE` of the reference (relative to itself plus the row's RMS).
/// BF16 output rounding alone gives ~1e-3; a wrong index gives O(1).
pub const ROW_TOLERANCE: f64 = 5e-3;
pub const ELEMENT_TOLERANCE: f64 = 1e-2;

#[derive(Clone, Debug, Serialize)]
pub struct CheckRow {
    pub key: String,
    pub variant: String,
    pub width: u32,
    pub max_rel_error: f64,
    pub pass: bool,
    pub note: String,
}

pub struct CheckOptions {
    pub only: Option<String>,
    pub seed: Option<u64>,
    /// Only the variants of this schedule (a routed family's): no helper-check rows, no
    /// compiled-route forward check, no prompt-attention modules.
    pub schedule: Option<String>,
}

const POISON: u16 = 0xFFFF; // a BF16 NaN: any element left like this was never written

/// Compares rows `0..width` of `y` with the reference and checks rows past `width` are
/// untouched. Returns (max relative L2 error over rows, problem if any).
pub fn compare_rows(
    y: &[bf16],
    reference: &[f64],
    n: usize,
    width: usize,
    rows: usize,
) -> (f64, Option<String>) {
    compare_rows_with(y, reference, n, width, rows, |_| 0.0)
}

/// [`compare_rows`] with `allowance(i)` added to element `i`'s bound (index into
/// `reference`): for arithmetic whose own rounding is known to exceed the element
/// tolerance somewhere (FP16 accumulation).
pub fn compare_rows_with(
    y: &[bf16],
    reference: &[f64],
    n: usize,
    width: usize,
    rows: usize,
    allowance: impl Fn(usize) -> f64,
) -> (f64, Option<String>) {
    let mut worst = 0.0f64;
    for t in 0..rows {
        let got = &y[t * n..(t + 1) * n];
        if t >= width {
            if let Some(i) = got.iter().position(|v| v.to_bits() != POISON) {
                return (
                    worst,
                    Some(format!("wrote row {t} col {i} beyond width {width}")),
                );
            }
            continue;
        }
        let want = &reference[t * n..(t + 1) * n];
        let norm = want.iter().map(|v| v * v).sum::<f64>().sqrt();
        let rms = norm / (n as f64).sqrt();
        let mut err2 = 0.0;
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            let g = g.to_f64();
            if !g.is_finite() {
                return (
                    f64::INFINITY,
                    Some(format!("row {t} col {i} is {g} (unwritten or overflow)")),
                );
            }
            let d = (g - w).abs();
            if d > ELEMENT_TOLERANCE * (w.abs() + rms) + allowance(t * n + i) {
                return (
                    f64::INFINITY,
                    Some(format!("row {t} col {i}: got {g}, want {w:.6}")),
                );
            }
            err2 += d * d;
        }
        let rel = err2.sqrt() / norm.max(1e-30);
        worst = worst.max(rel);
    }
    (
        worst,
        (worst > ROW_TOLERANCE)
            .then(|| format!("relative error {worst:.2e} over {ROW_TOLERANCE:.0e}")),
    )
}

/// Unit roundoff of FP16 (round to nearest).
pub const FP16_UNIT_ROUNDOFF: f64 = 1.0 / 2048.0;

/// Rows of an FP16 P.V attention route against the f64 reference: [`compare_rows`] (row L2
/// within `ROW_TOLERANCE`, each element within `ELEMENT_TOLERANCE` x (|want| + row RMS))
/// plus 4 u x `magnitude` per element (u = 2^-11, `magnitude` = sum_j p_j |v_j| / l, the
/// attention output over |V|): every FP16 partial sum rounds at most at its own magnitude,
/// each product takes part in at most two such roundings, and a factor 2 of margin. An
/// attention output averages values of both signs, so on a channel whose V runs several
/// times the RMS (the checked caches plant two at 6x) FP16 accumulation alone can exceed
/// 1 % of the output element, which FP32 accumulation never does.
pub fn compare_rows_fp16_accumulated(
    y: &[bf16],
    reference: &[f64],
    n: usize,
    width: usize,
    rows: usize,
    magnitude: &[f64],
) -> (f64, Option<String>) {
    compare_rows_with(y, reference, n, width, rows, |i| {
        4.0 * FP16_UNIT_ROUNDOFF * magnitude[i]
    })
}

/// [`compare_rows`] for FP32 outputs (poisoned with all-ones words, a NaN).
pub fn compare_rows_f32(
    y: &[f32],
    reference: &[f64],
    n: usize,
    width: usize,
    rows: usize,
) -> (f64, Option<String>) {
    for t in width..rows {
        if let Some(i) = y[t * n..(t + 1) * n]
            .iter()
            .position(|v| v.to_bits() != u32::MAX)
        {
            return (
                0.0,
                Some(format!("wrote row {t} col {i} beyond width {width}")),
            );
        }
    }
    // Rows below width: the ordinary comparison, at BF16-or-better resolution.
    let mut worst = 0.0f64;
    for t in 0..width {
        let (got, want) = (&y[t * n..(t + 1) * n], &reference[t * n..(t + 1) * n]);
        let norm = want.iter().map(|v| v * v).sum::<f64>().sqrt();
        let rms = norm / (n as f64).sqrt();
        let mut err2 = 0.0;
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            let g = g as f64;
            if !g.is_finite() {
                return (
                    f64::INFINITY,
                    Some(format!("row {t} col {i} is {g} (unwritten or overflow)")),
                );
            }
            let d = (g - w).abs();
            if d > ELEMENT_TOLERANCE * (w.abs() + rms) {
                return (
                    f64::INFINITY,
                    Some(format!("row {t} col {i}: got {g}, want {w:.6}")),
                );
            }
            err2 += d * d;
        }
        worst = worst.max(err2.sqrt() / norm.max(1e-30));
    }
    (
        worst,
        (worst > ROW_TOLERANCE)
            .then(|| format!("relative error {worst:.2e} over {ROW_TOLERANCE:.0e}")),
    )
}

/// For ops that add into their output (residual adds): rows `0..width` of `y` against
/// the reference (which includes the initial values), rows past `width` must still hold
/// `initial` bit for bit. Returns (max relative L2 error over rows, problem if any).
pub fn compare_rows_add(
    y: &[bf16],
    initial: &[bf16],
    reference: &[f64],
    n: usize,
    width: usize,
    rows: usize,
) -> (f64, Option<String>) {
    for t in width..rows {
        let (got, was) = (&y[t * n..(t + 1) * n], &initial[t * n..(t + 1) * n]);
        if let Some(i) = got
            .iter()
            .zip(was)
            .position(|(a, b)| a.to_bits() != b.to_bits())
        {
            return (
                0.0,
                Some(format!("wrote row {t} col {i} beyond width {width}")),
            );
        }
    }
    // Rows below width: the ordinary comparison (poison rows are not consulted).
    let (err, problem) = compare_rows(&y[..width * n], reference, n, width, width);
    (err, problem)
}

pub fn run(
    gpu: &Gpu,
    opts: &CheckOptions,
    progress: &dyn Fn(&str),
) -> anyhow::Result<Vec<CheckRow>> {
    let mut rows = Vec::new();
    let seed = opts.seed.unwrap_or_else(crate::ops::routed::fresh_seed);
    if let Some(schedule) = opts.schedule.as_deref() {
        let keys = routed::implemented_keys(opts.only.as_deref());
        let known: std::collections::BTreeSet<&str> = keys
            .iter()
            .flat_map(|k| k.op.family().candidates.iter())
            .map(|&i| VARIANTS[i].schedule)
            .collect();
        anyhow::ensure!(
            known.contains(schedule),
            "--schedule {schedule}: no candidate of the selected keys has it (schedules: {})",
            known.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    for routed::KeyOf { op, shape, key } in routed::implemented_keys(opts.only.as_deref()) {
        let family = op.family();
        let tokens = op.check_tokens();
        progress(&format!("{key}: inputs and CPU reference (seed {seed})"));
        let mut inst = op.prepare(gpu, shape, seed, 1, tokens)?;
        // (prepares the references the variants are checked against; its own rows are
        // left out with --schedule)
        let helpers = inst.prepare_check(gpu)?;
        for h in helpers.into_iter().filter(|_| opts.schedule.is_none()) {
            rows.push(CheckRow {
                key: key.clone(),
                variant: h.variant,
                width: tokens as u32,
                max_rel_error: h.error,
                pass: h.pass,
                note: h.note,
            });
        }
        for &index in family.candidates {
            let variant: &'static Variant = &VARIANTS[index];
            if opts
                .schedule
                .as_deref()
                .is_some_and(|s| s != variant.schedule)
            {
                continue;
            }
            progress(&format!("{key}: {}", variant.name));
            for width in op.check_widths(variant) {
                let (err, problem) = inst.check_variant(gpu, variant, width)?;
                rows.push(CheckRow {
                    key: key.clone(),
                    variant: variant.name.into(),
                    width: width as u32,
                    max_rel_error: err,
                    pass: problem.is_none(),
                    note: problem.unwrap_or_default(),
                });
            }
        }
        // The whole op through the compiled route, with inputs wider than one launch.
        let forward = if opts.schedule.is_none() {
            op.forward_check_widths()
        } else {
            Vec::new()
        };
        for width in forward {
            let choose = |w: u32| family.compiled_variant(w);
            let (err, problem) = inst.check_forward(gpu, width, &choose)?;
            rows.push(CheckRow {
                key: key.clone(),
                variant: "forward (compiled route, split launches)".into(),
                width: width as u32,
                max_rel_error: err,
                pass: problem.is_none(),
                note: problem.unwrap_or_default(),
            });
        }
    }
    // Prompt attention: not a routed family (three switches choose its kernel).
    if opts.schedule.is_none() && crate::bench::selects_prompt(opts.only.as_deref()) {
        rows.extend(crate::ops::attn_prompt::check::run(
            gpu,
            opts.only.as_deref(),
            seed,
            progress,
        )?);
    }
    Ok(rows)
}

/// Fills a buffer with all-ones bytes (a NaN in BF16 and FP32): whatever a kernel does
/// not write stays so.
pub fn poison<T>(gpu: &Gpu, y: &mut cudarc::driver::CudaSlice<T>) -> anyhow::Result<()> {
    use cudarc::driver::DevicePtrMut;
    let bytes = y.len() * std::mem::size_of::<T>();
    let (ptr, _guard) = y.device_ptr_mut(&gpu.stream);
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, gpu.stream.cu_stream()) }?;
    Ok(())
}

/// Groups rows per (key, variant) for the default table: widths, worst error, verdict.
pub fn print_table(rows: &[CheckRow], every_width: bool) {
    println!(
        "{:<24} {:<44} {:>7} {:>12}  result",
        "key", "variant", "width", "max rel err"
    );
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        if !every_width {
            while j < rows.len() && rows[j].key == rows[i].key && rows[j].variant == rows[i].variant
            {
                j += 1;
            }
        }
        let group = &rows[i..j];
        let worst = group.iter().map(|r| r.max_rel_error).fold(0.0, f64::max);
        let failed: Vec<&CheckRow> = group.iter().filter(|r| !r.pass).collect();
        let widths = if group.len() == 1 {
            group[0].width.to_string()
        } else {
            format!("{}-{}", group[0].width, group.last().unwrap().width)
        };
        let verdict = if failed.is_empty() {
            "pass".to_string()
        } else {
            format!("FAIL ({})", failed[0].note)
        };
        println!(
            "{:<24} {:<44} {:>7} {:>12.2e}  {}",
            group[0].key, group[0].variant, widths, worst, verdict
        );
        if !failed.is_empty() && !every_width {
            for r in failed.iter().take(5) {
                println!(
                    "{:<24} {:<44} {:>7} {:>12.2e}  FAIL {}",
                    "", "", r.width, r.max_rel_error, r.note
                );
            }
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp16_comparison_allows_rounding_at_the_magnitude_and_nothing_more() {
        let want: Vec<f64> = (0..256)
            .map(|i| if i % 2 == 0 { 0.2 } else { -0.2 })
            .collect();
        let mut mag = vec![1.0; 256];
        mag[0] = 10.0;
        let to_bf16 = |v: &[f64]| -> Vec<bf16> { v.iter().map(|&x| bf16::from_f64(x)).collect() };
        // element 0 off by 0.015: over 1 % of (|w| + rms) = 0.004, within 4 u x 10 = 0.0195 more
        let mut ok = want.clone();
        ok[0] += 0.015;
        let (e, p) = compare_rows_fp16_accumulated(&to_bf16(&ok), &want, 256, 1, 1, &mag);
        assert!(p.is_none(), "{p:?}");
        assert!(e > 0.0);
        assert!(
            compare_rows(&to_bf16(&ok), &want, 256, 1, 1).1.is_some(),
            "FP32 bound rejects it"
        );
        // the same error where the magnitude is 1 fails
        let mut bad = want.clone();
        bad[2] += 0.015;
        let (_, p) = compare_rows_fp16_accumulated(&to_bf16(&bad), &want, 256, 1, 1, &mag);
        assert!(p.as_ref().is_some_and(|p| p.contains("col 2")), "{p:?}");
        // a row-wide error fails the L2 bound
        let wide: Vec<f64> = want.iter().map(|w| w * 1.01).collect();
        assert!(compare_rows_fp16_accumulated(
            &to_bf16(&wide),
            &want,
            256,
            1,
            1,
            &vec![100.0; 256]
        )
        .1
        .is_some());
        // unwritten
        let mut nan = want.clone();
        nan[5] = f64::NAN;
        assert!(
            compare_rows_fp16_accumulated(&to_bf16(&nan), &want, 256, 1, 1, &mag)
                .1
                .is_some()
        );
    }

    #[test]
    fn compare_rows_catches_wrong_unwritten_and_overwritten() {
        let n = 4;
        let reference = vec![1.0, -2.0, 3.0, 0.5, 1.0, 1.0, 1.0, 1.0];
        let poison = bf16::from_bits(POISON);
        let good: Vec<bf16> = reference[..4]
            .iter()
            .map(|v| bf16::from_f64(*v))
            .chain([poison; 4])
            .collect();
        assert_eq!(compare_rows(&good, &reference, n, 1, 2).1, None);
        let mut unwritten = good.clone();
        unwritten[2] = poison;
        assert!(compare_rows(&unwritten, &reference, n, 1, 2)
            .1
            .unwrap()
            .contains("row 0 col 2"));
        let mut wrong = good.clone();
        wrong[1] = bf16::from_f64(-1.0);
        assert!(compare_rows(&wrong, &reference, n, 1, 2).1.is_some());
        let mut overwritten = good.clone();
        overwritten[5] = bf16::from_f64(0.0);
        assert!(compare_rows(&overwritten, &reference, n, 1, 2)
            .1
            .unwrap()
            .contains("beyond width"));
    }

    #[test]
    fn compare_rows_f32_catches_wrong_unwritten_and_overwritten() {
        let n = 4;
        let reference = vec![1.0, -2.0, 3.0, 0.5, 1.0, 1.0, 1.0, 1.0];
        let poison = f32::from_bits(u32::MAX);
        let good: Vec<f32> = reference[..4]
            .iter()
            .map(|&v| v as f32)
            .chain([poison; 4])
            .collect();
        assert_eq!(compare_rows_f32(&good, &reference, n, 1, 2).1, None);
        let mut unwritten = good.clone();
        unwritten[2] = poison;
        assert!(compare_rows_f32(&unwritten, &reference, n, 1, 2)
            .1
            .unwrap()
            .contains("row 0 col 2"));
        let mut wrong = good.clone();
        wrong[1] = -1.0;
        assert!(compare_rows_f32(&wrong, &reference, n, 1, 2).1.is_some());
        let mut overwritten = good.clone();
        overwritten[5] = 0.0;
        assert!(compare_rows_f32(&overwritten, &reference, n, 1, 2)
            .1
            .unwrap()
            .contains("beyond width"));
    }

    #[test]
    fn compare_rows_add_checks_untouched_rows_bitwise() {
        let n = 2;
        let initial: Vec<bf16> = [0.5, -1.0, 2.0, 3.0]
            .iter()
            .map(|v| bf16::from_f64(*v))
            .collect();
        let reference = vec![1.5, 0.0, 9.0, 9.0];
        let mut y = initial.clone();
        y[0] = bf16::from_f64(1.5);
        y[1] = bf16::from_f64(0.0);
        assert_eq!(compare_rows_add(&y, &initial, &reference, n, 1, 2).1, None);
        let mut touched = y.clone();
        touched[3] = bf16::from_bits(initial[3].to_bits() ^ 1);
        assert!(compare_rows_add(&touched, &initial, &reference, n, 1, 2)
            .1
            .unwrap()
            .contains("beyond width"));
        let mut wrong = y.clone();
        wrong[0] = bf16::from_f64(0.5); // the add did not happen
        assert!(compare_rows_add(&wrong, &initial, &reference, n, 1, 2)
            .1
            .is_some());
    }
}
