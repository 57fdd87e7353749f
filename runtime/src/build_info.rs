//! What this binary is, for the calibration block of a profile entry.

/// `v<version>` plus `git describe` of the source when the build could read it.
pub fn ninfer_build() -> String {
    match option_env!("NINFER_GIT_DESCRIBE") {
        Some(d) if !d.is_empty() => format!("v{}-{}", env!("CARGO_PKG_VERSION"), d),
        _ => format!("v{}", env!("CARGO_PKG_VERSION")),
    }
}

/// The CUDA version of the NVRTC that compiled this build's PTX (e.g. 13000).
pub fn cuda_runtime() -> i32 {
    option_env!("NINFER_NVRTC_VERSION")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Now, as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
pub fn utc_now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    format_utc(secs)
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
pub fn format_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_known_instants() {
        assert_eq!(super::format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::format_utc(1_795_771_800), "2026-11-27T09:30:00Z");
        assert_eq!(super::format_utc(951_782_400), "2000-02-29T00:00:00Z");
    }
}
