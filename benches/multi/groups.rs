//! The AVX-512 kernel through the scheduler at each group count it is
//! built for (16 to 64 lanes; sets of short messages too), on the batch
//! table's batches: the measurement behind the tuning row's `groups` and
//! `short_groups` for this CPU's family (`md5x/src/multi/tuning.rs`). Printed where the
//! argument `groups` names it or no argument filters; each row is the
//! batch's throughput ratio to the rule's own counts.

use super::{measure, Batch};
use md5::multi::kernel_choice;
use std::hint::black_box;

pub(super) fn run(batches: &[Batch]) {
    if !kernel_choice::kernels().any(|k| k == "avx512") {
        return;
    }
    let avx512 = kernel_choice::Choice::new("avx512");
    let (rule, short) = (avx512.tuning().groups, avx512.tuning().short_groups);
    let most = avx512.max_lanes() / avx512.group_lanes();
    println!(
        "\navx512 through the scheduler at each group count, short sets too (the rule here: {rule}, \
         short sets {short}); throughput / the rule's"
    );
    for b in batches {
        let msgs = b.messages();
        let mut outs = vec![vec![[0u8; 16]; msgs.len()]; most + 1];
        // 0: the rule; then each count.
        let mut fs: Vec<Box<dyn FnMut() + '_>> = outs
            .iter_mut()
            .zip(0..)
            .map(|(out, g)| {
                let msgs = &msgs;
                let kernel = match g {
                    0 => avx512,
                    g => avx512.groups(g),
                };
                Box::new(move || {
                    kernel_choice::digest_many_into(kernel, black_box(msgs), out);
                    black_box(&out);
                }) as Box<dyn FnMut() + '_>
            })
            .collect();
        let ns = measure(&mut fs);
        let mut line = format!("  {:<18}", b.name);
        for (g, t) in (1..).zip(&ns[1..]) {
            line += &format!("  {g}: {:.2}x", ns[0] / t);
        }
        println!("{line}");
    }
}
