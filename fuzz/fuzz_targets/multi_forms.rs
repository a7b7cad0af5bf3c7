//! `md5::multi`'s batch forms other than slices, against the oracle of
//! `md5_fuzz::soft_digest` (the portable compression function and RFC
//! 1321's padding, written out in the fuzz crate) over each message's
//! bytes: a column in Arrow's layout (every offset type, offsets starting
//! above 0 as an Arrow slice's do; the same rows as Arrow views, and with
//! one view broken, which must be named), a shared suffix or prefix, lists of
//! pieces; with the kernel the build selects and with one other kernel the
//! CPU has, and a column with one offset type (each input picks them, so
//! that the inputs of a run meet them all); then the digests to hex and
//! base64 against plain oracles. On an AVX-512 CPU the AVX-512 kernel runs
//! at each of its widths.
#![no_main]

use libfuzzer_sys::fuzz_target;
use md5::multi::{self, kernel_choice};
use md5_fuzz::{fill, one_kernel, soft_digest, Cursor};

/// A length from a selector byte and a value: short rows mostly, the
/// padding edges, and now and then (one time in sixteen) a long one.
fn length(sel: u8, v: u16) -> usize {
    let v = v as usize;
    match sel % 16 {
        0..=7 => v % 201,
        8..=10 => {
            const EDGES: [usize; 10] = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120];
            64 * ((v >> 4) % 8) + EDGES[v % 10]
        }
        11..=14 => v % 64,
        _ => v % 6000,
    }
}

/// Runs the offsets form with offsets of type `O`, with the build's kernel
/// and `kernel`.
fn check_offsets<O>(
    values: &[u8],
    offsets: &[usize],
    want: &[[u8; 16]],
    kernel: kernel_choice::Choice,
) where
    O: multi::Offset + TryFrom<usize>,
    <O as TryFrom<usize>>::Error: core::fmt::Debug,
{
    let offsets: Vec<O> = offsets.iter().map(|&o| O::try_from(o).unwrap()).collect();
    let mut out = vec![[0u8; 16]; want.len()];
    multi::digest_offsets_into(values, &offsets, &mut out);
    assert_eq!(out, want, "offsets {}", core::any::type_name::<O>());
    out.fill([0; 16]);
    kernel_choice::digest_offsets_into(kernel, values, &offsets, &mut out);
    assert_eq!(
        out,
        want,
        "kernel {kernel}, offsets {}",
        core::any::type_name::<O>()
    );
}

/// The same column as Arrow views over one data buffer, `values` (rows of
/// up to 12 bytes inline), with the build's kernel and `kernel`; with
/// `broken`, a row in the buffer whose view then names a second buffer,
/// which each call must refuse by naming that row, and no panic.
fn check_views(
    values: &[u8],
    offsets: &[usize],
    want: &[[u8; 16]],
    kernel: kernel_choice::Choice,
    broken: usize,
) {
    let mut views: Vec<u128> = offsets
        .windows(2)
        .map(|w| {
            let (start, len) = (w[0], w[1] - w[0]);
            let mut view = [0u8; 16];
            view[..4].copy_from_slice(&(len as u32).to_le_bytes());
            if len <= 12 {
                view[4..4 + len].copy_from_slice(&values[start..w[1]]);
            } else {
                view[4..8].copy_from_slice(&values[start..start + 4]);
                view[12..].copy_from_slice(&(start as u32).to_le_bytes());
            }
            u128::from_ne_bytes(view)
        })
        .collect();
    let long: Vec<usize> = (0..want.len())
        .filter(|&r| offsets[r + 1] - offsets[r] > 12)
        .collect();
    let broken = (!long.is_empty() && broken % 3 == 0).then(|| long[broken % long.len()]);
    if let Some(row) = broken {
        let mut view = views[row].to_ne_bytes();
        view[8..12].copy_from_slice(&1u32.to_le_bytes());
        views[row] = u128::from_ne_bytes(view);
    }
    let buffers = [values];
    let mut out = vec![[0u8; 16]; want.len()];
    let mut hex = vec![[0u8; 32]; want.len()];
    let results = [
        multi::digest_views_into(&views, &buffers, &mut out),
        multi::hex_views_into(&views, &buffers, &mut hex),
        kernel_choice::digest_views_into(kernel, &views, &buffers, &mut out),
    ];
    for (k, result) in results.into_iter().enumerate() {
        match broken {
            Some(row) => assert_eq!(result.map_err(|e| e.row), Err(row), "views, call {k}"),
            None => assert_eq!(result, Ok(()), "views, call {k}"),
        }
    }
    if broken.is_none() {
        assert_eq!(out, want, "kernel {kernel}, views");
        let want_hex: Vec<[u8; 32]> = want.iter().map(hex_nibbles).collect();
        assert!(hex == want_hex, "hex_views_into");
    }
}

/// Lowercase hex of a digest, a nibble at a time.
fn hex_nibbles(d: &[u8; 16]) -> [u8; 32] {
    let mut out = [0; 32];
    for (i, n) in out.iter_mut().enumerate() {
        let nibble = d[i / 2] >> (4 - 4 * (i % 2)) & 15;
        *n = b"0123456789abcdef"[nibble as usize];
    }
    out
}

