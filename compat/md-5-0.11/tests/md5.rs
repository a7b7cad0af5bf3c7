//! Known-answer, differential, serialization and interface tests for the
//! `md-5` 0.11 API. `upstream` is RustCrypto's md-5 0.11.0.

use digest::{
    common::hazmat::{SerializableState, SerializedState},
    dev::{feed_rand_16mib, fixed_reset_test},
};
use hex_literal::hex;
use md5::{block_api::Md5Core, Digest, Md5};

use md5x_testkit::{rfc as rfc_cases, Rng};

md5x_testkit::digest_differential!();

// `data/md5_kat.blb`: the RFC 1321 suite, then lengths 0..=130 and a few
// longer ones, written by `data/gen_vectors.py` at the repository root from
// digests that Python's hashlib computed.
digest::new_test!(md5_kat, md5::Md5, fixed_reset_test);

#[test]
fn md5_kat_has_every_vector() {
    const BLOBS: &[&[u8]] =
        digest::dev::blobby::parse_into_slice!(include_bytes!("data/md5_kat.blb"));
    // 149 (input, digest) pairs, the same as the root package's md5.blb.
    assert_eq!(BLOBS.len(), 2 * 149);
    for pair in BLOBS.chunks_exact(2) {
        assert_eq!(Md5::digest(pair[0])[..], *pair[1]);
        assert_eq!(md5::const_digest(pair[0])[..], *pair[1]);
    }
}

#[test]
fn rfc1321_suite() {
    for (input, output) in rfc_cases::RFC1321 {
        assert_eq!(Md5::digest(input), output, "{input:?}");
    }
}

#[test]
fn rand_16mib() {
    let mut h = Md5::new();
    feed_rand_16mib(&mut h);
    assert_eq!(h.finalize(), hex!("61aec26f1b909578ef638ae02dac0977"));
}

/// Random messages split into random `update` calls, against md-5 0.11.0.
#[test]
fn matches_upstream_in_random_pieces() {
    random_pieces_match::<Md5, upstream::Md5>(&mut Rng(0x5eed_1101));
}

#[test]
fn every_length_matches_upstream() {
    let msg = Rng(0x5eed_1102).bytes(1024);
    every_length_matches::<Md5, upstream::Md5>(&msg);
    for n in 0..=msg.len() {
        let want = upstream::Md5::digest(&msg[..n]);
        assert_eq!(md5::const_digest(&msg[..n]), want.0, "length {n}");
    }
}

#[test]
fn compress_matches_upstream() {
    let mut rng = Rng(0x5eed_1103);
    let blocks: Vec<[u8; 64]> = (0..40).map(|_| rng.bytes(64).try_into().unwrap()).collect();
    for n in 0..=blocks.len() {
        let init = [0, 1, 2, 3].map(|_| rng.next() as u32);
        let (mut ours, mut theirs) = (init, init);
        md5::block_api::compress(&mut ours, &blocks[..n]);
        upstream::block_api::compress(&mut theirs, &blocks[..n]);
        assert_eq!(ours, theirs, "{n} blocks");
    }
}

/// The state md-5 0.11.0 serializes after 65 bytes of 0x13 (its own
/// `hash_serialization_test!` input): the state words and block count (24
/// bytes), then the buffer: its length and the buffered bytes, zero-padded.
const SERIALIZED_13X65: [u8; 88] = {
    let mut s = [0u8; 88];
    let head = hex!("9522cae5ddd693db0f99ab079e21d2ca 0100000000000000 0113");
    let mut i = 0;
    while i < head.len() {
        s[i] = head[i];
        i += 1;
    }
    s
};

#[test]
fn serialization_known_answer() {
    let mut h = Md5::new();
    h.update([0x13; 65]);
    let mut theirs = upstream::Md5::new();
    theirs.update([0x13; 65]);
    // The constant above is md-5 0.11.0's output; check that it still is.
    assert_eq!(theirs.serialize()[..], SERIALIZED_13X65);
    assert_eq!(h.serialize()[..], SERIALIZED_13X65);

    // Resume, hash 65 more bytes: the same as 130 bytes in one go.
    let mut h = Md5::deserialize(&h.serialize()).unwrap();
    h.update([0x13; 65]);
    assert_eq!(h.finalize(), Md5::digest([0x13; 130]));
}

