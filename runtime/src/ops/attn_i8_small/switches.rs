//! The route switches of the decode attention (catalog `[[switch]]`), each with its
//! environment override: `attn_pv_f16` (FP16 P.V accumulation per key tile,
//! `NINFER_SMALLT_PV_F16`) and `attn_parallel_tiles` (requests of verify columns as
//! parallel query tiles, `NINFER_ATTN_PARALLEL_TILES`).

use crate::profile::lookup;
use crate::profile::overrides::{self, EnvOverrides};

/// The switch's route key: FP16 P.V accumulation.
pub const PV_F16_KEY: &str = "attn_pv_f16";
/// The switch's route key: parallel query tiles for requests of verify columns.
pub const PARALLEL_TILES_KEY: &str = "attn_parallel_tiles";

/// The requests `attn_parallel_tiles` is about, (window, verify columns) on an int8 cache:
/// what calibration measures it on and what `ninfer bench` times it on.
pub const PARALLEL_TILES_CASES: [(usize, usize); 4] =
    [(32768, 16), (32768, 32), (131072, 16), (131072, 32)];

/// A switch is on when its environment override says so, else when device `ordinal`'s
/// installed route (the compiled one without a profile) names `"on"`. A bad environment
/// variable counts as unset here: the engine refuses to start over it
/// (`overrides::validate`).
fn switch_on(ordinal: usize, key: &str, env: impl Fn(&EnvOverrides) -> Option<bool>) -> bool {
    if let Some(v) = overrides::get().ok().and_then(env) {
        return v;
    }
    lookup::table(ordinal)
        .schedule(key, 1)
        .is_some_and(|s| s == "on")
}

/// Whether the small-T attention on device `ordinal` accumulates P.V in FP16.
pub fn smallt_pv_f16(ordinal: usize) -> bool {
    switch_on(ordinal, PV_F16_KEY, |o| o.smallt_pv_f16)
}

/// Whether a request of 16 or 32 verify columns on device `ordinal` runs as parallel
/// query tiles.
pub fn parallel_tiles(ordinal: usize) -> bool {
    switch_on(ordinal, PARALLEL_TILES_KEY, |o| o.attn_parallel_tiles)
}

#[cfg(test)]
mod tests {
    #[test]
    fn switch_keys_are_catalog_switches() {
        for key in [super::PV_F16_KEY, super::PARALLEL_TILES_KEY] {
            crate::catalog::switch(key)
                .expect("catalog.toml declares it")
                .assert_boolean();
        }
    }
}
