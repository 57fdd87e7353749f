//! Explaining resolved routes: which layer answered each band, and why a file entry
//! (or a key, or a band's schedule) was skipped. `ninfer routes` prints this; the
//! rows are the installed table's own bands, so what it shows is what lookup does.

use super::layers::Layer;
use super::lookup::{RouteTable, TableBand};
use super::matching::no_match_reason;
use super::mode::Decision;
use super::overrides::EnvOverrides;
use super::staleness::RECALIBRATE;
use super::{BuiltinOutcome, FileOutcome, ResolvedRoutes};
use crate::catalog::KeyView;
use crate::profile::format::SCHEMA_VERSION;
use serde_json::{json, Value};

/// One line of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub first: u32,
    /// None: and every wider width.
    pub last: Option<u32>,
    pub schedule: String,
    pub layer: Layer,
    pub note: Option<String>,
}

fn note(kv: &KeyView, b: &TableBand) -> Option<String> {
    if b.fallback.is_some() {
        return Some(match kv.max_width(&b.written) {
            None => format!(
                "{} names \"{}\", not a schedule of this key: compiled route",
                b.layer, b.written
            ),
            Some(m) => format!(
                "{} names \"{}\", which serves widths up to {m}: compiled route",
                b.layer, b.written
            ),
        });
    }
    (b.layer != Layer::Compiled && b.written.is_empty())
        .then(|| format!("{} says \"\": the compiled route", b.layer))
}

/// The rows of each key, sorted by key.
pub fn rows(resolved: &ResolvedRoutes) -> Vec<(String, Vec<Row>)> {
    let table = RouteTable::with_trace(resolved, false);
    table
        .keys()
        .map(|kr| {
            let kv = resolved
                .catalog
                .key(&kr.key)
                .expect("table keys come from the catalog");
            let rows = kr
                .bands
                .iter()
                .map(|b| Row {
                    first: b.first,
                    last: (b.last != u32::MAX).then_some(b.last),
                    schedule: b.schedule.clone(),
                    layer: b.layer,
                    note: note(kv, b),
                })
                .collect();
            (kr.key.clone(), rows)
        })
        .collect()
}

fn status_file(r: &ResolvedRoutes) -> (&'static str, String) {
    match &r.file {
        FileOutcome::NotConsulted => ("not-consulted", "not consulted (--device-profile off)".into()),
        FileOutcome::Missing => ("missing", "no file there (nothing calibrated yet)".into()),
        FileOutcome::Unreadable { error } => ("unreadable", format!("cannot be read ({error}); not used")),
        FileOutcome::Corrupt { error } => (
            "corrupt",
            format!("skipped: {error}; the next calibration keeps it as a backup and writes a new file"),
        ),
        FileOutcome::OtherVersion { version } if *version < SCHEMA_VERSION => (
            "other-version",
            format!("skipped: schema_version {version}, written by another (older) build; {RECALIBRATE} to replace it whole"),
        ),
        FileOutcome::OtherVersion { version } => (
            "other-version",
            format!("skipped: schema_version {version}, written by another (newer) build; this build leaves it untouched"),
        ),
        FileOutcome::NoEntry { other_sms } => {
            ("no-entry", no_match_reason("the file", &r.hardware_class, r.identity.multiprocessors, other_sms))
        }
        FileOutcome::Skipped { entry, freshness } => (
            "skipped",
            format!("entry {entry} skipped: {}; {RECALIBRATE}", freshness.reason().unwrap_or_default()),
        ),
        FileOutcome::Applied { entry, origin, calibration: c } => (
            "applied",
            format!(
                "entry {entry} applied: origin \"{origin}\", measured against route catalog {} by ninfer {} on {}",
                c.route_catalog, c.ninfer_build, c.date
            ),
        ),
    }
}

fn status_builtin(r: &ResolvedRoutes) -> (&'static str, String) {
    match &r.builtin {
        BuiltinOutcome::NotConsulted => (
            "not-consulted",
            "not consulted (--device-profile off)".into(),
        ),
        BuiltinOutcome::NoEntry { other_sms } => (
            "no-entry",
            no_match_reason(
                "the built-in table",
                &r.hardware_class,
                r.identity.multiprocessors,
                other_sms,
            ),
        ),
        BuiltinOutcome::Applied { entry, origin } => (
            "applied",
            format!("entry {entry} applied: origin \"{origin}\""),
        ),
    }
}

/// What `ninfer routes` shows besides the resolution itself.
pub struct Context<'a> {
    pub decision: Decision,
    /// How the file's path was chosen (`--device-profile-path`, `$NINFER_DEVICE_PROFILES`...).
    pub path_source: Option<String>,
    pub overrides: &'a EnvOverrides,
}

