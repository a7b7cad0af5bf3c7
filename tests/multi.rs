//! The public multi-buffer API, `md5::multi`, against md-5 0.10.6 (an
//! independent implementation) and `Md5`.

use md5::multi::{self, Lanes};
use md5::{Digest, Md5};

use md5x_testkit::Rng;

fn upstream(data: &[u8]) -> [u8; 16] {
    upstream::Md5::digest(data).into()
}

#[test]
fn digest_many_matches_upstream() {
    let mut rng = Rng(0x7465_7374_0001);
    for count in [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100] {
        let inputs: Vec<Vec<u8>> = (0..count)
            .map(|_| {
                let n = match rng.below(5) {
                    0 => rng.below(130),
                    1 => 64 * rng.below(5),
                    2 => 55 + rng.below(10),
                    3 => rng.below(20_000),
                    _ => 0,
                };
                rng.bytes(n)
            })
            .collect();
        let mut got = vec![[0u8; 16]; count];
        multi::digest_many_into(&inputs, &mut got);
        for (i, (input, d)) in inputs.iter().zip(&got).enumerate() {
            assert_eq!(
                *d,
                upstream(input),
                "message {i} of {count}, {} bytes",
                input.len()
            );
        }
        // The allocating form exists only with `std`.
        #[cfg(feature = "std")]
        assert_eq!(multi::digest_many(&inputs), got);
    }
}

#[test]
#[cfg(feature = "std")]
fn digest_many_accepts_any_byte_containers() {
    let strs = ["abc", "", "message digest"];
    let slices: [&[u8]; 3] = [b"abc", b"", b"message digest"];
    let vecs: Vec<Vec<u8>> = slices.iter().map(|s| s.to_vec()).collect();
    let want: Vec<[u8; 16]> = slices.iter().map(|s| upstream(s)).collect();
    assert_eq!(multi::digest_many(&strs), want);
    assert_eq!(multi::digest_many(&slices), want);
    assert_eq!(multi::digest_many(&vecs), want);
    assert!(multi::digest_many::<&[u8]>(&[]).is_empty());
}

#[test]
#[should_panic(expected = "2 inputs but 3 output slots")]
fn digest_many_into_rejects_mismatched_output() {
    multi::digest_many_into(&["a", "b"], &mut [[0; 16]; 3]);
}

/// Several "files" streamed through `Lanes` in chunks of 4 KiB, as a tool
/// hashing files side by side would, with lanes refilled by new files as
/// old ones end.
#[test]
fn lanes_hash_many_files() {
    let mut rng = Rng(0x7465_7374_0002);
    let files: Vec<Vec<u8>> = (0..40)
        .map(|_| {
            let n = rng.below(50_000);
            rng.bytes(n)
        })
        .collect();
    const CHUNK: usize = 4096;
    let count = multi::lanes().clamp(1, Lanes::MAX);
    let mut lanes = Lanes::new(count);
    assert_eq!(lanes.count(), count);
    // Which file each lane holds, and how far it is.
    let mut held: Vec<Option<(usize, usize)>> = vec![None; count];
    let mut next = 0;
    let mut digests = vec![None; files.len()];
    loop {
        let mut chunks: Vec<&[u8]> = vec![&[]; count];
        for (lane, slot) in held.iter_mut().enumerate() {
            if slot.is_none() && next < files.len() {
                *slot = Some((next, 0));
                next += 1;
            }
            let Some((f, pos)) = *slot else { continue };
            let rest = &files[f][pos..];
            if rest.len() > CHUNK {
                chunks[lane] = &rest[..CHUNK];
                *slot = Some((f, pos + CHUNK));
            } else {
                digests[f] = Some(lanes.finalize_lane(lane, rest));
                *slot = None;
            }
        }
        if next == files.len() && held.iter().all(Option::is_none) {
            break;
        }
        lanes.update(&chunks);
    }
    for (f, d) in files.iter().zip(&digests) {
        assert_eq!(d.unwrap(), upstream(f), "{} bytes", f.len());
    }
}

