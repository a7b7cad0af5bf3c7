//! `md5x.digest_many` and `md5x.hexdigest_many`: an iterable of buffers
//! hashed side by side by `md5::multi`, the GIL released while hashing.
//!
//! The rows are taken a chunk of [`CHUNK_ROWS`] at a time: read (short
//! ones copied into one buffer), hashed, and their digests turned into the
//! result's objects. A chunk's buffers are reused by the chunk after the
//! next, and stay in a core's L2 cache: fresh memory for a million rows at
//! once cost more in page faults than the hashing. From the second chunk
//! on, a thread hashes each chunk while the calling thread, under the GIL,
//! reads the next and makes the result's objects for the one before.
//!
//! Short rows cost more in CPython's per-object work than in hashing, so
//! that work is kept to the least: an exact `list` or `tuple` is read by
//! index with no reference taken per row, a `bytes` row with one call, and
//! the result list is made once, at its full length, from the objects
//! made for it (the README's "Speed" section has the figures).

mod job;

use crate::buffer::{BufferView, GIL_MINSIZE};
use crate::interrupt;
use job::{Job, Owners, COPY_MAX};
use md5x_arrow_import::stepwise::{self, STEP_BYTES};
use md5x_arrow_import::stop::{Stop, Stopped};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyList, PyString, PyTuple};
use pyo3::{ffi, Borrowed};
use std::sync::mpsc;

/// Rows per chunk: many times the widest kernel's lanes (64), so that a
/// chunk's last, partly filled set of lanes costs little; few enough that a
/// chunk's buffers (about 1.5 MiB, with short rows copied) stay in L2.
const CHUNK_ROWS: usize = 16 << 10;

/// An iterator's rows longer than this are hashed as they come rather
/// than copied (a copy would double the memory they take).
const COPY_ROW_MAX: usize = 8 << 20;

/// The rows of `digest_many`'s argument, in order, and whether `str` rows
/// are read as their UTF-8 bytes.
struct Rows<'py> {
    source: Source<'py>,
    utf8: bool,
}

/// Where the rows come from.
enum Source<'py> {
    /// An exact `list`, read by index with no reference taken per row,
    /// up to its length at the time, as list iteration reads it.
    List {
        list: Bound<'py, PyList>,
        next: usize,
    },
    /// An exact `tuple`, read by index with no reference taken per row.
    Tuple {
        tuple: Bound<'py, PyTuple>,
        next: usize,
    },
    /// Any other iterable, through the iterator protocol.
    Iter {
        iter: Bound<'py, PyIterator>,
        next: usize,
    },
}

impl<'py> Rows<'py> {
    fn new(rows: &Bound<'py, PyAny>, utf8: bool) -> PyResult<Self> {
        // Exactly: a subclass may iterate otherwise than by index.
        let source = if rows.is_exact_instance_of::<PyList>() {
            let list = rows.cast::<PyList>()?.clone();
            Source::List { list, next: 0 }
        } else if rows.is_exact_instance_of::<PyTuple>() {
            let tuple = rows.cast::<PyTuple>()?.clone();
            Source::Tuple { tuple, next: 0 }
        } else if rows.is_instance_of::<PyString>() || rows.is_instance_of::<PyBytes>() {
            // One row, which would iterate as rows of a character (or a
            // byte's int) each.
            let kind = rows
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string());
            return Err(PyTypeError::new_err(format!(
                "rows must be an iterable of rows, not one row ({kind}): pass [row]"
            )));
        } else {
            Source::Iter {
                iter: rows.try_iter()?,
                next: 0,
            }
        };
        Ok(Self { source, utf8 })
    }

    /// Reads the next rows into `job` until it holds a chunk's rows (or
    /// copied bytes); false once the rows have run out.
    fn read(&mut self, job: &mut Job, owners: &mut Owners<'py>) -> PyResult<bool> {
        let count = CHUNK_ROWS - job.len();
        let end = |next: &usize| next.saturating_add(count);
        let utf8 = self.utf8;
        match &mut self.source {
            Source::List { list, next } => {
                let end = end(next);
                // Only Python code can change the list's length while the
                // GIL is held here, and only a row other than exact
                // `bytes` can run any (its buffer exporter).
                let mut len = list.len();
                while *next < end {
                    if *next >= len {
                        return Ok(false);
                    }
                    // SAFETY: `list` is a live list (the `Bound` holds a
                    // reference, and proves the GIL held) and `next` is
                    // within it (checked just above against its length,
                    // looked up again after any code that could change
                    // it). `PyList_GetItem` gives a borrowed reference
                    // (NULL with an exception if it fails), which stays
                    // valid while the list keeps the row: until Python
                    // code runs or the GIL is released, neither of which
                    // `push` does before it takes a reference of its own.
                    let row = unsafe {
                        Borrowed::from_ptr_or_err(
                            list.py(),
                            ffi::PyList_GetItem(list.as_ptr(), *next as ffi::Py_ssize_t),
                        )
                    }?;
                    let plain = row.is_exact_instance_of::<PyBytes>();
                    push(job, owners, *next, row, Held::BySequence, utf8)?;
                    if !plain {
                        len = list.len();
                    }
                    *next += 1;
                }
                Ok(*next < len)
            }
            Source::Tuple { tuple, next } => {
                let end = end(next).min(tuple.len());
                while *next < end {
                    // A tuple keeps its items as long as it lives.
                    let row = tuple.get_borrowed_item(*next)?;
                    push(job, owners, *next, row, Held::BySequence, utf8)?;
                    *next += 1;
                }
                Ok(*next < tuple.len())
            }
            Source::Iter { iter, next } => {
                let end = end(next);
                while *next < end && !job.is_full() {
                    let Some(row) = iter.next() else {
                        return Ok(false);
                    };
                    push(
                        job,
                        owners,
                        *next,
                        row?.as_borrowed(),
                        Held::ByIterator,
                        utf8,
                    )?;
                    *next += 1;
                }
                Ok(true)
            }
        }
    }
}

