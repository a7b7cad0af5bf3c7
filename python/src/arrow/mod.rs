//! `md5x.hash_array`: the MD5 of each row of an Arrow column of strings or
//! binaries, read in place through the Arrow PyCapsule interface, hashed in
//! one `md5x::multi` batch with the GIL released, and handed back through
//! the same interface. No Python object is made per row, and pyarrow is not
//! needed: the C Data Interface structs are declared here.
//!
//! `ffi` declares the structs, `import` takes them from capsules, `format`
//! reads a schema's type, `rows` checks and hashes an array's rows,
//! `column` holds and encodes the digests, `export` hands them out.

mod column;
mod export;
mod ffi;
mod format;
mod import;
mod region;
mod rows;

use crate::interrupt;
use crate::steps::STEP_BYTES;
use crate::stop::Stop;
use column::{Column, Exported, Output};
use export::{PyArrowArray, PyArrowStream};
use ffi::{ArrowArray, ArrowArrayStream, ArrowSchema, Imported};
use format::Layout;
use import::Source;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use rows::{Refused, Rows};
use std::ffi::CStr;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash_array, m)?)?;
    m.add_class::<PyArrowArray>()?;
    m.add_class::<PyArrowStream>()?;
    Ok(())
}

/// The MD5 of each row of an Arrow column, as an Arrow column.
///
/// ``array`` is any object with ``__arrow_c_array__`` or
/// ``__arrow_c_stream__`` (a pyarrow ``Array`` or ``ChunkedArray``, a
/// Polars ``Series``, a nanoarrow or arro3 array, DuckDB and DataFusion
/// results) of type utf8, large_utf8, utf8_view, binary, large_binary or
/// binary_view, or a table or record batch stream of one such column;
/// other types raise ``TypeError``. Slices and nulls are
/// honoured: a null row gives a null digest.
///
/// ``output`` is ``"hex"`` (32 lowercase hex digits a row), ``"binary"``
/// (the 16 bytes, fixed_size_binary(16)) or ``"base64"`` (24 characters,
/// padded, as HTTP's Content-MD5); anything else raises ``ValueError``. Hex
/// and base64 are a utf8 column (large_utf8 past 2**31 bytes of them), or
/// utf8_view for a view input.
///
/// The result is an ``ArrowArray`` for an array and an ``ArrowStream``
/// (one array for each of the input's) for a stream; both export the
/// PyCapsule interface, so ``pyarrow.array(r)``, ``pyarrow.chunked_array(r)``
/// and ``polars.Series(r)`` take them without a copy. The GIL is released
/// while the rows are hashed: an array of many rows (65,536 or more) on up
/// to ``jobs`` threads (default: the CPUs this process may use), a part of
/// its rows each. ``jobs`` below 1 raises ``ValueError``.
#[pyfunction]
#[pyo3(signature = (array, /, output = "hex", *, jobs = None))]
fn hash_array(
    py: Python<'_>,
    array: &Bound<'_, PyAny>,
    output: &str,
    jobs: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let output = Output::parse(output).ok_or_else(|| {
        PyValueError::new_err(format!(
            "output must be \"hex\", \"binary\" or \"base64\", not {output:?}"
        ))
    })?;
    let jobs = crate::files::threads(jobs)?;
    match import::export(array)? {
        Source::Array(schema, array) => {
            let shape = format::shape(&schema).map_err(PyTypeError::new_err)?;
            let views = shape.layout == Layout::View;
            let hash = |rows, stop: &Stop| {
                let column = Column::hash(rows, output, jobs, stop)?;
                let exported = Exported::choose(output, views, &[&column]);
                column.prepare(exported);
                Ok::<_, Refused>((column, exported))
            };
            // Checked with the GIL released; hashed on a thread of its
            // own, so that Ctrl-C is seen, where it is long work. The
            // imported structs are released here, with the GIL held, as a
            // producer may need it to free its memory.
            let rows = py.detach(|| Rows::new(&array, shape)).map_err(malformed)?;
            let hashed = if rows.work() > STEP_BYTES {
                interrupt::run(py, |stop| hash(rows, stop))?
            } else {
                py.detach(|| hash(rows, &Stop::default()))
            };
            drop((schema, array));
            let (column, exported) = hashed.map_err(refused)?;
            Ok(Py::new(py, PyArrowArray::new(column, exported))?.into_any())
        }
        Source::Stream(mut stream) => {
            // Pulled on a thread of its own, so that Ctrl-C is seen while
            // the producer runs too (Python runs signal handlers on the
            // main thread only: a Python producer is not interrupted in
            // the middle of an array, and the interrupt is not turned
            // into its error).
            let read = interrupt::run(py, |stop| read_stream(&mut stream, output, jobs, stop))?;
            drop(stream);
            let (chunks, exported) = read?;
            Ok(Py::new(py, PyArrowStream::new(chunks, output, exported))?.into_any())
        }
    }
}

