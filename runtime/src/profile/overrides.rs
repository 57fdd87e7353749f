//! Environment overrides of profile routes, parsed once per process. A value other
//! than the ones listed is an error naming the variable, the value and what it takes;
//! an empty variable counts as unset. Each op family applies its own.
//!
//! | variable | values | overrides |
//! |---|---|---|
//! | `NINFER_SMALLT_PV_F16` | 0, 1 | FP16 PV accumulation of the small-T attention |
//! | `NINFER_PROMPT_PV_F16` | 0, 1 | FP16 PV accumulation of the prompt attention |
//! | `NINFER_PROMPT_PACK_GQA` | 0, 1 | PackGQA prompt kernel (`attn_pack_gqa`) |
//! | `NINFER_PROMPT_FAST` | 0, 1 | the fast prompt-attention kernel (`attn_prompt_fast`) |
//! | `NINFER_GDN_TWO_STAGE` | 0, 1 | the two-stage GDN prefill (`gdn_two_stage/*`) |
//! | `NINFER_ATTN_PARALLEL_TILES` | 0, 1 | parallel query tiles (`attn_parallel_tiles`) |
//! | `NINFER_LINEAR_ROUTES` | legacy, unified | one table for every Linear shape and `unified/*` switch |
//! | `NINFER_PREFILL_ALIGN` | 0, 1 | 0 keeps the requested prefill chunk |
//! | `NINFER_DEVICE_ROUTE_TRACE` | 0, 1 | 1 logs each applied route once |
//! | `NINFER_PDL` | 0, 1, second | programmatic dependent launch of the sm_90 PTX (gpu/launch.rs): 0 off, second for an op's second kernel only; default on |
//! | `NINFER_Q4_INT8_ACT` | 0, 1 | 0: `q4_linear_add` never runs its int8-activation (`act_i8`, W4A8) schedules: calibration skips them and a route naming one runs the compiled route; default 1 |
//! | `NINFER_PTX` | newest, baseline | baseline: every variant loads its compute_80 PTX, the code older GPUs run (`ninfer check` of it on a newer GPU; calibration refuses); default newest |

use std::ffi::OsString;
use std::fmt;
use std::sync::OnceLock;

/// Which launches may carry programmatic dependent launch (`NINFER_PDL`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PdlPolicy {
    Off,
    /// Only the second kernel of an op's pair (the attention reduce).
    SecondOnly,
    #[default]
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearRoutes {
    Legacy,
    Unified,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvOverrides {
    pub smallt_pv_f16: Option<bool>,
    pub prompt_pv_f16: Option<bool>,
    pub prompt_pack_gqa: Option<bool>,
    pub prompt_fast: Option<bool>,
    pub gdn_two_stage: Option<bool>,
    pub attn_parallel_tiles: Option<bool>,
    pub linear_routes: Option<LinearRoutes>,
    /// false with `NINFER_PREFILL_ALIGN=0`: keep the requested prefill chunk.
    pub prefill_align: bool,
    /// `NINFER_DEVICE_ROUTE_TRACE=1`.
    pub route_trace: bool,
    /// `NINFER_PDL`.
    pub pdl: PdlPolicy,
    /// false with `NINFER_Q4_INT8_ACT=0`: no int8-activation q4_linear_add schedules.
    pub q4_int8_act: bool,
    /// true with `NINFER_PTX=baseline`: the compute_80 PTX of every variant.
    pub baseline_ptx: bool,
}

impl Default for EnvOverrides {
    fn default() -> Self {
        EnvOverrides {
            smallt_pv_f16: None,
            prompt_pv_f16: None,
            prompt_pack_gqa: None,
            prompt_fast: None,
            gdn_two_stage: None,
            attn_parallel_tiles: None,
            linear_routes: None,
            prefill_align: true,
            route_trace: false,
            pdl: PdlPolicy::All,
            q4_int8_act: true,
            baseline_ptx: false,
        }
    }
}

/// Every bad variable, one line each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideError {
    pub problems: Vec<String>,
}

impl fmt::Display for OverrideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for OverrideError {}

const SWITCHES: [&str; 6] = [
    "NINFER_SMALLT_PV_F16",
    "NINFER_PROMPT_PV_F16",
    "NINFER_PROMPT_PACK_GQA",
    "NINFER_PROMPT_FAST",
    "NINFER_GDN_TWO_STAGE",
    "NINFER_ATTN_PARALLEL_TILES",
];

