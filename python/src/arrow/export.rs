//! Handing columns of digests to Arrow consumers: the `ArrowArray` and
//! `ArrowStream` Python classes and their PyCapsules. The buffers stay in
//! Rust, shared by every export of a column; each exported struct holds a
//! reference to them that its release callback drops, so a consumer reads
//! them in place (`pa.array(r)`, `pl.Series(r)` copy nothing).

use super::import::requested_format;
use md5x_arrow_import::column::{Column, Exported, Output};
use md5x_arrow_import::ffi::{ArrowArray, ArrowArrayStream, ArrowSchema, Releasable};
use md5x_arrow_import::format::describe;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::{self, NonNull};
use std::sync::Arc;

/// A column of digests, exported through `__arrow_c_array__` (and, as a
/// stream of one array, `__arrow_c_stream__`).
#[pyclass(module = "md5x", name = "ArrowArray", frozen)]
pub(crate) struct PyArrowArray {
    column: Arc<Column>,
    exported: Exported,
}

/// Columns of digests, one for each array of an input stream, exported
/// through `__arrow_c_stream__`.
#[pyclass(module = "md5x", name = "ArrowStream", frozen)]
pub(crate) struct PyArrowStream {
    chunks: Arc<[Arc<Column>]>,
    output: Output,
    exported: Exported,
}

impl PyArrowArray {
    pub fn new(column: Column, exported: Exported) -> Self {
        Self {
            column: Arc::new(column),
            exported,
        }
    }
}

impl PyArrowStream {
    pub fn new(chunks: Vec<Column>, output: Output, exported: Exported) -> Self {
        Self {
            chunks: chunks.into_iter().map(Arc::new).collect(),
            output,
            exported,
        }
    }
}

#[pymethods]
impl PyArrowArray {
    /// The (schema, array) capsules of the Arrow PyCapsule interface.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let exported = requested(
            requested_schema,
            self.column.output,
            &[&self.column],
            self.exported,
        )?;
        let schema = schema_capsule(py, exported)?;
        let array = array_capsule(py, array(self.column.clone(), exported))?;
        Ok((schema, array))
    }

    /// The column as a stream of one array.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let exported = requested(
            requested_schema,
            self.column.output,
            &[&self.column],
            self.exported,
        )?;
        stream_capsule(py, Arc::from([self.column.clone()]), exported)
    }

    fn __len__(&self) -> usize {
        self.column.len
    }

    fn __repr__(&self) -> String {
        let c = &self.column;
        format!(
            "md5x.ArrowArray({} digests as {}, {} rows, {} null)",
            c.output.name(),
            self.exported.name(),
            c.len,
            c.nulls()
        )
    }
}

#[pymethods]
impl PyArrowStream {
    /// The stream capsule of the Arrow PyCapsule interface; each call
    /// starts a new stream from the first array.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let columns: Vec<&Column> = self.chunks.iter().map(|c| &**c).collect();
        let exported = requested(requested_schema, self.output, &columns, self.exported)?;
        stream_capsule(py, self.chunks.clone(), exported)
    }

    fn __repr__(&self) -> String {
        let rows: usize = self.chunks.iter().map(|c| c.len).sum();
        let nulls: usize = self.chunks.iter().map(|c| c.nulls()).sum();
        format!(
            "md5x.ArrowStream({} digests as {}, {} array{}, {rows} rows, {nulls} null)",
            self.output.name(),
            self.exported.name(),
            self.chunks.len(),
            if self.chunks.len() == 1 { "" } else { "s" }
        )
    }
}

