//! Differential checks of a hasher against the crates.io release it
//! replaces, for the tests of md-5 0.10 (`tests/md5.rs`) and 0.11
//! (`compat/md-5-0.11/tests/common/` links to this file). `Digest` is each
//! package's own `digest` version, which its `upstream` implements too.

use crate::rng::Rng;
use md5::digest::{Digest, FixedOutputReset};

/// 600 random messages of up to 4 KiB, each split into random `update`
/// calls into one hasher a side, reused through `finalize_reset`: after
/// each message both sides agree, as do a clone taken before finishing and
/// the one-shot digests.
pub(crate) fn random_pieces_match<Ours, Theirs>(rng: &mut Rng)
where
    Ours: Digest + FixedOutputReset + Clone,
    Theirs: Digest + FixedOutputReset + Clone,
{
    let mut ours = Ours::new();
    let mut theirs = Theirs::new();
    for _ in 0..600 {
        let len = rng.below(4097);
        let msg = rng.bytes(len);
        let mut rest = &msg[..];
        while !rest.is_empty() {
            let cut = rng.below(rest.len() + 1).max(1);
            let (piece, tail) = rest.split_at(cut);
            // `Digest` and `Update` (under `FixedOutputReset`) both have an
            // `update`: name one.
            Digest::update(&mut ours, piece);
            Digest::update(&mut theirs, piece);
            rest = tail;
        }
        // Clone mid-stream: the copy and the original finish alike.
        if rng.below(4) == 0 {
            assert_eq!(ours.clone().finalize()[..], theirs.clone().finalize()[..]);
        }
        // finalize_reset leaves a fresh hasher for the next message.
        assert_eq!(
            ours.finalize_reset()[..],
            theirs.finalize_reset()[..],
            "{len} bytes"
        );
        assert_eq!(Ours::digest(&msg)[..], Theirs::digest(&msg)[..]);
    }
}

/// Every prefix of `msg`, of each length from 0 to `msg.len()`, digests
/// alike on both sides.
pub(crate) fn every_length_matches<Ours: Digest, Theirs: Digest>(msg: &[u8]) {
    for n in 0..=msg.len() {
        assert_eq!(
            Ours::digest(&msg[..n])[..],
            Theirs::digest(&msg[..n])[..],
            "length {n}"
        );
    }
}
