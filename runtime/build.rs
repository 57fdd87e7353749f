//! Thin: all the work is the `ninfer-codegen` library (catalog.toml + kernel-templates/
//! -> rendered CUDA -> PTX (cached) -> route catalog digest -> routes.rs). It prints
//! the rerun-if-changed directives for catalog.toml, every template and NINFER_CUDA_ROOT.
fn main() {
    ninfer_codegen::build_script_main();
}
