//! NVRTC: locating the CUDA wheels, loading `libnvrtc.so.13` by absolute path, and
//! compiling rendered variants to PTX in parallel through a content-addressed cache.
//!
//! cudarc's dynamic loading opens NVRTC by soname only. We first open the wheel's
//! library by its absolute path with libloading and keep it loaded for the whole
//! process; glibc then answers cudarc's `dlopen("libnvrtc.so.13")` with that object.

use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::render::Rendered;

/// The one message a build without NVRTC prints.
pub fn not_found_message(tried: &Path) -> String {
    format!(
        "NVRTC not found: {} does not exist.\n\
         The build needs NVRTC, the CUDA headers and ptxas from the pinned CUDA 13.0 pip wheels. Get them with\n\
         \x20   scripts/setup-cuda.sh          (installs them into .cuda/ and prints the CUDA root)\n\
         or use ./dev (which runs it for you), or set NINFER_CUDA_ROOT to a directory holding\n\
         lib/libnvrtc.so.13, include/cuda_fp16.h and bin/ptxas (e.g. .cuda/nvidia/cu13).",
        tried.join("lib/libnvrtc.so.13").display()
    )
}

/// The CUDA root: `$NINFER_CUDA_ROOT`, else `<workspace>/.cuda/nvidia/cu13`.
pub fn locate_cuda_root(workspace: &Path) -> Result<PathBuf> {
    let root = match std::env::var_os("NINFER_CUDA_ROOT") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => workspace.join(".cuda/nvidia/cu13"),
    };
    if root.join("lib/libnvrtc.so.13").is_file() {
        Ok(root)
    } else {
        Err(Error::plain(not_found_message(&root)))
    }
}

/// NVRTC, loaded once per process.
pub struct Nvrtc {
    pub root: PathBuf,
    /// `(major, minor)`.
    pub version: (i32, i32),
    _lib: libloading::Library,
    _builtins: libloading::Library,
}

static NVRTC: OnceLock<std::result::Result<Nvrtc, String>> = OnceLock::new();

/// Loads NVRTC from `root` (the first root asked for wins for the process).
pub fn load(root: &Path) -> Result<&'static Nvrtc> {
    let r = NVRTC.get_or_init(|| {
        let path = root.join("lib/libnvrtc.so.13");
        if !path.is_file() {
            return Err(not_found_message(root));
        }
        // NVRTC opens its builtins library by soname too: load it first, by path.
        let builtins = root.join("lib/libnvrtc-builtins.so.13.0");
        // SAFETY: loading these libraries runs no initialisers with preconditions.
        let builtins = unsafe { libloading::Library::new(&builtins) }
            .map_err(|e| format!("cannot load {}: {e}", builtins.display()))?;
        let lib = unsafe { libloading::Library::new(&path) }
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        type VersionFn = unsafe extern "C" fn(*mut i32, *mut i32) -> i32;
        let mut ours = (0, 0);
        unsafe {
            let f: libloading::Symbol<VersionFn> =
                lib.get(b"nvrtcVersion\0").map_err(|e| format!("{}: no nvrtcVersion: {e}", path.display()))?;
            f(&mut ours.0, &mut ours.1);
        }
        // cudarc's view must be the same library (not some other libnvrtc.so on the path)
        let mut theirs = (0, 0);
        unsafe {
            cudarc::nvrtc::sys::nvrtcVersion(&mut theirs.0, &mut theirs.1)
                .result()
                .map_err(|e| format!("nvrtcVersion failed: {e:?}"))?;
        }
        if ours != theirs {
            return Err(format!(
                "cudarc loaded NVRTC {}.{} but {} is {}.{}: another libnvrtc is on the library path; \
                 set NINFER_CUDA_ROOT or remove it",
                theirs.0,
                theirs.1,
                path.display(),
                ours.0,
                ours.1
            ));
        }
        Ok(Nvrtc { root: root.to_path_buf(), version: ours, _lib: lib, _builtins: builtins })
    });
    r.as_ref().map_err(|m| Error::plain(m.clone()))
}

impl Nvrtc {
    /// The options a variant is compiled with for virtual architecture `compute_<arch>`
    /// (the include directory is added at compile time and kept out of the cache key as
    /// `<cuda>/include`).
    pub fn options(arch: crate::model::PtxArch) -> Vec<String> {
        vec![
            format!("--gpu-architecture=compute_{arch}"),
            "-std=c++17".into(),
            "-I<cuda>/include".into(),
        ]
    }

