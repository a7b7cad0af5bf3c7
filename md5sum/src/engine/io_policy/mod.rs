//! The I/O policy: which disks are read one file at a time, in argument
//! order (really rotational ones: [`media`]), how much of them may wait in
//! memory, and how far ahead the kernel is asked to read, given to
//! `md5x::files`, which reads and orders, as [`Reads`]. Data already in
//! the page cache never waits for the turn.

pub mod media;
mod reads;

pub use reads::Reads;
#[cfg(test)]
pub use reads::PANIC_HERE;
