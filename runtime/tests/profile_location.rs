//! Where the profile file is, in order, on Unix and Windows.

use ninfer_runtime::profile::location::{resolve_with, Env, PathSource, Platform};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn at(
    platform: Platform,
    explicit: Option<&str>,
    vars: &[(&str, &str)],
    home: Option<&str>,
) -> Result<(PathBuf, PathSource), String> {
    let vars: HashMap<String, OsString> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    let var = move |k: &str| vars.get(k).cloned();
    let home = move || home.map(PathBuf::from);
    resolve_with(
        explicit.map(Path::new),
        &Env {
            platform,
            var: &var,
            home: &home,
        },
    )
}

fn p(s: &str) -> PathBuf {
    PathBuf::from(s)
}

#[test]
fn unix_order() {
    let all = [
        ("NINFER_DEVICE_PROFILES", "/env/p.json"),
        ("XDG_CACHE_HOME", "/xdg"),
    ];
    let u = Platform::Unix;
    assert_eq!(
        at(u, Some("/cli/p.json"), &all, Some("/home/me")),
        Ok((p("/cli/p.json"), PathSource::CommandLine))
    );
    assert_eq!(
        at(u, None, &all, Some("/home/me")),
        Ok((p("/env/p.json"), PathSource::EnvVar))
    );
    assert_eq!(
        at(u, None, &all[1..], Some("/home/me")),
        Ok((
            p("/xdg/ninfer/device-profiles.json"),
            PathSource::XdgCacheHome
        ))
    );
    assert_eq!(
        at(u, None, &[], Some("/home/me")),
        Ok((
            p("/home/me/.cache/ninfer/device-profiles.json"),
            PathSource::HomeCache
        ))
    );
    assert!(at(u, None, &[], None)
        .unwrap_err()
        .contains("--device-profile-path"));
}

#[test]
fn empty_variables_are_unset_and_a_relative_xdg_cache_home_is_ignored() {
    let u = Platform::Unix;
    let vars = [("NINFER_DEVICE_PROFILES", ""), ("XDG_CACHE_HOME", "")];
    assert_eq!(
        at(u, None, &vars, Some("/h")).unwrap().1,
        PathSource::HomeCache
    );
    let vars = [("XDG_CACHE_HOME", "relative/cache")];
    assert_eq!(
        at(u, None, &vars, Some("/h")),
        Ok((
            p("/h/.cache/ninfer/device-profiles.json"),
            PathSource::HomeCache
        ))
    );
}

#[test]
fn windows_uses_local_app_data() {
    let w = Platform::Windows;
    let vars = [
        ("LOCALAPPDATA", r"C:\Users\me\AppData\Local"),
        ("XDG_CACHE_HOME", "/xdg"),
    ];
    let (path, source) = at(w, None, &vars, Some(r"C:\Users\me")).unwrap();
    assert_eq!(source, PathSource::LocalAppData);
    assert_eq!(
        path.to_string_lossy(),
        r"C:\Users\me\AppData\Local\ninfer\device-profiles.json"
    );
    let vars = [
        ("NINFER_DEVICE_PROFILES", r"D:\p.json"),
        ("LOCALAPPDATA", r"C:\L"),
    ];
    assert_eq!(
        at(w, None, &vars, None),
        Ok((p(r"D:\p.json"), PathSource::EnvVar))
    );
    assert_eq!(
        at(w, Some(r"E:\x.json"), &vars, None).unwrap().1,
        PathSource::CommandLine
    );
    assert!(at(w, None, &[], Some(r"C:\Users\me"))
        .unwrap_err()
        .contains("LOCALAPPDATA"));
}
