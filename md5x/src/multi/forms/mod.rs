//! The forms a batch comes in and goes out as, each on the one scheduler:
//! a column's buffer and offsets, a column's views, messages in pieces,
//! the `rayon` forms, digests written as hex or base64, and a column
//! hashed straight to hex or base64.

pub(super) mod base64;
pub(super) mod encoded;
pub(super) mod hex;
pub(super) mod offsets;
#[cfg(feature = "rayon")]
pub(super) mod par;
pub(super) mod pieces;
pub(super) mod views;

/// Panics unless a batch of `inputs` messages has as many output slots.
#[track_caller]
pub(super) fn check_out(what: &str, inputs: usize, out: usize) {
    assert!(
        inputs == out,
        "md5x::multi::{what}: {inputs} inputs but {out} output slots"
    );
}
