//! Taking Arrow data from a Python producer through the PyCapsule
//! interface: `__arrow_c_array__` (a schema and an array capsule) or
//! `__arrow_c_stream__` (a stream capsule). Each struct is moved out of its
//! capsule, and the capsule's copy marked released, so that the capsule's
//! destructor does not release it a second time.

use md5x_arrow_import::ffi::{ArrowArray, ArrowArrayStream, ArrowSchema, Imported, Releasable};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyTuple};
use std::ffi::CStr;

/// What a producer exported.
pub(crate) enum Source {
    Array(Imported<ArrowSchema>, Imported<ArrowArray>),
    Stream(Imported<ArrowArrayStream>),
}

/// Exports `object` through the interface it has, the array one first.
pub(crate) fn export(object: &Bound<'_, PyAny>) -> PyResult<Source> {
    if object.hasattr("__arrow_c_array__")? {
        let pair = object.call_method0("__arrow_c_array__")?;
        let pair = pair.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err("__arrow_c_array__ returned something other than a tuple")
        })?;
        if pair.len() != 2 {
            return Err(PyTypeError::new_err(
                "__arrow_c_array__ returned a tuple that is not (schema, array)",
            ));
        }
        // The schema first: if the array capsule is bad, the schema taken
        // is released on return.
        let schema = take::<ArrowSchema>(&pair.get_item(0)?, c"arrow_schema")?;
        let array = take::<ArrowArray>(&pair.get_item(1)?, c"arrow_array")?;
        return Ok(Source::Array(schema, array));
    }
    if object.hasattr("__arrow_c_stream__")? {
        let capsule = object.call_method0("__arrow_c_stream__")?;
        return Ok(Source::Stream(take(&capsule, c"arrow_array_stream")?));
    }
    Err(PyTypeError::new_err(format!(
        "hash_array takes an Arrow array or stream (an object with __arrow_c_array__ or \
         __arrow_c_stream__, such as a pyarrow Array or ChunkedArray or a Polars Series), \
         not {}",
        object.get_type().name()?
    )))
}

/// Moves the struct out of `capsule`, named `name`, leaving the capsule's
/// copy released.
fn take<T: Releasable>(capsule: &Bound<'_, PyAny>, name: &CStr) -> PyResult<Imported<T>> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a PyCapsule named {name:?}, got {}",
            capsule
                .get_type()
                .name()
                .map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let pointer = capsule.pointer_checked(Some(name))?.cast::<T>();
    if !pointer.is_aligned() {
        return Err(PyValueError::new_err(format!(
            "the {name:?} capsule holds a misaligned struct"
        )));
    }
    // SAFETY: a capsule of this name holds a `T` of the C Data Interface
    // (pointer checked not NULL by `pointer_checked`, and aligned above);
    // the GIL, held here, keeps other Python code from touching it. Reading
    // it moves it (the specification allows moving these structs); marking
    // the capsule's copy released hands its ownership to the `Imported`,
    // as its producer filled it.
    unsafe {
        let value = pointer.read();
        if !value.is_live() {
            return Err(PyValueError::new_err(format!(
                "the {name:?} capsule was already consumed (its struct is released)"
            )));
        }
        (*pointer.as_ptr()).mark_released();
        Ok(Imported::new(value))
    }
}

/// The format string of a requested schema's capsule, read in place (the
/// caller keeps ownership of it).
pub(crate) fn requested_format(capsule: &Bound<'_, PyAny>) -> PyResult<String> {
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err("requested_schema must be a PyCapsule named \"arrow_schema\"")
    })?;
    let pointer = capsule
        .pointer_checked(Some(c"arrow_schema"))?
        .cast::<ArrowSchema>();
    // SAFETY: a capsule named "arrow_schema" holds an `ArrowSchema`, alive
    // while the capsule is (held here); only its format is read.
    let schema = unsafe { pointer.as_ref() };
    if !schema.is_live() || schema.format.is_null() {
        return Err(PyValueError::new_err(
            "requested_schema holds a released schema",
        ));
    }
    // SAFETY: a live schema's format is a NUL-terminated string.
    let format = unsafe { CStr::from_ptr(schema.format) };
    Ok(format.to_string_lossy().into_owned())
}
