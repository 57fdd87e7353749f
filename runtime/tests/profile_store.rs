//! Storing calibration results: upsert rules, other schema versions, corrupt files,
//! atomic writes, and two processes storing into one file at once.

mod profile_common;
use ninfer_runtime::profile::format::{self, bands, FileState, ProfileFile};
use ninfer_runtime::profile::store::{self, EntryAction, FileAction, StoreError};
use profile_common::*;
use std::fs;
use std::path::Path;

fn read(path: &Path) -> ProfileFile {
    match FileState::load(path) {
        FileState::Read(f) => f,
        other => panic!("{}: {other:?}", path.display()),
    }
}

fn keys(f: &ProfileFile, class: &str) -> Vec<String> {
    f.devices
        .iter()
        .find(|e| e.hardware_class == class)
        .unwrap()
        .routes
        .keys()
        .cloned()
        .collect()
}

#[test]
fn creates_the_file_and_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache/ninfer/device-profiles.json");
    let e = entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("a", &[(8, "x")])]);
    let out = store::upsert(&path, &e).unwrap();
    assert_eq!(
        (out.entry, out.file),
        (EntryAction::Added, FileAction::Created)
    );
    assert_eq!(read(&path).devices, vec![e]);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        format::to_text(&read(&path))
    );
}

#[test]
fn same_digest_replaces_only_the_measured_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let first = entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[("a", &[(8, "x")]), ("b", &[(8, "y")])],
    );
    store::upsert(&path, &first).unwrap();
    let mut limited = entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[("b", &[(16, "")]), ("c", &[(4, "z")])],
    );
    limited.calibration.as_mut().unwrap().date = "2026-12-01T00:00:00Z".into();
    let out = store::upsert(&path, &limited).unwrap();
    assert_eq!(out.entry, EntryAction::Merged { kept: 1 });
    let f = read(&path);
    let e = &f.devices[0];
    assert_eq!(e.routes["a"], bands(&[(8, "x")]));
    assert_eq!(e.routes["b"], bands(&[(16, "")]));
    assert_eq!(e.routes["c"], bands(&[(4, "z")]));
    assert_eq!(e.calibration.as_ref().unwrap().date, "2026-12-01T00:00:00Z");
}

#[test]
fn another_digest_replaces_the_entry_whole_and_keeps_other_devices() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    store::upsert(
        &path,
        &entry(
            "nvidia-h200-sm90",
            132,
            Some(OLD_DIGEST),
            &[("a", &[(8, "x")])],
        ),
    )
    .unwrap();
    store::upsert(
        &path,
        &entry(
            "nvidia-geforce-rtx-3090-sm86",
            82,
            Some(OLD_DIGEST),
            &[("a", &[(8, "x")])],
        ),
    )
    .unwrap();
    let out = store::upsert(
        &path,
        &entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("b", &[(8, "y")])]),
    )
    .unwrap();
    assert_eq!(out.entry, EntryAction::Replaced);
    let f = read(&path);
    assert_eq!(keys(&f, "nvidia-h200-sm90"), vec!["b"]);
    assert_eq!(keys(&f, "nvidia-geforce-rtx-3090-sm86"), vec!["a"]);
    // An entry without a calibration block is replaced whole, too.
    let mut hand = ProfileFile::default();
    hand.devices.push(entry(
        "nvidia-h200-sm90",
        132,
        None,
        &[("hand", &[(1, "x")])],
    ));
    fs::write(&path, format::to_text(&hand)).unwrap();
    let out = store::upsert(
        &path,
        &entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("b", &[(8, "y")])]),
    )
    .unwrap();
    assert_eq!(out.entry, EntryAction::Replaced);
    assert_eq!(keys(&read(&path), "nvidia-h200-sm90"), vec!["b"]);
}

