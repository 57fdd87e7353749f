//! ptxas resource check: assembles PTX for a real architecture with the wheel's
//! `bin/ptxas -v` and reads registers and spill bytes per entry point, and whether ptxas
//! had to serialize an entry's wgmma (its C75xx performance advisories).

use std::path::Path;
use std::process::Command;

/// The architectures every variant must assemble for.
pub const ARCHS: [&str; 5] = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_120"];

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub entry: String,
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack: u32,
    /// ptxas's advisory when it serialized the entry's `wgmma.mma_async` (each then waits
    /// for the previous: the warpgroup pipeline is gone), e.g. "C7514: ... due to non
    /// wgmma instructions reading accumulator registers ...".
    pub serialized_wgmma: Option<String>,
}

/// The register budget of a kernel launched with `threads` threads and at least one
/// CTA per SM: 65536 / threads, at most 255.
pub fn register_budget(threads: u32) -> u32 {
    (65536 / threads.max(1)).min(255)
}

/// `__launch_bounds__` of an entry as the PTX records them: `.maxntid` (the product of
/// its dimensions) and `.minnctapersm` (1 when absent). `None` without `.maxntid`.
pub fn launch_bounds(ptx: &str, entry: &str) -> Option<(u32, u32)> {
    let start = ptx.find(&format!(".entry {entry}("))?;
    let body = &ptx[start..];
    let head = &body[..body.find('{').unwrap_or(body.len())];
    let mut maxntid = None;
    let mut min_blocks = 1;
    for line in head.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix(".maxntid") {
            maxntid = Some(
                rest.split(',')
                    .map(|x| x.trim().parse::<u32>().unwrap_or(1))
                    .product(),
            );
        } else if let Some(rest) = l.strip_prefix(".minnctapersm") {
            min_blocks = rest.trim().parse().unwrap_or(1);
        }
    }
    maxntid.map(|m| (m, min_blocks))
}

/// The register budget `__launch_bounds__(max_threads, min_blocks)` gives:
/// 65536 / (max_threads rounded up to a warp × min_blocks), at most 255.
pub fn bounds_budget(max_threads: u32, min_blocks: u32) -> u32 {
    let t = max_threads.div_ceil(32) * 32;
    (65536 / (t * min_blocks.max(1)).max(1)).min(255)
}

/// Runs `ptxas -arch=<arch> -v` on `ptx_file`; returns the resources of each entry.
pub fn assemble(cuda_root: &Path, ptx_file: &Path, arch: &str) -> Result<Vec<Resources>, String> {
    let out_file = std::env::temp_dir().join(format!(
        "ninfer-ptxas-{}-{}-{arch}.cubin",
        std::process::id(),
        ptx_file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    let out = Command::new(cuda_root.join("bin/ptxas"))
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg("-o")
        .arg(&out_file)
        .arg(ptx_file)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cuda_root.join("bin/ptxas").display()))?;
    let _ = std::fs::remove_file(&out_file);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(format!(
            "ptxas -arch={arch} failed on {}:\n{text}",
            ptx_file.display()
        ));
    }
    Ok(parse_verbose(&text))
}

/// Parses `ptxas -v` output.
pub fn parse_verbose(text: &str) -> Vec<Resources> {
    let mut out: Vec<Resources> = Vec::new();
    // ptxas prints the advisory before the entry's own lines, naming it last in quotes
    let mut serialized: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(i) = line.find("wgmma.mma_async instructions are serialized") {
            let code = line[..i]
                .rsplit_once('(')
                .and_then(|(_, c)| c.split_once(')'))
                .map_or("", |(c, _)| c);
            let name = line.rsplit('\'').nth(1).unwrap_or("");
            serialized.push((name.to_string(), format!("{code}: {}", line[i..].trim())));
            continue;
        }
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + "Compiling entry function '".len()..];
            let name = rest.split('\'').next().unwrap_or("").to_string();
            out.push(Resources {
                entry: name,
                ..Default::default()
            });
            continue;
        }
        let Some(cur) = out.last_mut() else { continue };
        if line.contains("spill stores") {
            // "N bytes stack frame, N bytes spill stores, N bytes spill loads"
            for part in line.split(',') {
                let n = first_number(part);
                if part.contains("stack frame") {
                    cur.stack = n;
                } else if part.contains("spill stores") {
                    cur.spill_stores = n;
                } else if part.contains("spill loads") {
                    cur.spill_loads = n;
                }
            }
        } else if let Some(i) = line.find("Used ") {
            let rest = &line[i + 5..];
            if rest.contains("registers") {
                cur.registers = first_number(rest);
            }
        }
    }
    for (name, why) in serialized {
        match out.iter_mut().find(|r| r.entry == name) {
            Some(r) => r.serialized_wgmma = Some(why),
            None => out.push(Resources {
                entry: name,
                serialized_wgmma: Some(why),
                ..Default::default()
            }),
        }
    }
    out
}

fn first_number(s: &str) -> u32 {
    let digits: String = s
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap_or(0)
}
