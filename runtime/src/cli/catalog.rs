//! `ninfer catalog`: the build's kernel catalog as generated from `catalog.toml` —
//! route keys, candidate schedules with their parameters and widest width, compiled
//! bands, the PTX architectures of each family, modules, and the route catalog digest.
//! `--json` for machines.

use std::fmt::Write;

use serde_json::{json, Map, Value};

use crate::catalog::{
    CalibrationFlag, Family, Variant, BASELINE_PTX_ARCH, FAMILIES, MODULES, ROUTE_CATALOG,
    SWITCHES, VARIANTS,
};

#[derive(clap::Args, Debug, Default, Clone)]
pub struct CatalogArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &CatalogArgs) -> anyhow::Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json_value())?);
    } else {
        print!("{}", text());
    }
    Ok(())
}

/// The `--no-<flag>` name of a calibration flag.
pub fn flag_name(f: CalibrationFlag) -> &'static str {
    match f {
        CalibrationFlag::Ternary => "ternary",
        CalibrationFlag::Groupwise => "groupwise",
        CalibrationFlag::Attention => "attention",
        CalibrationFlag::LinearAttention => "linear-attention",
    }
}

fn params_text(v: &Variant) -> String {
    let p: Vec<String> = v.params.iter().map(|(k, x)| format!("{k}={x}")).collect();
    p.join(" ")
}

fn launch_extra_text(v: &Variant) -> String {
    let p: Vec<String> = v
        .launch
        .extra
        .iter()
        .map(|(k, x)| format!("{k}={x}"))
        .collect();
    p.join(" ")
}

/// The virtual architectures a family's PTX is built for: the compute_80 baseline, then
/// its `ptx_archs` (those of any candidate: `specific_ptx = 0` leaves the
/// architecture-specific ones out of some), as `compute_<arch>` names.
fn ptx_archs(f: &Family) -> Vec<String> {
    let extra: std::collections::BTreeSet<(u32, bool)> = f
        .candidates
        .iter()
        .flat_map(|&i| VARIANTS[i].arch_ptx.iter().map(|a| (a.arch, a.specific)))
        .collect();
    std::iter::once(format!("compute_{BASELINE_PTX_ARCH}"))
        .chain(
            extra.into_iter().map(|(arch, specific)| {
                format!("compute_{arch}{}", if specific { "a" } else { "" })
            }),
        )
        .collect()
}

/// A variant's PTX architectures, as [`ptx_archs`] names them.
fn variant_archs(v: &Variant) -> Vec<String> {
    std::iter::once(format!("compute_{BASELINE_PTX_ARCH}"))
        .chain(v.arch_ptx.iter().map(|a| a.name()))
        .collect()
}

