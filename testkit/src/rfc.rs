//! Known answers from the RFCs.

const fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("not a lowercase hex digit"),
    }
}

/// The 16 bytes that 32 hex digits spell, at compile time.
const fn hex(digits: &str) -> [u8; 16] {
    let d = digits.as_bytes();
    assert!(d.len() == 32);
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        out[i] = nibble(d[2 * i]) << 4 | nibble(d[2 * i + 1]);
        i += 1;
    }
    out
}

/// The test suite of RFC 1321, appendix A.5: (message, digest).
pub const RFC1321: [(&[u8], [u8; 16]); 7] = [
    (b"", hex("d41d8cd98f00b204e9800998ecf8427e")),
    (b"a", hex("0cc175b9c0f1b6a831c399e269772661")),
    (b"abc", hex("900150983cd24fb0d6963f7d28e17f72")),
    (b"message digest", hex("f96b697d7cb7938d525a2f31aaf161d0")),
    (
        b"abcdefghijklmnopqrstuvwxyz",
        hex("c3fcd3d76192e4007dfb496cca67e13b"),
    ),
    (
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        hex("d174ab98d277d9f5a5611c2c9f419d9f"),
    ),
    (
        b"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
        hex("57edf4a22be3c955ac49da2e2107b67a"),
    ),
];

/// HMAC-MD5 test cases 1-7 of RFC 2202: (key, data, tag).
pub const RFC2202_HMAC: [(&[u8], &[u8], [u8; 16]); 7] = [
    (
        &[0x0b; 16],
        b"Hi There",
        hex("9294727a3638bb1c13f48ef8158bfc9d"),
    ),
    (
        b"Jefe",
        b"what do ya want for nothing?",
        hex("750c783e6ab0b503eaa86e310a5db738"),
    ),
    (
        &[0xaa; 16],
        &[0xdd; 50],
        hex("56be34521d144c88dbb8c733f0e8b3f6"),
    ),
    (
        &[
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
            25,
        ],
        &[0xcd; 50],
        hex("697eaf0aca3a3aea3a75164746ffaa79"),
    ),
    (
        &[0x0c; 16],
        b"Test With Truncation",
        hex("56461ef2342edc00f9bab995690efd4c"),
    ),
    (
        &[0xaa; 80],
        b"Test Using Larger Than Block-Size Key - Hash Key First",
        hex("6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd"),
    ),
    (
        &[0xaa; 80],
        b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data",
        hex("6f630fad67cda0ee1fb1f562db3aa53e"),
    ),
];
