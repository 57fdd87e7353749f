//! The catalog model: `catalog.toml` parsed (serde + toml, with spans so every error
//! names its line), validated, and expanded into schedules with evaluated launch values.
//!
//! Order ("declared order", the order the digest and the generated tables use):
//! families in file order; within a family, schedules in file order: an explicit
//! `[family.schedules]` entry sits where its line is, a `[[family.grid]]` where its
//! first line is, and a grid expands there as the cartesian product of its parameter
//! lists in the order the lists are written, the last list varying fastest.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::error::{line_of, Error, Result};

/// The calibration switch a family belongs to (`ninfer-calibrate --no-<flag>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Calibration {
    Ternary,
    Groupwise,
    Attention,
    LinearAttention,
}

impl Calibration {
    pub const ALL: [(&'static str, Calibration); 4] = [
        ("ternary", Calibration::Ternary),
        ("groupwise", Calibration::Groupwise),
        ("attention", Calibration::Attention),
        ("linear-attention", Calibration::LinearAttention),
    ];
    pub fn as_str(self) -> &'static str {
        Self::ALL.iter().find(|(_, c)| *c == self).unwrap().0
    }
    /// The variant name of `runtime::catalog::CalibrationFlag`.
    pub fn rust_variant(self) -> &'static str {
        match self {
            Calibration::Ternary => "Ternary",
            Calibration::Groupwise => "Groupwise",
            Calibration::Attention => "Attention",
            Calibration::LinearAttention => "LinearAttention",
        }
    }
}

/// Launch values every family has; the rest of `[family.launch]` goes to `extra`.
pub const LAUNCH_REQUIRED_FAMILY: [&str; 3] = ["threads", "shared_bytes", "max_width"];
/// Launch values every module has (`max_width` is optional there, default 0).
pub const LAUNCH_REQUIRED_MODULE: [&str; 2] = ["threads", "shared_bytes"];

/// Evaluated launch values of one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchValues {
    pub threads: u32,
    pub shared_bytes: u32,
    pub max_width: u32,
    /// `specific_ptx` (optional, 0 or 1, default 1): 0 leaves the family's
    /// architecture-specific PTX (`"90a"` in `ptx_archs`) out of this variant, whose
    /// code would be the same as the plain target's (a build-time and binary-size choice).
    pub specific_ptx: bool,
    /// Other named values, in the order `[family.launch]` declares them.
    pub extra: Vec<(String, i64)>,
}

/// A candidate schedule of a family.
#[derive(Clone, Debug)]
pub struct Schedule {
    pub name: String,
    /// Sorted by name.
    pub params: Vec<(String, i64)>,
    /// Line of its entry (explicit) or of its grid's `name` (grid).
    pub line: usize,
    /// `None`: explicit entry; `Some(i)`: expanded from the i-th `[[family.grid]]`.
    pub grid: Option<usize>,
    pub launch: LaunchValues,
}

#[derive(Clone, Debug)]
pub struct Family {
    pub name: String,
    pub line: usize,
    pub template: String,
    pub template_line: usize,
    pub calibration: Calibration,
    pub keys: Vec<String>,
    pub widths: Vec<u32>,
    pub compiled: Vec<(u32, String)>,
    pub schedules: Vec<Schedule>,
    /// Virtual architectures (`compute_<a>`, or architecture-specific `compute_<a>a`) with
    /// PTX of their own next to the `compute_80` baseline, increasing (`ptx_archs = [90]`,
    /// `["90a"]`): a GPU loads the newest it runs, so templates may branch on
    /// `__CUDA_ARCH__` (and `__CUDA_ARCH_FEAT_SM90_ALL` for sm_90a's wgmma).
    pub ptx_archs: Vec<PtxArch>,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    pub line: usize,
    pub template: String,
    pub template_line: usize,
    /// Sorted by name.
    pub params: Vec<(String, i64)>,
    pub launch: LaunchValues,
    /// As a family's `ptx_archs`.
    pub ptx_archs: Vec<PtxArch>,
}

/// A route switch: a route key without kernels of its own whose "schedule" is one of a
/// few values (`attn_pv_f16`: `off` | `on`) that an op reads at width 1.
#[derive(Clone, Debug)]
pub struct Switch {
    pub name: String,
    pub line: usize,
    pub calibration: Calibration,
    /// Declared order; the compiled value among them.
    pub values: Vec<String>,
    pub compiled: String,
}

