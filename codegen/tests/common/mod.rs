//! Shared helpers of the codegen tests: fixture workspaces in temp directories.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use ninfer_codegen::{Config, Error};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn fixture_catalog() -> String {
    std::fs::read_to_string(fixtures().join("catalog.toml")).unwrap()
}

pub fn fixture_template(name: &str) -> String {
    std::fs::read_to_string(fixtures().join("kernel-templates").join(name)).unwrap()
}

/// A temp workspace: `catalog.toml` with `catalog`, and a copy of the fixture
/// templates with `templates` overriding or adding files.
pub struct Fx {
    pub dir: tempfile::TempDir,
}

impl Fx {
    pub fn new(catalog: &str, templates: &[(&str, &str)]) -> Fx {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("catalog.toml"), catalog).unwrap();
        let t = dir.path().join("kernel-templates");
        copy_dir(&fixtures().join("kernel-templates"), &t);
        for (name, text) in templates {
            let p = t.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Fx { dir }
    }
    pub fn catalog(&self) -> PathBuf {
        self.dir.path().join("catalog.toml")
    }
    pub fn templates(&self) -> PathBuf {
        self.dir.path().join("kernel-templates")
    }
    pub fn set_catalog(&self, text: &str) {
        std::fs::write(self.catalog(), text).unwrap();
    }
    pub fn set_template(&self, name: &str, text: &str) {
        std::fs::write(self.templates().join(name), text).unwrap();
    }
    /// Config with the given out and cache directories.
    pub fn config(&self, out: &Path, cache: &Path) -> Config {
        Config {
            catalog: self.catalog(),
            templates: self.templates(),
            out_dir: out.to_path_buf(),
            cache_dir: cache.to_path_buf(),
            cuda_root: cuda_root(),
        }
    }
    /// Loads, validates and renders (no NVRTC); the error if any.
    pub fn render_err(&self) -> Error {
        match ninfer_codegen::render_catalog(&self.catalog(), &self.templates()) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        }
    }
}

pub fn cuda_root() -> PathBuf {
    ninfer_codegen::nvrtc::locate_cuda_root(&workspace()).unwrap_or_else(|e| panic!("{e}"))
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// 1-based line of the first line of `text` containing `needle`.
pub fn line_with(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}"))
        + 1
}

/// Asserts that the error names `catalog.toml:<line>`, the owner and the problem.
#[track_caller]
pub fn assert_names(e: &Error, line: usize, owner: &str, problem: &str) {
    let s = e.to_string();
    eprintln!("{s}");
    assert!(
        s.contains(&format!("catalog.toml:{line}: ")),
        "no `catalog.toml:{line}` in:\n{s}"
    );
    assert!(s.contains(owner), "no `{owner}` in:\n{s}");
    assert!(s.contains(problem), "no `{problem}` in:\n{s}");
}
