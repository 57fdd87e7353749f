//! The route switches of the decode attention: `attn_pv_f16` (FP16 P.V accumulation per
//! key tile), overridden by `NINFER_SMALLT_PV_F16`.

use crate::profile::{lookup, overrides};

/// The switch's route key.
pub const PV_F16_KEY: &str = "attn_pv_f16";

/// Whether the small-T attention accumulates P.V in FP16: the environment override,
/// else the installed route (`"on"`), else off.
pub fn smallt_pv_f16() -> bool {
    if let Ok(o) = overrides::get() {
        if let Some(v) = o.smallt_pv_f16 {
            return v;
        }
    }
    lookup::table(0)
        .schedule(PV_F16_KEY, 1)
        .is_some_and(|s| s == "on")
}

/// The switch's route key: parallel query tiles for requests of verify columns.
pub const PARALLEL_TILES_KEY: &str = "attn_parallel_tiles";

/// Whether a request of 16 or 32 verify columns runs as parallel query tiles: the
/// environment override (`NINFER_ATTN_PARALLEL_TILES`), else the installed route.
pub fn parallel_tiles() -> bool {
    if let Ok(o) = overrides::get() {
        if let Some(v) = o.attn_parallel_tiles {
            return v;
        }
    }
    lookup::table(0)
        .schedule(PARALLEL_TILES_KEY, 1)
        .is_some_and(|s| s == "on")
}
