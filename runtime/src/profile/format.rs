//! The profile file format, `ninfer.device-route-profiles` schema version 2:
//! strict reading with errors that say where and what, and a stable, diff-friendly
//! writer (entries sorted by hardware class and SM count, route keys sorted, one line
//! of bands per key). Fields this build does not know are kept, not interpreted.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

pub const SCHEMA: &str = "ninfer.device-route-profiles";
pub const SCHEMA_VERSION: u64 = 2;

/// One band of a route: widths up to `last_width` (inclusive, after the previous
/// band's) take `schedule`; `""` is the compiled route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    pub last_width: u32,
    pub schedule: String,
}

impl Band {
    pub fn new(last_width: u32, schedule: impl Into<String>) -> Self {
        Band {
            last_width,
            schedule: schedule.into(),
        }
    }
}

/// `[(8, "x"), (64, "y")]` → bands; for tests and callers building entries by hand.
pub fn bands(list: &[(u32, &str)]) -> Vec<Band> {
    list.iter().map(|(w, s)| Band::new(*w, *s)).collect()
}

/// Where an entry's measurement came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// The route catalog digest of the build that measured the entry.
    pub route_catalog: String,
    pub ninfer_build: String,
    pub cuda_driver: u32,
    pub cuda_runtime: u32,
    /// RFC 3339, UTC.
    pub date: String,
}

/// The routes measured for one GPU model.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub hardware_class: String,
    /// 0 = any SM count.
    pub multiprocessors: u32,
    pub origin: String,
    pub calibration: Option<Calibration>,
    /// Route key → bands (strictly increasing `last_width`, never empty).
    pub routes: BTreeMap<String, Vec<Band>>,
    /// Fields this build does not know, kept as written.
    pub extra: BTreeMap<String, Value>,
}

impl Entry {
    pub fn new(
        hardware_class: impl Into<String>,
        multiprocessors: u32,
        origin: impl Into<String>,
    ) -> Self {
        Entry {
            hardware_class: hardware_class.into(),
            multiprocessors,
            origin: origin.into(),
            calibration: None,
            routes: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }

    /// `hardware_class` with its SM count, for messages: `nvidia-h200-sm90 (132 SMs)`.
    pub fn label(&self) -> String {
        if self.multiprocessors == 0 {
            format!("{} (any SM count)", self.hardware_class)
        } else {
            format!("{} ({} SMs)", self.hardware_class, self.multiprocessors)
        }
    }
}

/// A whole profile file of this schema version.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProfileFile {
    pub devices: Vec<Entry>,
    /// Top-level fields this build does not know, kept as written.
    pub extra: BTreeMap<String, Value>,
}

/// Why bytes are not a profile file this build reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON; `truncated` when the text ends early.
    Json {
        line: usize,
        column: usize,
        message: String,
        truncated: bool,
    },
    /// JSON, but not a device route profile file.
    NotAProfile { reason: String },
    /// A device route profile file of another schema version.
    OtherVersion { version: u64 },
    /// Schema version 2, but a field breaks a rule; `at` is a JSON path.
    Invalid { at: String, message: String },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Json {
                line,
                column,
                message,
                truncated: true,
            } => {
                write!(
                    f,
                    "truncated JSON (ends at line {line}, column {column}: {message})"
                )
            }
            ParseError::Json {
                line,
                column,
                message,
                ..
            } => {
                write!(
                    f,
                    "not valid JSON at line {line}, column {column}: {message}"
                )
            }
            ParseError::NotAProfile { reason } => {
                write!(f, "not a device route profile file: {reason}")
            }
            ParseError::OtherVersion { version } => {
                write!(
                    f,
                    "schema_version {version}, this build reads schema_version {SCHEMA_VERSION}"
                )
            }
            ParseError::Invalid { at, message } => write!(f, "{at}: {message}"),
        }
    }
}

impl std::error::Error for ParseError {}

fn invalid(at: impl Into<String>, message: impl Into<String>) -> ParseError {
    ParseError::Invalid {
        at: at.into(),
        message: message.into(),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn want_str<'a>(v: Option<&'a Value>, at: &str) -> Result<&'a str, ParseError> {
    match v {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(invalid(
            at,
            format!("expected a string, found {}", kind(other)),
        )),
        None => Err(invalid(at, "missing (a string is required)")),
    }
}

