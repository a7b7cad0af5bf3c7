//! `compute` and `Context` throughput of this package and of the crates.io
//! release it replaces (md5 0.8.1), side by side in every group, so the
//! ratio shows in one run:
//!
//! ```text
//! cargo bench --bench md5
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

/// The release this package replaces, as the groups name it.
const UPSTREAM: &str = "upstream-0.8.1";

/// This package, as the groups name it.
const OURS: &str = concat!("md5-", env!("CARGO_PKG_VERSION"));

fn bench(c: &mut Criterion) {
    for size in [64usize, 1024, 65536] {
        let data = vec![0x5a_u8; size];
        let mut group = c.benchmark_group(format!("compute_{size}"));
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(OURS, |b| b.iter(|| md5::compute(black_box(&data))));
        group.bench_function(UPSTREAM, |b| b.iter(|| upstream::compute(black_box(&data))));
        group.finish();
    }
    // Many small pieces into one context.
    let data = vec![0x5a_u8; 65536];
    let mut group = c.benchmark_group("consume_13B_pieces");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.bench_function(OURS, |b| {
        b.iter(|| {
            let mut ctx = md5::Context::new();
            for piece in data.chunks(13) {
                ctx.consume(black_box(piece));
            }
            ctx.finalize()
        })
    });
    group.bench_function(UPSTREAM, |b| {
        b.iter(|| {
            let mut ctx = upstream::Context::new();
            for piece in data.chunks(13) {
                ctx.consume(black_box(piece));
            }
            ctx.finalize()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
