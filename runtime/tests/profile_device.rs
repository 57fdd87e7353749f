//! Hardware class and entry matching (class and SM count; 0 = any).

mod profile_common;
use ninfer_runtime::device::{hardware_class, parse_compute_capability, DeviceIdentity};
use ninfer_runtime::profile::matching::{select, EntryMatch};
use profile_common::*;

#[test]
fn hardware_classes() {
    assert_eq!(hardware_class("NVIDIA H200", (9, 0)), "nvidia-h200-sm90");
    assert_eq!(
        hardware_class("NVIDIA GeForce RTX 3090", (8, 6)),
        "nvidia-geforce-rtx-3090-sm86"
    );
    assert_eq!(
        hardware_class("NVIDIA GeForce RTX 5090", (12, 0)),
        "nvidia-geforce-rtx-5090-sm120"
    );
    assert_eq!(
        hardware_class("Tesla V100-SXM2-16GB", (7, 0)),
        "nvidia-tesla-v100-sxm2-16gb-sm70"
    );
    assert_eq!(
        hardware_class(
            "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
            (12, 0)
        ),
        "nvidia-rtx-pro-6000-blackwell-max-q-workstation-edition-sm120"
    );
    assert_eq!(
        hardware_class("  NVIDIA  GeForce RTX 4090 Laptop GPU ", (8, 9)),
        "nvidia-geforce-rtx-4090-laptop-gpu-sm89"
    );
    assert_eq!(
        hardware_class("nvidia_a100--sxm4 (80GB)", (8, 0)),
        "nvidia-a100-sxm4-80gb-sm80"
    );
    assert_eq!(hardware_class("NVIDIAX 1", (9, 0)), "nvidia-nvidiax-1-sm90");
    let id = DeviceIdentity::new("NVIDIA H200", (9, 0), 132);
    assert_eq!(id.hardware_class(), "nvidia-h200-sm90");
}

#[test]
fn compute_capability_parsing() {
    assert_eq!(parse_compute_capability("9.0"), Ok((9, 0)));
    assert_eq!(parse_compute_capability("12.0"), Ok((12, 0)));
    assert_eq!(parse_compute_capability("8.6"), Ok((8, 6)));
    for bad in ["90", "9", "9.", ".0", "sm_90", "9.0.1", "a.b", ""] {
        let e = parse_compute_capability(bad).unwrap_err();
        assert!(e.contains("expected MAJOR.MINOR"), "{bad}: {e}");
    }
}

#[test]
fn an_entry_matches_class_and_sm_count() {
    let f = file(vec![entry(
        "nvidia-geforce-rtx-4090-sm89",
        128,
        Some(DIGEST),
        &[],
    )]);
    assert!(
        matches!(select(&f, "nvidia-geforce-rtx-4090-sm89", 128), EntryMatch::Matched(e) if e.multiprocessors == 128)
    );
    // A laptop part with the same name but another SM count does not match.
    assert_eq!(
        select(&f, "nvidia-geforce-rtx-4090-sm89", 76),
        EntryMatch::NoMatch {
            other_sms: vec![128]
        }
    );
    // Another class does not match whatever its SM count.
    assert_eq!(
        select(&f, "nvidia-geforce-rtx-4090-sm90", 128),
        EntryMatch::NoMatch { other_sms: vec![] }
    );
}

#[test]
fn zero_sms_matches_any_and_an_exact_count_wins() {
    let any = entry("nvidia-h200-sm90", 0, Some(DIGEST), &[("k", &[(1, "any")])]);
    let exact = entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[("k", &[(1, "exact")])],
    );
    let f = file(vec![any.clone()]);
    assert!(
        matches!(select(&f, "nvidia-h200-sm90", 132), EntryMatch::Matched(e) if e.multiprocessors == 0)
    );
    assert!(
        matches!(select(&f, "nvidia-h200-sm90", 7), EntryMatch::Matched(e) if e.multiprocessors == 0)
    );
    let f = file(vec![any, exact]);
    assert!(
        matches!(select(&f, "nvidia-h200-sm90", 132), EntryMatch::Matched(e) if e.multiprocessors == 132)
    );
    assert!(
        matches!(select(&f, "nvidia-h200-sm90", 114), EntryMatch::Matched(e) if e.multiprocessors == 0)
    );
}