#[test]
fn a_version_1_file_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    fs::write(
        &path,
        r#"{"schema": "ninfer.device-route-profiles", "schema_version": 1, "devices": [{"name": "NVIDIA H200", "routes": {"a": "x"}}]}"#,
    )
    .unwrap();
    let e = entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("b", &[(8, "y")])]);
    let (out, lines) = capture(|| store::upsert(&path, &e).unwrap());
    assert_eq!(out.file, FileAction::ReplacedOlderVersion { version: 1 });
    assert_eq!(read(&path).devices, vec![e]);
    assert!(
        warnings(&lines)
            .iter()
            .any(|w| w.contains("schema_version 1")),
        "{lines:?}"
    );
}

#[test]
fn a_version_3_file_is_refused_and_left_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let original = "{\"schema\": \"ninfer.device-route-profiles\",\n \"schema_version\": 3, \"devices\": [], \"future\": 1}";
    fs::write(&path, original).unwrap();
    let e = entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("b", &[(8, "y")])]);
    let err = store::upsert(&path, &e).unwrap_err();
    assert!(
        matches!(err, StoreError::NewerVersion { version: 3, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("newer build"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), original.as_bytes());
    // Nothing else appears beside it but the lock file.
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|d| d.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, vec!["p.json", "p.json.lock"]);
}

/// What `ninfer-calibrate` checks before it measures: the files `upsert` would refuse are
/// refused, the rest pass, and nothing is written at the path or left beside it.
#[test]
fn preflight_refuses_what_upsert_would_refuse_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("newer.json");
    let original =
        "{\"schema\": \"ninfer.device-route-profiles\", \"schema_version\": 3, \"devices\": []}";
    fs::write(&newer, original).unwrap();
    let err = store::preflight(&newer).unwrap_err();
    assert!(
        matches!(err, StoreError::NewerVersion { version: 3, .. }),
        "{err}"
    );
    assert_eq!(fs::read(&newer).unwrap(), original.as_bytes());

    let a_directory = dir.path().join("sub");
    fs::create_dir(&a_directory).unwrap();
    let err = store::preflight(&a_directory).unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");

    // Storable: missing (in a directory not made yet), current, older version, corrupt.
    let current = dir.path().join("current.json");
    let e = entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("a", &[(8, "x")])]);
    store::upsert(&current, &e).unwrap();
    let older = dir.path().join("older.json");
    fs::write(
        &older,
        "{\"schema\": \"ninfer.device-route-profiles\", \"schema_version\": 1, \"devices\": []}",
    )
    .unwrap();
    let corrupt = dir.path().join("corrupt.json");
    fs::write(&corrupt, "{\"schema\": ").unwrap();
    let missing = dir.path().join("later/ninfer/device-profiles.json");
    let before: Vec<Vec<u8>> = [&current, &older, &corrupt]
        .iter()
        .map(|p| fs::read(p).unwrap())
        .collect();
    for p in [&current, &older, &corrupt, &missing] {
        store::preflight(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }
    let after: Vec<Vec<u8>> = [&current, &older, &corrupt]
        .iter()
        .map(|p| fs::read(p).unwrap())
        .collect();
    assert_eq!(before, after);
    assert!(!missing.exists());
    let leftovers: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .chain(fs::read_dir(dir.path().join("later/ninfer")).unwrap())
        .map(|d| d.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_truncated_file_is_backed_up_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let good = format::to_text(&file(vec![entry(
        "nvidia-h200-sm90",
        132,
        Some(DIGEST),
        &[("a", &[(8, "x")])],
    )]));
    let truncated = &good[..good.len() - 20];
    fs::write(&path, truncated).unwrap();
    let e = entry(
        "nvidia-geforce-rtx-3090-sm86",
        82,
        Some(DIGEST),
        &[("b", &[(8, "y")])],
    );
    let (out, lines) = capture(|| store::upsert(&path, &e).unwrap());
    let FileAction::ReplacedCorrupt { backup, error } = out.file else {
        panic!("{:?}", out.file)
    };
    assert!(error.to_string().starts_with("truncated JSON"), "{error}");
    assert_eq!(fs::read_to_string(&backup).unwrap(), truncated);
    assert!(backup
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with("p.json.corrupt-"));
    assert_eq!(read(&path).devices, vec![e]);
    let w = warnings(&lines);
    assert_eq!(w.len(), 1, "{lines:?}");
    assert!(
        w[0].contains("truncated JSON") && w[0].contains(backup.to_str().unwrap()),
        "{}",
        w[0]
    );
    // A second corrupt file gets a backup of its own.
    fs::write(&path, "garbage").unwrap();
    let out = store::upsert(&path, &entry("c", 1, Some(DIGEST), &[])).unwrap();
    let FileAction::ReplacedCorrupt { backup: second, .. } = out.file else {
        panic!()
    };
    assert_ne!(second, backup);
    assert_eq!(fs::read_to_string(&second).unwrap(), "garbage");
    assert_eq!(fs::read_to_string(&backup).unwrap(), truncated);
}

#[test]
fn refuses_results_that_are_not_measured_or_not_valid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    assert!(matches!(
        store::upsert(&path, &entry("c", 1, None, &[])),
        Err(StoreError::NoCalibration)
    ));
    let bad = entry("c", 1, Some(DIGEST), &[("k", &[(8, "x"), (8, "y")])]);
    assert!(matches!(
        store::upsert(&path, &bad),
        Err(StoreError::InvalidEntry(_))
    ));
    assert!(!path.exists());
}

