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

use md5x_testkit::{rfc as rfc_cases, Rng};

md5x_testkit::digest_differential!();

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
    for (input, output) in rfc_cases::RFC1321 {
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
    random_pieces_match::<Md5, upstream::Md5>(&mut Rng(0x5eed_0001));
}

#[test]
fn every_length_matches_upstream() {
    let msg = Rng(0x5eed_0002).bytes(1024);
    every_length_matches::<Md5, upstream::Md5>(&msg);
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
    for (key, data, tag) in rfc_cases::RFC2202_HMAC {
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
fn backend_is_the_expected_one() {
    println!("md5::backend() = {}", md5::backend());
    assert_eq!(
        md5::backend(),
        md5x_testkit::backend::expected(cfg!(feature = "force-soft"))
    );
}
