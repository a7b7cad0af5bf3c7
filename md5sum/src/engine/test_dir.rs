//! Test builds: a fresh directory per test, named after it and this
//! process.

use std::path::PathBuf;

/// An empty directory for the test `tag`.
pub fn temp_dir(tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("md5sum-engine-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    p
}
