//! Hashing many inputs: md5sum's policy over `md5x::files::hash_in_order`,
//! which reads and hashes them on worker threads (claims of files, small
//! ones batched through the multi-buffer kernel, large ones streamed side
//! by side in lanes), waits for a descriptor where none is left, and hands
//! the results back in input order, with a bounded window of inputs in
//! flight.
//!
//! - [`shared`]: what to hash, what comes of it, and how a run hashes;
//! - [`run`](mod@run): md5sum's inputs as the library's jobs, and standard
//!   input read in its turn;
//! - [`io_policy`]: what is read when: readahead for what is not cached,
//!   spinning disks read in order, one file at a time, inputs that are not
//!   regular files read alone;
//! - [`page_cache`]: what the page cache holds of a file.
//!
//! How many threads hash follows `-j` (at most that many); how many reads
//! are in flight follows the device: a claim's files that are not in the
//! page cache are all asked of the kernel before any is waited for, a
//! stream is read on a thread of its own, and a spinning disk is read by
//! one claim at a time in argument order, never while its files are
//! hashed.
//!
//! Only regular files are read out of order or side by side. Anything else
//! (standard input, pipes, FIFOs, character devices, `/dev/stdin`) is read
//! on the calling thread, alone and in argument order: two names for one
//! pipe must see its bytes in that order, as with GNU md5sum. So is the
//! file standard output writes to, after every line before it is written,
//! so that it holds what it would hold for GNU md5sum. Nothing after
//! standard input is taken from the list of inputs before standard input
//! is read, since that list may come from standard input too.
//!
//! The engine never hangs and never fails for want of resources that GNU
//! md5sum does not need: a thread that cannot be started means fewer
//! workers (none at all: the calling thread hashes) or no reader thread, a
//! panicking worker ends the run after the results before it, and "too
//! many open files" means waiting until another of this process's files
//! is closed, down to one open file at a time.

pub mod io_policy;
mod page_cache;
mod run;
mod shared;

pub use run::run;
pub use shared::{Config, HashError, Input, Step, READ_STDIN, STDIN_CLOSED};

#[cfg(test)]
mod test_dir;
#[cfg(test)]
mod tests;
