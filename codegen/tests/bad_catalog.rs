//! Every bad catalog fails with a message that names the file, the line, the family
//! (or module) and the problem. One test per case.
mod common;

use common::*;

const FAM: &str = "family `fx_scale`";

/// The fixture catalog with `from` replaced by `to` (which must occur).
fn edit(from: &str, to: &str) -> String {
    let c = fixture_catalog();
    assert!(c.contains(from), "fixture lacks {from:?}");
    c.replacen(from, to, 1)
}

fn err_of(catalog: &str) -> ninfer_codegen::Error {
    Fx::new(catalog, &[]).render_err()
}

#[test]
fn duplicate_family() {
    let c = fixture_catalog() + "\n[[family]]\nname = \"fx_scale\"\ntemplate = \"fx_scale.cu.tera\"\ncalibration = \"ternary\"\nkeys = [\"1x1\"]\nwidths = [1]\ncompiled = [[8, \"a\"]]\n[family.launch]\nthreads = \"32\"\nmax_width = \"8\"\nshared_bytes = \"0\"\n[family.schedules]\na = { warps = 1, cols = 8 }\n";
    let line = c
        .lines()
        .collect::<Vec<_>>()
        .iter()
        .rposition(|l| l.contains("name = \"fx_scale\""))
        .unwrap()
        + 1;
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "duplicate family name (the family of line 3 has it)",
    );
}

#[test]
fn duplicate_key() {
    let c = edit(
        r#"keys        = ["64x128", "128x64"]"#,
        "keys = [\"64x128\",\n  \"64x128\"]",
    );
    let line = line_with(&c, "  \"64x128\"]");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "duplicate key `64x128` (route key `fx_scale/64x128`, first at line",
    );
}

#[test]
fn duplicate_schedule() {
    let c = edit(
        "w4c16 = { warps = 4, cols = 16 }",
        "w4c16 = { warps = 4, cols = 16 }\nw4c8 = { warps = 4, cols = 32 }",
    );
    let line = line_with(&c, "w4c8 = { warps = 4, cols = 32 }");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "duplicate schedule `w4c8` in [family.schedules]",
    );
}

#[test]
fn duplicate_schedule_between_grid_and_explicit_entry() {
    let c = edit(
        "w4c16 = { warps = 4, cols = 16 }",
        "w4c16 = { warps = 4, cols = 16 }\ng2x8 = { warps = 2, cols = 8 }",
    );
    let line = line_with(&c, "name  = \"g{{ warps }}x{{ cols }}\"");
    let explicit = line_with(&c, "g2x8 = {");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        &format!("duplicate schedule `g2x8`: the grid expands to it, and the explicit schedule of line {explicit} has it"),
    );
}

#[test]
fn duplicate_schedule_within_a_grid() {
    let c = edit(
        "name  = \"g{{ warps }}x{{ cols }}\"",
        "name  = \"g{{ warps }}\"",
    );
    let line = line_with(&c, "name  = \"g{{ warps }}\"");
    assert_names(&err_of(&c), line, FAM, "duplicate schedule `g2`");
}

#[test]
fn bands_not_increasing() {
    let c = edit(
        r#"compiled    = [[8, "w4c8"], [16, "w4c16"]]"#,
        r#"compiled    = [[16, "w4c16"], [8, "w4c8"]]"#,
    );
    let line = line_with(&c, "compiled    =");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "compiled bands not strictly increasing: last_width 8 after 16",
    );
}

#[test]
fn band_last_width_zero() {
    let c = edit(
        r#"compiled    = [[8, "w4c8"], [16, "w4c16"]]"#,
        r#"compiled    = [[0, "w4c8"], [16, "w4c16"]]"#,
    );
    let line = line_with(&c, "compiled    =");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "compiled band last_width 0 must be positive",
    );
}

#[test]
fn band_names_unknown_schedule() {
    let c = edit(r#"[16, "w4c16"]]"#, "\n  [16, \"w4c99\"]]");
    let line = line_with(&c, "[16, \"w4c99\"]]");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "compiled band [16, \"w4c99\"] names an unknown schedule (schedules: w4c8, w4c16, g2x8",
    );
}

#[test]
fn band_wider_than_its_schedule() {
    let c = edit(
        r#"[[8, "w4c8"], [16, "w4c16"]]"#,
        r#"[[8, "w4c8"], [16, "g2x8"]]"#,
    );
    let line = line_with(&c, "compiled    =");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "the schedule serves widths up to 8 only",
    );
}

