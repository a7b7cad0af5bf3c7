//! Hashes with every API that reaches an asm backend or a SIMD kernel, in a
//! build that inlines the library into this crate, and checks the results
//! against each other and a known answer.
use md5::multi::Lanes;
use md5::{Digest, Md5};

fn main() {
    let data: Vec<u8> = (0..64 * 40).map(|i| (i * 7 + i / 256) as u8).collect();
    let mut lanes = Lanes::new(Lanes::MAX);
    let chunks: Vec<&[u8]> = (0..Lanes::MAX).map(|i| &data[..64 * 8 * (i % 5)]).collect();
    lanes.update(&chunks);
    for (i, chunk) in chunks.iter().enumerate() {
        let want = Md5::digest([*chunk, b"tail"].concat());
        assert_eq!(lanes.finalize_lane(i, b"tail")[..], want[..], "lane {i}");
    }
    let messages: Vec<&[u8]> = (0..100).map(|i| &data[i..i * 13]).collect();
    for (m, d) in messages.iter().zip(md5::multi::digest_many(&messages)) {
        assert_eq!(d[..], Md5::digest(m)[..]);
    }
    assert_eq!(
        format!(
            "{:x}",
            Md5::digest(b"The quick brown fox jumps over the lazy dog")
        ),
        "9e107d9d372bb6826bd81d3542a419d6"
    );
    println!(
        "profile probe: ok (backend {}, multi {})",
        md5::backend(),
        md5::multi::backend()
    );
}
