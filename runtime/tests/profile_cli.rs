//! `ninfer routes` and `ninfer profile check`: snapshots of their output over a small
//! fake catalog and built-in table (in process), and the binary's wiring.

mod profile_common;
use ninfer_runtime::catalog::CatalogView;
use ninfer_runtime::cli::profile::check_with;
use ninfer_runtime::cli::routes::{run_with, Env, RoutesArgs};
use ninfer_runtime::device::DeviceIdentity;
use ninfer_runtime::profile::format::{self, ProfileFile};
use ninfer_runtime::profile::location::PathSource;
use ninfer_runtime::profile::mode::ProfileMode;
use ninfer_runtime::profile::overrides::EnvOverrides;
use profile_common::*;
use std::fs;
use std::path::{Path, PathBuf};

const T2: &str = "t2_i8_small/5120x6144";
const ATTN: &str = "attn_i8_small/h24/int8/w8";
const GDN: &str = "gdn_two_stage/h48";

fn builtin() -> ProfileFile {
    let mut h200 = entry(
        "nvidia-h200-sm90",
        132,
        None,
        &[
            (T2, &[(8, "r32c8"), (32, "r16c32")]),
            (ATTN, &[(4, "y"), (4096, "z")]),
        ],
    );
    h200.origin = "measured on NVIDIA H200 (132 SMs), 2026-11-30".into();
    let mut a = entry(
        "nvidia-geforce-rtx-3090-sm86",
        82,
        None,
        &[(GDN, &[(8192, "on")])],
    );
    a.origin = "measured on NVIDIA GeForce RTX 3090 (82 SMs), 2026-11-30".into();
    file(vec![h200, a])
}

fn args(
    name: &str,
    cc: (u32, u32),
    sms: u32,
    path: &Path,
    mode: ProfileMode,
    json: bool,
) -> RoutesArgs {
    RoutesArgs {
        gpu_name: Some(name.into()),
        compute_capability: Some(cc),
        sms: Some(sms),
        device: 0,
        device_profile_path: Some(path.to_path_buf()),
        device_profile: mode,
        json,
        prefill_chunk: 1024,
    }
}

fn routes(a: &RoutesArgs, overrides: EnvOverrides, dir: &Path) -> String {
    let b = builtin();
    let locate = |p: Option<&Path>| -> Result<(PathBuf, PathSource), String> {
        Ok((p.unwrap().to_path_buf(), PathSource::CommandLine))
    };
    let detect = |_: usize| -> anyhow::Result<DeviceIdentity> {
        anyhow::bail!("no NVIDIA GPU driver found")
    };
    let env = Env {
        catalog: catalog(),
        builtin: &b,
        overrides,
        locate: &locate,
        detect: &detect,
    };
    let out = run_with(a, &env).unwrap_or_else(|e| format!("error: {e}\n"));
    out.replace(&dir.display().to_string(), "[TMP]")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn user_file() -> String {
    let mut e = entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[
            (T2, &[(4, ""), (16, "r16c16"), (32, "r32c8")]),
            (ATTN, &[(2, "x"), (8, "nope")]),
            ("q6_head/248320x5120", &[(32, "small_t")]),
        ],
    );
    e.origin = "ninfer-calibrate on NVIDIA H200".into();
    format::to_text(&file(vec![
        e,
        entry(
            "nvidia-h200-sm90",
            114,
            Some(DIGEST),
            &[(GDN, &[(16, "on")])],
        ),
    ]))
}

#[test]
fn routes_file_over_built_in() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "device-profiles.json", &user_file());
    let a = args("NVIDIA H200", (9, 0), 132, &p, ProfileMode::Auto, false);
    let o = EnvOverrides {
        prompt_fast: Some(true),
        prefill_align: false,
        ..Default::default()
    };
    snapshots().bind(|| {
        insta::assert_snapshot!(
            "profile_routes_file_over_builtin",
            routes(&a, o, dir.path())
        )
    });
    let a = args("NVIDIA H200", (9, 0), 132, &p, ProfileMode::Auto, true);
    snapshots().bind(|| {
        insta::assert_snapshot!(
            "profile_routes_file_over_builtin_json",
            routes(&a, EnvOverrides::default(), dir.path())
        )
    });
}

