//! The hardware class: the key a profile entry names its GPU model by.

/// The device name lowercased, every run of characters other than ASCII letters and
/// digits folded to one `-` (none at either end), prefixed `nvidia-` unless it already
/// starts so, suffixed `-sm{major}{minor}`: `NVIDIA H200`, 9.0 → `nvidia-h200-sm90`.
pub fn hardware_class(name: &str, compute_capability: (u32, u32)) -> String {
    let mut folded = String::with_capacity(name.len() + 16);
    let mut pending_dash = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if pending_dash && !folded.is_empty() {
                folded.push('-');
            }
            pending_dash = false;
            folded.push(c.to_ascii_lowercase());
        } else {
            pending_dash = true;
        }
    }
    let (major, minor) = compute_capability;
    let prefix = if folded == "nvidia" || folded.starts_with("nvidia-") {
        ""
    } else {
        "nvidia-"
    };
    let sep = if folded.is_empty() { "" } else { "-" };
    format!("{prefix}{folded}{sep}sm{major}{minor}")
}
