//! Paths in and `OSError`s out, as Python's own file functions take and
//! raise them: for `hash_files` and `s3_etag`.

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString};
use std::io;
use std::path::PathBuf;

/// The path `os.fspath(obj)` gives (a `str` or `bytes` path, or an
/// `os.PathLike`), as Rust opens it; `ValueError` for a NUL byte, as
/// Python's `open` raises.
pub(crate) fn path_of(obj: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let py = obj.py();
    static FSPATH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let fspath = FSPATH.import(py, "os", "fspath")?.call1((obj,))?;
    let path: PathBuf = match fspath.cast::<PyBytes>() {
        #[cfg(unix)]
        Ok(bytes) => {
            use std::os::unix::ffi::OsStrExt;
            std::ffi::OsStr::from_bytes(bytes.as_bytes()).into()
        }
        // Elsewhere, bytes paths are decoded as Python decodes them.
        #[cfg(not(unix))]
        Ok(bytes) => py
            .import("os")?
            .getattr("fsdecode")?
            .call1((bytes,))?
            .extract()?,
        Err(_) => fspath.extract()?,
    };
    if path.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(PyValueError::new_err("embedded null byte"));
    }
    Ok(path)
}

/// `TypeError` where `function` got one path (`str`, `bytes` or
/// `os.PathLike`) for its iterable of paths, which would otherwise be read
/// as one path per character (`"/etc/passwd"` as `/`, `e`, ...).
pub(crate) fn expect_many(function: &str, paths: &Bound<'_, PyAny>) -> PyResult<()> {
    let one = paths.is_instance_of::<PyString>()
        || paths.is_instance_of::<PyBytes>()
        || paths.get_type().hasattr("__fspath__")?;
    if !one {
        return Ok(());
    }
    let kind = paths
        .get_type()
        .name()
        .map_or_else(|_| "?".into(), |n| n.to_string());
    Err(PyTypeError::new_err(format!(
        "{function} takes an iterable of paths, not one path ({kind}): pass [path]"
    )))
}

/// The exception Python raises for `err` on the file `filename`: for an
/// OS error, `OSError(errno, strerror, filename)`, which Python makes the
/// subclass of that errno (`FileNotFoundError`, `PermissionError`,
/// `IsADirectoryError`, ...) with `filename` set; `ValueError` for an
/// ETag's part count; else `OSError` with its message and `filename`.
pub(crate) fn os_error(py: Python<'_>, err: io::Error, filename: &Bound<'_, PyAny>) -> PyErr {
    let errno = match (err.raw_os_error(), err.kind()) {
        (Some(code), _) => Some(code),
        (None, io::ErrorKind::IsADirectory) => errno(py, "EISDIR"),
        _ => None,
    };
    if let Some(code) = errno {
        let strerror = py
            .import("os")
            .and_then(|os| os.call_method1("strerror", (code,)))
            .map_or_else(|_| err.to_string(), |s| s.to_string());
        return PyOSError::new_err((code, strerror, filename.clone().unbind()));
    }
    if let Some(parts) = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<md5x::etag::PartsError>())
    {
        return PyValueError::new_err(parts.to_string());
    }
    // No errno: `OSError(None, message, filename)`, which keeps the
    // message in `strerror` and in its text ("[Errno None] message:
    // 'filename'"), where a message alone with `filename` set would show
    // "[Errno None] None".
    PyOSError::new_err((py.None(), err.to_string(), filename.clone().unbind()))
}

/// The value of `errno.<name>` on this platform.
fn errno(py: Python<'_>, name: &str) -> Option<i32> {
    py.import("errno")
        .and_then(|m| m.getattr(name))
        .and_then(|v| v.extract())
        .ok()
}
