//! Update throughput in the shape of RustCrypto's `bench_update!`, with
//! upstream md-5 0.11.0 beside this package in every group, so the ratio
//! shows in one run (the repository root's `benches/compare.rs` compares the
//! shared backends with more contenders):
//!
//! ```text
//! cargo bench --bench md5
//! ```

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

fn bench_update(c: &mut Criterion) {
    for size in [10usize, 100, 1000, 10000] {
        let data = vec![0x5a_u8; size];
        let mut group = c.benchmark_group(format!("md5_{size}"));
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("md-5-0.11", md5::backend()), |b| {
            use md5::Digest;
            let mut h = md5::Md5::new();
            b.iter(|| h.update(black_box(&data)));
        });
        group.bench_function("upstream-0.11.0", |b| {
            use upstream::Digest;
            let mut h = upstream::Md5::new();
            b.iter(|| h.update(black_box(&data)));
        });
        group.finish();
    }
}

criterion_group!(benches, bench_update);
criterion_main!(benches);
