//! Bytes read in place from any object that exports the buffer protocol,
//! of any item format: what `hashlib` hashes.
//!
//! PyO3's typed `PyBuffer<u8>` refuses exporters whose items are not
//! bytes (a numpy array of `float64`, an `array('i')`), which `hashlib`
//! hashes as their raw bytes; so the view is taken here with
//! `PyObject_GetBuffer(.., PyBUF_SIMPLE)`, in the limited API since 3.11,
//! as `hashlib` takes it. `PyBUF_SIMPLE` asks for one contiguous run of
//! bytes: an exporter that cannot give one (a non-contiguous memoryview or
//! array) raises its own error, as it does for `hashlib`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::{ffi, PyErr};

/// Work of at least this many bytes releases the GIL: `hashlib`'s
/// threshold (`HASHLIB_GIL_MINSIZE`), below which releasing it costs more
/// than the hashing.
pub(crate) const GIL_MINSIZE: usize = 2048;

/// A buffer view held on an object's bytes, released when dropped.
///
/// While it is held the exporter keeps those bytes where they are and
/// their length as it is: a `bytearray` refuses to resize, a memoryview
/// to be released. Not `Send`: it is released on the thread that holds
/// the GIL, and its bytes leave it only as a borrowed slice.
pub(crate) struct BufferView {
    // Boxed: CPython does not promise that a filled `Py_buffer` may move.
    view: Box<ffi::Py_buffer>,
}

impl BufferView {
    /// The bytes of `obj`, or the `TypeError` `hashlib` raises for it
    /// (`str`, objects without the buffer protocol), or the exporter's
    /// own error.
    pub(crate) fn get(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        // SAFETY: `obj` is a live object (a `Bound` holds a reference)
        // and the GIL is held (a `Bound` proves it).
        if unsafe { ffi::PyObject_CheckBuffer(obj.as_ptr()) } == 0 {
            return Err(PyTypeError::new_err(
                "object supporting the buffer API required",
            ));
        }
        let mut view = Box::new(ffi::Py_buffer::new());
        // SAFETY: as above; `view` points at a writable, zeroed
        // `Py_buffer` that `PyObject_GetBuffer` fills (taking a reference
        // to the exporter in `view.obj`) or leaves unfilled on failure.
        if unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), &mut *view, ffi::PyBUF_SIMPLE) } != 0 {
            return Err(PyErr::fetch(obj.py()));
        }
        Ok(Self { view })
    }

    /// The viewed bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        let len = usize::try_from(self.view.len).unwrap_or(0);
        if len == 0 || self.view.buf.is_null() {
            return &[];
        }
        // SAFETY: a view filled with `PyBUF_SIMPLE` describes `len`
        // contiguous bytes at `buf`, which the exporter keeps alive and
        // unmoved until the view is released, which is not before `self`
        // drops; the returned slice borrows `self`. Non-empty, so `buf` is
        // not dangling (checked above).
        unsafe { std::slice::from_raw_parts(self.view.buf.cast::<u8>(), len) }
    }
}

impl Drop for BufferView {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful `PyObject_GetBuffer`
        // (the only way to make a `BufferView`) and is released once,
        // here. The GIL is held: `BufferView` is not `Send`, so it drops
        // on a thread that made it under the GIL, and nothing here drops
        // one inside `Python::detach`.
        unsafe { ffi::PyBuffer_Release(&mut *self.view) };
    }
}
