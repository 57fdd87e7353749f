//! The route catalog digest: what changes it and what does not; the snapshots of the
//! real catalog's canonical listing and generated route table (under `snapshots/`).
mod common;

use common::*;
use ninfer_codegen::{canonical_listing, route_catalog_digest, Catalog};
use std::path::Path;

fn digest(text: &str) -> String {
    route_catalog_digest(
        &Catalog::parse(Path::new("catalog.toml"), text).unwrap_or_else(|e| panic!("{e}")),
    )
}

#[test]
fn listing_format_is_the_documented_one() {
    let cat = Catalog::parse(Path::new("catalog.toml"), &fixture_catalog()).unwrap();
    let l = canonical_listing(&cat);
    let block = "  w4c8 cols=8 warps=4\n  w4c16 cols=16 warps=4\n  g2x8 cols=8 warps=2\n  g2x32 cols=32 warps=2\n  g8x8 cols=8 warps=8\n  g8x32 cols=32 warps=8\n";
    // keys sorted bytewise: "fx_scale/128x64" < "fx_scale/64x128"; modules are not routed
    assert_eq!(
        l,
        format!("fx_scale/128x64\n{block}fx_scale/64x128\n{block}")
    );
    let h = blake3::hash(l.as_bytes());
    let hex: String = h.as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(route_catalog_digest(&cat), hex);
    assert_eq!(hex.len(), 16);
}

#[test]
fn digest_ignores_templates_launch_values_widths_and_bands() {
    let base = digest(&fixture_catalog());
    let same = [
        fixture_catalog().replace("fx_scale.cu.tera", "other.cu.tera"),
        fixture_catalog().replace(
            "rows         = \"{{ warps * 2 }}\"",
            "rows = \"{{ warps * 3 }}\"",
        ),
        fixture_catalog().replace("widths      = [1, 2, 4, 8, 16]", "widths = [1, 16]"),
        fixture_catalog().replace(r#"[[8, "w4c8"], [16, "w4c16"]]"#, r#"[[16, "w4c16"]]"#),
        fixture_catalog().replace("threads      = \"128\"", "threads = \"64\""),
        // the same parameters written in another order
        fixture_catalog().replace(
            "w4c8  = { warps = 4, cols = 8 }",
            "w4c8 = { cols = 8, warps = 4 }",
        ),
    ];
    for c in same {
        assert_eq!(digest(&c), base, "{c}");
    }
}

#[test]
fn digest_changes_with_keys_and_schedules() {
    let base = digest(&fixture_catalog());
    let changed = [
        // a schedule added
        fixture_catalog().replace(
            "w4c16 = { warps = 4, cols = 16 }",
            "w4c16 = { warps = 4, cols = 16 }\nw1c8 = { warps = 1, cols = 8 }",
        ),
        // renamed
        fixture_catalog()
            .replace("w4c16 = {", "w4c16b = {")
            .replace("\"w4c16\"]", "\"w4c16b\"]"),
        // re-parameterised
        fixture_catalog().replace(
            "w4c8  = { warps = 4, cols = 8 }",
            "w4c8 = { warps = 2, cols = 8 }",
        ),
        // dropped (a grid value)
        fixture_catalog().replace("warps = [2, 8]", "warps = [2]"),
        // reordered
        fixture_catalog().replace(
            "w4c8  = { warps = 4, cols = 8 }\nw4c16 = { warps = 4, cols = 16 }",
            "w4c16 = { warps = 4, cols = 16 }\nw4c8 = { warps = 4, cols = 8 }",
        ),
        // a key added
        fixture_catalog().replace(
            r#"keys        = ["64x128", "128x64"]"#,
            r#"keys = ["64x128", "128x64", "32x32"]"#,
        ),
    ];
    for c in changed {
        assert_ne!(c, fixture_catalog());
        assert_ne!(digest(&c), base, "{c}");
    }
}

fn snapshot_settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

fn real_catalog() -> Catalog {
    Catalog::load(&workspace().join("catalog.toml")).unwrap_or_else(|e| panic!("{e}"))
}

/// The real catalog's canonical listing with its digest: any change of a key or a
/// candidate schedule shows here for review.
#[test]
fn snapshot_route_catalog_listing() {
    let cat = real_catalog();
    let text = format!(
        "route_catalog {}\n\n{}",
        route_catalog_digest(&cat),
        canonical_listing(&cat)
    );
    snapshot_settings().bind(|| insta::assert_snapshot!("route_catalog_listing", text));
}

/// The generated route table of the real catalog.
#[test]
fn snapshot_routes_rs() {
    let cat = real_catalog();
    let text = ninfer_codegen::emit::routes_rs(&cat, &cat.variants(), &route_catalog_digest(&cat));
    snapshot_settings().bind(|| insta::assert_snapshot!("routes_rs", text));
}