/// Saves the state at random points of random messages, into this package
/// and md-5 0.11.0: the bytes agree, and each side resumes from the other's.
#[test]
fn serialized_state_interoperates_with_upstream() {
    let mut rng = Rng(0x5eed_1104);
    for round in 0..400 {
        let len = rng.below(700);
        let msg = rng.bytes(len);
        let cut = rng.below(len + 1);
        let (head, tail) = msg.split_at(cut);

        let mut ours = Md5::new();
        let mut theirs = upstream::Md5::new();
        // Feed the head in two pieces, so the buffer holds odd amounts.
        let split = rng.below(head.len() + 1);
        for piece in [&head[..split], &head[split..]] {
            ours.update(piece);
            theirs.update(piece);
        }
        let ours_bytes = ours.serialize();
        let theirs_bytes = theirs.serialize();
        assert_eq!(ours_bytes[..], theirs_bytes[..], "round {round}");

        let want = upstream::Md5::digest(&msg);
        // Ours resumed from upstream's bytes, and upstream from ours.
        let mut a = Md5::deserialize(&SerializedState::<Md5>::try_from(&theirs_bytes[..]).unwrap())
            .unwrap();
        let mut b = upstream::Md5::deserialize(
            &SerializedState::<upstream::Md5>::try_from(&ours_bytes[..]).unwrap(),
        )
        .unwrap();
        // And ours from its own bytes, after the original moved on.
        ours.update(b"something else");
        let mut c = Md5::deserialize(&ours_bytes).unwrap();
        a.update(tail);
        b.update(tail);
        c.update(tail);
        assert_eq!(a.finalize(), want, "round {round}");
        assert_eq!(b.finalize(), want, "round {round}");
        assert_eq!(c.finalize(), want, "round {round}");
    }
}

/// The core alone (24 bytes) serializes as md-5 0.11.0's core does.
#[test]
fn core_serialization_matches_upstream() {
    use digest::block_api::UpdateCore;
    let mut rng = Rng(0x5eed_1105);
    let mut ours = Md5Core::default();
    let mut theirs = upstream::block_api::Md5Core::default();
    for _ in 0..20 {
        let n = rng.below(5);
        let bytes = rng.bytes(64 * n);
        let blocks: Vec<_> = bytes
            .chunks_exact(64)
            .map(|c| digest::block_api::Block::<Md5Core>::try_from(c).unwrap())
            .collect();
        ours.update_blocks(&blocks);
        theirs.update_blocks(&blocks);
        let s = ours.serialize();
        assert_eq!(s.len(), 24);
        assert_eq!(s[..], theirs.serialize()[..]);
        let back = Md5Core::deserialize(&s).unwrap();
        assert_eq!(back.serialize(), s);
    }
}

/// A buffer length of 64 or more, or bytes after the buffered ones, is not a
/// state either package produces: both refuse it.
#[test]
fn deserialize_rejects_what_upstream_rejects() {
    let mut rng = Rng(0x5eed_1106);
    let mut h = Md5::new();
    h.update(rng.bytes(100)); // 36 bytes buffered
    let good = h.serialize();
    let mut cases = Vec::new();
    for pos in [36u8, 63, 64, 65, 255] {
        let mut s = good;
        s[24] = pos;
        cases.push(s);
    }
    for at in [24 + 1 + 36, 24 + 1 + 62] {
        let mut s = good;
        s[at] = 1;
        cases.push(s);
    }
    for s in cases {
        let theirs = upstream::Md5::deserialize(
            &SerializedState::<upstream::Md5>::try_from(&s[..]).unwrap(),
        );
        let ours = Md5::deserialize(&s);
        assert_eq!(ours.is_ok(), theirs.is_ok(), "length byte {}", s[24]);
        if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
            assert_eq!(ours.finalize(), theirs.finalize());
        }
    }
    assert!(Md5::deserialize(&good).is_ok());
}

/// HMAC-MD5 test cases 1-7 of RFC 2202, through hmac 0.13's three types.
#[test]
fn hmac_rfc2202() {
    use hmac::{Hmac, HmacReset, KeyInit, Mac, SimpleHmac};
    for (i, (key, data, tag)) in rfc_cases::RFC2202_HMAC.into_iter().enumerate() {
        let mut mac = <Hmac<Md5> as KeyInit>::new_from_slice(key).unwrap();
        mac.update(data);
        assert_eq!(mac.finalize().into_bytes(), tag, "case {}", i + 1);

        let mut mac = <HmacReset<Md5> as KeyInit>::new_from_slice(key).unwrap();
        mac.update(data);
        assert_eq!(mac.finalize_reset().into_bytes(), tag, "case {}", i + 1);
        mac.update(data);
        mac.verify_slice(&tag).unwrap();

        let mut mac = <SimpleHmac<Md5> as KeyInit>::new_from_slice(key).unwrap();
        mac.update(data);
        assert_eq!(mac.finalize().into_bytes(), tag, "case {}", i + 1);
    }
}

