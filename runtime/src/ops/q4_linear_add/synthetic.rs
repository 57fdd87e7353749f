//! Random inputs of a registered shape, for checks, benchmarks and calibration:
//! never zeros, fresh on every run unless a seed is given.

use half::{bf16, f16};
use rand::{Rng, SeedableRng};

use super::launch::Shape;
use super::pack::{pack_q4, PackedQ4, GROUP};

/// Dense codes in −8..=7 (uniform) and per-(row, 64-group) scales.
pub struct DenseQ4 {
    pub shape: Shape,
    pub codes: Vec<i8>,
    pub scales: Vec<f16>,
}

pub fn random_weights(shape: Shape, seed: u64) -> DenseQ4 {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let codes = (0..shape.n * shape.k)
        .map(|_| rng.random_range(-8i8..=7))
        .collect();
    let scales = (0..shape.n * (shape.k / GROUP))
        .map(|_| f16::from_f32(rng.random_range(0.5f32..1.5) * 0.004))
        .collect();
    DenseQ4 {
        shape,
        codes,
        scales,
    }
}

impl DenseQ4 {
    pub fn pack(&self) -> PackedQ4 {
        pack_q4(&self.codes, &self.scales, self.shape.n, self.shape.k)
    }
}

/// Activations x[t][k]: values in (−1, 1) with a few larger outliers.
pub fn random_activations(t: usize, k: usize, seed: u64) -> Vec<bf16> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..t * k)
        .map(|_| {
            let u: f32 = rng.random_range(-1.0..1.0);
            let outlier = if rng.random_range(0..64) == 0 {
                8.0
            } else {
                1.0
            };
            bf16::from_f32(u * outlier)
        })
        .collect()
}

/// The residual stream before the add: values of about the size the product adds.
pub fn random_residual(t: usize, n: usize, seed: u64) -> Vec<bf16> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..t * n)
        .map(|_| bf16::from_f32(rng.random_range(-1.0f32..1.0)))
        .collect()
}
