//! The I/O policy: which disks are read one file at a time, in argument
//! order (really rotational ones: [`media`]), the turn that orders those
//! reads ([`turnstile`]), how much of them may wait in memory
//! ([`memory`]), and how far ahead the kernel is asked to read (below).
//! Data already in the page cache never waits for the turn.

pub mod media;
mod memory;
mod turnstile;

pub use media::on_spinning_disk;
pub use memory::{hold, Held};
pub use turnstile::{Ticket, Turnstile};

/// The most bytes the kernel is asked to read ahead for one file that is
/// not in the page cache; the file's own sequential readahead takes over
/// from there. Asking for whole 1 MiB files made 100 of them cold take a
/// third longer here than asking for their first 256 KiB (the whole claim's
/// reads were submitted before the first file could be hashed).
pub const HINT_MAX: u64 = 256 << 10;

/// The most bytes of the next file on a spinning disk asked of the kernel
/// while one is read in its turn.
pub const HINT_MAX_IN_TURN: u64 = 8 << 20;
