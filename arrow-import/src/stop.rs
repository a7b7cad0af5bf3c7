//! The flag long work looks at between steps, set when its call is
//! interrupted (the Python package's `interrupt.rs` sets it at a pending
//! signal).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set when the call that started some work is interrupted: the work
/// looks at it between steps and gives up with [`Stopped`].
#[derive(Default)]
pub struct Stop(AtomicBool);

impl Stop {
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Stopped)` once set: for `?` between steps.
    pub fn check(&self) -> Result<(), Stopped> {
        if self.is_set() {
            Err(Stopped)
        } else {
            Ok(())
        }
    }

    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// The flag itself, for `md5x::files::Control::stop_on`.
    pub fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// What work that gave up at a [`Stop`] returns; the caller raises the
/// signal's exception instead.
#[derive(Debug)]
pub struct Stopped;