/// Who holds a row once it is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Held {
    /// The list or tuple it was read from: its bytes may be read in
    /// place while the call lasts.
    BySequence,
    /// Perhaps no one: an iterator may refill the same buffer for its next
    /// row, so the row's bytes are copied (or hashed) before it is asked
    /// for the next.
    ByIterator,
}

/// Reads row `index` into `job`: copied if short, in place if held by a
/// sequence (its owner kept in `owners`), else copied or hashed at once.
/// A `str` is read as its UTF-8 bytes where `utf8` is set. `TypeError`
/// naming the row if it is not a buffer (or such a `str`).
///
/// `row` may be borrowed from a list: a reference to it is taken before
/// anything that could change the list (Python code) runs.
fn push<'py>(
    job: &mut Job,
    owners: &mut Owners<'py>,
    index: usize,
    row: Borrowed<'_, 'py, PyAny>,
    held: Held,
    utf8: bool,
) -> PyResult<()> {
    // Exactly `bytes`: a subclass may export other bytes (`__buffer__`).
    // Immutable, so a reference keeps its bytes as they are.
    let bytes = if row.is_exact_instance_of::<PyBytes>() {
        // SAFETY: its type was checked just above: exactly `bytes`.
        Some(bytes_of(unsafe { row.cast_unchecked::<PyBytes>() })?)
    } else if utf8 && row.is_instance_of::<PyString>() {
        // A `str`'s UTF-8 form, kept by the (immutable) string.
        Some(utf8_of(row).map_err(|e| name_row(row.py(), index, e))?)
    } else {
        None
    };
    if let Some(bytes) = bytes {
        if bytes.len() <= COPY_MAX {
            job.copy(bytes);
        } else {
            job.in_place(bytes);
            owners.immutable.push(row.to_owned());
        }
        return Ok(());
    }
    // A buffer exporter may run Python code.
    let row = row.to_owned();
    let py = row.py();
    let view = BufferView::get(&row).map_err(|e| name_row(py, index, e))?;
    let bytes = view.as_slice();
    if bytes.len() <= COPY_MAX || (held == Held::ByIterator && bytes.len() <= COPY_ROW_MAX) {
        job.copy(bytes);
    } else if held == Held::BySequence {
        job.in_place(bytes);
        owners.views.push(view);
    } else {
        job.hashed(digest_now(py, bytes)?);
    }
    Ok(())
}

/// The digest of one long row, hashed at once, interruptibly.
fn digest_now(py: Python<'_>, row: &[u8]) -> PyResult<[u8; 16]> {
    let mut out = [[0u8; 16]];
    interrupt::run(py, |stop| stepwise::digest_rows(&[row], &mut out, stop))?
        .map_err(|Stopped| stopped())?;
    Ok(out[0])
}

/// Not reached: work stops only when `interrupt` raises a signal's
/// exception, which is returned instead.
fn stopped() -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err("md5x: stopped")
}