#[test]
fn writes_leave_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    for i in 0..5 {
        store::upsert(
            &path,
            &entry("c", 1, Some(DIGEST), &[(&format!("k{i}"), &[(8, "x")])]),
        )
        .unwrap();
    }
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|d| d.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, vec!["p.json", "p.json.lock"]);
    assert_eq!(keys(&read(&path), "c").len(), 5);
}

const WORKER_ENV: &str = "NINFER_PROFILE_STORE_WORKER";
const ROUNDS: usize = 40;

/// The worker half of the two-process test: a no-op unless the parent set WORKER_ENV
/// to `path|prefix`.
#[test]
fn store_worker() {
    let Ok(spec) = std::env::var(WORKER_ENV) else {
        return;
    };
    let (path, prefix) = spec.split_once('|').unwrap();
    for i in 0..ROUNDS {
        // Every upsert is a limited run of one key into the same device's entry, plus
        // one into an entry of its own.
        let key = format!("{prefix}/{i:03}");
        store::upsert(
            Path::new(path),
            &entry(
                "nvidia-h200-sm90",
                132,
                Some(DIGEST),
                &[(&key, &[(8, "x")])],
            ),
        )
        .unwrap();
        store::upsert(
            Path::new(path),
            &entry(
                &format!("class-{prefix}"),
                1,
                Some(DIGEST),
                &[(&key, &[(8, "y")])],
            ),
        )
        .unwrap();
    }
}

#[test]
fn two_processes_storing_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["a", "b"]
        .iter()
        .map(|prefix| {
            std::process::Command::new(&exe)
                .args(["--exact", "store_worker", "--test-threads=1", "--nocapture"])
                .env(WORKER_ENV, format!("{}|{prefix}", path.display()))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    // Meanwhile, a reader (no lock) always sees a whole file.
    let mut reads = 0;
    let mut children = children;
    loop {
        match FileState::load(&path) {
            FileState::Missing | FileState::Read(_) => reads += 1,
            other => panic!("a reader saw {other:?}"),
        }
        if children.iter_mut().all(|c| c.try_wait().unwrap().is_some()) {
            break;
        }
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert!(reads > 0);
    let f = read(&path);
    let shared = keys(&f, "nvidia-h200-sm90");
    assert_eq!(shared.len(), 2 * ROUNDS, "{shared:?}");
    assert_eq!(keys(&f, "class-a").len(), ROUNDS);
    assert_eq!(keys(&f, "class-b").len(), ROUNDS);
}

/// A path that cannot be read is never written over: here a directory stands where the
/// file should be (as root, permission bits would not stop the read).
#[test]
fn an_unreadable_path_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    fs::create_dir(&path).unwrap();
    fs::write(path.join("inside"), "keep").unwrap();
    let e = entry("nvidia-h200-sm90", 132, Some(DIGEST), &[("a", &[(8, "x")])]);
    let err = store::upsert(&path, &e).unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
    assert!(path.is_dir());
    assert_eq!(fs::read_to_string(path.join("inside")).unwrap(), "keep");
}
