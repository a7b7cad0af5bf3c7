//! Every batch entry point of `md5::multi` and `md5::etag` runs on a small
//! thread stack, with the right digests. musl gives a thread it starts 128
//! KiB unless told otherwise (Python's threads there too), and a caller's
//! own frames need some of it.
//!
//! An overflow aborts the whole test binary ("has overflowed its stack"),
//! hence a file of its own. Release builds only (`ci/targets.sh` and
//! `ci/cross.sh --release` run these): a debug build's frames are several
//! times larger.

use md5::multi::{self, Lanes};
use md5::{Digest, Md5};

use md5x_testkit::Rng;

/// The stack of each call of a plain form. Measured (x86_64, AVX-512
/// kernel at two groups, the release profile): 57 to 66 KiB by entry
/// point. A 64 KiB buffer of digests had taken the hex and base64 forms to
/// 150. Where the kernel runs four groups (AMD Zen 5) its frames double:
/// `digest_many_into` over short mixed rows took 82 KiB (thin LTO) to 84
/// (fat, frame pointers), hence [`plain_stack`].
const STACK: usize = 80 << 10;

/// [`STACK`], and 8 KiB more where the AVX-512 kernel runs four groups.
fn plain_stack() -> usize {
    match multi::kernel_choice::kernels()
        .any(|k| k == "avx512")
        .then(|| multi::kernel_choice::Choice::new("avx512").tuning().groups)
    {
        Some(4) => STACK + (8 << 10),
        _ => STACK,
    }
}

/// The same for the forms with a prefix, a suffix or pieces, whose queued
/// messages are larger: 73 to 83 KiB.
const PIECES_STACK: usize = 96 << 10;

/// Runs `f` on a thread of `stack` bytes.
fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .expect("spawning a thread")
        .join()
        .expect("the call panicked")
}

/// A column of `rows` rows of `lo..=hi` bytes: its values and offsets.
fn column(rng: &mut Rng, rows: usize, lo: usize, hi: usize) -> (Vec<u8>, Vec<i64>) {
    let mut offsets = vec![0i64];
    for _ in 0..rows {
        let len = lo + rng.below(hi - lo + 1);
        offsets.push(offsets[offsets.len() - 1] + len as i64);
    }
    let values = rng.bytes(offsets[rows] as usize);
    (values, offsets)
}

fn rows_of(values: &[u8], offsets: &[i64]) -> Vec<Vec<u8>> {
    offsets
        .windows(2)
        .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

fn digests<T: AsRef<[u8]>>(rows: &[T]) -> Vec<[u8; 16]> {
    rows.iter().map(|r| Md5::digest(r).into()).collect()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "debug builds need several times the stack")]
