//! The API under the `md5x` name: each public module a dependent reaches
//! through `md5x::`, against RFC 1321's known answers and S3's ETag
//! formula written out. The unit tests are in `src/`; the root package's
//! tests (`tests/` at the repository root) run the whole library through
//! its re-exports under md-5's name.

use hex_literal::hex;
use md5x::{Digest, Md5};

const RFC_1321: [(&str, [u8; 16]); 4] = [
    ("", hex!("d41d8cd98f00b204e9800998ecf8427e")),
    ("abc", hex!("900150983cd24fb0d6963f7d28e17f72")),
    ("message digest", hex!("f96b697d7cb7938d525a2f31aaf161d0")),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        hex!("57edf4a22be3c955ac49da2e2107b67a"),
    ),
];

#[test]
fn digest_traits() {
    for (input, expected) in RFC_1321 {
        assert_eq!(Md5::digest(input)[..], expected, "{input:?}");
        let mut hasher = Md5::new();
        for byte in input.bytes() {
            hasher.update([byte]);
        }
        assert_eq!(hasher.finalize()[..], expected, "{input:?} bytewise");
    }
}

#[test]
fn const_digest() {
    const ABC: [u8; 16] = md5x::const_digest(b"abc");
    assert_eq!(ABC, RFC_1321[1].1);
}

#[test]
fn multi() {
    let inputs: Vec<&str> = RFC_1321.iter().map(|(m, _)| *m).collect();
    let digests = md5x::multi::digest_many(&inputs);
    for ((input, expected), got) in RFC_1321.iter().zip(&digests) {
        assert_eq!(got, expected, "{input:?}");
    }
    let mut hex = vec![[0u8; 32]; digests.len()];
    md5x::multi::hex_into(&digests, &mut hex);
    assert_eq!(&hex[1], b"900150983cd24fb0d6963f7d28e17f72");
    assert!(md5x::multi::lanes() >= 1);
}

#[test]
fn etag() {
    // 3 parts of 3, 3 and 1 bytes: hex(MD5(MD5("abc") ‖ MD5("def") ‖ MD5("g"))) + "-3".
    let mut parts = Vec::new();
    for part in ["abc", "def", "g"] {
        parts.extend_from_slice(&Md5::digest(part));
    }
    let expected = format!("{:x}-3", Md5::digest(&parts));
    let etag = md5x::etag::multipart(b"abcdefg", 3).unwrap();
    assert_eq!(etag.to_string(), expected);
    assert_eq!(etag.parts(), Some(3));
}

#[test]
fn backends_are_named() {
    assert!(!md5x::backend().is_empty());
    assert!(!md5x::multi::backend().is_empty());
}
