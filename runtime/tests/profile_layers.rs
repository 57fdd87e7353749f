//! Layering per key (file ▸ built-in ▸ compiled) and resolution for one device.

mod profile_common;
use ninfer_runtime::device::DeviceIdentity;
use ninfer_runtime::profile::format::{bands, Band, FileState};
use ninfer_runtime::profile::layers::{layer, Layer, Segment};
use ninfer_runtime::profile::mode::ProfileMode;
use ninfer_runtime::profile::{resolve, BuiltinOutcome, FileOutcome, Sources};
use profile_common::*;

const T2: &str = "t2_i8_small/5120x6144";
const ATTN: &str = "attn_i8_small/h24/int8/w8";
const GDN: &str = "gdn_two_stage/h48";

fn seg(first: u32, last: u32, s: &str, layer: Layer) -> Segment {
    Segment {
        first_width: first,
        last_width: last,
        schedule: s.into(),
        layer,
    }
}

#[test]
fn the_file_answers_up_to_its_last_width_and_the_built_in_past_it() {
    let file = bands(&[(16, ""), (32, "y")]);
    let builtin = bands(&[(8, "x"), (64, "y"), (1024, "z")]);
    let segments = layer(Some(&file), Some(&builtin));
    assert_eq!(
        segments,
        vec![
            seg(1, 16, "", Layer::File),
            seg(17, 32, "y", Layer::File),
            seg(33, 64, "y", Layer::BuiltIn),
            seg(65, 1024, "z", Layer::BuiltIn)
        ]
    );
    let merged = ninfer_runtime::profile::layers::merged_bands(&segments);
    assert_eq!(merged, bands(&[(16, ""), (64, "y"), (1024, "z")]));
}

#[test]
fn a_key_one_layer_names_keeps_its_bands() {
    let b = bands(&[(8, "x"), (64, "y")]);
    assert_eq!(
        layer(Some(&b), None),
        vec![seg(1, 8, "x", Layer::File), seg(9, 64, "y", Layer::File)]
    );
    assert_eq!(
        layer(None, Some(&b)),
        vec![
            seg(1, 8, "x", Layer::BuiltIn),
            seg(9, 64, "y", Layer::BuiltIn)
        ]
    );
    assert_eq!(layer(None, None), vec![]);
}

#[test]
fn the_file_covering_everything_hides_the_built_in() {
    let f = bands(&[(2048, "")]);
    let b = bands(&[(8, "x"), (64, "y")]);
    assert_eq!(
        layer(Some(&f), Some(&b)),
        vec![seg(1, 2048, "", Layer::File)]
    );
    // An empty schedule in the file overrides a built-in choice for its widths.
    let f = bands(&[(8, "")]);
    assert_eq!(
        layer(Some(&f), Some(&b)),
        vec![seg(1, 8, "", Layer::File), seg(9, 64, "y", Layer::BuiltIn)]
    );
}

#[test]
fn a_built_in_band_split_by_the_file_keeps_its_upper_part() {
    let f = bands(&[(20, "a")]);
    let b = bands(&[(16, "x"), (48, "y"), (u32::MAX, "z")]);
    assert_eq!(
        layer(Some(&f), Some(&b)),
        vec![
            seg(1, 20, "a", Layer::File),
            seg(21, 48, "y", Layer::BuiltIn),
            seg(49, u32::MAX, "z", Layer::BuiltIn)
        ]
    );
    // Repeated schedules of one layer merge.
    let f = bands(&[(4, "a"), (8, "a")]);
    assert_eq!(layer(Some(&f), None), vec![seg(1, 8, "a", Layer::File)]);
}

fn h200() -> DeviceIdentity {
    DeviceIdentity::new("NVIDIA H200", (9, 0), 132)
}

#[test]
fn resolution_layers_each_key_and_skips_unknown_keys() {
    let cat = catalog();
    let user = file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[
            (T2, &[(16, ""), (32, "r16c32")]),
            ("no_such/key", &[(4, "q")]),
        ],
    )]);
    let builtin = file(vec![entry(
        "nvidia-h200-sm90",
        0,
        Some(OLD_DIGEST), // the built-in table is not checked for staleness
        &[
            (T2, &[(8, "r16c8"), (64, "r16c32"), (1024, "x")]),
            (ATTN, &[(64, "y")]),
        ],
    )]);
    let state = FileState::Read(user);
    let r = resolve(
        &h200(),
        ProfileMode::Auto,
        &Sources {
            path: None,
            file: &state,
            builtin: &builtin,
        },
        &cat,
    );
    assert!(matches!(r.file, FileOutcome::Applied { .. }));
    assert!(matches!(r.builtin, BuiltinOutcome::Applied { .. }));
    assert_eq!(
        r.key(T2).unwrap().bands(),
        bands(&[(16, ""), (64, "r16c32"), (1024, "x")])
    );
    assert_eq!(r.key(ATTN).unwrap().bands(), bands(&[(64, "y")]));
    assert_eq!(r.key(GDN).unwrap().bands(), Vec::<Band>::new());
    assert_eq!(
        r.keys.iter().map(|k| k.key.as_str()).collect::<Vec<_>>(),
        vec![ATTN, GDN, T2]
    );
    assert_eq!(r.skipped_keys.len(), 1);
    assert_eq!(r.skipped_keys[0].key, "no_such/key");
    assert_eq!(r.skipped_keys[0].layer, Layer::File);
}

#[test]
fn off_uses_the_compiled_routes_only() {
    let cat = catalog();
    let user = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[(T2, &[(8, "r32c8")])],
    )]));
    let builtin = file(vec![entry(
        "nvidia-h200-sm90",
        132,
        None,
        &[(ATTN, &[(8, "y")])],
    )]);
    let r = resolve(
        &h200(),
        ProfileMode::Off,
        &Sources {
            path: None,
            file: &user,
            builtin: &builtin,
        },
        &cat,
    );
    assert_eq!(r.file, FileOutcome::NotConsulted);
    assert_eq!(r.builtin, BuiltinOutcome::NotConsulted);
    assert!(r.keys.iter().all(|k| k.segments.is_empty()));
}

#[test]
fn an_entry_of_another_sm_count_is_not_used() {
    let cat = catalog();
    let user = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        114,
        Some(DIGEST),
        &[(T2, &[(8, "r32c8")])],
    )]));
    let builtin = file(vec![]);
    let r = resolve(
        &h200(),
        ProfileMode::Auto,
        &Sources {
            path: None,
            file: &user,
            builtin: &builtin,
        },
        &cat,
    );
    assert_eq!(
        r.file,
        FileOutcome::NoEntry {
            other_sms: vec![114]
        }
    );
    assert_eq!(r.builtin, BuiltinOutcome::NoEntry { other_sms: vec![] });
    assert!(r.keys.iter().all(|k| k.segments.is_empty()));
}
