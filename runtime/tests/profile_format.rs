//! The file format: schema v2, strict validation with clear errors, unknown fields
//! kept, stable sorted output.

mod profile_common;
use ninfer_runtime::profile::format::{self, parse, Band, FileState, ParseError};
use profile_common::*;

fn doc(devices: &str) -> String {
    format!(
        r#"{{"schema": "ninfer.device-route-profiles", "schema_version": 2, "devices": [{devices}]}}"#
    )
}

fn entry_json(routes: &str) -> String {
    format!(
        r#"{{"hardware_class": "nvidia-h200-sm90", "multiprocessors": 132, "origin": "o",
            "calibration": {{"route_catalog": "{DIGEST}", "ninfer_build": "b", "cuda_driver": 13000, "cuda_runtime": 13000, "date": "d"}},
            "routes": {{{routes}}}}}"#
    )
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn reads_a_good_file() {
    let f = parse(&doc(&entry_json(
        r#""t2_i8_small/5120x6144": [[8, "r16c8"], [32, ""]]"#,
    )))
    .unwrap();
    assert_eq!(f.devices.len(), 1);
    let e = &f.devices[0];
    assert_eq!(e.hardware_class, "nvidia-h200-sm90");
    assert_eq!(e.multiprocessors, 132);
    assert_eq!(e.calibration.as_ref().unwrap().route_catalog, DIGEST);
    assert_eq!(
        e.routes["t2_i8_small/5120x6144"],
        vec![Band::new(8, "r16c8"), Band::new(32, "")]
    );
}