    fn real_options(&self, arch: crate::model::PtxArch) -> Vec<String> {
        Self::options(arch)
            .into_iter()
            .map(|o| o.replace("<cuda>", &self.root.display().to_string()))
            .collect()
    }

    /// The cache key of a source: blake3 over source, options and NVRTC version.
    pub fn cache_key(&self, source: &str, arch: crate::model::PtxArch) -> String {
        let mut h = blake3::Hasher::new();
        h.update(b"ninfer-ptx-cache v1\0");
        h.update(source.as_bytes());
        h.update(b"\0");
        for o in Self::options(arch) {
            h.update(o.as_bytes());
            h.update(b"\n");
        }
        h.update(format!("\0nvrtc {}.{}", self.version.0, self.version.1).as_bytes());
        h.finalize().to_hex().to_string()
    }

    /// Compiles one source to PTX for `compute_<arch>`; on failure returns NVRTC's log.
    pub fn compile(
        &self,
        name: &str,
        source: &str,
        arch: crate::model::PtxArch,
    ) -> std::result::Result<String, String> {
        use cudarc::nvrtc::result as r;
        let src = CString::new(source).map_err(|_| "source contains a NUL byte".to_string())?;
        let cname = CString::new(format!("{name}.cu")).unwrap();
        let prog = r::create_program(&src, Some(&cname))
            .map_err(|e| format!("nvrtcCreateProgram: {e:?}"))?;
        let opts = self.real_options(arch);
        let res = unsafe { r::compile_program(prog, &opts) };
        let log = unsafe { r::get_program_log(prog) }
            .map(|v| {
                unsafe { CStr::from_ptr(v.as_ptr()) }
                    .to_string_lossy()
                    .into_owned()
            })
            .unwrap_or_default();
        let out = match res {
            Err(e) => Err(format!("{e:?}\n{}", log.trim_end())),
            Ok(()) => unsafe { r::get_ptx(prog) }
                .map(|v| {
                    unsafe { CStr::from_ptr(v.as_ptr()) }
                        .to_string_lossy()
                        .into_owned()
                })
                .map_err(|e| format!("nvrtcGetPTX: {e:?}")),
        };
        let _ = unsafe { r::destroy_program(prog) };
        out
    }
}

/// How a variant got its PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Compiled,
    Cached,
}

/// One compiled variant, for one virtual architecture.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub name: String,
    /// `compute_<arch>`.
    pub arch: crate::model::PtxArch,
    pub key: String,
    pub outcome: Outcome,
    pub ptx: String,
}

/// Compiles every (rendered variant, virtual architecture) job, in parallel, reusing
/// `cache_dir/<key>.ptx`. A failure names the variant (and the architecture, past the
/// baseline) and carries NVRTC's log; all failures are reported.
pub fn compile_all(
    nvrtc: &Nvrtc,
    cache_dir: &Path,
    rendered: &[Rendered],
    jobs: &[(usize, crate::model::PtxArch)],
) -> std::result::Result<Vec<Compiled>, Vec<(String, String)>> {
    let _ = std::fs::create_dir_all(cache_dir);
    let results: Vec<std::result::Result<Compiled, (String, String)>> = jobs
        .par_iter()
        .map(|&(i, arch)| {
            let r = &rendered[i];
            let key = nvrtc.cache_key(&r.source, arch);
            let path = cache_dir.join(format!("{key}.ptx"));
            if let Ok(ptx) = std::fs::read_to_string(&path) {
                if !ptx.is_empty() {
                    return Ok(Compiled {
                        name: r.name.clone(),
                        arch,
                        key,
                        outcome: Outcome::Cached,
                        ptx,
                    });
                }
            }
            let ptx = nvrtc.compile(&r.name, &r.source, arch).map_err(|log| {
                let log = if arch == crate::model::PtxArch::BASELINE {
                    log
                } else {
                    format!("(compute_{arch})\n{log}")
                };
                (r.name.clone(), log)
            })?;
            // atomic store: temp file + rename, so a concurrent build never reads half a file
            let tmp = cache_dir.join(format!(".{key}.{}.tmp", std::process::id()));
            if std::fs::write(&tmp, &ptx).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
            Ok(Compiled {
                name: r.name.clone(),
                arch,
                key,
                outcome: Outcome::Compiled,
                ptx,
            })
        })
        .collect();
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    for r in results {
        match r {
            Ok(c) => ok.push(c),
            Err(e) => errs.push(e),
        }
    }
    if errs.is_empty() {
        Ok(ok)
    } else {
        Err(errs)
    }
}