#[derive(Clone, Debug)]
pub struct Catalog {
    /// The path errors name.
    pub path: PathBuf,
    pub families: Vec<Family>,
    pub modules: Vec<Module>,
    pub switches: Vec<Switch>,
}

/// Which kind of unit a variant comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// (family index, schedule index)
    Family(usize, usize),
    /// module index
    Module(usize),
}

/// One kernel to render and compile.
#[derive(Clone, Debug)]
pub struct VariantSpec {
    /// `<family>__<schedule>`, or `<module>__default`; the CUDA entry point's name.
    pub name: String,
    /// The family or module name.
    pub family: String,
    /// The schedule name (`default` for modules).
    pub schedule: String,
    pub template: String,
    pub params: Vec<(String, i64)>,
    pub launch: LaunchValues,
    pub owner: Owner,
    /// Catalog line of the schedule (or module) for errors.
    pub line: usize,
    /// The family's or module's `ptx_archs`.
    pub ptx_archs: Vec<PtxArch>,
}

impl VariantSpec {
    /// `family `x`` / `module `y`` for error messages.
    pub fn context(&self) -> String {
        match self.owner {
            Owner::Family(..) => format!("family `{}`", self.family),
            Owner::Module(_) => format!("module `{}`", self.family),
        }
    }
}

/// The virtual architecture every variant's PTX is compiled for (`compute_80`): it loads
/// on every GPU the project supports.
pub const BASELINE_PTX_ARCH: u32 = 80;

/// A virtual architecture PTX is compiled for: `compute_<number>`, or with `specific` the
/// architecture-specific `compute_<number>a` (sm_90a: wgmma), which only a GPU of exactly
/// that compute capability runs. Ordered by number, the specific form after the plain one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxArch {
    pub number: u32,
    pub specific: bool,
}

impl PtxArch {
    pub const BASELINE: PtxArch = PtxArch {
        number: BASELINE_PTX_ARCH,
        specific: false,
    };

    /// Whether a GPU of compute capability `cc` (major * 10 + minor) runs this PTX.
    pub fn runs_on(self, cc: u32) -> bool {
        if self.specific {
            cc == self.number
        } else {
            self.number <= cc
        }
    }

    /// The newest of `archs` (increasing) that `cc` runs, else the baseline.
    pub fn newest_for(archs: &[PtxArch], cc: u32) -> PtxArch {
        archs
            .iter()
            .rev()
            .copied()
            .find(|a| a.runs_on(cc))
            .unwrap_or(Self::BASELINE)
    }
}

/// `90`, `90a`: the suffix of `compute_` and `sm_`.
impl fmt::Display for PtxArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.number, if self.specific { "a" } else { "" })
    }
}

/// The newest virtual architecture `ptx_archs` may name.
pub const MAX_PTX_ARCH: u32 = 121;

/// Schedule name of a module's single variant.
pub const MODULE_SCHEDULE: &str = "default";

pub fn variant_name(family: &str, schedule: &str) -> String {
    format!("{family}__{schedule}")
}

