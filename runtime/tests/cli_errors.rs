//! Errors and help that need no GPU: a bad environment override stops every command that
//! runs kernels before it touches the GPU, and `ninfer-calibrate --help` says what its
//! `--no-*` flags skip; a calibration with its weights in L2 refuses to store anything.

use std::process::Command;

#[test]
fn a_bad_override_stops_the_gpu_commands_in_one_line() {
    let bins = [
        (env!("CARGO_BIN_EXE_ninfer"), vec!["check"]),
        (env!("CARGO_BIN_EXE_ninfer"), vec!["bench"]),
        (
            env!("CARGO_BIN_EXE_ninfer"),
            vec![
                "routes",
                "--gpu-name",
                "NVIDIA H200",
                "--compute-capability",
                "9.0",
                "--sms",
                "132",
            ],
        ),
        (env!("CARGO_BIN_EXE_ninfer-calibrate"), vec![]),
    ];
    for (bin, args) in bins {
        let out = Command::new(bin)
            .args(&args)
            .env("NINFER_PDL", "sometimes")
            .env("NINFER_SMALLT_PV_F16", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            "error: environment: NINFER_PDL=\"sometimes\": expected 0, 1 or second",
            "{args:?}"
        );
    }
}

#[test]
fn calibrate_help_lists_what_each_skip_flag_skips() {
    let out = Command::new(env!("CARGO_BIN_EXE_ninfer-calibrate"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let listing = help
        .split_once("What each --no-* flag skips")
        .unwrap_or_else(|| panic!("no listing after the options:\n{help}"))
        .1;
    let line = |flag: &str| {
        listing
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("no listing line for {flag}:\n{help}"))
            .to_string()
    };
    for f in ninfer_runtime::catalog::FAMILIES {
        let flag = match f.calibration {
            ninfer_runtime::catalog::CalibrationFlag::Ternary => "--no-ternary",
            ninfer_runtime::catalog::CalibrationFlag::Groupwise => "--no-groupwise",
            ninfer_runtime::catalog::CalibrationFlag::Attention => "--no-attention",
            ninfer_runtime::catalog::CalibrationFlag::LinearAttention => "--no-linear-attention",
        };
        assert!(line(flag).contains(f.name), "{flag} should list {}", f.name);
    }
}

#[test]
fn bench_of_nothing_says_so_before_the_gpu() {
    let out = Command::new(env!("CARGO_BIN_EXE_ninfer"))
        .args(["bench", "--only", "no_such_family"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing to time"), "{err}");
}

#[test]
fn calibration_with_weights_in_l2_refuses_to_store_before_the_gpu() {
    let dir = std::env::temp_dir().join(format!("ninfer-l2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profiles.json");
    std::fs::write(&path, "not touched").unwrap();
    for extra in [vec!["--out", path.to_str().unwrap()], vec!["--print"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_ninfer-calibrate"))
            .args(["--weights-from", "l2"])
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--weights-from l2 stores nothing"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not touched");
    std::fs::remove_dir_all(&dir).unwrap();
}
