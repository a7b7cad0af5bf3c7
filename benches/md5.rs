//! Update throughput in the shape of RustCrypto's `bench_update!`, with
//! upstream md-5 0.10.6 beside this crate in every group so the ratio shows
//! in one run:
//!
//! ```text
//! cargo bench --bench md5
//! ```

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digest::Digest;
use std::hint::black_box;

fn update<D: Digest>(h: &mut D, data: &[u8]) {
    h.update(black_box(data));
}

fn bench_update(c: &mut Criterion) {
    for size in [10usize, 100, 1000, 10000] {
        let data = vec![0x5a_u8; size];
        let mut group = c.benchmark_group(format!("md5_{size}"));
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("md-5", md5::backend()), |b| {
            let mut h = md5::Md5::new();
            b.iter(|| update(&mut h, &data));
        });
        group.bench_function("upstream-0.10.6", |b| {
            let mut h = upstream::Md5::new();
            b.iter(|| update(&mut h, &data));
        });
        group.finish();
    }
}

criterion_group!(benches, bench_update);
criterion_main!(benches);