/// `compute_90` -> 90, `compute_90a` -> "90a" (as catalog.toml writes them).
fn arch_json(name: &str) -> serde_json::Value {
    let a = name.trim_start_matches("compute_");
    a.parse::<u32>()
        .map(|n| json!(n))
        .unwrap_or_else(|_| json!(a))
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The text form.
pub fn text() -> String {
    let mut s = String::new();
    let keys: usize = FAMILIES.iter().map(|f| f.keys.len()).sum();
    let cands: usize = FAMILIES.iter().map(|f| f.candidates.len()).sum();
    let _ = writeln!(s, "route catalog {ROUTE_CATALOG}");
    let _ = writeln!(
        s,
        "{}, {}, {}, {}, {}",
        count(FAMILIES.len(), "family", "families"),
        count(keys, "route key", "route keys"),
        count(cands, "candidate variant", "candidate variants"),
        count(SWITCHES.len(), "route switch", "route switches"),
        count(MODULES.len(), "module", "modules")
    );
    for f in FAMILIES {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "family {} (calibration: {})",
            f.name,
            flag_name(f.calibration)
        );
        let _ = writeln!(s, "  route keys:");
        for k in f.keys {
            let _ = writeln!(s, "    {}/{}", f.name, k);
        }
        let w: Vec<String> = f.widths.iter().map(u32::to_string).collect();
        let _ = writeln!(s, "  calibration widths: {}", w.join(" "));
        // an architecture only some candidates have: which ones
        let archs: Vec<String> = ptx_archs(f)
            .into_iter()
            .map(|a| {
                let with: Vec<&str> = f
                    .candidates
                    .iter()
                    .map(|&i| &VARIANTS[i])
                    .filter(|v| variant_archs(v).contains(&a))
                    .map(|v| v.schedule)
                    .collect();
                if with.len() == f.candidates.len() {
                    a
                } else {
                    format!("{a} ({} only)", with.join(" "))
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "  PTX: {}{}",
            archs.join(", "),
            if archs.len() > 1 {
                " (a GPU loads the newest it runs)"
            } else {
                ""
            }
        );
        let mut lo = 1;
        let mut bands = Vec::new();
        for (last, sched) in f.compiled {
            bands.push(format!("{lo}-{last} {sched}"));
            lo = last + 1;
        }
        let _ = writeln!(
            s,
            "  compiled route: {} (wider: the last band)",
            bands.join(", ")
        );
        let _ = writeln!(s, "  candidates (declared order):");
        let name_w = f
            .candidates
            .iter()
            .map(|&i| VARIANTS[i].schedule.len())
            .max()
            .unwrap_or(8)
            .max(8);
        let _ = writeln!(
            s,
            "    {:name_w$}  {:>9}  {:>7}  {:>6}  params | launch",
            "schedule", "max_width", "threads", "shared"
        );
        for &i in f.candidates {
            let v = &VARIANTS[i];
            let compiled = if f.compiled.iter().any(|(_, c)| *c == v.schedule) {
                "  (compiled route)"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "    {:name_w$}  {:>9}  {:>7}  {:>6}  {} | {}{compiled}",
                v.schedule,
                v.launch.max_width,
                v.launch.threads,
                v.launch.shared_bytes,
                params_text(v),
                launch_extra_text(v)
            );
        }
    }
    if !SWITCHES.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "route switches (read at width 1):");
        for sw in SWITCHES {
            let _ = writeln!(
                s,
                "  {}  values {}  compiled {}  (calibration: {})",
                sw.name,
                sw.values.join(" "),
                sw.compiled,
                flag_name(sw.calibration)
            );
        }
    }
    if !MODULES.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "modules (not routed):");
        for m in MODULES {
            let v = &VARIANTS[m.variant];
            let _ = writeln!(
                s,
                "  {}  entry {}  threads {}  shared {}{}{}",
                m.name,
                v.name,
                v.launch.threads,
                v.launch.shared_bytes,
                if v.params.is_empty() {
                    String::new()
                } else {
                    format!("  params {}", params_text(v))
                },
                if v.launch.extra.is_empty() {
                    String::new()
                } else {
                    format!("  launch {}", launch_extra_text(v))
                },
            );
        }
    }
    s
}

fn named(p: &[(&str, i64)]) -> Value {
    let mut m = Map::new();
    for (k, v) in p {
        m.insert(k.to_string(), json!(v));
    }
    Value::Object(m)
}

fn variant_json(v: &Variant) -> Value {
    json!({
        "schedule": v.schedule,
        "variant": v.name,
        "max_width": v.launch.max_width,
        "threads": v.launch.threads,
        "shared_bytes": v.launch.shared_bytes,
        "launch": named(v.launch.extra),
        "params": named(v.params),
        "ptx_archs": variant_archs(v).iter().map(|a| arch_json(a)).collect::<Vec<_>>(),
    })
}

/// The `--json` form.
pub fn json_value() -> Value {
    let families: Vec<Value> = FAMILIES
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "calibration": flag_name(f.calibration),
                "keys": f.keys.iter().map(|k| format!("{}/{}", f.name, k)).collect::<Vec<_>>(),
                "widths": f.widths,
                "ptx_archs": ptx_archs(f).iter().map(|a| arch_json(a)).collect::<Vec<_>>(),
                "compiled": f.compiled.iter().map(|(w, s)| json!([w, s])).collect::<Vec<_>>(),
                "candidates": f.candidates.iter().map(|&i| variant_json(&VARIANTS[i])).collect::<Vec<_>>(),
            })
        })
        .collect();
    let modules: Vec<Value> = MODULES
        .iter()
        .map(|m| {
            let v = &VARIANTS[m.variant];
            json!({
                "name": m.name,
                "variant": v.name,
                "threads": v.launch.threads,
                "shared_bytes": v.launch.shared_bytes,
                "launch": named(v.launch.extra),
                "params": named(v.params),
            })
        })
        .collect();
    let switches: Vec<Value> = SWITCHES
        .iter()
        .map(|sw| {
            json!({
                "name": sw.name,
                "calibration": flag_name(sw.calibration),
                "values": sw.values,
                "compiled": sw.compiled,
            })
        })
        .collect();
    json!({ "route_catalog": ROUTE_CATALOG, "families": families, "switches": switches, "modules": modules })
}