/// The UTF-8 form of a `str` (or subclass), which CPython makes once and
/// keeps with the string (an ASCII string's own characters): what
/// `row.encode()` gives. A string that cannot be encoded (a lone
/// surrogate) raises `UnicodeEncodeError`, as `encode` does.
fn utf8_of<'a>(row: Borrowed<'a, '_, PyAny>) -> PyResult<&'a [u8]> {
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `row` is a live `str` (checked by the caller; the `Borrowed`
    // proves the GIL held); `len` is a local.
    let ptr = unsafe { ffi::PyUnicode_AsUTF8AndSize(row.as_ptr(), &mut len) };
    if ptr.is_null() {
        return Err(PyErr::fetch(row.py()));
    }
    let len = usize::try_from(len).unwrap_or(0);
    // SAFETY: the call gives `len` bytes at `ptr` (and a NUL after them),
    // kept by the string until it is freed and never changed (a `str` is
    // immutable): alive as long as the object, which `'a` borrows.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// The bytes of a `bytes` object, read with one call (`as_bytes` makes
/// two under the limited API, one for the pointer and one for the length).
fn bytes_of<'a>(row: Borrowed<'a, '_, PyBytes>) -> PyResult<&'a [u8]> {
    let mut ptr = std::ptr::null_mut();
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `row` is a live `bytes` object (its `Borrowed` proves the
    // type and the GIL held); the two out-pointers are locals. Given a
    // `bytes` object and a length pointer, the call cannot fail.
    let status = unsafe { ffi::PyBytes_AsStringAndSize(row.as_ptr(), &mut ptr, &mut len) };
    match usize::try_from(len) {
        Ok(len) if status == 0 && !ptr.is_null() => {
            // SAFETY: the call filled `ptr` and `len` with the object's
            // own `len` bytes (and a NUL after them), which never change
            // and live as long as the object, which `'a` borrows.
            Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
        }
        // Not reached (see above).
        _ => Err(PyErr::fetch(row.py())),
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

/// Hashes `rows` a chunk at a time, handing each chunk's digests, in
/// order, to `emit`.
///
/// One chunk is hashed here, with the GIL released (on a thread of its
/// own if it is long work, so that Ctrl-C is seen). From two on, a thread
/// hashes each chunk while this one, which needs the GIL for it, reads the
/// next chunk and emits the one before: reading rows and making the
/// result's objects take longer than hashing short rows, and now hide it.
/// This thread waits for the hashing with the GIL released, looking for a
/// pending signal; at one, the hashing thread stops within a step.
fn for_each_chunk<'py>(
    py: Python<'py>,
    rows: &mut Rows<'py>,
    mut emit: impl FnMut(&[[u8; 16]]) -> PyResult<()>,
) -> PyResult<()> {
    // Declared before the thread's scope, so that they outlive it: the
    // thread may be hashing their rows until it is joined.
    let mut first = Owners::new();
    let mut second = Owners::new();
    let mut job = Job::new();
    let mut more = rows.read(&mut job, &mut first)?;
    if !more {
        hash_here(py, &mut job)?;
        return emit(&job.digests);
    }
    let stop = Stop::default();
    let stop = &stop;
    std::thread::scope(|s| {
        let (to_hasher, jobs) = mpsc::sync_channel::<Job>(1);
        let (to_caller, mut hashed) = mpsc::sync_channel::<Job>(1);
        let hasher = std::thread::Builder::new().spawn_scoped(s, move || {
            for mut job in jobs {
                // Stopped only when the caller raises instead.
                let _ = job.hash(stop);
                if to_caller.send(job).is_err() {
                    break;
                }
            }
        });
        if hasher.is_err() {
            // No thread: every chunk here, one after another.
            loop {
                hash_here(py, &mut job)?;
                emit(&job.digests)?;
                if !more {
                    return Ok(());
                }
                job.clear();
                first.clear();
                more = rows.read(&mut job, &mut first)?;
            }
        }
        // On an error, the hashing thread stops at its next step.
        let result = (|| {
            // `in_flight` holds the owners of the chunk being hashed, `reading`
            // those of the chunk being read.
            let (in_flight, reading) = (&mut first, &mut second);
            let _ = to_hasher.send(job);
            let mut spare = Job::new();
            loop {
                more = rows.read(&mut spare, reading)?;
                // A closed channel: the thread panicked, which the scope
                // raises once it has joined it.
                let Some(mut done) = interrupt::recv(py, &mut hashed, stop)? else {
                    return Ok(());
                };
                in_flight.clear();
                std::mem::swap(in_flight, reading);
                let sent = spare.len() > 0 && to_hasher.send(spare).is_ok();
                emit(&done.digests)?;
                if !more {
                    if sent {
                        if let Some(done) = interrupt::recv(py, &mut hashed, stop)? {
                            emit(&done.digests)?;
                        }
                    }
                    return Ok(());
                }
                done.clear();
                spare = done;
            }
        })();
        stop.set();
        result
    })
}

/// Hashes one chunk on this thread: with the GIL released where it is
/// worth it, and on a thread of its own, looking for Ctrl-C, where it is
/// long work.
fn hash_here(py: Python<'_>, job: &mut Job) -> PyResult<()> {
    let work = job.work();
    if work > STEP_BYTES {
        return interrupt::run(py, |stop| job.hash(stop))?.map_err(|Stopped| stopped());
    }
    let stop = Stop::default();
    if work >= GIL_MINSIZE {
        py.detach(|| job.hash(&stop))
    } else {
        job.hash(&stop)
    }
    .map_err(|Stopped| stopped())
}

/// The 16-byte MD5 digest of each row of ``rows``, in order: the same as
/// ``[hashlib.md5(r).digest() for r in rows]``, many times faster.
///
/// ``rows`` is any iterable of C-contiguous buffers (``bytes``,
/// ``bytearray``, ``memoryview``, numpy arrays, ...); the rows are hashed
/// side by side in SIMD lanes with the GIL released. A list's or tuple's
/// rows are read in place; an iterator's are copied (or hashed) as they
/// come, so it may refill one buffer for each. With ``encoding="utf-8"``,
/// ``str`` rows are hashed as their UTF-8 bytes (``r.encode()``), read in
/// place; without it a ``str`` raises ``TypeError``, as ``hashlib`` does.
/// A row that is not a buffer raises ``TypeError`` naming its index, and
/// so does one row (``str`` or ``bytes``) given for ``rows``.
/// Ctrl-C stops the call with ``KeyboardInterrupt``.
#[pyfunction]
#[pyo3(signature = (rows, /, *, encoding = None))]
fn digest_many<'py>(
    py: Python<'py>,
    rows: &Bound<'py, PyAny>,
    encoding: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for_each_chunk(py, &mut Rows::new(rows, utf8(encoding)?)?, |digests| {
        extend(&out, digests.iter().map(|d| PyBytes::new(py, d)))
    })?;
    Ok(out)
}

/// Whether `encoding` asks for `str` rows as UTF-8: `None`, or UTF-8 in
/// any of the spellings Python's codecs take; `ValueError` for another.
fn utf8(encoding: Option<&str>) -> PyResult<bool> {
    let Some(name) = encoding else {
        return Ok(false);
    };
    match name.to_ascii_lowercase().replace('_', "-").as_str() {
        "utf-8" | "utf8" | "u8" => Ok(true),
        _ => Err(PyValueError::new_err(format!(
            "encoding must be \"utf-8\" (the bytes Arrow, Polars and DuckDB hash) or None, \
             not {name:?}"
        ))),
    }
}

/// Appends a chunk's objects to `list`: made into a list of their own at
/// its full length, each moved in, then added at once, with no growing
/// row by row and no reference count call per row.
fn extend<'py>(
    list: &Bound<'py, PyList>,
    items: impl ExactSizeIterator<Item = impl IntoPyObject<'py>>,
) -> PyResult<()> {
    let part = PyList::new(list.py(), items)?;
    let end = list.len();
    list.set_slice(end, end, &part)
}

/// ``digest_many(rows)`` as lowercase hex strings of 32 digits: the same
/// as ``[hashlib.md5(r).hexdigest() for r in rows]``. ``encoding`` as for
/// ``digest_many``.
#[pyfunction]
#[pyo3(signature = (rows, /, *, encoding = None))]
fn hexdigest_many<'py>(
    py: Python<'py>,
    rows: &Bound<'py, PyAny>,
    encoding: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    let mut hex = Vec::new();
    for_each_chunk(py, &mut Rows::new(rows, utf8(encoding)?)?, |digests| {
        hex.clear();
        hex.resize(digests.len(), [0u8; 32]);
        md5x::multi::hex_into(digests, &mut hex);
        // `hex_into` writes ASCII hex digits only.
        let hex = hex
            .iter()
            .map(|h| PyString::new(py, std::str::from_utf8(h).unwrap_or_default()));
        extend(&out, hex)
    })?;
    Ok(out)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(digest_many, m)?)?;
    m.add_function(wrap_pyfunction!(hexdigest_many, m)?)?;
    Ok(())
}
