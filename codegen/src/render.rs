//! Rendering: each variant's template through tera, into self-contained CUDA C++.
//!
//! Template conventions (docs/catalog.md):
//! - the file starts with a tera comment `{# params: a b c #}` naming the integer
//!   parameters it takes; a schedule must give exactly those;
//! - the context holds those parameters (integers), `entry` (the variant name, which
//!   must be the `extern "C" __global__` entry point), `family` and `schedule`;
//! - shared device helpers live under `kernel-templates/common/` and are pulled in
//!   with `{% include "common/x.cuh" %}`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{chain, Error, Result};
use crate::model::{int_context, Catalog, Owner, VariantSpec};

/// A rendered variant.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub name: String,
    /// The full source, do-not-edit header included.
    pub source: String,
}

/// The parameter names a template declares in its `{# params: ... #}` header.
pub fn declared_params(text: &str) -> Option<Vec<String>> {
    let t = text.trim_start();
    let rest = t.strip_prefix("{#")?;
    let end = rest.find("#}")?;
    let body = rest[..end].trim();
    let list = body.strip_prefix("params:")?;
    Some(list.split_whitespace().map(str::to_string).collect())
}

/// Every file under `dir`, as template names relative to it (`/`-separated), sorted.
pub fn template_files(dir: &Path) -> Vec<(String, PathBuf)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(rel) = p.strip_prefix(base) {
                let name: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push((name.join("/"), p));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The templates directory's name as errors and headers show it.
fn shown(dir: &Path, name: &str) -> String {
    let d = dir
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if d.is_empty() {
        name.to_string()
    } else {
        format!("{d}/{name}")
    }
}

/// Renders every variant. Checks each template's parameter header against the
/// parameters of every schedule that uses it.
pub fn render_all(
    catalog: &Catalog,
    templates_dir: &Path,
    variants: &[VariantSpec],
) -> Result<Vec<Rendered>> {
    let files = template_files(templates_dir);
    let mut tera = tera::Tera::default();
    tera.autoescape_on(vec![]);

    // the templates used by the catalog, with the line that names them first
    let mut used: Vec<(String, usize, String)> = Vec::new(); // (template, catalog line, context)
    for f in &catalog.families {
        used.push((
            f.template.clone(),
            f.template_line,
            format!("family `{}`", f.name),
        ));
    }
    for m in &catalog.modules {
        used.push((
            m.template.clone(),
            m.template_line,
            format!("module `{}`", m.name),
        ));
    }

    // shared helpers: everything under common/ (a syntax error there names the file)
    for (name, path) in &files {
        if name.starts_with("common/") {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::new(path, None, "", format!("cannot read template: {e}")))?;
            tera.add_raw_template(name, &escape_asm_operands(&text))
                .map_err(|e| {
                    let msg = chain(&e);
                    Error::new(
                        path,
                        tera_line(&msg),
                        "shared helper (included by the templates)",
                        format!("template syntax error: {msg}"),
                    )
                })?;
        }
    }

    let mut headers: HashMap<String, Vec<String>> = HashMap::new();
    for (tname, line, cx) in &used {
        if headers.contains_key(tname) {
            continue;
        }
        let path = templates_dir.join(tname);
        let text = std::fs::read_to_string(&path).map_err(|_| {
            Error::new(
                &catalog.path,
                Some(*line),
                cx,
                format!(
                    "template `{}` not found ({})",
                    shown(templates_dir, tname),
                    path.display()
                ),
            )
        })?;
        let params = declared_params(&text).ok_or_else(|| {
            Error::new(
                &catalog.path,
                Some(*line),
                cx,
                format!(
                    "template `{}` does not start with its parameter declaration `{{# params: a b c #}}`",
                    shown(templates_dir, tname)
                ),
            )
        })?;
        tera.add_raw_template(tname, &escape_asm_operands(&text))
            .map_err(|e| {
                Error::new(
                    &catalog.path,
                    Some(*line),
                    cx,
                    format!(
                        "template `{}`{}: template syntax error: {}",
                        shown(templates_dir, tname),
                        tera_line(&chain(&e))
                            .map(|l| format!(" line {l}"))
                            .unwrap_or_default(),
                        chain(&e)
                    ),
                )
            })?;
        headers.insert(tname.clone(), params);
    }

    // parameter check, then render
    let mut out = Vec::with_capacity(variants.len());
    for v in variants {
        let declared = &headers[&v.template];
        let given: Vec<&str> = v.params.iter().map(|(k, _)| k.as_str()).collect();
        let unknown: Vec<&str> = given
            .iter()
            .copied()
            .filter(|g| !declared.iter().any(|d| d == g))
            .collect();
        let missing: Vec<&str> = declared
            .iter()
            .map(String::as_str)
            .filter(|d| !given.contains(d))
            .collect();
        if !unknown.is_empty() || !missing.is_empty() {
            let mut probs = Vec::new();
            if !unknown.is_empty() {
                probs.push(format!("unknown template parameter {}", ticks(&unknown)));
            }
            if !missing.is_empty() {
                probs.push(format!("missing template parameter {}", ticks(&missing)));
            }
            let who = match v.owner {
                Owner::Family(..) => format!("schedule `{}`", v.schedule),
                Owner::Module(_) => "params".to_string(),
            };
            return Err(Error::new(
                &catalog.path,
                Some(v.line),
                v.context(),
                format!(
                    "{who} does not match template `{}` (params: {}): {}",
                    shown(templates_dir, &v.template),
                    declared.join(" "),
                    probs.join("; ")
                ),
            ));
        }
        let ctx = int_context(
            &v.params,
            &[
                ("entry", &v.name),
                ("family", &v.family),
                ("schedule", &v.schedule),
            ],
        );
        let body = tera.render(&v.template, &ctx).map_err(|e| {
            Error::new(
                &catalog.path,
                Some(v.line),
                v.context(),
                format!(
                    "variant `{}`: template `{}` failed to render: {}",
                    v.name,
                    shown(templates_dir, &v.template),
                    chain(&e)
                ),
            )
        })?;
        let catalog_name = catalog
            .path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let source = format!(
            "// GENERATED by ninfer-codegen from {catalog_name} and {} -- DO NOT EDIT.\n\
             // Variant `{}` (family `{}`, schedule `{}`): change the catalog or the template instead.\n{}",
            shown(templates_dir, &v.template),
            v.name,
            v.family,
            v.schedule,
            body
        );
        out.push(Rendered {
            name: v.name.clone(),
            source,
        });
    }
    Ok(out)
}

