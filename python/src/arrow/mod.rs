//! `md5x.hash_array`: a placeholder until the Arrow module lands; it
//! registers a `hash_array` that raises, so that `import md5x` works.

use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;

/// hash_array(array, /, output="hex")
/// --
///
/// Not in this build.
#[pyfunction]
#[pyo3(signature = (array, /, output = "hex"))]
fn hash_array(array: &Bound<'_, PyAny>, output: &str) -> PyResult<()> {
    let _ = (array, output);
    Err(PyNotImplementedError::new_err(
        "md5x.hash_array is not in this build",
    ))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash_array, m)?)
}
