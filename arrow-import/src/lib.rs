//! The Arrow C Data importer of the md5x Python package's `hash_array`:
//! an untrusted producer's arrays of byte strings (utf8, large_utf8,
//! utf8_view, binary, large_binary, binary_view, or a struct of one such
//! column) checked before anything is read, their rows hashed in
//! `md5x::multi` batches, and the digests held as a column ready to be
//! exported. No Python here: `python/` takes the structs from PyCapsules
//! and hands the column back; `fuzz/` drives the checks with made-up
//! fields.
//!
//! `ffi` declares the C Data Interface's structs, `format` reads a
//! schema's type, `region` turns a pointer and counts into a slice,
//! `rows` checks and hashes an array's rows, `column` holds and encodes
//! the digests, `read_stream` pulls and hashes a stream's arrays.
//! `stepwise` and `stop` keep long work interruptible: rows are hashed in
//! steps of bounded work with a look at a [`stop::Stop`] between them (the
//! Python package's other batch calls use them too).

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod column;
pub mod ffi;
pub mod format;
pub mod read_stream;
mod region;
pub mod rows;
pub mod stepwise;
pub mod stop;
