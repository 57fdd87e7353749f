//! Random inputs of a registered shape, for checks, benchmarks and calibration:
//! never zeros, fresh on every run unless a seed is given.

use half::{bf16, f16};
use rand::{Rng, SeedableRng};

use super::launch::Shape;
use super::pack::{pack_ternary, PackedTernary};

/// Dense ternary codes in {-1, 0, +1} (a third each) and per-(row, 128-group) scales.
pub struct DenseTernary {
    pub shape: Shape,
    pub codes: Vec<i8>,
    pub scales: Vec<f16>,
}

pub fn random_weights(shape: Shape, seed: u64) -> DenseTernary {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let codes = (0..shape.n * shape.k)
        .map(|_| rng.random_range(-1i8..=1))
        .collect();
    let scales = (0..shape.n * (shape.k / 128))
        .map(|_| f16::from_f32(rng.random_range(0.5f32..1.5) * 0.02))
        .collect();
    DenseTernary {
        shape,
        codes,
        scales,
    }
}

impl DenseTernary {
    pub fn pack(&self) -> PackedTernary {
        pack_ternary(&self.codes, &self.scales, self.shape.n, self.shape.k)
    }
}

/// Activations x[t][k]: normal-ish values with a few larger outliers, as real
/// activations have, so per-group scales differ.
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
