//! ninfer-codegen: the build-time generator behind `runtime/build.rs`.
//!
//! `catalog.toml` + `kernel-templates/` → validated catalog ([`model`]) → variants
//! (`<family>__<schedule>`, modules `<module>__default`) → tera rendering
//! ([`render`]) → NVRTC PTX with a content-addressed cache ([`nvrtc`]) → the route
//! catalog digest ([`digest`]) → `routes.rs` ([`emit`]). Everything but the NVRTC step
//! needs no GPU and no CUDA; see docs/catalog.md.

pub mod digest;
pub mod emit;
pub mod error;
pub mod model;
pub mod nvrtc;
pub mod ptxas;
pub mod render;

use std::path::{Path, PathBuf};

pub use digest::{canonical_listing, digest_of, route_catalog_digest};
pub use error::{Error, Result};
pub use model::{Catalog, VariantSpec};
pub use nvrtc::Outcome;

/// Where `generate` reads and writes.
#[derive(Clone, Debug)]
pub struct Config {
    /// `catalog.toml` (errors name this path).
    pub catalog: PathBuf,
    /// `kernel-templates/`.
    pub templates: PathBuf,
    /// Where `kernels/`, `ptx/`, `routes.rs` and `codegen.log` go (OUT_DIR).
    pub out_dir: PathBuf,
    /// The PTX cache (`<target>/ninfer-ptx-cache`).
    pub cache_dir: PathBuf,
    /// The CUDA root (see [`nvrtc::locate_cuda_root`]).
    pub cuda_root: PathBuf,
}

impl Config {
    /// The configuration a build script uses: the workspace of `manifest_dir/..`, its
    /// `catalog.toml` and `kernel-templates/`, `out_dir`, and the cache in the target
    /// directory that holds `out_dir` (`<target>/<profile>/build/<pkg>/out`), so
    /// debug, release and test builds share it. `$NINFER_PTX_CACHE` overrides it.
    pub fn for_build_script(manifest_dir: &Path, out_dir: &Path) -> Result<Config> {
        let workspace = manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf();
        let cache_dir = match std::env::var_os("NINFER_PTX_CACHE") {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => out_dir
                .ancestors()
                .nth(4)
                .map(|t| t.join("ninfer-ptx-cache"))
                .unwrap_or_else(|| out_dir.join("ninfer-ptx-cache")),
        };
        Ok(Config {
            catalog: workspace.join("catalog.toml"),
            templates: workspace.join("kernel-templates"),
            out_dir: out_dir.to_path_buf(),
            cache_dir,
            cuda_root: nvrtc::locate_cuda_root(&workspace)?,
        })
    }
}

/// What `generate` did.
#[derive(Clone, Debug)]
pub struct Report {
    pub digest: String,
    /// The NVRTC that compiled the PTX, as CUDA encodes versions (13.0 -> 13000).
    pub nvrtc_version: i32,
    /// Every variant in `VARIANTS` order, with how its PTX was obtained; a family's
    /// `ptx_archs` PTX follows its baseline as `<variant> (compute_<arch>)`.
    pub variants: Vec<(String, Outcome)>,
}

impl Report {
    pub fn compiled(&self) -> Vec<&str> {
        self.variants
            .iter()
            .filter(|(_, o)| *o == Outcome::Compiled)
            .map(|(n, _)| n.as_str())
            .collect()
    }
    pub fn cached(&self) -> Vec<&str> {
        self.variants
            .iter()
            .filter(|(_, o)| *o == Outcome::Cached)
            .map(|(n, _)| n.as_str())
            .collect()
    }
    /// The lines of `codegen.log`: `compiled <variant>` / `cached <variant>`.
    pub fn log(&self) -> String {
        let mut s = format!("route_catalog {}\n", self.digest);
        for (n, o) in &self.variants {
            let w = match o {
                Outcome::Compiled => "compiled",
                Outcome::Cached => "cached",
            };
            s.push_str(&format!("{w} {n}\n"));
        }
        s
    }
}

/// Loads, validates and expands a catalog, and renders every variant (no NVRTC).
pub fn render_catalog(
    catalog_path: &Path,
    templates: &Path,
) -> Result<(Catalog, Vec<VariantSpec>, Vec<render::Rendered>)> {
    let catalog = Catalog::load(catalog_path)?;
    let variants = catalog.variants();
    let rendered = render::render_all(&catalog, templates, &variants)?;
    Ok((catalog, variants, rendered))
}

