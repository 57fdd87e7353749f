//! Where the profile file is: `--device-profile-path`, else `$NINFER_DEVICE_PROFILES`,
//! else `$XDG_CACHE_HOME/ninfer/device-profiles.json`, else
//! `~/.cache/ninfer/device-profiles.json`; on Windows `%LOCALAPPDATA%\ninfer\device-profiles.json`
//! in place of the last two. Empty variables count as unset, and a relative
//! `XDG_CACHE_HOME` is ignored (the XDG rule).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "device-profiles.json";
/// The search order in one line, for `--help` of every option that takes the file.
pub const SEARCH_ORDER: &str = "default: $NINFER_DEVICE_PROFILES, then $XDG_CACHE_HOME/ninfer/device-profiles.json, then ~/.cache/ninfer/device-profiles.json (%LOCALAPPDATA%\\ninfer\\device-profiles.json on Windows)";
pub const ENV_PATH: &str = "NINFER_DEVICE_PROFILES";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Unix,
    Windows,
}

impl Platform {
    pub fn current() -> Platform {
        if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }
}

/// Which rule chose the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSource {
    CommandLine,
    EnvVar,
    XdgCacheHome,
    HomeCache,
    LocalAppData,
}

impl fmt::Display for PathSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathSource::CommandLine => "--device-profile-path",
            PathSource::EnvVar => "$NINFER_DEVICE_PROFILES",
            PathSource::XdgCacheHome => "$XDG_CACHE_HOME",
            PathSource::HomeCache => "~/.cache",
            PathSource::LocalAppData => "%LOCALAPPDATA%",
        })
    }
}

/// What path resolution reads from the process: injectable for tests.
pub struct Env<'a> {
    pub platform: Platform,
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
    pub home: &'a dyn Fn() -> Option<PathBuf>,
}

fn nonempty(v: Option<OsString>) -> Option<OsString> {
    v.filter(|s| !s.is_empty())
}

/// Joins with the platform's separator (so Windows rules are testable anywhere).
fn join(base: &Path, parts: &[&str], platform: Platform) -> PathBuf {
    match platform {
        Platform::Unix => parts
            .iter()
            .fold(base.to_path_buf(), |p, part| p.join(part)),
        Platform::Windows if cfg!(windows) => parts
            .iter()
            .fold(base.to_path_buf(), |p, part| p.join(part)),
        Platform::Windows => {
            let mut s = base
                .to_string_lossy()
                .trim_end_matches(['\\', '/'])
                .to_string();
            for part in parts {
                s.push('\\');
                s.push_str(part);
            }
            PathBuf::from(s)
        }
    }
}

pub fn resolve_with(explicit: Option<&Path>, env: &Env) -> Result<(PathBuf, PathSource), String> {
    if let Some(p) = explicit {
        return Ok((p.to_path_buf(), PathSource::CommandLine));
    }
    if let Some(p) = nonempty((env.var)(ENV_PATH)) {
        return Ok((PathBuf::from(p), PathSource::EnvVar));
    }
    match env.platform {
        Platform::Windows => {
            if let Some(base) = nonempty((env.var)("LOCALAPPDATA")) {
                return Ok((
                    join(Path::new(&base), &["ninfer", FILE_NAME], Platform::Windows),
                    PathSource::LocalAppData,
                ));
            }
            Err(format!("no profile path: neither {ENV_PATH} nor LOCALAPPDATA is set; pass --device-profile-path"))
        }
        Platform::Unix => {
            if let Some(base) = nonempty((env.var)("XDG_CACHE_HOME")) {
                if Path::new(&base).is_absolute() {
                    return Ok((
                        join(Path::new(&base), &["ninfer", FILE_NAME], Platform::Unix),
                        PathSource::XdgCacheHome,
                    ));
                }
            }
            if let Some(home) = (env.home)().filter(|h| !h.as_os_str().is_empty()) {
                return Ok((
                    join(&home, &[".cache", "ninfer", FILE_NAME], Platform::Unix),
                    PathSource::HomeCache,
                ));
            }
            Err(format!("no profile path: {ENV_PATH}, XDG_CACHE_HOME and the home directory are all unknown; pass --device-profile-path"))
        }
    }
}

/// The profile file's path for this process.
pub fn resolve(explicit: Option<&Path>) -> Result<(PathBuf, PathSource), String> {
    let var = |k: &str| std::env::var_os(k);
    let home = dirs::home_dir;
    resolve_with(
        explicit,
        &Env {
            platform: Platform::current(),
            var: &var,
            home: &home,
        },
    )
}
