//! The md-5 0.11 package's `SerializableState` against md-5 0.11.0 from
//! crates.io: the same bytes after the same input, each restores the
//! other's bytes and finishes with the other's digest, and both accept or
//! reject the same arbitrary bytes alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5_011::digest::common::hazmat::{SerializableState, SerializedState};
use md5_011::{Digest, Md5};
use md5_fuzz::Cursor;
use upstream_011::Md5 as Upstream;

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let split = c.u16() as usize;
    let raw = c.u8() & 1 == 1;
    let msg = c.rest();
    let (head, tail) = msg.split_at(split % (msg.len() + 1));
    let want = Upstream::digest(msg);

    let mut ours = Md5::new();
    ours.update(head);
    let mut theirs = Upstream::new();
    theirs.update(head);
    let saved = ours.serialize();
    assert_eq!(
        saved[..],
        theirs.serialize()[..],
        "after {} bytes",
        head.len()
    );

    let mut a = Md5::deserialize(&saved).expect("own state");
    a.update(tail);
    assert_eq!(a.finalize()[..], want[..]);
    let mut b = Upstream::deserialize(&SerializedState::<Upstream>::try_from(&saved[..]).unwrap())
        .expect("our state, read by md-5 0.11.0");
    b.update(tail);
    assert_eq!(b.finalize()[..], want[..]);
    ours.update(tail);
    assert_eq!(ours.finalize()[..], want[..]);

    // Arbitrary bytes as a saved state.
    if raw && msg.len() >= saved.len() {
        let bytes = &msg[..saved.len()];
        let o = Md5::deserialize(&SerializedState::<Md5>::try_from(bytes).unwrap());
        let u = Upstream::deserialize(&SerializedState::<Upstream>::try_from(bytes).unwrap());
        assert_eq!(o.is_ok(), u.is_ok(), "{bytes:02x?}");
        if let (Ok(mut o), Ok(mut u)) = (o, u) {
            assert_eq!(o.serialize()[..], u.serialize()[..]);
            o.update(tail);
            u.update(tail);
            assert_eq!(o.finalize()[..], u.finalize()[..]);
        }
    }
});