fn want_u32(v: Option<&Value>, at: &str) -> Result<u32, ParseError> {
    match v {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(x) if x <= u32::MAX as u64 => Ok(x as u32),
            _ => Err(invalid(
                at,
                format!("expected an integer from 0 to {}, found {n}", u32::MAX),
            )),
        },
        Some(other) => Err(invalid(
            at,
            format!("expected an integer, found {}", kind(other)),
        )),
        None => Err(invalid(at, "missing (an integer is required)")),
    }
}

fn is_digest(s: &str) -> bool {
    s.len() == 16
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses and validates a profile file.
pub fn parse(text: &str) -> Result<ProfileFile, ParseError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ParseError::Json {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
        truncated: e.is_eof(),
    })?;
    let Value::Object(top) = value else {
        return Err(ParseError::NotAProfile {
            reason: format!("the top level is {}, not an object", kind(&value)),
        });
    };
    match top.get("schema") {
        Some(Value::String(s)) if s == SCHEMA => {}
        Some(Value::String(s)) => {
            return Err(ParseError::NotAProfile {
                reason: format!("\"schema\" is \"{s}\", expected \"{SCHEMA}\""),
            })
        }
        Some(other) => {
            return Err(ParseError::NotAProfile {
                reason: format!("\"schema\" is {}, expected \"{SCHEMA}\"", kind(other)),
            })
        }
        None => {
            return Err(ParseError::NotAProfile {
                reason: format!("no \"schema\" field (expected \"{SCHEMA}\")"),
            })
        }
    }
    let version = match top.get("schema_version") {
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap(),
        Some(other) => {
            return Err(invalid(
                "schema_version",
                format!("expected an integer, found {other}"),
            ))
        }
        None => {
            return Err(invalid(
                "schema_version",
                "missing (an integer is required)",
            ))
        }
    };
    if version != SCHEMA_VERSION {
        return Err(ParseError::OtherVersion { version });
    }
    let devices = match top.get("devices") {
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(invalid(
                "devices",
                format!("expected an array, found {}", kind(other)),
            ))
        }
        None => return Err(invalid("devices", "missing (an array is required)")),
    };
    let mut file = ProfileFile::default();
    for (i, d) in devices.iter().enumerate() {
        file.devices.push(parse_entry(d, &format!("devices[{i}]"))?);
    }
    for (i, e) in file.devices.iter().enumerate() {
        if let Some(j) = file.devices[..i].iter().position(|p| {
            p.hardware_class == e.hardware_class && p.multiprocessors == e.multiprocessors
        }) {
            return Err(invalid(
                format!("devices[{i}]"),
                format!(
                    "a second entry for {} (the first is devices[{j}])",
                    e.label()
                ),
            ));
        }
    }
    for (k, v) in top {
        if !matches!(k.as_str(), "schema" | "schema_version" | "devices") {
            file.extra.insert(k, v);
        }
    }
    Ok(file)
}

/// serde_json appends " at line L column C"; the position is reported separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn parse_entry(v: &Value, at: &str) -> Result<Entry, ParseError> {
    let Value::Object(o) = v else {
        return Err(invalid(
            at,
            format!("expected an object, found {}", kind(v)),
        ));
    };
    let hardware_class = want_str(o.get("hardware_class"), &format!("{at}.hardware_class"))?;
    if hardware_class.is_empty() {
        return Err(invalid(format!("{at}.hardware_class"), "empty"));
    }
    let multiprocessors = want_u32(o.get("multiprocessors"), &format!("{at}.multiprocessors"))?;
    let origin = want_str(o.get("origin"), &format!("{at}.origin"))?;
    let calibration = match o.get("calibration") {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => {
            let cat = format!("{at}.calibration");
            let route_catalog = want_str(c.get("route_catalog"), &format!("{cat}.route_catalog"))?;
            if !is_digest(route_catalog) {
                return Err(invalid(
                    format!("{cat}.route_catalog"),
                    format!("\"{route_catalog}\" is not a route catalog digest (16 lowercase hex digits)"),
                ));
            }
            Some(Calibration {
                route_catalog: route_catalog.to_string(),
                ninfer_build: want_str(c.get("ninfer_build"), &format!("{cat}.ninfer_build"))?
                    .to_string(),
                cuda_driver: want_u32(c.get("cuda_driver"), &format!("{cat}.cuda_driver"))?,
                cuda_runtime: want_u32(c.get("cuda_runtime"), &format!("{cat}.cuda_runtime"))?,
                date: want_str(c.get("date"), &format!("{cat}.date"))?.to_string(),
            })
        }
        Some(other) => {
            return Err(invalid(
                format!("{at}.calibration"),
                format!("expected an object, found {}", kind(other)),
            ))
        }
    };
    let routes_v = match o.get("routes") {
        Some(Value::Object(r)) => r,
        Some(other) => {
            return Err(invalid(
                format!("{at}.routes"),
                format!("expected an object, found {}", kind(other)),
            ))
        }
        None => {
            return Err(invalid(
                format!("{at}.routes"),
                "missing (an object is required)",
            ))
        }
    };
    let mut routes = BTreeMap::new();
    for (key, bands_v) in routes_v {
        let kat = format!("{at}.routes[{}]", serde_json::to_string(key).unwrap());
        routes.insert(key.clone(), parse_bands(bands_v, &kat)?);
    }
    let mut entry = Entry::new(hardware_class, multiprocessors, origin);
    entry.calibration = calibration;
    entry.routes = routes;
    for (k, v) in o {
        if !matches!(
            k.as_str(),
            "hardware_class" | "multiprocessors" | "origin" | "calibration" | "routes"
        ) {
            entry.extra.insert(k.clone(), v.clone());
        }
    }
    Ok(entry)
}

