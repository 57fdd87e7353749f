//! Rust emission: `routes.rs`, the tables of `runtime/src/catalog.rs` filled from the
//! catalog (quote, formatted with prettyplease). PTX is `include_str!`ed from
//! `OUT_DIR/ptx/<variant>.ptx` (and `<variant>.compute_<arch>.ptx` per `ptx_archs`).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::model::{Catalog, Owner, VariantSpec};

fn params_tokens(params: &[(String, i64)]) -> TokenStream {
    let items = params.iter().map(|(k, v)| {
        let v = Literal::i64_unsuffixed(*v);
        quote! { (#k, #v) }
    });
    quote! { &[#(#items),*] }
}

/// The generated Rust source (formatted).
pub fn routes_rs(catalog: &Catalog, variants: &[VariantSpec], digest: &str) -> String {
    let vs = variants.iter().map(|v| {
        let name = &v.name;
        let family = &v.family;
        let schedule = &v.schedule;
        let params = params_tokens(&v.params);
        let threads = Literal::u32_unsuffixed(v.launch.threads);
        let shared = Literal::u32_unsuffixed(v.launch.shared_bytes);
        let maxw = Literal::u32_unsuffixed(v.launch.max_width);
        let extra = params_tokens(&v.launch.extra);
        let ptx_file = format!(
            "/ptx/{}",
            crate::ptx_file_name(name, crate::model::PtxArch::BASELINE)
        );
        let arch_ptx = v.ptx_archs.iter().map(|&a| {
            let file = format!("/ptx/{}", crate::ptx_file_name(name, a));
            let number = Literal::u32_unsuffixed(a.number);
            let specific = a.specific;
            quote! {
                crate::catalog::ArchPtx {
                    arch: #number,
                    specific: #specific,
                    ptx: include_str!(concat!(env!("OUT_DIR"), #file)),
                }
            }
        });
        quote! {
            crate::catalog::Variant {
                name: #name,
                family: #family,
                schedule: #schedule,
                params: #params,
                launch: crate::catalog::Launch {
                    threads: #threads,
                    shared_bytes: #shared,
                    max_width: #maxw,
                    extra: #extra,
                },
                ptx: include_str!(concat!(env!("OUT_DIR"), #ptx_file)),
                arch_ptx: &[#(#arch_ptx),*],
            }
        }
    });
    let fams = catalog.families.iter().enumerate().map(|(fi, f)| {
        let name = &f.name;
        let cal = syn::Ident::new(f.calibration.rust_variant(), proc_macro2::Span::call_site());
        let keys = &f.keys;
        let widths = f.widths.iter().map(|w| Literal::u32_unsuffixed(*w));
        let compiled = f.compiled.iter().map(|(w, s)| {
            let w = Literal::u32_unsuffixed(*w);
            quote! { (#w, #s) }
        });
        let cands = variants
            .iter()
            .enumerate()
            .filter(|(_, v)| matches!(v.owner, Owner::Family(i, _) if i == fi))
            .map(|(i, _)| Literal::usize_unsuffixed(i));
        quote! {
            crate::catalog::Family {
                name: #name,
                calibration: crate::catalog::CalibrationFlag::#cal,
                keys: &[#(#keys),*],
                widths: &[#(#widths),*],
                compiled: &[#(#compiled),*],
                candidates: &[#(#cands),*],
            }
        }
    });
    let mods = variants
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.owner, Owner::Module(_)))
        .map(|(i, v)| {
            let name = &v.family;
            let i = Literal::usize_unsuffixed(i);
            quote! { crate::catalog::Module { name: #name, variant: #i } }
        });
    let switches = catalog.switches.iter().map(|sw| {
        let name = &sw.name;
        let cal = syn::Ident::new(
            sw.calibration.rust_variant(),
            proc_macro2::Span::call_site(),
        );
        let values = &sw.values;
        let compiled = &sw.compiled;
        quote! {
            crate::catalog::Switch {
                name: #name,
                calibration: crate::catalog::CalibrationFlag::#cal,
                values: &[#(#values),*],
                compiled: #compiled,
            }
        }
    });
    let baseline = Literal::u32_unsuffixed(crate::model::BASELINE_PTX_ARCH);
    let file = quote! {
        /// The route catalog digest (see docs/catalog.md).
        pub const ROUTE_CATALOG: &str = #digest;
        /// The virtual architecture of every variant's `ptx` (`compute_<this>`).
        pub const BASELINE_PTX_ARCH: u32 = #baseline;
        /// Every compiled kernel: families in file order with their schedules in declared order, then modules.
        pub static VARIANTS: &[crate::catalog::Variant] = &[#(#vs),*];
        /// Routed families in file order.
        pub static FAMILIES: &[crate::catalog::Family] = &[#(#fams),*];
        /// Non-routed modules in file order.
        pub static MODULES: &[crate::catalog::Module] = &[#(#mods),*];
        /// Route switches in file order.
        pub static SWITCHES: &[crate::catalog::Switch] = &[#(#switches),*];
    };
    let parsed: syn::File = syn::parse2(file).expect("generated routes.rs parses");
    format!(
        "// GENERATED by ninfer-codegen from {} -- DO NOT EDIT.\n{}",
        catalog
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        prettyplease::unparse(&parsed)
    )
}
