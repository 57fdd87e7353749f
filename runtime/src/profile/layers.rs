//! Layering, per route key: the file's bands answer up to their last width, the
//! built-in bands past it, and the compiled route past both (and wherever a band
//! says `""`). A key only one layer names keeps that layer's bands.

use super::format::Band;
use std::fmt;

/// Which layer answered a band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    File,
    BuiltIn,
    Compiled,
}

impl Layer {
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::File => "file",
            Layer::BuiltIn => "built-in",
            Layer::Compiled => "compiled",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Widths `first_width..=last_width` take `schedule` (`""` = the compiled route),
/// as `layer` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub first_width: u32,
    pub last_width: u32,
    pub schedule: String,
    pub layer: Layer,
}

/// The file's bands over the built-in ones, for one key. Consecutive segments of one
/// layer with the same schedule merge.
pub fn layer(file: Option<&[Band]>, builtin: Option<&[Band]>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    let push = |first: u32, b: &Band, layer: Layer, out: &mut Vec<Segment>| {
        if let Some(prev) = out.last_mut() {
            if prev.layer == layer && prev.schedule == b.schedule && prev.last_width + 1 == first {
                prev.last_width = b.last_width;
                return;
            }
        }
        out.push(Segment {
            first_width: first,
            last_width: b.last_width,
            schedule: b.schedule.clone(),
            layer,
        });
    };
    let mut covered = 0u64; // widths 1..=covered are answered
    for b in file.unwrap_or(&[]) {
        push(covered as u32 + 1, b, Layer::File, &mut out);
        covered = b.last_width as u64;
    }
    let mut builtin_prev = 0u64;
    for b in builtin.unwrap_or(&[]) {
        if b.last_width as u64 > covered {
            push(
                covered.max(builtin_prev) as u32 + 1,
                b,
                Layer::BuiltIn,
                &mut out,
            );
            covered = b.last_width as u64;
        }
        builtin_prev = b.last_width as u64;
    }
    out
}

/// The bands segments amount to: consecutive widths with the same schedule merge,
/// whichever layer answered them.
pub fn merged_bands(segments: &[Segment]) -> Vec<Band> {
    let mut out: Vec<Band> = Vec::new();
    for s in segments {
        match out.last_mut() {
            Some(prev) if prev.schedule == s.schedule => prev.last_width = s.last_width,
            _ => out.push(Band::new(s.last_width, s.schedule.clone())),
        }
    }
    out
}

/// One route key's resolved segments (widths past the last one: the compiled route).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedKey {
    pub key: String,
    pub segments: Vec<Segment>,
}

impl ResolvedKey {
    pub fn bands(&self) -> Vec<Band> {
        merged_bands(&self.segments)
    }
}
