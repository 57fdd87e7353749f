//! The route catalog digest and its canonical listing (see docs/catalog.md).
//!
//! The listing has one block per route key calibration measures (`<family>/<key>`),
//! blocks sorted bytewise by route key. A block is the key on its own line, then one
//! line per candidate schedule of the key's family in declared order: two spaces, the
//! schedule name, and each parameter as ` name=value`, parameters sorted by name; a
//! route switch's block lists its values the same way, without parameters.
//! Every line ends with `\n`. The digest is the first 8 bytes of blake3 over the
//! listing's UTF-8 bytes, as 16 lowercase hex characters. Template text, launch values,
//! widths and compiled bands are not part of it.

use crate::model::Catalog;

pub fn canonical_listing(catalog: &Catalog) -> String {
    let mut blocks: Vec<(String, String)> = Vec::new();
    for f in &catalog.families {
        let mut cands = String::new();
        for s in &f.schedules {
            cands.push_str("  ");
            cands.push_str(&s.name);
            for (k, v) in &s.params {
                cands.push_str(&format!(" {k}={v}"));
            }
            cands.push('\n');
        }
        for k in &f.keys {
            blocks.push((format!("{}/{}", f.name, k), cands.clone()));
        }
    }
    // A switch is a route key whose candidates are its values (no parameters).
    for sw in &catalog.switches {
        let values: String = sw.values.iter().map(|v| format!("  {v}\n")).collect();
        blocks.push((sw.name.clone(), values));
    }
    blocks.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = String::new();
    for (k, c) in blocks {
        out.push_str(&k);
        out.push('\n');
        out.push_str(&c);
    }
    out
}

/// 16 lowercase hex characters: the first 8 bytes of blake3 of `listing`.
pub fn digest_of(listing: &str) -> String {
    let h = blake3::hash(listing.as_bytes());
    h.as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn route_catalog_digest(catalog: &Catalog) -> String {
    digest_of(&canonical_listing(catalog))
}
