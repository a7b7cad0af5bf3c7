//! `md5x.digest_many` and `md5x.hexdigest_many`: an iterable of buffers
//! hashed side by side by `md5::multi`, the GIL released while hashing.
//!
//! The rows are taken a chunk of [`CHUNK_ROWS`] at a time: read (short
//! ones copied into one buffer), hashed with the GIL released, and their
//! digests appended to the result list, before the next chunk is read.
//! A chunk's buffers are reused by the next, and stay in a core's L2 cache:
//! fresh memory for a million rows at once costs more in page faults than
//! the hashing (measured: the README's "Speed" section has the figures).

use crate::buffer::{BufferView, GIL_MINSIZE};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// Rows per chunk: many times the widest kernel's lanes (64), so that a
/// chunk's last, partly filled set of lanes costs little; few enough that a
/// chunk's buffers (about 1.5 MiB with rows of up to [`COPY_MAX`] bytes)
/// stay in L2.
const CHUNK_ROWS: usize = 16 << 10;

/// Rows of up to this many bytes are copied, as they are read, into one
/// buffer that the hashing reads in order; longer ones are read in place.
/// A short row's copy costs less than keeping a reference to it (taken
/// and dropped a row at a time, each a cache miss on a million objects).
const COPY_MAX: usize = 64;

/// Where a row's bytes are.
enum Piece {
    /// In [`Chunk::copied`], from `start`, `len` bytes.
    Copied { start: usize, len: usize },
    /// In place, in an object that [`Chunk`] keeps alive (`bytes`, or a
    /// buffer view): a pointer and length, as no slice may borrow a `Vec`
    /// that is still growing.
    InPlace { ptr: *const u8, len: usize },
}

/// A chunk of rows, what keeps them readable, and their digests.
struct Chunk<'py> {
    pieces: Vec<Piece>,
    copied: Vec<u8>,
    /// The long `bytes` rows, read straight from the object (immutable, so
    /// a reference keeps its bytes as they are).
    bytes: Vec<Bound<'py, PyBytes>>,
    /// The other long rows, through a buffer view.
    views: Vec<BufferView>,
    /// Bytes in the chunk's rows.
    total: usize,
    digests: Vec<[u8; 16]>,
}