/// The type to export `columns` as: `default`, or what `requested_schema`
/// asks for where the digests can be given in it (hex and base64 as utf8
/// or large_utf8); any other request raises, as the PyCapsule interface
/// has a producer do when it cannot meet one.
fn requested(
    requested_schema: Option<&Bound<'_, PyAny>>,
    output: Output,
    columns: &[&Column],
    default: Exported,
) -> PyResult<Exported> {
    let Some(requested_schema) = requested_schema.filter(|s| !s.is_none()) else {
        return Ok(default);
    };
    let format = requested_format(requested_schema)?;
    let fits = |e: Exported| e != Exported::Utf8 || columns.iter().all(|c| c.fits_utf8());
    // Made here, with the GIL held, where a request differs from the
    // default (made while hashing).
    let prepare = |e: Exported| {
        columns.iter().for_each(|c| c.prepare(e));
        e
    };
    match Exported::parse(&format, output) {
        Some(e) if fits(e) => Ok(prepare(e)),
        _ => {
            let pointer = requested_schema
                .cast::<PyCapsule>()?
                .pointer_checked(Some(c"arrow_schema"))?
                .cast::<ArrowSchema>();
            // SAFETY: checked live by `requested_format` above, and held:
            // a consumer's schema, as the C Data Interface lays it out.
            let asked = unsafe { describe(pointer.as_ref()) };
            Err(PyValueError::new_err(format!(
                "md5x holds these digests as {}; it cannot export them as {asked}",
                default.name()
            )))
        }
    }
}

/// What an exported array's release callback frees.
struct ArrayPrivate {
    _column: Arc<Column>,
    buffers: Vec<*const c_void>,
}

/// A struct exporting `column` as `exported`.
fn array(column: Arc<Column>, exported: Exported) -> ArrowArray {
    let validity = column
        .validity
        .as_ref()
        .map_or(ptr::null(), |v| v.bits.as_ptr().cast());
    let values = column.values.as_ptr().cast();
    let buffers = match exported {
        Exported::FixedBinary => vec![validity, values],
        Exported::Utf8 => vec![validity, column.offsets32().as_ptr().cast(), values],
        Exported::LargeUtf8 => vec![validity, column.offsets64().as_ptr().cast(), values],
        Exported::Utf8View => {
            let views = column.views();
            let mut buffers = vec![validity, views.views.as_ptr().cast()];
            // Each data buffer a window of the one values buffer.
            buffers.extend(
                views
                    .starts
                    .iter()
                    .map(|&start| column.values[start..].as_ptr().cast::<c_void>()),
            );
            buffers.push(views.sizes.as_ptr().cast());
            buffers
        }
    };
    let n_buffers = buffers.len() as i64;
    let (length, null_count) = (column.len as i64, column.nulls() as i64);
    let private = Box::into_raw(Box::new(ArrayPrivate {
        _column: column,
        buffers,
    }));
    ArrowArray {
        length,
        null_count,
        offset: 0,
        n_buffers,
        n_children: 0,
        // SAFETY: `private` was just made by `Box::into_raw`, so it points
        // to a live `ArrayPrivate`; the buffers array lives as long as it.
        buffers: unsafe { (*private).buffers.as_mut_ptr() },
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: private.cast(),
    }
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: the consumer passes the struct `array` made, once; its
    // `private_data` is the `Box<ArrayPrivate>` made there.
    unsafe {
        drop(Box::from_raw((*array).private_data.cast::<ArrayPrivate>()));
        (*array).release = None;
    }
}

/// A schema of type `exported`: a nullable field named "md5".
fn schema(exported: Exported) -> ArrowSchema {
    ArrowSchema {
        format: exported.format().as_ptr(),
        name: c"md5".as_ptr(),
        metadata: ptr::null(),
        flags: 2, // ARROW_FLAG_NULLABLE
        n_children: 0,
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(release_schema),
        private_data: ptr::null_mut(),
    }
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: the consumer passes a struct `schema` made; its strings are
    // static, so releasing only marks it released.
    unsafe { (*schema).release = None };
}

/// What an exported stream's callbacks read and its release frees.
struct StreamPrivate {
    chunks: Arc<[Arc<Column>]>,
    next: usize,
    exported: Exported,
}

unsafe extern "C" fn stream_get_schema(
    stream: *mut ArrowArrayStream,
    out: *mut ArrowSchema,
) -> c_int {
    // SAFETY: the consumer passes a live stream that `stream_capsule` made
    // (its `private_data` a `StreamPrivate`) and a struct to fill.
    unsafe {
        let private = &*(*stream).private_data.cast::<StreamPrivate>();
        out.write(schema(private.exported));
    }
    0
}