fn malformed(message: String) -> PyErr {
    PyValueError::new_err(format!("malformed Arrow array: {message}"))
}

/// The error for rows not hashed.
fn refused(refused: Refused) -> PyErr {
    match refused {
        Refused::Malformed(message) => malformed(message),
        // Not reached: work stops only when `interrupt` raises a signal's
        // exception instead.
        Refused::Stopped => PyRuntimeError::new_err("md5x: stopped"),
    }
}

/// Why reading a stream failed.
enum StreamError {
    /// Its type is not one `hash_array` reads.
    Type(String),
    /// An array of it breaks the format's rules.
    Malformed(String),
    /// Its producer reported an error.
    Producer(String),
    /// The call was interrupted.
    Stopped,
}

impl From<StreamError> for PyErr {
    fn from(e: StreamError) -> PyErr {
        match e {
            StreamError::Type(m) => PyTypeError::new_err(m),
            StreamError::Malformed(m) => malformed(m),
            StreamError::Producer(m) => PyRuntimeError::new_err(m),
            StreamError::Stopped => refused(Refused::Stopped),
        }
    }
}

/// Hashes each array of `stream` on up to `jobs` threads, and picks the
/// one type that all the results are exported as.
fn read_stream(
    stream: &mut Imported<ArrowArrayStream>,
    output: Output,
    jobs: usize,
    stop: &Stop,
) -> Result<(Vec<Column>, Exported), StreamError> {
    let (Some(get_schema), Some(get_next)) = (stream.get_schema, stream.get_next) else {
        return Err(StreamError::Malformed(
            "the stream has no get_schema or get_next".into(),
        ));
    };
    let mut schema = Imported::<ArrowSchema>::empty();
    // SAFETY: a live stream's callback, given the stream and a released
    // schema to fill.
    let code = unsafe { get_schema(stream.as_mut_ptr(), schema.as_mut_ptr()) };
    check(stream, code)?;
    let shape = format::shape(&schema).map_err(StreamError::Type)?;
    let mut chunks = Vec::new();
    // Each array is released once hashed, without the GIL: the C stream
    // interface's consumers (pyarrow's among them) pull and release arrays
    // with it released, so producers take it where they need it.
    loop {
        stop.check().map_err(|_| StreamError::Stopped)?;
        let mut array = Imported::<ArrowArray>::empty();
        // SAFETY: as above, with a released array to fill.
        let code = unsafe { get_next(stream.as_mut_ptr(), array.as_mut_ptr()) };
        check(stream, code)?;
        if !array.is_live() {
            break; // The end of the stream.
        }
        let rows = Rows::new(&array, shape).map_err(StreamError::Malformed)?;
        chunks.push(Column::hash(rows, output, jobs, stop).map_err(|e| match e {
            Refused::Malformed(m) => StreamError::Malformed(m),
            Refused::Stopped => StreamError::Stopped,
        })?);
    }
    let columns: Vec<&Column> = chunks.iter().collect();
    let exported = Exported::choose(output, shape.layout == Layout::View, &columns);
    chunks.iter().for_each(|c| c.prepare(exported));
    Ok((chunks, exported))
}

/// The producer's error, where `code` (an errno value) is not 0.
fn check(stream: &mut Imported<ArrowArrayStream>, code: i32) -> Result<(), StreamError> {
    if code == 0 {
        return Ok(());
    }
    let message = stream
        .get_last_error
        // SAFETY: a live stream's callback; its result, if not NULL, is a
        // NUL-terminated string valid until the next call on the stream.
        .map(|f| unsafe { f(stream.as_mut_ptr()) })
        .filter(|m| !m.is_null())
        // SAFETY: as above.
        .map(|m| unsafe { CStr::from_ptr(m) }.to_string_lossy().into_owned())
        .unwrap_or_default();
    Err(StreamError::Producer(format!(
        "the Arrow stream failed (error {code}){}{message}",
        if message.is_empty() { "" } else { ": " }
    )))
}
