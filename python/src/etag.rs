//! `md5x.s3_etag`: the ETag S3 gives a file or buffer uploaded by the AWS
//! CLI's rule, through `md5::etag`, the GIL released.

use crate::buffer::{BufferView, GIL_MINSIZE};
use crate::interrupt;
use crate::paths::{os_error, path_of};
use crate::reading::{self, read_some};
use crate::stop::Stop;
use md5x::etag::{self, Etag, EtagHasher, PartsError};
use md5x::{Digest, Md5};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::fs::File;
use std::io;
use std::path::Path;

/// The AWS CLI's and boto3's default part size (and multipart threshold).
const DEFAULT_PART_SIZE: i64 = 8 << 20;

/// Bytes read a call where a file is read in order.
const READ: usize = 256 << 10;

/// The ETag S3 shows for ``source`` uploaded by the AWS CLI (and boto3)
/// with parts of ``part_size`` bytes, without the double quotes S3 puts
/// around it: for data shorter than one part, uploaded whole, its plain MD5
/// in hex; otherwise the multipart ETag ``"<hex>-<N>"``, the MD5 of the
/// parts' MD5s and the part count (the rule ``md5sum --etag`` follows).
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
/// Raises ``ValueError`` if ``part_size`` is not positive or the data
/// makes more than 10,000 parts (S3's limit), and ``OSError``
/// (``FileNotFoundError``, ...) with ``filename`` set if the file cannot be
/// read.
#[pyfunction]
#[pyo3(
    signature = (source, /, part_size = DEFAULT_PART_SIZE),
    text_signature = "(source, /, part_size=8388608)"
)]
fn s3_etag(py: Python<'_>, source: &Bound<'_, PyAny>, part_size: i64) -> PyResult<String> {
    let part_size = u64::try_from(part_size)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| {
            PyValueError::new_err(format!("part_size must be positive, not {part_size}"))
        })?;
    if is_path(source)? {
        let path = path_of(source)?;
        let etag = interrupt::run(py, |stop| file_etag(&path, part_size, stop))?;
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
        py.detach(|| buffer_etag(data, part_size))
    } else {
        buffer_etag(data, part_size)
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
fn buffer_etag(data: &[u8], part_size: u64) -> Result<Etag, PartsError> {
    match usize::try_from(part_size) {
        Ok(part) if data.len() >= part => etag::multipart(data, part),
        _ => Ok(Etag::from_md5(Md5::digest(data).into())),
    }
}

/// The AWS CLI's ETag of the file at `path`: a regular file of a part or
/// more by `md5::etag::multipart_file` (parts side by side, every core),
/// a shorter one by one MD5, anything else (a pipe, a device, a file whose
/// size the kernel does not know, as procfs and sysfs report 0) read in
/// order. Gives up at `stop`.
fn file_etag(path: &Path, part_size: u64, stop: &Stop) -> io::Result<Etag> {
    let file = reading::open(path, stop)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::ErrorKind::IsADirectory.into());
    }
    if !meta.is_file() || meta.len() == 0 {
        return stream_etag(file, part_size, stop);
    }
    if meta.len() >= part_size {
        return reading::cut_short(&file, stop, |file| etag::multipart_file(file, part_size));
    }
    let mut md5 = Md5::new();
    let mut seen = 0u64;
    for_each_read(file, stop, |data| {
        seen += data.len() as u64;
        if seen >= part_size {
            // It was shorter than a part when the call started.
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the file grew while being read",
            ));
        }
        md5.update(data);
        Ok(())
    })?;
    Ok(Etag::from_md5(md5.finalize().into()))
}

/// The AWS CLI's ETag of data whose length is known only at its end: its
/// first part is also hashed whole, for the case that it is the only one
/// and shorter than a part.
fn stream_etag(src: File, part_size: u64, stop: &Stop) -> io::Result<Etag> {
    let mut whole = Md5::new();
    let mut seen = 0u64;
    let mut parts = EtagHasher::new(part_size).map_err(parts_error)?;
    for_each_read(src, stop, |data| {
        if seen < part_size {
            let head = usize::try_from(part_size - seen).map_or(data.len(), |k| k.min(data.len()));
            whole.update(&data[..head]);
        }
        seen += data.len() as u64;
        parts.update(data).map_err(parts_error)
    })?;
    if seen < part_size {
        Ok(Etag::from_md5(whole.finalize().into()))
    } else {
        parts.finish().map_err(parts_error)
    }
}

/// A `PartsError` as `md5::etag::multipart_file` reports one, which
/// `os_error` turns into `ValueError`.
fn parts_error(e: PartsError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, e)
}

/// Feeds all of `src` to `each`, a read at a time, giving up at `stop`.
fn for_each_read(
    mut src: File,
    stop: &Stop,
    mut each: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = vec![0u8; READ];
    loop {
        reading::check(stop)?;
        match read_some(&mut src, &mut buf, stop)? {
            0 => return Ok(()),
            n => each(&buf[..n])?,
        }
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(s3_etag, m)?)
}
