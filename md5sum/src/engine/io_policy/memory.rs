//! How much of the files read in a spinning disk's turn may wait in
//! memory to be hashed, across all threads.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The most bytes of files on spinning disks held in memory between being
/// read in the disk's turn and being hashed, across all threads. A file
/// that does not fit is streamed in its turn instead, read as it is hashed.
const IN_MEMORY: usize = 64 << 20;

/// Bytes counted against [`IN_MEMORY`] until dropped.
pub struct Held(usize);

/// Bytes held against [`IN_MEMORY`] now.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Reserves `n` bytes of [`IN_MEMORY`], if that many are left.
pub fn hold(n: u64) -> Option<Held> {
    let n = usize::try_from(n).ok()?;
    HELD.fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
        held.checked_add(n).filter(|&t| t <= IN_MEMORY)
    })
    .ok()?;
    Some(Held(n))
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.fetch_sub(self.0, Ordering::AcqRel);
    }
}
