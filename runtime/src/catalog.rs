//! The build's kernel catalog, as generated from `catalog.toml` by `build.rs`
//! (see `codegen::emit`). The types live here; the data is in `generated`.
//! Nothing in this file restates what the catalog says.

/// Which `ninfer-calibrate` switch (`--no-<flag>`) a family belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CalibrationFlag {
    Ternary,
    Groupwise,
    Attention,
    LinearAttention,
}

/// A named integer: a schedule parameter, or a launch value of a variant.
pub type Param = (&'static str, i64);

/// How the host launches one variant. `threads`, `shared_bytes` and `max_width`
/// every family has; the rest (`rows_per_cta`, ...) are family-specific in `extra`.
#[derive(Clone, Copy, Debug)]
pub struct Launch {
    pub threads: u32,
    pub shared_bytes: u32,
    /// Widest input (tokens, or KV window for attention) one launch of this variant serves.
    pub max_width: u32,
    pub extra: &'static [Param],
}

impl Launch {
    pub fn extra(&self, name: &str) -> Option<i64> {
        self.extra.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

/// One compiled kernel: a family rendered with one schedule (or a non-routed module).
#[derive(Debug)]
pub struct Variant {
    /// `<family>__<schedule>`; also the CUDA entry point's name.
    pub name: &'static str,
    pub family: &'static str,
    pub schedule: &'static str,
    pub params: &'static [Param],
    pub launch: Launch,
    /// PTX for `compute_<BASELINE_PTX_ARCH>` (80): loads on every supported GPU.
    pub ptx: &'static str,
    /// PTX for newer virtual architectures, increasing (the family's `ptx_archs` in
    /// catalog.toml; templates branch on `__CUDA_ARCH__`).
    pub arch_ptx: &'static [ArchPtx],
}

/// The PTX of one virtual architecture: `compute_<arch>`, or with `specific` the
/// architecture-specific `compute_<arch>a` (sm_90a: wgmma) that only a GPU of exactly
/// that compute capability runs.
#[derive(Clone, Copy, Debug)]
pub struct ArchPtx {
    pub arch: u32,
    pub specific: bool,
    pub ptx: &'static str,
}

impl ArchPtx {
    /// Whether a GPU of compute capability `cc` (major * 10 + minor) runs it.
    pub fn runs_on(&self, cc: u32) -> bool {
        if self.specific {
            cc == self.arch
        } else {
            self.arch <= cc
        }
    }

    /// `compute_90`, `compute_90a`.
    pub fn name(&self) -> String {
        format!(
            "compute_{}{}",
            self.arch,
            if self.specific { "a" } else { "" }
        )
    }
}

impl Variant {
    /// The PTX a GPU of compute capability `cc` (major * 10 + minor) loads: the newest
    /// `arch_ptx` entry it runs, else the `compute_80` baseline.
    pub fn ptx_for(&self, cc: u32) -> ArchPtx {
        self.arch_ptx
            .iter()
            .rev()
            .find(|a| a.runs_on(cc))
            .copied()
            .unwrap_or_else(|| self.baseline_ptx())
    }

    /// The `compute_80` PTX every supported GPU runs.
    pub fn baseline_ptx(&self) -> ArchPtx {
        ArchPtx {
            arch: BASELINE_PTX_ARCH,
            specific: false,
            ptx: self.ptx,
        }
    }

    pub fn param(&self, name: &str) -> Option<i64> {
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

/// A routed kernel family.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub calibration: CalibrationFlag,
    /// Key instances (shapes); the route key is `<name>/<key>`.
    pub keys: &'static [&'static str],
    /// Widths calibration measures.
    pub widths: &'static [u32],
    /// The compiled route: `(last_width, schedule)`, inclusive, strictly increasing.
    pub compiled: &'static [(u32, &'static str)],
    /// Candidate variants in declared order (indices into `VARIANTS`).
    pub candidates: &'static [usize],
}

impl Family {
    /// The candidate variant named `schedule`, if it is one.
    pub fn candidate(&self, schedule: &str) -> Option<&'static Variant> {
        self.candidates
            .iter()
            .map(|&i| &VARIANTS[i])
            .find(|v| v.schedule == schedule)
    }

    /// The widest launch any candidate serves (its `max_width`).
    pub fn widest_launch(&self) -> usize {
        self.candidates
            .iter()
            .map(|&i| VARIANTS[i].launch.max_width as usize)
            .max()
            .unwrap_or(0)
    }

    /// The compiled route's variant for a launch width (the last band serves wider ones).
    pub fn compiled_variant(&self, width: u32) -> &'static Variant {
        let schedule = self
            .compiled
            .iter()
            .find(|(last, _)| width <= *last)
            .or(self.compiled.last())
            .map(|(_, s)| *s)
            .expect("a family has compiled bands (checked at build time)");
        self.candidate(schedule)
            .expect("compiled bands name candidates (checked at build time)")
    }
}

/// A non-routed module (helper kernels such as activation quantization).
#[derive(Debug)]
pub struct Module {
    pub name: &'static str,
    /// Index into `VARIANTS`.
    pub variant: usize,
}

/// A route switch (`attn_pv_f16`): a route key whose schedule is one of `values`, read
/// at width 1; `compiled` when no profile names it.
#[derive(Debug)]
pub struct Switch {
    pub name: &'static str,
    pub calibration: CalibrationFlag,
    pub values: &'static [&'static str],
    pub compiled: &'static str,
}

impl Switch {
    /// Whether this boolean switch is "on" where no profile names it. The switches the
    /// ops implement take exactly the values "off" and "on" (`assert_boolean`).
    pub fn compiled_on(&self) -> bool {
        self.compiled == "on"
    }