/// The whole generator: validate, render, compile (cached), digest, emit.
/// Writes `out_dir/kernels/<variant>.cu`, `out_dir/ptx/<variant>.ptx` (and
/// `<variant>.compute_<arch>.ptx` per `ptx_archs`), `out_dir/routes.rs` and
/// `out_dir/codegen.log`.
pub fn generate(cfg: &Config) -> Result<Report> {
    let (catalog, variants, rendered) = render_catalog(&cfg.catalog, &cfg.templates)?;
    let io =
        |p: &Path, e: std::io::Error| Error::plain(format!("cannot write {}: {e}", p.display()));

    let kdir = cfg.out_dir.join("kernels");
    let pdir = cfg.out_dir.join("ptx");
    for d in [&kdir, &pdir] {
        std::fs::create_dir_all(d).map_err(|e| io(d, e))?;
    }
    for r in &rendered {
        let p = kdir.join(format!("{}.cu", r.name));
        write_if_changed(&p, &r.source).map_err(|e| io(&p, e))?;
    }

    let nv = nvrtc::load(&cfg.cuda_root)?;
    let nvrtc_version = nv.version.0 * 1000 + nv.version.1 * 10;
    // The compute_80 baseline of every variant, then its family's `ptx_archs`.
    let jobs: Vec<(usize, model::PtxArch)> = rendered
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            let extra = variants
                .iter()
                .find(|v| v.name == r.name)
                .map(|v| v.ptx_archs.clone())
                .unwrap_or_default();
            std::iter::once(model::PtxArch::BASELINE)
                .chain(extra)
                .map(move |a| (i, a))
        })
        .collect();
    let compiled =
        nvrtc::compile_all(nv, &cfg.cache_dir, &rendered, &jobs).map_err(|mut errs| {
            let pos = |n: &str| {
                variants
                    .iter()
                    .position(|v| v.name == n)
                    .unwrap_or(usize::MAX)
            };
            errs.sort_by_key(|(n, _)| pos(n));
            let mut all = errs.into_iter().map(|(name, log)| {
                let v = &variants[pos(&name)];
                Error::new(
                    &catalog.path,
                    Some(v.line),
                    v.context(),
                    format!(
                        "variant `{name}` does not compile (NVRTC; source in {}):\n{log}",
                        kdir.join(format!("{name}.cu")).display()
                    ),
                )
            });
            let mut first = all.next().expect("an error");
            for e in all {
                first.message.push_str(&format!("\n\n{e}"));
            }
            first
        })?;
    for c in &compiled {
        // `{{ entry }}` itself, or entry points `{{ entry }}_<suffix>` (a family whose
        // variants come in several forms, e.g. one kernel per KV cache format).
        let has_entry = [
            format!(".entry {}(", c.name),
            format!(".entry {}\n", c.name),
            format!(".entry {}_", c.name),
        ]
        .iter()
        .any(|e| c.ptx.contains(e.as_str()));
        if !has_entry {
            let v = variants.iter().find(|v| v.name == c.name).expect("variant");
            return Err(Error::new(
                &catalog.path,
                Some(v.line),
                v.context(),
                format!(
                    "variant `{}`: the PTX has no entry point `{}`; the template must define \
                     `extern \"C\" __global__ void {{{{ entry }}}}(...)` (or `{{{{ entry }}}}_<suffix>`)",
                    c.name, c.name
                ),
            ));
        }
        let p = pdir.join(ptx_file_name(&c.name, c.arch));
        write_if_changed(&p, &c.ptx).map_err(|e| io(&p, e))?;
    }

    let digest = route_catalog_digest(&catalog);
    let routes = emit::routes_rs(&catalog, &variants, &digest);
    let p = cfg.out_dir.join("routes.rs");
    write_if_changed(&p, &routes).map_err(|e| io(&p, e))?;

    let report = Report {
        digest,
        nvrtc_version,
        variants: compiled
            .iter()
            .map(|c| match c.arch {
                model::PtxArch::BASELINE => (c.name.clone(), c.outcome),
                a => (format!("{} (compute_{a})", c.name), c.outcome),
            })
            .collect(),
    };
    let p = cfg.out_dir.join("codegen.log");
    std::fs::write(&p, report.log()).map_err(|e| io(&p, e))?;
    Ok(report)
}

/// The PTX file of a variant under `out_dir/ptx/`: `<variant>.ptx` for the compute_80
/// baseline, `<variant>.compute_<arch>.ptx` for a family's `ptx_archs` (`compute_90a`).
pub fn ptx_file_name(variant: &str, arch: model::PtxArch) -> String {
    if arch == model::PtxArch::BASELINE {
        format!("{variant}.ptx")
    } else {
        format!("{variant}.compute_{arch}.ptx")
    }
}

fn write_if_changed(p: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(p)
        .map(|t| t == text)
        .unwrap_or(false)
    {
        return Ok(());
    }
    std::fs::write(p, text)
}

/// Entry point for `build.rs`: runs the generator, prints the rerun directives and a
/// summary, and exits the build with the error message on failure.
pub fn build_script_main() {
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let workspace = manifest.parent().unwrap_or(&manifest).to_path_buf();
    println!(
        "cargo:rerun-if-changed={}",
        workspace.join("catalog.toml").display()
    );
    let tdir = workspace.join("kernel-templates");
    println!("cargo:rerun-if-changed={}", tdir.display());
    for (_, p) in render::template_files(&tdir) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    println!("cargo:rerun-if-env-changed=NINFER_CUDA_ROOT");
    println!("cargo:rerun-if-env-changed=NINFER_PTX_CACHE");
    let result = Config::for_build_script(&manifest, &out).and_then(|cfg| generate(&cfg));
    // Provenance for profile entries written by this build (calibration block).
    println!(
        "cargo:rerun-if-changed={}",
        workspace.join(".git/logs/HEAD").display()
    );
    let describe = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=7"])
        .current_dir(&workspace)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=NINFER_GIT_DESCRIBE={describe}");
    match result {
        Ok(report) => {
            println!(
                "cargo:rustc-env=NINFER_NVRTC_VERSION={}",
                report.nvrtc_version
            );
            let compiled = report.compiled();
            if !compiled.is_empty() {
                let shown: Vec<&str> = compiled.iter().take(12).copied().collect();
                let more = if compiled.len() > 12 {
                    format!(" and {} more", compiled.len() - 12)
                } else {
                    String::new()
                };
                println!(
                    "cargo:warning=ninfer-codegen: compiled {} of {} PTX with NVRTC ({}{more}); {} cached; route catalog {}",
                    compiled.len(),
                    report.variants.len(),
                    shown.join(", "),
                    report.cached().len(),
                    report.digest
                );
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
