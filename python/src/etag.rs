//! `md5x.s3_etag`: the ETag S3 gives a file or buffer uploaded by the AWS
//! CLI's rule, through `md5::etag`, the GIL released.

use crate::buffer::{BufferView, GIL_MINSIZE};
use crate::interrupt;
use crate::paths::{os_error, path_of};
use md5x::etag::{Etag, PartsError, UploadRule};
use md5x::files::{self, Control};
use md5x_arrow_import::stop::Stop;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::io;
use std::path::Path;

/// The AWS CLI's and boto3's default part size (and multipart threshold).
const DEFAULT_PART_SIZE: i64 = 8 << 20;

/// The ETag S3 shows for ``source`` uploaded by the AWS CLI (and boto3)
/// with ``multipart_chunksize = part_size`` and ``multipart_threshold =
/// threshold`` (``part_size`` if ``None``), without the double quotes S3
/// puts around it: for data shorter than the threshold, uploaded whole, its
/// plain MD5 in hex; otherwise the multipart ETag ``"<hex>-<N>"``, the MD5
/// of the parts' MD5s and the part count (the rule ``md5sum --etag``
/// follows). The part size is doubled until the data fits in 10,000 parts,
/// as the CLI doubles it.
///
/// ``source`` is a path (``str`` or ``os.PathLike``) of a file to read, or
/// a buffer (``bytes``, ``bytearray``, ``memoryview``, ...) to hash; a
/// ``bytes`` object is data, not a path. A file's parts are read side by
/// side and hashed in SIMD lanes on every core, in a few hundred KiB of
/// memory whatever its size; the GIL is released throughout.
///
/// Ctrl-C stops a file's read within about a second (a FIFO no one writes
/// to, an endless device, a large file) with ``KeyboardInterrupt``.
///
/// Raises ``ValueError`` if ``part_size`` is not positive, ``threshold``
/// is negative, or the data does not fit in 10,000 parts (of 5 GiB; a
/// stream, which is not doubled, of ``part_size``), and ``OSError``
/// (``FileNotFoundError``, ...) with ``filename`` set if the file cannot be
/// read.
#[pyfunction]
#[pyo3(
    signature = (source, /, part_size = DEFAULT_PART_SIZE, *, threshold = None),
    text_signature = "(source, /, part_size=8388608, *, threshold=None)"
)]
fn s3_etag(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    part_size: i64,
    threshold: Option<i64>,
) -> PyResult<String> {
    let part_size = u64::try_from(part_size)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| {
            PyValueError::new_err(format!("part_size must be positive, not {part_size}"))
        })?;
    let threshold = match threshold {
        None => part_size,
        Some(t) => u64::try_from(t)
            .map_err(|_| PyValueError::new_err(format!("threshold must be 0 or more, not {t}")))?,
    };
    let rule = UploadRule::new(part_size)
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .with_threshold(threshold);
    if is_path(source)? {
        let path = path_of(source)?;
        let etag = interrupt::run(py, |stop| file_etag(&path, rule, stop))?;
        return Ok(etag.map_err(|e| os_error(py, e, source))?.to_string());
    }
    let view = BufferView::get(source).map_err(|_| {
        let kind = source
            .get_type()
            .name()
            .map_or_else(|_| "?".into(), |n| n.to_string());
        PyTypeError::new_err(format!(
            "s3_etag: source must be a path (str or os.PathLike) or a buffer, not {kind}"
        ))
    })?;
    let data = view.as_slice();
    let etag = if data.len() >= GIL_MINSIZE {
        py.detach(|| buffer_etag(data, rule))
    } else {
        buffer_etag(data, rule)
    };
    Ok(etag
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .to_string())
}

/// Whether `source` names a file: a `str` or an `os.PathLike`. `bytes`,
/// which `os.fspath` also takes, is data here.
fn is_path(source: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(source.is_instance_of::<PyString>() || source.get_type().hasattr("__fspath__")?)
}

/// The AWS CLI's ETag of `data`.
fn buffer_etag(data: &[u8], rule: UploadRule) -> Result<Etag, PartsError> {
    rule.upload(data)
}

/// The AWS CLI's ETag of the file at `path` (`md5x::files::etag_files_with`): a
/// regular file of a part or more by its parts side by side on every core,
/// anything else read in order (a pipe, a device, a file whose size the
/// kernel does not know, as procfs and sysfs report 0). Gives up at
/// `stop`.
fn file_etag(path: &Path, rule: UploadRule, stop: &Stop) -> io::Result<Etag> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let control = Control::new().stop_on(stop.flag());
    let mut etags = files::etag_files_with(&[path], rule, threads, control);
    let etag = etags.pop().expect("an ETag per file");
    etag.map_err(files::FileError::into_error)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(s3_etag, m)?)
}