    /// Panics unless the switch's values are exactly "off" and "on": what the ops that
    /// read it as a boolean need of catalog.toml (their tests call this).
    pub fn assert_boolean(&self) {
        let mut values = self.values.to_vec();
        values.sort_unstable();
        assert_eq!(
            values,
            ["off", "on"],
            "switch {} must take exactly the values off and on",
            self.name
        );
    }
}

/// The value name of a boolean switch's setting.
pub fn switch_value(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

pub use crate::generated::{
    BASELINE_PTX_ARCH, FAMILIES, MODULES, ROUTE_CATALOG, SWITCHES, VARIANTS,
};

pub fn switch(name: &str) -> Option<&'static Switch> {
    SWITCHES.iter().find(|s| s.name == name)
}

pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

pub fn module(name: &str) -> Option<&'static Variant> {
    MODULES
        .iter()
        .find(|m| m.name == name)
        .map(|m| &VARIANTS[m.variant])
}

/// Splits a route key `family/shape` (the family part may itself contain no '/').
pub fn split_route_key(key: &str) -> Option<(&'static Family, &str)> {
    let (fam, rest) = key.split_once('/')?;
    let f = family(fam)?;
    f.keys.contains(&rest).then_some((f, rest))
}

/// An owned, GPU-free view of the routing facts of a catalog: what profiles,
/// layering and lookup need. `CatalogView::built_in()` is this build's; tests make
/// their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogView {
    pub digest: String,
    /// Sorted by key.
    pub keys: Vec<KeyView>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyView {
    pub key: String,
    pub calibration: CalibrationFlag,
    /// Declared order: `(schedule, max_width)`.
    pub candidates: Vec<(String, u32)>,
    pub compiled: Vec<(u32, String)>,
    pub widths: Vec<u32>,
}

impl CatalogView {
    pub fn built_in() -> Self {
        let mut keys: Vec<KeyView> = FAMILIES
            .iter()
            .flat_map(|f| {
                f.keys.iter().map(move |k| KeyView {
                    key: format!("{}/{}", f.name, k),
                    calibration: f.calibration,
                    candidates: f
                        .candidates
                        .iter()
                        .map(|&i| {
                            (
                                VARIANTS[i].schedule.to_string(),
                                VARIANTS[i].launch.max_width,
                            )
                        })
                        .collect(),
                    compiled: f
                        .compiled
                        .iter()
                        .map(|(w, s)| (*w, s.to_string()))
                        .collect(),
                    widths: f.widths.to_vec(),
                })
            })
            .chain(SWITCHES.iter().map(|s| KeyView {
                key: s.name.to_string(),
                calibration: s.calibration,
                candidates: s.values.iter().map(|v| (v.to_string(), u32::MAX)).collect(),
                compiled: vec![(1, s.compiled.to_string())],
                widths: vec![1],
            }))
            .collect();
        keys.sort_by(|a, b| a.key.cmp(&b.key));
        CatalogView {
            digest: ROUTE_CATALOG.to_string(),
            keys,
        }
    }

    pub fn key(&self, key: &str) -> Option<&KeyView> {
        self.keys
            .binary_search_by(|k| k.key.as_str().cmp(key))
            .ok()
            .map(|i| &self.keys[i])
    }
}

impl KeyView {
    /// The widest width a schedule of this key serves, or None if it is no candidate.
    pub fn max_width(&self, schedule: &str) -> Option<u32> {
        self.candidates
            .iter()
            .find(|(s, _)| s == schedule)
            .map(|(_, w)| *w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_loads_the_newest_ptx_it_runs() {
        // attn_i8_small declares ptx_archs = [90, "90a"], its warpgroup schedules alone
        // keep the compute_90a (specific_ptx = wgmma); the module quant_act_i8 [90];
        // q6_head has the baseline only.
        let attn = |wgmma: i64| {
            VARIANTS
                .iter()
                .find(|v| v.family == "attn_i8_small" && v.param("wgmma") == Some(wgmma))
                .expect("an attention variant")
        };
        assert_eq!(attn(1).arch_ptx.len(), 2);
        assert_eq!(attn(0).arch_ptx.len(), 1);
        for (cc, wg, plain) in [
            (80, "compute_80", "compute_80"),
            (86, "compute_80", "compute_80"),
            (89, "compute_80", "compute_80"),
            (90, "compute_90a", "compute_90"),
            (100, "compute_90", "compute_90"),
            (120, "compute_90", "compute_90"),
        ] {
            for (v, name) in [(attn(1), wg), (attn(0), plain)] {
                let p = v.ptx_for(cc);
                assert_eq!(p.name(), name, "{} cc {cc}", v.name);
                let target = name.trim_start_matches("compute_");
                assert!(p.ptx.contains(&format!(".target sm_{target}\n")), "cc {cc}");
            }
        }
        let quant = module("quant_act_i8").expect("module quant_act_i8");
        assert_eq!(quant.ptx_for(90).arch, 90);
        assert_eq!(quant.ptx_for(89).arch, 80);
        // the prompt kernels' architecture-specific compute_90a: sm_90 exactly
        let prompt = module("attn_prompt_w8").expect("module attn_prompt_w8");
        for (cc, name) in [
            (89, "compute_80"),
            (90, "compute_90a"),
            (100, "compute_80"),
            (120, "compute_80"),
        ] {
            let p = prompt.ptx_for(cc);
            assert_eq!(p.name(), name, "cc {cc}");
            let target = name.trim_start_matches("compute_");
            assert!(p.ptx.contains(&format!(".target sm_{target}\n")), "cc {cc}");
        }
        let q6 = VARIANTS
            .iter()
            .find(|v| v.family == "q6_head")
            .expect("a q6 variant");
        assert!(q6.arch_ptx.is_empty());
        assert_eq!(q6.ptx_for(90).arch, 80);
    }
}
