//! Tensor maps (`CUtensorMap`) of row-major BF16 or int8 matrices, for kernels that land tiles in
//! shared memory with `cp.async.bulk.tensor` (sm_90 TMA): the copy engine applies the
//! 128-byte swizzle that wgmma reads, and fills rows past the matrix with zeros. A map is
//! a 128-byte kernel parameter (`__grid_constant__`), encoded on the host for each launch
//! (the base address changes with the launch's first token).

use anyhow::{ensure, Context as _};
use cudarc::driver::sys;

/// The element of a tiled matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileElem {
    /// BF16 activations (q4_linear_add's warpgroup schedules).
    Bf16,
    /// int8 activation codes (t2_i8_small's warpgroup schedules).
    I8,
}

impl TileElem {
    fn bytes(self) -> usize {
        match self {
            TileElem::Bf16 => 2,
            TileElem::I8 => 1,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TileElem::Bf16 => "BF16",
            TileElem::I8 => "int8",
        }
    }

    fn data_type(self) -> sys::CUtensorMapDataType {
        match self {
            TileElem::Bf16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            TileElem::I8 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        }
    }
}

/// A 2-D tiling of a row-major matrix `[rows][cols]` of `elem` (row stride `cols`
/// elements) into boxes of `box_rows` rows by `box_cols` columns, with the 128-byte
/// swizzle: what the plan checks is what `cuTensorMapEncodeTiled` requires of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwizzledTiles {
    pub elem: TileElem,
    pub rows: usize,
    pub cols: usize,
    pub box_rows: usize,
    pub box_cols: usize,
}

/// Whether `variant` takes its activations' tensor map as its last parameter (catalog
/// `x_tensor_map`: the warpgroup schedules, which land the token rows with TMA copies).
pub fn takes_x_tensor_map(variant: &crate::catalog::Variant) -> bool {
    variant.launch.extra("x_tensor_map") == Some(1)
}

/// The swizzle span: a box row must be exactly this wide for the 128-byte swizzle.
const SWIZZLE_BYTES: usize = 128;

impl SwizzledTiles {
    /// Checks the limits of a tiled map with the 128-byte swizzle: rows of 16-byte
    /// multiples, box rows of exactly 128 bytes, at most 256 rows a box.
    pub fn validate(&self) -> anyhow::Result<()> {
        let SwizzledTiles {
            elem,
            rows,
            cols,
            box_rows,
            box_cols,
        } = *self;
        let (bytes, name) = (elem.bytes(), elem.name());
        ensure!(rows >= 1 && cols >= 1, "empty matrix {rows}x{cols}");
        ensure!(
            (cols * bytes).is_multiple_of(16),
            "rows of {cols} {name} values are not a multiple of 16 bytes"
        );
        ensure!(
            box_cols * bytes == SWIZZLE_BYTES,
            "a box row of {box_cols} {name} values is not the 128-byte swizzle span"
        );
        ensure!(
            (1..=256).contains(&box_rows),
            "{box_rows} rows a box (1..=256)"
        );
        ensure!(
            (rows as u64) < (1 << 32) && (cols as u64) < (1 << 32),
            "matrix {rows}x{cols} too large for a tensor map"
        );
        Ok(())
    }

    /// Bytes one box lands in shared memory (rows past the matrix are zero-filled and
    /// counted): what the kernel's mbarrier expects.
    pub fn box_bytes(&self) -> usize {
        self.box_rows * self.box_cols * self.elem.bytes()
    }

    /// The map of the matrix at device address `base` (16-byte aligned).
    pub fn encode(&self, base: u64) -> anyhow::Result<sys::CUtensorMap> {
        self.validate()?;
        ensure!(
            base.is_multiple_of(16),
            "tensor map base {base:#x} is not 16-byte aligned"
        );
        let dims = [self.cols as u64, self.rows as u64];
        let strides = [(self.cols * self.elem.bytes()) as u64]; // of dimension 1; dimension 0 is dense
        let boxes = [self.box_cols as u32, self.box_rows as u32];
        let element_strides = [1u32, 1];
        let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
        // SAFETY: every pointer is to a live local array of the rank's length; the driver
        // writes the 128-byte map.
        unsafe {
            sys::cuTensorMapEncodeTiled(
                map.as_mut_ptr(),
                self.elem.data_type(),
                2,
                base as *mut std::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
            .result()
            .with_context(|| format!("encoding the tensor map of {self:?}"))?;
            Ok(map.assume_init())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(rows: usize, cols: usize, box_rows: usize, box_cols: usize) -> SwizzledTiles {
        SwizzledTiles {
            elem: TileElem::Bf16,
            rows,
            cols,
            box_rows,
            box_cols,
        }
    }

    #[test]
    fn accepts_the_q4_activation_boxes() {
        for (k, width) in [(6144, 33), (17408, 64), (17408, 1)] {
            let t = tiles(width, k, 64, 64);
            t.validate().unwrap();
            assert_eq!(t.box_bytes(), 64 * 128);
        }
    }

    #[test]
    fn accepts_the_t2_code_boxes() {
        for (k, width) in [(6144, 17), (17408, 32), (5120, 1)] {
            let t = SwizzledTiles {
                elem: TileElem::I8,
                rows: width,
                cols: k,
                box_rows: 32,
                box_cols: 128,
            };
            t.validate().unwrap();
            assert_eq!(t.box_bytes(), 32 * 128);
        }
        let narrow = SwizzledTiles {
            elem: TileElem::I8,
            rows: 1,
            cols: 128,
            box_rows: 32,
            box_cols: 64,
        };
        let err = narrow.validate().unwrap_err().to_string();
        assert!(err.contains("64 int8 values"), "{err}");
    }

    #[test]
    fn names_what_breaks_the_limits() {
        let err = |t: SwizzledTiles| t.validate().unwrap_err().to_string();
        assert!(err(tiles(4, 100, 8, 64)).contains("16 bytes"));
        assert!(err(tiles(4, 128, 8, 32)).contains("swizzle span"));
        assert!(err(tiles(4, 128, 300, 64)).contains("300 rows"));
        assert!(err(tiles(0, 128, 8, 64)).contains("empty"));
    }
}