#[test]
fn routes_stale_file() {
    let dir = tempfile::tempdir().unwrap();
    let stale = format::to_text(&file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(OLD_DIGEST),
        &[(T2, &[(32, "r16c32")])],
    )]));
    let p = write(dir.path(), "device-profiles.json", &stale);
    let a = args("NVIDIA H200", (9, 0), 132, &p, ProfileMode::Auto, false);
    snapshots().bind(|| {
        insta::assert_snapshot!(
            "profile_routes_stale_file",
            routes(&a, EnvOverrides::default(), dir.path())
        )
    });
}

#[test]
fn routes_other_version_sm_mismatch_and_no_entry() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = write(
        dir.path(),
        "v1.json",
        r#"{"schema": "ninfer.device-route-profiles", "schema_version": 1, "devices": []}"#,
    );
    let good = write(dir.path(), "good.json", &user_file());
    let missing = dir.path().join("missing.json");
    let mut out = String::new();
    for a in [
        args("NVIDIA H200", (9, 0), 132, &v1, ProfileMode::Auto, false),
        // An H200 with another SM count: neither the file's 132 nor the built-in's 132 entry match.
        args("NVIDIA H200", (9, 0), 100, &good, ProfileMode::Auto, false),
        // No file and no built-in entry: calibrate now.
        args(
            "NVIDIA GeForce RTX 4090",
            (8, 9),
            128,
            &missing,
            ProfileMode::Auto,
            false,
        ),
        args("NVIDIA H200", (9, 0), 132, &good, ProfileMode::Off, false),
        args(
            "NVIDIA H200",
            (9, 0),
            132,
            &good,
            ProfileMode::Calibrate,
            false,
        ),
    ] {
        out.push_str(&format!(
            "$ ninfer routes --gpu-name {:?} --sms {} --device-profile {}\n",
            a.gpu_name.as_ref().unwrap(),
            a.sms.unwrap(),
            a.device_profile
        ));
        out.push_str(&routes(&a, EnvOverrides::default(), dir.path()));
        out.push_str("\n\n");
    }
    snapshots().bind(|| insta::assert_snapshot!("profile_routes_other_cases", out));
}

#[test]
fn routes_without_a_gpu_says_what_to_pass() {
    let dir = tempfile::tempdir().unwrap();
    let a = RoutesArgs {
        gpu_name: None,
        compute_capability: None,
        sms: None,
        device: 0,
        device_profile_path: Some(dir.path().join("p.json")),
        device_profile: ProfileMode::Auto,
        json: false,
        prefill_chunk: 1024,
    };
    let out = routes(&a, EnvOverrides::default(), dir.path());
    assert_eq!(out.lines().count(), 1);
    assert!(
        out.contains("no GPU found")
            && out.contains("--gpu-name")
            && out.contains("--compute-capability")
            && out.contains("--sms"),
        "{out}"
    );
}

fn check(dir: &Path, name: &str, text: &[u8]) -> String {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    let (report, ok) = check_with(&p, &catalog());
    format!(
        "exit: {}\n{}",
        if ok { 0 } else { 1 },
        report.replace(&dir.display().to_string(), "[TMP]")
    )
}

#[test]
fn profile_check_good_stale_foreign_and_corrupt_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut good = entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[
            (T2, &[(8, "r32c8"), (16, ""), (32, "r16c32")]),
            (GDN, &[(8192, "on")]),
        ],
    );
    good.origin = "ninfer-calibrate on NVIDIA H200".into();
    let good_text = format::to_text(&file(vec![good]));
    let out = check(d, "good.json", good_text.as_bytes());
    assert!(out.starts_with("exit: 0"));
    snapshots().bind(|| insta::assert_snapshot!("profile_check_good", out));

    let stale = entry(
        "nvidia-h200-sm90",
        132,
        Some(OLD_DIGEST),
        &[(T2, &[(32, "r16c32")])],
    );
    let unmeasured = entry(
        "nvidia-geforce-rtx-3090-sm86",
        0,
        None,
        &[(GDN, &[(16, "on")])],
    );
    let wrong = entry(
        "nvidia-geforce-rtx-5090-sm120",
        170,
        Some(DIGEST),
        &[
            (T2, &[(16, "r16c8"), (32, "r99")]),
            ("no_such/key", &[(1, "x")]),
        ],
    );
    let out = check(
        d,
        "stale.json",
        format::to_text(&file(vec![stale, unmeasured, wrong])).as_bytes(),
    );
    assert!(out.starts_with("exit: 1"));
    snapshots().bind(|| insta::assert_snapshot!("profile_check_stale_and_wrong", out));

    let mut foreign = String::new();
    for v in [1, 3] {
        let text = format!(
            r#"{{"schema": "ninfer.device-route-profiles", "schema_version": {v}, "devices": []}}"#
        );
        foreign.push_str(&check(d, &format!("v{v}.json"), text.as_bytes()));
        foreign.push('\n');
    }
    assert_eq!(foreign.matches("exit: 1").count(), 2);
    snapshots().bind(|| insta::assert_snapshot!("profile_check_foreign_versions", foreign));

    let mut corrupt = String::new();
    corrupt.push_str(&check(
        d,
        "truncated.json",
        &good_text.as_bytes()[..good_text.len() / 2],
    ));
    corrupt.push('\n');
    corrupt.push_str(&check(d, "not-json.json", b"schema: 2\n"));
    corrupt.push('\n');
    corrupt.push_str(&check(
        d,
        "bad-band.json",
        good_text.replace("[16, \"\"]", "[4, \"\"]").as_bytes(),
    ));
    corrupt.push('\n');
    corrupt.push_str(&check(
        d,
        "other-schema.json",
        br#"{"schema": "something.else"}"#,
    ));
    assert_eq!(corrupt.matches("exit: 1").count(), 4);
    snapshots().bind(|| insta::assert_snapshot!("profile_check_corrupt", corrupt));
}

