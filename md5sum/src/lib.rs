//! The parts of the `md5sum` command that are also used outside it: the
//! checksum-list parser and the writer of checksum lines, which the fuzz
//! target `check_line` checks against each other. Not a stable API; the
//! command is the product.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod check_line;
pub mod record;
