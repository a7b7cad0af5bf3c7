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

use md5x_arrow_import::stop::Stop;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::panic::AssertUnwindSafe;
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
/// takes longer. Off the main thread, and where no thread can start,
/// `work` runs here with the GIL released, not interruptible (off the main
/// thread no signal handler runs anyway). A panic in `work` (a bug) is raised as
/// `RuntimeError`, not as a `PanicException`.
pub(crate) fn run<T: Send>(py: Python<'_>, work: impl FnOnce(&Stop) -> T + Send) -> PyResult<T> {
    let stop = Stop::default();
    if !on_main_thread(py)? {
        // No signal handler runs here, so no thread is needed to see one:
        // a DuckDB or thread-pool caller does not pay a thread's start a
        // call. The producer of a stream may take the GIL here as well.
        let out = py.detach(|| std::panic::catch_unwind(AssertUnwindSafe(|| work(&stop))));
        return out.map_err(|panic| internal_error(&*panic));
    }
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
                Err(panic) => Err(internal_error(&*panic)),
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

/// Whether this is the thread Python runs signal handlers on: the main
/// thread (`threading.main_thread()`). Its error is raised, not taken for
/// an answer: `threading.main_thread` is Python code, where a pending
/// signal's handler runs, so the error may be the `KeyboardInterrupt` of a
/// Ctrl-C that came as the call began, which no later check would see.
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let main = threading.call_method0("main_thread")?.getattr("ident")?;
    main.eq(threading.call_method0("get_ident")?)
}

/// A panic in work run here (a bug), as a Python exception.
fn internal_error(payload: &(dyn std::any::Any + Send)) -> PyErr {
    PyRuntimeError::new_err(format!("md5x: internal error: {}", panic_message(payload)))
}

/// The message of a panic's payload, where it is a string.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}