impl<'py> Chunk<'py> {
    fn new() -> Self {
        Self {
            pieces: Vec::new(),
            copied: Vec::new(),
            bytes: Vec::new(),
            views: Vec::new(),
            total: 0,
            digests: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Reads row `index`: `TypeError` naming it if it is not a buffer.
    fn push(&mut self, index: usize, row: Bound<'py, PyAny>) -> PyResult<()> {
        // Exactly `bytes`: a subclass may export other bytes (`__buffer__`).
        if row.is_exact_instance_of::<PyBytes>() {
            let row = row.cast_into::<PyBytes>().map_err(PyErr::from)?;
            let bytes = row.as_bytes();
            if !self.copy(bytes) {
                self.in_place(bytes);
                self.bytes.push(row);
            }
        } else {
            let view = BufferView::get(&row).map_err(|e| name_row(row.py(), index, e))?;
            let bytes = view.as_slice();
            if !self.copy(bytes) {
                self.in_place(bytes);
                self.views.push(view);
            }
        }
        Ok(())
    }

    /// Copies a short row; false for a long one.
    fn copy(&mut self, bytes: &[u8]) -> bool {
        if bytes.len() > COPY_MAX {
            return false;
        }
        self.pieces.push(Piece::Copied {
            start: self.copied.len(),
            len: bytes.len(),
        });
        self.copied.extend_from_slice(bytes);
        self.total += bytes.len();
        true
    }

    /// Records a long row read in place; the caller keeps its owner.
    fn in_place(&mut self, bytes: &[u8]) {
        self.pieces.push(Piece::InPlace {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
        });
        self.total = self.total.saturating_add(bytes.len());
    }

    /// Hashes the chunk's rows into `self.digests`, with the GIL released
    /// when there is enough work to pay for it, and lets the rows go.
    fn hash(&mut self, py: Python<'_>) {
        let slices: Vec<&[u8]> = self
            .pieces
            .iter()
            .map(|piece| match *piece {
                Piece::Copied { start, len } => &self.copied[start..start + len],
                // SAFETY: `ptr` and `len` come from a slice of a `bytes`
                // object or a buffer view that `self` holds (`push` keeps
                // it in `self.bytes` or `self.views` until the `clear`
                // below, after the last use of `slices`), whose bytes stay
                // in place and unchanged while it is held: `bytes` is
                // immutable, and an exporter keeps a viewed buffer as it
                // is until the view is released.
                Piece::InPlace { ptr, len } => unsafe { std::slice::from_raw_parts(ptr, len) },
            })
            .collect();
        self.digests.clear();
        self.digests.resize(slices.len(), [0; 16]);
        // Each row is at least one block with its padding.
        let work = self.total.saturating_add(64 * slices.len());
        if work >= GIL_MINSIZE {
            py.detach(|| md5x::multi::digest_many_into(&slices, &mut self.digests));
        } else {
            md5x::multi::digest_many_into(&slices, &mut self.digests);
        }
        drop(slices);
        self.pieces.clear();
        self.copied.clear();
        self.bytes.clear();
        self.views.clear();
        self.total = 0;
    }
}

/// Names the row in `err`: our own `TypeError`s get it at the front of
/// their message ("row 3: ..."), an exporter's error gets it as a note.
fn name_row(py: Python<'_>, index: usize, err: PyErr) -> PyErr {
    if err.get_type(py).is(py.get_type::<PyTypeError>()) {
        return PyTypeError::new_err(format!("row {index}: {}", err.value(py)));
    }
    // Notes are extra; if adding one fails, the error itself still stands.
    let _ = err
        .value(py)
        .call_method1("add_note", (format!("in row {index}"),));
    err
}

/// Hashes the rows of `iterable` a chunk at a time, handing each chunk's
/// digests, in order, to `emit`.
fn for_each_chunk<'py>(
    py: Python<'py>,
    iterable: &Bound<'py, PyAny>,
    mut emit: impl FnMut(&[[u8; 16]]) -> PyResult<()>,
) -> PyResult<()> {
    let mut chunk = Chunk::new();
    for (i, row) in iterable.try_iter()?.enumerate() {
        chunk.push(i, row?)?;
        if chunk.len() == CHUNK_ROWS {
            chunk.hash(py);
            emit(&chunk.digests)?;
        }
    }
    if chunk.len() > 0 {
        chunk.hash(py);
        emit(&chunk.digests)?;
    }
    Ok(())
}

/// The 16-byte MD5 digest of each row of ``rows``, in order: the same as
/// ``[hashlib.md5(r).digest() for r in rows]``, many times faster.
///
/// ``rows`` is any iterable of C-contiguous buffers (``bytes``,
/// ``bytearray``, ``memoryview``, numpy arrays, ...), read in place; the
/// rows are hashed side by side in SIMD lanes with the GIL released. A
/// row that is not a buffer raises ``TypeError`` naming its index.
#[pyfunction]
#[pyo3(signature = (rows, /))]
fn digest_many<'py>(py: Python<'py>, rows: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for_each_chunk(py, rows, |digests| {
        digests
            .iter()
            .try_for_each(|d| list.append(PyBytes::new(py, d)))
    })?;
    Ok(list)
}

/// ``digest_many(rows)`` as lowercase hex strings of 32 digits: the same
/// as ``[hashlib.md5(r).hexdigest() for r in rows]``.
#[pyfunction]
#[pyo3(signature = (rows, /))]
fn hexdigest_many<'py>(py: Python<'py>, rows: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    let mut hex = Vec::new();
    for_each_chunk(py, rows, |digests| {
        hex.clear();
        hex.resize(digests.len(), [0u8; 32]);
        md5x::multi::hex_into(digests, &mut hex);
        hex.iter().try_for_each(|h| {
            // `hex_into` writes ASCII hex digits only.
            list.append(PyString::new(
                py,
                std::str::from_utf8(h).unwrap_or_default(),
            ))
        })
    })?;
    Ok(list)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(digest_many, m)?)?;
    m.add_function(wrap_pyfunction!(hexdigest_many, m)?)?;
    Ok(())
}