#[test]
fn lanes_reset_and_debug() {
    let mut lanes = Lanes::new(2);
    lanes.update(&[[7u8; 128], [8u8; 128]]);
    lanes.reset_lane(0);
    assert_eq!(lanes.finalize_lane(0, b"abc"), upstream(b"abc"));
    assert_eq!(
        lanes.finalize_lane(1, b"xy")[..],
        {
            let mut h = Md5::new();
            h.update([8u8; 128]);
            h.update(b"xy");
            h.finalize()
        }[..]
    );
    let dbg = format!("{lanes:?}");
    assert!(dbg.starts_with("Lanes { count: 2, backend: "), "{dbg}");
}

#[test]
#[should_panic(expected = "3 chunks for 2 streams")]
fn lanes_update_checks_chunk_count() {
    Lanes::new(2).update(&[[0u8; 64]; 3]);
}

#[test]
#[should_panic(expected = "it holds 1 to 64")]
fn lanes_reject_too_many_streams() {
    Lanes::new(Lanes::MAX + 1);
}

/// Equal digests cannot show which kernel ran: pin `md5::multi::backend()`
/// per target, configuration and CPU, detected here independently of the
/// crate's own `cpufeatures` check.
/// Equal whole-block messages a multiple of 4 KiB apart, from a page and
/// from 16 bytes past one (where a large `Vec<u8>`'s bytes start), each
/// as long as a stagger pays for on some row or not: every kernel the CPU
/// has, under every CPU family's tuning row, and `Lanes`, against md-5
/// 0.10.6.
#[test]
fn equal_messages_4k_apart_every_row() {
    use multi::kernel_choice::{Choice, Tuning};
    let mut rng = Rng(0x7665_6331);
    let rows = [Tuning::INTEL, Tuning::ZEN3, Tuning::ZEN4, Tuning::ZEN5];
    let data = rng.bytes((64 << 10) * 65 + 8192);
    for shift in [0, 16] {
        let base = data.as_ptr().align_offset(4096) + shift;
        for (count, len) in [(64, 4 << 10), (33, 16 << 10), (64, 64 << 10)] {
            let msgs: Vec<&[u8]> = (0..count).map(|i| &data[base + i * len..][..len]).collect();
            let want: Vec<[u8; 16]> = msgs.iter().map(|m| upstream(m)).collect();
            for kernel in multi::kernel_choice::kernels() {
                for row in rows {
                    let choice = Choice::new(kernel).tuned(row);
                    let mut out = vec![[0; 16]; count];
                    multi::kernel_choice::digest_many_into(choice, &msgs, &mut out);
                    assert_eq!(out, want, "{choice}, {row:?}, {count} x {len} at +{shift}");
                    let mut lanes = multi::kernel_choice::lanes_with(choice, count);
                    lanes.update(&msgs);
                    for (lane, want) in want.iter().enumerate() {
                        assert_eq!(&lanes.finalize_lane(lane, &[]), want, "Lanes, {choice}");
                    }
                }
            }
        }
    }
}