#[test]
fn unknown_template_parameter() {
    let c = edit(
        "w4c16 = { warps = 4, cols = 16 }",
        "w4c16 = { warps = 4, cols = 16, unroll = 2 }",
    );
    let line = line_with(&c, "w4c16 =");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "schedule `w4c16` does not match template `kernel-templates/fx_scale.cu.tera` (params: warps cols): unknown template parameter `unroll`",
    );
}

#[test]
fn missing_template_parameter() {
    let t = fixture_template("fx_scale.cu.tera").replace(
        "{# params: warps cols #}",
        "{# params: warps cols unroll #}",
    );
    let c = fixture_catalog();
    let e = Fx::new(&c, &[("fx_scale.cu.tera", &t)]).render_err();
    assert_names(
        &e,
        line_with(&c, "w4c8  ="),
        FAM,
        "schedule `w4c8` does not match template `kernel-templates/fx_scale.cu.tera` (params: warps cols unroll): missing template parameter `unroll`",
    );
}

#[test]
fn template_without_parameter_declaration() {
    let t = fixture_template("fx_scale.cu.tera").replace("{# params: warps cols #}", "");
    let c = fixture_catalog();
    let e = Fx::new(&c, &[("fx_scale.cu.tera", &t)]).render_err();
    assert_names(
        &e,
        line_with(&c, "template    ="),
        FAM,
        "does not start with its parameter declaration",
    );
}

#[test]
fn missing_template() {
    let c = edit(
        r#"template    = "fx_scale.cu.tera""#,
        r#"template    = "fx_nope.cu.tera""#,
    );
    let line = line_with(&c, "fx_nope");
    assert_names(
        &err_of(&c),
        line,
        FAM,
        "template `kernel-templates/fx_nope.cu.tera` not found",
    );
}

#[test]
fn template_syntax_error() {
    let t =
        fixture_template("fx_scale.cu.tera").replace("{{ cols }});", "{% if cols %}{{ cols }});");
    let c = fixture_catalog();
    let e = Fx::new(&c, &[("fx_scale.cu.tera", &t)]).render_err();
    assert_names(
        &e,
        line_with(&c, "template    ="),
        FAM,
        "template `kernel-templates/fx_scale.cu.tera` line 8: template syntax error",
    );
}

#[test]
fn template_render_error() {
    let t = fixture_template("fx_scale.cu.tera").replace("{{ cols }});", "{{ colls }});");
    let c = fixture_catalog();
    let e = Fx::new(&c, &[("fx_scale.cu.tera", &t)]).render_err();
    assert_names(
        &e,
        line_with(&c, "w4c8  ="),
        FAM,
        "variant `fx_scale__w4c8`: template `kernel-templates/fx_scale.cu.tera` failed to render",
    );
    assert!(e.to_string().contains("colls"), "{e}");
}

#[test]
fn kernel_that_does_not_compile() {
    let t = fixture_template("fx_scale.cu.tera")
        .replace("{{ cols }});", "{{ cols }}) + undefined_symbol;");
    let c = fixture_catalog();
    let fx = Fx::new(&c, &[("fx_scale.cu.tera", &t)]);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let e = ninfer_codegen::generate(&fx.config(out.path(), cache.path())).unwrap_err();
    assert_names(
        &e,
        line_with(&c, "w4c8  ="),
        FAM,
        "variant `fx_scale__w4c8` does not compile (NVRTC",
    );
    let s = e.to_string();
    assert!(
        s.contains("identifier \"undefined_symbol\" is undefined"),
        "NVRTC's log:\n{s}"
    );
    // every failing variant is listed
    assert!(
        s.contains("variant `fx_scale__g8x32` does not compile"),
        "{s}"
    );
}

#[test]
fn kernel_without_its_entry_point() {
    let t = fixture_template("fx_scale.cu.tera").replace("{{ entry }}(", "fx_wrong_name(");
    let c = fixture_catalog();
    let fx = Fx::new(&c, &[("fx_scale.cu.tera", &t)]);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let e = ninfer_codegen::generate(&fx.config(out.path(), cache.path())).unwrap_err();
    assert_names(
        &e,
        line_with(&c, "w4c8  ="),
        FAM,
        "the PTX has no entry point `fx_scale__w4c8`",
    );
}

#[test]
fn unknown_field() {
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16]\ncolour      = \"red\"",
    );
    let line = line_with(&c, "colour");
    assert_names(&err_of(&c), line, FAM, "unknown field `colour`");
}