/// RFC 4648 base64 of a digest, bit by bit.
fn base64_bits(d: &[u8; 16]) -> [u8; 24] {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bit = |i: usize| d.get(i / 8).map_or(0, |b| b >> (7 - i % 8) & 1);
    let mut out = [b'='; 24];
    for (k, o) in out[..22].iter_mut().enumerate() {
        *o = ABC[(0..6).fold(0, |v, j| v << 1 | bit(6 * k + j)) as usize];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let kernel = one_kernel(data);
    let mut c = Cursor::new(data);
    let form = c.u8();
    let count = c.u8() as usize % 201;
    let lens: Vec<usize> = (0..count).map(|_| length(c.u8(), c.u16())).collect();
    let base = c.u8() as usize;
    let affix_len = length(c.u8(), c.u16());
    let pool = c.rest();
    let total: usize = lens.iter().sum();
    let buf = fill(pool, base + total + affix_len + 64);
    let affix = &buf[buf.len() - affix_len..];

    let want: Vec<[u8; 16]> = match form % 4 {
        // A column: rows back to back from `base`.
        0 => {
            let mut offsets = vec![base];
            for n in &lens {
                offsets.push(offsets[offsets.len() - 1] + n);
            }
            let values = &buf[..base + total];
            let want: Vec<[u8; 16]> = offsets
                .windows(2)
                .map(|w| soft_digest(&values[w[0]..w[1]]))
                .collect();
            // No offsets at all is an empty column too.
            let offsets = if count == 0 && base % 2 == 1 {
                &[][..]
            } else {
                &offsets[..]
            };
            if offsets.len() == count + 1 && base + total <= u32::MAX as usize {
                check_views(values, offsets, &want, kernel, base);
            }
            match form / 4 % 5 {
                0 => check_offsets::<i32>(values, offsets, &want, kernel),
                1 => check_offsets::<i64>(values, offsets, &want, kernel),
                2 => check_offsets::<u32>(values, offsets, &want, kernel),
                3 => check_offsets::<u64>(values, offsets, &want, kernel),
                _ => check_offsets::<usize>(values, offsets, &want, kernel),
            }
            want
        }
        // Messages with a suffix or a prefix; every message starts at its
        // own offset of the buffer.
        1 | 2 => {
            let msgs: Vec<&[u8]> = lens
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    let at = i * 131 % (base + total + 1);
                    &buf[at..at + n.min(buf.len() - at)]
                })
                .collect();
            let suffix = form % 4 == 1;
            let want: Vec<[u8; 16]> = msgs
                .iter()
                .map(|m| {
                    let joined = if suffix { [*m, affix] } else { [affix, *m] };
                    soft_digest(&joined.concat())
                })
                .collect();
            let mut out = vec![[0u8; 16]; count];
            if suffix {
                multi::digest_many_suffixed_into(&msgs, affix, &mut out);
            } else {
                multi::digest_many_prefixed_into(affix, &msgs, &mut out);
            }
            assert_eq!(
                out, want,
                "suffix: {suffix}, affix {affix_len}, lengths {lens:?}"
            );
            out.fill([0; 16]);
            if suffix {
                kernel_choice::digest_many_suffixed_into(kernel, &msgs, affix, &mut out);
            } else {
                kernel_choice::digest_many_prefixed_into(kernel, affix, &msgs, &mut out);
            }
            assert_eq!(
                out, want,
                "kernel {kernel}, suffix: {suffix}, lengths {lens:?}"
            );
            want
        }
        // Lists of 0 to 3 pieces, cut from the lengths in turn.
        _ => {
            let mut at = 0;
            let mut pieces = lens.iter().map(|&n| {
                let p = &buf[at..at + n];
                at = (at + n) % (base + 1);
                p
            });
            let mut lists: Vec<Vec<&[u8]>> = Vec::new();
            let mut k = base;
            loop {
                let take = k % 4;
                k = k / 4 + 7 * take + 1;
                let list: Vec<&[u8]> = pieces.by_ref().take(take).collect();
                if list.len() < take {
                    break;
                }
                lists.push(list);
            }
            let want: Vec<[u8; 16]> = lists.iter().map(|l| soft_digest(&l.concat())).collect();
            let mut out = vec![[0u8; 16]; lists.len()];
            multi::digest_pieces_into(&lists, &mut out);
            assert_eq!(out, want, "pieces, lengths {lens:?}");
            out.fill([0; 16]);
            kernel_choice::digest_pieces_into(kernel, &lists, &mut out);
            assert_eq!(out, want, "kernel {kernel}, pieces, lengths {lens:?}");
            want
        }
    };

    let mut hex = vec![[0u8; 32]; want.len()];
    multi::hex_into(&want, &mut hex);
    let mut b64 = vec![[0u8; 24]; want.len()];
    multi::base64_into(&want, &mut b64);
    for ((d, h), b) in want.iter().zip(&hex).zip(&b64) {
        assert_eq!(*h, hex_nibbles(d));
        assert_eq!(*b, base64_bits(d));
    }
});
