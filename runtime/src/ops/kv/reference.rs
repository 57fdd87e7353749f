//! CPU reference of causal decode attention of `W` new query columns against a KV
//! cache, for every format (f64, written from the definition):
//!
//! ```text
//!   len = cache.len()            (the W new tokens are already appended)
//!   query i (0..W), head h: keys j = 0 ..= len - W + i of KV head g = h / (q_heads / kv_heads)
//!   s_j = (q · k_j) / sqrt(256)        p = softmax_j(s)        out = sum_j p_j v_j
//! ```
//!
//! `k_j`, `v_j` are the dequantized cache rows. For the rotated formats the query is
//! rotated by the same normalized Hadamard transform (in f64) and dotted with the stored,
//! rotated K: since H is orthonormal this is attention over the inverse-rotated K
//! (test `rotated_formats_equal_attention_over_the_unrotated_keys`).
//!
//! Layouts: `q` `[W][q_heads][256]` BF16 (query head `h` of column `i` at
//! `(i * q_heads + h) * 256`), the output `[W][q_heads][256]` f64.
//!
//! [`attention_partial`] and [`merge`] are the split-KV rule: each key range gives a
//! running max `m`, a sum `l = sum exp(s - m)` and an unnormalized `o = sum exp(s - m) v`;
//! partials merge by rescaling to the common max.

use super::cache::KvCache;
use super::hadamard::rotate_bf16_f64;
use super::HEAD_DIM;
use half::bf16;
use std::ops::Range;

/// The softmax scale `1 / sqrt(256)`.
pub const SCALE: f64 = 0.0625;

/// One (query column, head)'s share of attention over a key range (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Partial {
    /// Max score over the range's visible keys (`-inf` when none is visible).
    pub m: f64,
    /// `sum exp(s - m)`.
    pub l: f64,
    /// `sum exp(s - m) v`, 256 values.
    pub o: Vec<f64>,
}

/// The dequantized cache as f64 per KV head: (K `[len][256]` in the stored space, V).
pub fn dequantized(cache: &KvCache) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let len = cache.len();
    let widen = |x: Vec<f32>| x.into_iter().map(|v| v as f64).collect::<Vec<f64>>();
    (0..cache.kv_heads())
        .map(|h| {
            (
                widen(cache.read_k(h, 0..len)),
                widen(cache.read_v(h, 0..len)),
            )
        })
        .unzip()
}

/// The queries as f64 in the cache's K space (rotated for the rotated formats).
pub fn queries(cache: &KvCache, q: &[bf16]) -> Vec<f64> {
    assert_eq!(q.len() % HEAD_DIM, 0);
    if cache.format().rotated() {
        q.chunks(HEAD_DIM).flat_map(rotate_bf16_f64).collect()
    } else {
        q.iter().map(|v| v.to_f64()).collect()
    }
}

/// Partials of every (column, head) over the keys `keys` (`[W][q_heads]`, row-major);
/// `q` as from [`queries`], `k`, `v` per KV head `[len][256]`, causal as in the module
/// docs.
pub fn attention_partial(
    q: &[f64],
    w: usize,
    k: &[Vec<f64>],
    v: &[Vec<f64>],
    len: usize,
    keys: Range<usize>,
) -> Vec<Partial> {
    let kv_heads = k.len();
    assert!(w >= 1 && len >= w, "need 1 <= W = {w} <= len = {len}");
    assert_eq!(q.len() % (w * HEAD_DIM), 0);
    let q_heads = q.len() / (w * HEAD_DIM);
    assert!(
        q_heads.is_multiple_of(kv_heads),
        "{q_heads} query heads over {kv_heads} KV heads"
    );
    assert!(k.iter().chain(v).all(|x| x.len() >= len * HEAD_DIM));
    assert!(keys.end <= len);
    let group = q_heads / kv_heads;
    let mut out = Vec::with_capacity(w * q_heads);
    let mut s = Vec::new();
    for i in 0..w {
        let visible = (len - w + i + 1).min(keys.end);
        for h in 0..q_heads {
            let (kh, vh) = (&k[h / group], &v[h / group]);
            let qh = &q[(i * q_heads + h) * HEAD_DIM..][..HEAD_DIM];
            s.clear();
            s.extend((keys.start..visible.max(keys.start)).map(|j| {
                let kj = &kh[j * HEAD_DIM..][..HEAD_DIM];
                qh.iter().zip(kj).map(|(a, b)| a * b).sum::<f64>() * SCALE
            }));
            let m = s.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let mut o = vec![0.0f64; HEAD_DIM];
            let mut l = 0.0;
            for (jj, &sj) in s.iter().enumerate() {
                let p = (sj - m).exp();
                l += p;
                let vj = &vh[(keys.start + jj) * HEAD_DIM..][..HEAD_DIM];
                for (a, b) in o.iter_mut().zip(vj) {
                    *a += p * b;
                }
            }
            out.push(Partial { m, l, o });
        }
    }
    out
}

