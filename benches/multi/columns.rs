//! The batches users have beyond a few long messages, each against the
//! straightforward code a user writes today and against the multi-buffer
//! peers where they have the shape: a million short rows (32 bytes, 8 to
//! 55, 0 to 200), a column in Arrow's layout to a hex or base64 column,
//! rsync's blocks with a seed after each, and a million rows on every core
//! (with the `rayon` feature).
//!
//! Each shape's first contender is the baseline every ratio divides; a
//! table row gives each contender's ns per row and its speed-up over the
//! baseline. Rows are cut from one buffer, back to back, as a column holds
//! them. `cargo test --bench multi` checks that every contender of every
//! shape writes the baseline's output (on fewer rows), timing nothing.

use super::{measure, measure_by, Rng};
use md5::{multi, Digest, Md5};
use std::hint::black_box;

/// Fills a shape's output: digests, hex or base64, flat.
type Fill<'a> = Box<dyn FnMut(&mut [u8]) + 'a>;

/// One way to fill a shape's output.
struct Run<'a> {
    name: String,
    f: Fill<'a>,
}

fn run<'a>(name: &str, f: impl FnMut(&mut [u8]) + 'a) -> Run<'a> {
    Run {
        name: name.into(),
        f: Box::new(f),
    }
}

/// A column: every row's bytes back to back, and `n + 1` offsets.
struct Column {
    values: Vec<u8>,
    offsets: Vec<i32>,
}

impl Column {
    fn new(rows: usize, len: impl Fn(&mut Rng) -> usize, rng: &mut Rng) -> Self {
        let lens: Vec<usize> = (0..rows).map(|_| len(rng)).collect();
        let total: usize = lens.iter().sum();
        let values = rng.bytes(total);
        let mut offsets = vec![0i32];
        for n in lens {
            offsets.push(offsets[offsets.len() - 1] + n as i32);
        }
        Self { values, offsets }
    }

    fn rows(&self) -> Vec<&[u8]> {
        self.offsets
            .windows(2)
            .map(|w| &self.values[w[0] as usize..w[1] as usize])
            .collect()
    }
}

/// `bytes` as digests.
fn digests(bytes: &mut [u8]) -> &mut [[u8; 16]] {
    bytes.as_chunks_mut::<16>().0
}

/// The straightforward loop: one `Md5::digest` per row.
fn digest_loop<'a>(rows: &'a [&'a [u8]]) -> Run<'a> {
    run("loop of Md5::digest", move |out| {
        for (r, o) in rows.iter().zip(digests(out)) {
            *o = Md5::digest(r).into();
        }
    })
}

/// A million rows of the lengths `len` draws, hashed to digests.
fn rows_to_digests<'a>(col: &'a Column, rows: &'a [&'a [u8]]) -> Vec<Run<'a>> {
    let mut runs = vec![
        digest_loop(rows),
        run("digest_many_into", move |out| {
            multi::digest_many_into(rows, digests(out))
        }),
        run("digest_offsets_into", move |out| {
            multi::digest_offsets_into(&col.values, &col.offsets, digests(out))
        }),
    ];
    runs.extend(peers::runs(rows));
    runs
}