/// Parses the overrides from `var` (the process environment, or a test's map).
pub fn parse_with(var: impl Fn(&str) -> Option<OsString>) -> Result<EnvOverrides, OverrideError> {
    let mut problems = Vec::new();
    let mut text = |name: &str| -> Option<String> {
        let v = var(name)?;
        if v.is_empty() {
            return None;
        }
        match v.into_string() {
            Ok(s) => Some(s),
            Err(raw) => {
                problems.push(format!("{name}={raw:?}: not valid UTF-8"));
                None
            }
        }
    };
    let values: Vec<(&str, Option<String>)> = SWITCHES
        .iter()
        .chain(
            [
                "NINFER_LINEAR_ROUTES",
                "NINFER_PREFILL_ALIGN",
                "NINFER_DEVICE_ROUTE_TRACE",
                "NINFER_PDL",
                "NINFER_Q4_INT8_ACT",
                "NINFER_PTX",
            ]
            .iter(),
        )
        .map(|n| (*n, text(n)))
        .collect();
    let value = |name: &str| -> Option<String> {
        values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.clone())
    };
    let mut out = EnvOverrides::default();
    let mut flag = |name: &str| -> Option<bool> {
        match value(name).as_deref() {
            None => None,
            Some("0") => Some(false),
            Some("1") => Some(true),
            Some(other) => {
                problems.push(format!("{name}={other:?}: expected 0 or 1"));
                None
            }
        }
    };
    let slots: [&mut Option<bool>; 6] = [
        &mut out.smallt_pv_f16,
        &mut out.prompt_pv_f16,
        &mut out.prompt_pack_gqa,
        &mut out.prompt_fast,
        &mut out.gdn_two_stage,
        &mut out.attn_parallel_tiles,
    ];
    for (slot, name) in slots.into_iter().zip(SWITCHES) {
        *slot = flag(name);
    }
    if let Some(v) = flag("NINFER_PREFILL_ALIGN") {
        out.prefill_align = v;
    }
    if let Some(v) = flag("NINFER_DEVICE_ROUTE_TRACE") {
        out.route_trace = v;
    }
    if let Some(v) = flag("NINFER_Q4_INT8_ACT") {
        out.q4_int8_act = v;
    }
    out.linear_routes = match value("NINFER_LINEAR_ROUTES").as_deref() {
        None => None,
        Some("legacy") => Some(LinearRoutes::Legacy),
        Some("unified") => Some(LinearRoutes::Unified),
        Some(other) => {
            problems.push(format!(
                "NINFER_LINEAR_ROUTES={other:?}: expected legacy or unified"
            ));
            None
        }
    };
    out.pdl = match value("NINFER_PDL").as_deref() {
        None | Some("1") => PdlPolicy::All,
        Some("0") => PdlPolicy::Off,
        Some("second") => PdlPolicy::SecondOnly,
        Some(other) => {
            problems.push(format!("NINFER_PDL={other:?}: expected 0, 1 or second"));
            PdlPolicy::All
        }
    };
    out.baseline_ptx = match value("NINFER_PTX").as_deref() {
        None | Some("newest") => false,
        Some("baseline") => true,
        Some(other) => {
            problems.push(format!("NINFER_PTX={other:?}: expected newest or baseline"));
            false
        }
    };
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(OverrideError { problems })
    }
}

/// The process's overrides, parsed on first use.
pub fn get() -> Result<&'static EnvOverrides, &'static OverrideError> {
    static PARSED: OnceLock<Result<EnvOverrides, OverrideError>> = OnceLock::new();
    PARSED
        .get_or_init(|| parse_with(|k| std::env::var_os(k)))
        .as_ref()
}

/// The process's overrides, or an error naming every bad variable: what each command
/// that runs kernels checks first, so that a mistyped value stops it instead of being
/// dropped (the getters of single switches treat a bad environment as unset).
pub fn validate() -> anyhow::Result<&'static EnvOverrides> {
    get().map_err(|e| anyhow::anyhow!("environment: {e}"))
}

impl EnvOverrides {
    /// What the set variables make route switch `key` run, whatever its route says (one
    /// `NAME=v: on|off (what)` per variable), or None when none of its variables is set.
    pub fn switch_override(&self, key: &str) -> Option<String> {
        use crate::ops::attn_i8_small::switches::{PARALLEL_TILES_KEY, PV_F16_KEY};
        use crate::ops::attn_prompt::route::{FAST_KEY, PACK_GQA_KEY};
        let one = |name: &str, v: Option<bool>, what: &str| {
            v.map(|v| {
                format!(
                    "{name}={}: {}{what}",
                    v as u8,
                    crate::catalog::switch_value(v)
                )
            })
        };
        let parts: Vec<String> = match key {
            k if k == PV_F16_KEY => [
                one("NINFER_SMALLT_PV_F16", self.smallt_pv_f16, " (decode)"),
                one("NINFER_PROMPT_PV_F16", self.prompt_pv_f16, " (prompt)"),
            ]
            .into_iter()
            .flatten()
            .collect(),
            k if k == PARALLEL_TILES_KEY => {
                one("NINFER_ATTN_PARALLEL_TILES", self.attn_parallel_tiles, "")
                    .into_iter()
                    .collect()
            }
            k if k == PACK_GQA_KEY => one("NINFER_PROMPT_PACK_GQA", self.prompt_pack_gqa, "")
                .into_iter()
                .collect(),
            k if k == FAST_KEY => one("NINFER_PROMPT_FAST", self.prompt_fast, "")
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// The variables that are set, as `NAME=value`, for explanations.
    pub fn active(&self) -> Vec<String> {
        let mut out = Vec::new();
        let switches = [
            self.smallt_pv_f16,
            self.prompt_pv_f16,
            self.prompt_pack_gqa,
            self.prompt_fast,
            self.gdn_two_stage,
            self.attn_parallel_tiles,
        ];
        for (name, v) in SWITCHES.iter().zip(switches) {
            if let Some(v) = v {
                out.push(format!("{name}={}", v as u8));
            }
        }
        if let Some(l) = self.linear_routes {
            out.push(format!(
                "NINFER_LINEAR_ROUTES={}",
                if l == LinearRoutes::Legacy {
                    "legacy"
                } else {
                    "unified"
                }
            ));
        }
        if !self.prefill_align {
            out.push("NINFER_PREFILL_ALIGN=0".into());
        }
        if self.route_trace {
            out.push("NINFER_DEVICE_ROUTE_TRACE=1".into());
        }
        match self.pdl {
            PdlPolicy::All => {}
            PdlPolicy::Off => out.push("NINFER_PDL=0".into()),
            PdlPolicy::SecondOnly => out.push("NINFER_PDL=second".into()),
        }
        if !self.q4_int8_act {
            out.push("NINFER_Q4_INT8_ACT=0".into());
        }
        if self.baseline_ptx {
            out.push("NINFER_PTX=baseline".into());
        }
        out
    }
}