/// Merges the partials of disjoint key ranges (any order) and normalizes: the output
/// row `o / l`. A (column, head) with no visible key at all gives zeros.
pub fn merge(parts: &[&Partial]) -> Vec<f64> {
    let m = parts.iter().fold(f64::NEG_INFINITY, |a, p| a.max(p.m));
    let mut o = vec![0.0f64; HEAD_DIM];
    if m == f64::NEG_INFINITY {
        return o;
    }
    let mut l = 0.0;
    for p in parts.iter().filter(|p| p.m > f64::NEG_INFINITY) {
        let c = (p.m - m).exp();
        l += c * p.l;
        for (a, b) in o.iter_mut().zip(&p.o) {
            *a += c * b;
        }
    }
    o.iter_mut().for_each(|a| *a /= l);
    o
}

/// Causal attention over explicit f64 K/V (per KV head `[len][256]`), `q` `[W][q_heads][256]`
/// already in K's space; output `[W][q_heads][256]`.
pub fn attention_f64(q: &[f64], w: usize, k: &[Vec<f64>], v: &[Vec<f64>], len: usize) -> Vec<f64> {
    attention_partial(q, w, k, v, len, 0..len)
        .iter()
        .flat_map(|p| merge(&[p]))
        .collect()
}

/// The reference: causal attention of the `W` last tokens' queries `q` (BF16
/// `[W][q_heads][256]`) against `cache` (module docs).
pub fn reference_attention(cache: &KvCache, q: &[bf16], w: usize) -> Vec<f64> {
    let (k, v) = dequantized(cache);
    attention_f64(&queries(cache, q), w, &k, &v, cache.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::kv::format::KvFormat;
    use crate::ops::kv::{KV_HEADS, Q_HEADS};
    use rand::{Rng, SeedableRng};

    fn rand_bf16(n: usize, lo: f32, hi: f32, rng: &mut impl Rng) -> Vec<bf16> {
        (0..n)
            .map(|_| bf16::from_f32(rng.random_range(lo..hi)))
            .collect()
    }

    /// K/V as f64 per KV head from `[len][kv_heads][256]` BF16 rows.
    fn per_head(x: &[bf16], len: usize) -> Vec<Vec<f64>> {
        (0..KV_HEADS)
            .map(|h| {
                (0..len)
                    .flat_map(|t| &x[(t * KV_HEADS + h) * HEAD_DIM..][..HEAD_DIM])
                    .map(|v| v.to_f64())
                    .collect()
            })
            .collect()
    }

    struct Case {
        k: Vec<bf16>,
        v: Vec<bf16>,
        q: Vec<bf16>,
        len: usize,
        w: usize,
    }

    fn case(len: usize, w: usize, seed: u64) -> Case {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let n = len * KV_HEADS * HEAD_DIM;
        Case {
            k: rand_bf16(n, -1.0, 1.0, &mut rng),
            v: rand_bf16(n, -1.0, 1.0, &mut rng),
            q: rand_bf16(w * Q_HEADS * HEAD_DIM, -1.0, 1.0, &mut rng),
            len,
            w,
        }
    }

    fn cache(f: KvFormat, c: &Case) -> KvCache {
        let mut kv = KvCache::new(f, KV_HEADS);
        kv.append(&c.k, &c.v, c.len);
        kv
    }

    fn max_diff(a: &[f64], b: &[f64]) -> f64 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
    }

    fn exact_f64(c: &Case) -> Vec<f64> {
        let q: Vec<f64> = c.q.iter().map(|v| v.to_f64()).collect();
        attention_f64(
            &q,
            c.w,
            &per_head(&c.k, c.len),
            &per_head(&c.v, c.len),
            c.len,
        )
    }

    #[test]
    fn int8_with_exact_codes_is_attention_over_the_rows() {
        // Every 64-group holds multiples of 2^-7 with absmax 127 * 2^-7: the scale is
        // exactly 2^-7 and the codes are exact, so the cache holds the rows exactly.
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let (len, w) = (97, 3);
        let mut c = case(len, w, 12);
        for x in [&mut c.k, &mut c.v] {
            for (i, g) in x.chunks_mut(64).enumerate() {
                for e in g.iter_mut() {
                    *e = bf16::from_f32(rng.random_range(-127i32..=127) as f32 / 128.0);
                }
                g[i % 64] = bf16::from_f32(if i % 2 == 0 { 127.0 } else { -127.0 } / 128.0);
            }
        }
        let kv = cache(KvFormat::Int8, &c);
        let d = max_diff(&reference_attention(&kv, &c.q, w), &exact_f64(&c));
        assert!(d < 1e-12, "{d}");
    }

    #[test]
    fn every_format_is_close_to_attention_over_the_bf16_rows() {
        // Uniform(-1, 1) K, V and queries; bounds ~3x the observed max error (8.4e-4,
        // 1.4e-2, 1.5e-2: the int4 V dominates both rotated formats).
        let c = case(131, 1, 13);
        let exact = exact_f64(&c);
        for (f, tol) in [
            (KvFormat::Int8, 3e-3),
            (KvFormat::Rk8v4, 3e-2),
            (KvFormat::Rk4v4, 4.5e-2),
        ] {
            let d = max_diff(&reference_attention(&cache(f, &c), &c.q, c.w), &exact);
            assert!(d < tol, "{f}: {d}");
        }
    }

    #[test]
    fn rotated_formats_equal_attention_over_the_unrotated_keys() {
        let c = case(70, 2, 14);
        for f in [KvFormat::Rk8v4, KvFormat::Rk4v4] {
            let kv = cache(f, &c);
            let k: Vec<Vec<f64>> = (0..KV_HEADS)
                .map(|h| kv.read_k_unrotated(h, 0..c.len))
                .collect();
            let (_, v) = dequantized(&kv);
            let q: Vec<f64> = c.q.iter().map(|x| x.to_f64()).collect();
            let plain = attention_f64(&q, c.w, &k, &v, c.len);
            let d = max_diff(&reference_attention(&kv, &c.q, c.w), &plain);
            assert!(d < 1e-12, "{f}: {d}");
        }
    }

    #[test]
    fn causal_mask_for_several_columns() {
        // Column i of a W-column call equals a 1-column call over the keys up to token
        // len - W + i (the cache cut there), for windows on and off page boundaries.
        for (len, w, f) in [
            (65, 4, KvFormat::Int8),
            (128, 2, KvFormat::Rk8v4),
            (9, 8, KvFormat::Rk4v4),
        ] {
            let c = case(len, w, len as u64);
            let kv = cache(f, &c);
            let full = reference_attention(&kv, &c.q, w);
            let (k, v) = dequantized(&kv);
            let q = queries(&kv, &c.q);
            let row = Q_HEADS * HEAD_DIM;
            // Keys after column 0's last one do not matter to it: change them all.
            let mut k2 = k.clone();
            for x in k2.iter_mut() {
                x[(len - w + 1) * HEAD_DIM..]
                    .iter_mut()
                    .for_each(|e| *e = 9.0);
            }
            let masked = attention_f64(&q, w, &k2, &v, len);
            assert!(max_diff(&masked[..row], &full[..row]) < 1e-13);
            for i in 0..w {
                let cut = len - w + i + 1;
                let one = attention_f64(&q[i * row..(i + 1) * row], 1, &k, &v, cut);
                let d = max_diff(&full[i * row..(i + 1) * row], &one);
                assert!(d < 1e-13, "{f} len {len} column {i}: {d}");
            }
        }
    }

    #[test]
    fn single_key_returns_its_value_and_gqa_maps_heads() {
        let c = case(1, 1, 15);
        let kv = cache(KvFormat::Int8, &c);
        let out = reference_attention(&kv, &c.q, 1);
        let (_, v) = dequantized(&kv);
        for h in 0..Q_HEADS {
            let d = max_diff(&out[h * HEAD_DIM..][..HEAD_DIM], &v[h / 6]);
            assert!(d < 1e-15, "head {h}");
        }
    }

    #[test]
    fn split_kv_partials_merge_to_the_whole() {
        let c = case(130, 3, 16);
        let kv = cache(KvFormat::Rk8v4, &c);
        let (k, v) = dequantized(&kv);
        let q = queries(&kv, &c.q);
        let whole = attention_f64(&q, c.w, &k, &v, c.len);
        // Splits off page boundaries, the last (129..130) invisible to the early columns.
        let ranges = [0..40, 40..64, 64..129, 129..130];
        let parts: Vec<Vec<Partial>> = ranges
            .iter()
            .map(|r| attention_partial(&q, c.w, &k, &v, c.len, r.clone()))
            .collect();
        let merged: Vec<f64> = (0..c.w * Q_HEADS)
            .flat_map(|i| merge(&parts.iter().rev().map(|p| &p[i]).collect::<Vec<_>>()))
            .collect();
        assert!(max_diff(&merged, &whole) < 1e-13);
        assert!(parts[3][0].m == f64::NEG_INFINITY && parts[3][0].l == 0.0);
    }
}