impl Catalog {
    /// Reads and validates a catalog file.
    pub fn load(path: &Path) -> Result<Catalog> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(path, None, "", format!("cannot read the catalog: {e}")))?;
        Catalog::parse(path, &text)
    }

    /// Parses and validates catalog text; `path` is the name errors give.
    pub fn parse(path: &Path, text: &str) -> Result<Catalog> {
        let raw: RawCatalog = toml::from_str(text).map_err(|e| {
            let offset = e.span().map(|s| s.start);
            let line = offset.map(|o| line_of(text, o));
            let context = offset.map(|o| owner_at(text, o)).unwrap_or_default();
            Error::new(path, line, context, toml_message(e.message().trim()))
        })?;
        let cx = Cx { path, text };
        let mut families = Vec::new();
        let mut names: HashMap<String, (usize, &str)> = HashMap::new();
        for rf in raw.family {
            let f = cx.family(rf)?;
            if let Some((first, kind)) = names.get(&f.name) {
                return Err(cx.err(
                    f.line,
                    format!("family `{}`", f.name),
                    format!("duplicate family name (the {kind} of line {first} has it)"),
                ));
            }
            names.insert(f.name.clone(), (f.line, "family"));
            families.push(f);
        }
        let mut modules = Vec::new();
        for rm in raw.module {
            let m = cx.module(rm)?;
            if let Some((first, kind)) = names.get(&m.name) {
                return Err(cx.err(
                    m.line,
                    format!("module `{}`", m.name),
                    format!("duplicate name (the {kind} of line {first} has it)"),
                ));
            }
            names.insert(m.name.clone(), (m.line, "module"));
            modules.push(m);
        }
        let mut switches = Vec::new();
        for rs in raw.switch {
            let sw = cx.switch(rs)?;
            if let Some((first, kind)) = names.get(&sw.name) {
                return Err(cx.err(
                    sw.line,
                    format!("switch `{}`", sw.name),
                    format!("duplicate name (the {kind} of line {first} has it)"),
                ));
            }
            names.insert(sw.name.clone(), (sw.line, "switch"));
            switches.push(sw);
        }
        Ok(Catalog {
            path: path.to_path_buf(),
            families,
            modules,
            switches,
        })
    }

    /// Every variant: families in file order, each with its schedules in declared
    /// order, then the modules in file order. This is the order of `VARIANTS`.
    pub fn variants(&self) -> Vec<VariantSpec> {
        let mut out = Vec::new();
        for (fi, f) in self.families.iter().enumerate() {
            for (si, s) in f.schedules.iter().enumerate() {
                out.push(VariantSpec {
                    name: variant_name(&f.name, &s.name),
                    family: f.name.clone(),
                    schedule: s.name.clone(),
                    template: f.template.clone(),
                    params: s.params.clone(),
                    launch: s.launch.clone(),
                    owner: Owner::Family(fi, si),
                    line: s.line,
                    ptx_archs: f
                        .ptx_archs
                        .iter()
                        .copied()
                        .filter(|a| s.launch.specific_ptx || !a.specific)
                        .collect(),
                });
            }
        }
        for (mi, m) in self.modules.iter().enumerate() {
            out.push(VariantSpec {
                name: variant_name(&m.name, MODULE_SCHEDULE),
                family: m.name.clone(),
                schedule: MODULE_SCHEDULE.to_string(),
                template: m.template.clone(),
                params: m.params.clone(),
                launch: m.launch.clone(),
                owner: Owner::Module(mi),
                line: m.line,
                ptx_archs: m.ptx_archs.clone(),
            });
        }
        out
    }
}

// ---------------------------------------------------------------------------------
// Raw (serde) form

/// A table whose entries keep their file order (and duplicate detection stays toml's).
#[derive(Debug)]
struct Ordered<K, V>(Vec<(K, V)>);

