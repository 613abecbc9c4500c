//! Says, visibly, when the shared traces are absent: the tests that need
//! them then skip (`cargo test` shows a test's own output only on failure).

fn main() {
    let dir = std::env::var_os("RAIDSIM_SHARED_TRACES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../../../shared/traces"));
    println!("cargo:rerun-if-env-changed=RAIDSIM_SHARED_TRACES");
    println!("cargo:rerun-if-changed={}", dir.display());
    if !dir.is_dir() {
        println!("cargo:warning=shared traces not found at {}: the tests that replay them (tests/shared_traces.rs) will skip", dir.display());
    }
}