fn widths(first: u32, last: Option<u32>) -> String {
    match last {
        Some(l) if l == first => format!("{first}"),
        Some(l) => format!("{first}-{l}"),
        None => format!("{first}-"),
    }
}

pub fn render_text(r: &ResolvedRoutes, ctx: &Context) -> String {
    let (maj, min) = r.identity.compute_capability;
    let mut out = String::new();
    out.push_str(&format!(
        "device: {}, compute capability {maj}.{min}, {} SMs\n",
        r.identity.name, r.identity.multiprocessors
    ));
    out.push_str(&format!("hardware class: {}\n", r.hardware_class));
    out.push_str(&format!(
        "route catalog: {} ({} route keys)\n",
        r.catalog.digest,
        r.catalog.keys.len()
    ));
    out.push_str(&format!("mode: {} -> {}\n", r.mode, ctx.decision));
    let path = match (&r.path, &ctx.path_source) {
        (Some(p), Some(src)) => format!("{} (from {src})", p.display()),
        (Some(p), None) => p.display().to_string(),
        (None, _) => "(none)".into(),
    };
    out.push_str(&format!("profile file: {path}\n  {}\n", status_file(r).1));
    out.push_str(&format!("built-in table:\n  {}\n", status_builtin(r).1));
    let active = ctx.overrides.active();
    out.push_str(&format!(
        "environment overrides: {}\n",
        if active.is_empty() {
            "none".to_string()
        } else {
            active.join(" ")
        }
    ));
    let all = rows(r);
    let ww = all
        .iter()
        .flat_map(|(_, rs)| rs.iter().map(|x| widths(x.first, x.last).len()))
        .max()
        .unwrap_or(0)
        .max(12);
    let sw = all
        .iter()
        .flat_map(|(_, rs)| rs.iter().map(|x| x.schedule.len()))
        .max()
        .unwrap_or(0)
        .max(8);
    for (key, rows) in &all {
        out.push_str(&format!("\n{key}\n"));
        if let Some(o) = ctx.overrides.switch_override(key) {
            out.push_str(&format!("  overridden by the environment: {o}\n"));
        }
        for row in rows {
            let line = format!(
                "  {:<ww$} {:<sw$}  {:<9} {}",
                widths(row.first, row.last),
                if row.schedule.is_empty() {
                    "-"
                } else {
                    &row.schedule
                },
                row.layer.as_str(),
                row.note.as_deref().unwrap_or("")
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if all.is_empty() {
        out.push_str("\n(this build routes no keys)\n");
    }
    if !r.skipped_keys.is_empty() {
        out.push_str("\nskipped keys:\n");
        for s in &r.skipped_keys {
            out.push_str(&format!("  {} ({}): {}\n", s.key, s.layer, s.reason));
        }
    }
    out
}

pub fn render_json(r: &ResolvedRoutes, ctx: &Context) -> Value {
    let (maj, min) = r.identity.compute_capability;
    let (fs, fd) = status_file(r);
    let (bs, bd) = status_builtin(r);
    let routes: Vec<Value> = rows(r)
        .into_iter()
        .map(|(key, rows)| {
            let bands: Vec<Value> = rows
                .into_iter()
                .map(|row| {
                    json!({
                        "first_width": row.first,
                        "last_width": row.last,
                        "schedule": row.schedule,
                        "layer": row.layer.as_str(),
                        "note": row.note,
                    })
                })
                .collect();
            let mut entry = json!({ "key": key, "bands": bands });
            if let Some(o) = ctx.overrides.switch_override(&key) {
                entry["overridden"] = json!(o);
            }
            entry
        })
        .collect();
    json!({
        "device": {
            "name": r.identity.name,
            "compute_capability": format!("{maj}.{min}"),
            "multiprocessors": r.identity.multiprocessors,
        },
        "hardware_class": r.hardware_class,
        "route_catalog": r.catalog.digest,
        "mode": r.mode.as_str(),
        "decision": ctx.decision.to_string(),
        "profile_file": {
            "path": r.path.as_ref().map(|p| p.display().to_string()),
            "source": ctx.path_source,
            "status": fs,
            "detail": fd,
        },
        "built_in": { "status": bs, "detail": bd },
        "overrides": ctx.overrides.active(),
        "routes": routes,
        "skipped_keys": r.skipped_keys.iter().map(|s| json!({
            "key": s.key, "layer": s.layer.as_str(), "reason": s.reason,
        })).collect::<Vec<_>>(),
    })
}
