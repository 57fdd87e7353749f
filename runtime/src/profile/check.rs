//! `ninfer profile check`: a profile file judged against this build — format and
//! schema version, each entry's calibration block and route catalog digest, unknown
//! route keys or schedules, and schedules that cannot serve their band's widths.
//! An error is anything the engine would skip or not run as written.

use super::format::{Entry, FileState, SCHEMA, SCHEMA_VERSION};
use super::staleness::{freshness, Freshness, RECALIBRATE};
use crate::catalog::CatalogView;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Ok,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    /// Which entry (index into `devices`), None for the file.
    pub entry: Option<usize>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Header lines: what the file is and what this build is.
    pub header: Vec<String>,
    /// Entry headings by index.
    pub entries: Vec<String>,
    pub findings: Vec<Finding>,
}

impl CheckReport {
    pub fn errors(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.level == Level::Error)
            .count()
    }
    pub fn warnings(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.level == Level::Warning)
            .count()
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for h in &self.header {
            let _ = writeln!(out, "{h}");
        }
        let tag = |l: Level| match l {
            Level::Ok => "ok     ",
            Level::Warning => "warning",
            Level::Error => "error  ",
        };
        for f in self.findings.iter().filter(|f| f.entry.is_none()) {
            let _ = writeln!(out, "{} {}", tag(f.level), f.text);
        }
        for (i, heading) in self.entries.iter().enumerate() {
            let _ = writeln!(out, "\n{heading}");
            for f in self.findings.iter().filter(|f| f.entry == Some(i)) {
                let _ = writeln!(out, "  {} {}", tag(f.level), f.text);
            }
        }
        let (e, w) = (self.errors(), self.warnings());
        let verdict = if e == 0 { "OK" } else { "FAILED" };
        let _ = writeln!(
            out,
            "\n{verdict}: {e} error{}, {w} warning{}",
            if e == 1 { "" } else { "s" },
            if w == 1 { "" } else { "s" }
        );
        out
    }
}

fn bands_text(e: &Entry, key: &str) -> String {
    let mut first = 1;
    let parts: Vec<String> = e.routes[key]
        .iter()
        .map(|b| {
            let s = if b.schedule.is_empty() {
                "\"\""
            } else {
                &b.schedule
            };
            let w = if first == b.last_width {
                format!("{first}")
            } else {
                format!("{first}-{}", b.last_width)
            };
            first = b.last_width + 1;
            format!("{w} {s}")
        })
        .collect();
    parts.join(", ")
}

/// Checks a file at `path_display` whose state is `state`.
pub fn check(path_display: &str, state: &FileState, catalog: &CatalogView) -> CheckReport {
    let mut r = CheckReport {
        header: vec![
            format!("profile file: {path_display}"),
            format!(
                "this build: route catalog {}, {} route keys",
                catalog.digest,
                catalog.keys.len()
            ),
        ],
        entries: vec![],
        findings: vec![],
    };
    let mut file_finding = |level, text: String| {
        r.findings.push(Finding {
            level,
            entry: None,
            text,
        })
    };
    let file = match state {
        FileState::Missing => {
            file_finding(Level::Error, "no such file".into());
            return r;
        }
        FileState::Unreadable { error } => {
            file_finding(Level::Error, format!("cannot be read: {error}"));
            return r;
        }
        FileState::Corrupt { error } => {
            file_finding(
                Level::Error,
                format!("{error}; the engine does not read it, and the next calibration keeps it as a backup (<file>.corrupt-<time>) before writing a new one"),
            );
            return r;
        }
        FileState::OtherVersion { version } if *version < SCHEMA_VERSION => {
            file_finding(
                Level::Error,
                format!("{SCHEMA} schema_version {version}, written by an older build; this build reads schema_version {SCHEMA_VERSION} and does not read it; {RECALIBRATE} to replace it whole"),
            );
            return r;
        }
        FileState::OtherVersion { version } => {
            file_finding(
                Level::Error,
                format!("{SCHEMA} schema_version {version}, written by a newer build; this build reads schema_version {SCHEMA_VERSION}, does not read it and never modifies it"),
            );
            return r;
        }
        FileState::Read(f) => f,
    };
    file_finding(
        Level::Ok,
        format!(
            "{SCHEMA} schema_version {SCHEMA_VERSION}, {} entr{}",
            file.devices.len(),
            if file.devices.len() == 1 { "y" } else { "ies" }
        ),
    );
    let mut devices: Vec<&Entry> = file.devices.iter().collect();
    devices.sort_by(|a, b| {
        (&a.hardware_class, a.multiprocessors).cmp(&(&b.hardware_class, b.multiprocessors))
    });
    for (i, e) in devices.into_iter().enumerate() {
        r.entries
            .push(format!("entry {}: origin \"{}\"", e.label(), e.origin));
        let mut add = |level, text: String| {
            r.findings.push(Finding {
                level,
                entry: Some(i),
                text,
            })
        };
        match freshness(e, &catalog.digest) {
            Freshness::Fresh(c) => {
                add(
                    Level::Ok,
                    format!("measured against this build's route catalog by ninfer {} on {} (CUDA driver {}, runtime {})", c.ninfer_build, c.date, c.cuda_driver, c.cuda_runtime),
                )
            }
            f @ Freshness::NoCalibration | f @ Freshness::OtherCatalog { .. } => add(
                Level::Error,
                format!("not applied: {}; {RECALIBRATE}", f.reason().unwrap()),
            ),
        }
        if e.calibration.is_some() && e.multiprocessors == 0 {
            add(
                Level::Warning,
                "multiprocessors is 0 (any SM count), but a measurement holds for one SM count"
                    .into(),
            );
        }
        if e.routes.is_empty() {
            add(
                Level::Warning,
                "no routes: every key keeps its built-in or compiled route".into(),
            );
        }
        for (key, bands) in &e.routes {
            let Some(kv) = catalog.key(key) else {
                add(
                    Level::Error,
                    format!("{key}: not a route key of this build; the engine skips it"),
                );
                continue;
            };
            let mut bad = false;
            let mut first = 1;
            for b in bands {
                let w = if first == b.last_width {
                    format!("{first}")
                } else {
                    format!("{first}-{}", b.last_width)
                };
                if !b.schedule.is_empty() {
                    match kv.max_width(&b.schedule) {
                        None => {
                            bad = true;
                            let names: Vec<&str> =
                                kv.candidates.iter().map(|(s, _)| s.as_str()).collect();
                            add(
                                Level::Error,
                                format!("{key}: widths {w} name \"{}\", not a schedule of this key (candidates: {}); the compiled route runs instead", b.schedule, names.join(", ")),
                            );
                        }
                        Some(m) if m < b.last_width => {
                            bad = true;
                            add(
                                Level::Error,
                                format!("{key}: widths {w} name \"{}\", which serves widths up to {m}; widths {}-{} take the compiled route", b.schedule, m.max(first - 1) + 1, b.last_width),
                            );
                        }
                        Some(_) => {}
                    }
                }
                first = b.last_width + 1;
            }
            if !bad {
                add(Level::Ok, format!("{key}: {}", bands_text(e, key)));
            }
        }
    }
    r
}
