//! Which prompt kernel runs: the three route switches, each with its environment
//! override, and `--fast-prefill-kernel`.
//!
//! | switch | on | override |
//! |---|---|---|
//! | `attn_pack_gqa` | the standard kernel with a KV head's six query heads packed into its row tiles | `NINFER_PROMPT_PACK_GQA` |
//! | `attn_prompt_fast` | the fast kernel (`attn_prompt_fast_w8`) | `NINFER_PROMPT_FAST`; `--fast-prefill-kernel` forces it |
//! | `attn_pv_f16` | FP16 P.V accumulation per 32 keys, folded into FP32 (either kernel) | `NINFER_PROMPT_PV_F16` |

use std::sync::atomic::{AtomicBool, Ordering};

use crate::catalog::{self, Variant};
use crate::ops::attn_i8_small::switches::{switch_on, PV_F16_KEY};
use crate::ops::kv::format::KvFormat;

/// The switch's route key: PackGQA row tiles.
pub const PACK_GQA_KEY: &str = "attn_pack_gqa";
/// The switch's route key: the fast prompt kernel.
pub const FAST_KEY: &str = "attn_prompt_fast";
/// Catalog module of the standard kernel.
pub const STANDARD_MODULE: &str = "attn_prompt_w8";
/// Catalog module of the fast kernel.
pub const FAST_MODULE: &str = "attn_prompt_fast_w8";

static FORCE_FAST: AtomicBool = AtomicBool::new(false);

/// `--fast-prefill-kernel`: the fast kernel whatever the profile and environment say.
pub fn force_fast_kernel() {
    FORCE_FAST.store(true, Ordering::Relaxed);
}

/// Whether `--fast-prefill-kernel` was given.
pub fn fast_kernel_forced() -> bool {
    FORCE_FAST.load(Ordering::Relaxed)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PromptKernel {
    Standard,
    Fast,
}

/// One prompt-attention route: kernel, row packing, P.V accumulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PromptRoute {
    pub kernel: PromptKernel,
    pub pack_gqa: bool,
    pub pv_f16: bool,
}

impl PromptRoute {
    /// The compiled route: standard kernel, one query head per CTA, FP32 P.V.
    pub const COMPILED: PromptRoute = PromptRoute {
        kernel: PromptKernel::Standard,
        pack_gqa: false,
        pv_f16: false,
    };

    /// The route device 0's profile (or the environment, or the flag) selects.
    pub fn installed() -> PromptRoute {
        let fast = fast_kernel_forced() || switch_on(FAST_KEY, |o| o.prompt_fast);
        PromptRoute {
            kernel: if fast {
                PromptKernel::Fast
            } else {
                PromptKernel::Standard
            },
            pack_gqa: switch_on(PACK_GQA_KEY, |o| o.prompt_pack_gqa),
            pv_f16: switch_on(PV_F16_KEY, |o| o.prompt_pv_f16),
        }
    }

    /// Every distinct route (check and bench run them all).
    pub fn all() -> Vec<PromptRoute> {
        let mut out = Vec::new();
        for kernel in [PromptKernel::Standard, PromptKernel::Fast] {
            for pack_gqa in [false, true] {
                for pv_f16 in [false, true] {
                    let r = PromptRoute {
                        kernel,
                        pack_gqa,
                        pv_f16,
                    };
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
            }
        }
        out
    }

    pub fn module_name(&self) -> &'static str {
        match self.kernel {
            PromptKernel::Standard => STANDARD_MODULE,
            PromptKernel::Fast => FAST_MODULE,
        }
    }

    pub fn module(&self) -> &'static Variant {
        catalog::module(self.module_name())
            .unwrap_or_else(|| panic!("catalog.toml declares module {}", self.module_name()))
    }

    /// Entry-point suffix: `<format>[_pack][_pv16]`.
    pub fn suffix(&self, format: KvFormat) -> String {
        format!(
            "{}{}{}",
            format.name(),
            if self.pack_gqa { "_pack" } else { "" },
            if self.pv_f16 { "_pv16" } else { "" }
        )
    }

    /// `attn_prompt_w8 int8 pack pv16`-style label for tables.
    pub fn label(&self) -> String {
        format!(
            "{}{}{}",
            self.module_name(),
            if self.pack_gqa { " pack_gqa" } else { "" },
            if self.pv_f16 { " pv_f16" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_keys_are_catalog_switches_and_modules_exist() {
        for key in [PACK_GQA_KEY, FAST_KEY, PV_F16_KEY] {
            let sw = catalog::switch(key).expect("catalog.toml declares it");
            assert!(
                sw.values.contains(&"on") && sw.values.contains(&"off"),
                "{key}"
            );
        }
        for r in PromptRoute::all() {
            assert!(r.module().param("warps").is_some(), "{}", r.label());
        }
    }

    #[test]
    fn eight_distinct_routes() {
        let all = PromptRoute::all();
        assert_eq!(all.len(), 8);
        assert!(all.contains(&PromptRoute::COMPILED));
    }
}
