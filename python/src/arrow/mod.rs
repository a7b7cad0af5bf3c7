//! `md5x.hash_array`: the MD5 of each row of an Arrow column of strings or
//! binaries, read in place through the Arrow PyCapsule interface, hashed in
//! one `md5x::multi` batch with the GIL released, and handed back through
//! the same interface. No Python object is made per row, and pyarrow is not
//! needed: the C Data Interface structs, the checks of an array and the
//! hashing of its rows are the crate `md5x-arrow-import` (`arrow-import/`).
//!
//! `import` takes the structs from capsules, `export` hands the digests
//! out.

mod export;
mod import;

use crate::interrupt;
use export::{PyArrowArray, PyArrowStream};
use import::Source;
use md5x_arrow_import::column::{Column, Exported, Output};
use md5x_arrow_import::format::{self, Layout};
use md5x_arrow_import::read_stream::{read_stream, StreamError};
use md5x_arrow_import::rows::{Refused, Rows};
use md5x_arrow_import::stepwise::STEP_BYTES;
use md5x_arrow_import::stop::Stop;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

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
            // SAFETY: the producer's schema, moved out of its capsule.
            let shape = unsafe { format::shape(&schema) }.map_err(PyTypeError::new_err)?;
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
            // SAFETY: the producer's array of that schema, moved out of
            // its capsule, held until its digests are made.
            let rows = py.detach(|| unsafe { Rows::new(&array, shape) });
            let rows = rows.map_err(malformed)?;
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
            let (chunks, exported) = read.map_err(stream_error)?;
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

/// The error for a stream not read.
fn stream_error(e: StreamError) -> PyErr {
    match e {
        StreamError::Type(m) => PyTypeError::new_err(m),
        StreamError::Malformed(m) => malformed(m),
        StreamError::Producer(m) => PyRuntimeError::new_err(m),
        StreamError::Stopped => refused(Refused::Stopped),
    }
}
