//! `md5x.digest_many` and `md5x.hexdigest_many`: an iterable of buffers
//! hashed side by side by `md5::multi`, the GIL released while hashing.
//!
//! The rows are taken a chunk of [`CHUNK_ROWS`] at a time: read (short
//! ones copied into one buffer), hashed, and their digests appended to the
//! result list. A chunk's buffers are reused by the chunk after the next,
//! and stay in a core's L2 cache: fresh memory for a million rows at once
//! cost more in page faults than the hashing. From the second chunk on, a
//! thread hashes each chunk while the calling thread, under the GIL, reads
//! the next and makes the result's objects for the one before (the
//! README's "Speed" section has the figures).

use crate::buffer::{BufferView, GIL_MINSIZE};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use std::sync::mpsc;

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
    /// In [`Job::copied`], from `start`, `len` bytes.
    Copied { start: usize, len: usize },
    /// In place, in an object that [`Owners`] keeps alive (`bytes`, or a
    /// buffer view): a pointer and length, as no slice may borrow a `Vec`
    /// that is still growing.
    InPlace { ptr: *const u8, len: usize },
}

/// A chunk's rows as the hashing reads them, and their digests: what the
/// hashing thread is handed. The objects that hold the in-place rows'
/// bytes stay behind, in the [`Owners`] the chunk was read with.
struct Job {
    pieces: Vec<Piece>,
    copied: Vec<u8>,
    /// Bytes in the chunk's rows.
    total: usize,
    digests: Vec<[u8; 16]>,
}

// SAFETY: a `Job` is plain data but for the pointers of its in-place
// pieces, shared borrows of bytes that nothing writes while the `Owners`
// the job was read with holds them: `for_each_chunk` keeps those owners
// alive (and on the calling thread) until the job is back or the hashing
// thread has been joined, whichever thread hashes it.
unsafe impl Send for Job {}

impl Job {
    fn new() -> Self {
        Self {
            pieces: Vec::new(),
            copied: Vec::new(),
            total: 0,
            digests: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.pieces.len()
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

    /// Each row is at least one block with its padding.
    fn work(&self) -> usize {
        self.total.saturating_add(64 * self.len())
    }

    /// Hashes the rows into `self.digests`.
    fn hash(&mut self) {
        let slices: Vec<&[u8]> = self
            .pieces
            .iter()
            .map(|piece| match *piece {
                Piece::Copied { start, len } => &self.copied[start..start + len],
                // SAFETY: `ptr` and `len` come from a slice of a `bytes`
                // object or a buffer view held by the `Owners` this job
                // was read with, which outlive its hashing (see `Send`):
                // `bytes` is immutable, and an exporter keeps a viewed
                // buffer as it is until the view is released.
                Piece::InPlace { ptr, len } => unsafe { std::slice::from_raw_parts(ptr, len) },
            })
            .collect();
        self.digests.clear();
        self.digests.resize(slices.len(), [0; 16]);
        md5x::multi::digest_many_into(&slices, &mut self.digests);
    }

    fn clear(&mut self) {
        self.pieces.clear();
        self.copied.clear();
        self.total = 0;
    }
}

/// What keeps a chunk's in-place rows readable.
struct Owners<'py> {
    /// The long `bytes` rows (immutable, so a reference keeps their bytes
    /// as they are).
    bytes: Vec<Bound<'py, PyBytes>>,
    /// The other long rows, through a buffer view.
    views: Vec<BufferView>,
}

impl<'py> Owners<'py> {
    fn new() -> Self {
        Self {
            bytes: Vec::new(),
            views: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.views.clear();
    }
}

/// Reads row `index` into `job`, keeping its owner in `owners` if it is
/// read in place: `TypeError` naming the row if it is not a buffer.
fn push<'py>(
    job: &mut Job,
    owners: &mut Owners<'py>,
    index: usize,
    row: Bound<'py, PyAny>,
) -> PyResult<()> {
    // Exactly `bytes`: a subclass may export other bytes (`__buffer__`).
    if row.is_exact_instance_of::<PyBytes>() {
        let row = row.cast_into::<PyBytes>().map_err(PyErr::from)?;
        let bytes = row.as_bytes();
        if !job.copy(bytes) {
            job.in_place(bytes);
            owners.bytes.push(row);
        }
    } else {
        let view = BufferView::get(&row).map_err(|e| name_row(row.py(), index, e))?;
        let bytes = view.as_slice();
        if !job.copy(bytes) {
            job.in_place(bytes);
            owners.views.push(view);
        }
    }
    Ok(())
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
///
/// One chunk is hashed here, with the GIL released. From two on, a thread
/// hashes each chunk while this one, which needs the GIL for it, reads the
/// next chunk and emits the one before: reading rows and making the
/// result's objects take longer than hashing short rows, and now hide it.
/// This thread waits for the hashing with the GIL released.
fn for_each_chunk<'py>(
    py: Python<'py>,
    iterable: &Bound<'py, PyAny>,
    mut emit: impl FnMut(&[[u8; 16]]) -> PyResult<()>,
) -> PyResult<()> {
    let mut rows = iterable.try_iter()?.enumerate();
    let mut fill = |job: &mut Job, owners: &mut Owners<'py>| -> PyResult<()> {
        while job.len() < CHUNK_ROWS {
            let Some((i, row)) = rows.next() else { break };
            push(job, owners, i, row?)?;
        }
        Ok(())
    };
    let hash_here = |job: &mut Job| {
        if job.work() >= GIL_MINSIZE {
            py.detach(|| job.hash());
        } else {
            job.hash();
        }
    };
    // Declared before the thread's scope, so that they outlive it: the
    // thread may be hashing their rows until it is joined.
    let mut first = Owners::new();
    let mut second = Owners::new();
    let mut job = Job::new();
    fill(&mut job, &mut first)?;
    if job.len() < CHUNK_ROWS {
        hash_here(&mut job);
        return emit(&job.digests);
    }
    std::thread::scope(|s| {
        let (to_hasher, jobs) = mpsc::sync_channel::<Job>(1);
        let (to_caller, mut hashed) = mpsc::sync_channel::<Job>(1);
        let hasher = std::thread::Builder::new().spawn_scoped(s, move || {
            for mut job in jobs {
                job.hash();
                if to_caller.send(job).is_err() {
                    break;
                }
            }
        });
        if hasher.is_err() {
            // No thread: every chunk here, one after another.
            loop {
                hash_here(&mut job);
                emit(&job.digests)?;
                if job.len() < CHUNK_ROWS {
                    return Ok(());
                }
                job.clear();
                first.clear();
                fill(&mut job, &mut first)?;
            }
        }
        // `in_flight` holds the owners of the chunk being hashed, `reading`
        // those of the chunk being read.
        let (in_flight, reading) = (&mut first, &mut second);
        let _ = to_hasher.send(job);
        let mut spare = Job::new();
        loop {
            fill(&mut spare, reading)?;
            let (done, rx) = py.detach(move || (hashed.recv(), hashed));
            hashed = rx;
            // A closed channel: the thread panicked, which the scope
            // raises once it has joined it.
            let Ok(mut done) = done else { return Ok(()) };
            in_flight.clear();
            std::mem::swap(in_flight, reading);
            let last = spare.len() < CHUNK_ROWS;
            let sent = spare.len() > 0 && to_hasher.send(spare).is_ok();
            emit(&done.digests)?;
            if last {
                if sent {
                    if let Ok(done) = py.detach(move || hashed.recv()) {
                        emit(&done.digests)?;
                    }
                }
                return Ok(());
            }
            done.clear();
            spare = done;
        }
    })
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