fn parse_bands(v: &Value, at: &str) -> Result<Vec<Band>, ParseError> {
    let Value::Array(list) = v else {
        return Err(invalid(
            at,
            format!(
                "expected an array of [last_width, \"schedule\"] bands, found {}",
                kind(v)
            ),
        ));
    };
    if list.is_empty() {
        return Err(invalid(
            at,
            "no bands (a route names at least one [last_width, \"schedule\"] band)",
        ));
    }
    let mut out: Vec<Band> = Vec::with_capacity(list.len());
    for (i, b) in list.iter().enumerate() {
        let bat = format!("{at}[{i}]");
        let pair = match b {
            Value::Array(p) if p.len() == 2 => p,
            _ => {
                return Err(invalid(
                    &bat,
                    format!("expected [last_width, \"schedule\"], found {b}"),
                ))
            }
        };
        let last_width = match &pair[0] {
            Value::Number(n) => match n.as_u64() {
                Some(w) if w >= 1 && w <= u32::MAX as u64 => w as u32,
                _ => {
                    return Err(invalid(
                        &bat,
                        format!("last_width {n} is not an integer from 1 to {}", u32::MAX),
                    ))
                }
            },
            other => {
                return Err(invalid(
                    &bat,
                    format!("last_width must be an integer, found {}", kind(other)),
                ))
            }
        };
        let schedule = match &pair[1] {
            Value::String(s) => s.clone(),
            other => {
                return Err(invalid(
                    &bat,
                    format!("schedule must be a string, found {}", kind(other)),
                ))
            }
        };
        if let Some(prev) = out.last() {
            if last_width <= prev.last_width {
                return Err(invalid(
                    &bat,
                    format!(
                        "last_width {last_width} does not increase on the previous band's {}",
                        prev.last_width
                    ),
                ));
            }
        }
        out.push(Band {
            last_width,
            schedule,
        });
    }
    Ok(out)
}

/// Checks the rules `parse` enforces on an entry built in memory (before storing it).
pub fn validate_entry(e: &Entry) -> Result<(), ParseError> {
    parse_entry(&entry_value(e), "entry").map(|_| ())
}

fn entry_value(e: &Entry) -> Value {
    let mut o = serde_json::Map::new();
    o.insert("hardware_class".into(), e.hardware_class.clone().into());
    o.insert("multiprocessors".into(), e.multiprocessors.into());
    o.insert("origin".into(), e.origin.clone().into());
    if let Some(c) = &e.calibration {
        o.insert("calibration".into(), calibration_value(c));
    }
    let routes: serde_json::Map<String, Value> = e
        .routes
        .iter()
        .map(|(k, bs)| {
            (
                k.clone(),
                Value::Array(
                    bs.iter()
                        .map(|b| serde_json::json!([b.last_width, b.schedule]))
                        .collect(),
                ),
            )
        })
        .collect();
    o.insert("routes".into(), Value::Object(routes));
    for (k, v) in &e.extra {
        o.insert(k.clone(), v.clone());
    }
    Value::Object(o)
}

fn calibration_value(c: &Calibration) -> Value {
    serde_json::json!({
        "route_catalog": c.route_catalog,
        "ninfer_build": c.ninfer_build,
        "cuda_driver": c.cuda_driver,
        "cuda_runtime": c.cuda_runtime,
        "date": c.date,
    })
}

fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A JSON value pretty-printed and indented to sit at `indent`.
fn pretty_at(v: &Value, indent: &str) -> String {
    let text = serde_json::to_string_pretty(&sorted(v)).unwrap();
    text.lines()
        .collect::<Vec<_>>()
        .join(&format!("\n{indent}"))
}

/// Object keys sorted, recursively (stable output whatever order they were read in).
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&o[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Writes one entry at two levels of indentation (inside `devices`).
pub fn write_entry(out: &mut String, e: &Entry, indent: &str) {
    let i1 = format!("{indent}  ");
    let i2 = format!("{indent}    ");
    let mut fields: Vec<String> = vec![
        format!("{i1}\"hardware_class\": {}", q(&e.hardware_class)),
        format!("{i1}\"multiprocessors\": {}", e.multiprocessors),
        format!("{i1}\"origin\": {}", q(&e.origin)),
    ];
    if let Some(c) = &e.calibration {
        fields.push(format!(
            "{i1}\"calibration\": {{\n{i2}\"route_catalog\": {},\n{i2}\"ninfer_build\": {},\n{i2}\"cuda_driver\": {},\n{i2}\"cuda_runtime\": {},\n{i2}\"date\": {}\n{i1}}}",
            q(&c.route_catalog),
            q(&c.ninfer_build),
            c.cuda_driver,
            c.cuda_runtime,
            q(&c.date)
        ));
    }
    if e.routes.is_empty() {
        fields.push(format!("{i1}\"routes\": {{}}"));
    } else {
        let lines: Vec<String> = e
            .routes
            .iter()
            .map(|(k, bs)| {
                let bands: Vec<String> = bs
                    .iter()
                    .map(|b| format!("[{}, {}]", b.last_width, q(&b.schedule)))
                    .collect();
                format!("{i2}{}: [{}]", q(k), bands.join(", "))
            })
            .collect();
        fields.push(format!("{i1}\"routes\": {{\n{}\n{i1}}}", lines.join(",\n")));
    }
    for (k, v) in &e.extra {
        fields.push(format!("{i1}{}: {}", q(k), pretty_at(v, &i1)));
    }
    out.push_str(&format!("{indent}{{\n{}\n{indent}}}", fields.join(",\n")));
}

/// The file's text: stable and diff-friendly. Entries are sorted by hardware class,
/// then SM count; route keys bytewise; each key's bands on one line.
pub fn to_text(file: &ProfileFile) -> String {
    let mut devices: Vec<&Entry> = file.devices.iter().collect();
    devices.sort_by(|a, b| {
        (&a.hardware_class, a.multiprocessors).cmp(&(&b.hardware_class, b.multiprocessors))
    });
    let mut out = String::new();
    out.push_str("{\n");
    out.push_str(&format!(
        "  \"schema\": {},\n  \"schema_version\": {SCHEMA_VERSION},\n",
        q(SCHEMA)
    ));
    for (k, v) in &file.extra {
        out.push_str(&format!("  {}: {},\n", q(k), pretty_at(v, "  ")));
    }
    if devices.is_empty() {
        out.push_str("  \"devices\": []\n");
    } else {
        out.push_str("  \"devices\": [\n");
        for (i, e) in devices.iter().enumerate() {
            write_entry(&mut out, e, "    ");
            out.push_str(if i + 1 < devices.len() { ",\n" } else { "\n" });
        }
        out.push_str("  ]\n");
    }
    out.push_str("}\n");
    out
}

/// What reading the profile file found.
#[derive(Clone, Debug, PartialEq)]
pub enum FileState {
    /// No file there (not an error: nothing calibrated yet).
    Missing,
    /// The file exists but could not be read.
    Unreadable {
        error: String,
    },
    /// Not a profile this build reads, and not of another schema version: broken.
    Corrupt {
        error: ParseError,
    },
    /// A profile file of another schema version (written by another build).
    OtherVersion {
        version: u64,
    },
    Read(ProfileFile),
}

impl FileState {
    pub fn load(path: &Path) -> FileState {
        match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileState::Missing,
            Err(e) => FileState::Unreadable {
                error: e.to_string(),
            },
            Ok(bytes) => Self::from_bytes(&bytes),
        }
    }

    pub fn from_bytes(bytes: &[u8]) -> FileState {
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                return FileState::Corrupt {
                    error: ParseError::NotAProfile {
                        reason: format!("not UTF-8 text ({e})"),
                    },
                }
            }
        };
        match parse(text) {
            Ok(f) => FileState::Read(f),
            Err(ParseError::OtherVersion { version }) => FileState::OtherVersion { version },
            Err(error) => FileState::Corrupt { error },
        }
    }
}
