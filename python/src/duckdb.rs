//! What `md5x.duckdb` needs to load this module into DuckDB as its
//! extension: the module exports `md5x_init_c_api` (the `md5x-duckdb`
//! crate, linked in), and this gives the metadata footer DuckDB reads from
//! the end of an extension file.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The 512-byte metadata footer that makes a copy of this module a DuckDB
/// extension file for DuckDB's ``platform`` (its ``PRAGMA platform``).
#[pyfunction]
fn duckdb_extension_footer<'py>(py: Python<'py>, platform: &str) -> PyResult<Bound<'py, PyBytes>> {
    let footer =
        md5x_duckdb::footer::footer(platform).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &footer))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(duckdb_extension_footer, m)?)
}