/// HMAC over random keys and messages, against HMAC over md-5 0.11.0.
#[test]
fn hmac_matches_upstream() {
    use hmac::{Hmac, KeyInit, Mac};
    let mut rng = Rng(0x5eed_1107);
    for _ in 0..200 {
        let key_len = rng.below(150);
        let key = rng.bytes(key_len);
        let msg_len = rng.below(600);
        let msg = rng.bytes(msg_len);
        let mut ours = <Hmac<Md5> as KeyInit>::new_from_slice(&key).unwrap();
        let mut theirs = <Hmac<upstream::Md5> as KeyInit>::new_from_slice(&key).unwrap();
        ours.update(&msg);
        theirs.update(&msg);
        assert_eq!(ours.finalize().into_bytes(), theirs.finalize().into_bytes());
    }
}

/// The traits md-5 0.11.0 implements, checked at compile time, and the
/// strings it prints.
#[test]
fn traits_and_names() {
    use digest::{
        block_api::{
            AlgorithmName, BlockSizeUser, BufferKindUser, CoreProxy, EagerHash, FixedOutputCore,
            UpdateCore,
        },
        common::hazmat::SerializableState,
        typenum::Unsigned,
        FixedOutput, FixedOutputReset, HashMarker, OutputSizeUser, Reset, Update,
    };
    fn wrapper<
        T: Default
            + Clone
            + core::fmt::Debug
            + AlgorithmName
            + BlockSizeUser
            + OutputSizeUser
            + CoreProxy
            + Update
            + FixedOutput
            + FixedOutputReset
            + HashMarker
            + Reset
            + SerializableState
            + EagerHash
            + Send
            + Sync
            + Unpin,
    >() {
    }
    fn core<
        T: Default
            + Clone
            + core::fmt::Debug
            + AlgorithmName
            + BlockSizeUser
            + BufferKindUser
            + OutputSizeUser
            + UpdateCore
            + FixedOutputCore
            + HashMarker
            + Reset
            + SerializableState
            + Send
            + Sync,
    >() {
    }
    wrapper::<Md5>();
    core::<Md5Core>();
    assert_eq!(format!("{:?}", Md5::new()), "Md5 { ... }");
    assert_eq!(format!("{:?}", Md5Core::default()), "Md5Core { ... }");
    assert_eq!(
        format!("{:?}", Md5::new()),
        format!("{:?}", upstream::Md5::new())
    );

    struct Name<T>(core::marker::PhantomData<T>);
    impl<T: AlgorithmName> core::fmt::Display for Name<T> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            T::write_alg_name(f)
        }
    }
    assert_eq!(Name::<Md5>(Default::default()).to_string(), "Md5");
    assert_eq!(Name::<Md5Core>(Default::default()).to_string(), "Md5");
    assert_eq!(<Md5 as Digest>::output_size(), 16);
    assert_eq!(<Md5 as BlockSizeUser>::block_size(), 64);
    assert_eq!(<Md5 as SerializableState>::SerializedStateSize::USIZE, 88);

    // Decompose into core and buffer and back, mid-stream.
    let mut h = Md5::new();
    Update::update(&mut h, b"ab");
    let (core, buffer) = h.decompose();
    let mut h = Md5::compose(core, buffer);
    Update::update(&mut h, b"c");
    let mut g = h.clone();
    assert_eq!(
        g.finalize_fixed_reset(),
        hex!("900150983cd24fb0d6963f7d28e17f72")
    );
    Reset::reset(&mut h);
    assert_eq!(h.finalize_fixed(), Md5::digest(b""));
}

#[cfg(feature = "alloc")]
#[test]
fn dyn_digest() {
    use digest::DynDigest;
    let mut h: Box<dyn DynDigest> = Box::new(Md5::new());
    h.update(b"abc");
    let copy = h.box_clone();
    assert_eq!(h.finalize()[..], hex!("900150983cd24fb0d6963f7d28e17f72"));
    assert_eq!(
        copy.finalize()[..],
        hex!("900150983cd24fb0d6963f7d28e17f72")
    );
}

#[cfg(feature = "oid")]
#[test]
fn oid() {
    use digest::const_oid::AssociatedOid;
    assert_eq!(Md5::OID.to_string(), "1.2.840.113549.2.5");
    assert_eq!(Md5::OID, upstream::Md5::OID);
}

#[cfg(feature = "zeroize")]
#[test]
fn zeroize_on_drop() {
    fn zeroizes<T: digest::zeroize::ZeroizeOnDrop>() {}
    zeroizes::<Md5>();
    zeroizes::<Md5Core>();
}

/// Equal digests cannot show which code ran: pin the backend per target and
/// configuration, so a silent fallback to `soft` fails. `md5_backend="soft"`
/// given in RUSTFLAGS reaches the root package too, and this checks it.
#[test]
fn backend_is_the_expected_one() {
    println!("md5::backend() = {}", md5::backend());
    assert_eq!(md5::backend(), md5x_testkit::backend::expected(false));
}
