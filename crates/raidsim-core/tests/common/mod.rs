//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod load_cases;

use raidsim_core::config::{RawConfig, ResolvedConfig};
use std::path::PathBuf;

/// A resolved config from a preset (or defaults when `preset` is empty) and overrides.
pub fn config(preset: &str, overrides: &[&str]) -> ResolvedConfig {
    let mut raw = if preset.is_empty() { RawConfig::new() } else { RawConfig::from_preset(preset).expect("preset") };
    for o in overrides {
        raw.set(o).unwrap_or_else(|e| panic!("{o}: {e}"));
    }
    raw.resolve().unwrap_or_else(|e| panic!("{e}"))
}

/// `../shared/traces`, or `None` (with a note on stderr) when it is absent.
pub fn shared_traces() -> Option<PathBuf> {
    let dir = std::env::var_os("RAIDSIM_SHARED_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: {} not found (the shared traces sit beside the project checkout)", dir.display());
        None
    }
}
