//! Known-answer, differential and interface tests for `Md5`.

use digest::dev::{blobby::Blob2Iterator, feed_rand_16mib, fixed_reset_test};
use hex_literal::hex;
use md5::{Digest, Md5};

static VECTORS: &[u8] = include_bytes!("../data/md5.blb");

/// The (input, digest) pairs of `data/md5.blb`.
fn vectors() -> impl Iterator<Item = (&'static [u8], &'static [u8])> {
    Blob2Iterator::new(VECTORS)
        .expect("data/md5.blb is well formed")
        .map(|row| {
            let [input, output] = row.expect("data/md5.blb row");
            (input, output)
        })
}

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

#[test]
fn known_answers() {
    let mut count = 0;
    for (i, (input, output)) in vectors().enumerate() {
        if let Some(desc) = fixed_reset_test::<Md5>(input, output) {
            panic!("vector {i} ({} bytes): {desc}", input.len());
        }
        count += 1;
    }
    // The RFC 1321 suite, then lengths 0..=130 and a few longer ones.
    assert_eq!(count, 149);
}

#[test]
fn rfc1321_suite() {
    let cases: [(&[u8], [u8; 16]); 7] = [
        (b"", hex!("d41d8cd98f00b204e9800998ecf8427e")),
        (b"a", hex!("0cc175b9c0f1b6a831c399e269772661")),
        (b"abc", hex!("900150983cd24fb0d6963f7d28e17f72")),
        (b"message digest", hex!("f96b697d7cb7938d525a2f31aaf161d0")),
        (
            b"abcdefghijklmnopqrstuvwxyz",
            hex!("c3fcd3d76192e4007dfb496cca67e13b"),
        ),
        (
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            hex!("d174ab98d277d9f5a5611c2c9f419d9f"),
        ),
        (
            b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            hex!("57edf4a22be3c955ac49da2e2107b67a"),
        ),
    ];
    for (input, output) in cases {
        assert_eq!(Md5::digest(input)[..], output, "{input:?}");
    }
}

#[test]
fn rand_16mib() {
    let mut h = Md5::new();
    feed_rand_16mib(&mut h);
    assert_eq!(h.finalize()[..], hex!("61aec26f1b909578ef638ae02dac0977"));
}

/// Random messages split into random `update` calls, against md-5 0.10.6.
#[test]
fn matches_upstream_in_random_pieces() {
    let mut rng = Rng(0x5eed_0001);
    let mut ours = Md5::new();
    let mut theirs = upstream::Md5::new();
    for _ in 0..600 {
        let len = rng.below(4097);
        let msg = rng.bytes(len);
        let mut rest = &msg[..];
        while !rest.is_empty() {
            let cut = rng.below(rest.len() + 1).max(1);
            let (piece, tail) = rest.split_at(cut);
            ours.update(piece);
            theirs.update(piece);
            rest = tail;
        }
        // Clone mid-stream: the copy and the original finish alike.
        if rng.below(4) == 0 {
            let copy = ours.clone();
            assert_eq!(copy.finalize()[..], theirs.clone().finalize()[..]);
        }
        // finalize_reset leaves a fresh hasher for the next message.
        assert_eq!(
            ours.finalize_reset()[..],
            theirs.finalize_reset()[..],
            "{} bytes",
            msg.len()
        );
        assert_eq!(Md5::digest(&msg)[..], upstream::Md5::digest(&msg)[..]);
    }
}

#[test]
fn every_length_matches_upstream() {
    let msg = Rng(0x5eed_0002).bytes(1024);
    for n in 0..=msg.len() {
        assert_eq!(
            Md5::digest(&msg[..n])[..],
            upstream::Md5::digest(&msg[..n])[..],
            "length {n}"
        );
    }
}

/// The selected backend against the portable one: `const_digest` runs the
/// soft backend at run time too. Every length 0..=1024, each fed in pieces
/// cut at seeded random points.
#[test]
fn every_length_in_random_pieces_matches_soft() {
    let mut rng = Rng(0x5eed_0005);
    for n in 0..=1024 {
        let msg = rng.bytes(n);
        let mut h = Md5::new();
        let mut rest = &msg[..];
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(rng.below(rest.len() + 1));
            h.update(piece);
            rest = tail;
        }
        assert_eq!(h.finalize()[..], md5::const_digest(&msg), "length {n}");
    }
}

#[test]
fn const_digest_matches_vectors() {
    for (input, output) in vectors() {
        assert_eq!(
            md5::const_digest(input)[..],
            *output,
            "{} bytes",
            input.len()
        );
    }
    let msg = Rng(0x5eed_0003).bytes(300);
    for n in 0..=msg.len() {
        assert_eq!(md5::const_digest(&msg[..n])[..], Md5::digest(&msg[..n])[..]);
    }
}

