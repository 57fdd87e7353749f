//! The built-in table compiled into the binary: valid, measured entries only, every
//! key and schedule known to this build; and the resolved route table of each of its
//! devices (snapshot).

mod profile_common;
use ninfer_runtime::catalog::CatalogView;
use ninfer_runtime::device::DeviceIdentity;
use ninfer_runtime::profile::explain::{render_text, Context};
use ninfer_runtime::profile::format::{self, FileState};
use ninfer_runtime::profile::mode::{decide, ProfileMode};
use ninfer_runtime::profile::overrides::EnvOverrides;
use ninfer_runtime::profile::{builtin, resolve, Sources};
use profile_common::snapshots;
use std::sync::Arc;

#[test]
fn the_built_in_table_is_valid() {
    let parsed = format::parse(builtin::TEXT)
        .unwrap_or_else(|e| panic!("builtin-device-profiles.json: {e}"));
    assert_eq!(&parsed, builtin::table());
}

#[test]
fn every_built_in_entry_is_a_measurement_this_build_can_run() {
    let cat = CatalogView::built_in();
    for e in &builtin::table().devices {
        let who = e.label();
        assert!(
            !e.origin.trim().is_empty(),
            "{who}: origin must say on what and when it was measured"
        );
        assert!(
            e.calibration.is_some(),
            "{who}: a measured entry carries its calibration block"
        );
        assert!(e.multiprocessors > 0, "{who}: measured on one SM count");
        for (key, bands) in &e.routes {
            let kv = cat
                .key(key)
                .unwrap_or_else(|| panic!("{who}: {key} is not a route key of this build"));
            for b in bands.iter().filter(|b| !b.schedule.is_empty()) {
                let max = kv
                    .max_width(&b.schedule)
                    .unwrap_or_else(|| panic!("{who}: {key}: {} is not a candidate", b.schedule));
                assert!(
                    max >= b.last_width,
                    "{who}: {key}: {} serves up to {max}, the band to {}",
                    b.schedule,
                    b.last_width
                );
            }
        }
    }
}

/// `nvidia-h200-sm90` → ("nvidia-h200", (9, 0)): the name folds back to the same class.
fn identity(class: &str, sms: u32) -> DeviceIdentity {
    let (name, sm) = class
        .rsplit_once("-sm")
        .expect("a hardware class ends in -sm<cc>");
    let (major, minor) = sm.split_at(sm.len() - 1);
    let id = DeviceIdentity::new(name, (major.parse().unwrap(), minor.parse().unwrap()), sms);
    assert_eq!(id.hardware_class(), class);
    id
}

#[test]
fn resolved_routes_of_every_built_in_device() {
    let cat = Arc::new(CatalogView::built_in());
    let table = builtin::table();
    let mut out = String::new();
    for e in &table.devices {
        let id = identity(&e.hardware_class, e.multiprocessors);
        let missing = FileState::Missing;
        let r = resolve(
            &id,
            ProfileMode::Auto,
            &Sources {
                path: None,
                file: &missing,
                builtin: table,
            },
            &cat,
        );
        let overrides = EnvOverrides::default();
        let ctx = Context {
            decision: decide(ProfileMode::Auto, &id, &missing, table, &cat.digest),
            path_source: None,
            overrides: &overrides,
        };
        out.push_str(&render_text(&r, &ctx));
        out.push('\n');
    }
    if table.devices.is_empty() {
        out.push_str("(the built-in table has no entries)\n");
    }
    snapshots().bind(|| insta::assert_snapshot!("profile_builtin_devices", out));
}