impl<K, V> Default for Ordered<K, V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for Ordered<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V2<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for V2<K, V> {
            type Value = Ordered<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut m: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut v = Vec::new();
                while let Some((k, val)) = m.next_entry()? {
                    v.push((k, val));
                }
                Ok(Ordered(v))
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    #[serde(default)]
    family: Vec<RawFamily>,
    #[serde(default)]
    module: Vec<RawModule>,
    #[serde(default)]
    switch: Vec<RawSwitch>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RawSwitch {
    name: Spanned<String>,
    calibration: Spanned<String>,
    values: Spanned<Vec<Spanned<String>>>,
    compiled: Spanned<String>,
}

type SpannedMap<V> = Ordered<Spanned<String>, Spanned<V>>;
/// `[last_width, "schedule"]`
type RawBand = (Spanned<i64>, Spanned<String>);
/// (name, line, params, grid index)
type RawSchedule = (String, usize, Vec<(String, i64)>, Option<usize>);

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RawFamily {
    name: Spanned<String>,
    template: Spanned<String>,
    calibration: Spanned<String>,
    keys: Spanned<Vec<Spanned<String>>>,
    widths: Spanned<Vec<Spanned<i64>>>,
    compiled: Spanned<Vec<Spanned<RawBand>>>,
    launch: Spanned<SpannedMap<toml::Value>>,
    #[serde(default)]
    schedules: SpannedMap<SpannedMap<i64>>,
    #[serde(default)]
    grid: Vec<SpannedMap<toml::Value>>,
    #[serde(default)]
    ptx_archs: Option<Spanned<Vec<Spanned<RawArch>>>>,
}

/// An entry of `ptx_archs`: `90` or `"90a"`.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum RawArch {
    Number(i64),
    Name(String),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RawModule {
    name: Spanned<String>,
    template: Spanned<String>,
    #[serde(default)]
    params: SpannedMap<i64>,
    launch: Spanned<SpannedMap<toml::Value>>,
    #[serde(default)]
    ptx_archs: Option<Spanned<Vec<Spanned<RawArch>>>>,
}

/// toml's message, in the catalog's words where it has them.
fn toml_message(m: &str) -> String {
    // "duplicate key `x` in table `family.schedules`"
    if let Some(rest) = m.strip_prefix("duplicate key ") {
        if rest.ends_with("in table `family.schedules`") {
            let name = rest.split(" in table").next().unwrap_or(rest);
            return format!("duplicate schedule {name} in [family.schedules]");
        }
    }
    m.to_string()
}

/// For a toml error at `offset`: the `family `x`` / `module `y`` whose table holds it,
/// found by the last `[[family]]` / `[[module]]` header before it and its `name`.
fn owner_at(text: &str, offset: usize) -> String {
    let head = &text[..offset.min(text.len())];
    let mut best: Option<(usize, &str)> = None;
    for kind in ["family", "module", "switch"] {
        let header = format!("[[{kind}]]");
        let mut pos = 0;
        while let Some(i) = head[pos..].find(&header) {
            let at = pos + i;
            // only a header at the start of a line (not in a comment)
            let line_start = head[..at].rfind('\n').map(|n| n + 1).unwrap_or(0);
            if head[line_start..at].trim().is_empty() && best.is_none_or(|(b, _)| at > b) {
                best = Some((at, kind));
            }
            pos = at + header.len();
        }
    }
    let Some((at, kind)) = best else {
        return String::new();
    };
    // the name of that table: first `name = "..."` line after its header
    for line in text[at..].lines().skip(1) {
        let l = line.trim();
        if l.starts_with("[") {
            break;
        }
        if let Some(rest) = l.strip_prefix("name") {
            if let Some(v) = rest.trim_start().strip_prefix('=') {
                let v = v.trim();
                if let Some(v) = v.strip_prefix('"') {
                    if let Some(end) = v.find('"') {
                        return format!("{kind} `{}`", &v[..end]);
                    }
                }
            }
        }
    }
    format!("{kind} at line {}", line_of(text, at))
}

// ---------------------------------------------------------------------------------
// Validation

struct Cx<'a> {
    path: &'a Path,
    text: &'a str,
}

/// A schedule name: ASCII letters, digits and single `_` (it follows `<family>__` in
/// the entry point, so it may start with a digit: `8x2x32qe`).
fn is_schedule_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && !s.contains("__")
        && !s.starts_with('_')
        && !s.ends_with('_')
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic())
        && s.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        && !s.contains("__")
        && !s.ends_with('_')
}

impl<'a> Cx<'a> {
    fn line<T>(&self, s: &Spanned<T>) -> usize {
        line_of(self.text, s.span().start)
    }
    fn err(&self, line: usize, context: impl Into<String>, msg: impl Into<String>) -> Error {
        Error::new(self.path, Some(line), context, msg)
    }

