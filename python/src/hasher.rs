//! `md5x.md5`: hashlib's MD5 object over the crate's single-stream
//! hasher.

use crate::buffer::{BufferView, GIL_MINSIZE};
use md5x::{Digest, Md5};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::sync::{Mutex, MutexGuard, TryLockError};

/// An MD5 hash object with the interface of ``hashlib.md5``: ``update``,
/// ``digest``, ``hexdigest``, ``copy``, ``name`` (``"md5"``),
/// ``digest_size`` (16) and ``block_size`` (64).
///
/// ``data`` and every ``update`` take any C-contiguous object with the
/// buffer protocol (``bytes``, ``bytearray``, ``memoryview``, ``array``,
/// numpy arrays of any dtype, hashed as their raw bytes); ``str`` and
/// other objects raise ``TypeError``, as ``hashlib`` does. Updates of
/// 2 KiB or more release the GIL; threads that update one object take
/// turns.
///
/// ``usedforsecurity`` is accepted for ``hashlib``'s signature and
/// changes nothing: MD5 is broken for security, use it for checksums and
/// formats that ask for it.
#[pyclass(name = "md5", module = "md5x", frozen)]
pub(crate) struct Md5Hash {
    state: Mutex<Md5>,
}

impl Md5Hash {
    /// Runs `f` on the state, locked. Without a wait, under the GIL; if
    /// another thread holds the lock (in a large update, with the GIL
    /// released), `f` waits and runs with the GIL released, so that no
    /// GIL holder waits on a thread that may need the GIL to go on.
    fn with_state<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Md5) -> R + Send) -> R {
        match self.state.try_lock() {
            Ok(mut guard) => f(&mut guard),
            Err(TryLockError::Poisoned(e)) => f(&mut e.into_inner()),
            Err(TryLockError::WouldBlock) => py.detach(|| f(&mut self.locked())),
        }
    }

    /// The state, locked, waiting as long as it takes; call it with the
    /// GIL released.
    fn locked(&self) -> MutexGuard<'_, Md5> {
        // A panic inside `Md5`'s methods would be a bug that Python has
        // already seen as an exception; the state is still a state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn digest_bytes(&self, py: Python<'_>) -> [u8; 16] {
        self.with_state(py, |md5| md5.clone().finalize().into())
    }
}

#[pymethods]
impl Md5Hash {
    #[new]
    #[pyo3(
        signature = (*data, usedforsecurity = true),
        text_signature = "(data=b\"\", /, *, usedforsecurity=True)"
    )]
    fn new(py: Python<'_>, data: &Bound<'_, PyTuple>, usedforsecurity: bool) -> PyResult<Self> {
        let _ = usedforsecurity;
        // `*data` rather than a default of `None`: `hashlib.md5(None)`
        // raises, as any non-buffer does.
        if data.len() > 1 {
            return Err(PyTypeError::new_err(format!(
                "md5() takes at most 1 positional argument ({} given)",
                data.len()
            )));
        }
        let hash = Self {
            state: Mutex::new(Md5::new()),
        };
        if let Ok(data) = data.get_item(0) {
            hash.update(py, &data)?;
        }
        Ok(hash)
    }

    /// Hashes the bytes of ``data`` (any C-contiguous buffer) after
    /// those given so far. Works after ``digest``, as in ``hashlib``.
    #[pyo3(signature = (data, /))]
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let view = BufferView::get(data)?;
        let bytes = view.as_slice();
        if bytes.len() >= GIL_MINSIZE {
            // Released first and locked after: a thread waiting for the
            // lock then waits without the GIL.
            py.detach(|| self.locked().update(bytes));
        } else {
            self.with_state(py, |md5| md5.update(bytes));
        }
        Ok(())
    }

    /// The 16-byte digest of the bytes given so far. The object can go on
    /// taking updates.
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.digest_bytes(py))
    }

    /// ``digest()`` as 32 lowercase hex digits.
    fn hexdigest(&self, py: Python<'_>) -> String {
        let mut hex = [[0u8; 32]];
        md5x::multi::hex_into(&[self.digest_bytes(py)], &mut hex);
        hex[0].iter().map(|&b| char::from(b)).collect()
    }

    /// A new object with the same state: hashing goes on in each apart.
    fn copy(&self, py: Python<'_>) -> Self {
        Self {
            state: Mutex::new(self.with_state(py, |md5| md5.clone())),
        }
    }

    /// The algorithm's name, ``"md5"``, as ``hashlib.new`` takes it.
    #[getter]
    fn name(&self) -> &'static str {
        "md5"
    }

    /// The digest's size in bytes: 16.
    #[getter]
    fn digest_size(&self) -> usize {
        16
    }

    /// MD5's internal block size in bytes: 64.
    #[getter]
    fn block_size(&self) -> usize {
        64
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Md5Hash>()
}
