//! The md5 crate's own tests, rewritten: the RFC 1321 suite through
//! `compute` and `Context`, chunked input at the padding edges (0.8's),
//! indexing, and 512 MiB and 4 GiB inputs through `io::Write`, whose bit
//! counts cross 2^29 and 2^32 bytes. The md5 0.7 package runs them too
//! (its `tests/vectors.rs` is a link to this file).

use md5::{compute, Context};

#[path = "common/release.rs"]
mod release;
use release::finish;

const SUITE: [(&str, &str); 8] = [
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
    ("a", "0cc175b9c0f1b6a831c399e269772661"),
    ("abc", "900150983cd24fb0d6963f7d28e17f72"),
    ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
    (
        "abcdefghijklmnopqrstuvwxyz",
        "c3fcd3d76192e4007dfb496cca67e13b",
    ),
    (
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        "d174ab98d277d9f5a5611c2c9f419d9f",
    ),
    (
        "0123456789012345678901234567890123456789012345678901234567890123",
        "7f7bfd348709deeaace19e3f535f8c54",
    ),
    (
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        "57edf4a22be3c955ac49da2e2107b67a",
    ),
];

#[test]
fn rfc1321_suite() {
    for (input, want) in SUITE {
        assert_eq!(format!("{:x}", compute(input)), want, "{input:?}");
        let mut context = Context::new();
        context.consume(input);
        assert_eq!(format!("{:x}", finish!(context)), want, "{input:?}");
        assert_eq!(format!("{:?}", compute(input)), want);
        assert_eq!(format!("{:X}", compute(input)), want.to_uppercase());
    }
}

#[test]
fn chunked_input_at_the_padding_edges() {
    for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 1024] {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let whole = compute(&data);
        for chunk in [1, 7, 63, 64, 65, 128] {
            let mut context = Context::new();
            for piece in data.chunks(chunk) {
                context.consume(piece);
            }
            assert_eq!(
                finish!(context),
                whole,
                "{len} bytes in {chunk}-byte pieces"
            );
        }
    }
}

#[test]
fn index() {
    let mut digest = compute(b"abc");
    assert_eq!(digest[0], 0x90);
    assert_eq!(&digest[0], &0x90);
    assert_eq!(&mut digest[0], &mut 0x90);
}

#[cfg(feature = "std")]
#[test]
fn write_512_mib() {
    use std::io::Write;
    let data = vec![0; 8 * 1024 * 1024];
    let mut context = Context::new();
    for _ in 0..64 {
        context.write_all(&data).unwrap();
    }
    assert_eq!(
        format!("{:x}", finish!(context)),
        "aa559b4e3523a6c931f08f4df52d58f2"
    );
}

#[cfg(all(feature = "std", target_pointer_width = "64"))]
#[test]
fn write_4_gib() {
    use std::io::Write;
    let data = vec![0; u32::MAX as usize + 1];
    let mut context = Context::new();
    context.write_all(&data).unwrap();
    assert_eq!(
        format!("{:x}", finish!(context)),
        "c9a5a6878d97b48cc965c1e41859f034"
    );
}
