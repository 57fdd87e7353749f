//! Shared by the profile_* tests: a small fake catalog, entries, and a capture of
//! the warnings a closure logs.
#![allow(dead_code)]

use ninfer_runtime::catalog::{CalibrationFlag, CatalogView, KeyView};
use ninfer_runtime::profile::format::{bands, Calibration, Entry, ProfileFile};
use std::io::Write;
use std::sync::{Arc, Mutex};

pub const DIGEST: &str = "0123456789abcdef";
pub const OLD_DIGEST: &str = "fedcba9876543210";

fn key(
    name: &str,
    flag: CalibrationFlag,
    candidates: &[(&str, u32)],
    compiled: &[(u32, &str)],
    widths: &[u32],
) -> KeyView {
    KeyView {
        key: name.to_string(),
        calibration: flag,
        candidates: candidates
            .iter()
            .map(|(s, w)| (s.to_string(), *w))
            .collect(),
        compiled: compiled.iter().map(|(w, s)| (*w, s.to_string())).collect(),
        widths: widths.to_vec(),
    }
}

/// Three keys: an attention key whose schedules serve any width, a ternary key whose
/// schedules serve 8, 16 or 32 columns, and a GDN switch.
pub fn catalog() -> Arc<CatalogView> {
    Arc::new(CatalogView {
        digest: DIGEST.to_string(),
        keys: vec![
            key(
                "attn_i8_small/h24/int8/w8",
                CalibrationFlag::Attention,
                &[("x", 4096), ("y", 4096), ("z", 4096), ("w4c2", 4096)],
                &[(64, "x"), (4096, "w4c2")],
                &[1, 2, 4, 8],
            ),
            key(
                "gdn_two_stage/h48",
                CalibrationFlag::LinearAttention,
                &[("on", 8192), ("off", 8192)],
                &[(8192, "off")],
                &[16, 8192],
            ),
            key(
                "t2_i8_small/5120x6144",
                CalibrationFlag::Ternary,
                &[("r16c8", 8), ("r16c16", 16), ("r16c32", 32), ("r32c8", 8)],
                &[(8, "r16c8"), (16, "r16c16"), (32, "r16c32")],
                &[1, 2, 4, 8, 16, 32],
            ),
        ],
    })
}

pub fn calibration(digest: &str) -> Calibration {
    Calibration {
        route_catalog: digest.to_string(),
        ninfer_build: "v0.1.0-7-gabcdef0".to_string(),
        cuda_driver: 13000,
        cuda_runtime: 13000,
        date: "2026-11-30T12:00:00Z".to_string(),
    }
}

/// An entry for `class`/`sms` with `routes`, calibrated against `digest` (None: no block).
pub fn entry(
    class: &str,
    sms: u32,
    digest: Option<&str>,
    routes: &[(&str, &[(u32, &str)])],
) -> Entry {
    let mut e = Entry::new(class, sms, format!("ninfer-calibrate on {class}"));
    e.calibration = digest.map(calibration);
    for (k, b) in routes {
        e.routes.insert(k.to_string(), bands(b));
    }
    e
}

pub fn file(entries: Vec<Entry>) -> ProfileFile {
    ProfileFile {
        devices: entries,
        extra: Default::default(),
    }
}

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` with a subscriber of this thread that records events at INFO and above;
/// returns `f`'s result and the recorded lines (`WARN message`).
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let buf = Buf::default();
    let sink = buf.clone();
    let sub = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    let r = tracing::subscriber::with_default(sub, f);
    let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    (r, text.lines().map(|l| l.trim().to_string()).collect())
}

/// The lines of `lines` that are warnings.
pub fn warnings(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.starts_with("WARN"))
        .cloned()
        .collect()
}

/// insta settings writing to the top-level `snapshots/` directory.
pub fn snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}