#[test]
fn calibration_block_is_optional() {
    let text =
        doc(r#"{"hardware_class": "c", "multiprocessors": 0, "origin": "hand", "routes": {}}"#);
    assert_eq!(parse(&text).unwrap().devices[0].calibration, None);
}

#[test]
fn bands_must_be_non_empty() {
    let e = err(&doc(&entry_json(r#""k": []"#)));
    assert_eq!(
        e,
        r#"devices[0].routes["k"]: no bands (a route names at least one [last_width, "schedule"] band)"#
    );
}

#[test]
fn a_band_is_a_width_and_a_schedule() {
    assert!(err(&doc(&entry_json(r#""k": [[8]]"#)))
        .contains(r#"devices[0].routes["k"][0]: expected [last_width, "schedule"]"#));
    assert!(err(&doc(&entry_json(r#""k": [["8", "x"]]"#)))
        .contains("last_width must be an integer, found a string"));
    assert!(err(&doc(&entry_json(r#""k": [[8, 3]]"#)))
        .contains("schedule must be a string, found a number"));
    assert!(err(&doc(&entry_json(r#""k": [8, "x"]"#)))
        .contains(r#"routes["k"][0]: expected [last_width, "schedule"], found 8"#));
    assert!(
        err(&doc(&entry_json(r#""k": {"8": "x"}"#))).contains("expected an array of [last_width")
    );
}

#[test]
fn last_width_is_positive_and_strictly_increasing() {
    assert!(err(&doc(&entry_json(r#""k": [[0, "x"]]"#)))
        .contains("last_width 0 is not an integer from 1"));
    assert!(err(&doc(&entry_json(r#""k": [[-4, "x"]]"#)))
        .contains("last_width -4 is not an integer from 1"));
    assert!(
        err(&doc(&entry_json(r#""k": [[2.5, "x"]]"#))).contains("last_width 2.5 is not an integer")
    );
    assert_eq!(
        err(&doc(&entry_json(r#""k": [[8, "x"], [8, "y"]]"#))),
        r#"devices[0].routes["k"][1]: last_width 8 does not increase on the previous band's 8"#
    );
    assert!(err(&doc(&entry_json(r#""k": [[16, "x"], [8, "y"]]"#)))
        .contains("last_width 8 does not increase on the previous band's 16"));
}

#[test]
fn required_fields_and_types() {
    let missing_class = doc(r#"{"multiprocessors": 1, "origin": "o", "routes": {}}"#);
    assert_eq!(
        err(&missing_class),
        "devices[0].hardware_class: missing (a string is required)"
    );
    let bad_sms =
        doc(r#"{"hardware_class": "c", "multiprocessors": -1, "origin": "o", "routes": {}}"#);
    assert!(err(&bad_sms).starts_with("devices[0].multiprocessors: expected an integer from 0"));
    let no_routes = doc(r#"{"hardware_class": "c", "multiprocessors": 1, "origin": "o"}"#);
    assert_eq!(
        err(&no_routes),
        "devices[0].routes: missing (an object is required)"
    );
    let bad_digest = doc(
        r#"{"hardware_class": "c", "multiprocessors": 1, "origin": "o", "routes": {},
            "calibration": {"route_catalog": "XYZ", "ninfer_build": "b", "cuda_driver": 1, "cuda_runtime": 1, "date": "d"}}"#,
    );
    assert!(err(&bad_digest)
        .contains("devices[0].calibration.route_catalog: \"XYZ\" is not a route catalog digest"));
    let no_devices = r#"{"schema": "ninfer.device-route-profiles", "schema_version": 2}"#;
    assert_eq!(err(no_devices), "devices: missing (an array is required)");
}

#[test]
fn two_entries_for_one_device_are_an_error() {
    let one = r#"{"hardware_class": "c", "multiprocessors": 4, "origin": "o", "routes": {}}"#;
    assert_eq!(
        err(&doc(&format!("{one}, {one}"))),
        "devices[1]: a second entry for c (4 SMs) (the first is devices[0])"
    );
}

#[test]
fn schema_and_versions() {
    assert_eq!(
        parse(r#"{"schema": "ninfer.device-route-profiles", "schema_version": 1, "devices": {}}"#),
        Err(ParseError::OtherVersion { version: 1 })
    );
    assert_eq!(
        parse(
            r#"{"schema": "ninfer.device-route-profiles", "schema_version": 3, "anything": true}"#
        ),
        Err(ParseError::OtherVersion { version: 3 })
    );
    assert!(matches!(
        parse(r#"{"schema": "something.else", "schema_version": 2}"#),
        Err(ParseError::NotAProfile { .. })
    ));
    assert!(matches!(
        parse("[1, 2]"),
        Err(ParseError::NotAProfile { .. })
    ));
}

#[test]
fn truncated_and_broken_json() {
    let full = doc(&entry_json(r#""k": [[8, "x"]]"#));
    let cut = &full[..full.len() / 2];
    match parse(cut) {
        Err(ParseError::Json {
            truncated: true, ..
        }) => {}
        other => panic!("{other:?}"),
    }
    assert!(err(cut).starts_with("truncated JSON"));
    assert!(err("{\"schema\": nope}").starts_with("not valid JSON at line 1, column"));
    assert!(matches!(
        FileState::from_bytes(b""),
        FileState::Corrupt { .. }
    ));
    assert!(matches!(
        FileState::from_bytes(&[0xff, 0xfe]),
        FileState::Corrupt { .. }
    ));
}

#[test]
fn unknown_fields_are_ignored_and_kept() {
    let text = doc(
        r#"{"hardware_class": "c", "multiprocessors": 4, "origin": "o", "routes": {"k": [[1, "x"]]},
            "note": {"b": 1, "a": [1, 2]}}"#,
    );
    let text = text.replacen(
        "\"devices\"",
        "\"comment\": \"hand-edited\", \"devices\"",
        1,
    );
    let f = parse(&text).unwrap();
    assert_eq!(f.devices[0].extra["note"]["a"], serde_json::json!([1, 2]));
    let out = format::to_text(&f);
    assert_eq!(parse(&out).unwrap(), f);
    assert!(out.contains("\"comment\": \"hand-edited\""));
}

#[test]
fn output_is_stable_sorted_and_one_line_per_key() {
    let mut a = entry(
        "nvidia-rtx-b-sm120",
        188,
        Some(DIGEST),
        &[("z/1", &[(8, "s")]), ("a/1", &[(4, ""), (32, "t")])],
    );
    a.origin = "measured".into();
    let b = entry("nvidia-rtx-a-sm86", 82, None, &[]);
    let c = entry("nvidia-rtx-a-sm86", 0, None, &[("k", &[(1, "x")])]);
    let text = format::to_text(&file(vec![a.clone(), b.clone(), c.clone()]));
    let expected = r#"{
  "schema": "ninfer.device-route-profiles",
  "schema_version": 2,
  "devices": [
    {
      "hardware_class": "nvidia-rtx-a-sm86",
      "multiprocessors": 0,
      "origin": "ninfer-calibrate on nvidia-rtx-a-sm86",
      "routes": {
        "k": [[1, "x"]]
      }
    },
    {
      "hardware_class": "nvidia-rtx-a-sm86",
      "multiprocessors": 82,
      "origin": "ninfer-calibrate on nvidia-rtx-a-sm86",
      "routes": {}
    },
    {
      "hardware_class": "nvidia-rtx-b-sm120",
      "multiprocessors": 188,
      "origin": "measured",
      "calibration": {
        "route_catalog": "0123456789abcdef",
        "ninfer_build": "v0.1.0-7-gabcdef0",
        "cuda_driver": 13000,
        "cuda_runtime": 13000,
        "date": "2026-11-30T12:00:00Z"
      },
      "routes": {
        "a/1": [[4, ""], [32, "t"]],
        "z/1": [[8, "s"]]
      }
    }
  ]
}
"#;
    assert_eq!(text, expected);
    // Same text whatever order the entries come in, and it reads back the same.
    assert_eq!(format::to_text(&file(vec![c, a, b])), expected);
    assert_eq!(format::to_text(&parse(expected).unwrap()), expected);
    assert_eq!(format::to_text(&file(vec![])), "{\n  \"schema\": \"ninfer.device-route-profiles\",\n  \"schema_version\": 2,\n  \"devices\": []\n}\n");
}

#[test]
fn validate_entry_applies_the_same_rules() {
    let mut e = entry("c", 1, Some(DIGEST), &[("k", &[(8, "x")])]);
    assert!(format::validate_entry(&e).is_ok());
    e.routes
        .insert("k".into(), vec![Band::new(8, "x"), Band::new(4, "y")]);
    assert!(format::validate_entry(&e)
        .unwrap_err()
        .to_string()
        .contains("does not increase"));
    e.routes.insert("k".into(), vec![]);
    assert!(format::validate_entry(&e)
        .unwrap_err()
        .to_string()
        .contains("no bands"));
}

/// Bytes that are not UTF-8 are a corrupt file whose reason says so (no JSON position:
/// the text was never parsed).
#[test]
fn bytes_that_are_not_utf8_say_so() {
    let state = FileState::from_bytes(b"{\"schema\": \"\xff\"}");
    let FileState::Corrupt { error } = state else {
        panic!("{state:?}");
    };
    let text = error.to_string();
    assert!(text.contains("not UTF-8 text"), "{text}");
    assert!(!text.contains("line 0"), "{text}");
}
