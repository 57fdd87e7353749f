//! Storing a calibration result in the profile file.
//!
//! - Upsert: the entry of the same hardware class and SM count keeps its other keys
//!   when it was measured against the same route catalog (a limited run replaces only
//!   the keys it measured); otherwise the result replaces the entry whole.
//! - Concurrency: an exclusive `fs4` lock on a sidecar file (`<file>.lock`, never
//!   deleted: the data file itself is replaced by rename, so locking it would lock a
//!   stale inode), and the file is re-read inside the lock, so nothing another
//!   process stored is lost.
//! - Atomicity: the new text goes to a temporary file in the same directory, is
//!   synced, then renamed over the file; readers (which take no lock) see the old
//!   file or the new one, never a mix.
//! - A corrupt or truncated file is reported, copied to `<file>.corrupt-<secs>`
//!   first, and only then replaced. A file of an older schema version is replaced
//!   whole; a newer one is refused and left byte-identical.

use super::format::{self, Entry, FileState, ParseError, ProfileFile, SCHEMA_VERSION};
use fs4::fs_std::FileExt;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What happened to the device's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryAction {
    /// The file had no entry for this class and SM count.
    Added,
    /// Same route catalog: the measured keys replaced, `kept` other keys kept.
    Merged { kept: usize },
    /// Another route catalog, or no calibration block: replaced whole.
    Replaced,
}

/// What happened to the file as a whole, besides the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileAction {
    Created,
    Updated,
    /// A file of an older schema version, replaced whole.
    ReplacedOlderVersion {
        version: u64,
    },
    /// A corrupt file, kept at `backup` and replaced.
    ReplacedCorrupt {
        backup: PathBuf,
        error: ParseError,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOutcome {
    pub entry: EntryAction,
    pub file: FileAction,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: schema_version {version} was written by a newer build; this build does not modify it (move it away or use a newer ninfer)")]
    NewerVersion { path: PathBuf, version: u64 },
    #[error("the calibration result has no calibration block; only measured entries are stored")]
    NoCalibration,
    #[error("the calibration result is invalid: {0}")]
    InvalidEntry(ParseError),
    #[error("{path}: {what}: {source}")]
    Io {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
}

fn io(path: &Path, what: &'static str) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io { path, what, source }
}

/// The sidecar lock file of `path`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".lock");
    path.with_file_name(name)
}

/// Holds the exclusive lock on `path`'s sidecar until dropped.
pub struct FileLock {
    file: File,
}

impl FileLock {
    pub fn acquire(path: &Path) -> Result<FileLock, StoreError> {
        let lp = lock_path(path);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&lp)
            .map_err(io(&lp, "cannot open the lock file"))?;
        FileExt::lock_exclusive(&file).map_err(io(&lp, "cannot lock"))?;
        Ok(FileLock { file })
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.file);
    }
}

/// Merges `result` into `file` (see the module's rules).
pub fn merge_entry(file: &mut ProfileFile, result: &Entry) -> EntryAction {
    let existing = file.devices.iter_mut().find(|e| {
        e.hardware_class == result.hardware_class && e.multiprocessors == result.multiprocessors
    });
    match existing {
        None => {
            file.devices.push(result.clone());
            EntryAction::Added
        }
        Some(e) => {
            let same_catalog = match (&e.calibration, &result.calibration) {
                (Some(a), Some(b)) => a.route_catalog == b.route_catalog,
                _ => false,
            };
            if same_catalog {
                let kept = e
                    .routes
                    .keys()
                    .filter(|k| !result.routes.contains_key(*k))
                    .count();
                for (k, bands) in &result.routes {
                    e.routes.insert(k.clone(), bands.clone());
                }
                e.calibration = result.calibration.clone();
                e.origin = result.origin.clone();
                for (k, v) in &result.extra {
                    e.extra.insert(k.clone(), v.clone());
                }
                EntryAction::Merged { kept }
            } else {
                *e = result.clone();
                EntryAction::Replaced
            }
        }
    }
}