/// Messages 4 KiB apart starting at each word of a cache line and at odd
/// bytes, equal and unequal, of 0 to 6 blocks and more, through each row
/// and with whole-line reads on and off: the AVX-512 kernel reads blocks
/// that start at one word inside a line as whole lines (`kernel/lines.rs`),
/// with masked first and last lines.
#[test]
fn starts_inside_a_line_every_row() {
    use multi::kernel_choice::{Choice, Tuning};
    let mut rng = Rng(0x6c69_6e65);
    let data = rng.bytes(4096 * 66 + 8192);
    let rows = [Tuning::INTEL, Tuning::ZEN4, Tuning::ZEN5];
    for shift in (0..64).step_by(4).chain([1, 3, 30]) {
        let base = data.as_ptr().align_offset(4096) + shift;
        for count in [16, 40, 64] {
            let lens: [&dyn Fn(usize) -> usize; 4] =
                [&|_| 64, &|_| 64 * 6, &|i| 64 * (i % 7), &|i| {
                    64 * (i % 5) + i % 3 * 21
                }];
            for len in lens {
                let msgs: Vec<&[u8]> = (0..count)
                    .map(|i| &data[base + i * 4096..][..len(i)])
                    .collect();
                let want: Vec<[u8; 16]> = msgs.iter().map(|m| upstream(m)).collect();
                for kernel in multi::kernel_choice::kernels() {
                    for row in rows {
                        for whole_lines in [false, true] {
                            let row = Tuning {
                                avx512_whole_lines: whole_lines,
                                ..row
                            };
                            let choice = Choice::new(kernel).tuned(row);
                            let mut out = vec![[0; 16]; count];
                            multi::kernel_choice::digest_many_into(choice, &msgs, &mut out);
                            assert_eq!(out, want, "{choice}, {row:?}, {count} at +{shift}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn backend_is_the_expected_one() {
    println!(
        "md5::multi::backend() = {}, lanes() = {}",
        multi::backend(),
        multi::lanes()
    );
    assert_eq!((multi::backend(), multi::lanes()), expected_kernel());
}

/// The kernel and width this target, configuration and CPU should get.
#[allow(unreachable_code)] // only one of the cfg blocks is built
fn expected_kernel() -> (&'static str, usize) {
    if cfg!(any(md5_backend = "soft", feature = "force-soft", miri)) {
        // Forcing the portable single-stream backend forces the portable
        // multi-buffer fallback too.
        return ("portable", 1);
    }
    #[cfg(target_arch = "x86_64")]
    {
        // On a CPU (and OS) with AVX-512F and VL this fails unless the
        // AVX-512 kernel runs: hosts without it test that kernel in the
        // emulator (ci/avx512-emu).
        return if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            // Four groups of 16 on AMD Zen 5 and later, two elsewhere.
            ("avx512", if amd_family_0x1a_or_later() { 64 } else { 32 })
        } else if std::arch::is_x86_feature_detected!("avx2") {
            ("avx2", 24)
        } else {
            ("sse2", 12)
        };
    }
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    {
        return ("neon", 8);
    }
    ("portable", 1)
}

/// Whether CPUID names an AMD CPU of family 0x1A (Zen 5) or later.
#[cfg(target_arch = "x86_64")]
fn amd_family_0x1a_or_later() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: x86_64 CPUs have CPUID leaves 0 and 1 (`unsafe` on the MSRV).
    #[allow(unused_unsafe)]
    let (leaf0, leaf1) = unsafe { (__cpuid(0), __cpuid(1)) };
    let mut vendor = [0u8; 12];
    for (chunk, reg) in vendor
        .chunks_exact_mut(4)
        .zip([leaf0.ebx, leaf0.edx, leaf0.ecx])
    {
        chunk.copy_from_slice(&reg.to_le_bytes());
    }
    let base = (leaf1.eax >> 8) & 0xf;
    let extended = (leaf1.eax >> 20) & 0xff;
    &vendor == b"AuthenticAMD" && base == 0xf && base + extended >= 0x1a
}

/// The message of a panic caught by `catch_unwind`.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(payload) => payload
            .downcast::<&str>()
            .map_or_else(|_| String::new(), |s| s.to_string()),
    }
}

/// The hidden bench hooks are safe functions: sizes whose byte count
/// overflows `usize` must be refused, not wrap into a short length check
/// and read past the slice.
#[test]
fn bench_hooks_refuse_overflowing_sizes() {
    for kernel in multi::kernel_choice::kernels() {
        for (lanes_blocks, data) in [
            // 64 bytes a block: 2^(bits - 6) blocks are 2^bits bytes, one
            // past usize::MAX on 32-bit targets (i686) as on 64-bit ones.
            (1usize << (usize::BITS - 6), &[][..]),
            (usize::MAX / 64 + 1, &[0u8; 64][..]),
        ] {
            for hook in ["compress", "transpose"] {
                let r = std::panic::catch_unwind(|| match hook {
                    "compress" => {
                        multi::kernel_choice::compress(kernel, data, lanes_blocks);
                    }
                    _ => {
                        multi::kernel_choice::transpose(kernel, data, lanes_blocks);
                    }
                });
                let msg = panic_message(r.expect_err("an overflowing size was accepted"));
                assert!(
                    msg.contains("md5x::multi::kernel_choice"),
                    "{kernel} {hook}({lanes_blocks} blocks): unexpected panic {msg:?}"
                );
            }
        }
    }
}

/// A container whose `as_ref` answers a different slice on every call, and
/// counts the calls.
struct Fickle {
    answers: [Vec<u8>; 2],
    calls: std::cell::Cell<usize>,
}

impl AsRef<[u8]> for Fickle {
    fn as_ref(&self) -> &[u8] {
        let n = self.calls.get();
        self.calls.set(n + 1);
        &self.answers[n % 2]
    }
}

/// `digest_many_into` asks each input for its bytes once and hashes the
/// slice it got, in batches longer than the scheduler's window.
#[test]
fn digest_many_takes_each_input_once() {
    let mut rng = Rng(0x7465_7374_0012);
    let inputs: Vec<Fickle> = (0..500)
        .map(|i| Fickle {
            answers: [rng.bytes(i % 7 * 100), rng.bytes(64)],
            calls: Default::default(),
        })
        .collect();
    let mut out = vec![[0u8; 16]; inputs.len()];
    multi::digest_many_into(&inputs, &mut out);
    for (i, (input, got)) in inputs.iter().zip(&out).enumerate() {
        assert_eq!(input.calls.get(), 1, "input {i}");
        assert_eq!(got[..], Md5::digest(&input.answers[0])[..], "input {i}");
    }
}

/// `Lanes::update` asks each chunk for its bytes once and hashes exactly
/// the slice it checked, whatever a second `as_ref` would say.
#[test]
fn lanes_take_each_chunk_once() {
    let mut rng = Rng(0x7465_7374_0010);
    // The second answers are shorter. (One of under 64 bytes made the old
    // code loop forever on a zero-block kernel call.)
    let chunks = [
        Fickle {
            answers: [rng.bytes(128), rng.bytes(64)],
            calls: Default::default(),
        },
        Fickle {
            answers: [rng.bytes(192), rng.bytes(64)],
            calls: Default::default(),
        },
    ];
    let first: Vec<Vec<u8>> = chunks.iter().map(|c| c.answers[0].clone()).collect();
    let mut lanes = Lanes::new(2);
    lanes.update(&chunks);
    for (lane, c) in chunks.iter().enumerate() {
        assert_eq!(c.calls.get(), 1, "as_ref calls for lane {lane}");
        assert_eq!(
            lanes.finalize_lane(lane, b"x"),
            upstream(&[&first[lane][..], b"x"].concat())
        );
    }
}

/// A chunk that fails the multiple-of-64 check panics before any lane has
/// changed, so the `Lanes` stays usable and exact.
#[test]
fn lanes_unchanged_by_a_rejected_update() {
    let mut rng = Rng(0x7465_7374_0011);
    let head = [rng.bytes(64), rng.bytes(128), rng.bytes(64)];
    let mut lanes = Lanes::new(3);
    lanes.update(&head);
    let bad = [rng.bytes(64), rng.bytes(64), rng.bytes(65)];
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lanes.update(&bad)));
    assert!(panic_message(r.unwrap_err()).contains("not a multiple of 64"));
    for (lane, h) in head.iter().enumerate() {
        assert_eq!(
            lanes.finalize_lane(lane, b"tail"),
            upstream(&[&h[..], b"tail"].concat())
        );
    }
}

/// A column of `lens` rows in Arrow's layout, its offsets starting at
/// `base`, and `slack` bytes after the last row.
fn column(rng: &mut Rng, lens: &[usize], base: usize, slack: usize) -> (Vec<u8>, Vec<usize>) {
    let total: usize = lens.iter().sum();
    let values = rng.bytes(base + total + slack);
    let mut offsets = vec![base];
    for n in lens {
        offsets.push(offsets[offsets.len() - 1] + n);
    }
    (values, offsets)
}

/// Row lengths 0..=200, the padding edges, and a few long rows.
fn row_lengths(rng: &mut Rng, rows: usize) -> Vec<usize> {
    const EDGES: [usize; 10] = [55, 56, 63, 64, 65, 119, 120, 127, 128, 184];
    (0..rows)
        .map(|i| match i % 50 {
            0 => EDGES[rng.below(EDGES.len())],
            1 => 5000 + rng.below(20_000),
            _ => rng.below(201),
        })
        .collect()
}

/// `digest_offsets_into` against md-5 0.10.6 row by row, for every offset
/// type, every kernel, columns of 0 to 1000 rows and Arrow slices of them.
#[test]
fn digest_offsets_matches_upstream() {
    let mut rng = Rng(0x7465_7374_0020);
    for rows in [0, 1, 2, 31, 64, 65, 1000] {
        let lens = row_lengths(&mut rng, rows);
        let (values, offsets) = column(&mut rng, &lens, 0, 3);
        let want: Vec<[u8; 16]> = offsets
            .windows(2)
            .map(|w| upstream(&values[w[0]..w[1]]))
            .collect();
        let mut got = vec![[0u8; 16]; rows];
        multi::digest_offsets_into(&values, &offsets, &mut got);
        assert_eq!(got, want, "{rows} rows, usize offsets");
        let as_i32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let as_i64: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
        let as_u32: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
        let as_u64: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
        for kernel in multi::kernel_choice::kernels() {
            got.fill([0; 16]);
            multi::kernel_choice::digest_offsets_into(kernel, &values, &as_i32, &mut got);
            assert_eq!(got, want, "{rows} rows, i32 offsets, kernel {kernel}");
        }
        multi::digest_offsets_into(&values, &as_i64, &mut got);
        assert_eq!(got, want, "{rows} rows, i64 offsets");
        multi::digest_offsets_into(&values, &as_u32, &mut got);
        assert_eq!(got, want, "{rows} rows, u32 offsets");
        multi::digest_offsets_into(&values, &as_u64, &mut got);
        assert_eq!(got, want, "{rows} rows, u64 offsets");
        // Every Arrow slice that starts a third of the way in.
        if rows >= 3 {
            let (lo, hi) = (rows / 3, rows - rows / 3);
            let mut part = vec![[0u8; 16]; hi - lo];
            multi::digest_offsets_into(&values, &as_i32[lo..=hi], &mut part);
            assert_eq!(part, want[lo..hi], "rows {lo}..{hi} of {rows}");
        }
    }
    // An empty column: one offset (Arrow's), or none.
    multi::digest_offsets_into(b"xyz", &[2i32], &mut []);
    multi::digest_offsets_into::<i64>(b"", &[], &mut []);
}

/// What `catch_unwind` of `f` panicked with; fails if it did not.
fn panics_with(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    panic_message(std::panic::catch_unwind(f).expect_err("no panic"))
}

/// Bad offsets and output lengths panic, with messages that say which rule
/// is broken and where, before any row is read (so never out of bounds).
#[test]
fn digest_offsets_rejects_bad_columns() {
    let values = b"0123456789";
    let cases: [(&[i32], usize, &str); 7] = [
        (
            &[0, 4, 2, 10],
            3,
            "offsets decrease: offsets[1] = 4 > offsets[2] = 2",
        ),
        (&[-1, 4, 10], 2, "offsets[0] = -1 is negative"),
        (
            &[0, 4, 11],
            2,
            "offsets[2] = 11 is past the end of values (10 bytes)",
        ),
        (
            &[20, 30],
            1,
            "offsets[1] = 30 is past the end of values (10 bytes)",
        ),
        (
            &[0, 4, 10],
            3,
            "3 offsets make 2 rows, but there are 3 output slots",
        ),
        (
            &[0, 4, 10],
            1,
            "3 offsets make 2 rows, but there are 1 output slots",
        ),
        (
            &[],
            1,
            "0 offsets make 0 rows, but there are 1 output slots",
        ),
    ];
    for (offsets, slots, want) in cases {
        let msg = panics_with(|| {
            multi::digest_offsets_into(values, offsets, &mut vec![[0; 16]; slots]);
        });
        assert_eq!(msg, format!("md5x::multi::digest_offsets_into: {want}"));
    }
    // Where an offset does not fit a usize: only on 32-bit targets.
    if usize::BITS == 32 {
        let msg = panics_with(|| {
            multi::digest_offsets_into(values, &[0u64, 1 << 40], &mut [[0; 16]]);
        });
        assert!(msg.contains("past the end of values"), "{msg}");
    }
}

/// The pieces forms against md-5 0.10.6 over the concatenation, on every
/// kernel: affixes at the padding edges and longer than a lane's buffer,
/// messages of 0 to 200 bytes and long ones.
#[test]
fn pieces_forms_match_upstream() {
    let mut rng = Rng(0x7465_7374_0021);
    for affix in [0, 1, 4, 55, 56, 63, 64, 65, 128, 300] {
        let affix = rng.bytes(affix);
        let inputs: Vec<Vec<u8>> = row_lengths(&mut rng, 120)
            .into_iter()
            .map(|n| rng.bytes(n))
            .collect();
        let after: Vec<[u8; 16]> = inputs
            .iter()
            .map(|m| upstream(&[&m[..], &affix].concat()))
            .collect();
        let before: Vec<[u8; 16]> = inputs
            .iter()
            .map(|m| upstream(&[&affix, &m[..]].concat()))
            .collect();
        let lists: Vec<[&[u8]; 3]> = inputs.iter().map(|m| [&affix[..], m, &affix]).collect();
        let around: Vec<[u8; 16]> = lists.iter().map(|l| upstream(&l.concat())).collect();
        let mut got = vec![[0u8; 16]; inputs.len()];
        multi::digest_many_suffixed_into(&inputs, &affix, &mut got);
        assert_eq!(got, after, "suffix of {} bytes", affix.len());
        multi::digest_many_prefixed_into(&affix, &inputs, &mut got);
        assert_eq!(got, before, "prefix of {} bytes", affix.len());
        multi::digest_pieces_into(&lists, &mut got);
        assert_eq!(got, around, "pieces around {} bytes", affix.len());
        for kernel in multi::kernel_choice::kernels() {
            multi::kernel_choice::digest_many_suffixed_into(kernel, &inputs, &affix, &mut got);
            assert_eq!(got, after, "kernel {kernel}, suffix of {}", affix.len());
            multi::kernel_choice::digest_many_prefixed_into(kernel, &affix, &inputs, &mut got);
            assert_eq!(got, before, "kernel {kernel}, prefix of {}", affix.len());
            multi::kernel_choice::digest_pieces_into(kernel, &lists, &mut got);
            assert_eq!(
                got,
                around,
                "kernel {kernel}, pieces around {}",
                affix.len()
            );
        }
    }
    // Lists of any length, and of owned pieces.
    let lists: Vec<Vec<String>> = vec![vec![], vec!["a".into()], vec!["".into(); 5]];
    let mut got = [[0u8; 16]; 3];
    multi::digest_pieces_into(&lists, &mut got);
    assert_eq!(got, [upstream(b""), upstream(b"a"), upstream(b"")]);
}

#[test]
fn pieces_forms_check_lengths() {
    let msg = panics_with(|| multi::digest_many_suffixed_into(&["a"], b"s", &mut [[0; 16]; 2]));
    assert_eq!(
        msg,
        "md5x::multi::digest_many_suffixed_into: 1 inputs but 2 output slots"
    );
    let msg = panics_with(|| multi::digest_many_prefixed_into(b"p", &["a", "b"], &mut []));
    assert_eq!(
        msg,
        "md5x::multi::digest_many_prefixed_into: 2 inputs but 0 output slots"
    );
    let msg = panics_with(|| multi::digest_pieces_into(&[["a", "b"]], &mut []));
    assert_eq!(
        msg,
        "md5x::multi::digest_pieces_into: 1 inputs but 0 output slots"
    );
}

/// Hex and base64 of digests against the `{:x}` formatting of `Md5`'s
/// output and an independent base64 (md-5 0.10.6's digests, RFC 4648 by
/// hand, and its test vectors' shape).
#[test]
fn encoders_match_format_and_rfc4648() {
    let mut rng = Rng(0x7465_7374_0022);
    let inputs: Vec<Vec<u8>> = (0..77).map(|i| rng.bytes(i * 3)).collect();
    let mut digests = vec![[0u8; 16]; inputs.len()];
    multi::digest_many_into(&inputs, &mut digests);
    let mut hex = vec![[0u8; 32]; digests.len()];
    multi::hex_into(&digests, &mut hex);
    let mut b64 = vec![[0u8; 24]; digests.len()];
    multi::base64_into(&digests, &mut b64);
    for (i, m) in inputs.iter().enumerate() {
        assert_eq!(
            hex[i][..],
            format!("{:x}", upstream::Md5::digest(m)).as_bytes()[..]
        );
        assert_eq!(b64[i][..], rfc4648(&upstream(m))[..], "message {i}");
    }
    // RFC 1321's "abc", and HTTP's Content-MD5 of it.
    multi::base64_into(&[upstream(b"abc")], &mut b64[..1]);
    assert_eq!(&b64[0], b"kAFQmDzST7DWlj99KOF/cg==");
    let msg = panics_with(|| multi::hex_into(&[[0; 16]; 2], &mut [[0; 32]; 1]));
    assert_eq!(msg, "md5x::multi::hex_into: 2 inputs but 1 output slots");
    let msg = panics_with(|| multi::base64_into(&[], &mut [[0; 24]; 1]));
    assert_eq!(msg, "md5x::multi::base64_into: 0 inputs but 1 output slots");
}

/// `hex_offsets_into` and `base64_offsets_into` against md-5 0.10.6 with
/// `format!` and RFC 4648 by hand, row by row: rows of 0 to 200 bytes with
/// the padding edges (55/56, 63/64, 119/120) and empty rows, columns of
/// every size around the 1,024-row chunks the rows are hashed in, offsets
/// not from 0, and an Arrow slice; then the panics of a bad column.
#[test]
fn column_encoders_match_upstream() {
    let mut rng = Rng(0x7465_7374_0023);
    for rows in [0, 1, 7, 33, 1023, 1024, 1025, 2047, 2048, 3001] {
        let lens: Vec<usize> = (0..rows)
            .map(|i| match i % 7 {
                0 => [0, 55, 56, 63, 64, 119, 120][rng.below(7)],
                _ => rng.below(201),
            })
            .collect();
        let (values, offsets) = column(&mut rng, &lens, 5, 3);
        let as_i32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        let as_u64: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
        let rows_of = |w: &[usize]| upstream(&values[w[0]..w[1]]);
        let want: Vec<[u8; 16]> = offsets.windows(2).map(rows_of).collect();
        let mut hex = vec![[0u8; 32]; rows];
        multi::hex_offsets_into(&values, &as_i32, &mut hex);
        let mut b64 = vec![[0u8; 24]; rows];
        multi::base64_offsets_into(&values, &as_u64, &mut b64);
        for (i, d) in want.iter().enumerate() {
            let text = format!(
                "{:x}",
                upstream::Md5::digest(&values[offsets[i]..offsets[i + 1]])
            );
            assert_eq!(hex[i][..], text.as_bytes()[..], "row {i} of {rows}, hex");
            assert_eq!(b64[i][..], rfc4648(d)[..], "row {i} of {rows}, base64");
        }
        if rows >= 3 {
            let (lo, hi) = (rows / 3, rows - rows / 3);
            let mut part = vec![[0u8; 32]; hi - lo];
            multi::hex_offsets_into(&values, &offsets[lo..=hi], &mut part);
            assert_eq!(part, hex[lo..hi], "hex of rows {lo}..{hi} of {rows}");
        }
    }
    multi::hex_offsets_into(b"xyz", &[2i32], &mut []);
    multi::base64_offsets_into::<i64>(b"", &[], &mut []);
    let msg = panics_with(|| multi::hex_offsets_into(b"0123", &[0i32, 3, 2], &mut [[0; 32]; 2]));
    assert_eq!(
        msg,
        "md5x::multi::hex_offsets_into: offsets decrease: offsets[1] = 3 > offsets[2] = 2"
    );
    let msg = panics_with(|| multi::base64_offsets_into(b"0123", &[0i32, 5], &mut [[0; 24]; 1]));
    assert_eq!(
        msg,
        "md5x::multi::base64_offsets_into: offsets[1] = 5 is past the end of values (4 bytes)"
    );
    let msg = panics_with(|| multi::hex_offsets_into(b"0123", &[0i32, 4], &mut [[0; 32]; 2]));
    assert_eq!(
        msg,
        "md5x::multi::hex_offsets_into: 2 offsets make 1 rows, but there are 2 output slots"
    );
}

/// RFC 4648 base64 with padding, three bytes at a time.
fn rfc4648(bytes: &[u8]) -> Vec<u8> {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            out.push(if k <= chunk.len() {
                ABC[(n >> (18 - 6 * k)) as usize & 63]
            } else {
                b'='
            });
        }
    }
    out
}

