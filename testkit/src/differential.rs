//! Differential checks of a `digest` hasher against the crates.io release
//! it replaces. A macro, because md-5 0.10 and 0.11 implement the traits of
//! two `digest` versions: it expands where it is called, against that
//! package's `md5::digest`.

/// Defines, in the calling module, two checks over the caller's
/// `md5::digest` traits:
///
/// * `random_pieces_match::<Ours, Theirs>(&mut Rng)`: 600 random messages
///   of up to 4 KiB, each split into random `update` calls into one hasher
///   a side, reused through `finalize_reset`: after each message both sides
///   agree, as do a clone taken before finishing and the one-shot digests.
/// * `every_length_matches::<Ours, Theirs>(msg)`: every prefix of `msg`
///   digests alike on both sides.
#[macro_export]
macro_rules! digest_differential {
    () => {
        fn random_pieces_match<Ours, Theirs>(rng: &mut $crate::Rng)
        where
            Ours: md5::digest::Digest + md5::digest::FixedOutputReset + Clone,
            Theirs: md5::digest::Digest + md5::digest::FixedOutputReset + Clone,
        {
            use md5::digest::Digest;
            let mut ours = Ours::new();
            let mut theirs = Theirs::new();
            for _ in 0..600 {
                let len = rng.below(4097);
                let msg = rng.bytes(len);
                let mut rest = &msg[..];
                while !rest.is_empty() {
                    let cut = rng.below(rest.len() + 1).max(1);
                    let (piece, tail) = rest.split_at(cut);
                    // `Digest` and `Update` (under `FixedOutputReset`) both
                    // have an `update`: name one.
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

        fn every_length_matches<Ours: md5::digest::Digest, Theirs: md5::digest::Digest>(
            msg: &[u8],
        ) {
            for n in 0..=msg.len() {
                assert_eq!(
                    Ours::digest(&msg[..n])[..],
                    Theirs::digest(&msg[..n])[..],
                    "length {n}"
                );
            }
        }
    };
}
