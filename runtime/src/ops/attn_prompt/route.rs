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
use crate::ops::attn_i8_small::switches::PV_F16_KEY;
use crate::ops::kv::format::KvFormat;
use crate::profile::lookup::{self, RouteTable};
use crate::profile::overrides::{self, EnvOverrides};

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
    /// The compiled route: each switch at its compiled value in catalog.toml (today the
    /// standard kernel, one query head per CTA, FP32 P.V).
    pub fn compiled() -> PromptRoute {
        let on = |key: &str| catalog::switch(key).is_some_and(|s| s.compiled_on());
        PromptRoute {
            kernel: if on(FAST_KEY) {
                PromptKernel::Fast
            } else {
                PromptKernel::Standard
            },
            pack_gqa: on(PACK_GQA_KEY),
            pv_f16: on(PV_F16_KEY),
        }
    }

    /// The route `table` selects (its switches at width 1), each switch's environment
    /// override taking precedence and `--fast-prefill-kernel` forcing the fast kernel.
    pub fn selected(table: &RouteTable, env: &EnvOverrides) -> PromptRoute {
        let on = |key: &str, value: Option<bool>| {
            value.unwrap_or_else(|| table.schedule(key, 1) == Some("on"))
        };
        let fast = fast_kernel_forced() || on(FAST_KEY, env.prompt_fast);
        PromptRoute {
            kernel: if fast {
                PromptKernel::Fast
            } else {
                PromptKernel::Standard
            },
            pack_gqa: on(PACK_GQA_KEY, env.prompt_pack_gqa),
            pv_f16: on(PV_F16_KEY, env.prompt_pv_f16),
        }
    }

    /// The route device `ordinal`'s installed table and the process environment select (a
    /// bad environment variable counts as unset here: the engine refuses to start over
    /// it, `overrides::validate`).
    pub fn installed(ordinal: usize) -> PromptRoute {
        let env = overrides::get().cloned().unwrap_or_default();
        Self::selected(lookup::table(ordinal), &env)
    }

    /// Every route (check and bench run them all).
    pub fn all() -> Vec<PromptRoute> {
        [PromptKernel::Standard, PromptKernel::Fast]
            .into_iter()
            .flat_map(|kernel| {
                [(false, false), (false, true), (true, false), (true, true)].map(
                    |(pack_gqa, pv_f16)| PromptRoute {
                        kernel,
                        pack_gqa,
                        pv_f16,
                    },
                )
            })
            .collect()
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
            catalog::switch(key)
                .expect("catalog.toml declares it")
                .assert_boolean();
        }
        for r in PromptRoute::all() {
            assert!(r.module().param("warps").is_some(), "{}", r.label());
        }
    }

    #[test]
    fn eight_distinct_routes() {
        let all = PromptRoute::all();
        assert_eq!(all.len(), 8);
        assert!(all.contains(&PromptRoute::compiled()));
    }
}
