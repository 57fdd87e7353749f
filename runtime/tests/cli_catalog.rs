//! `ninfer catalog` output of this build's catalog (snapshots under `snapshots/`),
//! and the binary itself.

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

#[test]
fn snapshot_ninfer_catalog_text() {
    let text = ninfer_runtime::cli::catalog::text();
    settings().bind(|| insta::assert_snapshot!("ninfer_catalog", text));
}

#[test]
fn snapshot_ninfer_catalog_json() {
    let v = ninfer_runtime::cli::catalog::json_value();
    settings().bind(|| insta::assert_json_snapshot!("ninfer_catalog_json", v));
}

#[test]
fn the_binary_prints_the_same() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ninfer"))
        .arg("catalog")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        ninfer_runtime::cli::catalog::text()
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ninfer"))
        .args(["catalog", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v, ninfer_runtime::cli::catalog::json_value());
    assert_eq!(
        v["route_catalog"].as_str().unwrap(),
        ninfer_runtime::catalog::ROUTE_CATALOG
    );
}