// The binary itself (over this build's own catalog and built-in table).

fn ninfer(args: &[&str]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ninfer"));
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("NINFER_") || k == "RUST_LOG" {
            cmd.env_remove(k);
        }
    }
    let out = cmd.args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn binary_routes_for_a_named_device() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.json");
    let (code, out, _) = ninfer(&[
        "routes",
        "--gpu-name",
        "NVIDIA H200",
        "--compute-capability",
        "9.0",
        "--sms",
        "132",
        "--device-profile-path",
        p.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("device: NVIDIA H200, compute capability 9.0, 132 SMs\nhardware class: nvidia-h200-sm90\n"), "{out}");
    assert!(out.contains(&format!(
        "route catalog: {}",
        CatalogView::built_in().digest
    )));
    let (code, out, _) = ninfer(&[
        "routes",
        "--gpu-name",
        "NVIDIA H200",
        "--compute-capability",
        "9.0",
        "--sms",
        "132",
        "--device-profile-path",
        p.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hardware_class"], "nvidia-h200-sm90");
    // A bad compute capability or a partial device is a usage error.
    let (code, _, err) = ninfer(&[
        "routes",
        "--gpu-name",
        "NVIDIA H200",
        "--compute-capability",
        "sm90",
        "--sms",
        "132",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("expected MAJOR.MINOR"), "{err}");
    let (code, _, err) = ninfer(&["routes", "--gpu-name", "NVIDIA H200"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn binary_routes_without_a_gpu() {
    let (code, out, err) = ninfer(&["routes", "--device-profile-path", "/nonexistent/p.json"]);
    if code == 0 {
        return; // a machine with a GPU
    }
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no GPU found")
            && err.contains("--gpu-name NAME --compute-capability MAJOR.MINOR --sms N"),
        "{err}"
    );
}

#[test]
fn binary_bad_override_is_an_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ninfer"))
        .args([
            "routes",
            "--gpu-name",
            "X",
            "--compute-capability",
            "9.0",
            "--sms",
            "1",
            "--device-profile-path",
            "/nonexistent/p.json",
        ])
        .env("NINFER_PROMPT_FAST", "yes")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains(r#"NINFER_PROMPT_FAST="yes": expected 0 or 1"#));
}

#[test]
fn binary_profile_check_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    let mut e = entry(
        "nvidia-h200-sm90",
        132,
        Some(&CatalogView::built_in().digest),
        &[],
    );
    e.routes.clear();
    fs::write(&good, format::to_text(&file(vec![e]))).unwrap();
    let (code, out, _) = ninfer(&["profile", "check", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("OK: 0 errors"), "{out}");
    let bad = dir.path().join("bad.json");
    fs::write(
        &bad,
        "{\"schema\": \"ninfer.device-route-profiles\", \"schema_version\": 2, \"dev",
    )
    .unwrap();
    let (code, out, err) = ninfer(&["profile", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        out.contains("truncated JSON") && out.contains("FAILED: 1 error"),
        "{out}"
    );
    assert!(err.contains("does not pass the check"), "{err}");
    let (code, _, _) = ninfer(&[
        "profile",
        "check",
        dir.path().join("none.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
}
