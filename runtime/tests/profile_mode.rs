//! `--device-profile auto|calibrate|off`: the decision for one device.

mod profile_common;
use clap::ValueEnum;
use ninfer_runtime::device::DeviceIdentity;
use ninfer_runtime::profile::format::{FileState, ParseError};
use ninfer_runtime::profile::mode::{decide, CalibrateReason, Decision, ProfileMode};
use profile_common::*;

fn h200() -> DeviceIdentity {
    DeviceIdentity::new("NVIDIA H200", (9, 0), 132)
}

#[test]
fn values() {
    assert_eq!(ProfileMode::default(), ProfileMode::Auto);
    assert_eq!(
        ProfileMode::from_str("calibrate", false),
        Ok(ProfileMode::Calibrate)
    );
    assert_eq!(ProfileMode::from_str("off", false), Ok(ProfileMode::Off));
    assert!(ProfileMode::from_str("sometimes", false).is_err());
}

#[test]
fn decisions() {
    let fresh = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[],
    )]));
    let stale = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(OLD_DIGEST),
        &[],
    )]));
    let other_sms = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        114,
        Some(DIGEST),
        &[],
    )]));
    let corrupt = FileState::Corrupt {
        error: ParseError::NotAProfile { reason: "x".into() },
    };
    let newer = FileState::OtherVersion { version: 3 };
    let with_builtin = file(vec![entry("nvidia-h200-sm90", 0, None, &[])]);
    let none = file(vec![]);
    let d = |mode, f: &FileState, b| decide(mode, &h200(), f, b, DIGEST);

    use Decision::*;
    assert_eq!(d(ProfileMode::Auto, &fresh, &with_builtin), UseFile);
    assert_eq!(d(ProfileMode::Auto, &fresh, &none), UseFile);
    assert_eq!(d(ProfileMode::Auto, &stale, &with_builtin), UseBuiltIn);
    assert_eq!(
        d(ProfileMode::Auto, &stale, &none),
        CalibrateNow(CalibrateReason::FileEntryNotApplied)
    );
    assert_eq!(
        d(ProfileMode::Auto, &other_sms, &none),
        CalibrateNow(CalibrateReason::NoProfile)
    );
    assert_eq!(
        d(ProfileMode::Auto, &FileState::Missing, &with_builtin),
        UseBuiltIn
    );
    assert_eq!(
        d(ProfileMode::Auto, &FileState::Missing, &none),
        CalibrateNow(CalibrateReason::NoProfile)
    );
    assert_eq!(d(ProfileMode::Auto, &corrupt, &with_builtin), UseBuiltIn);
    assert_eq!(
        d(ProfileMode::Auto, &newer, &none),
        CalibrateNow(CalibrateReason::NoProfile)
    );
    for f in [&fresh, &stale, &FileState::Missing] {
        assert_eq!(
            d(ProfileMode::Calibrate, f, &with_builtin),
            CalibrateNow(CalibrateReason::Requested)
        );
        assert_eq!(d(ProfileMode::Off, f, &with_builtin), CompiledOnly);
    }
}
