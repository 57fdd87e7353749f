//! The shape of a projection route key: `<N out>x<K in>` (`t2_i8_small/5120x17408`).

use anyhow::Context as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub n: usize,
    pub k: usize,
}

impl Shape {
    pub fn parse(shape: &str) -> anyhow::Result<Shape> {
        let (n, k) = shape
            .split_once('x')
            .with_context(|| format!("shape {shape:?} is not <N>x<K>"))?;
        Ok(Shape {
            n: n.parse().with_context(|| format!("N of shape {shape:?}"))?,
            k: k.parse().with_context(|| format!("K of shape {shape:?}"))?,
        })
    }

    /// Bytes of an N×K weight matrix of `bits`-bit codes with one FP16 scale per
    /// `group` elements along K: what a projection must read at least.
    pub fn groupwise_weight_bytes(&self, bits: usize, group: usize) -> usize {
        self.n * self.k * bits / 8 + self.n * (self.k / group) * 2
    }
}

#[cfg(test)]
mod tests {
    use super::Shape;

    #[test]
    fn parses_and_refuses() {
        assert_eq!(
            Shape::parse("5120x17408").unwrap(),
            Shape { n: 5120, k: 17408 }
        );
        assert!(Shape::parse("5120").is_err());
        assert!(Shape::parse("ax5").is_err());
        assert!(Shape::parse("5x").is_err());
    }

    #[test]
    fn groupwise_bytes() {
        let s = Shape { n: 5120, k: 17408 };
        assert_eq!(
            s.groupwise_weight_bytes(2, 128),
            5120 * 17408 / 4 + 5120 * 136 * 2
        );
        assert_eq!(
            s.groupwise_weight_bytes(4, 64),
            5120 * 17408 / 2 + 5120 * 272 * 2
        );
    }
}
