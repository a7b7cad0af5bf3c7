//! The md5x_datafusion Python package's native module: md5x-datafusion's
//! functions as `__datafusion_scalar_udf__` PyCapsules, which
//! datafusion-python's `ScalarUDF.from_pycapsule` (and `udf()`) read.

use datafusion_ffi::udf::FFI_ScalarUDF;
use md5x_datafusion::ffi;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// One of the functions, as datafusion-python takes it.
#[pyclass(module = "md5x_datafusion._native", frozen)]
struct ScalarUdf {
    name: &'static str,
}

#[pymethods]
impl ScalarUdf {
    /// `md5x`, `md5x_binary`, or `md5` (md5x under md5's name).
    #[new]
    fn new(name: &str) -> PyResult<Self> {
        let name = match name {
            "md5x" => "md5x",
            "md5x_binary" => "md5x_binary",
            "md5" => "md5",
            other => {
                return Err(PyValueError::new_err(format!(
                    "no md5x function is named {other:?}: md5x, md5x_binary or md5"
                )))
            }
        };
        Ok(Self { name })
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The capsule: an `FFI_ScalarUDF`, handed out only to a datafusion of
    /// the major this module's datafusion-ffi is (the struct's layout
    /// differs between majors; read by another, it would crash).
    fn __datafusion_scalar_udf__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        check_datafusion(py)?;
        let udf = match self.name {
            "md5x_binary" => md5x_datafusion::md5x_binary_udf(),
            "md5x" => md5x_datafusion::md5x_udf(),
            _ => md5x_datafusion::md5_udf(),
        };
        let exported: FFI_ScalarUDF = ffi::export(udf);
        PyCapsule::new_with_value(py, exported, c"datafusion_scalar_udf")
    }

    fn __repr__(&self) -> String {
        format!("md5x_datafusion.ScalarUdf({:?})", self.name)
    }
}

/// The DataFusion major whose FFI structs this module makes.
fn ffi_major() -> u64 {
    datafusion_ffi::version()
}

/// Refuses a `datafusion` package of another major than [`ffi_major`]
/// with a `RuntimeError` that says which to install.
#[pyfunction]
fn check_datafusion(py: Python<'_>) -> PyResult<()> {
    let version: String = py.import("datafusion")?.getattr("__version__")?.extract()?;
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok());
    if major == Some(ffi_major()) {
        return Ok(());
    }
    let want = ffi_major();
    Err(PyRuntimeError::new_err(format!(
        "md5x_datafusion is built for datafusion {want}.x (its FFI structs change \
         between majors), but this process has datafusion {version}: install \
         datafusion>={want},<{next}, or build md5x_datafusion against datafusion-ffi {major}",
        next = want + 1,
        major = major.map_or_else(|| "of the same major".to_string(), |m| m.to_string()),
    )))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ScalarUdf>()?;
    m.add_function(wrap_pyfunction!(check_datafusion, m)?)?;
    m.add("DATAFUSION_MAJOR", ffi_major())?;
    Ok(())
}
