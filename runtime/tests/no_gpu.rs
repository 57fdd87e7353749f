//! On a machine without a GPU, the GPU commands exit with a one-line explanation
//! (not a panic), and `ninfer routes` still works from the built-in table.

use std::process::Command;

fn has_gpu() -> bool {
    ninfer_runtime::gpu::detect_identity(0).is_ok()
}

fn one_line_failure(bin: &str, args: &[&str]) {
    let out = Command::new(bin).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{bin} {args:?}: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {err}");
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("GPU"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn check_calibrate_and_bench_explain_a_missing_gpu_in_one_line() {
    if has_gpu() {
        eprintln!("skipped: this machine has a GPU");
        return;
    }
    one_line_failure(env!("CARGO_BIN_EXE_ninfer"), &["check"]);
    one_line_failure(
        env!("CARGO_BIN_EXE_ninfer"),
        &["bench", "--device-profile", "off"],
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.json");
    one_line_failure(
        env!("CARGO_BIN_EXE_ninfer-calibrate"),
        &["--out", out.to_str().unwrap()],
    );
    assert!(
        !out.exists(),
        "nothing may be written without a measurement"
    );
}

#[test]
fn routes_for_a_named_device_need_no_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ninfer"))
        .args([
            "routes",
            "--gpu-name",
            "NVIDIA H200",
            "--compute-capability",
            "9.0",
            "--sms",
            "132",
        ])
        .env("NINFER_DEVICE_PROFILES", dir.path().join("none.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("t2_i8_small/5120x17408"), "{text}");
}