fn ticks(v: &[&str]) -> String {
    let t: Vec<String> = v.iter().map(|s| format!("`{s}`")).collect();
    t.join(", ")
}

/// Inline PTX operand lists such as `"{%0, %1}"` would open a tera tag. No tera tag
/// starts with a digit, so `{%` directly followed by a digit is made literal text
/// (outside `{% raw %}` blocks); line numbers stay the same.
pub fn escape_asm_operands(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    let mut last = 0;
    let mut in_raw = false;
    while i + 2 < b.len() {
        if b[i] == b'{' && b[i + 1] == b'%' {
            // the tag's first word, after an optional `-` and blanks
            let mut j = i + 2;
            if j < b.len() && b[j] == b'-' {
                j += 1;
            }
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            let word_end = (j..b.len())
                .find(|&k| !b[k].is_ascii_alphanumeric() && b[k] != b'_')
                .unwrap_or(b.len());
            let word = &text[j..word_end];
            if word == "raw" {
                in_raw = true;
            } else if word == "endraw" {
                in_raw = false;
            } else if !in_raw && b[i + 2].is_ascii_digit() {
                out.push_str(&text[last..i]);
                out.push_str("{{ \"{%\" }}");
                i += 2;
                last = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

/// The line of a tera parse error (`--> 8:1` in its message).
fn tera_line(msg: &str) -> Option<usize> {
    let rest = &msg[msg.find("--> ")? + 4..];
    rest.split(':').next()?.trim().parse().ok()
}
