//! The flag long work looks at between steps, set when its call is
//! interrupted (`interrupt.rs` sets it at a pending signal). Plain Rust,
//! no Python: the Arrow import's fuzz target builds it too.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set when the call that started some work is interrupted: the work
/// looks at it between steps and gives up with [`Stopped`].
#[derive(Default)]
pub(crate) struct Stop(AtomicBool);

impl Stop {
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Stopped)` once set: for `?` between steps.
    pub(crate) fn check(&self) -> Result<(), Stopped> {
        if self.is_set() {
            Err(Stopped)
        } else {
            Ok(())
        }
    }

    pub(crate) fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// The flag itself, for `md5x::files::Control::stop_on`.
    pub(crate) fn flag(&self) -> &AtomicBool {
        &self.0
    }
}

/// What work that gave up at a [`Stop`] returns; the caller raises the
/// signal's exception instead.
#[derive(Debug)]
pub(crate) struct Stopped;
