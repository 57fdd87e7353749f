//! GPU integration tests: the same code as `ninfer check` / `ninfer-calibrate`. They
//! need a CUDA GPU, so CI (no GPU) reports them as ignored; on a GPU machine run
//! `cargo test -p ninfer-runtime --test gpu -- --ignored` (or `ninfer check`, which
//! needs no Rust toolchain there).

use ninfer_runtime::calibrate::measure::{self, Selection};
use ninfer_runtime::check::{self, CheckOptions};
use ninfer_runtime::gpu::timing::WeightsFrom;
use ninfer_runtime::gpu::Gpu;

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_variant_matches_the_cpu_reference_at_every_width() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let rows = check::run(
        &gpu,
        &CheckOptions {
            only: None,
            seed: None,
            schedule: None,
        },
        &|_| {},
    )
    .unwrap();
    let failed: Vec<_> = rows.iter().filter(|r| !r.pass).collect();
    assert!(!rows.is_empty());
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn calibration_measures_every_ternary_key_and_names_only_candidates() {
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let sel = Selection {
        only: Some("t2_i8_small/5120x6144".into()),
        skip: vec![],
    };
    let outcome = measure::run(&gpu, &sel, WeightsFrom::Hbm, &|_| {}).unwrap();
    let bands = &outcome.routes["t2_i8_small/5120x6144"];
    let view = ninfer_runtime::catalog::CatalogView::built_in();
    let key = view.key("t2_i8_small/5120x6144").unwrap();
    let mut previous = 0;
    for (last, schedule) in bands {
        assert!(*last > previous);
        assert!(schedule.is_empty() || key.max_width(schedule).unwrap() >= *last);
        previous = *last;
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn kv_append_matches_the_cpu_cache_byte_for_byte() {
    use ninfer_runtime::ops::kv::append::check_append;
    use ninfer_runtime::ops::kv::format::KvFormat;
    let gpu = Gpu::open(0).expect("a CUDA GPU");
    let mut failed = Vec::new();
    for format in KvFormat::ALL {
        for seed in [1, 2, 3] {
            let r = check_append(&gpu, format, seed).unwrap();
            if !r.pass {
                failed.push(format!(
                    "{} seed {seed}: error {} ({})",
                    r.variant, r.error, r.note
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
