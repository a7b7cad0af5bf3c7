//! Ctrl-C for long calls. Python runs a signal's handler (SIGINT's raises
//! `KeyboardInterrupt`) only on the main thread, between bytecodes, so a
//! call that hashes for seconds in Rust must look for a pending signal
//! itself: [`check_signals`], the one place this package asks, is what a
//! stop callback handed to the library calls.
//!
//! The work runs on a thread of its own ([`run`]), looking at a [`Stop`]
//! between steps of bounded work; the calling thread waits with the GIL
//! released and looks for a signal every [`POLL`]. At one it sets the
//! `Stop`, waits for the work to give up (a step), and raises.

use crate::stop::Stop;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::{mpsc, Mutex};
use std::time::Duration;

/// How often a waiting caller looks for a pending signal.
const POLL: Duration = Duration::from_millis(50);

/// Raises the exception of a pending signal's handler
/// (`PyErr_CheckSignals`): `KeyboardInterrupt` for SIGINT. Off the main
/// thread, and with no signal pending, `Ok`.
pub(crate) fn check_signals(py: Python<'_>) -> PyResult<()> {
    py.check_signals()
}

/// Runs `work` on a thread of its own and returns what it returns, while
/// this thread waits with the GIL released and looks for a pending signal
/// every [`POLL`]: at one, `work`'s [`Stop`] is set, `work` is waited for
/// (it gives up at its next step) and the signal's exception raised.
///
/// Costs a thread's start (tens of microseconds): for calls whose work
/// takes longer. Where no thread can start, `work` runs here with the GIL
/// released, not interruptible. A panic in `work` (a bug) is raised as
/// `RuntimeError`, not as a `PanicException`.
pub(crate) fn run<T: Send>(py: Python<'_>, work: impl FnOnce(&Stop) -> T + Send) -> PyResult<T> {
    let stop = Stop::default();
    // Taken by the thread, or by this one where the thread cannot start.
    let work = Mutex::new(Some(work));
    let take = || work.lock().ok().and_then(|mut w| w.take());
    std::thread::scope(|s| {
        let (done, mut finished) = mpsc::sync_channel::<()>(1);
        let (stop, take) = (&stop, &take);
        let thread = std::thread::Builder::new().spawn_scoped(s, move || {
            let out = take().map(|work| work(stop));
            let _ = done.send(());
            out
        });
        let Ok(thread) = thread else {
            let work = take().ok_or_else(|| PyRuntimeError::new_err("md5x: work lost"))?;
            return Ok(py.detach(|| work(stop)));
        };
        match recv(py, &mut finished, stop) {
            Err(e) => {
                drop(py.detach(|| thread.join()));
                Err(e)
            }
            // Done, or the thread panicked before it could say so.
            Ok(_) => match py.detach(|| thread.join()) {
                Ok(Some(out)) => Ok(out),
                Ok(None) => Err(PyRuntimeError::new_err("md5x: work lost")),
                Err(panic) => Err(PyRuntimeError::new_err(format!(
                    "md5x: internal error: {}",
                    panic_message(&*panic)
                ))),
            },
        }
    })
}

/// The next value of `rx`, waited for with the GIL released, looking for
/// a pending signal every [`POLL`]: at one, `stop` is set and the signal's
/// exception raised. `None` once the channel is closed.
pub(crate) fn recv<T: Send>(
    py: Python<'_>,
    rx: &mut mpsc::Receiver<T>,
    stop: &Stop,
) -> PyResult<Option<T>> {
    loop {
        let rx = &mut *rx;
        match py.detach(move || rx.recv_timeout(POLL)) {
            Ok(value) => return Ok(Some(value)),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(None),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = check_signals(py) {
                    stop.set();
                    return Err(e);
                }
            }
        }
    }
}

/// The message of a panic's payload, where it is a string.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}