    fn calibration(&self, raw: &Spanned<String>, cx: &str) -> Result<Calibration> {
        Calibration::ALL
            .iter()
            .find(|(n, _)| *n == raw.get_ref())
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                self.err(
                    self.line(raw),
                    cx,
                    format!(
                        "unknown calibration `{}` (one of: ternary, groupwise, attention, linear-attention)",
                        raw.get_ref()
                    ),
                )
            })
    }

    fn switch(&self, rs: RawSwitch) -> Result<Switch> {
        let name = rs.name.get_ref().clone();
        let line = self.line(&rs.name);
        let cx = format!("switch `{name}`");
        if !is_ident(&name) {
            return Err(self.err(
                line,
                &cx,
                "a switch name must be an identifier (ASCII letters, digits, single `_`)",
            ));
        }
        let calibration = self.calibration(&rs.calibration, &cx)?;
        let mut values: Vec<String> = Vec::new();
        for v in rs.values.get_ref() {
            let value = v.get_ref();
            if !is_ident(value) {
                return Err(self.err(
                    self.line(v),
                    &cx,
                    format!("bad value `{value}`: an identifier"),
                ));
            }
            if values.contains(value) {
                return Err(self.err(self.line(v), &cx, format!("duplicate value `{value}`")));
            }
            values.push(value.clone());
        }
        if values.len() < 2 {
            return Err(self.err(
                self.line(&rs.values),
                &cx,
                "a switch needs at least two values",
            ));
        }
        let compiled = rs.compiled.get_ref().clone();
        if !values.contains(&compiled) {
            return Err(self.err(
                self.line(&rs.compiled),
                &cx,
                format!(
                    "compiled value `{compiled}` is not one of its values ({})",
                    values.join(", ")
                ),
            ));
        }
        Ok(Switch {
            name,
            line,
            calibration,
            values,
            compiled,
        })
    }

    /// The integers of `items` as u32: each passes `bad` (which returns the error message
    /// of a value it rejects), and they strictly increase (`what` names the list).
    fn increasing_u32(
        &self,
        items: &[Spanned<i64>],
        cx: &str,
        what: &str,
        bad: impl Fn(i64) -> Option<String>,
    ) -> Result<Vec<u32>> {
        let mut out: Vec<u32> = Vec::new();
        for item in items {
            let v = *item.get_ref();
            if let Some(message) = bad(v) {
                return Err(self.err(self.line(item), cx, message));
            }
            if let Some(&prev) = out.last() {
                if v as u32 <= prev {
                    return Err(self.err(
                        self.line(item),
                        cx,
                        format!("{what} not strictly increasing: {v} after {prev}"),
                    ));
                }
            }
            out.push(v as u32);
        }
        Ok(out)
    }

    fn family(&self, rf: RawFamily) -> Result<Family> {
        let name = rf.name.get_ref().clone();
        let line = self.line(&rf.name);
        let cx = format!("family `{name}`");
        if !is_ident(&name) {
            return Err(self.err(
                line,
                &cx,
                "a family name must be an identifier (ASCII letters, digits, single `_`)",
            ));
        }
        let template = rf.template.get_ref().clone();
        let template_line = self.line(&rf.template);
        let calibration = self.calibration(&rf.calibration, &cx)?;

        // keys
        let mut keys = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        if rf.keys.get_ref().is_empty() {
            return Err(self.err(
                self.line(&rf.keys),
                &cx,
                "`keys` is empty: a family needs at least one key",
            ));
        }
        for k in rf.keys.get_ref() {
            let l = self.line(k);
            let key = k.get_ref();
            // Keys may have parts (`h24/int8/w1`), never empty ones.
            if key.split('/').any(str::is_empty)
                || key.chars().any(|c| c.is_whitespace() || c == '"')
            {
                return Err(self.err(
                    l,
                    &cx,
                    format!("bad key `{key}`: no blanks, quotes or empty `/` parts"),
                ));
            }
            if let Some(first) = seen.insert(key.clone(), l) {
                return Err(self.err(
                    l,
                    &cx,
                    format!(
                        "duplicate key `{key}` (route key `{name}/{key}`, first at line {first})"
                    ),
                ));
            }
            keys.push(key.clone());
        }

        // widths
        if rf.widths.get_ref().is_empty() {
            return Err(self.err(self.line(&rf.widths), &cx, "`widths` is empty"));
        }
        let widths = self.increasing_u32(rf.widths.get_ref(), &cx, "calibration widths", |v| {
            (v <= 0 || v > u32::MAX as i64)
                .then(|| format!("calibration width {v} must be positive"))
        })?;

        // launch expressions
        let launch_exprs = self.launch_exprs(&rf.launch, &cx, &LAUNCH_REQUIRED_FAMILY)?;

        // schedules: explicit, then grids
        let mut raw_scheds: Vec<RawSchedule> = Vec::new();
        let mut sched_seen: HashMap<String, (usize, Option<usize>)> = HashMap::new();
        let mut push = |me: &Cx,
                        name: String,
                        line: usize,
                        params: Vec<(String, i64)>,
                        grid: Option<usize>| {
            if !is_schedule_name(&name) {
                return Err(me.err(
                    line,
                    &cx,
                    format!(
                        "schedule name `{name}` may hold only ASCII letters, digits and single `_`"
                    ),
                ));
            }
            if let Some((first, g)) = sched_seen.get(&name) {
                let what = match g {
                    None => format!("the explicit schedule of line {first}"),
                    Some(_) => format!("the grid of line {first}"),
                };
                let me_what = if grid.is_some() {
                    "the grid expands to"
                } else {
                    "declared"
                };
                return Err(me.err(
                    line,
                    &cx,
                    format!("duplicate schedule `{name}`: {me_what} it, and {what} has it"),
                ));
            }
            sched_seen.insert(name.clone(), (line, grid));
            raw_scheds.push((name, line, params, grid));
            Ok(())
        };
        // (file offset, expansion index, name, line, params, grid)
        type Pending = (
            usize,
            usize,
            String,
            usize,
            Vec<(String, i64)>,
            Option<usize>,
        );
        let mut pending: Vec<Pending> = Vec::new();
        for (k, v) in &rf.schedules.0 {
            let line = self.line(k);
            let mut params = Vec::new();
            for (pk, pv) in &v.get_ref().0 {
                params.push((pk.get_ref().clone(), *pv.get_ref()));
            }
            params.sort();
            pending.push((k.span().start, 0, k.get_ref().clone(), line, params, None));
        }
        for (gi, g) in rf.grid.iter().enumerate() {
            let mut pattern: Option<(String, usize)> = None;
            let mut lists: Vec<(String, Vec<i64>)> = Vec::new();
            for (k, v) in &g.0 {
                let l = self.line(k);
                if k.get_ref() == "name" {
                    match v.get_ref() {
                        toml::Value::String(s) => pattern = Some((s.clone(), l)),
                        _ => {
                            return Err(self.err(
                                l,
                                &cx,
                                "grid `name` must be a string (a tera pattern)",
                            ))
                        }
                    }
                    continue;
                }
                let arr = match v.get_ref() {
                    toml::Value::Array(a) => a,
                    _ => {
                        return Err(self.err(
                            l,
                            &cx,
                            format!(
                                "grid parameter `{}` must be a list of integers",
                                k.get_ref()
                            ),
                        ))
                    }
                };
                let mut vals = Vec::new();
                for x in arr {
                    match x {
                        toml::Value::Integer(i) => vals.push(*i),
                        _ => {
                            return Err(self.err(
                                l,
                                &cx,
                                format!(
                                    "grid parameter `{}` must be a list of integers",
                                    k.get_ref()
                                ),
                            ))
                        }
                    }
                }
                if vals.is_empty() {
                    return Err(self.err(
                        l,
                        &cx,
                        format!("grid parameter `{}` has no values", k.get_ref()),
                    ));
                }
                lists.push((k.get_ref().clone(), vals));
            }
            let Some((pattern, pline)) = pattern else {
                let l = g.0.first().map(|(k, _)| self.line(k)).unwrap_or(line);
                return Err(self.err(l, &cx, "a `[[family.grid]]` needs a `name` pattern"));
            };
            // cartesian product, last list fastest
            let total: usize = lists.iter().map(|(_, v)| v.len()).product();
            for mut idx in 0..total {
                let mut combo = vec![0i64; lists.len()];
                for (j, (_, vals)) in lists.iter().enumerate().rev() {
                    combo[j] = vals[idx % vals.len()];
                    idx /= vals.len();
                }
                let mut params: Vec<(String, i64)> = lists
                    .iter()
                    .zip(&combo)
                    .map(|((n, _), v)| (n.clone(), *v))
                    .collect();
                params.sort();
                let ctx = int_context(&params, &[]);
                let sname = tera::Tera::one_off(&pattern, &ctx, false).map_err(|e| {
                    self.err(
                        pline,
                        &cx,
                        format!(
                            "grid name pattern `{pattern}` failed to render: {}",
                            crate::error::chain(&e)
                        ),
                    )
                })?;
                let at = g.0.iter().map(|(k, _)| k.span().start).min().unwrap_or(0);
                pending.push((
                    at,
                    pending.len(),
                    sname.trim().to_string(),
                    pline,
                    params,
                    Some(gi),
                ));
            }
        }
        pending.sort_by_key(|p| (p.0, p.1));
        for (_, _, name, line, params, grid) in pending {
            push(self, name, line, params, grid)?;
        }
        if raw_scheds.is_empty() {
            return Err(self.err(
                line,
                &cx,
                "no schedules: add `[family.schedules]` entries or a `[[family.grid]]`",
            ));
        }

        // evaluate launch values per schedule
        let mut schedules = Vec::new();
        for (sname, sline, params, grid) in raw_scheds {
            let launch = self.eval_launch(&launch_exprs, &params, &cx, &sname, &name, true)?;
            schedules.push(Schedule {
                name: sname,
                params,
                line: sline,
                grid,
                launch,
            });
        }

        // compiled bands
        let mut compiled: Vec<(u32, String)> = Vec::new();
        if rf.compiled.get_ref().is_empty() {
            return Err(self.err(
                self.line(&rf.compiled),
                &cx,
                "`compiled` is empty: a family needs a compiled route",
            ));
        }
        for band in rf.compiled.get_ref() {
            let (w, s) = band.get_ref();
            let l = self.line(band);
            let wv = *w.get_ref();
            if wv <= 0 || wv > u32::MAX as i64 {
                return Err(self.err(
                    l,
                    &cx,
                    format!("compiled band last_width {wv} must be positive"),
                ));
            }
            if let Some((prev, _)) = compiled.last() {
                if wv as u32 <= *prev {
                    return Err(self.err(
                        l,
                        &cx,
                        format!(
                            "compiled bands not strictly increasing: last_width {wv} after {prev}"
                        ),
                    ));
                }
            }
            let Some(sched) = schedules.iter().find(|x| x.name == *s.get_ref()) else {
                return Err(self.err(
                    l,
                    &cx,
                    format!(
                        "compiled band [{wv}, \"{}\"] names an unknown schedule (schedules: {})",
                        s.get_ref(),
                        list(schedules.iter().map(|s| s.name.as_str()))
                    ),
                ));
            };
            if (sched.launch.max_width as i64) < wv {
                return Err(self.err(
                    l,
                    &cx,
                    format!(
                        "compiled band [{wv}, \"{}\"]: the schedule serves widths up to {} only (its max_width)",
                        sched.name, sched.launch.max_width
                    ),
                ));
            }
            compiled.push((wv as u32, s.get_ref().clone()));
        }

        let ptx_archs = self.ptx_archs(&rf.ptx_archs, &cx)?;

        Ok(Family {
            name,
            line,
            template,
            template_line,
            calibration,
            keys,
            widths,
            compiled,
            schedules,
            ptx_archs,
        })
    }

    /// A family's or module's `ptx_archs`: extra virtual architectures, increasing.
    fn ptx_archs(
        &self,
        raw: &Option<Spanned<Vec<Spanned<RawArch>>>>,
        cx: &str,
    ) -> Result<Vec<PtxArch>> {
        let archs = raw.as_ref().map(|v| v.get_ref().as_slice()).unwrap_or(&[]);
        let mut out: Vec<PtxArch> = Vec::new();
        for item in archs {
            let line = self.line(item);
            let (text, arch) = match item.get_ref() {
                RawArch::Number(v) => (
                    v.to_string(),
                    u32::try_from(*v).ok().map(|number| PtxArch {
                        number,
                        specific: false,
                    }),
                ),
                RawArch::Name(s) => (
                    format!("\"{s}\""),
                    s.strip_suffix('a')
                        .and_then(|n| n.parse::<u32>().ok())
                        .map(|number| PtxArch {
                            number,
                            specific: true,
                        }),
                ),
            };
            let arch = arch
                .filter(|a| a.number > BASELINE_PTX_ARCH && a.number <= MAX_PTX_ARCH)
                .filter(|a| !a.specific || a.number >= 90)
                .ok_or_else(|| {
                    self.err(
                        line,
                        cx,
                        format!(
                            "ptx_archs: {text} is not a virtual architecture above the compute_{BASELINE_PTX_ARCH} \
                             baseline (a number such as 90 for compute_90, at most {MAX_PTX_ARCH}, or a string \
                             such as \"90a\" for the architecture-specific compute_90a)"
                        ),
                    )
                })?;
            if let Some(&prev) = out.last() {
                if arch <= prev {
                    return Err(self.err(
                        line,
                        cx,
                        format!("ptx_archs not strictly increasing: {arch} after {prev}"),
                    ));
                }
            }
            out.push(arch);
        }
        Ok(out)
    }

    fn module(&self, rm: RawModule) -> Result<Module> {
        let name = rm.name.get_ref().clone();
        let line = self.line(&rm.name);
        let cx = format!("module `{name}`");
        if !is_ident(&name) {
            return Err(self.err(
                line,
                &cx,
                "a module name must be an identifier (ASCII letters, digits, single `_`)",
            ));
        }
        let mut params: Vec<(String, i64)> = rm
            .params
            .0
            .iter()
            .map(|(k, v)| (k.get_ref().clone(), *v.get_ref()))
            .collect();
        params.sort();
        let exprs = self.launch_exprs(&rm.launch, &cx, &LAUNCH_REQUIRED_MODULE)?;
        let launch = self.eval_launch(&exprs, &params, &cx, MODULE_SCHEDULE, &name, false)?;
        let ptx_archs = self.ptx_archs(&rm.ptx_archs, &cx)?;
        Ok(Module {
            name,
            line,
            template: rm.template.get_ref().clone(),
            template_line: self.line(&rm.template),
            params,
            launch,
            ptx_archs,
        })
    }

    fn launch_exprs(
        &self,
        raw: &Spanned<SpannedMap<toml::Value>>,
        cx: &str,
        required: &[&str],
    ) -> Result<Vec<(String, String, usize)>> {
        let mut out = Vec::new();
        for (k, v) in &raw.get_ref().0 {
            let l = self.line(k);
            let expr = match v.get_ref() {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                _ => {
                    return Err(self.err(
                        l,
                        cx,
                        format!(
                            "launch value `{}` must be an integer or a tera expression string",
                            k.get_ref()
                        ),
                    ))
                }
            };
            if !is_ident(k.get_ref()) {
                return Err(self.err(
                    l,
                    cx,
                    format!("launch value name `{}` must be an identifier", k.get_ref()),
                ));
            }
            out.push((k.get_ref().clone(), expr, l));
        }
        for r in required {
            if !out.iter().any(|(n, _, _)| n == r) {
                return Err(self.err(
                    self.line(raw),
                    cx,
                    format!(
                        "launch table lacks `{r}` (required: {})",
                        required.join(", ")
                    ),
                ));
            }
        }
        Ok(out)
    }

    fn eval_launch(
        &self,
        exprs: &[(String, String, usize)],
        params: &[(String, i64)],
        cx: &str,
        schedule: &str,
        family: &str,
        is_family: bool,
    ) -> Result<LaunchValues> {
        let ctx = int_context(params, &[("family", family), ("schedule", schedule)]);
        let mut lv = LaunchValues {
            threads: 0,
            shared_bytes: 0,
            max_width: 0,
            specific_ptx: true,
            extra: Vec::new(),
        };
        for (name, expr, l) in exprs {
            let text = tera::Tera::one_off(expr, &ctx, false).map_err(|e| {
                self.err(
                    *l,
                    cx,
                    format!(
                        "launch value `{name}` = \"{expr}\" failed for schedule `{schedule}`: {}",
                        crate::error::chain(&e)
                    ),
                )
            })?;
            let v = parse_int(&text).ok_or_else(|| {
                self.err(
                    *l,
                    cx,
                    format!("launch value `{name}` = \"{expr}\" gives `{text}` for schedule `{schedule}`, not an integer"),
                )
            })?;
            let as_u32 = |min: i64, max: i64| -> Result<u32> {
                if v < min || v > max {
                    Err(self.err(
                        *l,
                        cx,
                        format!("launch value `{name}` = {v} for schedule `{schedule}` is outside {min}..={max}"),
                    ))
                } else {
                    Ok(v as u32)
                }
            };
            match name.as_str() {
                "threads" => lv.threads = as_u32(1, 1024)?,
                "shared_bytes" => lv.shared_bytes = as_u32(0, 232_448)?,
                "max_width" => {
                    lv.max_width = as_u32(if is_family { 1 } else { 0 }, u32::MAX as i64)?
                }
                "specific_ptx" => lv.specific_ptx = as_u32(0, 1)? == 1,
                _ => lv.extra.push((name.clone(), v)),
            }
        }
        Ok(lv)
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let t = s.trim();
    t.parse::<i64>().ok().or_else(|| {
        let f: f64 = t.parse().ok()?;
        (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
    })
}

/// A tera context of integer parameters plus string values.
pub fn int_context(params: &[(String, i64)], strings: &[(&str, &str)]) -> tera::Context {
    let mut c = tera::Context::new();
    for (k, v) in params {
        c.insert(k.as_str(), v);
    }
    for (k, v) in strings {
        c.insert(*k, v);
    }
    c
}

fn list<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = it.collect();
    v.join(", ")
}

/// Parameters as `name=value`, space separated (sorted by name already).
pub fn params_text(params: &[(String, i64)]) -> String {
    let v: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    v.join(" ")
}
