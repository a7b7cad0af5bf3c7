//! `md5::etag::multipart` (every kernel the CPU has) and `EtagHasher` fed
//! in random pieces, against S3's formula composed here over the fuzz
//! crate's own MD5 (`soft_digest`): random lengths up to 64 KiB, part sizes
//! from 1 byte up, S3's 10,000-part limit on both sides. On an AVX-512 CPU
//! the AVX-512 kernel runs at each of its widths, chosen by the input's
//! length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::etag::{self, EtagHasher, PartsError, MAX_PARTS};
use md5_fuzz::{fill, soft_digest, Cursor};

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let len = c.u16() as usize;
    let part_size = match c.u8() % 4 {
        0 => c.u8() as usize,
        1 => c.u16() as usize,
        2 => 64 * (c.u8() as usize % 8),
        _ => len + c.u8() as usize,
    };
    let pieces: Vec<usize> = (0..c.u8() % 16).map(|_| c.u16() as usize).collect();
    let msg = fill(c.rest(), len);

    let want = if part_size == 0 {
        Err(PartsError::ZeroPartSize)
    } else {
        let mut parts: Vec<&[u8]> = msg.chunks(part_size).collect();
        if parts.is_empty() {
            parts.push(&[]);
        }
        if parts.len() as u64 > MAX_PARTS {
            Err(PartsError::TooManyParts {
                part_size: part_size as u64,
                len: Some(len as u64),
            })
        } else {
            let cat: Vec<u8> = parts.iter().flat_map(|p| soft_digest(p)).collect();
            let hex: String = soft_digest(&cat)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            Ok(format!("{hex}-{}", parts.len()))
        }
    };
    let got = etag::multipart(&msg, part_size).map(|e| e.to_string());
    assert_eq!(got, want, "{len} bytes in parts of {part_size}");
    for kernel in md5_fuzz::kernels(data) {
        let got = etag::kernel_choice::multipart(kernel, &msg, part_size).map(|e| e.to_string());
        assert_eq!(
            got, want,
            "kernel {kernel}: {len} bytes in parts of {part_size}"
        );
    }

    // The streaming form, in the input's pieces; past the limit it says so
    // without the length, which it does not know.
    let streamed = EtagHasher::new(part_size as u64).and_then(|mut h| {
        let mut rest = &msg[..];
        for &n in pieces.iter().chain(std::iter::once(&usize::MAX)) {
            let (piece, tail) = rest.split_at(n.min(rest.len()));
            h.update(piece)?;
            rest = tail;
        }
        h.finish()
    });
    let want_streamed = want.map_err(|e| match e {
        PartsError::TooManyParts { part_size, .. } => PartsError::TooManyParts {
            part_size,
            len: None,
        },
        e => e,
    });
    assert_eq!(streamed.map(|e| e.to_string()), want_streamed, "EtagHasher");
});
