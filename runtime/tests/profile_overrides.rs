//! Environment overrides: 0|1 switches, legacy|unified, NINFER_PREFILL_ALIGN=0; a bad
//! value is a clear error.

use ninfer_runtime::profile::overrides::{parse_with, EnvOverrides, LinearRoutes, PdlPolicy};
use std::collections::HashMap;
use std::ffi::OsString;

fn parse(vars: &[(&str, &str)]) -> Result<EnvOverrides, String> {
    let m: HashMap<String, OsString> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    parse_with(|k| m.get(k).cloned()).map_err(|e| e.to_string())
}

#[test]
fn nothing_set() {
    let o = parse(&[]).unwrap();
    assert_eq!(o, EnvOverrides::default());
    assert!(o.prefill_align && !o.route_trace && o.active().is_empty());
}

#[test]
fn switches() {
    let o = parse(&[
        ("NINFER_SMALLT_PV_F16", "1"),
        ("NINFER_PROMPT_PV_F16", "0"),
        ("NINFER_PROMPT_PACK_GQA", "1"),
        ("NINFER_PROMPT_FAST", "0"),
        ("NINFER_GDN_TWO_STAGE", "1"),
        ("NINFER_ATTN_PARALLEL_TILES", "0"),
        ("NINFER_LINEAR_ROUTES", "unified"),
        ("NINFER_PREFILL_ALIGN", "0"),
        ("NINFER_DEVICE_ROUTE_TRACE", "1"),
    ])
    .unwrap();
    assert_eq!(o.smallt_pv_f16, Some(true));
    assert_eq!(o.prompt_pv_f16, Some(false));
    assert_eq!(o.prompt_pack_gqa, Some(true));
    assert_eq!(o.prompt_fast, Some(false));
    assert_eq!(o.gdn_two_stage, Some(true));
    assert_eq!(o.attn_parallel_tiles, Some(false));
    assert_eq!(o.linear_routes, Some(LinearRoutes::Unified));
    assert!(!o.prefill_align);
    assert!(o.route_trace);
    assert_eq!(o.active().len(), 9);
    assert_eq!(
        parse(&[("NINFER_LINEAR_ROUTES", "legacy")])
            .unwrap()
            .linear_routes,
        Some(LinearRoutes::Legacy)
    );
    assert!(
        parse(&[("NINFER_PREFILL_ALIGN", "1")])
            .unwrap()
            .prefill_align
    );
    // Empty counts as unset.
    assert_eq!(
        parse(&[("NINFER_PROMPT_FAST", "")]).unwrap().prompt_fast,
        None
    );
}

#[test]
fn bad_values_are_clear_errors() {
    assert_eq!(
        parse(&[("NINFER_PROMPT_FAST", "yes")]).unwrap_err(),
        r#"NINFER_PROMPT_FAST="yes": expected 0 or 1"#
    );
    assert_eq!(
        parse(&[("NINFER_GDN_TWO_STAGE", "2")]).unwrap_err(),
        r#"NINFER_GDN_TWO_STAGE="2": expected 0 or 1"#
    );
    assert_eq!(
        parse(&[("NINFER_LINEAR_ROUTES", "Unified")]).unwrap_err(),
        r#"NINFER_LINEAR_ROUTES="Unified": expected legacy or unified"#
    );
    assert_eq!(
        parse(&[("NINFER_PREFILL_ALIGN", "off")]).unwrap_err(),
        r#"NINFER_PREFILL_ALIGN="off": expected 0 or 1"#
    );
    assert_eq!(
        parse(&[("NINFER_SMALLT_PV_F16", " 1")]).unwrap_err(),
        r#"NINFER_SMALLT_PV_F16=" 1": expected 0 or 1"#
    );
    // Every bad variable is named.
    let e = parse(&[
        ("NINFER_ATTN_PARALLEL_TILES", "true"),
        ("NINFER_DEVICE_ROUTE_TRACE", "on"),
    ])
    .unwrap_err();
    assert!(
        e.contains("NINFER_ATTN_PARALLEL_TILES") && e.contains("NINFER_DEVICE_ROUTE_TRACE"),
        "{e}"
    );
}

