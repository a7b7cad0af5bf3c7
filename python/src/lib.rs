//! `md5x._md5x`, the native module of the `md5x` Python package: the
//! `md5` crate's single-stream hasher, `md5::multi` and `md5::etag` (here
//! through the `md5x` package, the same source) for Python objects.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

use pyo3::prelude::*;

mod arrow;
mod batch;
mod buffer;
mod duckdb;
mod etag;
mod files;
mod hasher;
mod interrupt;
mod paths;

#[pymodule]
fn _md5x(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    hasher::register(m)?;
    batch::register(m)?;
    arrow::register(m)?;
    etag::register(m)?;
    files::register(m)?;
    duckdb::register(m)?;
    Ok(())
}
