//! Staleness and foreign schema versions: not applied, warned once, the built-in
//! entry in force.

mod profile_common;
use ninfer_runtime::device::DeviceIdentity;
use ninfer_runtime::profile::format::{bands, FileState};
use ninfer_runtime::profile::mode::ProfileMode;
use ninfer_runtime::profile::staleness::{freshness, Freshness};
use ninfer_runtime::profile::{resolve, BuiltinOutcome, FileOutcome, Sources};
use profile_common::*;
use std::path::PathBuf;

const T2: &str = "t2_i8_small/5120x6144";

fn h200() -> DeviceIdentity {
    DeviceIdentity::new("NVIDIA H200", (9, 0), 132)
}

fn builtin() -> ninfer_runtime::profile::format::ProfileFile {
    let mut e = entry(
        "nvidia-h200-sm90",
        132,
        None,
        &[(T2, &[(8, "r32c8"), (32, "r16c32")])],
    );
    e.origin = "measured on an H200".into();
    file(vec![e])
}

#[test]
fn freshness_compares_digests() {
    let fresh = entry("c", 1, Some(DIGEST), &[]);
    assert_eq!(
        freshness(&fresh, DIGEST),
        Freshness::Fresh(fresh.calibration.clone().unwrap())
    );
    assert_eq!(
        freshness(&entry("c", 1, None, &[]), DIGEST),
        Freshness::NoCalibration
    );
    let f = freshness(&entry("c", 1, Some(OLD_DIGEST), &[]), DIGEST);
    assert_eq!(
        f.reason().unwrap(),
        "stale: measured against route catalog fedcba9876543210 by ninfer v0.1.0-7-gabcdef0 on 2026-11-30T12:00:00Z, this build's route catalog is 0123456789abcdef"
    );
}

#[test]
fn a_stale_entry_gives_one_warning_and_the_built_in_entry_stays() {
    let cat = catalog();
    let path = PathBuf::from("/profiles/stale-test.json");
    let state = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(OLD_DIGEST),
        &[(T2, &[(32, "r16c16")])],
    )]));
    let b = builtin();
    let sources = Sources {
        path: Some(&path),
        file: &state,
        builtin: &b,
    };
    let (r, lines) = capture(|| {
        let r = resolve(&h200(), ProfileMode::Auto, &sources, &cat);
        // Resolving again (a second device of the class, a restart of the routes) does not warn again.
        resolve(&h200(), ProfileMode::Auto, &sources, &cat);
        r
    });
    let w = warnings(&lines);
    assert_eq!(w.len(), 1, "{lines:?}");
    assert!(
        w[0].contains(OLD_DIGEST) && w[0].contains(DIGEST),
        "{}",
        w[0]
    );
    assert!(
        w[0].contains("v0.1.0-7-gabcdef0"),
        "names the build that measured it: {}",
        w[0]
    );
    assert!(
        w[0].contains("the built-in entry applies instead"),
        "{}",
        w[0]
    );
    assert!(
        w[0].contains("--device-profile calibrate"),
        "says how to recalibrate: {}",
        w[0]
    );
    assert!(matches!(
        r.file,
        FileOutcome::Skipped {
            freshness: Freshness::OtherCatalog { .. },
            ..
        }
    ));
    assert!(matches!(r.builtin, BuiltinOutcome::Applied { .. }));
    assert_eq!(
        r.key(T2).unwrap().bands(),
        bands(&[(8, "r32c8"), (32, "r16c32")])
    );
}

#[test]
fn an_entry_without_a_calibration_block_is_ignored() {
    let cat = catalog();
    let path = PathBuf::from("/profiles/no-calibration.json");
    let state = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        None,
        &[(T2, &[(32, "r16c16")])],
    )]));
    let b = builtin();
    let (r, lines) = capture(|| {
        resolve(
            &h200(),
            ProfileMode::Auto,
            &Sources {
                path: Some(&path),
                file: &state,
                builtin: &b,
            },
            &cat,
        )
    });
    assert_eq!(warnings(&lines).len(), 1);
    assert!(warnings(&lines)[0].contains("no calibration block"));
    assert!(matches!(
        r.file,
        FileOutcome::Skipped {
            freshness: Freshness::NoCalibration,
            ..
        }
    ));
    assert_eq!(
        r.key(T2).unwrap().bands(),
        bands(&[(8, "r32c8"), (32, "r16c32")])
    );
}

#[test]
fn files_of_other_versions_are_not_read_and_warned_once() {
    let cat = catalog();
    let b = builtin();
    for (version, words) in [(1, "older"), (3, "newer")] {
        let path = PathBuf::from(format!("/profiles/version-{version}.json"));
        let state = FileState::from_bytes(
            format!(r#"{{"schema": "ninfer.device-route-profiles", "schema_version": {version}, "devices": []}}"#).as_bytes(),
        );
        let sources = Sources {
            path: Some(&path),
            file: &state,
            builtin: &b,
        };
        let (r, lines) = capture(|| {
            resolve(&h200(), ProfileMode::Auto, &sources, &cat);
            resolve(&h200(), ProfileMode::Auto, &sources, &cat)
        });
        let w = warnings(&lines);
        assert_eq!(w.len(), 1, "{lines:?}");
        assert!(
            w[0].contains(&format!("schema_version {version}")) && w[0].contains(words),
            "{}",
            w[0]
        );
        assert_eq!(r.file, FileOutcome::OtherVersion { version });
        assert!(matches!(r.builtin, BuiltinOutcome::Applied { .. }));
    }
}

#[test]
fn a_fresh_entry_gives_no_warning() {
    let cat = catalog();
    let path = PathBuf::from("/profiles/fresh.json");
    let state = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[(T2, &[(32, "r16c32")])],
    )]));
    let b = builtin();
    let (r, lines) = capture(|| {
        resolve(
            &h200(),
            ProfileMode::Auto,
            &Sources {
                path: Some(&path),
                file: &state,
                builtin: &b,
            },
            &cat,
        )
    });
    assert_eq!(warnings(&lines), Vec::<String>::new());
    assert_eq!(r.key(T2).unwrap().bands(), bands(&[(32, "r16c32")]));
}
