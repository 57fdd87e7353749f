//! Random inputs of a registered shape, for checks, benchmarks and calibration: never
//! zeros, fresh on every run unless a seed is given. The head has 1.27 G codes, so the
//! weights come from a fast counter-based generator (splitmix64 per row, ten 6-bit codes
//! per draw), rows over threads.

use half::{bf16, f16};

use super::launch::Shape;
use super::pack::{pack_q6, PackedQ6, GROUP};
use super::par_chunks;

/// Dense codes in −32..=31 (uniform) and per-(row, 64-group) scales.
pub struct DenseQ6 {
    pub shape: Shape,
    pub codes: Vec<i8>,
    pub scales: Vec<f16>,
}

/// splitmix64: a fast counter-based generator for synthetic weights and caches.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub fn random_weights(shape: Shape, seed: u64) -> DenseQ6 {
    let (n, k) = (shape.n, shape.k);
    let mut codes = vec![0i8; n * k];
    par_chunks(&mut codes, k, |row0, chunk| {
        for (ri, row) in chunk.chunks_mut(k).enumerate() {
            let mut st = seed ^ ((row0 + ri) as u64).wrapping_mul(0xd134_2543_de82_ef95);
            for ten in row.chunks_mut(10) {
                let mut r = splitmix64(&mut st);
                for c in ten {
                    *c = (r & 63) as i8 - 32;
                    r >>= 6;
                }
            }
        }
    });
    let mut st = seed ^ 0x5ca1_e5ca_1e5c_a1e5;
    let scales = (0..n * (k / GROUP))
        .map(|_| {
            let u = (splitmix64(&mut st) >> 40) as f32 / (1u64 << 24) as f32;
            f16::from_f32((0.5 + u) * 0.002)
        })
        .collect();
    DenseQ6 {
        shape,
        codes,
        scales,
    }
}

impl DenseQ6 {
    pub fn pack(&self) -> PackedQ6 {
        pack_q6(&self.codes, &self.scales, self.shape.n, self.shape.k)
    }
}

/// Activations x[t][k]: values in (−1, 1) with a few larger outliers (as q4's).
pub fn random_activations(t: usize, k: usize, seed: u64) -> Vec<bf16> {
    crate::ops::q4_linear_add::synthetic::random_activations(t, k, seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::q6_head::reference;

    /// Host cost of a `ninfer check` of the real head (run with `--release --ignored`):
    /// weights, packing, and the f64 reference of 64 tokens (timed on 1/16 of the rows
    /// and scaled).
    #[test]
    #[ignore = "a timing probe of the full head on the host: run with --release --ignored"]
    fn full_head_host_cost() {
        let shape = Shape {
            n: 248_320,
            k: 5120,
        };
        let t0 = std::time::Instant::now();
        let dense = random_weights(shape, 1);
        let t1 = t0.elapsed();
        let packed = dense.pack();
        let t2 = t0.elapsed();
        assert_eq!(packed.codes.len(), shape.n * shape.k * 3 / 4);
        let x = random_activations(64, shape.k, 2);
        let rows = shape.n / 16;
        let t3 = std::time::Instant::now();
        let r = reference::reference(
            &dense.codes[..rows * shape.k],
            &dense.scales[..rows * shape.k / 64],
            &x,
            rows,
            shape.k,
            64,
        );
        let t4 = t3.elapsed();
        assert!(r.iter().all(|v| v.is_finite()));
        eprintln!(
            "cores {:?}: weights {:.2?}, pack {:.2?}, reference of 64 tokens {:.2?} for 1/16 of the rows (x16 = {:.1?})",
            std::thread::available_parallelism(),
            t1,
            t2 - t1,
            t4,
            t4 * 16
        );
    }
}