#[test]
fn unknown_field_in_a_module() {
    let c = edit(
        "template = \"fx_copy.cu.tera\"",
        "template = \"fx_copy.cu.tera\"\nthreads = 64",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "threads = 64"),
        "module `fx_copy`",
        "unknown field `threads`",
    );
}

#[test]
fn unknown_calibration_flag() {
    let c = edit(
        r#"calibration = "ternary""#,
        r#"calibration = "quaternary""#,
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "quaternary"),
        FAM,
        "unknown calibration `quaternary`",
    );
}

#[test]
fn widths_not_increasing() {
    let c = edit("widths      = [1, 2, 4, 8, 16]", "widths      = [1, 4, 2]");
    assert_names(
        &err_of(&c),
        line_with(&c, "widths"),
        FAM,
        "calibration widths not strictly increasing: 2 after 4",
    );
}

#[test]
fn launch_lacks_threads() {
    let c = edit("threads      = \"{{ warps * 32 }}\"\n", "");
    assert_names(
        &err_of(&c),
        line_with(&c, "[family.launch]"),
        FAM,
        "launch table lacks `threads`",
    );
}

#[test]
fn launch_expression_fails() {
    let c = edit(
        "rows         = \"{{ warps * 2 }}\"",
        "rows         = \"{{ wraps * 2 }}\"",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "rows "),
        FAM,
        "launch value `rows` = \"{{ wraps * 2 }}\" failed for schedule `w4c8`",
    );
}

#[test]
fn bad_schedule_name() {
    let c = edit(
        "w4c8  = { warps = 4, cols = 8 }",
        "\"w4-c8\" = { warps = 4, cols = 8 }",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "w4-c8"),
        FAM,
        "schedule name `w4-c8` may hold only ASCII letters, digits and single `_`",
    );
}

#[test]
fn toml_syntax_error() {
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16",
    );
    let e = err_of(&c);
    let s = e.to_string();
    assert!(s.contains("catalog.toml:") && s.contains(FAM), "{s}");
}

#[test]
fn shared_helper_syntax_error() {
    let e = Fx::new(
        &fixture_catalog(),
        &[("common/fx_helpers.cuh", "// helper\n{% if %}\n")],
    )
    .render_err();
    let s = e.to_string();
    eprintln!("{s}");
    assert!(
        s.contains("kernel-templates/common/fx_helpers.cuh:2: shared helper"),
        "{s}"
    );
    assert!(s.contains("template syntax error"), "{s}");
}

#[test]
fn missing_shared_helper() {
    let t =
        fixture_template("fx_scale.cu.tera").replace("common/fx_helpers.cuh", "common/fx_nope.cuh");
    let c = fixture_catalog();
    let e = Fx::new(&c, &[("fx_scale.cu.tera", &t)]).render_err();
    assert_names(&e, line_with(&c, "w4c8  ="), FAM, "failed to render");
    assert!(e.to_string().contains("fx_nope.cuh"), "{e}");
}

#[test]
fn ptx_arch_at_or_below_the_baseline() {
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16]\nptx_archs   = [80]",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "ptx_archs"),
        FAM,
        "ptx_archs: 80 is not a virtual architecture above the compute_80 baseline",
    );
}

#[test]
fn ptx_archs_not_increasing() {
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16]\nptx_archs   = [90, 89]",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "ptx_archs"),
        FAM,
        "ptx_archs not strictly increasing: 89 after 90",
    );
}

#[test]
fn ptx_arch_specific_below_sm90() {
    // architecture-specific targets exist from sm_90a on
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16]\nptx_archs   = [\"89a\"]",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "ptx_archs"),
        FAM,
        "ptx_archs: \"89a\" is not a virtual architecture",
    );
}

#[test]
fn ptx_arch_name_not_an_architecture() {
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16]\nptx_archs   = [\"sm90\"]",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "ptx_archs"),
        FAM,
        "ptx_archs: \"sm90\" is not a virtual architecture",
    );
}

#[test]
fn ptx_archs_specific_before_plain() {
    // "90a" sorts after 90
    let c = edit(
        "widths      = [1, 2, 4, 8, 16]",
        "widths      = [1, 2, 4, 8, 16]\nptx_archs   = [\"90a\", 90]",
    );
    assert_names(
        &err_of(&c),
        line_with(&c, "ptx_archs"),
        FAM,
        "ptx_archs not strictly increasing: 90 after 90a",
    );
}