#[test]
fn pdl_policy_reads_0_1_second_and_defaults_to_all() {
    assert_eq!(parse(&[]).unwrap().pdl, PdlPolicy::All);
    assert_eq!(parse(&[("NINFER_PDL", "1")]).unwrap().pdl, PdlPolicy::All);
    let off = parse(&[("NINFER_PDL", "0")]).unwrap();
    assert_eq!(off.pdl, PdlPolicy::Off);
    assert_eq!(off.active(), vec!["NINFER_PDL=0".to_string()]);
    assert_eq!(
        parse(&[("NINFER_PDL", "second")]).unwrap().pdl,
        PdlPolicy::SecondOnly
    );
    assert_eq!(parse(&[("NINFER_PDL", "")]).unwrap().pdl, PdlPolicy::All);
    assert_eq!(
        parse(&[("NINFER_PDL", "off")]).unwrap_err(),
        r#"NINFER_PDL="off": expected 0, 1 or second"#
    );
}

#[test]
fn q4_int8_activations_default_on_and_0_rules_them_out() {
    assert!(parse(&[]).unwrap().q4_int8_act);
    assert!(parse(&[("NINFER_Q4_INT8_ACT", "1")]).unwrap().q4_int8_act);
    let off = parse(&[("NINFER_Q4_INT8_ACT", "0")]).unwrap();
    assert!(!off.q4_int8_act);
    assert_eq!(off.active(), vec!["NINFER_Q4_INT8_ACT=0".to_string()]);
    assert_eq!(
        parse(&[("NINFER_Q4_INT8_ACT", "no")]).unwrap_err(),
        r#"NINFER_Q4_INT8_ACT="no": expected 0 or 1"#
    );
}

#[test]
fn parsed_once() {
    let a = ninfer_runtime::profile::overrides::get().map(|o| o as *const _);
    let b = ninfer_runtime::profile::overrides::get().map(|o| o as *const _);
    assert_eq!(a.is_ok(), b.is_ok());
    if let (Ok(a), Ok(b)) = (a, b) {
        assert_eq!(a, b);
    }
}

#[test]
fn ptx_choice() {
    assert!(!parse(&[]).unwrap().baseline_ptx);
    assert!(!parse(&[("NINFER_PTX", "newest")]).unwrap().baseline_ptx);
    let o = parse(&[("NINFER_PTX", "baseline")]).unwrap();
    assert!(o.baseline_ptx);
    assert_eq!(o.active(), ["NINFER_PTX=baseline"]);
    let e = parse(&[("NINFER_PTX", "compute_80")]).unwrap_err();
    assert!(
        e.contains("NINFER_PTX=\"compute_80\": expected newest or baseline"),
        "{e}"
    );
}

/// `ninfer routes` notes, on a switch's rows, the variables that decide it instead.
#[test]
fn switch_override_names_the_variables_that_decide_a_switch() {
    let o = parse(&[
        ("NINFER_ATTN_PARALLEL_TILES", "0"),
        ("NINFER_SMALLT_PV_F16", "1"),
        ("NINFER_PROMPT_PV_F16", "0"),
        ("NINFER_PROMPT_FAST", "1"),
    ])
    .unwrap();
    assert_eq!(
        o.switch_override("attn_parallel_tiles").as_deref(),
        Some("NINFER_ATTN_PARALLEL_TILES=0: off")
    );
    assert_eq!(
        o.switch_override("attn_pv_f16").as_deref(),
        Some("NINFER_SMALLT_PV_F16=1: on (decode); NINFER_PROMPT_PV_F16=0: off (prompt)")
    );
    assert_eq!(
        o.switch_override("attn_prompt_fast").as_deref(),
        Some("NINFER_PROMPT_FAST=1: on")
    );
    assert_eq!(o.switch_override("attn_pack_gqa"), None);
    assert_eq!(o.switch_override("t2_i8_small/5120x6144"), None);
    let none = parse(&[]).unwrap();
    for s in ninfer_runtime::catalog::SWITCHES {
        assert_eq!(none.switch_override(s.name), None, "{}", s.name);
    }
}