fn batches_run_on_a_small_stack() {
    let mut rng = Rng(0x7374_6163_6b00);
    // Short rows (the buckets, the column path), mixed ones to 16 KiB (the
    // queue's windows and their sort), and enough hex rows that the output
    // goes past the caches (4 MiB).
    for (rows, lo, hi) in [(5_000, 0, 200), (2_000, 0, 16 << 10), (140_000, 8, 64)] {
        let (values, offsets) = column(&mut rng, rows, lo, hi);
        let (values, offsets) = (std::sync::Arc::new(values), std::sync::Arc::new(offsets));
        let slices = rows_of(&values, &offsets);
        let want = digests(&slices);
        let mut want_hex = vec![[0u8; 32]; rows];
        multi::hex_into(&want, &mut want_hex);
        let mut want_b64 = vec![[0u8; 24]; rows];
        multi::base64_into(&want, &mut want_b64);
        let shape = format!("{rows} rows of {lo}..={hi} B");

        let got = on_stack(plain_stack(), move || {
            let mut out = vec![[0u8; 16]; slices.len()];
            multi::digest_many_into(&slices, &mut out);
            out
        });
        assert_eq!(got, want, "digest_many_into, {shape}");
        let (v, o) = (values.clone(), offsets.clone());
        let got = on_stack(plain_stack(), move || {
            let mut out = vec![[0u8; 16]; o.len() - 1];
            multi::digest_offsets_into(&v, &o, &mut out);
            out
        });
        assert_eq!(got, want, "digest_offsets_into, {shape}");
        let (v, o) = (values.clone(), offsets.clone());
        let got = on_stack(plain_stack(), move || {
            let mut out = vec![[0u8; 32]; o.len() - 1];
            multi::hex_offsets_into(&v, &o, &mut out);
            out
        });
        assert!(got == want_hex, "hex_offsets_into, {shape}");
        let got = on_stack(plain_stack(), move || {
            let mut out = vec![[0u8; 24]; offsets.len() - 1];
            multi::base64_offsets_into(&values, &offsets, &mut out);
            out
        });
        assert!(got == want_b64, "base64_offsets_into, {shape}");
    }
    // Equal messages 4 KiB apart, one word into a line, as a `Vec`'s parts
    // are: the rows that read them as whole lines (Zen 4's) keep a ring of
    // words on the stack.
    let buf = std::sync::Arc::new(rng.bytes(65 * 4096));
    let skip = (4096 - buf.as_ptr() as usize % 4096) % 4096 + 16;
    let part = |b: &[u8], i: usize| b[skip + i * 4096..][..4000].to_vec();
    let want = digests(&(0..64).map(|i| part(&buf, i)).collect::<Vec<_>>());
    let got = on_stack(plain_stack(), move || {
        let msgs: Vec<&[u8]> = (0..64).map(|i| &buf[skip + i * 4096..][..4000]).collect();
        let mut out = vec![[0u8; 16]; 64];
        multi::digest_many_into(&msgs, &mut out);
        out
    });
    assert_eq!(
        got, want,
        "digest_many_into, 64 parts 4 KiB apart inside a line"
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "debug builds need several times the stack")]
fn streams_run_on_a_small_stack() {
    let mut rng = Rng(0x7374_6163_6b01);
    let data = rng.bytes(20 << 20);
    let parts = digests(&data.chunks(5 << 20).collect::<Vec<_>>());
    let want = format!("{:x}-{}", Md5::digest(parts.concat()), parts.len());
    let got = on_stack(plain_stack(), move || {
        md5::etag::multipart(&data, 5 << 20).map(|e| e.to_string())
    });
    assert_eq!(got, Ok(want), "etag::multipart");

    let streams: Vec<Vec<u8>> = (0..8).map(|i| rng.bytes(64 * (1_000 + i))).collect();
    let want = digests(&streams);
    let got = on_stack(plain_stack(), move || {
        let mut lanes = Lanes::new(streams.len());
        lanes.update(&streams);
        (0..streams.len())
            .map(|i| lanes.finalize_lane(i, &[]))
            .collect::<Vec<_>>()
    });
    assert_eq!(got, want, "Lanes");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "debug builds need several times the stack")]
fn pieces_run_on_a_small_stack() {
    let mut rng = Rng(0x7374_6163_6b02);
    let (values, offsets) = column(&mut rng, 5_000, 0, 200);
    let rows = std::sync::Arc::new(rows_of(&values, &offsets));
    let seed = *b"seed";
    let key = std::sync::Arc::new(rng.bytes(100));
    let suffixed: Vec<Vec<u8>> = rows.iter().map(|r| [&r[..], &seed].concat()).collect();
    let prefixed: Vec<Vec<u8>> = rows.iter().map(|r| [&key[..], &r[..]].concat()).collect();

    let r = rows.clone();
    let got = on_stack(PIECES_STACK, move || {
        let mut out = vec![[0u8; 16]; r.len()];
        multi::digest_many_suffixed_into(&r, &seed, &mut out);
        out
    });
    assert_eq!(got, digests(&suffixed), "digest_many_suffixed_into");
    let r = rows.clone();
    let got = on_stack(PIECES_STACK, move || {
        let mut out = vec![[0u8; 16]; r.len()];
        multi::digest_many_prefixed_into(&key, &r, &mut out);
        out
    });
    assert_eq!(got, digests(&prefixed), "digest_many_prefixed_into");
    let got = on_stack(PIECES_STACK, move || {
        let lists: Vec<[&[u8]; 2]> = rows.iter().map(|r| [&r[..], &seed]).collect();
        let mut out = vec![[0u8; 16]; lists.len()];
        multi::digest_pieces_into(&lists, &mut out);
        out
    });
    assert_eq!(got, digests(&suffixed), "digest_pieces_into");
}