fn backup_path(path: &Path) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut n = 0;
    loop {
        let name = if n == 0 {
            format!("{base}.corrupt-{secs}")
        } else {
            format!("{base}.corrupt-{secs}-{n}")
        };
        let candidate = path.with_file_name(name);
        if !candidate.exists() {
            return candidate;
        }
        n += 1;
    }
}

/// Writes `text` to `path` atomically: a synced temporary file in the same
/// directory, renamed over `path`.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io(dir, "cannot create a temporary file"))?;
    tmp.write_all(text.as_bytes())
        .map_err(io(tmp.path(), "cannot write"))?;
    tmp.as_file().sync_all().map_err(io(path, "cannot sync"))?;
    tmp.persist(path).map_err(|e| StoreError::Io {
        path: path.to_path_buf(),
        what: "cannot replace",
        source: e.error,
    })?;
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Whether a calibration result could be stored at `path`, checked before measuring so
/// that a refusal costs no GPU time: a file of a newer schema version or one that cannot
/// be read is refused as [`upsert`] would refuse it, and the directory must take a new
/// file (it is created if missing). Writes nothing at `path` itself.
pub fn preflight(path: &Path) -> Result<(), StoreError> {
    match FileState::load(path) {
        FileState::OtherVersion { version } if version > SCHEMA_VERSION => {
            return Err(StoreError::NewerVersion {
                path: path.to_path_buf(),
                version,
            })
        }
        FileState::Unreadable { error } => {
            return Err(StoreError::Io {
                path: path.to_path_buf(),
                what: "cannot read",
                source: std::io::Error::other(error),
            })
        }
        _ => {}
    }
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => {
            fs::create_dir_all(d).map_err(io(d, "cannot create the directory"))?;
            d
        }
        None => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".ninfer-preflight.")
        .tempfile_in(dir)
        .map_err(io(dir, "cannot create a file in the directory"))?;
    Ok(())
}

/// Stores a calibration result for its device (see the module's rules).
pub fn upsert(path: &Path, result: &Entry) -> Result<StoreOutcome, StoreError> {
    if result.calibration.is_none() {
        return Err(StoreError::NoCalibration);
    }
    format::validate_entry(result).map_err(StoreError::InvalidEntry)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(io(dir, "cannot create the directory"))?;
    }
    let _lock = FileLock::acquire(path)?;
    // Read inside the lock: whatever another process stored before us is kept.
    let (mut file, file_action) = match FileState::load(path) {
        FileState::Missing => (ProfileFile::default(), FileAction::Created),
        FileState::Read(f) => (f, FileAction::Updated),
        FileState::OtherVersion { version } if version > SCHEMA_VERSION => {
            return Err(StoreError::NewerVersion {
                path: path.to_path_buf(),
                version,
            })
        }
        FileState::OtherVersion { version } => {
            tracing::warn!(
                "device profile file {} has schema_version {version} (another build's); replacing it whole with schema_version {SCHEMA_VERSION}",
                path.display()
            );
            (
                ProfileFile::default(),
                FileAction::ReplacedOlderVersion { version },
            )
        }
        FileState::Corrupt { error } => {
            let backup = backup_path(path);
            fs::copy(path, &backup)
                .map_err(io(&backup, "cannot back up the corrupt profile file"))?;
            tracing::warn!(
                "device profile file {} is corrupt ({error}); kept it as {} and writing a new file",
                path.display(),
                backup.display()
            );
            (
                ProfileFile::default(),
                FileAction::ReplacedCorrupt { backup, error },
            )
        }
        FileState::Unreadable { error } => {
            return Err(StoreError::Io {
                path: path.to_path_buf(),
                what: "cannot read",
                source: std::io::Error::other(error),
            })
        }
    };
    let entry = merge_entry(&mut file, result);
    write_atomic(path, &format::to_text(&file))?;
    Ok(StoreOutcome {
        entry,
        file: file_action,
    })
}
