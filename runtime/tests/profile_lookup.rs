//! The installed table: width → schedule, fallback to the compiled route with a
//! one-time warning, route trace once per band, install once per device.

mod profile_common;
use ninfer_runtime::device::DeviceIdentity;
use ninfer_runtime::profile::format::FileState;
use ninfer_runtime::profile::lookup::{self, InstallError, RouteTable};
use ninfer_runtime::profile::mode::ProfileMode;
use ninfer_runtime::profile::{resolve, ResolvedRoutes, Sources};
use profile_common::*;

const T2: &str = "t2_i8_small/5120x6144";
const ATTN: &str = "attn_i8_small/h24/int8/w8";
const GDN: &str = "gdn_two_stage/h48";

fn resolved(routes: &[(&str, &[(u32, &str)])]) -> ResolvedRoutes {
    let cat = catalog();
    let state = FileState::Read(file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        routes,
    )]));
    let builtin = file(vec![]);
    let id = DeviceIdentity::new("NVIDIA H200", (9, 0), 132);
    resolve(
        &id,
        ProfileMode::Auto,
        &Sources {
            path: None,
            file: &state,
            builtin: &builtin,
        },
        &cat,
    )
}

#[test]
fn widths_map_to_bands_and_past_them_to_the_compiled_route() {
    let t = RouteTable::with_trace(&resolved(&[(T2, &[(4, "r32c8"), (16, "")])]), false);
    let s = |w| t.schedule(T2, w).unwrap().to_string();
    assert_eq!(s(0), "r32c8");
    assert_eq!(s(1), "r32c8");
    assert_eq!(s(4), "r32c8");
    assert_eq!(s(5), "r16c8"); // "" = the compiled route, whose bands apply
    assert_eq!(s(9), "r16c16");
    assert_eq!(s(17), "r16c32"); // past the profile: compiled
    assert_eq!(s(1_000_000), "r16c32"); // the compiled route's last band extends
    assert_eq!(t.schedule(GDN, 100), Some("off"));
    assert_eq!(t.schedule("no/such", 1), None);
}

#[test]
fn a_schedule_the_catalog_does_not_list_falls_back_with_one_warning() {
    let t = RouteTable::with_trace(
        &resolved(&[(T2, &[(8, "r99c99")]), (ATTN, &[(8, "y")])]),
        false,
    );
    let (got, lines) = capture(|| {
        (1..=8)
            .map(|w| t.schedule(T2, w).unwrap().to_string())
            .collect::<Vec<_>>()
    });
    assert!(got.iter().all(|s| s == "r16c8"), "{got:?}");
    let w = warnings(&lines);
    assert_eq!(w.len(), 1, "{lines:?}");
    assert!(
        w[0].contains("\"r99c99\"") && w[0].contains("not a schedule of this key"),
        "{}",
        w[0]
    );
    let (again, lines) = capture(|| t.schedule(T2, 3).unwrap().to_string());
    assert_eq!(again, "r16c8");
    assert!(warnings(&lines).is_empty());
    let (_, lines) = capture(|| t.schedule(ATTN, 3));
    assert!(warnings(&lines).is_empty());
}

#[test]
fn a_schedule_too_narrow_for_the_width_falls_back_with_one_warning() {
    // r32c8 serves 8 columns; the band asks it for widths up to 32.
    let t = RouteTable::with_trace(&resolved(&[(T2, &[(32, "r32c8")])]), false);
    let (got, lines) = capture(|| {
        let mut v = vec![];
        for w in [1, 8, 9, 12, 16, 17, 32, 9] {
            v.push(t.schedule(T2, w).unwrap().to_string());
        }
        v
    });
    assert_eq!(
        got,
        ["r32c8", "r32c8", "r16c16", "r16c16", "r16c16", "r16c32", "r16c32", "r16c16"]
    );
    let w = warnings(&lines);
    assert_eq!(w.len(), 1, "{lines:?}");
    assert!(
        w[0].contains("serves widths up to 8")
            && w[0].contains("widths 9-32 take the compiled route"),
        "{}",
        w[0]
    );
}

#[test]
fn route_trace_logs_each_applied_route_once() {
    let t = RouteTable::with_trace(&resolved(&[(T2, &[(4, "r32c8")])]), true);
    let (_, lines) = capture(|| {
        for w in [1, 2, 3, 4, 1, 5, 6, 20, 21] {
            t.schedule(T2, w);
        }
    });
    let info: Vec<&String> = lines.iter().filter(|l| l.starts_with("INFO")).collect();
    assert_eq!(info.len(), 3, "{lines:?}");
    assert!(
        info[0].ends_with("t2_i8_small/5120x6144 widths 1-4 -> r32c8 (file)"),
        "{}",
        info[0]
    );
    assert!(
        info[1].ends_with("t2_i8_small/5120x6144 widths 5-8 -> r16c8 (compiled)"),
        "{}",
        info[1]
    );
    assert!(
        info[2].ends_with("t2_i8_small/5120x6144 widths 17- -> r16c32 (compiled)"),
        "{}",
        info[2]
    );
    let quiet = RouteTable::with_trace(&resolved(&[(T2, &[(4, "r32c8")])]), false);
    let (_, lines) = capture(|| quiet.schedule(T2, 1));
    assert!(lines.is_empty());
}

#[test]
fn install_once_per_device_then_lookups_are_lock_free_reads() {
    // Ordinal 7 is this test's alone (tests of one binary share the process).
    let table = lookup::install_on(7, resolved(&[(T2, &[(4, "r32c8")])])).unwrap();
    assert_eq!(table.schedule(T2, 2), Some("r32c8"));
    assert_eq!(lookup::schedule_on(7, T2, 2), "r32c8");
    assert_eq!(
        lookup::install_on(7, resolved(&[])).unwrap_err(),
        InstallError::AlreadyInstalled(7)
    );
    assert_eq!(lookup::schedule_on(7, T2, 2), "r32c8");
    assert!(matches!(
        lookup::install_on(lookup::MAX_DEVICES, resolved(&[])),
        Err(InstallError::OrdinalTooLarge(_))
    ));
    // Many threads read at once.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for w in 1..2000u32 {
                    let want = if w <= 4 {
                        "r32c8"
                    } else if w <= 8 {
                        "r16c8"
                    } else if w <= 16 {
                        "r16c16"
                    } else {
                        "r16c32"
                    };
                    assert_eq!(lookup::schedule_on(7, T2, w), want);
                }
            });
        }
    });
    // A key this build does not route: "" and a warning, never a crash.
    assert_eq!(lookup::schedule_on(7, "no/such", 1), "");
}