/// The parallel forms give the serial forms' digests, on batches small
/// enough to stay on the calling thread and large enough to be split
/// (by bytes and by count), of equal and mixed lengths.
#[test]
#[cfg(feature = "rayon")]
fn parallel_forms_match_serial() {
    let mut rng = Rng(0x7465_7374_0023);
    for (rows, long) in [
        (0, false),
        (5, true),
        (100, true),
        (3000, true),
        (40_000, false),
    ] {
        let mut lens = row_lengths(&mut rng, rows);
        if !long {
            lens.iter_mut().for_each(|n| *n %= 201);
        }
        let (values, offsets) = column(&mut rng, &lens, 9, 0);
        let inputs: Vec<&[u8]> = offsets.windows(2).map(|w| &values[w[0]..w[1]]).collect();
        let mut want = vec![[0u8; 16]; rows];
        multi::digest_many_into(&inputs, &mut want);
        let mut got = vec![[0u8; 16]; rows];
        multi::par_digest_many_into(&inputs, &mut got);
        assert_eq!(got, want, "{rows} rows");
        got.fill([0; 16]);
        multi::par_digest_offsets_into(&values, &offsets, &mut got);
        assert_eq!(got, want, "{rows} rows, offsets");
        let seed = b"seed";
        multi::digest_many_suffixed_into(&inputs, seed, &mut want);
        multi::par_digest_many_suffixed_into(&inputs, seed, &mut got);
        assert_eq!(got, want, "{rows} rows, suffixed");
        let key = [7u8; 100];
        multi::digest_many_prefixed_into(&key, &inputs, &mut want);
        multi::par_digest_many_prefixed_into(&key, &inputs, &mut got);
        assert_eq!(got, want, "{rows} rows, prefixed");
        let lists: Vec<[&[u8]; 2]> = inputs.iter().map(|m| [&key[..], m]).collect();
        multi::par_digest_pieces_into(&lists, &mut got);
        assert_eq!(got, want, "{rows} rows, pieces");
    }
    let msg = panics_with(|| multi::par_digest_many_into(&["a"], &mut []));
    assert_eq!(
        msg,
        "md5x::multi::par_digest_many_into: 1 inputs but 0 output slots"
    );
    let msg = panics_with(|| multi::par_digest_offsets_into(b"ab", &[0u32, 3], &mut [[0; 16]]));
    assert_eq!(
        msg,
        "md5x::multi::par_digest_offsets_into: offsets[1] = 3 is past the end of values (2 bytes)"
    );
}