/// The multi-buffer peers' batch calls over the same rows.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod peers {
    use super::{digests, run, Run};
    use md5_many::Md5Many;

    pub(super) fn runs<'a>(rows: &'a [&'a [u8]]) -> Vec<Run<'a>> {
        let best = Md5Many::new();
        let mut runs = vec![run(&format!("md5-many ({})", best.lanes()), move |out| {
            best.hash_many(rows, digests(out))
        })];
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = fearless_simd::Level::new().as_avx2() {
            let held = Md5Many::from_level(fearless_simd::Level::Avx2(avx2));
            if held.lanes() != Md5Many::new().lanes() {
                runs.push(run(
                    &format!("md5-many avx2 ({})", held.lanes()),
                    move |out| held.hash_many(rows, digests(out)),
                ));
            }
        }
        let simd = md5_simd::Md5Engine::new();
        runs.push(run(&format!("md5-simd ({})", simd.lanes()), move |out| {
            simd.hash_many(rows, digests(out))
        }));
        runs
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod peers {
    pub(super) fn runs<'a>(_: &'a [&'a [u8]]) -> Vec<super::Run<'a>> {
        Vec::new()
    }
}

/// A column to hex, 32 bytes a row.
fn column_to_hex<'a>(col: &'a Column, rows: &'a [&'a [u8]]) -> Vec<Run<'a>> {
    let mut digests_buf = vec![[0u8; 16]; rows.len()];
    vec![
        run("loop of Md5::digest + format!(\"{:x}\")", move |out| {
            for (r, o) in rows.iter().zip(out.chunks_exact_mut(32)) {
                o.copy_from_slice(format!("{:x}", Md5::digest(r)).as_bytes());
            }
        }),
        run("loop of Md5::digest + hex::encode_to_slice", move |out| {
            for (r, o) in rows.iter().zip(out.chunks_exact_mut(32)) {
                hex::encode_to_slice(Md5::digest(r), o).unwrap();
            }
        }),
        run("digest_offsets_into + hex_into", move |out| {
            multi::digest_offsets_into(&col.values, &col.offsets, &mut digests_buf);
            multi::hex_into(&digests_buf, out.as_chunks_mut::<32>().0);
        }),
        run("hex_offsets_into", move |out| {
            multi::hex_offsets_into(&col.values, &col.offsets, out.as_chunks_mut::<32>().0);
        }),
    ]
}

/// A column to base64, 24 bytes a row.
fn column_to_base64<'a>(col: &'a Column, rows: &'a [&'a [u8]]) -> Vec<Run<'a>> {
    use base64::Engine;
    let b64 = &base64::engine::general_purpose::STANDARD;
    let mut digests_buf = vec![[0u8; 16]; rows.len()];
    vec![
        run("loop of Md5::digest + base64 encode", move |out| {
            for (r, o) in rows.iter().zip(out.chunks_exact_mut(24)) {
                o.copy_from_slice(b64.encode(Md5::digest(r)).as_bytes());
            }
        }),
        run("loop of Md5::digest + base64 encode_slice", move |out| {
            for (r, o) in rows.iter().zip(out.chunks_exact_mut(24)) {
                b64.encode_slice(Md5::digest(r), o).unwrap();
            }
        }),
        run("digest_offsets_into + base64_into", move |out| {
            multi::digest_offsets_into(&col.values, &col.offsets, &mut digests_buf);
            multi::base64_into(&digests_buf, out.as_chunks_mut::<24>().0);
        }),
        run("base64_offsets_into", move |out| {
            multi::base64_offsets_into(&col.values, &col.offsets, out.as_chunks_mut::<24>().0);
        }),
    ]
}

/// rsync's block checksums: each block followed by a 4-byte seed.
fn blocks_with_seed<'a>(rows: &'a [&'a [u8]], seed: &'a [u8]) -> Vec<Run<'a>> {
    vec![
        run("copy each block + seed, digest_many_into", move |out| {
            let joined: Vec<Vec<u8>> = rows.iter().map(|b| [b, seed].concat()).collect();
            multi::digest_many_into(&joined, digests(out));
        }),
        run("digest_many_suffixed_into", move |out| {
            multi::digest_many_suffixed_into(rows, seed, digests(out))
        }),
    ]
}