#[test]
fn const_digest_at_compile_time() {
    // A `const` item forces evaluation by the compiler.
    const ABC: [u8; 16] = md5::const_digest(b"abc");
    const LONG: [u8; 16] = md5::const_digest(&[b'x'; 1000]);
    assert_eq!(ABC, hex!("900150983cd24fb0d6963f7d28e17f72"));
    assert_eq!(LONG[..], Md5::digest([b'x'; 1000])[..]);
}

/// HMAC-MD5 test cases 1-7 of RFC 2202.
#[test]
fn hmac_rfc2202() {
    use hmac::{Hmac, Mac};
    let cases: [(&[u8], &[u8], [u8; 16]); 7] = [
        (
            &[0x0b; 16],
            b"Hi There",
            hex!("9294727a3638bb1c13f48ef8158bfc9d"),
        ),
        (
            b"Jefe",
            b"what do ya want for nothing?",
            hex!("750c783e6ab0b503eaa86e310a5db738"),
        ),
        (
            &[0xaa; 16],
            &[0xdd; 50],
            hex!("56be34521d144c88dbb8c733f0e8b3f6"),
        ),
        (
            &hex!("0102030405060708090a0b0c0d0e0f10111213141516171819"),
            &[0xcd; 50],
            hex!("697eaf0aca3a3aea3a75164746ffaa79"),
        ),
        (
            &[0x0c; 16],
            b"Test With Truncation",
            hex!("56461ef2342edc00f9bab995690efd4c"),
        ),
        (
            &[0xaa; 80],
            b"Test Using Larger Than Block-Size Key - Hash Key First",
            hex!("6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd"),
        ),
        (
            &[0xaa; 80],
            b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data",
            hex!("6f630fad67cda0ee1fb1f562db3aa53e"),
        ),
    ];
    for (key, data, tag) in cases {
        let mut mac = Hmac::<Md5>::new_from_slice(key).unwrap();
        mac.update(data);
        assert_eq!(mac.finalize().into_bytes()[..], tag);
    }
}

#[test]
fn generic_digest_code() {
    fn hex_of<D: Digest>(data: &[u8]) -> String {
        D::digest(data).iter().map(|b| format!("{b:02x}")).collect()
    }
    assert_eq!(hex_of::<Md5>(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    assert_eq!(<Md5 as Digest>::output_size(), 16);
}

#[test]
fn io_write_and_format() {
    let data = Rng(0x5eed_0004).bytes(100_000);
    let mut h = Md5::new();
    let n = std::io::copy(&mut &data[..], &mut h).unwrap();
    assert_eq!(n, 100_000);
    let digest = h.finalize();
    assert_eq!(digest[..], upstream::Md5::digest(&data)[..]);
    assert_eq!(
        format!("{:x}", Md5::digest(b"hello world")),
        "5eb63bbbe01eeed093cb22bb8f5acdc3"
    );
    assert_eq!(
        format!("{:X}", Md5::digest(b"")),
        "D41D8CD98F00B204E9800998ECF8427E"
    );
}

#[test]
fn traits_and_names() {
    use digest::core_api::CoreWrapper;
    use digest::{FixedOutput, FixedOutputReset, Reset, Update};
    let mut h = Md5::default();
    Update::update(&mut h, b"abc");
    let mut g = h.clone();
    assert_eq!(
        FixedOutputReset::finalize_fixed_reset(&mut g)[..],
        hex!("900150983cd24fb0d6963f7d28e17f72")
    );
    Reset::reset(&mut h);
    assert_eq!(FixedOutput::finalize_fixed(h)[..], Md5::digest(b"")[..]);
    assert_eq!(format!("{:?}", Md5::new()), "Md5 { .. }");
    assert_eq!(format!("{:?}", md5::Md5Core::default()), "Md5Core { ... }");
    let _: CoreWrapper<md5::Md5Core> = Md5::new();
}

#[cfg(feature = "oid")]
#[test]
fn oid() {
    use digest::const_oid::AssociatedOid;
    assert_eq!(Md5::OID.to_string(), "1.2.840.113549.2.5");
}

/// Equal digests cannot show which code ran: pin the backend per target and
/// configuration, so a silent fallback to `soft` fails.
#[test]
#[allow(clippy::if_same_then_else)] // one arm per target; several name the same backend
fn backend_is_the_expected_one() {
    let expected = if cfg!(any(md5_backend = "soft", feature = "force-soft", miri)) {
        "soft"
    } else if cfg!(target_arch = "x86_64") {
        "x86_64-asm"
    } else if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
        "aarch64-asm"
    } else if cfg!(target_arch = "loongarch64") {
        "loongarch64-asm"
    } else {
        "soft"
    };
    println!("md5::backend() = {}", md5::backend());
    assert_eq!(md5::backend(), expected);
}
