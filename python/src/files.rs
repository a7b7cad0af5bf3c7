//! `md5x.hash_files`: many files hashed on several threads, each thread
//! filling SIMD lanes, in bounded memory: `md5x::files::hash_files`, its
//! stop flag set by a pending signal.

use crate::interrupt;
use crate::paths::{expect_many, os_error, path_of};
use md5x::files::{self, Control};
use md5x_arrow_import::stop::Stop;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use std::io;
use std::path::PathBuf;

/// The 16-byte MD5 digest of each file of ``paths`` (``str``, ``bytes`` or
/// ``os.PathLike``), in order: the same as
/// ``[hashlib.file_digest(open(p, "rb"), "md5").digest() for p in paths]``,
/// several times faster.
///
/// The files are hashed on ``jobs`` threads (default: the CPUs this
/// process may use; at most 256, and fewer under a low descriptor limit)
/// by ``md5x::files::hash_files``, each
/// hashing many files side by side in SIMD lanes: files of up to 64 KiB read
/// whole and hashed in batches, larger ones read 16 KiB at a time, up to
/// one per lane. Memory stays bounded whatever the files' sizes: about
/// 11 MiB per thread at most. The GIL is released throughout.
///
/// Ctrl-C stops the call within about a second (a FIFO no one writes to,
/// an endless device, large files) with ``KeyboardInterrupt``.
///
/// A file that cannot be read raises the ``OSError`` that ``open`` or
/// ``read`` would (``FileNotFoundError``, ``PermissionError``,
/// ``IsADirectoryError``, ...) with ``filename`` set; if several cannot,
/// the first in ``paths``. ``jobs`` below 1 raises ``ValueError``; one
/// path (``str``, ``bytes`` or ``os.PathLike``) for ``paths`` raises
/// ``TypeError``.
#[pyfunction]
#[pyo3(signature = (paths, /, *, jobs = None))]
fn hash_files<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    jobs: Option<i64>,
) -> PyResult<Bound<'py, PyList>> {
    let jobs = threads(jobs)?;
    expect_many("hash_files", paths)?;
    let mut objects = Vec::new();
    let mut files = Vec::new();
    for (i, obj) in paths.try_iter()?.enumerate() {
        let obj = obj?;
        let path = path_of(&obj).map_err(|e| {
            let msg = format!("path {i}: {}", e.value(py));
            if e.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(msg)
            } else {
                PyValueError::new_err(msg)
            }
        })?;
        files.push(path);
        objects.push(obj);
    }
    let digests = interrupt::run(py, |stop| hash_all(&files, jobs, stop))?;
    match digests {
        Ok(digests) => PyList::new(py, digests.iter().map(|d| PyBytes::new(py, d))),
        Err((i, e)) => Err(os_error(py, e, &objects[i])),
    }
}

/// The digests of `paths`, on up to `jobs` threads, or the first file in
/// `paths` that failed and its error. Gives up at `stop`.
fn hash_all(
    paths: &[PathBuf],
    jobs: usize,
    stop: &Stop,
) -> Result<Vec<[u8; 16]>, (usize, io::Error)> {
    files::hash_files(paths, jobs, Control::new().stop_on(stop.flag()))
        .into_iter()
        .enumerate()
        .map(|(i, r)| r.map_err(|e| (i, e.into_error())))
        .collect()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash_files, m)?)
}

/// The threads a call's ``jobs`` asks for: the CPUs this process may use
/// where it is ``None``; ``ValueError`` below 1.
pub(crate) fn threads(jobs: Option<i64>) -> PyResult<usize> {
    match jobs {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(j) if j >= 1 => Ok(usize::try_from(j).unwrap_or(usize::MAX)),
        Some(j) => Err(PyValueError::new_err(format!(
            "jobs must be at least 1, not {j}"
        ))),
    }
}