unsafe extern "C" fn stream_get_next(stream: *mut ArrowArrayStream, out: *mut ArrowArray) -> c_int {
    // SAFETY: as in `stream_get_schema`; the specification has a consumer
    // call one callback at a time, so this `&mut` is the only one.
    unsafe {
        let private = &mut *(*stream).private_data.cast::<StreamPrivate>();
        match private.chunks.get(private.next) {
            Some(column) => {
                out.write(array(column.clone(), private.exported));
                private.next += 1;
            }
            // The end of the stream: a released array.
            None => {
                out.write(std::mem::zeroed());
            }
        }
    }
    0
}

unsafe extern "C" fn stream_get_last_error(_: *mut ArrowArrayStream) -> *const c_char {
    // No callback of this stream fails.
    ptr::null()
}

unsafe extern "C" fn release_stream(stream: *mut ArrowArrayStream) {
    // SAFETY: the consumer passes the stream `stream_capsule` made, once.
    unsafe {
        drop(Box::from_raw(
            (*stream).private_data.cast::<StreamPrivate>(),
        ));
        (*stream).release = None;
    }
}

/// A capsule named `name` holding `value`, whose destructor releases it
/// unless a consumer moved it out, then frees it.
fn capsule<'py, T: Releasable>(
    py: Python<'py>,
    value: T,
    name: &'static CStr,
    destructor: unsafe extern "C" fn(*mut pyo3::ffi::PyObject),
) -> PyResult<Bound<'py, PyCapsule>> {
    let pointer = NonNull::from(Box::leak(Box::new(value))).cast::<c_void>();
    // SAFETY: `pointer` is a live heap `T`, owned by the capsule from here;
    // `destructor` frees it as the `T` it is, from any thread.
    let made =
        unsafe { PyCapsule::new_with_pointer_and_destructor(py, pointer, name, Some(destructor)) };
    if made.is_err() {
        // SAFETY: no capsule took it; this is its only owner, and it holds
        // a struct made here, not yet released.
        unsafe { Box::from_raw(pointer.cast::<T>().as_ptr()).release() };
    }
    made
}

macro_rules! capsule_destructor {
    ($fn:ident, $t:ty, $name:literal) => {
        unsafe extern "C" fn $fn(capsule: *mut pyo3::ffi::PyObject) {
            // SAFETY: this destructor is given only to capsules named
            // `$name` that `capsule` made around a `Box<$t>`.
            unsafe {
                let pointer = pyo3::ffi::PyCapsule_GetPointer(capsule, $name.as_ptr());
                if pointer.is_null() {
                    pyo3::ffi::PyErr_Clear();
                    return;
                }
                let mut value = Box::from_raw(pointer.cast::<$t>());
                if let Some(release) = value.release {
                    release(&mut *value);
                }
            }
        }
    };
}
capsule_destructor!(drop_schema_capsule, ArrowSchema, c"arrow_schema");
capsule_destructor!(drop_array_capsule, ArrowArray, c"arrow_array");
capsule_destructor!(drop_stream_capsule, ArrowArrayStream, c"arrow_array_stream");

fn schema_capsule(py: Python<'_>, exported: Exported) -> PyResult<Bound<'_, PyCapsule>> {
    capsule(py, schema(exported), c"arrow_schema", drop_schema_capsule)
}

fn array_capsule(py: Python<'_>, array: ArrowArray) -> PyResult<Bound<'_, PyCapsule>> {
    capsule(py, array, c"arrow_array", drop_array_capsule)
}

fn stream_capsule(
    py: Python<'_>,
    chunks: Arc<[Arc<Column>]>,
    exported: Exported,
) -> PyResult<Bound<'_, PyCapsule>> {
    let private = Box::new(StreamPrivate {
        chunks,
        next: 0,
        exported,
    });
    let stream = ArrowArrayStream {
        get_schema: Some(stream_get_schema),
        get_next: Some(stream_get_next),
        get_last_error: Some(stream_get_last_error),
        release: Some(release_stream),
        private_data: Box::into_raw(private).cast(),
    };
    capsule(py, stream, c"arrow_array_stream", drop_stream_capsule)
}