/// A million rows on one thread and on rayon's pool.
#[cfg(feature = "rayon")]
fn on_every_core<'a>(rows: &'a [&'a [u8]]) -> Vec<Run<'a>> {
    vec![
        run("digest_many_into", move |out| {
            multi::digest_many_into(rows, digests(out))
        }),
        run(
            &format!(
                "par_digest_many_into ({} threads)",
                rayon::current_num_threads()
            ),
            move |out| multi::par_digest_many_into(rows, digests(out)),
        ),
    ]
}

/// One shape: its name, rows, output bytes per row, and whether it runs on
/// several threads (then timed by the wall clock).
struct Shape {
    name: &'static str,
    rows: usize,
    out_per_row: usize,
    threads: bool,
}

/// Every shape, with `rows` for "a million"; `only` keeps the shapes whose
/// names contain one of its words (all where it is empty).
pub(super) fn run_all(timing: bool, only: &[String]) {
    let million = if timing { 1_000_000 } else { 20_000 };
    let rsync = if timing { 10_000 } else { 300 };
    let mut rng = Rng(0x636f_6c75_6d6e);
    let cols = [
        Column::new(million, |_| 32, &mut rng),
        Column::new(million, |r| 8 + r.below(48), &mut rng),
        Column::new(million, |r| r.below(201), &mut rng),
        Column::new(million, |r| 8 + r.below(57), &mut rng),
        Column::new(rsync, |_| 4096, &mut rng),
        Column::new(million, |_| 64, &mut rng),
    ];
    let rows: Vec<Vec<&[u8]>> = cols.iter().map(Column::rows).collect();
    let seed = 0x5eed_u32.to_le_bytes();
    let mut shapes: Vec<(Shape, Vec<Run<'_>>)> = vec![
        (
            shape("1M x 32 B", million, 16),
            rows_to_digests(&cols[0], &rows[0]),
        ),
        (
            shape("1M x 8-55 B", million, 16),
            rows_to_digests(&cols[1], &rows[1]),
        ),
        (
            shape("1M x 0-200 B", million, 16),
            rows_to_digests(&cols[2], &rows[2]),
        ),
        (
            shape("1M x 8-64 B to hex", million, 32),
            column_to_hex(&cols[3], &rows[3]),
        ),
        (
            shape("1M x 8-64 B to base64", million, 24),
            column_to_base64(&cols[3], &rows[3]),
        ),
        (
            shape("10000 x (4 KiB + seed)", rsync, 16),
            blocks_with_seed(&rows[4], &seed),
        ),
    ];
    #[cfg(feature = "rayon")]
    shapes.push((
        Shape {
            threads: true,
            ..shape("1M x 64 B, threads", million, 16)
        },
        on_every_core(&rows[5]),
    ));
    shapes.retain(|(s, _)| only.is_empty() || only.iter().any(|o| s.name.contains(o.as_str())));
    if timing {
        println!("\nrows of short messages and columns: ns per row (speed-up over the first)");
    }
    for (shape, mut runs) in shapes {
        let mut outs: Vec<Vec<u8>> = runs
            .iter()
            .map(|_| vec![0u8; shape.rows * shape.out_per_row])
            .collect();
        for (r, out) in runs.iter_mut().zip(&mut outs) {
            (r.f)(out);
        }
        for (r, out) in runs.iter().zip(&outs).skip(1) {
            assert!(
                *out == outs[0],
                "{} on {}: not the baseline's output",
                r.name,
                shape.name
            );
        }
        if !timing {
            continue;
        }
        let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        let mut fs: Vec<Box<dyn FnMut() + '_>> = runs
            .iter_mut()
            .zip(outs.iter_mut())
            .map(|(r, out)| {
                Box::new(move || {
                    (r.f)(black_box(out));
                    black_box(&out);
                }) as Box<dyn FnMut() + '_>
            })
            .collect();
        let ns = if shape.threads {
            measure_by(&mut fs, super::clock::wall_ns)
        } else {
            measure(&mut fs)
        };
        println!(
            "  {}{}:",
            shape.name,
            if shape.threads { " (wall time)" } else { "" }
        );
        for (name, t) in names.iter().zip(&ns) {
            println!(
                "    {:<46} {:>8.1} ns  {:>6.2}x",
                name,
                t / shape.rows as f64,
                ns[0] / t
            );
        }
        // This crate's batch calls against the fastest peer.
        let best_peer = names
            .iter()
            .zip(&ns)
            .filter(|(name, _)| name.starts_with("md5-"))
            .map(|(_, &t)| t)
            .reduce(f64::min);
        if let Some(peer) = best_peer {
            let ours = names
                .iter()
                .zip(&ns)
                .filter(|(n, _)| n.starts_with("digest_"));
            for (name, t) in ours {
                println!("    {name} / fastest peer: {:.2}x", peer / t);
            }
        }
    }
    if !timing {
        println!(
            "benches/multi: every contender of the column shapes writes the baseline's output"
        );
    }
}

/// A shape of `rows` rows on one thread.
fn shape(name: &'static str, rows: usize, out_per_row: usize) -> Shape {
    Shape {
        name,
        rows,
        out_per_row,
        threads: false,
    }
}
